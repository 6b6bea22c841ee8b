"""ScalableBloom, CountMin and HyperLogLog."""
import collections
import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

import filterlab as fl


@given(keys=st.lists(st.binary(max_size=16), max_size=400))
def test_sbf_no_false_negatives(keys):
    s = fl.ScalableBloom(50, 0.01)
    s.add_many(keys)
    if keys:
        assert s.contains_many(keys).all()
    assert len(s) <= len(set(keys))


def test_sbf_grows_and_round_trips(tmp_path):
    s = fl.ScalableBloom(1000, 0.01, growth=2, variant="classic", seed=9)
    keys = np.arange(20000, dtype=np.uint64)
    added = s.add_many(keys)
    assert added.dtype == np.bool_ and added.sum() == len(s)
    assert s.contains_many(keys).all()
    assert all(int(k) in s for k in keys[:100])
    info = s.info()
    assert isinstance(info, fl.ScalableBloomInfo) and len(info.filters) >= 4
    assert info.predicted_fpr <= info.error_rate
    assert sum(sf.items for sf in info.filters) == info.items
    assert s.add(int(keys[0])) is False  # already reported: BF.ADD's 0
    # Int keys hash as Filter hashes them.
    assert s.hash(5) == fl.hash_u64(5, 9)
    hashes = np.array([s.hash(int(k)) for k in keys[:1000]], dtype=np.uint64)
    assert s.contains_many(hashes, hashes=True).all()
    t = fl.ScalableBloom.from_bytes(s.to_bytes())
    assert t.to_bytes() == s.to_bytes()
    s.save(tmp_path / "c.sbf")
    assert fl.ScalableBloom.load(tmp_path / "c.sbf").info() == s.info()
    assert pickle.loads(pickle.dumps(s)).to_bytes() == s.to_bytes()
    s.clear()
    assert len(s) == 0 and len(s.info().filters) == 1


def test_sbf_load_cap_bounds_growth(tmp_path):
    # A chain whose next sub-filter is huge: tightening 1e-98 gives it a target rate of
    # 1e-100, about 10 MB for 2,000 keys, and max_bytes 0 (none) is stored in its bytes.
    s = fl.ScalableBloom(1000, 0.01, tightening=1e-98)
    keys = iter(range(10**6))
    while len(s) < 1000:
        s.add(next(keys))
    held = list(range(next(keys)))
    data = s.to_bytes()
    (tmp_path / "c.sbf").write_bytes(data)
    cap = 64 << 10
    for t in (fl.ScalableBloom.from_bytes(data, max_bytes=cap),
              fl.ScalableBloom.load(tmp_path / "c.sbf", max_bytes=cap)):
        info = t.info()
        assert (info.byte_limit, info.max_bytes) == (cap, 0)
        fresh = next(k for k in range(10**6, 2 * 10**6) if k not in t)
        with pytest.raises(ValueError):
            t.add(fresh)
        with pytest.raises(ValueError):
            t.add_many(np.arange(10**6, 10**6 + 16, dtype=np.uint64))
        after = t.info()
        assert (len(t), len(after.filters), after.bytes) == (1000, 1, info.bytes)
        assert all(k in t for k in held)
        assert t.to_bytes() == data
    # The holder may lift its limit; the add then grows the chain past the old cap.
    t.set_byte_limit(None)
    assert t.add(fresh) is True and t.info().bytes > cap
    with pytest.raises((ValueError, OverflowError)):
        t.set_byte_limit(-1)
    # Without a cap the file is trusted (its own max_bytes, none here, applies).
    assert fl.ScalableBloom.from_bytes(data).info().byte_limit == 0


def test_sbf_nonscaling_full():
    s = fl.ScalableBloom(100, 0.01, scaling=False)
    with pytest.raises(fl.FullError):
        s.add_many(np.arange(1000, dtype=np.uint64))
    assert len(s) == 100


