#!/usr/bin/python3
"""GROWTH INPLACE: BF and CF keys of one growing cuckoo filter (redis/inplace.h). Every BF
and CF command on such keys with the chain's reply shapes; growth to 8x with every item
found; BF's error rate kept as a bound (the doubling that would pass it refused, the adds
after it answered as a full NONSCALING key, the measured FPR against the predicted one);
bad options refused; MAX_BYTES at creation, at growth and on loaded values; SCANDUMP /
LOADCHUNK, DEBUG RELOAD and DUMP/RESTORE round trips of both layouts; crafted dumps
(header changed, kind swapped, truncated, a bit flipped, each resealed into valid chunks)
refused with the key unchanged. Kill-and-restart of INPLACE keys is test_faults.py's (its
bf-inplace and cf-inplace kinds).

    python3 tests/redis/test_inplace.py build/redis/filterlab_redis.so

The servers bind 127.0.0.1 on free ports and are stopped by PID (redis_server.py).
Exit 77 (skipped) when redis-server or python3-redis is missing.
"""
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from redis_server import Deadline, RedisServer, skip_if_unavailable  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

skip_if_unavailable()
import redis  # noqa: E402
import bf_dump  # noqa: E402
from replies import error_of, pairs  # noqa: E402

MODULE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/redis/filterlab_redis.so")
DEADLINE = Deadline(280)
CHUNK_KIND = {"BF": 1, "CF": 2}
HEADER = 56  # redis/inplace.c's serialization header


def items(prefix, n, start=0):
    return [f"{prefix}:{i}" for i in range(start, start + n)]


def batched(r, cmd, key, keys, before=(), step=1000):
    out = []
    for i in range(0, len(keys), step):
        out += r.execute_command(cmd, key, *before, *keys[i:i + step])
    return out


def finfo(r, key):
    return pairs(r.execute_command("FILTERLAB.INFO", key))


def dump_chunks(r, prefix, key):
    chunks, it = [], 0
    while True:
        it, data = r.execute_command(f"{prefix}.SCANDUMP", key, it)
        if it == 0:
            return chunks
        chunks.append((it, data))


def load_chunks(r, prefix, key, chunks):
    return [r.execute_command(f"{prefix}.LOADCHUNK", key, it, data) for it, data in chunks]


