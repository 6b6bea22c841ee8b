"""scripts/bench-redis --against OTHER.so --cf-memory: the memory and false positive rate of
CF keys on both modules, no timing (redis-cf-memory.json and .md).

For each capacity N, `CF.RESERVE key N` on the other module (RedisBloom's defaults: 2-slot
buckets of 8-bit fingerprints, the bucket count N / 2 rounded up to a power of two, a second
filter of the same size when an insert fails) and `CF.RESERVE key N FPBITS f` on filterlab's
for each fingerprint width f, then N distinct items by CF.INSERT; at N / 2 items and at N:
MEMORY USAGE, the number of filters, and the false positive rate measured by CF.MEXISTS of
PROBES items never added (the same items on both modules)."""
import os
import sys

from redis_server import RedisServer
from redisbench.output import run_record, two_modules_record, write_results
from redisbench.runs import module_list

# Capacities whose half is a power of two (1,024, 131,072, 1,048,576: RedisBloom's table
# exactly full at N, so it grows), just below one (1,000 and 1,000,000: 98% and 95% full)
# and between (its table 57% to 78% full at N: the other module's tightest memory); 100,
# where the values' fixed bookkeeping weighs most.
CF_CAPACITIES = (100, 1000, 1024, 1500, 10_000, 100_000, 131_072, 600_000, 1_000_000,
                 1_048_576, 3_000_000)
CF_FP_BITS = (8, 11, 12, 13, 16)
CF_FILLS = (0.5, 1.0)      # items added, as a fraction of the capacity reserved
CF_PROBES = 1_000_000      # items never added, looked up for the measured FPR
CF_BATCH = 1000            # items per CF.INSERT and CF.MEXISTS


def _info(c, *cmd):
    reply = c.execute_command(*cmd)
    return {(k.decode() if isinstance(k, bytes) else k): v
            for k, v in zip(reply[::2], reply[1::2])}


def _add(c, key, first, last):
    """Items first..last-1 into key by CF.INSERT batches; the count the module refused."""
    refused = 0
    pipe = c.pipeline(transaction=False)
    for i in range(first, last, CF_BATCH):
        pipe.execute_command("CF.INSERT", key, "NOCREATE", "ITEMS",
                             *[f"item:{j}" for j in range(i, min(i + CF_BATCH, last))])
    for reply in pipe.execute(raise_on_error=False):
        if isinstance(reply, Exception):
            raise RuntimeError(f"CF.INSERT {key}: {reply}")
        refused += sum(1 for x in reply if x != 1)
    return refused


def _false_positives(c, key, probes):
    hits = 0
    pipe = c.pipeline(transaction=False)
    for batch in probes:
        pipe.execute_command("CF.MEXISTS", key, *batch)
    for reply in pipe.execute():
        hits += sum(reply)
    return hits