@given(items=st.lists(st.sampled_from([b"a", b"b", b"c", b"d", "e", "f"]), max_size=300))
def test_cms_never_underestimates(items):
    c = fl.CountMin(width=4, depth=2, topk=4)
    c.add_many(items)
    truth = collections.Counter(x.encode() if isinstance(x, str) else x for x in items)
    for k, n in truth.items():
        assert c[k] >= n
    assert c.total == len(items)
    est = c.query_many([b"a", b"b", b"zzz"])
    assert est.dtype == np.uint32
    assert list(est) == [c[b"a"], c[b"b"], c[b"zzz"]]


def test_cms_batches_increments_merge_top(tmp_path):
    c = fl.CountMin(epsilon=0.001, delta=0.01, seed=4, topk=5)
    keys = np.array([1, 2, 2, 3, 3, 3], dtype=np.uint64)
    c.add_many(keys)
    c.add_many(np.array([10, 10], dtype=np.uint64), np.array([100, 5], dtype=np.uint32))
    c.add_many([b"x", b"y"], increments=[7, 8])
    c.add("x", 3)
    assert list(c.query_many(np.array([1, 2, 3, 10], dtype=np.uint64))) == [1, 2, 3, 105]
    assert c[b"x"] == 10 and c["y"] == 8
    h = c.hash(3)
    assert c.query_hash(h) == 3
    assert list(c.query_many(np.array([h], dtype=np.uint64), hashes=True)) == [3]
    top = c.top()
    assert top[0] == ((10).to_bytes(8, "little"), 105)
    assert c.top(2) == top[:2]
    assert c.heavy_hitters(0.5) == [top[0]]
    d = fl.CountMin(epsilon=0.001, delta=0.01, seed=4)
    d.add(b"x", 1)
    e = c | d
    assert e[b"x"] == 11 and c[b"x"] == 10
    c |= d
    assert c[b"x"] == 11
    with pytest.raises(ValueError):
        c.merge(fl.CountMin(width=3, depth=3))
    info = c.info()
    assert isinstance(info, fl.CountMinInfo) and info.width == 2719 and info.depth == 5
    c.save(tmp_path / "s.cms")
    back = fl.CountMin.load(tmp_path / "s.cms")
    assert back.to_bytes() == c.to_bytes() and back.top() == c.top()
    assert pickle.loads(pickle.dumps(c)).to_bytes() == c.to_bytes()
    c.clear()
    assert c.total == 0


def test_hll_counts_merges_and_redis_strings():
    h = fl.HyperLogLog()
    assert h.add(b"a") is True and h.add(b"a") is False
    h.add_many([f"user-{i}" for i in range(5000)])
    n = h.count()
    assert abs(n - 5001) / 5001 < 0.05
    assert h.estimate() == n
    s = h.to_redis()
    assert s[:4] == b"HYLL"
    g = fl.HyperLogLog.from_redis(s)
    assert g.to_redis() == s and g.count() == n
    assert pickle.loads(pickle.dumps(h)).to_redis() == s
    other = fl.HyperLogLog()
    other.add_many(np.arange(10000, dtype=np.uint64))
    u = h | other
    assert abs(u.count() - 15001) / 15001 < 0.05
    h |= other
    assert h.count() == u.count()
    info = h.info()
    assert isinstance(info, fl.HyperLogLogInfo) and info.precision == 14
    small = fl.HyperLogLog(10)
    assert small.info().encoding == "dense" and small.precision == 10
    sparse = fl.HyperLogLog()
    sparse.add(b"k")
    assert sparse.info().encoding == "sparse"
    sparse.to_dense()
    assert sparse.info().encoding == "dense"
    for cut in range(0, len(s), 7):
        with pytest.raises(fl.FormatError):
            fl.HyperLogLog.from_redis(s[:cut])
    h.clear()
    assert h.count() == 0


def test_hll_int_keys_are_their_little_endian_bytes():
    a, b = fl.HyperLogLog(), fl.HyperLogLog()
    a.add_many(np.array([1, 2, 3], dtype=np.uint64))
    b.add_many([(i).to_bytes(8, "little") for i in (1, 2, 3)])
    assert a.to_redis() == b.to_redis()
