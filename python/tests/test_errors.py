"""Bad input never crashes: the right exception, with the library's message."""
import os

import numpy as np
import pytest

import filterlab as fl
from conftest import SANITIZED


@pytest.fixture
def f():
    g = fl.Filter(n=1000, fpr=0.01)
    g.add_many(np.arange(100, dtype=np.uint64))
    return g


@pytest.mark.parametrize("bad", [
    np.arange(10, dtype=np.int64),
    np.arange(10, dtype=np.uint32),
    np.arange(10, dtype=np.float64),
    np.zeros((2, 5), dtype=np.uint64),
    np.zeros((), dtype=np.uint64),
    None,
    "a single string",
    b"single bytes",
    bytearray(b"x"),
    12,
    [1, b"mixed"],
    [b"mixed", 1],
    [1.5],
    [-1],
    [2**64],
])
def test_bad_batches(f, bad):
    with pytest.raises((TypeError, ValueError)):
        f.contains_many(bad)
    with pytest.raises((TypeError, ValueError)):
        f.add_many(bad)


def test_wrong_dtype_message(f):
    with pytest.raises(TypeError, match="uint64"):
        f.contains_many(np.arange(3, dtype=np.int64))


def test_bad_single_keys(f):
    for bad in (None, 1.5, object(), [1]):
        with pytest.raises(TypeError):
            f.add(bad)
        with pytest.raises(TypeError):
            bad in f  # noqa: B015
    for bad in (-1, 2**64):
        with pytest.raises(ValueError):
            f.add(bad)
    with pytest.raises(TypeError):
        f.contains_hash(b"x")


def test_empty_batches(f):
    assert f.contains_many(np.array([], dtype=np.uint64)).shape == (0,)
    assert f.contains_many([]).shape == (0,)
    f.add_many([])


@pytest.mark.parametrize("kwargs, exc", [
    (dict(n=0, fpr=0.01), ValueError),
    (dict(n=-5, fpr=0.01), ValueError),
    (dict(n=100, fpr=0.0), ValueError),
    (dict(n=100, fpr=1.5), ValueError),
    (dict(n=100, fpr=float("nan")), ValueError),
    (dict(n=100, fpr=0.01, variant="nosuch"), ValueError),
    (dict(n=10**19, fpr=0.01), ValueError),
    (dict(n=2**64, fpr=0.01), ValueError),
    (dict(units=0), ValueError),
    (dict(units=2**40), ValueError),
    (dict(units=10, k=99), ValueError),
    (dict(units=10, variant="cuckoo", k=10), ValueError),
    (dict(n=100), ValueError),
    (dict(), ValueError),
    (dict(n=100, fpr=0.01, hash="md5"), ValueError),
    (dict(n=100, fpr="x"), TypeError),
    (dict(n=None, fpr=0.01), ValueError),
])
def test_bad_parameters(kwargs, exc):
    with pytest.raises(exc):
        fl.Filter(**kwargs)


def test_message_and_status_come_from_the_library():
    with pytest.raises(ValueError) as e:
        fl.Filter(n=0, fpr=0.01)
    assert e.value.status == 2  # FL_ERR_BAD_N
    assert "Filter:" in str(e.value)


def test_huge_allocation_is_memory_error():
    # 2^32 - 1 blocks of 64 bytes (256 GiB): larger than this machine can map.
    if SANITIZED:
        pytest.skip("ASan's allocator reports huge mappings itself")
    try:
        g = fl.Filter(units=2**32 - 1, variant="block512")
    except MemoryError as e:
        assert "memory" in str(e)
    else:  # an overcommitting kernel mapped it lazily: nothing to check, free it
        del g
        pytest.skip("the kernel overcommitted 256 GiB")


