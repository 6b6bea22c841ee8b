#!/usr/bin/python3
"""The Redis module where it follows RedisBloom 2.4's replies: BF.DEBUG, CF.DEBUG,
CF.COMPACT, the cuckoo capacity minimum and CF_MAX_EXPANSIONS, CF.SCANDUMP of an empty
filter, CMS.MERGE's signed weights and MERGE/INCRBY overflow, TOPK.INCRBY's per-item errors,
the INFO replies' exact fields (filterlab's own facts in FILTERLAB.INFO), RedisBloom's error
texts for chunk refusals, TOPK's recall of heavy items, and the module's load arguments
(ERROR_RATE, INITIAL_SIZE, CF_MAX_EXPANSIONS, MAX_BYTES, BF_LAYOUT_SLACK), and BF memory
against RedisBloom's sizing.

    python3 tests/redis/test_compat.py build/redis/filterlab_redis.so

Each server binds 127.0.0.1 on a free port and is stopped by its PID (redis_server.py).
Exit 77 (skipped) when redis-server or python3-redis is missing.
"""
import os
import math
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redis_server import Deadline, RedisServer, skip_if_unavailable  # noqa: E402
import bf_dump  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

skip_if_unavailable()
import redis  # noqa: E402
from replies import error_of, pairs  # noqa: E402

MODULE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/redis/filterlab_redis.so")
DEADLINE = Deadline(240)


def server(*module_args):
    return RedisServer(args=["--loadmodule", MODULE, *[str(a) for a in module_args]])


# ---- BF ------------------------------------------------------------------------------------

BF_LINE = re.compile(rb"bytes:(\d+) bits:(\d+) hashes:(\d+) hashwidth:64 capacity:(\d+) "
                     rb"size:(\d+) ratio:([0-9.e+-]+)$")


def test_bf(r):
    r.execute_command("BF.RESERVE", "b", 0.01, 10)
    for i in range(100):
        r.execute_command("BF.ADD", "b", f"i{i}")
    dbg = r.execute_command("BF.DEBUG", "b")
    info = pairs(r.execute_command("BF.INFO", "b"))
    lines = [BF_LINE.match(x) for x in dbg[1:]]
    check(dbg[0] == b"size:%d" % info["Number of items inserted"], f"BF.DEBUG size {dbg[0]}")
    check(len(lines) == info["Number of filters"] and all(lines), f"BF.DEBUG lines {dbg}")
    if all(lines):
        nums = [[float(x) for x in m.groups()] for m in lines]
        check(all(b * 8 == bits and k >= 1 for b, bits, k, *_ in nums), "BF.DEBUG bytes, bits")
        check(sum(n[4] for n in nums) == info["Number of items inserted"],
              "BF.DEBUG: the sub-filters' sizes add up to the items")
        check(nums[0][3] == 10 and all(b[3] == 2 * a[3] for a, b in zip(nums, nums[1:])),
              "BF.DEBUG: capacities 10, 20, 40 ... (expansion 2)")
        check(all(b[5] < a[5] for a, b in zip(nums, nums[1:])),
              "BF.DEBUG: each sub-filter's error ratio is tighter than the one before")
    check(list(pairs(r.execute_command("BF.INFO", "b"))) ==
          ["Capacity", "Size", "Number of filters", "Number of items inserted",
           "Expansion rate"], "BF.INFO has RedisBloom's five fields")
    fl = pairs(r.execute_command("FILTERLAB.INFO", "b"))
    check(fl["Type"] == b"bf" and "Predicted FPR" in fl and "Variant" in fl,
          f"FILTERLAB.INFO carries the Bloom filter's own facts {list(fl)}")
    r.set("str", "x")
    check(error_of(r, "BF.DEBUG", "missing") == "not found", "BF.DEBUG of a missing key")
    check("WRONGTYPE" in (error_of(r, "BF.DEBUG", "str") or ""), "BF.DEBUG of a string")
    check("wrong number" in (error_of(r, "BF.DEBUG", "b", "x") or ""), "BF.DEBUG arity")


