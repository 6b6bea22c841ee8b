#!/usr/bin/python3
"""The filterlab Redis module against a real redis-server and a real client.

    tests/redis/test_module.py build/redis/filterlab_redis.so

Debian's python3-redis (4.3.4) speaks RedisBloom through r.bf(), r.cf(), r.cms(), r.topk();
they are used unchanged, and each reply is compared with what RedisBloom's command
documentation specifies (reply shapes, defaults). Then: error replies for bad input (the
server still answers PING), no false negatives, DEBUG RELOAD (RDB) and BGREWRITEAOF +
restart for every type, SCANDUMP/LOADCHUNK of multi-MB filters into new keys, corrupt and
out-of-order chunks refused, a corrupt RDB payload refused (RESTORE), MEMORY USAGE, and
replication to a replica on a second local server.

Servers bind 127.0.0.1 on free ports, are bounded in time and stopped by PID
(redis_server.py). Exit 77 (skipped) when redis-server or python3-redis is missing.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redis_server import Deadline, RedisServer, skip_if_unavailable  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

skip_if_unavailable()
import redis  # noqa: E402

MODULE = os.path.abspath(sys.argv[1])
DEADLINE = Deadline(280)
RAW = None  # a client without the helpers' reply callbacks (r.bf() installs them on r)


def info_dict(cmd, key, client=None):
    raw = (client or RAW).execute_command(cmd, key)
    return dict(zip([k.decode() for k in raw[::2]], raw[1::2]))


def refused(fn, *args, match=None):
    """The call gets an error reply (and the text contains `match`, if given)."""
    try:
        fn(*args)
    except redis.ResponseError as e:
        return match is None or match.lower() in str(e).lower()
    return False


def items(prefix, n):
    return [f"{prefix}:{i}" for i in range(n)]


def chunked(seq, size):
    for i in range(0, len(seq), size):
        yield seq[i:i + size]


# ---- replies as RedisBloom documents them ---------------------------------------------

def test_bf(r):
    bf = r.bf()
    check(bf.create("bf", 0.01, 1000) is True, "BF.RESERVE replies OK")
    check(refused(bf.create, "bf", 0.01, 1000, match="item exists"),
          "BF.RESERVE on an existing key")
    check(bf.add("bf", "a") == 1 and bf.add("bf", "a") == 0, "BF.ADD: 1 new, 0 present")
    check(bf.madd("bf", "a", "b", "c") == [0, 1, 1], "BF.MADD: one integer per item")
    check(bf.exists("bf", "b") == 1 and bf.exists("bf", "zz-never") == 0, "BF.EXISTS")
    check(bf.mexists("bf", "a", "c", "zz-never") == [1, 1, 0], "BF.MEXISTS")
    check(bf.exists("missing", "a") == 0, "BF.EXISTS on a missing key is 0")
    check(r.execute_command("BF.CARD", "bf") == 3, "BF.CARD counts items added")
    check(r.execute_command("BF.CARD", "missing") == 0, "BF.CARD of a missing key is 0")
    info = bf.info("bf")
    check(info.capacity == 1000 and info.filterNum == 1 and info.insertedNum == 3 and
          info.expansionRate == 2 and info.size > 0, f"BF.INFO fields {vars(info)}")
    check(list(info_dict("BF.INFO", "bf")) == ["Capacity", "Size", "Number of filters",
                                               "Number of items inserted", "Expansion rate"],
          "BF.INFO has exactly RedisBloom's fields")
    d = info_dict("FILTERLAB.INFO", "bf")
    check(all(k in d for k in ("Fill", "Predicted FPR", "Error rate", "Variant", "Kernel")),
          f"FILTERLAB.INFO has filterlab's monitoring fields of a Bloom filter: {list(d)}")
    check(0 < float(d["Predicted FPR"]) < 0.01 and 0 < float(d["Fill"]) < 1,
          "BF.INFO: predicted FPR and fill in range")
    check(RAW.execute_command("BF.INFO", "bf", "CAPACITY") == [1000], "BF.INFO key CAPACITY")
    check(RAW.execute_command("BF.INFO", "bf", "ITEMS") == [3], "BF.INFO key ITEMS")
    # BF.ADD creates a missing key with RedisBloom's defaults: capacity 100, expansion 2.
    bf.add("auto", "x")
    info = bf.info("auto")
    check(info.capacity == 100 and info.expansionRate == 2, "BF.ADD's defaults (100, 2)")
    # BF.INSERT: options, NOCREATE, ITEMS.
    check(bf.insert("ins", ["p", "q", "p"], capacity=500, error=0.001) == [1, 1, 0],
          "BF.INSERT replies per item")
    check(bf.info("ins").capacity == 500, "BF.INSERT CAPACITY")
    check(refused(lambda: bf.insert("nope", ["a"], noCreate=True), match="not found"),
          "BF.INSERT NOCREATE on a missing key")
    check(not r.exists("nope"), "BF.INSERT NOCREATE created nothing")
    # Scaling: 20x the capacity, no false negatives, FPR near the target.
    bf.create("grow", 0.01, 1000)
    keys = items("g", 20000)
    for part in chunked(keys, 1000):
        bf.madd("grow", *part)
    found = sum(sum(bf.mexists("grow", *part)) for part in chunked(keys, 1000))
    check(found == len(keys), f"no false negatives after growth ({found}/{len(keys)})")
    info = bf.info("grow")
    check(info.filterNum > 1 and info.insertedNum <= 20000, f"the chain grew: {vars(info)}")
    fp = sum(sum(bf.mexists("grow", *part)) for part in chunked(items("neg", 20000), 1000))
    check(fp / 20000 < 0.02, f"false positive rate {fp / 20000} near the 0.01 target")
    # NONSCALING: full is RedisBloom's error, per item in MADD; the server logs a warning.
    bf.create("ns", 0.01, 10, noScale=True)
    replies = r.execute_command("BF.MADD", "ns", *items("n", 30))
    errors = [x for x in replies if isinstance(x, redis.ResponseError)]
    check(errors and all("non scaling filter is full" in str(e) for e in errors) and
          replies[0] == 1, f"NONSCALING past capacity: {replies[:3]} ... {replies[-2:]}")
    check(refused(bf.add, "ns", "one-more", match="non scaling filter is full"),
          "BF.ADD to a full non-scaling filter")
    check(bf.info("ns").expansionRate is None, "BF.INFO: expansion nil for NONSCALING")
    # VARIANT (filterlab's): every Bloom variant serves the same commands.
    for v in ("classic", "block512", "split256", "reg64"):
        r.execute_command("BF.RESERVE", f"v-{v}", 0.01, 1000, "VARIANT", v)
        bf.madd(f"v-{v}", *items(v, 3000))
        check(sum(bf.mexists(f"v-{v}", *items(v, 3000))) == 3000,
              f"VARIANT {v}: no false negatives")
        d = info_dict("FILTERLAB.INFO", f"v-{v}")
        check(d["Variant"] == v.encode(), f"BF.INFO reports variant {v}")


def test_cf(r):
    cf = r.cf()
    check(cf.create("cf", 1000) is True, "CF.RESERVE replies OK")
    check(refused(cf.create, "cf", 1000, match="item exists"), "CF.RESERVE on an existing key")
    check(cf.add("cf", "a") == 1 and cf.add("cf", "a") == 1, "CF.ADD adds copies: 1, 1")
    check(cf.addnx("cf", "a") == 0 and cf.addnx("cf", "b") == 1, "CF.ADDNX: 0 present, 1 new")
    check(cf.exists("cf", "a") == 1 and cf.exists("cf", "zz-never") == 0, "CF.EXISTS")
    check(cf.mexists("cf", "a", "b", "zz-never") == [1, 1, 0], "CF.MEXISTS")
    # RedisBloom's CF.COUNT: the copies of the item's fingerprint (12-bit fingerprints in a
    # filter of 3 items: no other item shares one here).
    check(cf.count("cf", "a") == 2 and cf.count("cf", "b") == 1 and
          cf.count("cf", "zz-never") == 0, "CF.COUNT counts copies: 2, 1, 0")
    check(cf.count("missing", "a") == 0, "CF.COUNT on a missing key is 0")
    check(refused(r.execute_command, "CF.COUNT", "cf", match="wrong number"), "CF.COUNT arity")
    check(cf.delete("cf", "a") == 1 and cf.count("cf", "a") == 1 and
          cf.delete("cf", "a") == 1 and cf.count("cf", "a") == 0 and
          cf.delete("cf", "a") == 0, "CF.DEL removes one copy at a time, CF.COUNT follows")
    check(cf.exists("cf", "a") == 0, "CF.EXISTS after deleting every copy")
    check(refused(cf.delete, "missing", "a", match="not found"), "CF.DEL on a missing key")
    check(cf.insert("cfins", ["x", "y"]) == [1, 1], "CF.INSERT replies 1 per item")
    check(cf.insertnx("cfins", ["x", "z", "z"]) == [0, 1, 0], "CF.INSERTNX replies 0/1")
    check(refused(lambda: cf.insert("nope", ["a"], nocreate=True), match="not found"),
          "CF.INSERT NOCREATE on a missing key")
    info = cf.info("cf")
    # RedisBloom counts items stored: 3 added (a, a, b), 2 deleted.
    check(info.insertedNum == 1 and info.deletedNum == 2 and info.bucketSize == 4 and
          info.expansionRate == 1 and info.maxIteration == 20 and info.filterNum == 1,
          f"CF.INFO fields {vars(info)}")
    check(list(info_dict("CF.INFO", "cf")) == [
        "Size", "Number of buckets", "Number of filters", "Number of items inserted",
        "Number of items deleted", "Bucket size", "Expansion rate", "Max iterations"],
        "CF.INFO has exactly RedisBloom's fields")
    d = info_dict("FILTERLAB.INFO", "cf")
    check(all(k in d for k in ("Capacity", "Fill", "Predicted FPR", "Kernel")),
          f"FILTERLAB.INFO has filterlab's monitoring fields of a cuckoo filter: {list(d)}")
    # Growth (EXPANSION 1, RedisBloom's default): no false negatives past capacity.
    cf.create("cfgrow", 1000)
    keys = items("c", 5000)
    res = []
    for part in chunked(keys, 500):
        res += cf.insert("cfgrow", part)
    check(res == [1] * len(keys), "CF.INSERT past capacity grows the chain")
    check(sum(sum(cf.mexists("cfgrow", *p)) for p in chunked(keys, 500)) == len(keys),
          "CF: no false negatives after growth")
    check(cf.info("cfgrow").filterNum > 1, "CF: the chain grew")
    # CF.COUNT sums the chain: a copy in the first filter and one in the newest.
    cf.add("cfgrow", keys[0])
    check(cf.count("cfgrow", keys[0]) >= 2, "CF.COUNT adds up the chain's filters")
    # CF.RESERVE's capacity counts items: 100000 distinct adds fit in the reserved filter.
    check(cf.create("cf100k", 100000) is True, "CF.RESERVE cf100k 100000")
    pipe = RAW.pipeline(transaction=False)
    replies = []
    for part in chunked(items("k", 100000), 5000):
        for it in part:
            pipe.execute_command("CF.ADD", "cf100k", it)
        replies += pipe.execute()
    d = {**info_dict("CF.INFO", "cf100k"), **info_dict("FILTERLAB.INFO", "cf100k")}
    check(replies == [1] * 100000, "100000 CF.ADDs all added")
    check(d["Number of filters"] == 1 and d["Number of items inserted"] == 100000 and
          d["Capacity"] == 100000 and d["Slots"] == 4 * d["Number of buckets"] and
          d["Slots"] < 100000 / 0.9, f"CF.RESERVE 100000 holds 100000 adds in one filter: {d}")
    # EXPANSION 0: the filter takes its capacity, adds less deletes, and refuses more with
    # RedisBloom's error (-1 per item from CF.INSERT), whatever room its table has left.
    cf.create("cffull", 64, expansion=0)
    out = cf.insert("cffull", items("f", 200))
    check(out == [1] * 64 + [-1] * 136, f"CF.INSERT of 200 into a filter of 64: {out}")
    check(refused(cf.add, "cffull", "more", match="filter is full"), "CF.ADD into a full filter")
    check(cf.insertnx("cffull", ["f:3", "more"]) == [0, -1], "CF.INSERTNX: present 0, new -1")
    check(cf.delete("cffull", "f:0") == 1 and cf.add("cffull", "more") == 1 and
          refused(cf.add, "cffull", "more2", match="filter is full") and
          all(cf.mexists("cffull", *items("f", 64)[1:], "more")),
          "a delete makes room for one add; every item held stays present")
    # The smallest table (2 buckets of 4 slots and a stash of 8) holds 4 items when 4 are
    # asked for: RedisBloom's test_expansion_0.
    cf.create("cf4", 4, expansion=0)
    check([cf.add("cf4", str(i)) for i in range(4)] == [1] * 4 and
          cf.insert("cf4", ["5", "6"]) == [-1, -1], "CF.RESERVE 4 EXPANSION 0 takes 4 items")
    # A value saved before CF.RESERVE's capacity counted items (format 1: capacity counted
    # slots) still loads: cf_format1_chunks.bin is the CF.SCANDUMP of a chain of two 8-slot
    # filters and their stashes (capacity 8, FPBITS 8, 24 items), written by the module's chunk
    # generator (tests/fuzz_redis_chunk.c --write-seeds) before that change, in its seed
    # framing: a mode byte, then [kind u8][length u16 LE][chunk] per chunk.
    raw = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "cf_format1_chunks.bin"), "rb").read()
    pos, cursor, replies = 1, 1, []
    while pos < len(raw):
        n = raw[pos + 1] | raw[pos + 2] << 8
        chunk = raw[pos + 3:pos + 3 + n]
        replies.append(RAW.execute_command("CF.LOADCHUNK", "cfold", cursor, chunk))
        pos, cursor = pos + 3 + n, cursor + 1
    d = {**info_dict("CF.INFO", "cfold"), **info_dict("FILTERLAB.INFO", "cfold")}
    check(all(x == b"OK" for x in replies) and d["Number of filters"] == 2 and
          d["Number of items inserted"] == 24 and d["Slots"] == 16 and d["Capacity"] == 14 and
          0 < float(d["Fill"]) <= 1,
          f"a format 1 CF value loads, its capacity reported at the sizing load: {d}")
    check(cf.add("cfold", "more") == 1 and cf.count("cfold", "more") == 1,
          "a format 1 CF value takes adds and counts")
    # FPBITS and the default width: test_cf_width.py.


def test_single_equals_batch(r):
    """The one-item commands (their own code paths: BF.ADD, BF.EXISTS, CF.EXISTS, CF.ADDNX)
    answer as the batch ones, on chains grown to several filters so the one-key lookups
    must reach the older ones, with batches on both sides of the module's inline batch
    size (128 items)."""
    r = RAW
    keys = items("sb", 900)
    probe = keys[::3] + items("sb-absent", 300)
    # Per type: its keys' stem, reserve arguments, the one-key add, the batch add and the
    # words before its items, and how many of the 920 adds must be new.
    for kind, stem, reserve, add, batch, words, least in (
            ("BF", "sb", (0.01, 50), "BF.ADD", "BF.MADD", (), 890),
            ("CF", "sc", (64, "EXPANSION", 2), "CF.ADDNX", "CF.INSERTNX", ("ITEMS",), 880)):
        first, second = f"{stem}1", f"{stem}2"
        for name in (first, second):
            r.execute_command(f"{kind}.RESERVE", name, *reserve)
        one = [r.execute_command(add, first, k) for k in keys + keys[:20]]
        many = []
        for part in chunked(keys + keys[:20], 200):
            many += r.execute_command(batch, second, *words, *part)
        check(one == many and sum(one) >= least, f"{add} one by one = {batch}")
        filters = info_dict(f"{kind}.INFO", first, r)["Number of filters"]
        check(filters >= 3, f"{kind} chain grew to {filters} filters")
        single = [r.execute_command(f"{kind}.EXISTS", first, k) for k in probe]
        check(single == r.execute_command(f"{kind}.MEXISTS", first, *probe) and
              single == sum((r.execute_command(f"{kind}.MEXISTS", first, *part)
                             for part in chunked(probe, 100)), []) and
              all(single[:300]),
              f"{kind}.EXISTS = {kind}.MEXISTS (600 and 100 at a time), no false negative")
        check(r.execute_command(f"{kind}.EXISTS", f"{stem}-missing", "x") == 0,
              f"{kind}.EXISTS on a missing key")


def test_cms(r):
    cms = r.cms()
    check(cms.initbydim("dim", 1000, 5) is True, "CMS.INITBYDIM replies OK")
    check(cms.initbyprob("prob", 0.001, 0.01) is True, "CMS.INITBYPROB replies OK")
    check(refused(cms.initbydim, "dim", 10, 2, match="key already exists"),
          "CMS.INITBYDIM on an existing key")
    check(cms.incrby("dim", ["a", "b", "a"], [5, 2, 3]) == [8, 2, 8],
          "CMS.INCRBY replies the estimates after the update")
    check(cms.query("dim", "a", "b", "zz") == [8, 2, 0], "CMS.QUERY")
    info = cms.info("dim")
    check(info.width == 1000 and info.depth == 5 and info.count == 10, f"CMS.INFO {vars(info)}")
    pinfo = cms.info("prob")
    check(pinfo.width == 2719 and pinfo.depth == 5,
          f"CMS.INITBYPROB sizes w = ceil(e / error), d = ceil(ln(1 / prob)): {vars(pinfo)}")
    cms.initbydim("other", 1000, 5)
    cms.incrby("other", ["a", "c"], [1, 7])
    cms.initbydim("sum", 1000, 5)
    check(cms.merge("sum", 2, ["dim", "other"]) is True, "CMS.MERGE replies OK")
    check(cms.query("sum", "a", "b", "c") == [9, 2, 7], "CMS.MERGE sums")
    check(cms.merge("sum", 2, ["dim", "other"], [3, 2]) is True, "CMS.MERGE WEIGHTS")
    check(cms.query("sum", "a", "b", "c") == [26, 6, 14], "CMS.MERGE WEIGHTS 3, 2")
    check(cms.info("sum").count == 3 * 10 + 2 * 8, "CMS.MERGE WEIGHTS count")
    keys = RAW.command_getkeys("CMS.MERGE", "sum", 2, "dim", "other", "WEIGHTS", 1, 2)
    check([k.decode() if isinstance(k, bytes) else k for k in keys] == ["sum", "dim", "other"],
          "CMS.MERGE declares its source keys (Redis Cluster checks their slots)")
    cms.initbydim("narrow", 10, 5)
    check(refused(cms.merge, "sum", 2, ["dim", "narrow"], match="width/depth"),
          "CMS.MERGE of different dimensions")
    check(cms.query("sum", "a") == [26], "a refused merge leaves the destination unchanged")
    check(refused(cms.query, "missing", "a", match="does not exist"), "CMS.QUERY missing key")
    # Never below the true count.
    rnd = random.Random(3)
    truth = {}
    cms.initbydim("big", 200, 4)
    for part in chunked([f"k{rnd.randrange(2000)}" for _ in range(5000)], 250):
        cms.incrby("big", part, [1] * len(part))
        for k in part:
            truth[k] = truth.get(k, 0) + 1
    ks = list(truth)
    est = []
    for part in chunked(ks, 500):
        est += cms.query("big", *part)
    check(all(e >= truth[k] for k, e in zip(ks, est)), "CMS: no estimate below the true count")


def test_topk(r):
    tk = r.topk()
    check(tk.reserve("tk", 3, 50, 4, 0.9) is True, "TOPK.RESERVE replies OK")
    check(refused(tk.reserve, "tk", 3, 50, 4, 0.9, match="key already exists"),
          "TOPK.RESERVE on an existing key")
    check(tk.add("tk", "a", "b", "c") == [None, None, None], "TOPK.ADD: nil when none expelled")
    tk.incrby("tk", ["a", "b"], [10, 5])
    out = tk.incrby("tk", ["d"], [20])
    check(out == ["c"], f"TOPK.INCRBY reports the expelled item: {out}")
    check(tk.query("tk", "a", "c", "d") == [1, 0, 1], "TOPK.QUERY")
    check(tk.count("tk", "a", "d") == [11, 20], "TOPK.COUNT")
    check(tk.list("tk") == ["d", "a", "b"], f"TOPK.LIST {tk.list('tk')}")
    check(tk.list("tk", withcount=True) == ["d", 20, "a", 11, "b", 6], "TOPK.LIST WITHCOUNT")
    info = tk.info("tk")
    check(info.k == 3 and info.width == 50 and info.depth == 4 and float(info.decay) == 0.9,
          f"TOPK.INFO {vars(info)}")
    r.execute_command("TOPK.RESERVE", "dflt", 5)
    info = tk.info("dflt")
    check(info.width == 8 and info.depth == 7 and float(info.decay) == 0.9,
          "TOPK.RESERVE defaults: width 8, depth 7, decay 0.9")
    check(refused(tk.add, "missing", "a", match="does not exist"), "TOPK.ADD missing key")
    test_topk_expelled(r)


def test_topk_expelled(r):
    """TOPK.ADD / TOPK.INCRBY's expelled item is the one TOPK.LIST lost with the add (nil when
    it lost none), through many evictions, repeated items, the empty item and an item too
    long to be kept (counted, never listed); one multi-item TOPK.ADD replies as its items
    added one by one; TOPK.QUERY is membership of TOPK.LIST; no count below the truth."""
    r = RAW  # bytes replies whatever callbacks r.topk() installed
    rnd = random.Random(11)
    long_item = "L" * 5000
    names = [f"i{n}" + ("x" * 200 if n % 9 == 0 else "") for n in range(60)] + ["", long_item]
    stream = [names[min(int(len(names) * rnd.random() ** 2), len(names) - 1)] for _ in range(600)]
    r.execute_command("TOPK.RESERVE", "tkx", 5, 20, 3, 0.9)
    r.execute_command("TOPK.RESERVE", "tky", 5, 20, 3, 0.9)
    truth, expelled, bad = {}, 0, []
    for i, item in enumerate(stream):
        before = [x.decode() for x in r.execute_command("TOPK.LIST", "tkx")]
        if i % 3 == 0:
            inc = rnd.choice([0, 1, 7])
            out = r.execute_command("TOPK.INCRBY", "tkx", item, inc)[0]
        else:
            inc = 1
            out = r.execute_command("TOPK.ADD", "tkx", item)[0]
        truth[item] = truth.get(item, 0) + inc
        if out is not None:
            out = out.decode()
        after = [x.decode() for x in r.execute_command("TOPK.LIST", "tkx")]
        left = [x for x in before if x not in after]
        if out is not None:
            expelled += 1
        if left != ([out] if out is not None else []):
            bad.append((i, item[:20], out, left))
    check(not bad, f"TOPK expelled = the item TOPK.LIST lost: {bad[:3]}")
    check(expelled > 20, f"TOPK: evictions exercised ({expelled})")
    listed = [x.decode() for x in r.execute_command("TOPK.LIST", "tkx")]
    check(long_item not in listed, "TOPK: an item past 4096 bytes is never listed")
    q = r.execute_command("TOPK.QUERY", "tkx", *names)
    check(q == [int(n in listed) for n in names], "TOPK.QUERY = TOPK.LIST membership")
    counts = r.execute_command("TOPK.COUNT", "tkx", *truth)
    check(all(c >= truth[n] for n, c in zip(truth, counts)), "TOPK.COUNT never below the truth")
    ones = [r.execute_command("TOPK.ADD", "tky", item)[0] for item in stream[:300]]
    r.execute_command("DEL", "tky")
    r.execute_command("TOPK.RESERVE", "tky", 5, 20, 3, 0.9)
    many = r.execute_command("TOPK.ADD", "tky", *stream[:300])
    check(many == ones, "TOPK.ADD of many items = the items added one by one")


# ---- bad input ---------------------------------------------------------------------------

def test_kernel():
    raw = RAW.execute_command("FILTERLAB.KERNEL")
    d = dict(zip(raw[0::2], raw[1::2]))
    supported = [k.decode() for k in d[b"Supported"]]
    check(d[b"Kernel"].decode() in supported + ["auto"] and d[b"Reason"], f"FILTERLAB.KERNEL {raw}")
    check(d[b"Wisdom"].decode().split(":")[0] in ("used", "ignored", "none", "off"),
          f"FILTERLAB.KERNEL Wisdom {raw}")
    entries = d[b"Entries"]
    check(len(entries) >= 37 and all(len(e) == 4 for e in entries), f"FILTERLAB.KERNEL {raw}")
    for name, size, kernel, reason in entries:
        check(size in (b"L1", b"L2", b"LLC", b"DRAM", b"all") or b"-" in size, f"size {size}")
        check(kernel.decode().split("-")[0] in supported and reason, f"entry {name} {kernel}")
    check(any(e[0] == b"bloom.contains.classic" for e in entries), "classic Bloom entry")
    RAW.execute_command("BF.ADD", "kern", "x")
    info = RAW.execute_command("FILTERLAB.INFO", "kern")
    check(info[:4] == [b"Type", b"bf", b"Kernel", d[b"Kernel"]], f"FILTERLAB.INFO {info}")


def test_errors(r):
    r.set("str", "x")
    wrong = [("BF.ADD", "str", "a"), ("BF.EXISTS", "str", "a"), ("BF.INFO", "str"),
             ("CF.ADD", "str", "a"), ("CF.EXISTS", "str", "a"), ("CMS.QUERY", "str", "a"),
             ("CF.COUNT", "str", "a"),
             ("TOPK.ADD", "str", "a"), ("BF.SCANDUMP", "str", 0), ("BF.CARD", "str")]
    r.execute_command("BF.RESERVE", "abf", 0.01, 100)
    wrong += [("CF.ADD", "abf", "a"), ("CMS.INCRBY", "abf", "a", 1), ("TOPK.LIST", "abf")]
    for cmd in wrong:
        check(refused(r.execute_command, *cmd, match="WRONGTYPE"), f"WRONGTYPE for {cmd}")
    bad = [
        (("BF.RESERVE", "k", 0.01), "wrong number"),
        (("BF.RESERVE", "k", "abc", 100), "bad error rate"),
        (("BF.RESERVE", "k", 0.01, "x"), "bad capacity"),
        (("BF.RESERVE", "k", 0.01, -5), "bad capacity"),
        (("BF.RESERVE", "k", 1.5, 100), "error rate"),
        (("BF.RESERVE", "k", 0, 100), "error rate"),
        (("BF.RESERVE", "k", "nan", 100), "bad error rate"),
        (("BF.RESERVE", "k", 0.01, 0), "capacity"),
        (("BF.RESERVE", "k", 0.01, 100, "EXPANSION", 0), "expansion"),
        (("BF.RESERVE", "k", 0.01, 100, "EXPANSION", "x"), "bad expansion"),
        (("BF.RESERVE", "k", 0.01, 100, "BOGUS"), "unknown argument"),
        (("BF.RESERVE", "k", 0.01, 100, "VARIANT", "cuckoo"), "bad variant"),
        (("BF.RESERVE", "k", 0.01, 100, "VARIANT", "nope"), "bad variant"),
        (("BF.RESERVE", "k", 1e-300, 10 ** 15), "Insufficient memory to create filter"),
        (("BF.RESERVE", "k", 0.01, 100, "NONSCALING", "EXPANSION", 2), "cannot expand"),
        # BF.INSERT reads the options BF.RESERVE takes, and its own.
        (("BF.INSERT", "k", "EXPANSION", 2, "NONSCALING", "ITEMS", "a"), "cannot expand"),
        (("BF.INSERT", "k", "EXPANSION", "x", "ITEMS", "a"), "bad expansion"),
        (("BF.INSERT", "k", "EXPANSION", 0, "ITEMS", "a"), "expansion"),
        (("BF.INSERT", "k", "VARIANT", "nope", "ITEMS", "a"), "bad variant"),
        (("BF.INSERT", "k", "CAPACITY", "x", "ITEMS", "a"), "bad capacity"),
        (("BF.INSERT", "k", "ERROR", 2, "ITEMS", "a"), "error rate"),
        (("BF.INSERT", "k", "NOCREATE", "CAPACITY", 10, "ITEMS", "a"), "NOCREATE cannot"),
        (("BF.INSERT", "k", "BOGUS", "ITEMS", "a"), "unknown argument"),
        (("BF.INSERT", "k", "NOCREATE", "ITEMS", "a"), "not found"),
        (("BF.INSERT", "k", "ITEMS"), "wrong number"),
        (("BF.ADD", "k"), "wrong number"),
        (("BF.MADD", "k"), "wrong number"),
        (("BF.INSERT", "k", "ITEMS"), "wrong number"),
        (("BF.INSERT", "k", "CAPACITY", "x", "ITEMS", "a"), "bad capacity"),
        (("BF.INSERT", "abf", "NOCREATE", "CAPACITY", 10, "ITEMS", "a"), "NOCREATE"),
        (("CF.INSERT", "k", "NOCREATE", "CAPACITY", 10, "ITEMS", "a"), "NOCREATE"),
        (("BF.INFO", "abf", "BOGUS"), "invalid"),
        (("BF.INFO", "missing"), "not found"),
        (("BF.SCANDUMP", "abf", "x"), "must be numeric"),
        (("BF.LOADCHUNK", "k2", 1, "garbage"), "received bad data"),
        (("BF.LOADCHUNK", "k2", 0, "garbage"), "must be numeric"),
        (("CF.RESERVE", "k", 0), "capacity"),
        (("CF.RESERVE", "k", "x"), "capacity"),
        (("CF.RESERVE", "k", 100, "BUCKETSIZE", 0), "BUCKETSIZE: value must be"),
        (("CF.RESERVE", "k", 100, "MAXITERATIONS", 0), "MAXITERATIONS: value must be"),
        (("CF.RESERVE", "k", 100, "EXPANSION", 40000), "expansion"),
        (("CF.RESERVE", "k", 100, "FPBITS", 10), "FPBITS: value must be"),
        (("CF.RESERVE", "k", 100, "BOGUS", 1), "unknown argument"),
        (("CF.RESERVE", "k", 100, "EXPANSION"), "wrong number"),
        (("CF.RESERVE", "k", 10 ** 18), "insufficient memory"),
        (("CF.INSERT", "k", "CAPACITY", 0, "ITEMS", "a"), "capacity"),
        (("CF.INFO", "missing"), "not found"),
        (("CMS.INITBYDIM", "k", 0, 5), "width"),
        (("CMS.INITBYDIM", "k", 10, 0), "depth"),
        (("CMS.INITBYDIM", "k", 10, 1000), "depth"),
        (("CMS.INITBYPROB", "k", 2, 0.1), "overestimation"),
        (("CMS.INITBYPROB", "k", 0.1, 0), "prob"),
        (("CMS.INCRBY", "cmsk", "a", "x"), "parse"),
        (("CMS.INCRBY", "cmsk", "a", -1), "cannot be negative"),
        (("CMS.INCRBY", "cmsk", "a"), "wrong number"),
        (("CMS.MERGE", "cmsk", 0, "a"), "numkeys"),
        (("CMS.MERGE", "cmsk", 5, "a"), "numkeys"),
        (("CMS.MERGE", "cmsk", 1, "cmsk", "WEIGHTS"), "keys/weights"),
        (("CMS.MERGE", "cmsk", 1, "cmsk", "WEIGHTS", "x"), "invalid weight"),
        (("TOPK.RESERVE", "k", 0), "invalid k"),
        (("TOPK.RESERVE", "k", 3, 0, 4, 0.9), "width"),
        (("TOPK.RESERVE", "k", 3, 10, 4, 1.5), "decay"),
        (("TOPK.RESERVE", "k", 3, 10), "wrong number"),
        (("TOPK.LIST", "tkk", "BOGUS"), "unknown argument"),
        (("FILTERLAB.INFO", "str"), "WRONGTYPE"),
        (("FILTERLAB.INFO", "missing"), "not found"),
    ]
    r.execute_command("CMS.INITBYDIM", "cmsk", 10, 2)
    r.execute_command("TOPK.RESERVE", "tkk", 2)
    for cmd, match in bad:
        check(refused(r.execute_command, *cmd, match=match), f"{cmd} refused with '{match}'")
    check(not r.exists("k") and not r.exists("k2"), "refused commands created no key")
    check(r.ping(), "the server still answers PING after every bad command")


# ---- persistence -------------------------------------------------------------------------

def fill_every_type(r, tag):
    """One key per type, filled; returns a function that checks a server holds them."""
    r = redis.Redis(connection_pool=r.connection_pool)  # no helper reply callbacks
    bf_keys, cf_keys = items(f"{tag}bf", 3000), items(f"{tag}cf", 3000)
    r.execute_command("BF.RESERVE", f"{tag}:bf", 0.01, 500)
    for part in chunked(bf_keys, 500):
        r.execute_command("BF.MADD", f"{tag}:bf", *part)
    r.execute_command("CF.RESERVE", f"{tag}:cf", 1000)
    for part in chunked(cf_keys, 500):
        r.execute_command("CF.INSERT", f"{tag}:cf", "ITEMS", *part)
    r.execute_command("CF.DEL", f"{tag}:cf", cf_keys[0])
    r.execute_command("CMS.INITBYDIM", f"{tag}:cms", 500, 4)
    r.execute_command("CMS.INCRBY", f"{tag}:cms", "a", 7, "b", 3)
    r.execute_command("TOPK.RESERVE", f"{tag}:tk", 2, 50, 3, 0.8)
    r.execute_command("TOPK.INCRBY", f"{tag}:tk", "x", 9, "y", 4, "z", 1)

    def replies(c):
        """What must survive the trip: the replies that describe each value."""
        return {
            "bf_info": c.execute_command("BF.INFO", f"{tag}:bf")[:10],
            "cf_info": c.execute_command("CF.INFO", f"{tag}:cf")[:16],
            "cms": c.execute_command("CMS.QUERY", f"{tag}:cms", "a", "b", "c"),
            "cms_info": c.execute_command("CMS.INFO", f"{tag}:cms"),
            "tk": c.execute_command("TOPK.LIST", f"{tag}:tk", "WITHCOUNT"),
            "tk_info": c.execute_command("TOPK.INFO", f"{tag}:tk"),
        }
    want = replies(r)

    def verify(s, what):
        s = redis.Redis(connection_pool=s.connection_pool)
        ok = True
        for part in chunked(bf_keys, 500):
            ok &= check(all(r2 == 1 for r2 in s.execute_command("BF.MEXISTS", f"{tag}:bf", *part)),
                        f"{what}: BF items all found")
        for part in chunked(cf_keys[1:], 500):
            ok &= check(all(r2 == 1 for r2 in s.execute_command("CF.MEXISTS", f"{tag}:cf", *part)),
                        f"{what}: CF items all found")
        got = replies(s)
        for k in want:
            ok &= check(got[k] == want[k], f"{what}: {k} {got[k]} != {want[k]}")
        return ok

    return verify


def test_rdb_reload(r):
    verify = fill_every_type(r, "rdb")
    check(r.execute_command("DEBUG", "RELOAD") in (b"OK", True, "OK"), "DEBUG RELOAD")
    verify(r, "after DEBUG RELOAD")
    for key in ("rdb:bf", "rdb:cf", "rdb:cms", "rdb:tk"):
        m = r.memory_usage(key)
        check(m is not None and m > 0, f"MEMORY USAGE {key} = {m}")
    bf_bytes = r.memory_usage("rdb:bf")
    r.sadd("set", *items("rdbbf", 3000))
    check(bf_bytes * 20 < r.memory_usage("set"), "MEMORY USAGE: the filter is far below a set")


def test_corrupt_rdb_payload(r):
    """DUMP a value, flip bytes of its payload, RESTORE it with the RDB checksum check off:
    the module's loader refuses it (the library validates every field and checksum)."""
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 1)
    try:
        for key in ("rdb:bf", "rdb:cf", "rdb:cms", "rdb:tk"):
            dump = r.dump(key)
            check(r.restore(f"{key}:copy", 0, dump) in (True, b"OK"), f"RESTORE {key} intact")
            for pos in (len(dump) // 2, len(dump) - 20, 30):
                bad = bytearray(dump)
                bad[pos] ^= 0x5a
                check(refused(r.restore, f"{key}:bad", 0, bytes(bad)),
                      f"RESTORE of {key} with byte {pos} flipped is refused")
                check(not r.exists(f"{key}:bad"), "a refused RESTORE creates no key")
            check(refused(r.restore, f"{key}:short", 0, dump[:len(dump) // 3]),
                  f"RESTORE of a truncated {key} is refused")
    finally:
        r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 0)
    check(r.ping(), "PING after corrupt RESTOREs")


def test_aof_rewrite(srv):
    r = srv.client()
    # Without the RDB preamble the rewritten base AOF is commands: each value's aof_rewrite
    # callback writes them (with the preamble it would be the RDB save instead, tested by
    # DEBUG RELOAD).
    r.config_set("aof-use-rdb-preamble", "no")
    r.config_set("appendonly", "yes")
    wait_for(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0 and
             r.info("persistence").get("aof_rewrite_scheduled", 0) == 0, "initial AOF")
    verify = fill_every_type(r, "aof")
    r.bgrewriteaof()
    wait_for(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0 and
             r.info("persistence").get("aof_rewrite_scheduled", 0) == 0 and
             r.info("persistence")["aof_last_bgrewrite_status"] == "ok", "BGREWRITEAOF")
    base = b""
    aof_dir = os.path.join(srv.dir, "appendonlydir")
    for name in os.listdir(aof_dir):
        if name.endswith(".base.aof"):
            base += open(os.path.join(aof_dir, name), "rb").read()
    for cmd in (b"BF.LOADCHUNK", b"CF.LOADCHUNK", b"CMS.LOADCHUNK", b"TOPK.LOADCHUNK"):
        check(cmd in base, f"the rewritten AOF rebuilds values with {cmd.decode()}")
    # Writes after the rewrite land in the incremental AOF on top of the rewritten base.
    r.execute_command("BF.ADD", "aof:after", "after-rewrite")
    srv.args += ["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]
    srv.restart()
    r = srv.client()
    verify(r, "after BGREWRITEAOF + restart")
    check(r.execute_command("BF.EXISTS", "aof:after", "after-rewrite") == 1,
          "a write after the rewrite survives the restart")


def wait_for(cond, what, timeout=60):
    import time
    end = time.monotonic() + min(timeout, DEADLINE.left())
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    check(False, f"timed out waiting for {what}")
    return False


# ---- SCANDUMP / LOADCHUNK -------------------------------------------------------------

def dump_chunks(r, cmd, key):
    chunks, it = [], 0
    while True:
        it, data = r.execute_command(cmd, key, it)
        if it == 0:
            return chunks
        chunks.append((it, data))


def test_scandump(r):
    bf, cf = r.bf(), r.cf()
    # A filter of several MB: 2M capacity at 0.001.
    bf.create("sbig", 0.001, 2_000_000)
    keys = items("s", 20000)
    for part in chunked(keys, 1000):
        bf.madd("sbig", *part)
    chunks = []
    it = 0
    while True:  # the client's own helper, unchanged
        it, data = bf.scandump("sbig", it)
        if it == 0:
            break
        chunks.append((it, data))
    total = sum(len(d) for _, d in chunks)
    check(len(chunks) >= 3 and total > 3_000_000, f"SCANDUMP: {len(chunks)} chunks, {total} B")
    # A corrupt chunk, a chunk of another dump, and an out-of-order chunk are refused (with
    # RedisBloom's texts: "received bad data", "invalid offset - no link found") and create
    # nothing.
    it1, d1 = chunks[0]
    bad = bytearray(d1)
    bad[len(bad) // 2] ^= 1
    check(refused(bf.loadchunk, "copy", it1, bytes(bad), match="received bad data"),
          "LOADCHUNK of a corrupt first chunk")
    check(refused(bf.loadchunk, "copy", chunks[1][0], chunks[1][1], match="invalid offset"),
          "LOADCHUNK starting with the second chunk")
    check(not r.exists("copy"), "refused chunks create no key")
    for i, (it, data) in enumerate(chunks):
        if i == 1:
            check(refused(bf.loadchunk, "copy", chunks[2][0], chunks[2][1], match="invalid offset"),
                  "LOADCHUNK skipping a chunk")
            bad = bytearray(data)
            bad[-1] ^= 0x80
            check(refused(bf.loadchunk, "copy", it, bytes(bad), match="received bad data"),
                  "LOADCHUNK of a corrupt middle chunk")
        if i == len(chunks) - 1:
            check(not r.exists("copy"), "the key appears only with the last chunk")
        check(bf.loadchunk("copy", it, data) in (True, b"OK", "OK"), f"LOADCHUNK {it}")
    check(all(all(x == 1 for x in bf.mexists("copy", *p)) for p in chunked(keys, 1000)),
          "the loaded filter finds every item")
    check(bf.info("copy").insertedNum == bf.info("sbig").insertedNum, "the copy's item count")
    neg = items("neg", 5000)
    check(bf.mexists("copy", *neg) == bf.mexists("sbig", *neg), "copy answers as the original")
    # A filter modified during its dump: the chunks after the write belong to another
    # serialization, and the loader refuses to mix them.
    it0, d0 = bf.scandump("sbig", 0)
    bf.add("sbig", "written-during-the-dump")
    it1, d1 = bf.scandump("sbig", it0)
    check(bf.loadchunk("mixed", it0, d0) in (True, b"OK", "OK"), "first chunk of the dump")
    check(refused(bf.loadchunk, "mixed", it1, d1, match="invalid offset"),
          "a chunk serialized after a write does not continue the dump before it")
    check(not r.exists("mixed"), "no key from a mixed dump")
    # Loading onto an existing key replaces it; onto a key of another type is WRONGTYPE.
    bf.add("existing", "old")
    for it, data in chunks:
        bf.loadchunk("existing", it, data)
    check(bf.info("existing").capacity == 2_000_000 and
          bf.info("existing").insertedNum == bf.info("copy").insertedNum,
          "LOADCHUNK replaces an existing filter")
    r.set("str2", "x")
    check(refused(bf.loadchunk, "str2", chunks[0][0], chunks[0][1], match="WRONGTYPE"),
          "LOADCHUNK onto a string")
    # A BF chunk is not a CF chunk (RedisBloom's text for a first chunk it cannot load).
    check(refused(cf.loadchunk, "cfcopy", chunks[0][0], chunks[0][1],
                  match="Couldn't create filter!"),
          "CF.LOADCHUNK of a BF chunk")
    # CF: the same round trip.
    cf.create("cfbig", 2_000_000)
    ckeys = items("cs", 20000)
    for part in chunked(ckeys, 1000):
        cf.insert("cfbig", part)
    cchunks = dump_chunks(r, "CF.SCANDUMP", "cfbig")
    check(len(cchunks) >= 3, f"CF.SCANDUMP: {len(cchunks)} chunks")
    for it, data in cchunks:
        cf.loadchunk("cfcopy", it, data)
    check(all(all(x == 1 for x in cf.mexists("cfcopy", *p)) for p in chunked(ckeys, 1000)),
          "the loaded cuckoo filter finds every item")
    check(cf.mexists("cfcopy", *neg) == cf.mexists("cfbig", *neg), "CF copy answers alike")
    # CMS and TOPK (filterlab's extension): one chunk each.
    r.execute_command("CMS.INITBYDIM", "c1", 100, 3)
    r.execute_command("CMS.INCRBY", "c1", "a", 4)
    for it, data in dump_chunks(r, "CMS.SCANDUMP", "c1"):
        r.execute_command("CMS.LOADCHUNK", "c2", it, data)
    check(r.execute_command("CMS.QUERY", "c2", "a") == [4], "CMS.SCANDUMP/LOADCHUNK")
    r.execute_command("TOPK.RESERVE", "t1", 2)
    r.execute_command("TOPK.ADD", "t1", "a", "a", "b")
    for it, data in dump_chunks(r, "TOPK.SCANDUMP", "t1"):
        r.execute_command("TOPK.LOADCHUNK", "t2", it, data)
    check(RAW.execute_command("TOPK.LIST", "t2") == [b"a", b"b"], "TOPK.SCANDUMP/LOADCHUNK")


# ---- replication -------------------------------------------------------------------------

def test_replication(primary, tmp):
    r = redis.Redis(connection_pool=primary.client().connection_pool)
    with RedisServer(module=MODULE, tmp=tmp, name="replica") as rep:
        s = rep.client()
        s.replicaof("127.0.0.1", primary.port)
        wait_for(lambda: s.info("replication").get("master_link_status") == "up", "replica link")
        verify = fill_every_type(r, "repl")
        r.execute_command("BF.RESERVE", "repl:ns", 0.01, 5, "NONSCALING")
        r.execute_command("BF.MADD", "repl:ns", *items("ns", 10))
        r.execute_command("CMS.INITBYDIM", "repl:sum", 500, 4)
        r.execute_command("CMS.MERGE", "repl:sum", 1, "repl:cms", "WEIGHTS", 5)
        r.execute_command("BF.ADD", "repl:auto", "x")  # auto-created on both sides
        check(r.execute_command("WAIT", 1, 10000) == 1, "WAIT: the replica acknowledged")
        verify(s, "on the replica")
        check(s.execute_command("CMS.QUERY", "repl:sum", "a") == [35], "replicated CMS.MERGE")
        check(s.execute_command("BF.INFO", "repl:ns")[:8] ==
              r.execute_command("BF.INFO", "repl:ns")[:8], "replicated non-scaling filter")
        check(s.execute_command("BF.EXISTS", "repl:auto", "x") == 1, "replicated BF.ADD")
        neg = items("repneg", 3000)
        check(s.execute_command("BF.MEXISTS", "repl:bf", *neg) ==
              r.execute_command("BF.MEXISTS", "repl:bf", *neg), "same answers on the replica")
        check(s.execute_command("CF.MEXISTS", "repl:cf", *neg) ==
              r.execute_command("CF.MEXISTS", "repl:cf", *neg), "same CF answers on the replica")
        check(s.execute_command("DEBUG", "DIGEST") == r.execute_command("DEBUG", "DIGEST"),
              "DEBUG DIGEST of the replica equals the primary's (byte-equal values)")
        # LOADCHUNK replicates too.
        for it, data in dump_chunks(r, "BF.SCANDUMP", "repl:bf"):
            r.execute_command("BF.LOADCHUNK", "repl:bfcopy", it, data)
        r.execute_command("WAIT", 1, 10000)
        check(s.execute_command("BF.INFO", "repl:bfcopy")[:8] ==
              r.execute_command("BF.INFO", "repl:bf")[:8], "replicated LOADCHUNK")
        # A full resync (RDB transfer) of a new replica carries every type.
        s.replicaof("no", "one")
        s.flushall()
        s.replicaof("127.0.0.1", primary.port)
        wait_for(lambda: s.info("replication").get("master_link_status") == "up", "resync")
        r.execute_command("WAIT", 1, 10000)
        verify(s, "on the replica after a full resync")
        check(s.execute_command("DEBUG", "DIGEST") == r.execute_command("DEBUG", "DIGEST"),
              "DEBUG DIGEST after a full resync")


def main():
    global RAW
    with RedisServer(module=MODULE) as srv:
        r = srv.client()
        RAW = srv.client()
        print("redis-server", r.info("server")["redis_version"], "on port", srv.port)
        for name, fn in (("bf", test_bf), ("cf", test_cf),
                         ("single = batch", test_single_equals_batch), ("cms", test_cms),
                         ("topk", test_topk), ("kernel", lambda _r: test_kernel()),
                         ("errors", test_errors),
                         ("rdb", test_rdb_reload), ("corrupt rdb", test_corrupt_rdb_payload),
                         ("scandump", test_scandump)):
            DEADLINE.left()
            before = checks.failures
            fn(r)
            print(f"{'ok' if checks.failures == before else 'FAILED'} {name}")
        DEADLINE.left()
        before = checks.failures
        test_replication(srv, srv.tmp)
        print(f"{'ok' if checks.failures == before else 'FAILED'} replication")
        before = checks.failures
        test_aof_rewrite(srv)
        print(f"{'ok' if checks.failures == before else 'FAILED'} aof rewrite")
        log = open(srv.log, errors="replace").read()
        check(log.count("non-scaling Bloom filter 'ns' reached its capacity") == 1,
              "the full non-scaling filter was logged once")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
