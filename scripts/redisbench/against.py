"""scripts/bench-redis --against: filterlab's module against another RedisBloom-compatible
one, command by command, with the top-k recall check and the key creation rows
(redis-against.json and .md)."""
import os
import statistics
import sys

from redis_server import RedisServer
from redisbench.output import caveat, ratio, run_record, two_modules_record, write_results
from redisbench.runs import (BF_ERROR, CLIENTS, DISTINCT_SPACE, PER_CMD, PIPELINE, Bench, module_list,
                             rand_args, summarise)

TOPK_K, TOPK_WIDTH, TOPK_DEPTH, TOPK_DECAY = 50, 2000, 7, 0.9
CMS_WIDTH, CMS_DEPTH = 2000, 7
CMS_PER = 50  # CMS.INCRBY takes item/increment pairs: 50 items in 100 arguments


def against_workloads(n):
    """(name, argv, items per command, setup or None, goal) in run order: "add" rows
    (setup given) start on a fresh key, lookups read the key the add before them filled.
    goal: the least filterlab / other ratio wanted (the brief's targets: 2x for multi-item
    commands, 1x for single-item ones)."""
    bf = ("BF.RESERVE", "bf", BF_ERROR, n)
    cf = ("CF.RESERVE", "cf", n)
    return [
        ("BF.ADD", ["BF.ADD", "bf", "__rand_int__"], 1, bf, 1.0),
        ("BF.EXISTS", ["BF.EXISTS", "bf", "__rand_int__"], 1, None, 1.0),
        ("BF.MADD", ["BF.MADD", "bf"] + rand_args(PER_CMD), PER_CMD, bf, 2.0),
        ("BF.MEXISTS", ["BF.MEXISTS", "bf"] + rand_args(PER_CMD), PER_CMD, None, 2.0),
        ("BF.INSERT", ["BF.INSERT", "bf", "ITEMS"] + rand_args(PER_CMD), PER_CMD, bf, 2.0),
        ("CF.ADD", ["CF.ADD", "cf", "__rand_int__"], 1, cf, 1.0),
        ("CF.EXISTS", ["CF.EXISTS", "cf", "__rand_int__"], 1, None, 1.0),
        ("CF.INSERT", ["CF.INSERT", "cf", "ITEMS"] + rand_args(PER_CMD), PER_CMD, cf, 2.0),
        ("CF.MEXISTS", ["CF.MEXISTS", "cf"] + rand_args(PER_CMD), PER_CMD, None, 2.0),
        ("CMS.INCRBY", ["CMS.INCRBY", "cms"] + ["__rand_int__", "1"] * CMS_PER, CMS_PER,
         ("CMS.INITBYDIM", "cms", CMS_WIDTH, CMS_DEPTH), 2.0),
        ("CMS.QUERY", ["CMS.QUERY", "cms"] + rand_args(PER_CMD), PER_CMD, None, 2.0),
        ("TOPK.ADD", ["TOPK.ADD", "tk"] + rand_args(PER_CMD), PER_CMD,
         ("TOPK.RESERVE", "tk", TOPK_K, TOPK_WIDTH, TOPK_DEPTH, TOPK_DECAY), 1.0),
        ("TOPK.QUERY", ["TOPK.QUERY", "tk"] + rand_args(PER_CMD), PER_CMD, None, 2.0),
    ]


def select_workloads(work, names):
    """The rows of `work` named in `names` (all when None), each lookup with the add before
    it that fills its key (run, not reported, when not named itself)."""
    if names is None:
        return work, [w[0] for w in work]
    known = [w[0] for w in work] + [x[0] for x in NATIVE] + ["CREATE"]
    bad = [x for x in names if x not in known]
    if bad:
        sys.exit(f"bench-redis: --commands: unknown {', '.join(bad)} (known: {', '.join(known)})")
    keep, last_add = [], None
    for i, w in enumerate(work):
        if w[3] is not None:
            last_add = i
        if w[0] in names:
            if w[3] is None and last_add is not None and work[last_add] not in keep:
                keep.append(work[last_add])
            keep.append(w)
    return keep, [w[0] for w in keep if w[0] in names]


