"""filterlab.CompressedBloom: the source Filter's answers from chunked lookups, sizing plans
(Mitzenmacher 2002), bytes and files (kind 8), the CLI's compress / compressed-query, errors."""
import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import filterlab as fl
from conftest import keyset, lines, read_back_refusing_other_kinds, refuses_bad_keys

BLOCKED = ["block512", "split256", "reg64"]
CODERS = ["golomb", "zstd"]


def source(variant="block512", n=2000, fpr=0.01, seed=3, fill=None):
    f = fl.Filter(n=n, fpr=fpr, variant=variant, seed=seed)
    f.add_many(keyset("in", n if fill is None else fill))
    return f


# ---- the same answers as the Filter ---------------------------------------------------------

@given(present=st.integers(0, 3000), variant=st.sampled_from(BLOCKED),
       coder=st.sampled_from(CODERS), chunk=st.sampled_from([0, 64, 128, 1024, 4096]),
       seed=st.integers(0, 2**64 - 1))
def test_answers_equal_the_source_filter(present, variant, coder, chunk, seed):
    f = fl.Filter(n=1000, fpr=0.02, variant=variant, seed=seed)
    f.add_many(np.arange(present, dtype=np.uint64))
    c = fl.CompressedBloom(f, coder, chunk)
    probe = np.arange(present + 3000, dtype=np.uint64)
    expected = f.contains_many(probe)
    assert (c.contains_many(probe) == expected).all()
    strings = keyset("s", 200)
    assert (c.contains_many(strings) == f.contains_many(strings)).all()
    for k in probe[::97]:
        assert c.contains(int(k)) == expected[int(k)] == (int(k) in c)
    hashes = np.array([f.hash(int(k)) for k in probe[:500]], dtype=np.uint64)
    assert (c.contains_many(hashes, hashes=True) == expected[:500]).all()
    assert c.decompress().to_bytes() == f.to_bytes()


@pytest.mark.parametrize("coder", CODERS)
@pytest.mark.parametrize("variant", BLOCKED)
def test_key_forms_and_hashes_match_the_filter(variant, coder):
    f = source(variant, seed=99)
    c = fl.CompressedBloom(f, coder=coder, chunk_bytes=256)
    for key in (b"in-1", "in-2", 12345, b"", "never"):
        assert c.hash(key) == f.hash(key)
        assert c.contains(key) == f.contains(key)
        assert c.contains_hash(f.hash(key)) == f.contains(key)
    assert c.seed == 99
    out = np.zeros(4000, dtype=np.bool_)
    probe = keyset("in", 2000) + keyset("out", 2000)
    assert c.contains_many(probe, out=out) is out
    assert out[:2000].all() and (out == f.contains_many(probe)).all()
    strided = np.arange(0, 8000, dtype=np.uint64)[::2]
    assert (c.contains_many(strided) == f.contains_many(strided)).all()


def test_empty_batch():
    c = fl.CompressedBloom(source())
    assert c.contains_many(np.zeros(0, dtype=np.uint64)).shape == (0,)


# ---- whole filter, info ---------------------------------------------------------------------

@pytest.mark.parametrize("variant", BLOCKED + ["classic"])
def test_decompress_is_the_filter(variant):
    f = source(variant)
    for coder in CODERS:
        back = fl.CompressedBloom(f, coder).decompress()
        assert isinstance(back, fl.Filter)
        assert back.to_bytes() == f.to_bytes()
        back.add(b"new")  # an ordinary Filter again
        assert b"new" in back


def test_info_fields():
    f = source("block512", n=20000, fill=2000)  # sparse: the coder has something to gain
    c = fl.CompressedBloom(f, "golomb", 1024)
    fi, info = f.info(), c.info()
    assert isinstance(info, fl.CompressedBloomInfo)
    assert (info.variant, info.units, info.k, info.geometry) == (
        fi.variant, fi.units, fi.k, fi.geometry)
    assert (info.hash, info.seed, info.keys) == (fi.hash, fi.seed, fi.keys)
    assert info.coder == "golomb" and info.chunk_bytes == 1024
    assert info.payload_bytes == fi.bytes
    assert info.chunks == math.ceil(info.payload_bytes / 1024)
    assert info.ones == fi.bits_set
    m = info.payload_bytes * 8
    assert info.entropy_bits == pytest.approx(m * fl.CompressedBloom.entropy(info.ones / m))
    assert info.compressed_bytes < info.payload_bytes
    assert info.compressed_bytes * 8 >= info.entropy_bits * 0.9  # no coder beats H by much
    assert "CompressedBloom" in repr(c)
    c.verify()


