#!/usr/bin/env python3
"""Two seed 003 claims that need no filterlab program, measured in Python (seconds):

  - 9.2: "A Python set storing 1 million URLs (50 chars average) requires at least 100MB+":
    the bytes tracemalloc attributes to building such a set (the set's table and its strings).
  - 9.17, Pitfall 2: "hash() + offset is NOT independent hashing" and "double hashing
    g_i(x) = h1(x) + i h2(x) theoretically performs identically to k fully independent hash
    functions" (Kirsch and Mitzenmacher 2006): the FPR of one Bloom filter design (m bits, k
    positions, n keys) under three ways of choosing the k positions, each measured on many
    independent filters: k independent hashes, double hashing, and the seed's bad_hash
    (hash(item) + i) % m. The hashes are BLAKE2b (hashlib) with a per-filter salt, so every
    filter is an independent draw and the run is reproducible.

  pyexp.py OUT_JSON [--quick|--tiny]

Its `experiment` below (scripts/reproduce's experiment `py`) runs it; it can also add its
file to an existing run's data/ (then run.py --report-only). The file records where and with what it ran."""

import hashlib
import json
import os
import platform
import sys
import time
import tracemalloc

SIZES = {
    # m = 1000 is the seed's bad_hash modulus; n = 100 gives m/n = 10 bits per key, where k = 7
    # is the optimum the seed's examples use
    "quick": dict(set_n=1_000_000, url_len=50, m=1000, k=7, n=100, filters=400, queries=2000),
    "tiny": dict(set_n=20_000, url_len=50, m=1000, k=7, n=100, filters=40, queries=500),
}


def url(i, length):
    """A distinct URL of exactly `length` characters (the seed's 50 on average)."""
    head = "https://example.com/p/%d/" % i
    return (head + "x" * length)[:length] if len(head) < length else head


def python_set_bytes(n, length):
    """Bytes allocated while building a set of n distinct URLs of `length` characters (the
    strings and the set's table; tracemalloc counts what the interpreter allocates)."""
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    s = {url(i, length) for i in range(n)}
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert len(s) == n
    return {"n": n, "url_chars": length, "bytes": used, "set_table_bytes": sys.getsizeof(s),
            "bytes_per_url": used / n}


def _h64(data, salt):
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, salt=salt).digest(), "little")


def positions(scheme, key, m, k, salt):
    b = key.encode()
    if scheme == "independent":
        return [_h64(b + bytes([i]), salt) % m for i in range(k)]
    if scheme == "double":
        h = hashlib.blake2b(b, digest_size=16, salt=salt).digest()
        h1, h2 = int.from_bytes(h[:8], "little"), int.from_bytes(h[8:], "little")
        return [(h1 + i * h2) % m for i in range(k)]
    if scheme == "offset":  # the seed's bad_hash: (hash(item) + seed) % 1000, seed = 0 .. k-1
        h = _h64(b, salt)
        return [(h + i) % m for i in range(k)]
    raise ValueError(scheme)


def hashing_fpr(m, k, n, filters, queries):
    res = {}
    for scheme in ("independent", "double", "offset"):
        fp = 0
        for f in range(filters):
            salt = f.to_bytes(8, "little") + b"filterlb"
            bits = bytearray(m)
            for i in range(n):
                for p in positions(scheme, "key-%d" % i, m, k, salt):
                    bits[p] = 1
            for q in range(queries):
                if all(bits[p] for p in positions(scheme, "query-%d" % q, m, k, salt)):
                    fp += 1
        total = filters * queries
        res[scheme] = {"false_positives": fp, "queries": total, "fpr": fp / total}
    return {"m": m, "k": k, "n": n, "filters": filters, "queries_per_filter": queries, "schemes": res}


def main():
    out = sys.argv[1]
    mode = "tiny" if "--tiny" in sys.argv else "quick"
    c = SIZES[mode]
    t0 = time.time()
    d = {"mode": mode,
         "python_set": python_set_bytes(c["set_n"], c["url_len"]),
         "hashing": hashing_fpr(c["m"], c["k"], c["n"], c["filters"], c["queries"]),
         "context": {"tool": "scripts/repro/pyexp.py", "python": platform.python_version(),
                     "implementation": platform.python_implementation(), "machine": platform.machine(),
                     "seconds": round(time.time() - t0, 1)}}
    with open(out + ".tmp", "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    os.replace(out + ".tmp", out)



EXPERIMENT = ("py", "tables 2 and 4: a Python set of 1M URLs, offset vs double hashing (pyexp.py, seconds)")
WRITES = ("py_claims.json",)

# ---- the experiment: what scripts/reproduce runs for the tables that read it (experiments.Runner) ----

def experiment(r):
    out = r.path("py_claims.json")
    r.run([sys.executable, os.path.join(r.repro_dir, "pyexp.py"), out] + (["--tiny"] if r.mode == "tiny" else []),
          "py")
    r.stamp_json(out)


if __name__ == "__main__":
    main()