# Key creation: every command names a new key (a key per user, say), so each one creates a
# filter of the module's default shape (BF.ADD, CF.ADD) or of one reserved shape.
CREATE_KEYS = 20_000
CREATE = [("BF.ADD new key", ["BF.ADD", "bfnew:__rand_int__", "x"]),
          # BF.INSERT, not BF.RESERVE: 20,000 draws from 2e9 repeat a name now and then,
          # which BF.RESERVE refuses (and redis-benchmark stops at an error reply).
          ("BF.INSERT new key", ["BF.INSERT", "bfins:__rand_int__", "CAPACITY", "10000",
                                 "ERROR", "0.001", "ITEMS", "x"]),
          ("CF.ADD new key", ["CF.ADD", "cfnew:__rand_int__", "x"])]


# Native one-key commands on filterlab's server: the protocol's ceiling.
NATIVE = [("SADD", ["SADD", "set1", "__rand_int__"], 1, ("DEL", "set1")),
          ("SISMEMBER", ["SISMEMBER", "set1", "__rand_int__"], 1, None)]



# The top-k recall check's streams: Zipf exponents (flatter to steeper) over RECALL_NAMES.
RECALL_ZIPF_S = (0.8, 1.0, 1.2)
RECALL_NAMES = 50_000


def zipf_stream(items, names, s, seed):
    """items draws from `names` names with P(rank r) ~ 1 / r^s, fixed seed."""
    import random
    rnd = random.Random(seed)
    cum, total = [], 0.0
    for r in range(1, names + 1):
        total += 1.0 / r ** s
        cum.append(total)
    return [f"item:{x}" for x in rnd.choices(range(names), cum_weights=cum, k=items)]


def topk_recall(client, stream, truth):
    """TOPK.ADD the stream (PER_CMD items a command), then recall of TOPK.LIST against the
    true top k (an item counts if its true count reaches the k-th largest, so ties at the
    boundary do not matter) and how many listed items TOPK.COUNT puts below their truth."""
    client.delete("tkr")
    client.execute_command("TOPK.RESERVE", "tkr", TOPK_K, TOPK_WIDTH, TOPK_DEPTH, TOPK_DECAY)
    for i in range(0, len(stream), PER_CMD):
        client.execute_command("TOPK.ADD", "tkr", *stream[i:i + PER_CMD])
    listed = [x.decode() for x in client.execute_command("TOPK.LIST", "tkr")]
    kth = sorted(truth.values(), reverse=True)[min(TOPK_K, len(truth)) - 1]
    hits = sum(1 for x in listed if truth.get(x, 0) >= kth)
    counts = client.execute_command("TOPK.COUNT", "tkr", *listed) if listed else []
    under = sum(1 for x, c in zip(listed, counts) if int(c) < truth.get(x, 0))
    return {"listed": len(listed), "recall": hits / min(TOPK_K, len(truth)),
            "listed_below_true_count": under}


