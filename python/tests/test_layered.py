"""filterlab.LayeredBloom: counts never below the adds (up to R), batches equal single calls,
deletes on counting layers, bytes and files (kind 7), the CLI's layered-count, errors."""
import pickle
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import filterlab as fl
from conftest import keyset, lines, read_back_refusing_other_kinds, refuses_bad_keys

BIT_ARRAYS = ["block512", "classic", "split256", "reg64"]
COUNTING = ["counting", "counting512"]


def filled(layers=4, n=500, variant="block512", seed=5):
    lb = fl.LayeredBloom(layers, n, 0.01, variant, seed=seed)
    for i, key in enumerate(keyset("k", 300)):
        for _ in range(i % (layers + 2)):
            lb.add(key)
    return lb


# ---- the counting guarantee (seed 004, 4.11.3) ---------------------------------------------

@given(adds=st.lists(st.integers(0, 40), min_size=1, max_size=300),
       layers=st.integers(1, 6),
       variant=st.sampled_from(BIT_ARRAYS + COUNTING),
       batch=st.booleans())
def test_counts_never_below_adds_up_to_r(adds, layers, variant, batch):
    lb = fl.LayeredBloom(layers, 64, 0.02, variant, seed=9)
    keys = [f"key{a}".encode() for a in adds]
    if batch:
        lb.add_many(keys)
    else:
        for key in keys:
            lb.add(key)
    expected = Counter(keys)
    probe = list(expected)
    counts = lb.count_many(probe)
    assert counts.dtype == np.uint8
    for key, c in zip(probe, counts):
        assert min(expected[key], layers) <= c <= layers
        assert lb.count(key) == c
        assert key in lb


@given(seq=st.lists(st.integers(0, 15), max_size=200))
def test_add_many_equals_adds_one_by_one(seq):
    one, many = fl.LayeredBloom(3, 50, 0.05), fl.LayeredBloom(3, 50, 0.05)
    saturated_single = 0
    for k in seq:
        saturated_single += one.count(k) == 3
        assert one.add(k) == min(3, max(one.count(k), 1))
    saturated = many.add_many(np.array(seq, dtype=np.uint64))
    assert one.to_bytes() == many.to_bytes()
    assert saturated == saturated_single
    assert many.info().adds == len(seq) - saturated


def test_add_returns_the_count_and_saturates_at_r():
    lb = fl.LayeredBloom(3, 100, 0.001)
    assert [lb.add(b"x") for _ in range(5)] == [1, 2, 3, 3, 3]
    assert lb.count(b"x") == 3
    assert lb.add_many([b"x", b"x"]) == 2
    assert lb.info().adds == 3
    assert lb.info().layer_keys == [1, 1, 1]


def test_key_forms_agree():
    lb = fl.LayeredBloom(4, 1000, 0.01, seed=77)
    lb.add_many(np.arange(100, dtype=np.uint64))
    lb.add_many(list(range(50)))
    lb.add_many(["s-1", b"s-1", "s-2"])
    ints = np.arange(200, dtype=np.uint64)
    by_int = lb.count_many(ints)
    hashes = np.array([lb.hash(int(k)) for k in ints], dtype=np.uint64)
    assert (lb.count_many(hashes, hashes=True) == by_int).all()
    assert [lb.count(int(k)) for k in ints] == list(by_int)
    assert [lb.count_hash(int(h)) for h in hashes] == list(by_int)
    assert (by_int[:50] >= 2).all() and (by_int[50:100] >= 1).all()
    assert lb.count("s-1") == lb.count(b"s-1") >= 2
    # An int key hashes as a Filter with the same seed hashes it.
    assert lb.hash(12345) == fl.Filter(n=10, fpr=0.01, seed=77).hash(12345)
    assert lb.add_hash(lb.hash(b"via-hash")) == 1 and lb.count(b"via-hash") == 1


def test_count_many_out_in_place_and_strided():
    lb = filled()
    keys = keyset("k", 300)
    expected = lb.count_many(keys)
    out = np.zeros(300, dtype=np.uint8)
    assert lb.count_many(keys, out=out) is out
    assert (out == expected).all()
    ints = np.arange(400, dtype=np.uint64)
    lb.add_many(ints[::2])
    assert (lb.count_many(ints[::2]) >= 1).all()
    with pytest.raises(TypeError):
        lb.count_many(keys, out=np.zeros(300, dtype=np.uint32))
    with pytest.raises(TypeError, match="uint8"):
        lb.count_many(keys, out=np.zeros(300, dtype=np.bool_))
    with pytest.raises(ValueError):
        lb.count_many(keys, out=np.zeros(299, dtype=np.uint8))


