"""scripts/bench-redis's default mode: filterlab's module against Redis's native sets, and
the library's own batch lookup time beside it (redis-bench.json and .md)."""
import csv as csvmod
import os
import tempfile
import subprocess

from redis_server import RedisServer
from redisbench.output import caveat, ratio, run_record, write_results
from redisbench.runs import (BF_ERROR, CLIENTS, DISTINCT_SPACE, PER_CMD, PIPELINE, URL_ITEM, Bench,
                             alternate, lookups, rand_args)


def library_lookup_ns(build, items, error):
    """flbench's batch lookup ns/key for block512 sized for `items` at `error`, batches of
    PER_CMD, at hit rates 0 and 0.63 (the two workloads' lookups), for u64 keys (hashing
    outside the timed region) and url keys (hashing inside)."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        for keys in ("u64", "url"):
            csv = os.path.join(d, keys + ".csv")
            subprocess.run([os.path.join(build, "bench", "flbench"), "-f", "block512",
                            "--fpr", str(error), "-s", str(items), "--sizes-in", "keys",
                            "--hit-rate", "0,0.63", "--batch", str(PER_CMD), "--keys", keys,
                            "--lookups", "1048576", "-r", "5", "--probe", "none",
                            "--counters", "none", "--csv", csv],
                           check=True, capture_output=True, timeout=600)
            with open(csv) as f:
                for row in csvmod.DictReader(f):
                    if row["item"] == "lookup":
                        out[row["name"]] = float(row["ns_per_op_median"])
    if len(out) != 4:
        raise RuntimeError(f"flbench wrote {len(out)} lookup rows, not 4")
    return out



def native_main(a, module, host, out):
    """The module against Redis's native sets on one server (the default mode)."""
    load_before = os.getloadavg()
    n = a.items
    bf_setup = ("BF.RESERVE", "bf", str(BF_ERROR), str(n))
    r, memory = {}, {}
    with RedisServer(module=module, name="bench") as server:  # stopped by PID on exit
        for workload, space in (("repeat", n), ("distinct", DISTINCT_SPACE)):
            b = Bench(server, n, space)
            r[workload + "/add_100"] = alternate(b, a.reps, {
                "BF.MADD": (["BF.MADD", "bf"] + rand_args(PER_CMD), PER_CMD, "bf.madd",
                            bf_setup),
                "SADD": (["SADD", "set"] + rand_args(PER_CMD), PER_CMD, "sadd", None)})
            r[workload + "/lookup_100"] = lookups(b, a.reps, {
                "BF.MEXISTS": (["BF.MEXISTS", "bf"] + rand_args(PER_CMD), PER_CMD,
                               "bf.mexists"),
                "SMISMEMBER": (["SMISMEMBER", "set"] + rand_args(PER_CMD), PER_CMD,
                               "smismember")})
            b.c.close()
        # The keys of the last (distinct) fill: what N stored items cost.
        b = Bench(server, n, DISTINCT_SPACE)
        memory.update({"bf": b.memory("bf"), "set": b.memory("set"),
                       "bf_card": int(b.c.execute_command("BF.CARD", "bf")),
                       "set_card": int(b.c.scard("set"))})
        r["distinct-url/add_100"] = alternate(b, a.reps, {
            "BF.MADD": (["BF.MADD", "bf"] + rand_args(PER_CMD, URL_ITEM), PER_CMD, "bf.madd",
                        bf_setup),
            "SADD": (["SADD", "set"] + rand_args(PER_CMD, URL_ITEM), PER_CMD, "sadd", None)})
        memory.update({"bf_url": b.memory("bf"), "set_url": b.memory("set"),
                       "bf_url_card": int(b.c.execute_command("BF.CARD", "bf")),
                       "set_url_card": int(b.c.scard("set"))})
        r["distinct/add_1"] = alternate(b, a.reps, {
            "CF.ADD": (["CF.ADD", "cf", "__rand_int__"], 1, "cf.add",
                       ("CF.RESERVE", "cf", str(n))),
            "SADD": (["SADD", "set1", "__rand_int__"], 1, "sadd", None)})
        # CF.INFO has RedisBloom's fields; the fingerprint width is in FILTERLAB.INFO.
        cf_info = (b.c.execute_command("CF.INFO", "cf") +
                   b.c.execute_command("FILTERLAB.INFO", "cf"))
        cf_info = dict(zip(cf_info[::2], cf_info[1::2]))
        memory.update({"cf": b.memory("cf"), "set1": b.memory("set1"),
                       "cf_count": int(cf_info[b"Number of items inserted"]),
                       "cf_filters": int(cf_info[b"Number of filters"]),
                       "cf_fingerprint_bits": int(cf_info[b"Fingerprint bits"]),
                       "set1_card": int(b.c.scard("set1"))})
        r["distinct/lookup_1"] = lookups(b, a.reps, {
            "CF.EXISTS": (["CF.EXISTS", "cf", "__rand_int__"], 1, "cf.exists"),
            "SISMEMBER": (["SISMEMBER", "set1", "__rand_int__"], 1, "sismember")})
        r["distinct/hll_100"] = alternate(b, a.reps, {
            "PFADD": (["PFADD", "hll"] + rand_args(PER_CMD), PER_CMD, "pfadd", None)})
        reply = b.c.execute_command("FILTERLAB.KERNEL")  # [Kernel, name, Reason, ...]
        kernel = dict(zip(reply[::2], reply[1::2]))[b"Kernel"].decode()
        version = b.c.info("server")["redis_version"]
        b.c.close()
    library = library_lookup_ns(a.build, n, BF_ERROR)
    load_after = os.getloadavg()

    def items_s(group, name):
        return r[group][name]["items_per_s"]
    summary = {}
    for w in ("distinct", "repeat"):
        summary[w + "/bf_madd_vs_sadd"] = ratio(items_s(w + "/add_100", "BF.MADD"),
                                                items_s(w + "/add_100", "SADD"))
        summary[w + "/bf_mexists_vs_smismember"] = ratio(
            items_s(w + "/lookup_100", "BF.MEXISTS"), items_s(w + "/lookup_100", "SMISMEMBER"))
    summary.update({
        "distinct/cf_add_vs_sadd": ratio(items_s("distinct/add_1", "CF.ADD"),
                                         items_s("distinct/add_1", "SADD")),
        "distinct/cf_exists_vs_sismember": ratio(items_s("distinct/lookup_1", "CF.EXISTS"),
                                                 items_s("distinct/lookup_1", "SISMEMBER")),
        "set_over_bf_memory": ratio(memory["set"], memory["bf"]),
        "set_over_bf_memory_url_items": ratio(memory["set_url"], memory["bf_url"]),
        "distinct-url/bf_madd_vs_sadd": ratio(items_s("distinct-url/add_100", "BF.MADD"),
                                              items_s("distinct-url/add_100", "SADD")),
        "set_over_cf_memory": ratio(memory["set1"], memory["cf"]),
    })
    doc = run_record("filterlab Redis module vs native sets, redis-benchmark pipelined",
                     "scripts/bench-redis" + (f" --items {n}" if n != 1_000_000 else ""),
                     host)
    doc.update({
        "redis_version": version, "kernel": kernel,
        "load_average_before": load_before, "load_average_after": load_after,
        "caveat": caveat(load_before,
                         "redis-benchmark and redis-server share the machine's vCPUs."),
        "settings": {"items": n, "items_per_command": PER_CMD, "pipeline": PIPELINE,
                     "clients": CLIENTS, "reps": a.reps, "bf_error_rate": BF_ERROR,
                     "bf_capacity": n, "cf_capacity": n,
                     "keyspace": {"distinct": DISTINCT_SPACE, "repeat": n},
                     "url_item": URL_ITEM},
        "results": r, "memory_bytes": memory, "library_lookup_ns_per_key": library,
        "summary": summary,
    })
    write_results(out, "redis-bench", doc, native_markdown(doc))