def against_main(a, module, host, out):
    other = os.path.abspath(a.against)
    if not os.path.isfile(other):
        sys.exit(f"bench-redis: --against {a.against}: no such file")
    load_before = os.getloadavg()
    n = a.items
    work, reported = select_workloads(against_workloads(n), a.commands)
    native = [x for x in NATIVE if a.commands is None or x[0] in a.commands]
    if native and native[0][0] != "SADD":  # SISMEMBER reads the set SADD fills
        native.insert(0, NATIVE[0])
    with_recall = "TOPK.ADD" in reported
    with_create = a.commands is None or "CREATE" in a.commands
    runs = {name: {"filterlab": [], "other": []} for name, *_ in work}
    runs.update({name: {"native": []} for name, *_ in native})
    with RedisServer(module=module, name="bench-filterlab") as sa, \
            RedisServer(module=other, name="bench-other") as sb:  # stopped by PID on exit
        ba = Bench(sa, n, DISTINCT_SPACE)
        bb = Bench(sb, n, DISTINCT_SPACE)
        modules = {"filterlab": module_list(ba.c), "other": module_list(bb.c)}
        for _ in range(a.reps):
            for name, argv, per, setup, _goal in work:
                for side, b in (("filterlab", ba), ("other", bb)):
                    command = argv[0].lower()
                    r = (b.memory_after(argv, b.run(name, argv, per, command, setup)) if setup
                         else b.measure(name, argv, per, command))
                    runs[name][side].append(r)
            for name, argv, per, setup in native:
                command = argv[0].lower()
                r = (ba.run(name, argv, per, command) if setup
                     else ba.measure(name, argv, per, command))
                runs[name]["native"].append(r)
        # Key creation, after every other row (each run ends with FLUSHALL): one command
        # per new key, CREATE_KEYS of them a run.
        create = {}
        if with_create:
            ca, cb = Bench(sa, CREATE_KEYS, DISTINCT_SPACE), Bench(sb, CREATE_KEYS, DISTINCT_SPACE)
            create = {name: {"filterlab": [], "other": []} for name, _ in CREATE}
            for _ in range(a.reps):
                for name, argv in CREATE:
                    for side, b in (("filterlab", ca), ("other", cb)):
                        create[name][side].append(b.measure(name, argv, 1, argv[0].lower()))
                        b.c.flushall()
            ca.c.close()
            cb.c.close()
        # Top-k recall: the same Zipf streams into both (no timing).
        stream_items = max(20 * PER_CMD, min(n, 200_000))
        recall = None
        if with_recall:
            recall = []
            for zs in RECALL_ZIPF_S:
                stream = zipf_stream(stream_items, RECALL_NAMES, zs, 3)
                truth = {}
                for x in stream:
                    truth[x] = truth.get(x, 0) + 1
                recall.append({"zipf_s": zs, "filterlab": topk_recall(ba.c, stream, truth),
                               "other": topk_recall(bb.c, stream, truth)})
        version = ba.c.info("server")["redis_version"]
        ba.c.close()
        bb.c.close()
    load_after = os.getloadavg()
    results = {name: {side: summarise(r) for side, r in v.items()} for name, v in runs.items()}
    creation = [{"command": name, "keys_per_run": CREATE_KEYS,
                 "filterlab_keys_per_s": summarise(v["filterlab"])["items_per_s"],
                 "other_keys_per_s": summarise(v["other"])["items_per_s"],
                 "filterlab_server_us_per_key":
                     summarise(v["filterlab"])["server_ns_per_item"] / 1000,
                 "other_server_us_per_key": summarise(v["other"])["server_ns_per_item"] / 1000,
                 "runs": v} for name, v in create.items()]
    ceiling = (results["SISMEMBER"]["native"]["items_per_s"] if "SISMEMBER" in results
               else None)
    ceiling_cpu = (results["SISMEMBER"]["native"]["server_cpu_ns_per_item"]
                   if "SISMEMBER" in results else None)
    rows = []
    for name, argv, per, setup, goal in work:
        if name not in reported:
            continue
        fa = results[name]["filterlab"]["items_per_s"]
        fb = results[name]["other"]["items_per_s"]
        ca = results[name]["filterlab"]["server_cpu_ns_per_item"]
        cb = results[name]["other"]["server_cpu_ns_per_item"]
        # Each rep's filterlab run and the other's right after it met about the same load:
        # the median of their ratios is steadier than the ratio of the medians.
        paired = statistics.median(x["items_per_s"] / y["items_per_s"] for x, y in
                                   zip(runs[name]["filterlab"], runs[name]["other"]))
        row = {"command": name, "items_per_command": per, "filterlab_items_per_s": fa,
               "other_items_per_s": fb, "ratio": ratio(fa, fb), "paired_ratio": paired,
               "goal": goal,
               "filterlab_server_cpu_ns_per_item": ca, "other_server_cpu_ns_per_item": cb,
               "cpu_ratio": ratio(cb, ca),
               "filterlab_over_sismember": ratio(fa, ceiling) if per == 1 and ceiling
               else None,
               "filterlab_over_sismember_cpu": ratio(ceiling_cpu, ca) if per == 1 and ceiling
               else None}
        if setup:  # the key the add filled, by MEMORY USAGE (median over the reps)
            mem = {side: statistics.median(r["memory_bytes"] for r in runs[name][side])
                   for side in ("filterlab", "other")}
            row.update({"filterlab_memory_bytes": mem["filterlab"],
                        "other_memory_bytes": mem["other"],
                        "memory_ratio": ratio(mem["filterlab"], mem["other"])})
        rows.append(row)
    doc = run_record("filterlab's Redis module vs another RedisBloom-compatible module, "
                     "redis-benchmark pipelined",
                     "scripts/bench-redis --against " + a.against +
                     (f" --items {n}" if n != 1_000_000 else "") +
                     (f" --reps {a.reps}" if a.reps != 3 else "") +
                     (f" --commands {','.join(a.commands)}" if a.commands else "") +
                     (f" --other-label '{a.other_label}'" if a.other_label else ""),
                     host)
    doc.update({
        **two_modules_record(version, a.other_label, module, other, modules),
        "load_average_before": load_before, "load_average_after": load_after,
        "caveat": caveat(load_before,
                         "redis-benchmark and both redis-servers share the machine's vCPUs."),
        "settings": {"items": n, "items_per_command": PER_CMD, "cms_items_per_command": CMS_PER,
                     "pipeline": PIPELINE, "clients": CLIENTS, "reps": a.reps,
                     "bf_error_rate": BF_ERROR, "bf_capacity": n, "cf_capacity": n,
                     "cms": [CMS_WIDTH, CMS_DEPTH],
                     "topk": [TOPK_K, TOPK_WIDTH, TOPK_DEPTH, TOPK_DECAY],
                     "keyspace": DISTINCT_SPACE,
                     "recall_stream": {"items": stream_items, "names": RECALL_NAMES,
                                       "zipf_s": list(RECALL_ZIPF_S), "seed": 3}},
        "rows": rows,
        "native": {name: results[name]["native"]["items_per_s"] for name, *_ in native},
        "topk_recall": recall,
        "creation": creation,
        "results": results,
    })
    # A partial run (--commands) never overwrites the full run's files.
    stem = "redis-against" + ("-" + "-".join(x.lower().replace(".", "")
                                             for x in a.commands) if a.commands else "")
    write_results(out, stem, doc, against_markdown(doc))


