"""A BF value's dump taken apart and put back together, for tests that feed the module a
crafted one: BF.SCANDUMP's chunks (redis/chunk.h) reassembled into the chain's file
(src/sbf/codec_sbf.c in a format-2 container, src/format/container.c), a field of its SBFH
section changed with the section's checksum recomputed, and the file cut into chunks again
for BF.LOADCHUNK. XXH3-64, which both formats use, comes from the system's libxxhash (the
library the module links), through ctypes.
"""
import ctypes
import ctypes.util
import struct

_lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
_lib.XXH3_64bits.restype = ctypes.c_uint64
_lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

CHUNK_HEADER = 48
CHUNK_KIND_BF = 1
# SBFH fields (src/sbf/codec_sbf.c): offset in the section, struct format.
SBFH_FIELDS = {"error_rate": (16, "<d"), "growth": (24, "<d"), "tightening": (32, "<d"),
               "max_bytes": (56, "<Q")}


def xxh3(data):
    return _lib.XXH3_64bits(bytes(data), len(data))


def blob_of(chunks):
    """The file a SCANDUMP's chunks carry (their pieces in order)."""
    return b"".join(data[CHUNK_HEADER:] for _, data in chunks)


def with_sbfh(blob, **fields):
    """The chain file with SBFH fields replaced (SBFH_FIELDS), its checksum resealed."""
    out = bytearray(blob)
    # The section table starts at 24: tag, flags (u32 each), offset, length (u64 each).
    tag, _, off, length = struct.unpack_from("<4sIQQ", out, 24)
    assert tag == b"SBFH", tag
    for name, value in fields.items():
        at, fmt = SBFH_FIELDS[name]
        struct.pack_into(fmt, out, off + at, value)
    struct.pack_into("<Q", out, off + length, xxh3(out[off:off + length]))
    return bytes(out)


def chunks_of(blob, piece=1 << 20, kind=CHUNK_KIND_BF):
    """BF.LOADCHUNK's (iterator, chunk) pairs for a blob (kind: redis/chunk.h's, 2 for CF)."""
    blob_hash, out = xxh3(blob), []
    for i, at in enumerate(range(0, len(blob), piece)):
        part = blob[at:at + piece]
        head = b"FLRC" + struct.pack("<HHQQII", 1, kind, len(blob), at, len(part), 0)
        head += struct.pack("<Q", blob_hash)
        head += struct.pack("<Q", xxh3(head + part))
        out.append((i + 1, head + part))
    return out
