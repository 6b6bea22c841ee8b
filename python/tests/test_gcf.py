"""filterlab.GrowingCuckoo (python/src/gcf.c): growth through doublings with every key found,
bytes/str/int keys and hashes alike in single and batch calls, counts and deletes, the byte
limit refusing growth with nothing lost, file and bytes round trips, truncated and
bit-flipped bytes refused, bad arguments refused with clear errors, every kernel answering
alike, readers beside a writer that doubles the table."""
import numpy as np
import pytest

import filterlab as fl
from conftest import keyset, read_back_refusing_other_kinds, refuses_bad_keys


def test_growth_keeps_every_key_across_doublings():
    g = fl.GrowingCuckoo(1000, seed=9)
    first = g.info().capacity
    keys = np.arange(1, 16 * first + 1, dtype=np.uint64)
    seen = []
    for part in np.array_split(keys, 16):
        g.add_many(part)
        seen.append(part)
        done = np.concatenate(seen)
        assert g.contains_many(done).all()
    info = g.info()
    assert info.doublings == 4 and info.items == len(keys) == len(g)
    assert info.capacity >= len(keys) and info.load <= 0.9
    assert sum(info.items_by_ext) == info.items and info.seed == 9
    # one-key calls answer as the batch does
    assert all(int(k) in g for k in keys[:: len(keys) // 500])
    # the FPR stays near the estimate (2 * slots / buckets of 2^-(8 + L) terms)
    absent = np.arange(10**9, 10**9 + 200_000, dtype=np.uint64)
    fp = int(g.contains_many(absent).sum())
    assert fp <= 200_000 * info.fpr * 1.5 + 20


def test_key_types_hashes_and_batches_agree():
    g = fl.GrowingCuckoo(500)
    g.add(b"bytes")
    g.add("str")
    g.add(42)
    g.add_hash(g.hash(b"by-hash"))
    assert b"bytes" in g and "str" in g and g.contains("str".encode())
    assert 42 in g and g.contains_hash(g.hash(42)) and g.contains(b"by-hash")
    words = keyset("w", 3000)
    g.add_many(words)
    assert g.contains_many(words).all()
    assert g.contains_many([g.hash(w) for w in words[:100]], hashes=True).all()
    out = np.zeros(len(words), dtype=bool)
    assert g.contains_many(words, out=out) is out and out.all()
    ints = list(range(1000, 3000))
    g.add_many(ints)
    assert g.contains_many(np.array(ints, dtype=np.uint64)).all()
    hs = np.array([g.hash(i) for i in ints], dtype=np.uint64)
    assert g.contains_many(hs, hashes=True).all()
    refuses_bad_keys([g.add, g.contains, g.delete, g.count, g.hash],
                     [g.add_many, g.contains_many, g.delete_many])


def test_counts_and_deletes():
    g = fl.GrowingCuckoo(2000)
    for _ in range(3):
        g.add(b"thrice")
    assert g.count(b"thrice") >= 3
    g.add_many(keyset("k", 20_000))  # doublings in between
    assert g.info().doublings >= 2 and g.count(b"thrice") >= 3
    c = g.count(b"thrice")
    g.delete(b"thrice")
    assert g.count(b"thrice") == c - 1
    assert g.count_hash(g.hash(b"thrice")) == c - 1
    n = len(g)
    g.delete_many(keyset("k", 20_000)[:5000])
    assert len(g) == n - 5000
    assert g.contains_many(keyset("k", 20_000)[5000:]).all()
    g.delete(b"thrice")
    g.delete_hash(g.hash(b"thrice"))
    with pytest.raises(KeyError, match="delete: key not found"):
        g.delete(b"never added")
    with pytest.raises(KeyError, match="2 keys of the batch were deleted"):
        g.delete_many(keyset("k", 20_000)[5000:5002] + [b"never added"])
    assert g.count(b"never") == 0 or g.count(b"never") <= 8


def test_byte_limit_refuses_growth_and_keeps_every_key():
    g = fl.GrowingCuckoo(1000)
    first = g.info().bytes
    g.set_byte_limit(2 * first)
    taken = []
    with pytest.raises(ValueError) as e:
        for i in range(100_000):
            g.add(i)
            taken.append(i)
    assert str(e.value).startswith("add: ") and e.value.status != 0
    info = g.info()
    assert info.bytes == 2 * first and info.byte_limit == 2 * first
    assert g.contains_many(np.array(taken, dtype=np.uint64)).all()
    before = g.to_bytes()
    with pytest.raises(ValueError, match="keys of the batch were inserted"):
        g.add_many(list(range(10**6, 10**6 + 1000)))
    assert g.info().bytes == 2 * first  # no doubling past the limit
    g.set_byte_limit(None)
    g.add_many(list(range(10**7, 10**7 + 5000)))
    assert g.info().bytes > 2 * first and before != g.to_bytes()
    # max_bytes at construction: refused before anything is allocated, else the limit
    with pytest.raises(ValueError, match="^GrowingCuckoo: "):
        fl.GrowingCuckoo(10**6, max_bytes=4096)
    h = fl.GrowingCuckoo(1000, max_bytes=first)
    assert h.info().byte_limit == first


def test_full_at_the_growth_limit_and_on_piled_copies():
    g = fl.GrowingCuckoo(8)
    for _ in range(8):
        g.add(b"same")
    with pytest.raises(fl.FullError, match="^add: "):
        g.add(b"same")  # nine copies cannot fit the key's 8 slots; nothing changed
    assert g.count(b"same") == 8 and g.info().doublings == 0


def test_bytes_and_files_round_trip(tmp_path):
    g = fl.GrowingCuckoo(1000, seed=5)
    keys = keyset("f", 10_000)
    g.add_many(keys)
    g.bind_kernel("scalar")
    data = g.to_bytes()
    back = fl.GrowingCuckoo.from_bytes(data)
    assert back.to_bytes() == data and back.contains_many(keys).all()
    assert back.info().doublings == g.info().doublings and back.info().seed == 5
    path = tmp_path / "g.flt"
    g.save(path)
    loaded = fl.GrowingCuckoo.load(path, max_bytes=g.info().bytes)
    assert loaded.to_bytes() == data
    # the load's cap becomes the byte limit: the loaded filter may not double past it
    assert loaded.info().byte_limit == g.info().bytes
    loaded.delete(keys[0])
    assert len(loaded) == len(g) - 1
    f = fl.Filter(n=100, fpr=0.01)
    again = read_back_refusing_other_kinds(fl.GrowingCuckoo, g, f.to_bytes(), len(data),
                                           tmp_path / "missing")
    assert again.to_bytes() == data


def test_truncated_and_bit_flipped_bytes_are_refused():
    g = fl.GrowingCuckoo(300)
    g.add_many(keyset("t", 2000))
    data = g.to_bytes()
    for cut in list(range(0, 200, 7)) + [len(data) - 1, len(data) - 8, len(data) // 2]:
        with pytest.raises(fl.FormatError, match="^from_bytes: "):
            fl.GrowingCuckoo.from_bytes(data[:cut])
    with pytest.raises(fl.FormatError):
        fl.GrowingCuckoo.from_bytes(data + b"\0")
    rng = np.random.default_rng(3)
    for at in rng.integers(0, len(data), 64):
        bad = bytearray(data)
        bad[at] ^= 1 << int(rng.integers(0, 8))
        with pytest.raises(fl.FormatError):
            fl.GrowingCuckoo.from_bytes(bytes(bad))


def test_bad_arguments():
    with pytest.raises(ValueError, match="capacity must be at least 1"):
        fl.GrowingCuckoo(0)
    with pytest.raises((ValueError, OverflowError)):
        fl.GrowingCuckoo(-5)
    with pytest.raises(TypeError):
        fl.GrowingCuckoo("100")
    with pytest.raises(TypeError):
        fl.GrowingCuckoo(100, 3)  # seed is keyword-only
    with pytest.raises(ValueError, match="^GrowingCuckoo: "):
        fl.GrowingCuckoo(2**62)  # beyond 2^32 buckets
    g = fl.GrowingCuckoo(100)
    with pytest.raises((ValueError, OverflowError)):
        g.add_hash(-1)
    with pytest.raises(TypeError):
        g.set_byte_limit("big")
    with pytest.raises(TypeError):
        g.contains_many(keyset("x", 3), out=np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError):
        g.contains_many(keyset("x", 3), out=np.zeros(2, dtype=bool))
    assert "GrowingCuckoo" in repr(g)


def test_every_kernel_answers_alike_and_benchmark_kernels():
    g = fl.GrowingCuckoo(2000)
    g.add_many(np.arange(0, 30_000, 2, dtype=np.uint64))  # grown: two doublings
    probe = np.arange(0, 40_000, dtype=np.uint64)
    answers = {}
    for name in [k.name for k in fl.kernels() if k.supported]:
        g.bind_kernel(name)
        assert g.kernel == name and g.bound_kernel == name
        answers[name] = g.contains_many(probe)
    for name, a in answers.items():
        assert (a == answers["scalar"]).all(), name
    assert answers["scalar"][:30_000:2].all()
    g.bind_kernel(None)
    timings = fl.benchmark_kernels(g, probe, repeat=1)
    assert len(timings) == len(answers) and g.bound_kernel is None


def test_threads_read_while_one_writes():
    import threading
    g = fl.GrowingCuckoo(1000)
    base = np.arange(1, 5001, dtype=np.uint64)
    g.add_many(base)
    errors = []

    def reader():
        for _ in range(50):
            if not g.contains_many(base).all():
                errors.append("a key added before the readers started went missing")

    def writer():
        for i in range(20):  # doublings while the readers look up
            g.add_many(np.arange(10**6 + i * 2000, 10**6 + (i + 1) * 2000, dtype=np.uint64))

    threads = [threading.Thread(target=reader) for _ in range(3)] + [threading.Thread(target=writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and g.info().doublings >= 3
