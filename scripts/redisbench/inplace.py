"""scripts/bench-redis --inplace: GROWTH INPLACE (one growing cuckoo filter) against GROWTH
CHAIN (the default chain) for BF and CF keys grown from capacity 1,000 (redis-inplace.json
and .md).

Memory and FPR (no timing): each key reserved for 1,000 items (BF at error rate 0.01, BF's
chain with its default EXPANSION 2; CF's chain with EXPANSION 2, the doubling chain, since
CF's default EXPANSION 1 stops at CF_MAX_EXPANSIONS filters before 64x), then filled by
100-item BF.MADD / CF.INSERT to 8x and 64x the capacity; at each: MEMORY USAGE, the number
of filters, and the FPR measured by MEXISTS of PROBES items never added (and, for INPLACE,
FILTERLAB.INFO's predicted FPR and doublings).

Throughput: keys grown to 8x, then BF.EXISTS / CF.EXISTS (one item a command) and BF.MEXISTS
/ CF.MEXISTS (100 items) by redis-benchmark, INPLACE and CHAIN alternated (A B A B ...,
--reps rounds); reported: medians of items/s and of the server's CPU time per item, and the
median of each round's paired ratio INPLACE / CHAIN. The items are fresh __rand_int__ draws
(~all absent). Run it under `flock /work/bench.lock`: the load average before and after is
recorded, since the machine is shared."""
import os
import statistics

from redis_server import RedisServer
from redisbench.output import caveat, run_record, write_results
from redisbench.runs import BF_ERROR, DISTINCT_SPACE, PER_CMD, Bench, rand_args

CAPACITY = 1000
GROWTHS = (8, 64)
PROBES = 1_000_000
BATCH = 1000
SINGLE_ITEMS = 300_000      # items per timed run of a one-item command
MULTI_ITEMS = 3_000_000     # items per timed run of a 100-item command


def reserve(kind, layout):
    if kind == "BF":
        cmd = ["BF.RESERVE", None, BF_ERROR, CAPACITY]
    else:
        cmd = ["CF.RESERVE", None, CAPACITY, "EXPANSION", 2]
    return cmd + (["GROWTH", "INPLACE"] if layout == "inplace" else [])


def _pairs(reply):
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in zip(reply[::2], reply[1::2])}


def fill(c, kind, key, first, last):
    pipe = c.pipeline(transaction=False)
    for i in range(first, last, PER_CMD):
        part = [f"item:{j}" for j in range(i, min(i + PER_CMD, last))]
        if kind == "BF":
            pipe.execute_command("BF.MADD", key, *part)
        else:
            pipe.execute_command("CF.INSERT", key, "ITEMS", *part)
    for reply in pipe.execute(raise_on_error=False):
        bad = reply if isinstance(reply, Exception) else next(
            (x for x in reply if isinstance(x, Exception) or x == -1), None)
        if bad is not None:
            raise RuntimeError(f"{key}: an add was refused: {bad}")


def false_positives(c, kind, key):
    pipe = c.pipeline(transaction=False)
    for i in range(0, PROBES, BATCH):
        pipe.execute_command(f"{kind}.MEXISTS", key,
                             *[f"absent:{j}" for j in range(i, min(i + BATCH, PROBES))])
    return sum(sum(r) for r in pipe.execute())


