"""The registry of seed claims: each claim id with its seed file, section, quote, the seed's
number and unit (all from seed_claims.json, the one place the seed-side facts are typed in),
joined with the table module that measures it and that module's explanation of it
(tables/<module>.EXPLAIN). Nothing is looked up by name: a claim without a table or an
explanation, or an explanation of no claim, is an error (problems() lists them;
tests/repro/test_claims.py runs it)."""

import json
import os
from dataclasses import dataclass
from typing import Callable, Optional

import tables

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_CLAIMS = os.path.join(HERE, "seed_claims.json")


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
    tolerance: float
    measure: str            # the fact (ctx.facts key) compared with value
    tests: Optional[int]    # fpr claims: the seed's number of tests
    module: object          # the table module
    explain: Callable       # explain(ctx, claim, measured, holds) -> str | None | (verdict, str)


def load_spec(path=SEED_CLAIMS):
    with open(path) as f:
        return json.load(f)


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
        for k in ("seed", "section", "quote", "value", "unit", "kind", "tolerance", "measure", "table"):
            if c.get(k) in (None, ""):
                out.append("claim %s lacks its %s" % (cid, k))
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
                         value=c["value"], unit=c["unit"], kind=c["kind"], tolerance=c["tolerance"],
                         measure=c["measure"], tests=c.get("tests"), module=mod, explain=mod.EXPLAIN[c["id"]]))
    return res
