"""From the files a run wrote (data/*.json, data/*.csv) to tables.json: every table of the
report, every seed claim beside the value measured here, and a verdict with a one-line
reason computed from the data. The report (report.py) only formats tables.json.

The work is split by job: tables/ (one module per table: its rows, its facts, the
explanations of its claims), claims.py (the registry joining seed_claims.json's claims with
those tables and explanations), verdicts.py (the stated rules: holds, does not hold, restated,
filterlab lacks, not comparable) and csvout.py (tables/*.csv). Nothing here is typed in by hand except the seed claims
(seed_claims.json) and the published models a reason quotes (models.py, cited there)."""

import json
import os

import claims
import csvout
import tables
import verdicts
from context import Context


def judge_all(ctx, registry):
    """tables.json's "claims": every registered claim with its measured value and verdict."""
    res = []
    for c in registry:
        m = ctx.facts.get(c.measure)
        verdict, reason, tol, m = verdicts.judge(ctx, c, m)
        res.append({"id": c.id, "table": c.table, "seed": c.seed, "section": c.section,
                    "quote": c.quote, "seed_value": c.value, "unit": c.unit, "printed": c.printed,
                    "kind": c.kind, "tolerance": tol, "measured": m,
                    "source": ctx.sources.get(c.measure), "verdict": verdict, "reason": reason})
    return res


def build(out, run):
    """The document tables.json holds: the run, the facts measured, their sources, the tables."""
    spec = claims.load_spec()
    registry = claims.registry(spec)
    ctx = Context(out, run)
    tables.build_all(ctx)
    ctx.tables["claims"] = judge_all(ctx, registry)
    ctx.tables["kinds"] = spec["kinds"]
    ctx.tables["unchecked"] = claims.load_unchecked()
    return {"run": ctx.run, "facts": ctx.facts, "sources": ctx.sources, "tables": ctx.tables}


def analyze(out, run):
    doc = build(out, run)
    with open(os.path.join(out, "tables.json"), "w") as f:
        json.dump(doc, f, indent=1, default=lambda o: None)
        f.write("\n")
    csvout.write_table_csvs(out, doc)
    return doc