def test_bad_files(tmp_path):
    f = fl.Filter(n=1000, fpr=0.01, variant="cuckoo")
    f.add_many(np.arange(500, dtype=np.uint64))
    data = f.to_bytes()
    # Every truncation is a FormatError, never a crash.
    for cut in list(range(0, 256)) + list(range(256, len(data), 97)):
        with pytest.raises(fl.FormatError):
            fl.Filter.from_bytes(data[:cut])
    with pytest.raises(fl.FormatError):
        fl.Filter.from_bytes(data + b"\0")
    # Bit flips: caught by the checksums (or a field check), never a crash.
    rng = np.random.default_rng(5)
    for pos in rng.integers(0, len(data), size=200):
        bad = bytearray(data)
        bad[pos] ^= 1 << int(rng.integers(0, 8))
        with pytest.raises(fl.FormatError):
            fl.Filter.from_bytes(bytes(bad))
    assert issubclass(fl.FormatError, ValueError)
    # A payload cap refuses before allocating.
    with pytest.raises(ValueError):
        fl.Filter.from_bytes(data, max_bytes=16)
    # I/O errors are OSError with errno and path.
    with pytest.raises(OSError) as e:
        fl.Filter.load(tmp_path / "missing.flt")
    assert e.value.errno == 2 and "missing.flt" in str(e.value.filename)
    with pytest.raises(OSError):
        f.save(tmp_path / "no" / "such" / "dir.flt")
    with pytest.raises(OSError):
        f.save(tmp_path)  # a directory
    # Another kind's file is a FormatError too (wrong kind).
    cms = fl.CountMin(width=10, depth=2)
    with pytest.raises(fl.FormatError):
        fl.Filter.from_bytes(cms.to_bytes())
    with pytest.raises(fl.FormatError):
        fl.ScalableBloom.from_bytes(data)
    with pytest.raises(TypeError):
        fl.Filter.from_bytes(None)
    with pytest.raises(TypeError):
        fl.Filter.load(None)


def test_sketch_parameter_errors():
    for kw in (dict(), dict(width=0, depth=1), dict(width=10), dict(epsilon=0.0, delta=0.1),
               dict(epsilon=0.1, delta=1.0), dict(width=10, depth=99),
               dict(width=10, depth=2, topk=10**6), dict(width=10, depth=2, epsilon=0.1, delta=0.1)):
        with pytest.raises(ValueError):
            fl.CountMin(**kw)
    for p in (0, 3, 17, -1, 2**40):
        with pytest.raises(ValueError):
            fl.HyperLogLog(p)
    for kw in (dict(capacity=0, error_rate=0.01), dict(capacity=10, error_rate=1.0),
               dict(capacity=10, error_rate=0.01, growth=0.5),
               dict(capacity=10, error_rate=0.01, tightening=1.0),
               dict(capacity=10, error_rate=0.01, variant="cuckoo"),
               dict(capacity=10, error_rate=0.01, max_filters=1000)):
        with pytest.raises(ValueError):
            fl.ScalableBloom(**kw)
    c = fl.CountMin(width=10, depth=2)
    with pytest.raises(ValueError):
        c.add_many([b"a", b"b"], increments=[1])
    with pytest.raises(ValueError):
        c.add(b"a", inc=2**32)
    with pytest.raises(ValueError):
        c.top()  # topk was 0
    with pytest.raises(ValueError):
        c.heavy_hitters(1.5)
    h = fl.HyperLogLog(12)
    with pytest.raises(ValueError):
        h.to_redis()  # Redis strings are p = 14 only
    with pytest.raises(fl.FormatError):
        fl.HyperLogLog.from_redis(b"HYLL" + b"\x07" * 20)
    with pytest.raises(ValueError):
        h.merge(fl.HyperLogLog(14))


def test_kernel_errors(f):
    with pytest.raises(ValueError):
        fl.select_kernel("nosuch")
    with pytest.raises(ValueError):
        f.bind_kernel("nosuch")
    with pytest.raises(TypeError):
        f.bind_kernel(3)
    unsupported = [k.name for k in fl.kernels() if not k.supported]
    for name in unsupported:
        with pytest.raises(ValueError):
            f.bind_kernel(name)


def test_no_crash_on_environment_kernel():
    assert os.environ.get("FILTERLAB_KERNEL", "") in ("", *[k.name for k in fl.kernels()])


def test_unencodable_str_is_a_value_error(f):
    lone = "\ud800"  # a lone surrogate has no UTF-8 form
    with pytest.raises(UnicodeEncodeError):
        f.add(lone)
    with pytest.raises(ValueError):
        f.contains_many(["ok", lone])


def test_iterables_and_subclasses():
    f = fl.Filter(n=100, fpr=0.01)
    f.add_many(x for x in [b"a", b"b"])  # a generator is consumed once
    assert f.contains_many((b"a", b"b")).all()

    class MyFilter(fl.Filter):
        pass

    g = MyFilter(n=100, fpr=0.01)
    g.add(1)
    import copy
    h = copy.deepcopy(g)  # through __reduce__: type(g).from_bytes
    assert type(h) is MyFilter and 1 in h