def test_bf(r):
    """Every BF command on an INPLACE key, grown to 8x its first table."""
    check(r.execute_command("BF.RESERVE", "b", 0.01, 1000, "GROWTH", "INPLACE") == b"OK",
          "BF.RESERVE ... GROWTH INPLACE")
    d = finfo(r, "b")
    check(d["Layout"] == b"inplace" and d["Doublings"] == 0 and d["Growth"] == b"allowed",
          f"FILTERLAB.INFO of a new key: {d}")
    first = d["Capacity"]
    check(first >= 1000, f"the first table holds at least the capacity asked: {first}")
    check(r.execute_command("BF.ADD", "b", "x") == 1 and r.execute_command("BF.ADD", "b", "x") == 0,
          "BF.ADD: 1 new, 0 present")
    keys = items("b", 8 * first)
    added = batched(r, "BF.MADD", "b", keys)
    check(sum(added) >= len(keys) - 20, f"BF.MADD: {sum(added)} of {len(keys)} new")
    check(all(batched(r, "BF.MEXISTS", "b", keys)), "every item found after growth to 8x")
    check(r.execute_command("BF.EXISTS", "b", keys[0]) == 1 and
          r.execute_command("BF.EXISTS", "b", "never") in (0, 1), "BF.EXISTS")
    d = finfo(r, "b")
    check(d["Doublings"] == 3, f"8x the first table: 3 doublings: {d}")
    info = pairs(r.execute_command("BF.INFO", "b"))
    n = 1 + sum(added)
    check(list(info) == ["Capacity", "Size", "Number of filters", "Number of items inserted",
                         "Expansion rate"], f"BF.INFO's fields: {list(info)}")
    check(info["Capacity"] == d["Capacity"] and 8 * first - 8 <= info["Capacity"] <= 8 * first + 8,
          f"Capacity: what it holds before the next doubling (8x the first): {info}")
    check(info["Number of filters"] == 1 and info["Expansion rate"] == 2 and
          info["Number of items inserted"] == n, f"BF.INFO: {info}")
    check(r.execute_command("BF.INFO", "b", "FILTERS") == [1] and
          r.execute_command("BF.INFO", "b", "ITEMS") == [n], "BF.INFO one field")
    check(r.execute_command("BF.CARD", "b") == n, "BF.CARD")
    mem = r.memory_usage("b")
    check(d["Payload bytes"] < info["Size"] <= mem < d["Payload bytes"] + 1024,
          f"MEMORY USAGE {mem}: the table ({d['Payload bytes']}) and its structs")
    dbg = r.execute_command("BF.DEBUG", "b")
    check(len(dbg) == 2 and dbg[0] == f"size:{n}".encode() and
          dbg[1].startswith(f"bytes:{d['Payload bytes']} ".encode()), f"BF.DEBUG: {dbg}")
    # BF.INSERT creates an INPLACE key with its options; then adds to it.
    rep = r.execute_command("BF.INSERT", "bi", "CAPACITY", 500, "ERROR", 0.01, "GROWTH",
                            "INPLACE", "ITEMS", "a", "b", "a")
    check(rep == [1, 1, 0] and finfo(r, "bi")["Layout"] == b"inplace", f"BF.INSERT: {rep}")
    check(r.execute_command("BF.INSERT", "bi", "NOCREATE", "ITEMS", "c") == [1],
          "BF.INSERT NOCREATE onto an INPLACE key")
    # a chain key says so too; its reply is unchanged otherwise
    r.execute_command("BF.RESERVE", "bc", 0.01, 1000)
    check(finfo(r, "bc")["Layout"] == b"chain", "FILTERLAB.INFO of a chain key: Layout chain")


def test_bf_bound(r):
    """error_rate 0.0005: the filter may double twice (its prediction at the next size's
    capacity passes 0.0005 at the third); it takes that table's capacity, then answers as a
    full NONSCALING key, and its FPR, measured on 200,000 absent items, agrees with the
    predicted one, which stays below the error rate."""
    r.execute_command("BF.RESERVE", "e", 0.0005, 1000, "GROWTH", "INPLACE")
    first = finfo(r, "e")["Capacity"]
    keys = items("e", 4 * first)
    added = batched(r, "BF.MADD", "e", keys)
    check(all(isinstance(x, int) for x in added), "4x the first table goes in")
    d = finfo(r, "e")
    check(d["Doublings"] == 2 and d["Growth"].startswith(b"stopped: the next doubling"),
          f"two doublings, then stopped by the error rate: {d}")
    more = items("more", 2 * first)
    rep = batched(r, "BF.MADD", "e", more)
    errs = [x for x in rep if isinstance(x, redis.ResponseError)]
    check(errs and all("non scaling filter is full" in str(x) for x in errs),
          f"adds past the capacity: RedisBloom's full error ({len(errs)} of {len(rep)})")
    took = len(rep) - len(errs)
    check(errs and all(isinstance(x, int) for x in rep[:took]) and
          all(isinstance(x, redis.ResponseError) for x in rep[took:]),
          "the items before the refused one went in, the ones after it are refused")
    check(error_of(r, "BF.ADD", "e", "one-more") == "non scaling filter is full", "BF.ADD full")
    d = finfo(r, "e")
    check(d["Doublings"] == 2 and r.execute_command("BF.CARD", "e") <= d["Capacity"],
          f"no third doubling, no more than the capacity: {d}")
    check(all(batched(r, "BF.MEXISTS", "e", keys + more[:took])), "every item added is found")
    predicted = float(d["Predicted FPR"])
    check(predicted <= 0.0005, f"predicted FPR {predicted} <= the error rate")
    n = 200_000
    fp = sum(batched(r, "BF.MEXISTS", "e", items("absent", n)))
    mean = predicted * n
    check(abs(fp - mean) <= 5 * math.sqrt(mean) + 5,
          f"measured FPR {fp / n:.6f} against predicted {predicted:.6f} (5 sigma)")
    # the refused state survives a reload (recomputed from the table, not saved)
    r.execute_command("DEBUG", "RELOAD")
    check(error_of(r, "BF.ADD", "e", "after-reload") == "non scaling filter is full" and
          finfo(r, "e")["Growth"] == d["Growth"], "still stopped after DEBUG RELOAD")


