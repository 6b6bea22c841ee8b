"""Not a seed table: the `filterlab advise` examples the run recorded
(data/advise_examples.json), which the report prints under "Picking a kernel for production"
beside table 8's fastest kernels. It measures no seed claim."""

from rundata import load_json

NUMBER, KEY, DATA = None, "advice", None  # reads its own files
EXPLAIN = {}


def build(ctx, d=None):
    ex = load_json(ctx.out, "advise_examples.json")
    ctx.tables["advice"] = {"examples": (ex or {}).get("examples", [])}
