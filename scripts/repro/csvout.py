"""tables/*.csv: the report's tables as CSV (numbers unrounded), each headed by the run's
stamp as '# key=value' lines."""

import csv
import os

import tables

# claims.csv: every claim's row of tables.json, after the tables' own files
CLAIMS_CSV = ("claims.csv", lambda rows: (rows, [
    "id", "table", "seed", "section", "seed_value", "unit", "printed", "measured", "tolerance", "verdict",
    "reason", "source"]))


def csvs():
    """(file, table key, the table -> (rows, columns); rows None: no such file), in the order
    written: every table module's CSVS in registry order, then claims.csv."""
    return [(name, t.KEY, rows_cols) for t in tables.ALL for name, rows_cols in getattr(t, "CSVS", ())] + \
        [(CLAIMS_CSV[0], "claims", CLAIMS_CSV[1])]


def write_table_csvs(out, doc):
    d = os.path.join(out, "tables")
    os.makedirs(d, exist_ok=True)
    head = "".join("# %s=%s\n" % (k, v) for k, v in doc["run"]["stamp"].items())
    T = doc["tables"]
    for name, key, rows_cols in csvs():
        if key not in T:
            continue
        rows, cols = rows_cols(T[key])
        if rows is None:
            continue  # a part its table does not have (table 5 without its cuckoo run)
        with open(os.path.join(d, name), "w", newline="") as f:
            f.write(head)
            w = csv.writer(f)
            w.writerow(cols)
            for r in rows:
                w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