def test_never_larger_than_payload_when_half_full():
    f = fl.Filter(n=1000, fpr=0.01, variant="block512")
    f.add_many(np.arange(1000, dtype=np.uint64))
    for coder in CODERS:
        info = fl.CompressedBloom(f, coder, 64).info()
        assert info.compressed_bytes <= info.payload_bytes


# ---- sizing ----------------------------------------------------------------------------------

def test_entropy():
    H = fl.CompressedBloom.entropy
    assert H(0.5) == pytest.approx(1.0) and H(0.0) == 0.0 and H(1.0) == 0.0
    assert H(0.1) == pytest.approx(-(0.1 * math.log2(0.1) + 0.9 * math.log2(0.9)))
    with pytest.raises(ValueError):
        H(1.5)


@pytest.mark.parametrize("variant", BLOCKED + ["classic"])
def test_plan_for_bits_and_fpr(variant):
    n, z, m_max = 2000, 8 * 2000, 64 * 2000 * 8
    p = fl.CompressedBloom.plan_for_bits(variant, n, z, m_max)
    assert isinstance(p, fl.CompressedPlan) and p.variant == variant
    assert p.entropy_bits <= z and p.bits <= m_max
    assert p.entropy_bits == pytest.approx(p.bits * fl.CompressedBloom.entropy(p.zero_fraction))
    # Mitzenmacher's point: at the same compressed size z, letting the array grow past z
    # bits (sparser, fewer hash functions) lowers the FPR below the best array of z bits.
    at_most_z = fl.CompressedBloom.plan_for_bits(variant, n, z, z)
    assert at_most_z.bits <= z and p.fpr < at_most_z.fpr
    f = fl.Filter(variant=p.variant, units=p.units, k=p.k)
    assert f.info().bytes * 8 == p.bits
    q = fl.CompressedBloom.plan_for_fpr(variant, n, 0.01, m_max)
    assert q.fpr <= 0.01 and q.bits <= m_max


def test_plan_errors():
    plan = fl.CompressedBloom.plan_for_bits
    with pytest.raises(ValueError):
        plan("block512", 1000, 10000, 8)  # m_max below one unit
    with pytest.raises(ValueError):
        plan("cuckoo", 1000, 10000, 100000)
    with pytest.raises(ValueError):
        plan("nonsense", 1000, 10000, 100000)
    with pytest.raises(ValueError):
        plan("block512", 0, 10000, 100000)
    with pytest.raises(ValueError):
        fl.CompressedBloom.plan_for_fpr("block512", 1000, 1e-9, 512 * 8)
    with pytest.raises(ValueError):
        fl.CompressedBloom.plan_for_fpr("block512", 1000, 0.0, 10**9)


# ---- bytes and files -------------------------------------------------------------------------

@pytest.mark.parametrize("coder", CODERS)
def test_bytes_file_and_pickle_round_trip(tmp_path, coder):
    f = source("split256")
    c = fl.CompressedBloom(f, coder, 512)
    data = c.to_bytes()
    probe = keyset("in", 2000) + keyset("out", 2000)
    for back in (fl.CompressedBloom.from_bytes(data), pickle.loads(pickle.dumps(c)), c.copy()):
        assert back.to_bytes() == data and back.info() == c.info()
        assert (back.contains_many(probe) == f.contains_many(probe)).all()
    path = tmp_path / "c.cbf"
    c.save(path)
    assert path.read_bytes() == data
    assert fl.CompressedBloom.load(path).decompress().to_bytes() == f.to_bytes()