def test_cf(r):
    """Every CF command on an INPLACE key, grown to 8x its first table."""
    check(r.execute_command("CF.RESERVE", "c", 1000, "GROWTH", "INPLACE", "BUCKETSIZE", 3,
                            "MAXITERATIONS", 30, "EXPANSION", 2) == b"OK", "CF.RESERVE INPLACE")
    first = finfo(r, "c")["Capacity"]
    keys = items("c", 8 * first)
    rep = batched(r, "CF.INSERT", "c", keys, before=("ITEMS",))
    check(rep == [1] * len(keys), "CF.INSERT: every item added")
    check(all(batched(r, "CF.MEXISTS", "c", keys)), "every item found after growth to 8x")
    d = finfo(r, "c")
    check(d["Doublings"] == 3 and d["Requested bucket size"] == 3 and
          d["Fingerprint bits"] == 16, f"FILTERLAB.INFO: {d}")
    check(r.execute_command("CF.ADD", "c", "dup") == 1 and r.execute_command("CF.ADD", "c", "dup") == 1
          and r.execute_command("CF.ADDNX", "c", "dup") == 0 and
          r.execute_command("CF.COUNT", "c", "dup") >= 2, "CF.ADD twice, ADDNX, COUNT")
    check(r.execute_command("CF.INSERTNX", "c", "ITEMS", "nx1", "nx1", "dup") == [1, 0, 0],
          "CF.INSERTNX")
    c0 = r.execute_command("CF.COUNT", "c", "dup")
    check(r.execute_command("CF.DEL", "c", "dup") == 1 and
          r.execute_command("CF.COUNT", "c", "dup") == c0 - 1, "CF.DEL takes one copy")
    check(r.execute_command("CF.DEL", "c", "never-added-xyz") in (0, 1), "CF.DEL of an absent item")
    check(r.execute_command("CF.EXISTS", "c", keys[5]) == 1 and
          r.execute_command("CF.COUNT", "nokey", "a") == 0, "CF.EXISTS, COUNT of a missing key")
    info = pairs(r.execute_command("CF.INFO", "c"))
    check(list(info) == ["Size", "Number of buckets", "Number of filters",
                         "Number of items inserted", "Number of items deleted", "Bucket size",
                         "Expansion rate", "Max iterations"], f"CF.INFO's fields: {list(info)}")
    check(info["Number of filters"] == 1 and info["Expansion rate"] == 2 and
          info["Max iterations"] == 30 and info["Bucket size"] == 4 and
          info["Number of items deleted"] >= 1 and
          info["Number of buckets"] * 8 == d["Payload bytes"] and
          info["Number of items inserted"] == len(keys) + 2 + 1 - 1, f"CF.INFO: {info}")
    check(d["Payload bytes"] < info["Size"] <= r.memory_usage("c") < d["Payload bytes"] + 1024,
          "MEMORY USAGE: the table and its structs")
    dbg = r.execute_command("CF.DEBUG", "c")
    check(dbg.startswith(f"bktsize:4 buckets:{info['Number of buckets']} ".encode()) and
          b"filters:1 max_iterations:30 expansion:2" in dbg, f"CF.DEBUG: {dbg}")
    before = r.dump("c")
    check(r.execute_command("CF.COMPACT", "c") == b"OK" and r.dump("c") == before,
          "CF.COMPACT: OK, nothing to compact")
    # deletes of every item: the filter empties (each delete takes one of its copies)
    check(all(r.execute_command("CF.DEL", "c", k) == 1 for k in keys[:2000]), "2,000 deletes")
    check(sum(batched(r, "CF.MEXISTS", "c", keys[2000:])) == len(keys) - 2000,
          "the items not deleted are all found")
    rep = r.execute_command("CF.INSERT", "ci", "CAPACITY", 100, "GROWTH", "INPLACE", "ITEMS",
                            "a", "b")
    check(rep == [1, 1] and finfo(r, "ci")["Layout"] == b"inplace", "CF.INSERT creates INPLACE")
    check(r.execute_command("CF.INSERTNX", "cx", "GROWTH", "INPLACE", "ITEMS", "a", "a") == [1, 0]
          and finfo(r, "cx")["Layout"] == b"inplace", "CF.INSERTNX creates INPLACE")
    r.execute_command("CF.ADD", "cd", "a")
    check(finfo(r, "cd")["Layout"] == b"chain", "CF.ADD creates a chain (the default)")


