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
recorded, since the machine is shared.

With --against OTHER.so, a third side: the other module's chain, reserved as CHAIN is (its
own server on the same redis-server binary), in every table: what a RedisBloom user grows
today, beside the INPLACE key that would replace it."""
import contextlib
import os
import statistics

from redis_server import RedisServer
from redisbench.output import caveat, run_record, two_modules_record, write_results
from redisbench.runs import BF_ERROR, DISTINCT_SPACE, PER_CMD, Bench, module_list, rand_args

CAPACITY = 1000
GROWTHS = (8, 64)
PROBES = 1_000_000
BATCH = 1000
SINGLE_ITEMS = 300_000      # items per timed run of a one-item command
MULTI_ITEMS = 3_000_000     # items per timed run of a 100-item command


# The sides: this module's two layouts, then (with --against) the other module's chain.
LABELS = {"inplace": "INPLACE", "chain": "CHAIN", "other": "other CHAIN"}


def reserve(kind, layout, key):
    """The reserving command of a key of `layout` ("other": the other module's chain, reserved
    with the same arguments as CHAIN)."""
    if kind == "BF":
        cmd = ["BF.RESERVE", key, BF_ERROR, CAPACITY]
    else:
        cmd = ["CF.RESERVE", key, CAPACITY, "EXPANSION", 2]
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


def memory_rows(clients):
    """clients: {layout: client}, the other module's for "other"."""
    rows = []
    for kind in ("BF", "CF"):
        for layout, c in clients.items():
            key = f"{kind.lower()}-{layout}"
            c.delete(key)
            c.execute_command(*reserve(kind, layout, key))
            done = 0
            for g in GROWTHS:
                fill(c, kind, key, done, g * CAPACITY)
                done = g * CAPACITY
                info = _pairs(c.execute_command(f"{kind}.INFO", key))
                row = {"kind": kind, "layout": layout, "growth": g, "items": done,
                       "bytes": int(c.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0")),
                       "filters": int(info["Number of filters"]),
                       "fpr": false_positives(c, kind, key) / PROBES, "predicted_fpr": None}
                if layout != "other":  # FILTERLAB.INFO is this module's own command
                    extra = _pairs(c.execute_command("FILTERLAB.INFO", key))
                    row["predicted_fpr"] = float(extra["Predicted FPR"])
                if layout == "inplace":
                    row["doublings"] = int(extra["Doublings"])
                rows.append(row)
                print(f"{kind} {layout} {g}x: {row['bytes']:,} B, {row['filters']} filters, "
                      f"fpr {row['fpr']:.6f}", flush=True)
            c.delete(key)
    return rows


def _paired(runs, a, b):
    """Each round's items/s ratio a / b, and the server CPU ratio b / a (above 1: a faster)."""
    items = [x["items_per_s"] / y["items_per_s"] for x, y in zip(runs[a], runs[b])]
    cpu = [y["server_cpu_ns_per_item"] / x["server_cpu_ns_per_item"]
           for x, y in zip(runs[a], runs[b])]
    return items, cpu


def throughput(servers, reps):
    """servers: {layout: server}. Keys grown to 8x of each layout, then their EXISTS and
    MEXISTS, the layouts alternated in every round."""
    benches = {}
    for layout, server in servers.items():
        c = server.client(socket_timeout=600)
        for kind in ("BF", "CF"):
            key = f"t-{kind.lower()}-{layout}"
            c.execute_command(*reserve(kind, layout, key))
            fill(c, kind, key, 0, 8 * CAPACITY)
        c.close()
        benches[layout] = (Bench(server, SINGLE_ITEMS, DISTINCT_SPACE),
                           Bench(server, MULTI_ITEMS, DISTINCT_SPACE))
    rows = []
    for kind in ("BF", "CF"):
        for cmd, which, per in ((f"{kind}.EXISTS", 0, 1), (f"{kind}.MEXISTS", 1, PER_CMD)):
            runs = {layout: [] for layout in servers}
            for _ in range(reps):
                for layout in servers:
                    argv = [cmd, f"t-{kind.lower()}-{layout}"] + rand_args(per)
                    runs[layout].append(benches[layout][which].measure(
                        f"{cmd} {layout}", argv, per, cmd))
            paired, cpu = _paired(runs, "inplace", "chain")
            row = {"command": cmd, "items_per_command": per,
                   **{f"{layout}_items_per_s": statistics.median(r["items_per_s"] for r in rs)
                      for layout, rs in runs.items()},
                   **{f"{layout}_cpu_ns_per_item": statistics.median(
                       r["server_cpu_ns_per_item"] for r in rs) for layout, rs in runs.items()},
                   "paired_ratios": paired, "median_paired_ratio": statistics.median(paired),
                   "median_cpu_ratio": statistics.median(cpu), "runs": runs}
            if "other" in runs:
                paired_o, cpu_o = _paired(runs, "inplace", "other")
                row.update({"paired_ratios_other": paired_o,
                            "median_paired_ratio_other": statistics.median(paired_o),
                            "median_cpu_ratio_other": statistics.median(cpu_o)})
            rows.append(row)
            print(f"{cmd}: inplace / chain {row['median_paired_ratio']:.3f} "
                  f"(paired {', '.join(f'{x:.3f}' for x in paired)})" +
                  (f"; inplace / other {row['median_paired_ratio_other']:.3f}"
                   if "other" in runs else ""), flush=True)
    return rows


def inplace_main(a, module, host, out):
    other = os.path.abspath(a.against) if a.against else None
    if other and not os.path.isfile(other):
        raise SystemExit(f"bench-redis: --against {a.against}: no such file")
    load_before = os.getloadavg()
    with contextlib.ExitStack() as stack:  # each server stopped by PID on exit
        srv = stack.enter_context(RedisServer(module=module, name="inplace"))
        servers = {"inplace": srv, "chain": srv}
        if other:
            servers["other"] = stack.enter_context(RedisServer(module=other, name="inplace-other"))
        clients = {layout: s.client(socket_timeout=600) for layout, s in servers.items()}
        version = clients["inplace"].info("server")["redis_version"]
        modules = {"filterlab": module_list(clients["inplace"])}
        if other:
            modules["other"] = module_list(clients["other"])
        mem = memory_rows(clients)
        for c in {id(c): c for c in clients.values()}.values():
            c.flushall()
        thr = throughput(servers, a.reps)
        for c in clients.values():
            c.close()
    load_after = os.getloadavg()
    command = f"flock /work/bench.lock scripts/bench-redis --inplace --reps {a.reps}"
    if other:
        command += f" --against {a.against}" + (
            f" --other-label '{a.other_label}'" if a.other_label else "")
    doc = run_record("GROWTH INPLACE vs GROWTH CHAIN: BF and CF keys grown from capacity "
                     "1,000: memory, FPR and lookup throughput" +
                     (", beside the other module's chain" if other else ""), command, host)
    doc.update({"redis_version": version, "capacity": CAPACITY, "growths": list(GROWTHS),
                "probes": PROBES, "reps": a.reps, "load_before": list(load_before),
                "load_after": list(load_after),
                "caveat": caveat(load_before, "2 vCPUs shared by 4 sessions."),
                "memory": mem, "throughput": thr})
    if other:
        doc.update(two_modules_record(version, a.other_label, module, other, modules))
    write_results(out, "redis-inplace-against" if other else "redis-inplace", doc, markdown(doc))


def markdown(d):
    other = d.get("modules", {}).get("other")
    other_name = (d.get("other_label") or os.path.basename(other["path"])) if other else None
    layouts = ["inplace", "chain"] + (["other"] if other else [])
    beside = f" and {other_name}'s chain" if other else ""
    lines = [
        f"# GROWTH INPLACE vs GROWTH CHAIN{beside} ({d['host']}, {d['date']})", "",
        f"Written by `{d['command']}` (commit `{d['commit'][:12]}`, Redis "
        f"{d['redis_version']}). Keys reserved for {d['capacity']:,} items (BF at error rate "
        "0.01, chain EXPANSION 2; CF chain EXPANSION 2), filled with distinct items by "
        "100-item BF.MADD / CF.INSERT. FPR: MEXISTS of "
        f"{d['probes']:,} items never added. Load average (1, 5, 15 min) before "
        f"{', '.join(f'{x:.2f}' for x in d['load_before'])}, after "
        f"{', '.join(f'{x:.2f}' for x in d['load_after'])}. {d['caveat']}"]
    if other:
        lines[-1] += (f" *other CHAIN*: the same reserving commands (without GROWTH) on "
                      f"{other_name}, loaded in its own redis-server of the same binary.")
    lines += ["",
              "| key | grown to | items | layout | MEMORY USAGE | bytes/item | filters | "
              "measured FPR | predicted FPR |",
              "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in d["memory"]:
        lay = LABELS[r["layout"]].lower() if r["layout"] != "other" else "other chain"
        lay += f" ({r['doublings']} doublings)" if "doublings" in r else ""
        pred = "-" if r["predicted_fpr"] is None else f"{r['predicted_fpr'] * 100:.4f}%"
        lines.append(f"| {r['kind']} | {r['growth']}x | {r['items']:,} | {lay} | {r['bytes']:,} | "
                     f"{r['bytes'] / r['items']:.2f} | {r['filters']} | {r['fpr'] * 100:.4f}% | "
                     f"{pred} |")
    bases = [b for b in layouts if b != "inplace"]
    lines += ["", "INPLACE over each other side at the same growth (memory, measured FPR):", "",
              "| key | grown to | " + " | ".join(f"memory / {LABELS[b]} | FPR / {LABELS[b]}"
                                                  for b in bases) + " |",
              "|---|---:|" + "---:|---:|" * len(bases)]
    by = {(r["kind"], r["growth"], r["layout"]): r for r in d["memory"]}
    for kind in ("BF", "CF"):
        for g in d["growths"]:
            a = by[(kind, g, "inplace")]
            cells = []
            for b in bases:
                o = by[(kind, g, b)]
                cells += [f"{a['bytes'] / o['bytes']:.3f}",
                          f"{a['fpr'] / o['fpr']:.3f}" if o["fpr"] else "-"]
            lines.append(f"| {kind} | {g}x | " + " | ".join(cells) + " |")
    rounds = f"{d['reps']} round{'s' if d['reps'] != 1 else ''}"
    lines += ["", f"Lookups on keys grown to 8x ({rounds}, the sides alternated; "
              "redis-benchmark, fresh __rand_int__ items, ~all absent). Paired ratio: the "
              "median over the rounds of INPLACE's items/s over the other side's in the same "
              "round:", "",
              "| command | items/cmd | " + " | ".join(f"{LABELS[x]} items/s" for x in layouts) +
              " | " + " | ".join(f"paired INPLACE / {LABELS[b]}" for b in bases) +
              " | server CPU ns/item " + " / ".join(LABELS[x] for x in layouts) + " |",
              "|---|---:|" + "---:|" * (len(layouts) + len(bases) + 1)]
    for r in d["throughput"]:
        ratios = [f"{r['median_paired_ratio']:.3f}"]
        if other:
            ratios.append(f"{r['median_paired_ratio_other']:.3f}")
        lines.append(f"| {r['command']} | {r['items_per_command']} | " +
                     " | ".join(f"{r[x + '_items_per_s']:,.0f}" for x in layouts) + " | " +
                     " | ".join(ratios) + " | " +
                     " / ".join(f"{r[x + '_cpu_ns_per_item']:.0f}" for x in layouts) + " |")
    return "\n".join(lines + [""])
