#!/usr/bin/python3
"""HyperLogLog interop with a real redis-server (Debian's, installed by scripts/setup).

    tests/redis/test_hll_interop.py FILTERLAB_BINARY

Starts redis-server on 127.0.0.1 on a free port with persistence off, bounded in time, and
stops it by PID on every exit path (tests/redis/redis_server.py). For cardinalities from 1
to 1e6 (sparse and dense):
  - PFADD the keys, GET the raw string: `filterlab count --from` gives exactly PFCOUNT's number;
  - `filterlab count` over the same keys writes exactly the bytes Redis holds after PFCOUNT;
  - filterlab's export, SET back with its cached count marked stale, gives filterlab's number
    from PFCOUNT (Redis recomputes it from filterlab's registers);
  - PFMERGE a b gives the bytes of `filterlab hll-merge a b`, and PFMERGE into a new key the
    same count;
  - malformed strings are refused by both.
Exit 77 (skipped) when redis-server or the Python client is missing.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redis_server import Deadline, RedisServer, skip_if_unavailable  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

skip_if_unavailable()
import redis  # noqa: E402

FILTERLAB = os.path.abspath(sys.argv[1])
# In a cross build meson names its exe_wrapper (qemu-aarch64) in MESON_EXE_WRAPPER: the
# foreign filterlab runs through it, against the native redis-server.
WRAPPER = shlex.split(os.environ.get("MESON_EXE_WRAPPER", ""))
DEADLINE = Deadline(240)  # the whole test, server start included
TMP = tempfile.mkdtemp(prefix="fl_hll_interop_")  # filterlab's files and the server's dir


def fl(args, data=None):
    return subprocess.run(WRAPPER + [FILTERLAB] + args, input=data, capture_output=True,
                          timeout=DEADLINE.left())


def path(name):
    return os.path.join(TMP, name)


def keys(lo, hi):
    return [b"key:%d" % i for i in range(lo, hi)]


def pfadd(r, key, ks):
    pipe = r.pipeline(transaction=False)
    for i in range(0, len(ks), 1000):
        pipe.execute_command("PFADD", key, *ks[i:i + 1000])
    pipe.execute()


def run(r):
    for n in (1, 2, 10, 100, 700, 1500, 3000, 10000, 100000, 1000000):
        DEADLINE.left()
        ks = keys(0, n)
        r.delete("a")
        pfadd(r, "a", ks)
        raw = r.get("a")  # cached count still stale: filterlab must compute it
        enc = "sparse" if raw[4] == 1 else "dense"
        with open(path("a.hll"), "wb") as f:
            f.write(raw)
        want = r.execute_command("PFCOUNT", "a")
        got = fl(["count", "--from", path("a.hll")])
        check(got.returncode == 0 and int(got.stdout) == want,
              f"n={n} ({enc}): filterlab count of Redis's string {got.stdout!r} "
              f"{got.stderr!r}, PFCOUNT {want}")

        lines = b"\n".join(ks) + b"\n"
        got = fl(["count", "-o", path("ours.hll")], lines)
        ours = open(path("ours.hll"), "rb").read()
        check(got.returncode == 0 and ours == r.get("a"),
              f"n={n} ({enc}): filterlab's string differs from Redis's after PFCOUNT")

        # filterlab's export back into Redis: mark the cache stale so PFCOUNT recomputes.
        stale = bytearray(ours)
        stale[15] |= 0x80
        r.set("b", bytes(stale))
        check(r.execute_command("PFCOUNT", "b") == int(got.stdout),
              f"n={n} ({enc}): PFCOUNT of filterlab's string != filterlab's count")

        # Merges: a = keys [0, n), c = keys [n/2, n/2 + n).
        r.delete("c", "m")
        pfadd(r, "c", keys(n // 2, n // 2 + n))
        with open(path("c.hll"), "wb") as f:
            f.write(r.get("c"))
        got = fl(["hll-merge", "-o", path("m.hll"), path("a.hll"), path("c.hll")])
        r.execute_command("PFMERGE", "m", "a", "c")
        check(got.returncode == 0 and r.execute_command("PFCOUNT", "m") == int(got.stdout),
              f"n={n}: PFMERGE count != filterlab hll-merge {got.stdout!r} {got.stderr!r}")
        r.set("a2", raw)
        r.execute_command("PFMERGE", "a2", "c")
        r.execute_command("PFCOUNT", "a2")
        check(open(path("m.hll"), "rb").read() == r.get("a2"),
              f"n={n}: PFMERGE a c bytes != filterlab hll-merge a c")
        print(f"ok n={n} {enc} count={want}")

    # Malformed strings: Redis refuses them as HLLs, and so does filterlab.
    empty = bytearray(r.get("a"))
    for name, bad in (("bad magic", b"HYLX" + bytes(empty[4:])),
                      ("bad encoding", bytes(empty[:4]) + b"\x02" + bytes(empty[5:])),
                      ("dense truncated", bytes(empty[:100]) if empty[4] == 0 else None)):
        if bad is None:
            continue
        with open(path("bad.hll"), "wb") as f:
            f.write(bad)
        got = fl(["count", "--from", path("bad.hll")])
        r.set("bad", bad)
        try:
            r.execute_command("PFCOUNT", "bad")
            redis_refused = False
        except redis.ResponseError:
            redis_refused = True
        check(redis_refused and got.returncode == 2, f"{name}: Redis refused {redis_refused}, "
              f"filterlab exit {got.returncode} {got.stderr!r}")


def main():
    # redis_server.py stops it by PID on every exit path (signals and interpreter exit too).
    server = RedisServer(tmp=TMP, name="hll", start_timeout=40)
    try:
        server.start()
    except RuntimeError as e:
        print("FAIL: redis-server did not start:", e)
        return 1
    try:
        r = server.client()
        print("redis-server", r.info("server")["redis_version"], "on port", server.port)
        run(r)
    finally:
        server.stop()
    return 1 if checks.failures else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
