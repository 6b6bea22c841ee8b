"""scripts/bench-redis --against OTHER.so --memory: MEMORY USAGE of BF keys on both modules,
no timing (redis-memory.json and .md)."""
import os
import sys

from redis_server import RedisServer
from redisbench.output import ratio, run_record, two_modules_record, write_results
from redisbench.runs import module_list

MEMORY_ERRORS = (0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9)
# From one item up: a small key's fixed bookkeeping dominates it, a large one's payload.
MEMORY_CAPACITIES = (1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000)
# EXPANSION 1 chains: reserved for CHAIN_LINK items, filled with CHAIN_ITEMS distinct items
# (100 sub-filters), at these error rates.
CHAIN_LINK, CHAIN_ITEMS, CHAIN_ERRORS = 1000, 100_000, (0.1, 0.01, 1e-4)
# Where the bytes of a small key go, in the markdown (the JSON has every cell).
ACCOUNT_CAPACITIES, ACCOUNT_ERRORS = (1, 10, 100, 1000), (0.1, 0.01, 1e-9)


def key_account(c, key, usage):
    """MEMORY USAGE split in three: the server's bytes for the key (its name and dict entry:
    MEMORY USAGE less the module's figure, BF.INFO Size), the module's structs (Size less
    the bit arrays), and the bit arrays (BF.DEBUG's bytes per sub-filter, the same lines on
    both modules)."""
    info = c.execute_command("BF.INFO", key)
    size = int(dict(zip(info[::2], info[1::2]))[b"Size"])
    arrays = sum(int(word.split(b":")[1]) for line in c.execute_command("BF.DEBUG", key)[1:]
                 for word in line.split() if word.startswith(b"bytes:"))
    return {"key": usage - size, "structs": size - arrays, "bit_arrays": arrays}


def memory_main(a, module, host, out):
    """BF memory on both modules (no timing): BF.RESERVE over MEMORY_ERRORS x
    MEMORY_CAPACITIES with the default variant, and EXPANSION 1 chains of 100 sub-filters,
    each key's MEMORY USAGE on both servers."""
    other = os.path.abspath(a.against)
    if not os.path.isfile(other):
        sys.exit(f"bench-redis: --against {a.against}: no such file")
    grid, chains = [], []
    with RedisServer(module=module, name="mem-filterlab") as sa, \
            RedisServer(module=other, name="mem-other") as sb:  # stopped by PID on exit
        ca, cb = sa.client(socket_timeout=600), sb.client(socket_timeout=600)
        modules = {"filterlab": module_list(ca), "other": module_list(cb)}
        for p in MEMORY_ERRORS:
            for n in MEMORY_CAPACITIES:
                row = {"error_rate": p, "capacity": n}
                for side, c in (("filterlab", ca), ("other", cb)):
                    c.execute_command("BF.RESERVE", "m", p, n)
                    row[side + "_bytes"] = int(c.execute_command("MEMORY", "USAGE", "m",
                                                                 "SAMPLES", "0"))
                    row[side + "_account"] = key_account(c, "m", row[side + "_bytes"])
                    c.delete("m")
                row["ratio"] = ratio(row["filterlab_bytes"], row["other_bytes"])
                grid.append(row)
        for p in CHAIN_ERRORS:
            row = {"error_rate": p, "capacity": CHAIN_LINK, "items": CHAIN_ITEMS}
            for side, c in (("filterlab", ca), ("other", cb)):
                c.execute_command("BF.RESERVE", "e1", p, CHAIN_LINK, "EXPANSION", 1)
                for i in range(0, CHAIN_ITEMS, 1000):
                    c.execute_command("BF.MADD", "e1", *[f"x{j}" for j in range(i, i + 1000)])
                info = c.execute_command("BF.INFO", "e1")
                info = dict(zip(info[::2], info[1::2]))
                row[side + "_filters"] = int(info[b"Number of filters"])
                row[side + "_bytes"] = int(c.execute_command("MEMORY", "USAGE", "e1",
                                                             "SAMPLES", "0"))
                c.delete("e1")
            row["ratio"] = ratio(row["filterlab_bytes"], row["other_bytes"])
            chains.append(row)
        version = ca.info("server")["redis_version"]
        ca.close()
        cb.close()
    doc = run_record("BF MEMORY USAGE, filterlab's module vs another RedisBloom-compatible module",
                     "scripts/bench-redis --against " + a.against + " --memory" +
                     (f" --other-label '{a.other_label}'" if a.other_label else ""),
                     host)
    doc.update({
        **two_modules_record(version, a.other_label, module, other, modules),
        "goal": {"reserve": 1.1, "expansion_1_chain": 2.0},
        "reserve": grid, "expansion_1": chains,
        "worst_reserve_ratio": max(r["ratio"] for r in grid),
        "worst_reserve_ratio_by_capacity": {
            str(n): max(r["ratio"] for r in grid if r["capacity"] == n)
            for n in MEMORY_CAPACITIES},
        "worst_chain_ratio": max(r["ratio"] for r in chains),
    })
    write_results(out, "redis-memory", doc, memory_markdown(doc))