def against_markdown(d):
    st = d["settings"]
    other = d["other_label"] or os.path.basename(d["modules"]["other"]["path"])
    loaded = ", ".join(f"{m['name']} {m['ver']}" for m in d["modules"]["other"]["loaded"])
    lines = [
        f"# filterlab's Redis module vs {other} ({d['host']}, {d['date']})",
        "",
        f"Written by `{d['command']}` (commit `{d['commit'][:12]}`, Redis {d['redis_version']},"
        f" both modules on {d['redis_server']}; the other module loads as: {loaded or '?'}). "
        f"{d['caveat']} Load average (1 min) {d['load_average_before'][0]:.2f} before, "
        f"{d['load_average_after'][0]:.2f} after.",
        "",
        f"Up to {st['items']:,} items per run (redis-benchmark `__rand_int__`, 12 digits, key "
        f"space {st['keyspace']:,}: ~all distinct), -P {st['pipeline']} -c {st['clients']}, "
        f"medians of {st['reps']} runs alternated filterlab, other, filterlab, other. BF "
        f"reserved for {st['bf_capacity']:,} items at {st['bf_error_rate']}, CF for "
        f"{st['cf_capacity']:,}, CMS {st['cms'][0]} x {st['cms'][1]}, TOPK k {st['topk'][0]} "
        f"width {st['topk'][1]} depth {st['topk'][2]} decay {st['topk'][3]}. Lookups read the "
        "key the add before them filled.",
        "",
        "Throughput is redis-benchmark's (items/s, medians; *paired*: the median over the "
        "reps of filterlab's run over the other's run right after it). Server CPU is the "
        "redis-server main thread's CPU time per item (/proc/PID/schedstat), which leaves "
        "out the time it waited for a vCPU; its ratio is other / filterlab, so above 1 "
        "means filterlab is faster in both columns.",
        "",
        "| command | items/command | filterlab items/s | other items/s | filterlab / other "
        "| paired | goal | filterlab server CPU ns/item | other server CPU ns/item "
        "| CPU other / filterlab | filterlab / SISMEMBER (items/s; CPU) |",
        "|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in d["rows"]:
        vs_native = (f"{r['filterlab_over_sismember']:.2f}x; "
                     f"{r['filterlab_over_sismember_cpu']:.2f}x"
                     if r["filterlab_over_sismember"] is not None else "")
        lines.append(f"| {r['command']} | {r['items_per_command']} | "
                     f"{r['filterlab_items_per_s']:,.0f} | {r['other_items_per_s']:,.0f} | "
                     f"{r['ratio']:.2f}x | {r['paired_ratio']:.2f}x | >= {r['goal']:g}x | "
                     f"{r['filterlab_server_cpu_ns_per_item']:,.0f} | "
                     f"{r['other_server_cpu_ns_per_item']:,.0f} | {r['cpu_ratio']:.2f}x | "
                     f"{vs_native} |")
    mem = [r for r in d["rows"] if "memory_ratio" in r]
    if mem:
        lines += [
            "",
            "MEMORY USAGE (SAMPLES 0) of the key each add run filled, median over the runs:",
            "",
            "| key filled by | filterlab bytes | other bytes | filterlab / other |",
            "|:---|---:|---:|---:|",
        ] + [f"| {r['command']} | {r['filterlab_memory_bytes']:,.0f} | "
             f"{r['other_memory_bytes']:,.0f} | {r['memory_ratio']:.2f}x |" for r in mem]
    nat = d["native"]
    if nat:
        lines += [
            "",
            "Native one-key commands on filterlab's server (the protocol's ceiling for one "
            "item a command): " + ", ".join(f"{k} {v:,.0f} items/s" for k, v in nat.items()) +
            " (goal for single-item module commands: >= 0.85x SISMEMBER).",
        ]
    if d["creation"]:
        lines += [
            "",
            f"Key creation: each command names a new key (redis-benchmark `__rand_int__` in "
            f"the key name), {d['creation'][0]['keys_per_run']:,} keys a run, medians; the "
            "server's time per created key from INFO commandstats.",
            "",
            "| command | filterlab keys/s | other keys/s | filterlab / other | filterlab server "
            "us/key | other server us/key |",
            "|:---|---:|---:|---:|---:|---:|",
        ] + [f"| `{' '.join(argv)}` | {c['filterlab_keys_per_s']:,.0f} | "
             f"{c['other_keys_per_s']:,.0f} | "
             f"{c['filterlab_keys_per_s'] / c['other_keys_per_s']:.2f}x | "
             f"{c['filterlab_server_us_per_key']:,.1f} | {c['other_server_us_per_key']:,.1f} |"
             for c, (_n, argv) in zip(d["creation"], CREATE)]
    if d["topk_recall"] is None:
        lines.append("")
        return "\n".join(lines)
    lines += [
        "",
        f"Top-k recall (no timing): {st['recall_stream']['items']:,} TOPK.ADD items drawn "
        f"Zipf(s) over {st['recall_stream']['names']:,} names (seed "
        f"{st['recall_stream']['seed']}), each stream into both; recall = listed items whose "
        f"true count reaches the k-th largest, over k; TOPK.COUNT below the true count is an "
        f"underestimate.",
        "",
        "| Zipf s | module | listed | recall | listed with TOPK.COUNT below the true count |",
        "|---:|:---|---:|---:|---:|",
    ]
    for t in d["topk_recall"]:
        for side in ("filterlab", "other"):
            lines.append(f"| {t['zipf_s']:g} | {side} | {t[side]['listed']} | "
                         f"{t[side]['recall']:.3f} | {t[side]['listed_below_true_count']} |")
    lines.append("")
    return "\n".join(lines)