def native_markdown(d):
    r, m, s, lib = d["results"], d["memory_bytes"], d["summary"], d["library_lookup_ns_per_key"]
    st = d["settings"]
    lines = [
        f"# Redis module vs native sets ({d['host']}, {d['date']})",
        "",
        f"Written by `{d['command']}` (commit `{d['commit'][:12]}`, Redis "
        f"{d['redis_version']}, filterlab kernel {d['kernel']}). {d['caveat']} Load average "
        f"(1 min) {d['load_average_before'][0]:.2f} before, {d['load_average_after'][0]:.2f} "
        "after.",
        "",
        f"Up to {st['items']:,} items per run (redis-benchmark `__rand_int__`, 12 digits; "
        f"{st['clients']} x {st['pipeline']} commands fewer than {st['items']:,} / items per "
        "command, since redis-benchmark may overshoot -n by that; the JSON has each run's count),"
        f" -P {st['pipeline']} "
        f"-c {st['clients']}, medians of {st['reps']} alternated runs. *distinct*: key space "
        f"2e9 (~all items distinct; lookups of fresh draws, ~all absent); *repeat*: key space "
        f"{st['items']:,} (~63% distinct; lookups ~63% present); *distinct-url*: as distinct, "
        f"each item in a 68-byte URL `{st['url_item']}`. BF reserved for "
        f"{st['bf_capacity']:,} items at {st['bf_error_rate']}, CF for {st['cf_capacity']:,}.",
        "",
        "| workload | command | items/command | items/s | wall ns/item (1e9 / items/s) "
        "| in-command ns/item (commandstats) |",
        "|:---|:---|---:|---:|---:|---:|",
    ]
    for group, v in r.items():
        workload = group.split("/")[0]
        for name, x in v.items():
            per = 1 if group.endswith("_1") else st["items_per_command"]
            lines.append(f"| {workload} | {name} | {per} | {x['items_per_s']:,.0f} | "
                         f"{1e9 / x['items_per_s']:.1f} | {x['server_ns_per_item']:.1f} |")

    def x(v):
        return f"{v:.2f}x"
    lines += [
        "",
        "Throughput, module / native (goal >= 1): "
        f"BF.MADD / SADD {x(s['distinct/bf_madd_vs_sadd'])} (distinct), "
        f"{x(s['repeat/bf_madd_vs_sadd'])} (repeat), "
        f"{x(s['distinct-url/bf_madd_vs_sadd'])} (distinct-url); BF.MEXISTS / SMISMEMBER "
        f"{x(s['distinct/bf_mexists_vs_smismember'])} (distinct), "
        f"{x(s['repeat/bf_mexists_vs_smismember'])} (repeat); CF.ADD / SADD "
        f"{x(s['distinct/cf_add_vs_sadd'])}; CF.EXISTS / SISMEMBER "
        f"{x(s['distinct/cf_exists_vs_sismember'])}.",
        "",
        "MEMORY USAGE (goal: set >= 50x the filter; a set's member costs its bytes plus "
        "Redis's per-member overhead, a filter's item costs the same at any length): "
        f"BF {m['bf']:,} B ({m['bf_card']:,} items by BF.CARD) vs set {m['set']:,} B "
        f"({m['set_card']:,} members): {s['set_over_bf_memory']:.1f}x; with URL items BF "
        f"{m['bf_url']:,} B ({m['bf_url_card']:,} items) vs set {m['set_url']:,} B "
        f"({m['set_url_card']:,} members): {s['set_over_bf_memory_url_items']:.1f}x; "
        f"CF {m['cf']:,} B ({m['cf_count']:,} items in {m['cf_filters']} filter(s) of "
        f"{m['cf_fingerprint_bits']}-bit fingerprints, by FILTERLAB.INFO) vs set {m['set1']:,} B "
        f"({m['set1_card']:,} members): {s['set_over_cf_memory']:.1f}x.",
        "",
        "The library alone (flbench, block512 at the BF's size, batches of 100), ns/key:",
        "",
        "| flbench configuration | ns/key |",
        "|:---|---:|",
    ] + [f"| `{k}` | {v:.1f} |" for k, v in lib.items()] + [
        "",
        "Reading the per-item figures for BF.MEXISTS: the library's u64 batch lookup "
        "(hashing done before the timed region) is the floor; its url figure hashes ~80-byte "
        "keys inside the timed region, far more hashing than the 12-byte items here; the "
        "in-command figure (commandstats: the module's command function, 12-byte items hashed "
        "there, the reply built) is the module's whole per-item work; the wall figure adds "
        "everything else the server does per item (reading and parsing the protocol, "
        "argument objects, writing the reply, the event loop) and, on this 2-vCPU "
        "machine, redis-benchmark itself running beside the server.",
        "",
    ]
    return "\n".join(lines)

