"""Kernels (list, per process, per object, benchmark) and the GIL."""
import threading
import time

import numpy as np
import pytest

import filterlab as fl

SUPPORTED = [k.name for k in fl.kernels() if k.supported]


def test_kernel_list():
    ks = fl.kernels()
    assert ks and all(isinstance(k, fl.KernelInfo) for k in ks)
    assert "scalar" in SUPPORTED
    assert fl.active_kernel() in SUPPORTED + ["auto"]
    assert fl.kernel_reason()


def test_kernel_choices():
    """Every module entry and size class has a runnable kernel and a reason."""
    choices = fl.kernel_choices()
    assert all(isinstance(c, fl.KernelChoice) for c in choices)
    entries = {c.entry for c in choices}
    assert {"bloom.contains.classic", "cuckoo.contains.fp8", "cms.query", "hll.add",
            "hash.u64", "fuse.contains.3_8", "bloomier.get.4_32"} <= entries
    assert len(choices) == 4 * len(entries)
    assert {c.size_class for c in choices} == {"L1", "L2", "LLC", "DRAM"}
    for c in choices:
        assert c.kernel.split("-")[0] in SUPPORTED, c  # "avx2-loads" is the avx2 table's
        assert c.reason, c
    path, status = fl.kernel_wisdom()
    assert isinstance(path, str) and status.split(":")[0] in ("used", "ignored", "none", "off")
    before = fl.active_kernel()
    try:
        fl.select_kernel("scalar")
        assert all(c.kernel == "scalar" for c in fl.kernel_choices())
    finally:
        fl.select_kernel(before)


@pytest.mark.parametrize("variant", ["classic", "block512", "split256", "reg64", "cuckoo",
                                     "counting", "counting512"])
def test_every_kernel_answers_alike(variant):
    f = fl.Filter(n=20000, fpr=0.02, variant=variant)
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 2**64, size=40000, dtype=np.uint64)
    f.add_many(keys[:20000])
    answers = {}
    for name in SUPPORTED:
        f.bind_kernel(name)
        assert f.kernel == name and f.bound_kernel == name
        answers[name] = f.contains_many(keys)
    f.bind_kernel(None)
    assert f.bound_kernel is None and f.kernel == fl.active_kernel()
    ref = answers["scalar"]
    for name, a in answers.items():
        assert (a == ref).all(), name


def test_select_kernel_per_process():
    before = fl.active_kernel()
    f = fl.Filter(n=100, fpr=0.01)
    try:
        fl.select_kernel("scalar")
        assert fl.active_kernel() == "scalar" and f.kernel == "scalar"
        if len(SUPPORTED) > 1:
            other = [k for k in SUPPORTED if k != "scalar"][0]
            f.bind_kernel(other)
            assert f.kernel == other  # a bound object keeps its kernel
    finally:
        fl.select_kernel(before)


def test_sketch_kernels_agree():
    keys = np.arange(50000, dtype=np.uint64)
    counts, strings = {}, {}
    for name in SUPPORTED:
        c = fl.CountMin(width=1000, depth=4)
        c.bind_kernel(name)
        c.add_many(keys % 777)
        counts[name] = c.query_many(keys[:1000])
        h = fl.HyperLogLog()
        h.bind_kernel(name)
        h.add_many(keys)
        strings[name] = h.to_redis()
        s = fl.ScalableBloom(1000, 0.01)
        s.bind_kernel(name)
        s.add_many(keys[:5000])
        assert s.kernel == name and s.contains_many(keys[:5000]).all()
    for name in SUPPORTED:
        assert (counts[name] == counts["scalar"]).all()
        assert strings[name] == strings["scalar"]


def test_benchmark_kernels_restores_binding():
    f = fl.Filter(n=10000, fpr=0.01)
    keys = np.arange(10000, dtype=np.uint64)
    f.add_many(keys)
    f.bind_kernel("scalar")
    timings = fl.benchmark_kernels(f, keys, repeat=2)
    assert [t.kernel for t in timings] == SUPPORTED
    assert all(t.seconds > 0 and t.keys == 10000 for t in timings)
    assert f.bound_kernel == "scalar"
    c = fl.CountMin(width=100, depth=3)
    assert len(fl.benchmark_kernels(c, keys, repeat=1)) == len(SUPPORTED)
    with pytest.raises(TypeError):
        fl.benchmark_kernels(fl.HyperLogLog(), keys)
    assert len(fl.benchmark_kernels(fl.HyperLogLog(), keys, method="add_many", repeat=1))


def test_gil_is_released_during_batches():
    """Another Python thread runs while a batch call is inside C.

    If the GIL were held, the counting thread could not run between the call's start and
    end (a thread inside a C call is never preempted for the GIL)."""
    f = fl.Filter(n=1_000_000, fpr=0.01, variant="counting")
    keys = np.arange(4_000_000, dtype=np.uint64)
    window = {}
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.monotonic())

    t = threading.Thread(target=count)
    t.start()
    try:
        time.sleep(0.01)
        for _ in range(3):  # long enough (well over the 5 ms switch interval) on any machine
            window["start"] = time.monotonic()
            f.contains_many(keys)
            f.add_many(keys[:1_000_000])
            window["end"] = time.monotonic()
            inside = sum(1 for x in ticks if window["start"] < x < window["end"])
            if inside > 100:
                break
    finally:
        stop.set()
        t.join()
    assert inside > 100, f"only {inside} ticks of another thread during the batch calls"


def test_threads_share_one_object_safely():
    """Adds (which grow a chain and reallocate) and lookups from several threads at once:
    the object's lock keeps them apart; no crash, no false negative."""
    s = fl.ScalableBloom(100, 0.01)
    h = fl.HyperLogLog()
    errors = []

    def writer(base):
        try:
            for i in range(20):
                ks = np.arange(base + i * 500, base + (i + 1) * 500, dtype=np.uint64)
                s.add_many(ks)
                h.add_many(ks)
                assert s.contains_many(ks).all()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def reader():
        try:
            for _ in range(50):
                s.contains_many(np.arange(0, 5000, dtype=np.uint64))
                h.count()
                s.info()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(b,)) for b in (0, 10**6)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert s.contains_many(np.arange(0, 10000, dtype=np.uint64)).all()
    assert len(s) <= 20000