def _measure(c, key, filterlab, probes, items):
    """One point of a key after `items` adds: its bytes, filters and measured FPR (and, on
    filterlab's module, the FPR its model predicts)."""
    row = {"bytes": int(c.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0")),
           "filters": int(_info(c, "CF.INFO", key)["Number of filters"])}
    row["bytes_per_item"] = row["bytes"] / items
    row["fpr"] = _false_positives(c, key, probes) / CF_PROBES
    if filterlab:
        info = _info(c, "FILTERLAB.INFO", key)
        row["predicted_fpr"] = float(info["Predicted FPR"])
        row["fp_bits"] = int(info["Fingerprint bits"])
    return row


def _fill(c, key, reserve, n, filterlab, probes):
    """Reserves key, fills it to each of CF_FILLS of n, measures at each; deletes it."""
    c.delete(key)
    c.execute_command("CF.RESERVE", key, n, *reserve)
    points, done, refused = [], 0, 0
    for fill in CF_FILLS:
        items = int(n * fill)
        refused += _add(c, key, done, items)
        done = items
        points.append({"fill": fill, "items": items, "refused": refused,
                       **_measure(c, key, filterlab, probes, items)})
    c.delete(key)
    return points


def cf_memory_main(a, module, host, out):
    """CF memory and FPR on both modules over CF_CAPACITIES x CF_FILLS, filterlab at each
    fingerprint width of CF_FP_BITS; and the width filterlab's CF.RESERVE uses by default."""
    other = os.path.abspath(a.against)
    if not os.path.isfile(other):
        sys.exit(f"bench-redis: --against {a.against}: no such file")
    probes = [[f"absent:{j}" for j in range(i, min(i + CF_BATCH, CF_PROBES))]
              for i in range(0, CF_PROBES, CF_BATCH)]
    rows = []
    with RedisServer(module=module, name="cfmem-filterlab") as sa, \
            RedisServer(module=other, name="cfmem-other") as sb:  # stopped by PID on exit
        ca, cb = sa.client(socket_timeout=600), sb.client(socket_timeout=600)
        modules = {"filterlab": module_list(ca), "other": module_list(cb)}
        ca.execute_command("CF.RESERVE", "d", 1000)
        default_bits = int(_info(ca, "FILTERLAB.INFO", "d")["Fingerprint bits"])
        ca.delete("d")
        for n in CF_CAPACITIES:
            other_points = _fill(cb, "c", [], n, False, probes)
            mine = {f: _fill(ca, "c", ["FPBITS", f], n, True, probes) for f in CF_FP_BITS}
            for i, fill in enumerate(CF_FILLS):
                row = {"capacity": n, "fill": fill, "items": other_points[i]["items"],
                       "other": other_points[i],
                       "filterlab": {str(f): mine[f][i] for f in CF_FP_BITS}}
                for f in CF_FP_BITS:
                    m, o = mine[f][i], other_points[i]
                    m["bytes_ratio"] = m["bytes"] / o["bytes"]
                    m["fpr_ratio"] = m["fpr"] / o["fpr"] if o["fpr"] else None
                    m["meets_both"] = m["bytes"] <= o["bytes"] and m["fpr"] <= o["fpr"]
                rows.append(row)
                print(f"N={n:,} fill {fill:g}: other {other_points[i]['bytes']:,} B "
                      f"fpr {other_points[i]['fpr']:.5f}; " + "; ".join(
                          f"fp{f} {mine[f][i]['bytes']:,} B fpr {mine[f][i]['fpr']:.5f}"
                          for f in CF_FP_BITS), flush=True)
        version = ca.info("server")["redis_version"]
        ca.close()
        cb.close()
    doc = run_record("CF MEMORY USAGE and measured FPR, filterlab's module vs another "
                     "RedisBloom-compatible module",
                     "scripts/bench-redis --against " + a.against + " --cf-memory" +
                     (f" --other-label '{a.other_label}'" if a.other_label else ""), host)
    doc.update({
        **two_modules_record(version, a.other_label, module, other, modules),
        "probes": CF_PROBES, "batch": CF_BATCH, "fp_bits": list(CF_FP_BITS),
        "default_fp_bits": default_bits,
        "goal": "filterlab's default: bytes <= other's and measured FPR <= other's at every "
                "capacity and fill",
        "rows": rows,
        "default_meets_both": all(r["filterlab"][str(default_bits)]["meets_both"]
                                  for r in rows) if default_bits in CF_FP_BITS else None,
    })
    write_results(out, "redis-cf-memory", doc, cf_memory_markdown(doc))


def _cell(p):
    return f"{p['bytes']:,} ({p['bytes_per_item']:.2f}) / {p['filters']} / {p['fpr'] * 100:.3f}%"


def _mine(p):
    over = [w for w, bad in (("memory", p["bytes_ratio"] > 1),
                             ("FPR", p["fpr_ratio"] is not None and p["fpr_ratio"] > 1)) if bad]
    return _cell(p) + (f" (over on {' and '.join(over)})" if over else "")


def cf_memory_markdown(d):
    other = d["other_label"] or os.path.basename(d["modules"]["other"]["path"])
    loaded = ", ".join(f"{m['name']} {m['ver']}" for m in d["modules"]["other"]["loaded"])
    bits = d["fp_bits"]
    lines = [
        f"# CF memory and FPR: filterlab's Redis module vs {other} ({d['host']}, {d['date']})",
        "",
        f"Written by `{d['command']}` (commit `{d['commit'][:12]}`, Redis {d['redis_version']};"
        f" the other module loads as: {loaded or '?'}). `CF.RESERVE key N` on the other "
        "module (its defaults; RedisBloom 2.4's: 2-slot buckets of 8-bit fingerprints), "
        "`CF.RESERVE key N FPBITS f` on filterlab's, then distinct items by CF.INSERT of "
        f"{d['batch']:,}; at half the capacity and at the capacity: MEMORY USAGE key SAMPLES 0 "
        "(bytes per item added in brackets), the number of filters, and the false positive "
        f"rate measured by CF.MEXISTS of {d['probes']:,} items never added. filterlab's "
        f"default fingerprint width: {d['default_fp_bits']} bits; it meets the goal (bytes "
        "and FPR both at most the other module's) at every row: "
        f"{'yes' if d['default_meets_both'] else 'no'}.",
        "",
        "| capacity | items | other: bytes (per item) / filters / FPR | " +
        " | ".join(f"filterlab FPBITS {f}" for f in bits) + " |",
        "|---:|---:|---:|" + "---:|" * len(bits),
    ]
    for r in d["rows"]:
        lines.append(f"| {r['capacity']:,} | {r['items']:,} | {_cell(r['other'])} | " +
                     " | ".join(_mine(r["filterlab"][str(f)]) for f in bits) + " |")
    default = str(d["default_fp_bits"])
    lines += ["", "filterlab's bytes and FPR over the other module's, and whether the default "
              f"width ({default} bits) meets the goal:", "",
              "| capacity | items | " + " | ".join(f"FPBITS {f} bytes | FPBITS {f} FPR"
                                                    for f in bits) + " | default meets both |",
              "|---:|---:|" + "---:|---:|" * len(bits) + ":---|"]
    for r in d["rows"]:
        cells = []
        for f in bits:
            p = r["filterlab"][str(f)]
            cells += [f"{p['bytes_ratio']:.3f}x",
                      f"{p['fpr_ratio']:.3f}x" if p["fpr_ratio"] is not None else "-"]
        mine = r["filterlab"].get(default)
        cells.append("-" if mine is None else "yes" if mine["meets_both"] else "**no**")
        lines.append(f"| {r['capacity']:,} | {r['items']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines + [""])