# ---- CF ------------------------------------------------------------------------------------

CF_LINE = re.compile(rb"bktsize:(\d+) buckets:(\d+) items:(\d+) deletes:(\d+) filters:(\d+) "
                     rb"max_iterations:(\d+) expansion:(\d+)$")


def redisbloom_bytes(capacity, error_rate):
    """The bit array RedisBloom 2.4 gives a scaling chain's first filter: m = n ln(1/p0) /
    ln(2)^2 bits with p0 = error_rate / 2 (its tightening), bytes rounded up."""
    return math.ceil(capacity * -math.log(error_rate / 2) / (math.log(2) ** 2) / 8)


def redisbloom_words(capacity, error_rate):
    """RedisBloom 2.4's bloom_init with BF.RESERVE's options (NOROUND): floor(n * bpe) bits,
    bpe = ln(1/p0) / ln(2)^2, at least 1, in whole 64-bit words; in bytes."""
    bits = max(1, int(capacity * -math.log(error_rate / 2) / (math.log(2) ** 2)))
    return (bits + 63) // 64 * 8


def test_bf_memory(r):
    # One BF.RESERVE, every error rate the README promises: within 1.1x RedisBloom's bytes
    # (the chain's sub-filters switch to classic where block512 would cost more).
    for p in (0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-9):
        r.execute_command("BF.RESERVE", "m", p, 100000)
        used = r.memory_usage("m")
        want = redisbloom_bytes(100000, p)
        check(used <= 1.1 * want + 1024, f"BF.RESERVE m {p} 100000: {used} bytes, "
              f"RedisBloom's bit array {want}")
        r.delete("m")
    # Small capacities, where a value's bookkeeping weighs: within 1.1x of the MEMORY USAGE
    # RedisBloom 2.4 reports for the same key, which is the server's bytes for the key (the
    # same on both: MEMORY USAGE less the value's own, BF.INFO Size), its chain and link
    # structs (32 + 64 bytes) and its bit array in 64-bit words (redisbloom_words).
    for n in (1, 10, 100, 1000):
        for p in (0.1, 0.01, 1e-3, 1e-4, 1e-9):
            r.execute_command("BF.RESERVE", "s", p, n)
            used = r.memory_usage("s")
            key = used - pairs(r.execute_command("BF.INFO", "s"))["Size"]
            want = key + 96 + redisbloom_words(n, p)
            check(used <= 1.1 * want, f"BF.RESERVE s {p} {n}: {used} bytes, "
                  f"RedisBloom's MEMORY USAGE {want}")
            r.delete("s")
    # Absurd targets stay small: one classic sub-filter, not the blocked layout's megabytes.
    r.execute_command("BF.RESERVE", "t", 1e-30, 1)
    check(r.memory_usage("t") < 4096, f"BF.RESERVE t 1e-30 1: {r.memory_usage('t')} bytes")
    # EXPANSION 1: 100 sub-filters of 1000 items grow linearly, within 2x of what
    # RedisBloom's chain holds (each sub-filter at half the last one's error rate).
    r.execute_command("BF.RESERVE", "e1", 0.01, 1000, "EXPANSION", 1)
    for i in range(0, 100000, 1000):
        r.execute_command("BF.MADD", "e1", *[f"x{j}" for j in range(i, i + 1000)])
    info = pairs(r.execute_command("BF.INFO", "e1"))
    want = sum(redisbloom_bytes(1000, 0.01 * 0.5 ** i) for i in range(info["Number of filters"]))
    used = r.memory_usage("e1")
    check(info["Number of filters"] >= 95 and used <= 2 * want,
          f"EXPANSION 1 chain: {info['Number of filters']} filters, {used} bytes, "
          f"RedisBloom's bit arrays {want}")
    check(all(r.execute_command("BF.MEXISTS", "e1", *[f"x{j}" for j in range(0, 100000, 997)])),
          "every item of the long chain is found")