def test_bad_options(r):
    bad = [
        (("BF.RESERVE", "k", 0.0001, 1000, "GROWTH", "INPLACE"), "error rate must be at least"),
        (("BF.RESERVE", "k", 0.01, 1000, "GROWTH", "INPLACE", "NONSCALING"), "NONSCALING"),
        (("BF.RESERVE", "k", 0.01, 1000, "GROWTH", "INPLACE", "EXPANSION", 4), "EXPANSION must be 2"),
        (("BF.RESERVE", "k", 0.01, 1000, "GROWTH", "INPLACE", "VARIANT", "classic"), "VARIANT"),
        (("BF.RESERVE", "k", 0.01, 1000, "GROWTH", "SIDEWAYS"), "CHAIN or INPLACE"),
        (("BF.RESERVE", "k", 0.01, 1000, "GROWTH"), "CHAIN or INPLACE"),
        (("BF.INSERT", "k", "GROWTH", "INPLACE", "NONSCALING", "ITEMS", "a"), "NONSCALING"),
        (("BF.INSERT", "k", "ERROR", 1e-6, "GROWTH", "INPLACE", "ITEMS", "a"), "at least"),
        (("CF.RESERVE", "k", 1000, "GROWTH", "INPLACE", "FPBITS", 12), "FPBITS"),
        (("CF.RESERVE", "k", 1000, "GROWTH", "INPLACE", "EXPANSION", 1), "EXPANSION must be 2"),
        (("CF.RESERVE", "k", 1000, "GROWTH", "UP"), "CHAIN or INPLACE"),
        (("CF.RESERVE", "k", 1000, "GROWTH"), "wrong number"),
        (("CF.INSERT", "k", "NOCREATE", "GROWTH", "INPLACE", "ITEMS", "a"), "NOCREATE"),
        (("BF.INSERT", "k", "NOCREATE", "GROWTH", "INPLACE", "ITEMS", "a"), "NOCREATE"),
        (("CF.INSERT", "k", "GROWTH", "BIG", "ITEMS", "a"), "CHAIN or INPLACE"),
        (("CF.RESERVE", "k", 1, "GROWTH", "INPLACE"), "Capacity must be at least"),
    ]
    for cmd, text in bad:
        e = error_of(r, *cmd)
        check(e is not None and text.lower() in e.lower(), f"{cmd}: {e}")
    check(r.dbsize() == 0, "no refused command made a key")
    # EXPANSION 2 is accepted, CHAIN is the default and may be named
    check(r.execute_command("CF.RESERVE", "ok", 100, "EXPANSION", 2, "GROWTH", "INPLACE") == b"OK"
          and r.execute_command("BF.RESERVE", "ok2", 0.01, 100, "EXPANSION", 2, "GROWTH",
                                "INPLACE") == b"OK" and
          r.execute_command("BF.RESERVE", "ok3", 0.01, 100, "GROWTH", "CHAIN") == b"OK" and
          finfo(r, "ok3")["Layout"] == b"chain", "the accepted forms")


