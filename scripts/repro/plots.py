"""The report's figures, PNG and SVG, drawn from tables.json: every table module's `figure`
(matplotlib, with plotting.py's style and metadata), in registry order."""

import tables


def make(out, doc):
    """{table key: the files its figure wrote}; a table the run did not measure has none."""
    T = doc["tables"]
    stamp = doc["run"]["stamp"]
    caches = doc["run"]["host"]["caches"]
    made = {}
    for t in tables.ALL:
        if hasattr(t, "figure"):
            # the figures that mark seed numbers read them from the claims (seed_claims.json)
            made[t.KEY] = t.figure(T[t.KEY], out, stamp, caches, T["claims"]) if T.get(t.KEY) else []
    return made
