"""The methods every class shares (python/src/object.c): the same replies and errors for
Filter, ScalableBloom, CountMin, HyperLogLog and GrowingCuckoo, and the static FuseFilter and Bloomier
(built from their keys: no add, merge or clear)."""
import pickle

import pytest

import filterlab as fl


def make(cls):
    if cls is fl.FuseFilter:
        return fl.FuseFilter([b"a", b"b", b"c"])
    if cls is fl.Bloomier:
        return fl.Bloomier([b"a", b"b", b"c"], [1, 2, 3], value_bits=2)
    if cls is fl.CompressedBloom:
        return fl.CompressedBloom(make(fl.Filter))
    if cls is fl.LayeredBloom:
        o = fl.LayeredBloom(3, 1000, 0.01)
    elif cls is fl.Filter:
        o = fl.Filter(n=1000, fpr=0.01)
    elif cls is fl.ScalableBloom:
        o = fl.ScalableBloom(1000, 0.01)
    elif cls is fl.CountMin:
        o = fl.CountMin(width=64, depth=3)
    elif cls is fl.GrowingCuckoo:
        o = fl.GrowingCuckoo(1000)
    else:
        o = fl.HyperLogLog()
    for key in (b"a", b"b", 7):
        o.add(key)
    return o


ALL = [fl.Filter, fl.ScalableBloom, fl.CountMin, fl.HyperLogLog, fl.GrowingCuckoo]
MERGEABLE = [fl.Filter, fl.CountMin, fl.HyperLogLog]
STATIC = [fl.FuseFilter, fl.Bloomier]
FILE_FORMAT = [fl.Filter, fl.ScalableBloom, fl.CountMin, fl.GrowingCuckoo] + STATIC
LAYERED_COMPRESSED = [fl.LayeredBloom, fl.CompressedBloom]
FILE_FORMAT = FILE_FORMAT + LAYERED_COMPRESSED


def state(o):
    return o.to_redis() if isinstance(o, fl.HyperLogLog) else o.to_bytes()


@pytest.mark.parametrize("cls", MERGEABLE)
def test_merge_takes_the_same_class_only(cls):
    o = make(cls)
    with pytest.raises(TypeError, match=f"^merge takes a {cls.__name__}, not int$"):
        o.merge(5)
    with pytest.raises(TypeError):
        o | 5
    with pytest.raises(TypeError):
        o |= 5


@pytest.mark.parametrize("cls", MERGEABLE)
def test_merge_or_ior_and_self_merge(cls):
    a, b = make(cls), make(cls)
    b.add(b"only in b")
    before = state(a)
    c = a | b
    assert type(c) is cls and state(a) == before
    a |= b
    assert state(a) == state(c)
    a.merge(a)  # takes its own lock once, no deadlock


@pytest.mark.parametrize("cls", MERGEABLE)
def test_copy_is_independent_and_keeps_the_bound_kernel(cls):
    o = make(cls)
    assert o.copy().bound_kernel is None
    o.bind_kernel("scalar")
    c = o.copy()
    assert type(c) is cls and c.bound_kernel == "scalar" and c.kernel == "scalar"
    assert state(c) == state(o)
    c.add(b"only in the copy")
    c.clear()
    assert state(o) != state(c)


@pytest.mark.parametrize("cls", ALL + STATIC)
def test_bind_kernel_auto_and_none_unbind(cls):
    o = make(cls)
    o.bind_kernel("scalar")
    assert o.bound_kernel == "scalar"
    o.bind_kernel("auto")
    assert o.bound_kernel is None
    o.bind_kernel("scalar")
    o.bind_kernel(None)
    assert o.bound_kernel is None
    with pytest.raises(ValueError, match="^bind_kernel: "):
        o.bind_kernel("no such kernel")
    with pytest.raises(TypeError, match="kernel must be a str or None, not int"):
        o.bind_kernel(3)


@pytest.mark.parametrize("cls", ALL + STATIC)
def test_pickle_keeps_the_subclass(cls):
    sub = type("Sub" + cls.__name__, (cls,), {})
    globals()[sub.__name__] = sub  # pickle finds the class by name
    o = make(cls)
    if cls is fl.HyperLogLog:
        s = sub.from_redis(o.to_redis())
    else:
        s = sub.from_bytes(o.to_bytes())
    back = pickle.loads(pickle.dumps(s))
    assert type(back) is sub and state(back) == state(o)


@pytest.mark.parametrize("cls", FILE_FORMAT)
def test_bytes_and_file_errors_name_the_call(cls, tmp_path):
    o = make(cls)
    data = o.to_bytes()
    with pytest.raises(fl.FormatError, match="^from_bytes: "):
        cls.from_bytes(data[:-1])
    with pytest.raises(ValueError, match="^from_bytes: "):
        cls.from_bytes(data, max_bytes=1)
    with pytest.raises(TypeError):
        cls.from_bytes(data, max_bytes="1")
    with pytest.raises(OSError) as e:
        cls.load(tmp_path / "missing")
    assert e.value.filename == str(tmp_path / "missing")
    assert e.value.strerror.startswith("load: ")
    with pytest.raises(OSError) as e:
        o.save(tmp_path / "no such dir" / "x")
    assert e.value.strerror.startswith("save: ")
    path = tmp_path / "o.bin"
    o.save(path)
    assert cls.load(path, max_bytes=None).to_bytes() == data
    assert cls.load(str(path)).to_bytes() == data
    with pytest.raises(ValueError, match="^load: "):
        cls.load(path, max_bytes=1)


@pytest.mark.parametrize("cls", STATIC)
def test_static_copy_keeps_the_bound_kernel_and_has_no_changes(cls):
    o = make(cls)
    o.bind_kernel("scalar")
    c = o.copy()
    assert type(c) is cls and c.bound_kernel == "scalar" and c.kernel == "scalar"
    assert state(c) == state(o) and b"a" in c
    for method in ("add", "merge", "clear", "__or__"):
        assert not hasattr(o, method)


@pytest.mark.parametrize("cls", ALL)
def test_clear_empties(cls):
    o = make(cls)
    assert o.clear() is None
    if cls is fl.CountMin:
        assert o[b"a"] == 0
    elif cls is fl.HyperLogLog:
        assert o.count() == 0
    else:
        assert b"a" not in o and len(o) == 0


def test_from_parquet_errors_name_the_call():
    with pytest.raises(fl.FormatError, match="^from_parquet: "):
        fl.Filter.from_parquet(b"\x01" * 33)
    with pytest.raises(TypeError, match="from_parquet"):
        fl.Filter.from_parquet()


@pytest.mark.parametrize("cls", LAYERED_COMPRESSED)
def test_layered_and_compressed_pickle_and_copy(cls):
    test_pickle_keeps_the_subclass(cls)
    o = make(cls)
    c = o.copy()
    assert type(c) is cls and state(c) == state(o) and b"a" in c


def test_layered_bind_kernel_and_clear():
    test_bind_kernel_auto_and_none_unbind(fl.LayeredBloom)
    o = make(fl.LayeredBloom)
    assert o.clear() is None and b"a" not in o and o.info().adds == 0
    assert not hasattr(fl.CompressedBloom, "bind_kernel")  # lookups only: nothing to bind
