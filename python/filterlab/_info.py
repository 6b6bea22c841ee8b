"""Dataclasses the extension returns from info(), kernels() and params().

They live in Python so that they are ordinary frozen dataclasses (fields, repr, equality,
dataclasses.asdict); the C code fills them by keyword (python/src/*.c).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Tuple


@dataclass(frozen=True)
class FilterInfo:
    """What fl_get_info reports about a Filter."""

    variant: str
    units: int
    k: int
    geometry: str  # in words, e.g. "19372 blocks of 64 bytes, k = 6"
    hash: str  # "xxh3" or "xxh64"
    seed: int
    keys: int  # inserts (Bloom: duplicates included; cuckoo: stored copies); see keys_estimated
    # True after a union of two filters that both held keys: keys is then the distinct keys
    # estimated from the fill (their overlap is unknown), plus inserts since; clear() resets it
    keys_estimated: bool
    bytes: int  # payload bytes
    bits_set: int  # Bloom: set bits (counting: nonzero counters); cuckoo: occupied slots
    fill: float
    keys_from_fill: float  # distinct keys estimated from the fill (Swamidass and Baldi 2007)
    predicted_fpr: float
    stash_used: int
    huge_pages: bool
    saturated: int  # counting variants: counters stuck at 15
    kernel: str


@dataclass(frozen=True)
class SubFilterInfo:
    """One sub-filter of a ScalableBloom chain (variant: the chain's, or classic where the
    chain fell back to it, see fl_sbf_config.layout_slack)."""

    geometry: str
    variant: str
    units: int
    k: int
    capacity: int
    items: int
    target_fpr: float
    predicted_fpr: float
    bytes: int


@dataclass(frozen=True)
class ScalableBloomInfo:
    """What fl_sbf_get_info reports, with one SubFilterInfo per sub-filter (oldest first)."""

    capacity: int
    total_capacity: int
    items: int
    error_rate: float
    growth: float
    tightening: float
    variant: str
    hash: str
    seed: int
    scaling: bool
    max_filters: int
    max_bytes: int
    byte_limit: int
    bytes: int
    predicted_fpr: float
    kernel: str
    filters: List[SubFilterInfo] = field(default_factory=list)


@dataclass(frozen=True)
class GrowingCuckooInfo:
    """What fl_gcf_info_get reports about a GrowingCuckoo (include/filterlab_gcf.h)."""

    buckets: int
    columns: int
    window_bits: int
    bucket_bits: int
    doublings: int
    bytes: int
    seed: int
    items: int
    slots: int
    capacity: int
    max_capacity: int
    load: float
    bits_per_key: float
    fpr: float
    items_by_ext: Tuple[int, ...]
    byte_limit: int
    kernel: str


@dataclass(frozen=True)
class CountMinInfo:
    """What fl_cms_info_get reports about a CountMin sketch."""

    width: int
    depth: int
    seed: int
    conservative: bool
    bytes: int
    total: int
    total_saturated: bool
    saturated: int
    epsilon: float  # e / width
    delta: float  # e ** -depth
    topk: int
    candidates: int
    kernel: str


@dataclass(frozen=True)
class HyperLogLogInfo:
    """What fl_hll_info_get reports about a HyperLogLog sketch."""

    precision: int
    registers: int
    encoding: str  # "sparse" or "dense"
    registers_set: int
    max_register: int
    redis_bytes: int
    memory_bytes: int
    std_error: float
    cache_valid: bool
    cached_count: int
    sparse_max_bytes: int
    kernel: str


@dataclass(frozen=True)
class KernelChoice:
    """The kernel one module entry uses at one payload size class, and why
    (fl_kernel_choice)."""

    entry: str  # "bloom.contains.classic", "cms.query", ...
    size_class: str  # "L1", "L2", "LLC", "DRAM"
    kernel: str
    reason: str  # "measured here on ... by filterlab tune: ...", "rule: ...", "forced by ..."


@dataclass(frozen=True)
class KernelInfo:
    """A compiled kernel (fl_kernel_describe)."""

    name: str
    compiled: bool
    supported: bool  # this CPU and OS can run it
    emulated: bool  # runs through SIMDe on a foreign ISA (correct, not fast)
    requires: str


@dataclass(frozen=True)
class Params:
    """The geometry fl_params_for picks for n keys at a target FPR."""

    variant: str
    units: int
    k: int
    geometry: str
    bits: int
    bytes: int
    bits_per_key: float
    predicted_fpr: float


@dataclass(frozen=True)
class KernelTiming:
    """One kernel's time on a batch (benchmark_kernels)."""

    kernel: str
    keys: int
    seconds: float  # the fastest of the repeats
    ns_per_key: float


@dataclass(frozen=True)
class StaticInfo:
    """What fl_fuse_info / fl_bloomier_info report about a FuseFilter or a Bloomier map."""

    arity: int  # 3 or 4 cells per key
    cell_bits: int  # FuseFilter: fingerprint bits; Bloomier: cell bits
    value_bits: int  # Bloomier: value width; 0 for a FuseFilter
    segment_length: int
    segment_count: int
    cells: int
    keys: int  # distinct keys stored
    duplicates: int  # keys given more than once (0 after a load)
    seed: int  # the seed that worked
    tries: int  # construction tries, 1 = the first seed (0 after a load)
    bytes: int  # the cell array
    build_bytes: int  # peak temporary memory of the construction (0 after a load)
    build_seconds: float  # wall time of the construction (0 after a load)
    bits_per_key: float  # bytes * 8 / keys (0 for an empty set)
    fpr: float  # 2**-(cell_bits - value_bits): a non-key's chance of a match
    kernel: str


@dataclass(frozen=True)
class LayeredBloomInfo:
    """What fl_lbf_get_info reports about a LayeredBloom (every layer has one geometry)."""

    layers: int  # R
    capacity: int  # distinct keys each layer is sized for
    fpr: float  # each layer's target FPR (PF)
    variant: str
    hash: str
    seed: int
    geometry: str  # every layer's
    units: int
    k: int
    adds: int  # adds that changed the filter (saturated ones not counted)
    deletes: int
    bytes: int  # payload bytes of all layers
    can_delete: bool
    kernel: str
    layer_keys: List[int] = field(default_factory=list)  # keys layer i holds


@dataclass(frozen=True)
class CompressedBloomInfo:
    """What fl_cbf_get_info reports about a CompressedBloom."""

    variant: str
    units: int
    k: int
    geometry: str
    hash: str
    seed: int
    keys: int
    coder: str  # "golomb" or "zstd"
    chunk_bytes: int
    chunks: int
    payload_bytes: int  # uncompressed
    compressed_bytes: int  # the chunks' codes together
    index_bytes: int  # the chunk index
    ones: int  # set bits of the payload
    entropy_bits: float  # m H(ones / m): the bound an optimal coder reaches for this payload


@dataclass(frozen=True)
class CompressedPlan:
    """A compressed Bloom filter's sizing (fl_cbf_plan; Mitzenmacher 2002, section III)."""

    variant: str
    units: int
    k: int
    geometry: str
    bits: int  # m: uncompressed payload bits
    zero_fraction: float  # p: expected fraction of 0 bits at n keys
    entropy_bits: float  # m H(p): the compressed size an optimal coder reaches
    fpr: float  # the variant's model at n keys