def cf_debug(r, key):
    m = CF_LINE.match(r.execute_command("CF.DEBUG", key))
    return [int(x) for x in m.groups()] if m else None


def test_cf(r):
    # The minimum capacity: two buckets of the bucket size asked for.
    minimum = "Capacity must be at least (BucketSize * 2)"
    check(error_of(r, "CF.RESERVE", "c1", 3) == minimum, "CF.RESERVE capacity 3 is refused")
    check(error_of(r, "CF.RESERVE", "c1", 9, "BUCKETSIZE", 5) == minimum,
          "CF.RESERVE capacity below twice BUCKETSIZE is refused")
    check(error_of(r, "CF.INSERT", "c1", "CAPACITY", 3, "ITEMS", "a") == minimum,
          "CF.INSERT CAPACITY 3 is refused")
    check(error_of(r, "CF.INSERTNX", "c1", "CAPACITY", -1, "ITEMS", "a") == minimum,
          "CF.INSERTNX CAPACITY -1 is refused")
    check(r.exists("c1") == 0, "refused creations leave no key")
    check(r.execute_command("CF.RESERVE", "c1", 4) == b"OK" and
          r.execute_command("CF.RESERVE", "c2", 10, "BUCKETSIZE", 5) == b"OK",
          "CF.RESERVE at the minimum")
    check(error_of(r, "CF.RESERVE", "big", 2 ** 62) ==
          "Insufficient memory to create filter", "CF.RESERVE of an absurd capacity")
    check(r.exists("big") == 0, "no key for a refused CF.RESERVE")
    # CF.DEBUG against CF.INFO.
    r.execute_command("CF.RESERVE", "cf", 64, "MAXITERATIONS", 33, "EXPANSION", 2)
    r.execute_command("CF.INSERT", "cf", "ITEMS", *[f"k{i}" for i in range(500)])
    r.execute_command("CF.DEL", "cf", "k1")
    d = cf_debug(r, "cf")
    info = pairs(r.execute_command("CF.INFO", "cf"))
    check(d is not None and d == [info["Bucket size"], info["Number of buckets"],
                                  info["Number of items inserted"],
                                  info["Number of items deleted"], info["Number of filters"],
                                  33, 2],
          f"CF.DEBUG agrees with CF.INFO: {d} {info}")
    check(list(info) == ["Size", "Number of buckets", "Number of filters",
                         "Number of items inserted", "Number of items deleted",
                         "Bucket size", "Expansion rate", "Max iterations"],
          "CF.INFO has RedisBloom's eight fields")
    fl = pairs(r.execute_command("FILTERLAB.INFO", "cf"))
    check(fl["Requested bucket size"] == 2 and "Fill" in fl and "Kernel" in fl,
          f"FILTERLAB.INFO carries the cuckoo filter's own facts {list(fl)}")
    check(error_of(r, "CF.DEBUG", "missing") == "not found", "CF.DEBUG of a missing key")

    # CF.COMPACT drops the filters that deletes emptied; answers stay the same.
    r.execute_command("CF.RESERVE", "cc", 8, "EXPANSION", 1)
    keys = [f"c{i}" for i in range(60)]
    for k in keys:
        r.execute_command("CF.ADD", "cc", k)
    before = cf_debug(r, "cc")
    check(before[4] >= 3, f"60 adds into filters for 8 grow the chain: {before}")
    check(r.execute_command("CF.COMPACT", "cc") == b"OK" and cf_debug(r, "cc") == before,
          "CF.COMPACT of a chain without empty filters changes nothing")
    kept = keys[:5]
    for k in keys[5:]:
        r.execute_command("CF.DEL", "cc", k)
    others = [f"never{i}" for i in range(2000)]
    fp_before = r.execute_command("CF.MEXISTS", "cc", *others)
    check(r.execute_command("CF.COMPACT", "cc") == b"OK", "CF.COMPACT answers OK")
    after = cf_debug(r, "cc")
    check(after[4] < before[4], f"CF.COMPACT drops emptied filters: {before} -> {after}")
    check(r.execute_command("CF.MEXISTS", "cc", *kept) == [1] * 5,
          "the items left are found after CF.COMPACT")
    check(r.execute_command("CF.MEXISTS", "cc", *others) == fp_before,
          "CF.COMPACT changes no answer")
    check(r.execute_command("CF.ADD", "cc", "again") == 1 and
          r.execute_command("CF.EXISTS", "cc", "again") == 1, "the compacted chain takes adds")
    for k in kept + ["again"]:
        r.execute_command("CF.DEL", "cc", k)
    r.execute_command("CF.COMPACT", "cc")
    check(cf_debug(r, "cc")[4] == 1, "a chain emptied by deletes compacts to one filter")
    check(error_of(r, "CF.COMPACT", "missing") == "Cuckoo filter was not found",
          "CF.COMPACT of a missing key")
    check("wrong number" in (error_of(r, "CF.COMPACT", "cc", "x") or ""), "CF.COMPACT arity")
    r.set("str", "x")
    check("WRONGTYPE" in (error_of(r, "CF.COMPACT", "str") or ""), "CF.COMPACT of a string")

    # SCANDUMP of an empty filter: [0, nil].
    r.execute_command("CF.RESERVE", "empty", 100)
    check(r.execute_command("CF.SCANDUMP", "empty", 0) == [0, None],
          "CF.SCANDUMP of an empty filter is [0, nil]")
    r.execute_command("CF.ADD", "empty", "x")
    it, chunk = r.execute_command("CF.SCANDUMP", "empty", 0)
    check(it == 1 and len(chunk) > 0, "CF.SCANDUMP after an add gives a chunk")
    # RedisBloom's texts for refused chunks.
    bad = bytearray(chunk)
    bad[len(bad) // 2] ^= 1
    check(error_of(r, "CF.LOADCHUNK", "fresh", 1, bytes(bad)) == "Couldn't create filter!",
          "a corrupt first chunk for a new key")
    check(error_of(r, "CF.LOADCHUNK", "empty", 2, b"junk") == "Couldn't load chunk!",
          "a junk chunk for an existing key")
    check(error_of(r, "CF.LOADCHUNK", "empty", 0, chunk) == "Invalid position",
          "LOADCHUNK iterator 0")
    check(error_of(r, "CF.SCANDUMP", "empty", -1) == "Invalid position",
          "SCANDUMP iterator -1")
    check(r.exists("fresh") == 0 and r.execute_command("CF.EXISTS", "empty", "x") == 1,
          "refused chunks change nothing")
    check(error_of(r, "BF.LOADCHUNK", "bfresh", 1, b"junk") == "received bad data",
          "BF.LOADCHUNK of junk")
    check(error_of(r, "BF.SCANDUMP", "b", "x") == "Second argument must be numeric",
          "BF.SCANDUMP with a bad iterator")


def test_cf_max_expansions():
    # The default (32) and a load argument of 3: a chain of that many filters takes no more.
    for limit, args in ((32, ()), (3, ("CF_MAX_EXPANSIONS", 3))):
        with server(*args) as srv:
            r = srv.client()
            r.execute_command("CF.RESERVE", "cf", 4, "EXPANSION", 1)
            err, added = None, 0
            for i in range(20000):
                try:
                    r.execute_command("CF.ADD", "cf", f"x{i}")
                    added += 1
                except redis.ResponseError as e:
                    err = str(e)
                    break
            filters = cf_debug(r, "cf")[4]
            check(err == "Maximum expansions reached" and filters == limit,
                  f"CF_MAX_EXPANSIONS {limit}: refused after {added} adds with {filters} "
                  f"filters: {err}")
            check(error_of(r, "CF.INSERT", "cf", "ITEMS", "y") == "Maximum expansions reached",
                  "CF.INSERT into a chain at the limit")
            check(r.execute_command("CF.INFO", "cf")[7] == added,
                  "the refused items were not counted")


# ---- CMS -----------------------------------------------------------------------------------

def test_cms(r):
    for k in ("a", "b", "d"):
        r.execute_command("CMS.INITBYDIM", k, 100, 4)
    r.execute_command("CMS.INCRBY", "a", "x", 10, "y", 4)
    r.execute_command("CMS.INCRBY", "b", "x", 3)
    # Signed weights: a - b.
    check(r.execute_command("CMS.MERGE", "d", 2, "a", "b", "WEIGHTS", 1, -1) == b"OK",
          "CMS.MERGE with a negative weight")
    check(r.execute_command("CMS.QUERY", "d", "x", "y") == [7, 4] and
          pairs(r.execute_command("CMS.INFO", "d"))["count"] == 11,
          "CMS.MERGE WEIGHTS 1 -1 subtracts the counts and N")
    check(r.execute_command("CMS.MERGE", "d", 2, "b", "a", "WEIGHTS", -1, 1) == b"OK" and
          r.execute_command("CMS.QUERY", "d", "x") == [7], "negative weight first")
    # Overflow below zero or past 2^32 - 1 is refused whole: nothing changes.
    snap = {k: (r.execute_command("CMS.INFO", k), r.execute_command("CMS.QUERY", k, "x", "y"))
            for k in ("a", "b", "d")}
    # b - a has negative counters; 4 b - a too; the others overflow 64 bits or 2^32 - 1.
    for weights in ((1, -1), (4, -1), (2 ** 62, 2 ** 62), (-(2 ** 63), 1), (2000000000, 0)):
        check(error_of(r, "CMS.MERGE", "d", 2, "b", "a", "WEIGHTS", *weights) ==
              "CMS: MERGE overflow", f"CMS.MERGE WEIGHTS {weights} is refused")
    check(error_of(r, "CMS.MERGE", "a", 2, "a", "b", "WEIGHTS", 1, -4) == "CMS: MERGE overflow",
          "a refused merge into one of its sources")
    check(snap == {k: (r.execute_command("CMS.INFO", k),
                       r.execute_command("CMS.QUERY", k, "x", "y")) for k in ("a", "b", "d")},
          "refused merges leave every sketch as it was")
    check(error_of(r, "CMS.MERGE", "d", 1, "a", "WEIGHTS", "1.5") == "CMS: invalid weight value",
          "a weight that is not an integer")
    check(error_of(r, "CMS.MERGE", "d", 1, "a", "WEIGHTS", 2 ** 63) ==
          "CMS: invalid weight value", "a weight beyond 64 bits")
    check(list(pairs(r.execute_command("CMS.INFO", "a"))) == ["width", "depth", "count"],
          "CMS.INFO has RedisBloom's three fields")
    fl = pairs(r.execute_command("FILTERLAB.INFO", "a"))
    check(fl["Type"] == b"cms" and "Epsilon" in fl and "Delta" in fl,
          f"FILTERLAB.INFO carries the sketch's bounds {list(fl)}")
    # INCRBY past 2^32 - 1: the counter saturates and that item's reply is an error.
    r.execute_command("CMS.INITBYDIM", "o", 1000, 3)
    big = 2 ** 31
    out = r.execute_command("CMS.INCRBY", "o", "p", big, "q", 1)
    check(out == [big, 1], f"CMS.INCRBY below the limit {out}")
    out = r.execute_command("CMS.INCRBY", "o", "p", big, "q", 1)
    check(isinstance(out[0], redis.ResponseError) and str(out[0]) == "CMS: INCRBY overflow" and
          out[1] == 2, f"CMS.INCRBY overflow is an error in the item's place: {out}")
    check(r.execute_command("CMS.QUERY", "o", "p") == [2 ** 32 - 1],
          "the overflowed count stays at 2^32 - 1 (never below the true count)")
    check(error_of(r, "CMS.INCRBY", "o", "p", -1) == "CMS: Number cannot be negative",
          "a negative increment")
    check(r.execute_command("CMS.QUERY", "o", "q") == [2], "a refused INCRBY adds nothing")
    # Sizes past MAX_BYTES: RedisBloom's text, no key.
    check(error_of(r, "CMS.INITBYDIM", "huge", 2 ** 62, 1) ==
          "CMS: Insufficient memory to create the key", "CMS.INITBYDIM of an absurd width")
    check(error_of(r, "CMS.INITBYDIM", "huge", 2 ** 33, 2 ** 33) ==
          "CMS: Insufficient memory to create the key", "CMS.INITBYDIM of an absurd shape")
    check(r.exists("huge") == 0, "no key for a refused CMS")


# ---- TOPK ----------------------------------------------------------------------------------

def test_topk(r):
    r.execute_command("TOPK.RESERVE", "t", 3, 50, 4, 0.9)
    out = r.execute_command("TOPK.INCRBY", "t", "a", 5, "b", -5, "c", 100001, "d", "x",
                            "e", 100000)
    check(out[0] is None and out[4] is None and
          all(isinstance(e, redis.ResponseError) and "100,000" in str(e) for e in out[1:4]),
          f"TOPK.INCRBY: an error in each bad increment's place {out}")
    check(r.execute_command("TOPK.COUNT", "t", "a", "b", "c", "d", "e") == [5, 0, 0, 0, 100000],
          "TOPK.INCRBY adds the good items and none of the bad ones")
    info = r.execute_command("TOPK.INFO", "t")
    check(info[::2] == [b"k", b"width", b"depth", b"decay"] and float(info[-1]) == 0.9,
          f"TOPK.INFO has RedisBloom's four fields, decay last {info}")
    fl = pairs(r.execute_command("FILTERLAB.INFO", "t"))
    check(fl["Count"] == 100005 and fl["Conservative update"] == 1,
          f"FILTERLAB.INFO carries the stream's total {fl}")
    check(error_of(r, "TOPK.RESERVE", "h", 3, 2 ** 32 - 1, 2 ** 32 - 1, 0.9) ==
          "TopK: Insufficient memory to create topk data structure", "TOPK.RESERVE too large")
    check(error_of(r, "TOPK.RESERVE", "h", 3, 10 ** 12, 1, 0.9) == "TopK: invalid width",
          "TOPK.RESERVE width beyond 32 bits")
    check(r.exists("h") == 0, "no key for a refused TOPK.RESERVE")


def test_topk_recall(r):
    # 40 heavy items (25 each) in a stream of 4000 light ones (4 each), interleaved: the list
    # of 40 should hold nearly all heavy items, with counts never below the truth.
    rng = random.Random(7)
    heavy = [f"heavy{i}" for i in range(40)]
    stream = heavy * 25 + [f"light{i}" for i in range(4000)] * 4
    rng.shuffle(stream)
    r.execute_command("TOPK.RESERVE", "rec", 40, 600, 5, 0.9)
    for i in range(0, len(stream), 1000):
        r.execute_command("TOPK.ADD", "rec", *stream[i:i + 1000])
    top = [x.decode() for x in r.execute_command("TOPK.LIST", "rec")]
    found = sum(1 for x in top if x.startswith("heavy"))
    check(found >= 38, f"TOPK recall: {found} of 40 heavy items listed")
    counts = r.execute_command("TOPK.COUNT", "rec", *heavy, "light0", "light1")
    check(all(c >= 25 for c in counts[:40]) and all(c >= 4 for c in counts[40:]),
          "TOPK.COUNT never below the true count")


# ---- load arguments ------------------------------------------------------------------------

def test_load_args():
    with server("error_rate", "0.001", "INITIAL_SIZE", 500) as srv:
        r = srv.client()
        r.execute_command("BF.ADD", "b", "x")
        r.execute_command("BF.INSERT", "i", "ITEMS", "x")
        for k in ("b", "i"):
            info = pairs(r.execute_command("BF.INFO", k))
            fl = pairs(r.execute_command("FILTERLAB.INFO", k))
            check(info["Capacity"] == 500 and float(fl["Error rate"]) == 0.001,
                  f"ERROR_RATE and INITIAL_SIZE are the defaults of {k}: {info} {fl}")
        r.execute_command("BF.RESERVE", "own", 0.1, 7)
        check(pairs(r.execute_command("BF.INFO", "own"))["Capacity"] == 7,
              "BF.RESERVE's own arguments win")
    # BF_LAYOUT_SLACK: a large one keeps block512 where the default 1.1 turns to classic.
    for slack, want in ((1.1, "classic"), (100, "block512")):
        with server("BF_LAYOUT_SLACK", slack) as srv:
            r = srv.client()
            r.execute_command("BF.RESERVE", "s", 1e-6, 1000)
            dbg = r.execute_command("BF.DEBUG", "s")
            got = r.memory_usage("s")
            r.execute_command("BF.RESERVE", "ref", 1e-6, 1000, "VARIANT", want)
            check(abs(got - r.memory_usage("ref")) <= 64,
                  f"BF_LAYOUT_SLACK {slack}: the sub-filter is {want} ({got} bytes, {dbg})")
    # MAX_BYTES: over it, an error reply and no key; growth past it is refused.
    with server("MAX_BYTES", 65536) as srv:
        r = srv.client()
        for cmd, err in ((("BF.RESERVE", "k", 0.01, 1000000), "Insufficient memory"),
                         (("BF.INSERT", "k", "CAPACITY", 1000000, "ITEMS", "a"),
                          "Insufficient memory"),
                         (("CF.RESERVE", "k", 1000000), "Insufficient memory"),
                         (("CMS.INITBYDIM", "k", 10000, 5), "Insufficient memory"),
                         (("TOPK.RESERVE", "k", 10, 10000, 5, 0.9), "Insufficient memory")):
            e = error_of(r, *cmd)
            check(e is not None and err.lower() in e.lower(), f"MAX_BYTES refuses {cmd}: {e}")
        check(r.dbsize() == 0, "nothing was created past MAX_BYTES")
        check(r.execute_command("CMS.INITBYDIM", "ok", 1000, 5) == b"OK",
              "a sketch under MAX_BYTES is made")
        r.execute_command("CF.RESERVE", "grow", 1000, "EXPANSION", 2)
        err = None
        for i in range(0, 200000, 2000):
            try:
                r.execute_command("CF.INSERT", "grow", "ITEMS",
                                  *[f"g{j}" for j in range(i, i + 2000)])
            except redis.ResponseError as e:
                err = str(e)
                break
            if r.execute_command("CF.INSERT", "grow", "ITEMS", "probe")[0] == -1:
                err = "-1"
                break
        payload = pairs(r.execute_command("FILTERLAB.INFO", "grow"))["Payload bytes"]
        check(err is not None and payload <= 65536,
              f"a cuckoo chain stops growing at MAX_BYTES ({payload} bytes, {err})")
    # Bad arguments: the module refuses to load, saying why.
    for args, why in ((("ERROR_RATE", 1), "ERROR_RATE"), (("INITIAL_SIZE", 0), "INITIAL_SIZE"),
                      (("CF_MAX_EXPANSIONS", 1), "CF_MAX_EXPANSIONS"),
                      (("CF_MAX_EXPANSIONS", 65), "CF_MAX_EXPANSIONS"),
                      (("MAX_BYTES", "lots"), "MAX_BYTES"), (("BF_LAYOUT_SLACK", 0.5), "BF_LAYOUT_SLACK"),
                      (("BOGUS", 1), "unknown argument"),
                      (("ERROR_RATE",), "pairs")):
        srv = server(*args)
        try:
            srv.start()
            check(False, f"the module loaded with {args}")
        except RuntimeError:
            check(why in srv.log_tail(50), f"the log says why {args} was refused")
        finally:
            srv.cleanup()


def test_loaded_bf_growth():
    """A BF value loaded from a crafted dump grows under MAX_BYTES, whatever its own cap: the
    dump stores max_bytes 0 and a tightening of 1e-98, so its next sub-filter (2,000 keys at
    a target of 1e-100) would take about 10 MB; with MAX_BYTES 1 MiB the add that would
    create it is refused, and the value is as loaded (every item present, the same dump)."""
    with server("MAX_BYTES", 1 << 20) as srv:
        r = srv.client()
        r.execute_command("BF.RESERVE", "src", 0.01, 1000)
        keys = [f"k{i}" for i in range(990)]
        r.execute_command("BF.MADD", "src", *keys)
        while r.execute_command("BF.CARD", "src") < 1000:  # fill exactly, no growth
            keys.append(f"k{len(keys)}")
            r.execute_command("BF.ADD", "src", keys[-1])
        crafted = bf_dump.with_sbfh(bf_dump.blob_of(dump_chunks(r, "src")), tightening=1e-98,
                                    max_bytes=0)
        for it, chunk in bf_dump.chunks_of(crafted):
            r.execute_command("BF.LOADCHUNK", "dst", it, chunk)
        fresh = [f"new{i}" for i in range(64)]
        fresh = [k for k, e in zip(fresh, r.execute_command("BF.MEXISTS", "dst", *fresh)) if not e]

        def state():
            return (r.execute_command("BF.INFO", "dst"), r.memory_usage("dst"))

        before = state()
        check(pairs(before[0])["Number of filters"] == 1, f"the crafted dump loads: {before}")
        for source in ("LOADCHUNK", "RDB"):
            if source == "RDB":
                r.execute_command("DEBUG", "RELOAD")  # the value saved and loaded again
            e = error_of(r, "BF.ADD", "dst", fresh[0])
            check(e is not None, f"{source}: the add that would grow past MAX_BYTES is refused")
            reply = r.execute_command("BF.MADD", "dst", *fresh[:4])
            check(all(isinstance(x, redis.ResponseError) for x in reply),
                  f"{source}: BF.MADD refuses every item: {reply}")
            check(state() == before, f"{source}: nothing grew: {state()} vs {before}")
            check(all(x == 1 for x in r.execute_command("BF.MEXISTS", "dst", *keys)),
                  f"{source}: every item added before is present")
            check(bf_dump.blob_of(dump_chunks(r, "dst")) == crafted,
                  f"{source}: the value dumps back as loaded")


def dump_chunks(r, key):
    chunks, it = [], 0
    while True:
        it, data = r.execute_command("BF.SCANDUMP", key, it)
        if it == 0:
            return chunks
        chunks.append((it, data))


def main():
    with server() as srv:
        r = srv.client()
        print("redis-server", r.info("server")["redis_version"], "on port", srv.port)
        for name, fn in (("bf", test_bf), ("bf memory", test_bf_memory), ("cf", test_cf), ("cms", test_cms),
                         ("topk", test_topk), ("topk recall", test_topk_recall)):
            DEADLINE.left()
            r.flushall()
            checks.run(name, fn, r)
    for name, fn in (("cf max expansions", test_cf_max_expansions),
                     ("load arguments", test_load_args),
                     ("loaded BF growth", test_loaded_bf_growth)):
        DEADLINE.left()
        checks.run(name, fn)
    print(f"{checks.failures} failed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
