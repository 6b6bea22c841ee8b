"""The registry of seed claims: each claim id with its seed file, section, quote, the seed's
number and unit (all from seed_claims.json, the one place the seed-side facts are typed in),
joined with the table module that measures it and that module's explanation of it
(tables/<module>.EXPLAIN). Nothing is looked up by name: a claim without a table or an
explanation, or an explanation of no claim, is an error (problems() lists them;
tests/repro/test_claims.py runs it)."""

import json
import os
import re
from dataclasses import dataclass
from typing import Callable, Optional

import tables

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_CLAIMS = os.path.join(HERE, "seed_claims.json")
COMPARES = ("within", "at_most", "at_least")
OPTIONAL = ("compare", "formula", "restates", "general", "lacks", "misses", "per_lookups", "bytes", "dram_measure", "differs")


@dataclass(frozen=True)
class Claim:
    id: str
    table: int              # the seed table it belongs to (tables/t<N>_*.py measures it)
    seed: str               # the seed file, e.g. 000_e03fe9cfca16051c.txt
    section: str            # heading path in the seed
    quote: str
    value: float            # the seed's number, in `unit`
    unit: str
    kind: str               # one of seed_claims.json's "kinds"
    printed: str            # the number as the seed prints it: its last digit sets the tolerance
    measure: str            # the fact (ctx.facts key) compared with value
    tests: Optional[int]    # fpr claims: the seed's number of tests
    module: object          # the table module
    explain: Callable       # explain(ctx, claim, measured, holds) -> str | None | ("not measured", str)
    compare: str = "within"              # within | at_most | at_least (a bound the seed states)
    formula: bool = False                # printed is a formula or bound: no printed precision
    restates: Optional[str] = None       # what the claim restates (a setting, the seed's arithmetic)
    general: Optional[str] = None        # the fact holding the published model's value
    lacks: Optional[str] = None          # what filterlab lacks, when the model passes and it fails
    misses: Optional[float] = None       # machine claims: the seed's stated misses per lookup
    per_lookups: Optional[int] = None    # machine claims: lookups the figure covers (1M for "375 ms")
    bytes: Optional[str] = None          # the fact with the measured structure's size in bytes
    dram_measure: Optional[str] = None   # ratio claims: the fact judged when the size is not DRAM-resident
    differs: Optional[str] = None        # how the setup measured here differs from the seed's, if at all


UNCHECKED = os.path.join(HERE, "unchecked.json")


def load_spec(path=SEED_CLAIMS):
    with open(path) as f:
        return json.load(f)


def load_unchecked(path=UNCHECKED):
    """The seed numbers the report lists as not checked, each with its reason."""
    with open(path) as f:
        return json.load(f)["unchecked"]


def unchecked_problems(entries):
    out = []
    for i, u in enumerate(entries):
        for k in ("seed", "section", "quote", "reason"):
            if not u.get(k):
                out.append("unchecked entry %d (%s) lacks its %s" % (i, u.get("quote", "")[:40], k))
    return out


def problems(spec, table_modules=tables.ALL):
    """Everything that keeps the registry from being complete, one line each."""
    out = []
    numbered = {t.NUMBER: t for t in table_modules if t.NUMBER is not None}
    owner = {}
    for t in table_modules:
        for cid in t.EXPLAIN:
            if cid in owner:
                out.append("claim %s is explained by both %s and %s" % (cid, owner[cid].__name__, t.__name__))
            owner[cid] = t
    seen = set()
    for c in spec["claims"]:
        cid = c.get("id")
        if cid in seen:
            out.append("claim %s is listed twice in seed_claims.json" % cid)
        seen.add(cid)
        for k in ("seed", "section", "quote", "value", "unit", "kind", "printed", "measure", "table"):
            if c.get(k) in (None, ""):
                out.append("claim %s lacks its %s" % (cid, k))
        if "tolerance" in c:
            out.append("claim %s types a tolerance: tolerances come from `printed` and the measured "
                       "variation" % cid)
        if c.get("compare", "within") not in COMPARES:
            out.append("claim %s: compare %r is not one of %s" % (cid, c.get("compare"), ", ".join(COMPARES)))
        if c.get("kind") == "fpr" and not c.get("tests") and c.get("compare", "within") == "within":
            out.append("claim %s: an FPR the seed measured needs its number of tests" % cid)
        if bool(c.get("general")) != bool(c.get("lacks")):
            out.append("claim %s: general and lacks go together" % cid)
        if c.get("kind") == "machine" and not c.get("bytes"):
            out.append("claim %s: a machine claim needs the fact with its structure's bytes" % cid)
        if c.get("dram_measure") and not c.get("bytes"):
            out.append("claim %s: dram_measure needs bytes" % cid)
        if c.get("printed") and not c.get("formula") and not re.search(r"\d", str(c.get("printed"))):
            out.append("claim %s: printed %r holds no number" % (cid, c.get("printed")))
        if c.get("kind") not in spec["kinds"]:
            out.append("claim %s: kind %r is not one of %s" % (cid, c.get("kind"), ", ".join(spec["kinds"])))
        mod = numbered.get(c.get("table"))
        if mod is None:
            out.append("claim %s: no table module measures table %r" % (cid, c.get("table")))
        elif cid not in mod.EXPLAIN:
            out.append("claim %s: %s has no explanation for it" % (cid, mod.__name__))
    for cid, t in owner.items():
        if cid not in seen:
            out.append("%s explains %s, which is not a claim in seed_claims.json" % (t.__name__, cid))
    return out


def registry(spec=None):
    """The claims in seed_claims.json's order, each joined with its table and explanation."""
    spec = spec or load_spec()
    bad = problems(spec)
    if bad:
        raise ValueError("seed claim registry incomplete:\n  " + "\n  ".join(bad))
    numbered = tables.by_number()
    res = []
    for c in spec["claims"]:
        mod = numbered[c["table"]]
        res.append(Claim(id=c["id"], table=c["table"], seed=c["seed"], section=c["section"], quote=c["quote"],
                         value=c["value"], unit=c["unit"], kind=c["kind"], printed=c["printed"],
                         measure=c["measure"], tests=c.get("tests"), module=mod, explain=mod.EXPLAIN[c["id"]],
                         **{k: c[k] for k in OPTIONAL if c.get(k) is not None}))
    return res
