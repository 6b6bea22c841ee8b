"""Filter: every variant, batches, single keys, delete, union, files, info."""
import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

import filterlab as fl

VARIANTS = ["classic", "block512", "split256", "reg64", "cuckoo", "counting", "counting512"]
DELETABLE = {"cuckoo", "counting", "counting512"}

u64s = st.lists(st.integers(min_value=0, max_value=2**64 - 1), max_size=300)
byte_keys = st.lists(st.binary(max_size=40), max_size=200)
text_keys = st.lists(st.text(max_size=20), max_size=200)


@pytest.mark.parametrize("variant", VARIANTS)
@given(keys=u64s)
def test_no_false_negatives_u64(variant, keys):
    f = fl.Filter(n=1000, fpr=0.01, variant=variant)
    arr = np.array(keys, dtype=np.uint64)
    f.add_many(arr)
    assert f.contains_many(arr).all()
    assert all(k in f for k in keys)
    # The same keys as a Python list of ints hash the same way.
    assert f.contains_many(keys).all()


@pytest.mark.parametrize("variant", VARIANTS)
@given(keys=byte_keys, more=text_keys)
def test_no_false_negatives_bytes_and_str(variant, keys, more):
    f = fl.Filter(n=1000, fpr=0.01, variant=variant)
    f.add_many(keys)
    for k in more:
        f.add(k)
    if keys:
        assert f.contains_many(keys).all()
    if more:
        assert f.contains_many(more).all()
        # str keys are their UTF-8 bytes.
        assert f.contains_many([k.encode() for k in more]).all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_batch_equals_single_and_hash_paths(variant):
    f = fl.Filter(n=5000, fpr=0.05, variant=variant, seed=7)
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 2**63, size=5000, dtype=np.uint64)
    f.add_many(keys[:2500])
    probe = keys  # half present, half (mostly) absent
    batch = f.contains_many(probe)
    assert batch.dtype == np.bool_ and batch.shape == (5000,)
    single = np.array([f.contains(int(k)) for k in probe])
    assert (batch == single).all()
    hashes = np.array([f.hash(int(k)) for k in probe], dtype=np.uint64)
    assert (hashes == np.array([fl.hash_u64(int(k), 7) for k in probe], dtype=np.uint64)).all()
    assert (f.contains_many(hashes, hashes=True) == batch).all()
    assert all(f.contains_hash(int(h)) == b for h, b in zip(hashes[:200], batch[:200]))
    # Strided input: copied once, same answers.
    assert (f.contains_many(probe[::2]) == batch[::2]).all()
    # Measured FPR on the absent half stays near the target (loose: not a speed or FPR test).
    assert batch[2500:].mean() < 0.2