def reseal(blob, **fields):
    """An INPLACE blob with header fields replaced and the header hash recomputed."""
    out = bytearray(blob)
    at = {"kind": (8, "<I"), "bucket": (12, "<I"), "reserved": (20, "<I"),
          "error_rate": (24, "<d"), "capacity": (32, "<Q")}
    for name, value in fields.items():
        struct.pack_into(at[name][1], out, at[name][0], value)
    struct.pack_into("<Q", out, 48, bf_dump.xxh3(out[:48]))
    return bytes(out)


def test_dumps(r):
    """SCANDUMP / LOADCHUNK, DUMP / RESTORE and DEBUG RELOAD of both layouts; crafted dumps
    refused with the key they were loaded onto unchanged."""
    keys = items("d", 20000)
    for prefix in ("BF", "CF"):
        src, chain = f"{prefix}src", f"{prefix}chain"
        if prefix == "BF":
            r.execute_command("BF.RESERVE", src, 0.01, 2000, "GROWTH", "INPLACE")
            r.execute_command("BF.RESERVE", chain, 0.01, 2000)
            add = "BF.MADD"
        else:
            r.execute_command("CF.RESERVE", src, 2000, "GROWTH", "INPLACE")
            r.execute_command("CF.RESERVE", chain, 2000)
            add = "CF.INSERT"
        before = ("ITEMS",) if prefix == "CF" else ()
        batched(r, add, src, keys, before=before)
        batched(r, add, chain, keys, before=before)
        exists = f"{prefix}.MEXISTS"
        chunks = dump_chunks(r, prefix, src)
        blob = bf_dump.blob_of(chunks)
        check(blob[:8] == b"FLRGROW1", f"{prefix}: the INPLACE tag")
        check(all(x == b"OK" for x in load_chunks(r, prefix, f"{prefix}copy", chunks)),
              f"{prefix}: LOADCHUNK of the SCANDUMP")
        check(all(batched(r, exists, f"{prefix}copy", keys)) and
              finfo(r, f"{prefix}copy")["Layout"] == b"inplace" and
              bf_dump.blob_of(dump_chunks(r, prefix, f"{prefix}copy")) == blob,
              f"{prefix}: the copy finds every item and dumps back the same")
        r.restore(f"{prefix}restored", 0, r.dump(src))
        check(all(batched(r, exists, f"{prefix}restored", keys)), f"{prefix}: DUMP / RESTORE")
        probe = items("absent", 5000)
        answers = {k: batched(r, exists, k, keys + probe) for k in (src, chain)}
        r.execute_command("DEBUG", "RELOAD")
        for k in (src, chain):
            check(batched(r, exists, k, keys + probe) == answers[k],
                  f"{prefix} {k}: the same answers after DEBUG RELOAD")
        check(finfo(r, chain)["Layout"] == b"chain" and finfo(r, src)["Layout"] == b"inplace",
              f"{prefix}: each key keeps its layout")
        # crafted dumps onto an existing key: refused, the key unchanged
        victim = f"{prefix}victim"
        r.restore(victim, 0, r.dump(src))
        saved = r.dump(victim)
        kind = CHUNK_KIND[prefix]
        other = 1 if prefix == "CF" else 2
        crafted = {
            "header changed, not resealed": blob[:32] + struct.pack("<Q", 5) + blob[40:],
            "kind swapped": reseal(blob, kind=other),
            "reserved field set": reseal(blob, reserved=1),
            "capacity 0": reseal(blob, capacity=0),
            "truncated filter": blob[:len(blob) - 9],
            "header only": blob[:HEADER],
            "bit flipped in the filter": blob[:HEADER + 100] + bytes([blob[HEADER + 100] ^ 4]) +
            blob[HEADER + 101:],
            "bit flipped in the table": blob[:-40] + bytes([blob[-40] ^ 1]) + blob[-39:],
        }
        if prefix == "BF":
            crafted["error rate 1"] = reseal(blob, error_rate=1.0)
        else:
            crafted["bucket size 0"] = reseal(blob, bucket=0)
        for what, bad in crafted.items():
            replies = []
            for it, chunk in bf_dump.chunks_of(bad, kind=kind):
                try:
                    replies.append(r.execute_command(f"{prefix}.LOADCHUNK", victim, it, chunk))
                except redis.ResponseError as e:
                    replies.append(e)
            check(isinstance(replies[-1], redis.ResponseError) and r.dump(victim) == saved,
                  f"{prefix}: {what}: refused ({replies[-1]}), the key unchanged")


