"""Reading what a run wrote under data/: the JSON and CSV files the experiments stamp, and
the lookup of one flbench CSV row by its configuration."""

import json
import os

import advise_data


def load_json(out, name):
    p = os.path.join(out, "data", name)
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


def load_csv(out, name):
    p = os.path.join(out, "data", name)
    if not os.path.exists(p):
        return None, []
    return advise_data.read_csv(p)


num = advise_data.num


def fb_find(rows, **kw):
    """The first flbench CSV row matching every key (numbers compared as floats)."""
    for r in rows:
        ok = True
        for k, v in kw.items():
            rv = r.get(k)
            if isinstance(v, float) or isinstance(v, int):
                if num(rv) is None or abs(num(rv) - v) > 1e-9:
                    ok = False
                    break
            elif rv != v:
                ok = False
                break
        if ok:
            return r
    return None