def test_zero_copy_reads_the_callers_buffer():
    f = fl.Filter(n=100, fpr=0.01)
    keys = np.arange(10, dtype=np.uint64)
    f.add_many(keys)
    view = memoryview(keys)  # the buffer protocol without NumPy in between
    assert f.contains_many(view).all()
    import array
    assert f.contains_many(array.array("Q", range(10))).all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_delete(variant):
    f = fl.Filter(n=1000, fpr=0.01, variant=variant)
    f.add(b"alpha")
    f.add(42)
    if variant in DELETABLE:
        assert f.can_delete
        f.delete(b"alpha")
        f.delete(42)
        assert b"alpha" not in f and 42 not in f
        with pytest.raises(KeyError):
            f.delete(b"alpha")
    else:
        assert not f.can_delete
        with pytest.raises(ValueError, match="not defined|variant"):
            f.delete(b"alpha")
        assert b"alpha" in f


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "cuckoo"])
def test_union(variant):
    a = fl.Filter(n=2000, fpr=0.01, variant=variant)
    b = fl.Filter(n=2000, fpr=0.01, variant=variant)
    ka = np.arange(0, 1000, dtype=np.uint64)
    kb = np.arange(5000, 6000, dtype=np.uint64)
    a.add_many(ka)
    b.add_many(kb)
    c = a | b
    assert c.contains_many(ka).all() and c.contains_many(kb).all()
    assert len(a) == 1000  # a | b leaves a alone
    a |= b
    assert a.contains_many(kb).all()
    d = fl.Filter(n=2000, fpr=0.01, variant=variant)
    d.merge(b)
    assert d.contains_many(kb).all()
    other = fl.Filter(n=50000, fpr=0.01, variant=variant)
    with pytest.raises(ValueError):
        a.merge(other)
    with pytest.raises(TypeError):
        a.merge("not a filter")


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "cuckoo"])
def test_union_predicts_from_the_fill(variant):
    # g |= f with f g's copy holds the same keys: the count is read back from the fill (a sum
    # of the counts predicted 12% for a 1% filter) and the prediction is the filter's own.
    n = 1_000_000
    keys = np.random.default_rng(7).integers(0, 2**64, size=n, dtype=np.uint64)
    f = fl.Filter(n=n, fpr=0.01, variant=variant)
    f.add_many(keys)
    alone = f.info()
    assert alone.keys == n and not alone.keys_estimated
    g = f.copy()
    g |= f
    both = g.info()
    assert both.keys_estimated and len(g) == both.keys
    assert abs(both.keys / n - 1) < 0.01
    assert abs(both.predicted_fpr / alone.predicted_fpr - 1) < 0.01
    # Two disjoint halves: what one filter of all the keys predicts.
    lo = fl.Filter(n=n, fpr=0.01, variant=variant)
    hi = fl.Filter(n=n, fpr=0.01, variant=variant)
    lo.add_many(keys[: n // 2])
    hi.add_many(keys[n // 2:])
    u = (lo | hi).info()
    assert u.keys_estimated and u.keys <= n
    assert abs(u.predicted_fpr / alone.predicted_fpr - 1) < 0.03
    # With an empty filter the count stays exact; clear() makes it exact again.
    e = fl.Filter(n=n, fpr=0.01, variant=variant)
    e |= f
    assert e.info().keys == n and not e.info().keys_estimated
    g.clear()
    assert not g.info().keys_estimated and len(g) == 0


def test_cuckoo_has_no_union_and_fills():
    a = fl.Filter(units=4, k=8, variant="cuckoo")
    with pytest.raises(ValueError):
        a.merge(fl.Filter(units=4, k=8, variant="cuckoo"))
    with pytest.raises(fl.FullError) as e:
        a.add_many(np.arange(10000, dtype=np.uint64))
    assert "inserted before" in str(e.value)
    assert 0 < len(a) < 10000


@pytest.mark.parametrize("k", [8, 11, 12, 13, 16])
def test_cuckoo_fingerprint_widths(k, tmp_path):
    # units and k: 4-slot buckets of k-bit fingerprints, 4 * k / 8 bytes each, or 12 + 4 (k - 4)
    # bits for the semi-sorted widths (11 and 13: the 4 slots' top nibbles in a 12-bit rank)
    bucket = (12 + 4 * (k - 4)) // 8 if k in (11, 13) else 4 * k // 8
    f = fl.Filter(units=3001, k=k, variant="cuckoo", seed=5)
    assert f.info().k == k and f.info().bytes == 3001 * bucket
    assert f.info().geometry.endswith("%d-bit fingerprints" % k)
    keys = np.arange(10000, dtype=np.uint64) * 2654435761
    f.add_many(keys)
    assert f.contains_many(keys).all()
    for key in keys[:5000]:
        f.delete(int(key))
    assert len(f) == 5000 and f.contains_many(keys[5000:]).all()
    f.save(tmp_path / "c.flt")
    g = fl.Filter.load(str(tmp_path / "c.flt"))
    assert g.to_bytes() == f.to_bytes() and g.info().k == k


def test_cuckoo_width_by_fpr_and_bad_width():
    # the width of fewest bytes that meets the target: 8, 11 (semi-sorted, 5-byte buckets),
    # 12, 13 (semi-sorted: 12's bytes), then 16 bits
    assert fl.Filter(n=10000, fpr=0.03, variant="cuckoo").info().k == 8
    assert fl.Filter(n=10000, fpr=0.005, variant="cuckoo").info().k == 11
    assert fl.Filter(n=10000, fpr=0.0025, variant="cuckoo").info().k == 12
    assert fl.Filter(n=10000, fpr=0.001, variant="cuckoo").info().k == 13
    assert fl.Filter(n=10000, fpr=0.0001, variant="cuckoo").info().k == 16
    assert fl.params(10000, 0.005, "cuckoo").k == 11
    assert fl.params(10000, 0.0025, "cuckoo").k == 12
    with pytest.raises(ValueError, match="8, 11, 12, 13 or 16"):
        fl.Filter(units=100, k=10, variant="cuckoo")


@pytest.mark.parametrize("variant", VARIANTS)
def test_bytes_file_and_pickle_round_trip(variant, tmp_path):
    f = fl.Filter(n=3000, fpr=0.01, variant=variant, seed=3)
    keys = np.arange(3000, dtype=np.uint64) * 7919
    f.add_many(keys)
    f.add("text key")
    data = f.to_bytes()
    g = fl.Filter.from_bytes(data)
    assert g.to_bytes() == data
    path = tmp_path / "f.flt"
    f.save(path)
    h = fl.Filter.load(str(path))
    assert h.info() == f.info()
    assert h.contains_many(keys).all() and "text key" in h
    p = pickle.loads(pickle.dumps(f))
    assert p.to_bytes() == data
    assert f.copy().to_bytes() == data


def test_parquet_round_trip():
    f = fl.Filter(n=1000, fpr=0.01, variant="split256")
    f.add_many([b"a", b"b", b"c"])
    for header in (True, False):
        g = fl.Filter.from_parquet(f.to_parquet(header=header))
        assert g.variant == "split256"
        assert g.contains_many([b"a", b"b", b"c"]).all()
        assert g.to_parquet(header=header) == f.to_parquet(header=header)
    with pytest.raises(ValueError):
        fl.Filter(n=1000, fpr=0.01, variant="block512").to_parquet()
    with pytest.raises(fl.FormatError):
        fl.Filter.from_parquet(b"\x01" * 33)


def test_info_and_explicit_geometry():
    f = fl.Filter(units=100, k=6, variant="block512", hash="xxh64", seed=5)
    info = f.info()
    assert isinstance(info, fl.FilterInfo)
    assert (info.variant, info.units, info.k, info.hash, info.seed) == ("block512", 100, 6, "xxh64", 5)
    assert info.bytes == 6400 == f.nbytes
    assert info.keys == 0 and info.fill == 0
    f.add_many(np.arange(100, dtype=np.uint64))
    assert f.info().keys == 100 == len(f)
    assert 0 < f.info().fill < 1
    p = fl.params(10**6, 0.01, "block512")
    g = fl.Filter(n=10**6, fpr=0.01, variant="block512")
    assert (g.info().units, g.info().k) == (p.units, p.k)
    assert "block512" in repr(f)
    f.clear()
    assert len(f) == 0 and f.info().bits_set == 0


def test_counting_saturation_reported():
    f = fl.Filter(units=1, k=1, variant="counting")
    for _ in range(20):
        f.add(b"same")
    assert f.info().saturated >= 1


def test_numpy_integer_scalars_are_int_keys():
    f = fl.Filter(n=100, fpr=0.01)
    f.add(np.uint64(12345))
    assert 12345 in f and np.int32(7) not in f
    f.add_many([np.uint64(1), np.int64(2), 3])
    assert f.contains_many(np.array([1, 2, 3], dtype=np.uint64)).all()
    with pytest.raises(TypeError):
        f.add(np.float64(1.0))
    f.add(bytearray(b"ba"))
    assert b"ba" in f and memoryview(b"ba") in f


def test_out_arrays_are_filled_in_place():
    f = fl.Filter(n=1000, fpr=0.01)
    keys = np.arange(100, dtype=np.uint64)
    f.add_many(keys[:50])
    out = np.zeros(100, dtype=bool)
    r = f.contains_many(keys, out=out)
    assert r is out and out[:50].all() and (out == f.contains_many(keys)).all()
    u8 = np.zeros(100, dtype=np.uint8)
    assert (f.contains_many(keys, out=u8) == out).all()
    for bad in (np.zeros(99, dtype=bool), np.zeros(100, dtype=np.int32),
                np.zeros((10, 10), dtype=bool), np.zeros(200, dtype=bool)[::2], b"x" * 100):
        with pytest.raises((TypeError, ValueError, BufferError)):
            f.contains_many(keys, out=bad)
    s = fl.ScalableBloom(100, 0.01)
    added = np.zeros(100, dtype=bool)
    assert s.add_many(keys, out=added) is added and added.all()
    c = fl.CountMin(width=100, depth=3)
    c.add_many(keys)
    est = np.zeros(100, dtype=np.uint32)
    assert c.query_many(keys, out=est) is est and (est >= 1).all()
    with pytest.raises(TypeError):
        c.query_many(keys, out=np.zeros(100, dtype=bool))