def test_max_bytes():
    """MAX_BYTES 65536: a key whose first table passes it is refused with nothing made; a
    key stops doubling at it (an error reply, the items before it kept); a value loaded
    onto a server with a lower MAX_BYTES loads and does not grow."""
    big = RedisServer(args=["--loadmodule", MODULE, "MAX_BYTES", 65536], name="big")
    small = RedisServer(args=["--loadmodule", MODULE, "MAX_BYTES", 16384], name="small")
    try:
        big.start()
        r = big.client()
        for cmd in (("CF.RESERVE", "k", 100000, "GROWTH", "INPLACE"),
                    ("BF.RESERVE", "k", 0.01, 100000, "GROWTH", "INPLACE")):
            e = error_of(r, *cmd)
            check(e is not None and "Insufficient memory" in e, f"{cmd}: {e}")
        check(r.dbsize() == 0, "nothing was made past MAX_BYTES")
        for prefix in ("CF", "BF"):
            key = f"{prefix}g"
            if prefix == "CF":
                r.execute_command("CF.RESERVE", key, 1000, "GROWTH", "INPLACE")
            else:
                r.execute_command("BF.RESERVE", key, 0.01, 1000, "GROWTH", "INPLACE")
            took, err = [], None
            for i in range(0, 40000, 500):
                part = items(key, 500, i)
                cmd = ("CF.INSERT", key, "ITEMS") if prefix == "CF" else ("BF.MADD", key)
                try:
                    rep = r.execute_command(*cmd, *part)
                except redis.ResponseError as e:
                    err = e
                    break
                ok = [k for k, x in zip(part, rep) if isinstance(x, int) and x >= 0]
                took += ok
                bad = [x for x in rep if not (isinstance(x, int) and x >= 0)]
                if bad:
                    err = bad[0]
                    break
            d = finfo(r, key)
            check(err is not None and d["Payload bytes"] == 65536 and
                  d["Growth"] == b"stopped: MAX_BYTES",
                  f"{prefix}: growth stops at MAX_BYTES ({d['Payload bytes']} bytes, {err})")
            check(all(batched(r, f"{prefix}.MEXISTS", key, took)),
                  f"{prefix}: the {len(took)} items taken are all found")
        chunks = {p: dump_chunks(r, p, f"{p}g") for p in ("BF", "CF")}
        big.stop()
        small.start()
        r = small.client()
        for prefix, ch in chunks.items():
            check(all(x == b"OK" for x in load_chunks(r, prefix, "loaded", ch)),
                  f"{prefix}: a value above this server's MAX_BYTES still loads")
            d = finfo(r, "loaded")
            check(d["Payload bytes"] == 65536 and d["Growth"] == b"stopped: MAX_BYTES",
                  f"{prefix}: the loaded value is held to MAX_BYTES: {d}")
            r.delete("loaded")
    finally:
        big.cleanup()
        small.cleanup()


def main():
    with RedisServer(module=MODULE) as srv:
        r = srv.client()
        print("redis-server", r.info("server")["redis_version"], "on port", srv.port)
        for name, fn in (("bf", test_bf), ("bf error bound", test_bf_bound), ("cf", test_cf),
                         ("bad options", test_bad_options), ("dumps", test_dumps)):
            DEADLINE.left()
            r.flushall()
            checks.run(name, fn, r)
    DEADLINE.left()
    checks.run("max bytes", test_max_bytes)
    print(f"{checks.failures} failed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