def test_empty_batches():
    lb = fl.LayeredBloom(2, 10, 0.1)
    assert lb.add_many([]) == 0
    assert lb.count_many(np.zeros(0, dtype=np.uint64)).shape == (0,)


# ---- deletes -------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", COUNTING)
def test_delete_on_counting_layers(variant):
    lb = fl.LayeredBloom(4, 1000, 0.001, variant)
    assert lb.can_delete
    keys = keyset("d", 200)
    for _ in range(3):
        lb.add_many(keys)
    assert (lb.count_many(keys) >= 3).all()
    assert lb.delete(keys[0]) == lb.count(keys[0])
    for key in keys:
        while lb.count(key) > 0:
            lb.delete(key)
    assert (lb.count_many(keys) == 0).all()
    with pytest.raises(KeyError, match="delete"):
        lb.delete(keys[0])
    lb.add(b"again")
    assert lb.delete_hash(lb.hash(b"again")) == 0
    assert lb.info().deletes >= 600


@pytest.mark.parametrize("variant", BIT_ARRAYS)
def test_delete_refused_where_layers_cannot(variant):
    lb = fl.LayeredBloom(2, 100, 0.01, variant)
    lb.add(b"a")
    assert not lb.can_delete
    with pytest.raises(ValueError, match="^delete: "):
        lb.delete(b"a")
    assert lb.count(b"a") == 1


# ---- info, clear, kernels ------------------------------------------------------------------

def test_info_fields():
    lb = filled(layers=3, n=500, variant="split256", seed=4)
    info = lb.info()
    assert isinstance(info, fl.LayeredBloomInfo)
    assert (info.layers, info.capacity, info.variant, info.seed) == (3, 500, "split256", 4)
    single = fl.Filter(n=500, fpr=0.01, variant="split256").info()
    assert info.fpr == 0.01 and info.hash == single.hash == "xxh64" and not info.can_delete
    assert len(info.layer_keys) == 3
    assert info.layer_keys[0] >= info.layer_keys[1] >= info.layer_keys[2] > 0
    assert sum(info.layer_keys) == info.adds
    assert info.bytes == 3 * single.bytes and info.geometry == single.geometry
    assert lb.layers == 3 and lb.seed == 4 and "LayeredBloom" in repr(lb)


def test_clear_copy_and_kernels():
    lb = filled()
    c = lb.copy()
    lb.clear()
    assert (lb.count_many(keyset("k", 300)) == 0).all() and lb.info().adds == 0
    assert c.info().adds > 0
    lb.bind_kernel("scalar")
    assert lb.kernel == "scalar" and lb.bound_kernel == "scalar"
    assert lb.copy().bound_kernel == "scalar"
    lb.bind_kernel(None)
    assert lb.bound_kernel is None
    with pytest.raises(ValueError):
        lb.bind_kernel("no-such-kernel")


def test_counts_equal_on_every_kernel():
    lb = filled()
    keys = keyset("k", 300) + keyset("absent", 300)
    lb.bind_kernel("scalar")
    expected = lb.count_many(keys)
    for k in fl.kernels():
        if k.supported:
            lb.bind_kernel(k.name)
            assert (lb.count_many(keys) == expected).all(), k.name


# ---- bytes and files -----------------------------------------------------------------------

@pytest.mark.parametrize("variant", BIT_ARRAYS + COUNTING)
def test_bytes_file_and_pickle_round_trip(tmp_path, variant):
    lb = filled(variant=variant)
    keys = keyset("k", 300) + keyset("other", 300)
    data = lb.to_bytes()
    for back in (fl.LayeredBloom.from_bytes(data), fl.LayeredBloom.from_bytes(bytearray(data)),
                 pickle.loads(pickle.dumps(lb))):
        assert back.to_bytes() == data
        assert (back.count_many(keys) == lb.count_many(keys)).all()
        assert back.info() == lb.info()
    path = tmp_path / "l.lbf"
    lb.save(path)
    assert path.read_bytes() == data
    assert fl.LayeredBloom.load(str(path)).to_bytes() == data