def memory_markdown(d):
    other = d["other_label"] or os.path.basename(d["modules"]["other"]["path"])
    loaded = ", ".join(f"{m['name']} {m['ver']}" for m in d["modules"]["other"]["loaded"])
    caps = sorted({r["capacity"] for r in d["reserve"]})
    lines = [
        f"# BF memory: filterlab's Redis module vs {other} ({d['host']}, {d['date']})",
        "",
        f"Written by `{d['command']}` (commit `{d['commit'][:12]}`, Redis {d['redis_version']};"
        f" the other module loads as: {loaded or '?'}). MEMORY USAGE key SAMPLES 0 of a key "
        "made by `BF.RESERVE key error capacity` (default variant), filterlab bytes / other "
        f"bytes (goal <= {d['goal']['reserve']:g}x); worst {d['worst_reserve_ratio']:.3f}x.",
        "",
        "| error rate | " + " | ".join(f"{c:,}" for c in caps) + " |",
        "|---:|" + "---:|" * len(caps),
    ]
    for p in sorted({r["error_rate"] for r in d["reserve"]}, reverse=True):
        cells = {r["capacity"]: r for r in d["reserve"] if r["error_rate"] == p}
        lines.append(f"| {p:g} | " + " | ".join(
            f"{cells[c]['ratio']:.3f}x ({cells[c]['filterlab_bytes']:,} / "
            f"{cells[c]['other_bytes']:,})" for c in caps) + " |")
    worst = d.get("worst_reserve_ratio_by_capacity", {})
    if worst:
        lines.append("| worst | " + " | ".join(f"{worst[str(c)]:.3f}x" for c in caps) + " |")
    account = [r for r in d["reserve"] if "filterlab_account" in r and
               r["capacity"] in ACCOUNT_CAPACITIES and r["error_rate"] in ACCOUNT_ERRORS]
    if account:
        lines += [
            "",
            "Where the bytes of a small key go: MEMORY USAGE = the server's bytes for the key "
            "(its name and dict entry: MEMORY USAGE less BF.INFO Size) + the module's structs "
            "(Size less the bit arrays: filterlab's value, chain and payload slack; the other's "
            "chain and link structs) + the bit arrays (BF.DEBUG's bytes per sub-filter).",
            "",
            "| error rate | capacity | filterlab: key + structs + bit arrays | other: key + "
            "structs + bit arrays | filterlab / other |",
            "|---:|---:|---:|---:|---:|",
        ]
        for r in sorted(account, key=lambda r: (-r["error_rate"], r["capacity"])):
            fa, oa = r["filterlab_account"], r["other_account"]
            lines.append(
                f"| {r['error_rate']:g} | {r['capacity']:,} | {r['filterlab_bytes']:,} = "
                f"{fa['key']} + {fa['structs']} + {fa['bit_arrays']:,} | {r['other_bytes']:,} = "
                f"{oa['key']} + {oa['structs']} + {oa['bit_arrays']:,} | {r['ratio']:.3f}x |")
    lines += [
        "",
        f"EXPANSION 1 chains (goal <= {d['goal']['expansion_1_chain']:g}x; worst "
        f"{d['worst_chain_ratio']:.3f}x): `BF.RESERVE key error capacity EXPANSION 1`, then "
        "distinct items by BF.MADD of 1,000.",
        "",
        "| error rate | capacity | items | filterlab filters | other filters | filterlab bytes "
        "| other bytes | filterlab / other |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ] + [f"| {r['error_rate']:g} | {r['capacity']:,} | {r['items']:,} | "
         f"{r['filterlab_filters']} | {r['other_filters']} | {r['filterlab_bytes']:,} | "
         f"{r['other_bytes']:,} | {r['ratio']:.3f}x |" for r in d["expansion_1"]] + [""]
    return "\n".join(lines)