def memory_rows(c):
    rows = []
    for kind in ("BF", "CF"):
        for layout in ("inplace", "chain"):
            key = f"{kind.lower()}-{layout}"
            c.delete(key)
            cmd = reserve(kind, layout)
            cmd[1] = key
            c.execute_command(*cmd)
            done = 0
            for g in GROWTHS:
                fill(c, kind, key, done, g * CAPACITY)
                done = g * CAPACITY
                info = _pairs(c.execute_command(f"{kind}.INFO", key))
                extra = _pairs(c.execute_command("FILTERLAB.INFO", key))
                row = {"kind": kind, "layout": layout, "growth": g, "items": done,
                       "bytes": int(c.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0")),
                       "filters": int(info["Number of filters"]),
                       "fpr": false_positives(c, kind, key) / PROBES,
                       "predicted_fpr": float(extra["Predicted FPR"])}
                if layout == "inplace":
                    row["doublings"] = int(extra["Doublings"])
                rows.append(row)
                print(f"{kind} {layout} {g}x: {row['bytes']:,} B, {row['filters']} filters, "
                      f"fpr {row['fpr']:.6f}", flush=True)
            c.delete(key)
    return rows


def throughput(server, reps):
    """Keys grown to 8x of each layout, their EXISTS and MEXISTS alternated."""
    c = server.client(socket_timeout=600)
    for kind in ("BF", "CF"):
        for layout in ("inplace", "chain"):
            key = f"t-{kind.lower()}-{layout}"
            cmd = reserve(kind, layout)
            cmd[1] = key
            c.execute_command(*cmd)
            fill(c, kind, key, 0, 8 * CAPACITY)
    single = Bench(server, SINGLE_ITEMS, DISTINCT_SPACE)
    multi = Bench(server, MULTI_ITEMS, DISTINCT_SPACE)
    rows = []
    for kind in ("BF", "CF"):
        for cmd, bench, per in ((f"{kind}.EXISTS", single, 1), (f"{kind}.MEXISTS", multi, PER_CMD)):
            runs = {"inplace": [], "chain": []}
            for _ in range(reps):
                for layout in ("inplace", "chain"):
                    argv = [cmd, f"t-{kind.lower()}-{layout}"] + rand_args(per)
                    runs[layout].append(bench.measure(f"{cmd} {layout}", argv, per, cmd))
            paired = [a["items_per_s"] / b["items_per_s"]
                      for a, b in zip(runs["inplace"], runs["chain"])]
            cpu = [b["server_cpu_ns_per_item"] / a["server_cpu_ns_per_item"]
                   for a, b in zip(runs["inplace"], runs["chain"])]
            row = {"command": cmd, "items_per_command": per,
                   **{f"{layout}_items_per_s": statistics.median(r["items_per_s"] for r in rs)
                      for layout, rs in runs.items()},
                   **{f"{layout}_cpu_ns_per_item": statistics.median(
                       r["server_cpu_ns_per_item"] for r in rs) for layout, rs in runs.items()},
                   "paired_ratios": paired, "median_paired_ratio": statistics.median(paired),
                   "median_cpu_ratio": statistics.median(cpu), "runs": runs}
            rows.append(row)
            print(f"{cmd}: inplace / chain {row['median_paired_ratio']:.3f} "
                  f"(paired {', '.join(f'{x:.3f}' for x in paired)})", flush=True)
    c.close()
    return rows


def inplace_main(a, module, host, out):
    load_before = os.getloadavg()
    with RedisServer(module=module, name="inplace") as srv:  # stopped by PID on exit
        c = srv.client(socket_timeout=600)
        version = c.info("server")["redis_version"]
        mem = memory_rows(c)
        c.flushall()
        thr = throughput(srv, a.reps)
        c.close()
    load_after = os.getloadavg()
    doc = run_record("GROWTH INPLACE vs GROWTH CHAIN: BF and CF keys grown from capacity "
                     "1,000: memory, FPR and lookup throughput",
                     f"flock /work/bench.lock scripts/bench-redis --inplace --reps {a.reps}",
                     host)
    doc.update({"redis_version": version, "capacity": CAPACITY, "growths": list(GROWTHS),
                "probes": PROBES, "reps": a.reps, "load_before": list(load_before),
                "load_after": list(load_after),
                "caveat": caveat(load_before, "2 vCPUs shared by 4 sessions."),
                "memory": mem, "throughput": thr})
    write_results(out, "redis-inplace", doc, markdown(doc))


def markdown(d):
    lines = [
        f"# GROWTH INPLACE vs GROWTH CHAIN ({d['host']}, {d['date']})", "",
        f"Written by `{d['command']}` (commit `{d['commit'][:12]}`, Redis "
        f"{d['redis_version']}). Keys reserved for {d['capacity']:,} items (BF at error rate "
        "0.01, chain EXPANSION 2; CF chain EXPANSION 2), filled with distinct items by "
        "100-item BF.MADD / CF.INSERT. FPR: MEXISTS of "
        f"{d['probes']:,} items never added. Load average (1, 5, 15 min) before "
        f"{', '.join(f'{x:.2f}' for x in d['load_before'])}, after "
        f"{', '.join(f'{x:.2f}' for x in d['load_after'])}. {d['caveat']}", "",
        "| key | grown to | items | layout | MEMORY USAGE | bytes/item | filters | measured FPR "
        "| predicted FPR |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in d["memory"]:
        lay = r["layout"] + (f" ({r['doublings']} doublings)" if "doublings" in r else "")
        lines.append(f"| {r['kind']} | {r['growth']}x | {r['items']:,} | {lay} | {r['bytes']:,} | "
                     f"{r['bytes'] / r['items']:.2f} | {r['filters']} | {r['fpr'] * 100:.4f}% | "
                     f"{r['predicted_fpr'] * 100:.4f}% |")
    lines += ["", "INPLACE over CHAIN at the same growth:", "",
              "| key | grown to | memory ratio | measured FPR ratio |", "|---|---:|---:|---:|"]
    by = {(r["kind"], r["growth"], r["layout"]): r for r in d["memory"]}
    for kind in ("BF", "CF"):
        for g in d["growths"]:
            a, b = by[(kind, g, "inplace")], by[(kind, g, "chain")]
            fr = f"{a['fpr'] / b['fpr']:.3f}" if b["fpr"] else "-"
            lines.append(f"| {kind} | {g}x | {a['bytes'] / b['bytes']:.3f} | {fr} |")
    lines += ["", f"Lookups on keys grown to 8x ({d['reps']} rounds, INPLACE and CHAIN "
              "alternated; redis-benchmark, fresh __rand_int__ items, ~all absent):", "",
              "| command | items/cmd | INPLACE items/s | CHAIN items/s | median paired ratio "
              "INPLACE / CHAIN | server CPU ns/item INPLACE / CHAIN |",
              "|---|---:|---:|---:|---:|---:|"]
    for r in d["throughput"]:
        lines.append(f"| {r['command']} | {r['items_per_command']} | "
                     f"{r['inplace_items_per_s']:,.0f} | {r['chain_items_per_s']:,.0f} | "
                     f"{r['median_paired_ratio']:.3f} | {r['inplace_cpu_ns_per_item']:.0f} / "
                     f"{r['chain_cpu_ns_per_item']:.0f} |")
    return "\n".join(lines + [""])
