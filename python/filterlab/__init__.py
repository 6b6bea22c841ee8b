"""filterlab: Bloom, cuckoo, counting and scalable Bloom filters, Count-Min and HyperLogLog,
and the static binary fuse filter and Bloomier map, with SIMD kernels, on NumPy arrays
without copies.

    import numpy as np, filterlab
    f = filterlab.Filter(n=1_000_000, fpr=0.01, variant="block512")
    keys = np.arange(1_000_000, dtype=np.uint64)
    f.add_many(keys)
    f.contains_many(keys).all()          # True: never a false negative

Batches (add_many, contains_many, query_many) take a NumPy uint64 array of keys (or of
64-bit hashes with hashes=True), read in place, or a sequence of bytes/str (or of ints);
they release the GIL. Errors carry the library's message: ValueError for bad parameters,
FormatError (a ValueError) for a bad file, OSError for I/O, MemoryError, FullError,
BuildError (a static structure's construction failed for every seed tried).

FuseFilter and Bloomier are built once from a whole key set (a uint64 array or a sequence of
bytes/str/ints; a bytes/str key is XXH3-64 of its bytes, as `filterlab build-static` hashes
lines) and answer lookups only:

    f = filterlab.FuseFilter(keys, fingerprint_bits=8)           # ~9 bits per key, FPR 1/256
    m = filterlab.Bloomier(keys, values, value_bits=12)          # a static map to 12-bit values
    values, found = m.get_many(keys)                             # found: the mask
"""
from __future__ import annotations

import time
from typing import Iterable, List, Optional

from ._filterlab import (  # noqa: F401
    Bloomier,
    BuildError,
    CompressedBloom,
    CountMin,
    Filter,
    FormatError,
    FullError,
    FuseFilter,
    GrowingCuckoo,
    HyperLogLog,
    LayeredBloom,
    ScalableBloom,
    active_kernel,
    hash_u64,
    kernel_choices,
    kernel_wisdom,
    kernel_reason,
    kernels,
    library_version,
    params,
    select_kernel,
)
from ._info import (  # noqa: F401
    CompressedBloomInfo,
    CompressedPlan,
    CountMinInfo,
    FilterInfo,
    GrowingCuckooInfo,
    HyperLogLogInfo,
    KernelChoice,
    KernelInfo,
    KernelTiming,
    LayeredBloomInfo,
    Params,
    ScalableBloomInfo,
    StaticInfo,
    SubFilterInfo,
)

__version__ = library_version

__all__ = [
    "Filter", "ScalableBloom", "CountMin", "HyperLogLog", "FormatError", "FullError",
    "kernels", "select_kernel", "active_kernel", "kernel_reason", "kernel_choices",
    "kernel_wisdom", "benchmark_kernels",
    "hash_u64", "params", "FilterInfo", "ScalableBloomInfo", "SubFilterInfo", "CountMinInfo",
    "HyperLogLogInfo", "KernelChoice", "KernelInfo", "KernelTiming", "Params",
    "FuseFilter", "Bloomier", "BuildError", "StaticInfo",
    "LayeredBloom", "LayeredBloomInfo", "CompressedBloom", "CompressedBloomInfo",
    "CompressedPlan", "GrowingCuckoo", "GrowingCuckooInfo",
]

# The read-only batch call of each class: what benchmark_kernels times by default (it must
# not change the structure, so each repeat sees the same state).
_LOOKUP = {Filter: "contains_many", ScalableBloom: "contains_many", CountMin: "query_many",
           FuseFilter: "contains_many", Bloomier: "get_many"}
# The classes whose batches take keys only (a static structure hashes its 64-bit keys with its
# own seed): no hashes= argument.
_KEYS_ONLY = (FuseFilter, Bloomier)
_LOOKUP[LayeredBloom] = "count_many"
_LOOKUP[GrowingCuckoo] = "contains_many"


def benchmark_kernels(obj, keys, *, hashes: bool = False, repeat: int = 5,
                      method: Optional[str] = None,
                      kernels_to_try: Optional[Iterable[str]] = None) -> List[KernelTiming]:
    """Times one batch call on obj with every kernel this machine can run.

    The object is bound to each kernel in turn (bind_kernel) and `method` (default: the
    class's lookup, contains_many or query_many) runs `repeat` times on `keys`; the fastest
    run is kept (the least disturbed by other processes). The object's own binding is
    restored afterwards. For a HyperLogLog give method="add_many" on a copy: it changes the
    sketch. FuseFilter and Bloomier (contains_many, get_many) take keys, never hashes: their
    calls get no hashes= argument. Returns one KernelTiming per kernel, in the library's order.
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    name = method or next((m for t, m in _LOOKUP.items() if isinstance(obj, t)), None)
    if name is None:
        raise TypeError(f"give method= for a {type(obj).__name__}")
    call = getattr(obj, name)
    keys_only = isinstance(obj, _KEYS_ONLY)
    if keys_only and hashes:
        raise ValueError(f"a {type(obj).__name__} takes keys, not hashes")
    how = {} if keys_only else {"hashes": hashes}
    names = list(kernels_to_try) if kernels_to_try is not None else [
        k.name for k in kernels() if k.supported]
    n = len(keys)
    previous = obj.bound_kernel
    out = []
    try:
        for kernel in names:
            obj.bind_kernel(kernel)
            call(keys, **how)  # warm: pages touched, caches filled
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                call(keys, **how)
                best = min(best, time.perf_counter() - t0)
            out.append(KernelTiming(kernel, n, best, best * 1e9 / n if n else 0.0))
    finally:
        obj.bind_kernel(previous)
    return out
