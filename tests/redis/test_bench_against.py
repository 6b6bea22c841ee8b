#!/usr/bin/python3
"""scripts/bench-redis --against's plumbing, with a tiny run (not a measurement): the module
passed as both sides, so it checks what the script runs and writes, never a speed (60,000
items: the 100-item runs stay long enough for redis-benchmark's millisecond clock).

    tests/redis/test_bench_against.py BUILD_DIR MODULE.so

Two servers start and stop; every RedisBloom command row has both columns, its ratio and
goal; SADD and SISMEMBER are there as the native ceiling; the top-k recall of both sides is
there, with MEMORY USAGE of the keys the add rows filled; so are the key creation rows; the
load averages are recorded; the Markdown has the tables. --commands runs a subset (a lookup with the add that fills its key)
into files of their own. --memory splits every key's MEMORY USAGE into the server's bytes,
the module's structs and the bit arrays, adding up exactly. A missing --against file or an unknown --commands name is one
clear error line and no output. Skipped (77) without redis-server, redis-benchmark or
python3-redis."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redis_server import skip_if_unavailable  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "bench-redis")


def main():
    skip_if_unavailable()
    if not os.access("/usr/bin/redis-benchmark", os.X_OK):
        print("SKIP: /usr/bin/redis-benchmark is not installed (scripts/setup installs it)")
        sys.exit(77)
    build, module = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="fl_bench_against_") as out:
        p = subprocess.run([sys.executable, SCRIPT, "--build", build, "--module", module,
                            "--against", module, "--items", "60000", "--reps", "2",
                            "--out", out], capture_output=True, text=True, timeout=240,
                           stdin=subprocess.DEVNULL)
        if not check(p.returncode == 0, f"bench-redis --against exit {p.returncode}:\n"
                                        f"{p.stdout[-2000:]}\n{p.stderr[-3000:]}"):
            sys.exit(1)
        with open(os.path.join(out, "redis-against.json")) as f:
            d = json.load(f)
        with open(os.path.join(out, "redis-against.md")) as f:
            md = f.read()
        names = [r["command"] for r in d["rows"]]
        check(names == ["BF.ADD", "BF.EXISTS", "BF.MADD", "BF.MEXISTS", "BF.INSERT", "CF.ADD",
                        "CF.EXISTS", "CF.INSERT", "CF.MEXISTS", "CMS.INCRBY", "CMS.QUERY",
                        "TOPK.ADD", "TOPK.QUERY"], f"rows {names}")
        for r in d["rows"]:
            check(r["filterlab_items_per_s"] > 0 and r["other_items_per_s"] > 0 and
                  abs(r["ratio"] - r["filterlab_items_per_s"] / r["other_items_per_s"]) < 1e-9
                  and r["goal"] in (1.0, 2.0), f"row {r}")
            # Add rows (a fresh key each run) carry the key's MEMORY USAGE on both sides;
            # the module against itself holds the same bytes.
            adds = r["command"] in ("BF.ADD", "BF.MADD", "BF.INSERT", "CF.ADD", "CF.INSERT",
                                    "CMS.INCRBY", "TOPK.ADD")
            check(("memory_ratio" in r) == adds and
                  (not adds or (r["filterlab_memory_bytes"] > 0 and
                                r["other_memory_bytes"] > 0)), f"memory of {r['command']}: {r}")
            check((r["filterlab_over_sismember"] is not None) == (r["items_per_command"] == 1),
                  f"SISMEMBER ratio for single-item rows only: {r}")
            res = d["results"][r["command"]]
            check(len(res["filterlab"]["runs"]) == 2 and len(res["other"]["runs"]) == 2,
                  f"{r['command']}: two runs a side")
        check(d["native"]["SISMEMBER"] > 0 and d["native"]["SADD"] > 0, "native ceiling")
        # Key creation rows: both sides created keys at some rate, timed by the server too.
        check([c["command"] for c in d["creation"]] ==
              ["BF.ADD new key", "BF.INSERT new key", "CF.ADD new key"] and
              all(c["filterlab_keys_per_s"] > 0 and c["other_keys_per_s"] > 0 and
                  c["filterlab_server_us_per_key"] > 0 and len(c["runs"]["other"]) == 2
                  for c in d["creation"]), f"key creation rows: {d['creation']}")
        check([t["zipf_s"] for t in d["topk_recall"]] == [0.8, 1.0, 1.2],
              f"top-k recall streams: {d['topk_recall']}")
        for t in d["topk_recall"]:
            for side in ("filterlab", "other"):
                check(t[side]["listed"] == 50 and 0 <= t[side]["recall"] <= 1 and
                      t[side]["listed_below_true_count"] == 0,
                      f"top-k recall {side}, Zipf {t['zipf_s']}: {t[side]}")
        check(len(d["load_average_before"]) == 3 and len(d["load_average_after"]) == 3,
              "load averages recorded")
        check(d["modules"]["other"]["path"] == module and
              any(m["name"] == "filterlab" for m in d["modules"]["other"]["loaded"]),
              f"the other module is recorded: {d['modules']}")
        check("| command | items/command | filterlab items/s | other items/s |" in md and
              "SISMEMBER" in md and "recall" in md, "the Markdown table")
        check("MEMORY USAGE" in md, "the Markdown memory table")
        # --commands: a lookup brings the add that fills its key (run, not reported), the
        # files get their own names, and an unknown name is one clear error line.
        p = subprocess.run([sys.executable, SCRIPT, "--build", build, "--module", module,
                            "--against", module, "--items", "60000", "--reps", "1",
                            "--commands", "cf.mexists,SISMEMBER", "--out", out],
                           capture_output=True, text=True, timeout=240,
                           stdin=subprocess.DEVNULL)
        if check(p.returncode == 0, f"--commands exit {p.returncode}: {p.stderr[-2000:]}"):
            with open(os.path.join(out, "redis-against-cfmexists-sismember.json")) as f:
                part = json.load(f)
            check([r["command"] for r in part["rows"]] == ["CF.MEXISTS"] and
                  sorted(part["results"]) == ["CF.INSERT", "CF.MEXISTS", "SADD", "SISMEMBER"]
                  and part["topk_recall"] is None and part["creation"] == [] and
                  part["rows"][0]["filterlab_over_sismember"] is None,
                  f"--commands cf.mexists,SISMEMBER: {part['rows']}, {sorted(part['results'])}")
            with open(os.path.join(out, "redis-against.json")) as f:
                check(json.load(f)["date"] == d["date"], "a partial run keeps the full run's file")
        p = subprocess.run([sys.executable, SCRIPT, "--build", build, "--module", module,
                            "--against", module, "--commands", "BF.NOPE", "--out",
                            os.path.join(out, "y")], capture_output=True, text=True, timeout=60)
        check(p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1 and
              "BF.NOPE" in p.stderr and not os.path.exists(os.path.join(out, "y")),
              f"an unknown --commands name: exit {p.returncode}, {p.stderr!r}")
        # --memory (no timing): every cell's MEMORY USAGE splits exactly into the server's
        # bytes for the key, the module's structs and the bit arrays, on both sides; the
        # module against itself holds the same bytes; a one-sub-filter key's structs are
        # its 16-byte value, its 80-byte chain and the payload's 8 bytes of slack.
        p = subprocess.run([sys.executable, SCRIPT, "--build", build, "--module", module,
                            "--against", module, "--memory", "--out", out],
                           capture_output=True, text=True, timeout=240,
                           stdin=subprocess.DEVNULL)
        if check(p.returncode == 0, f"--memory exit {p.returncode}: {p.stderr[-2000:]}"):
            with open(os.path.join(out, "redis-memory.json")) as f:
                mem = json.load(f)
            with open(os.path.join(out, "redis-memory.md")) as f:
                mem_md = f.read()
            for r in mem["reserve"]:
                for side in ("filterlab", "other"):
                    a = r[side + "_account"]
                    check(a["key"] > 0 and a["structs"] > 0 and a["bit_arrays"] > 0 and
                          a["key"] + a["structs"] + a["bit_arrays"] == r[side + "_bytes"],
                          f"--memory account {side}: {r}")
                check(r["ratio"] == 1.0, f"--memory, the module against itself: {r}")
                if r["capacity"] <= 1000:
                    check(r["filterlab_account"]["structs"] == 16 + 80 + 8,
                          f"--memory, a one-sub-filter key's structs: {r}")
            check("Where the bytes of a small key go" in mem_md and
                  "| 0.01 | 1 | " in mem_md, "the Markdown account table")
        missing = os.path.join(out, "none.so")
        p = subprocess.run([sys.executable, SCRIPT, "--build", build, "--module", module,
                            "--against", missing, "--out", os.path.join(out, "x")],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1 and
              "none.so" in p.stderr and not os.path.exists(os.path.join(out, "x")),
              f"a missing --against file: exit {p.returncode}, {p.stderr!r}")
    print("bench-redis --against:", "ok" if checks.failures == 0 else f"{checks.failures} failure(s)")
    sys.exit(1 if checks.failures else 0)


if __name__ == "__main__":
    main()