def test_truncation_and_bit_flips_refused():
    c = fl.CompressedBloom(source(n=500), "golomb", 128)
    data = c.to_bytes()
    for cut in range(len(data)):  # every prefix
        with pytest.raises(fl.FormatError):
            fl.CompressedBloom.from_bytes(data[:cut])
    rng = np.random.default_rng(5)
    probe = keyset("in", 500)
    for pos in rng.integers(0, len(data), 64):
        bad = bytearray(data)
        bad[pos] ^= 1 << int(rng.integers(0, 8))
        # The container's checksum refuses it at load; were it ever let through, lookups and
        # verify() must still fail cleanly, never crash.
        try:
            loaded = fl.CompressedBloom.from_bytes(bytes(bad))
        except ValueError:
            continue
        with pytest.raises(fl.FormatError):
            loaded.verify()
            loaded.contains_many(probe)
    with pytest.raises(fl.FormatError):
        fl.CompressedBloom.from_bytes(data + b"\0")


def test_other_kinds_and_max_bytes_refused(tmp_path):
    f = source(n=500)
    c = fl.CompressedBloom(f)
    with pytest.raises(fl.FormatError):
        fl.LayeredBloom.from_bytes(c.to_bytes())
    back = read_back_refusing_other_kinds(fl.CompressedBloom, c, f.to_bytes(), f.info().bytes,
                                          tmp_path / "missing.cbf")
    assert back.seed == 3


# ---- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["counting", "counting512", "cuckoo"])
def test_only_bit_arrays_compress(variant):
    with pytest.raises(ValueError, match="bit-array"):
        fl.CompressedBloom(fl.Filter(n=100, fpr=0.01, variant=variant))


def test_classic_lookups_refused_with_the_reason():
    c = fl.CompressedBloom(source("classic"))
    for call in (lambda: c.contains(b"in-1"), lambda: b"in-1" in c,
                 lambda: c.contains_hash(1), lambda: c.contains_many([b"in-1"])):
        with pytest.raises(ValueError, match="decompress"):
            call()
    assert c.decompress().contains(b"in-1")


@pytest.mark.parametrize("args, kwargs, exc", [
    ((), {}, TypeError),
    ((b"not a filter",), {}, TypeError),
    ((None,), {"coder": "gzip"}, TypeError),
    (("F",), {"coder": "gzip"}, ValueError),
    (("F",), {"chunk_bytes": 100}, ValueError),
    (("F",), {"chunk_bytes": (1 << 24) + 64}, ValueError),
    (("F",), {"chunk_bytes": -64}, ValueError),
])
def test_bad_parameters(args, kwargs, exc):
    args = tuple(source(n=100) if a == "F" else a for a in args)
    with pytest.raises(exc):
        fl.CompressedBloom(*args, **kwargs)


def test_bad_keys():
    c = fl.CompressedBloom(source(n=100))
    refuses_bad_keys([c.contains], [c.contains_many])
    with pytest.raises(ValueError):
        c.contains(-1)
    assert not hasattr(c, "add")


# ---- the CLI's compress / compressed-query ---------------------------------------------------

def positives(out):
    return out.splitlines()


@pytest.mark.parametrize("coder", CODERS)
def test_cli_compressed_query_equals_python(cli, tmp_path, coder):
    present, probe = keyset("in", 2000), keyset("in", 2000) + keyset("guest", 4000)
    flt, cbf = tmp_path / "b.flt", tmp_path / "b.cbf"
    cli("build", "--type", "block512", "--n", 2000, "--fpr", 0.02, "--seed", 8, "-o", flt,
        stdin=lines(present))
    cli("compress", flt, "-o", cbf, "--coder", coder, "--chunk", 256)
    c = fl.CompressedBloom.load(cbf)
    assert c.info().coder == coder and c.info().chunk_bytes == 256 and c.seed == 8
    out, _ = cli("compressed-query", cbf, stdin=lines(probe))
    mine = c.contains_many(probe)
    assert positives(out) == [k for k, hit in zip(probe, mine) if hit]
    assert (mine == fl.Filter.load(flt).contains_many(probe)).all()
    # A file Python compresses is read by the CLI the same way, and decompresses to its filter.
    f = source("reg64", n=1500, seed=4)
    mine_path = tmp_path / "py.cbf"
    fl.CompressedBloom(f, coder, 128).save(mine_path)
    out, _ = cli("compressed-query", mine_path, stdin=lines(probe))
    assert positives(out) == [k for k, hit in zip(probe, f.contains_many(probe)) if hit]
    back = tmp_path / "back.flt"
    cli("decompress", mine_path, "-o", back)
    assert back.read_bytes() == f.to_bytes()