def test_truncation_and_bit_flips_refused():
    data = filled(layers=2, n=100).to_bytes()
    # Every prefix (a load takes the geometry from the file, no sizing search: cheap).
    for cut in range(len(data)):
        with pytest.raises(fl.FormatError):
            fl.LayeredBloom.from_bytes(data[:cut])
    rng = np.random.default_rng(3)
    for pos in rng.integers(0, len(data), 64):
        bad = bytearray(data)
        bad[pos] ^= 1 << int(rng.integers(0, 8))
        with pytest.raises(ValueError):  # FormatError, or a size field now out of range
            fl.LayeredBloom.from_bytes(bytes(bad))
    with pytest.raises(fl.FormatError):
        fl.LayeredBloom.from_bytes(data + b"\0")


def test_other_kinds_and_max_bytes_refused(tmp_path):
    f = fl.Filter(n=100, fpr=0.01)
    lb = filled(layers=2, n=100)
    back = read_back_refusing_other_kinds(fl.LayeredBloom, lb, f.to_bytes(), lb.info().bytes,
                                          tmp_path / "missing.lbf")
    assert back.layers == 2


# ---- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((0, 100, 0.01), {}),
    ((65, 100, 0.01), {}),
    ((2, 0, 0.01), {}),
    ((2, 100, 0.0), {}),
    ((2, 100, 1.0), {}),
    ((2, 100, 0.01, "cuckoo"), {}),
    ((2, 100, 0.01, "nonsense"), {}),
    ((2, 100, 0.01), {"hash": "md5"}),
    ((-1, 100, 0.01), {}),
])
def test_bad_parameters(args, kwargs):
    with pytest.raises(ValueError):
        fl.LayeredBloom(*args, **kwargs)


def test_bad_keys():
    lb = fl.LayeredBloom(2, 10, 0.1)
    refuses_bad_keys([lb.add, lb.count], [lb.count_many, lb.add_many])
    with pytest.raises(ValueError):
        lb.add(-1)
    with pytest.raises(TypeError):
        lb.count_hash(b"x")


# ---- the CLI's layered-build / layered-count ----------------------------------------------

def parse_counts(out):
    rows = [line.split(b"\t", 1) for line in out.splitlines()]
    return [int(c) for c, _ in rows], [k for _, k in rows]


@pytest.mark.parametrize("variant", ["block512", "counting"])
def test_cli_counts_equal_python(cli, tmp_path, variant):
    adds = [k for i, k in enumerate(keyset("url", 400)) for _ in range(i % 5)]
    probe = keyset("url", 400) + keyset("never", 400)
    path = tmp_path / "c.lbf"
    cli("layered-build", "-o", path, "--layers", 3, "--n", 400, "--fpr", 0.01, "--variant", variant,
        "--seed", 21, stdin=lines(adds))
    lb = fl.LayeredBloom.load(path)
    assert lb.layers == 3 and lb.seed == 21 and lb.info().variant == variant
    out, _ = cli("layered-count", path, stdin=lines(probe))
    c_counts, c_keys = parse_counts(out)
    assert c_keys == probe
    assert c_counts == list(lb.count_many(probe))
    # And a file Python writes is read by the CLI with the same counts.
    lb.add_many(keyset("py", 50) * 2)
    mine = tmp_path / "py.lbf"
    lb.save(mine)
    out, _ = cli("layered-count", mine, stdin=lines(keyset("py", 50) + probe))
    c_counts, _ = parse_counts(out)
    assert c_counts == list(lb.count_many(keyset("py", 50) + probe))
    assert all(c >= 2 for c in c_counts[:50])


def test_threads_adding_and_counting_share_one_filter():
    """Batches run without the GIL under the object's lock: counts read while another thread
    adds are whole counts (0..R), and every add lands."""
    import threading

    lb = fl.LayeredBloom(4, 20000, 0.01)
    keys = np.arange(5000, dtype=np.uint64)
    seen_bad = []

    def adder():
        for _ in range(4):
            lb.add_many(keys)

    def counter():
        for _ in range(20):
            c = lb.count_many(keys)
            if c.max() > 4:
                seen_bad.append(int(c.max()))

    threads = [threading.Thread(target=adder)] + [threading.Thread(target=counter)
                                                  for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not seen_bad
    assert (lb.count_many(keys) == 4).all()


def test_benchmark_kernels_times_count_many():
    lb = filled()
    lb.bind_kernel("scalar")
    timings = fl.benchmark_kernels(lb, np.arange(1000, dtype=np.uint64), repeat=1,
                                   kernels_to_try=["scalar"])
    assert [t.kernel for t in timings] == ["scalar"] and timings[0].keys == 1000
    assert lb.bound_kernel == "scalar"
