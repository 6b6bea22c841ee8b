"""Table 11's check of which estimator Redis's PFCOUNT uses (seed 003: "Redis implements the
improved correction strategy proposed by Google (Heule, Nunkesser & Hall, 2013)").

Starts Debian's redis-server on 127.0.0.1 on a free port (persistence off, its own folder),
bounded in time and stopped by PID on every path; PFADDs keys "k:0", "k:1", ... into one key
and at each checkpoint GETs the raw string before PFCOUNT (so the cached count is stale), then
compares PFCOUNT with
  - filterlab's estimator (`filterlab count --from` on the same string: Ertl's improved
    estimator, arXiv:1702.01284, the one filterlab implements for Redis),
  - the 2007 paper's (raw harmonic mean, linear counting below 2.5 m; Flajolet et al. 2007),
  - the raw harmonic mean alone (seed 000's estimate),
the last two computed here from the registers decoded from Redis's string (its sparse
ZERO/XZERO/VAL opcodes or its dense 6-bit registers, as Redis's hyperloglog.c lays them out).
Also records the longest sparse string Redis kept while keys arrived one at a time.

  redis_pfcount.py FILTERLAB OUT.json [--max-card N] [--seconds S]
"""

import argparse
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

P = 14
M = 1 << P
HEADER = 16


def registers(raw):
    """The 16384 register values of a Redis HLL string (sparse or dense)."""
    if raw[:4] != b"HYLL":
        raise ValueError("not a Redis HLL string")
    body = raw[HEADER:]
    if raw[4] == 0:  # dense: 6-bit registers, little-endian bit order
        regs = []
        for i in range(M):
            bit = 6 * i
            b0 = body[bit // 8]
            b1 = body[bit // 8 + 1] if bit // 8 + 1 < len(body) else 0
            regs.append(((b0 >> (bit & 7)) | (b1 << (8 - (bit & 7)))) & 63)
        return regs
    regs = []
    i = 0
    while i < len(body):
        op = body[i]
        if op & 0xC0 == 0x00:       # ZERO: 00xxxxxx, run of xxxxxx + 1 zeros
            regs += [0] * ((op & 0x3F) + 1)
            i += 1
        elif op & 0xC0 == 0x40:     # XZERO: 01xxxxxx yyyyyyyy, run of 14-bit length + 1
            regs += [0] * ((((op & 0x3F) << 8) | body[i + 1]) + 1)
            i += 2
        else:                       # VAL: 1vvvvvxx, value vvvvv + 1 repeated xx + 1 times
            regs += [((op >> 2) & 0x1F) + 1] * ((op & 3) + 1)
            i += 1
    if len(regs) != M:
        raise ValueError("sparse string covers %d registers" % len(regs))
    return regs


def estimates_2007(regs):
    m = len(regs)
    alpha = 0.7213 / (1 + 1.079 / m)
    raw = alpha * m * m / sum(2.0 ** -r for r in regs)
    zeros = regs.count(0)
    paper = m * math.log(m / zeros) if raw <= 2.5 * m and zeros else raw
    return raw, paper


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(filterlab, max_card, seconds):
    import redis  # Debian's python3-redis (scripts/setup)
    server_bin = shutil.which("redis-server")
    if not server_bin:
        return {"skipped": "redis-server is not installed"}
    deadline = time.monotonic() + seconds
    tmp = tempfile.mkdtemp(prefix="fl_repro_redis_")
    server = None
    try:
        port = free_port()
        server = subprocess.Popen([server_bin, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no", "--dir", tmp],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=60)
        while True:
            try:
                r.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None or time.monotonic() > deadline:
                    return {"skipped": "redis-server did not start"}
                time.sleep(0.05)
        version = r.info("server")["redis_version"]

        # the sparse string, keys one at a time, until Redis promotes it
        longest, n = 0, 0
        while n < 100000:
            r.execute_command("PFADD", "s", b"s:%d" % n)
            n += 1
            raw = r.get("s")
            if raw[4] != 1:
                break
            longest = max(longest, len(raw))
        promotion = {"longest_sparse_bytes": longest, "keys_at_promotion": n,
                     "hll_sparse_max_bytes": int(r.config_get("hll-sparse-max-bytes")["hll-sparse-max-bytes"])}

        checkpoints = sorted({c for c in [10, 100, 500, 1000, 2000, 5000, 10000, 15000, 20000, 30000, 40000,
                                          50000, 60000, 80000, 100000, 200000, 500000, 1000000, 10000000]
                              if c <= max_card})
        points, have = [], 0
        for card in checkpoints:
            if time.monotonic() > deadline:
                break
            pipe = r.pipeline(transaction=False)
            while have < card:
                hi = min(card, have + 1000)
                pipe.execute_command("PFADD", "a", *[b"k:%d" % i for i in range(have, hi)])
                have = hi
                if len(pipe) >= 100:
                    pipe.execute()
            pipe.execute()
            raw = r.get("a")  # before PFCOUNT: the cached count is stale
            path = os.path.join(tmp, "a.hll")
            with open(path, "wb") as f:
                f.write(raw)
            fl = subprocess.run([filterlab, "count", "--from", path], capture_output=True, text=True,
                                timeout=max(1, deadline - time.monotonic()))
            pf = r.execute_command("PFCOUNT", "a")
            raw_est, paper = estimates_2007(registers(raw))
            points.append({"card": card, "encoding": "sparse" if raw[4] == 1 else "dense", "pfcount": pf,
                           "filterlab": int(fl.stdout) if fl.returncode == 0 else None,
                           "paper2007": int(paper), "raw": int(raw_est)})
        return {"redis_version": version, "points": points, "promotion": promotion}
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(5)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("filterlab")
    ap.add_argument("out")
    ap.add_argument("--max-card", type=int, default=1000000)
    ap.add_argument("--seconds", type=float, default=120)
    a = ap.parse_args()
    try:
        doc = run(a.filterlab, a.max_card, a.seconds)
    except ImportError:
        doc = {"skipped": "the Python redis client is not installed (scripts/setup installs python3-redis)"}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    if "skipped" in doc:
        sys.stderr.write("redis_pfcount: skipped: %s\n" % doc["skipped"])
    else:
        agree = sum(p["pfcount"] == p["filterlab"] for p in doc["points"])
        sys.stderr.write("redis_pfcount: redis %s, PFCOUNT = filterlab at %d of %d points\n" % (
            doc["redis_version"], agree, len(doc["points"])))


if __name__ == "__main__":
    main()
