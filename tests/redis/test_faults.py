#!/usr/bin/python3
"""filterlab's Redis module survives a crash: SIGKILL mid-load, restart, nothing acknowledged
is lost.

    tests/redis/test_faults.py [--module PATH] [--kinds bf,cf,cms,bf-inplace,cf-inplace]
    tests/redis/test_faults.py --kinds set          (native sets, no module: the harness alone)

Four scenarios, each on a fresh redis-server on 127.0.0.1 (free port, own temp dir), each
with WRITERS client threads (one connection each) adding batches of items with one
multi-item command per batch into the same key of every kind:
  aof     appendonly yes, appendfsync always. An item is acknowledged when its command's reply
          arrived (Redis fsyncs the AOF before it answers). SIGKILL while the writers are
          still sending, restart on the same directory (a torn AOF tail is Redis's to
          truncate): every acknowledged item is found.
  save    appendonly no. Mid-load SAVE; the items acknowledged before SAVE was sent are in
          the snapshot (Redis runs commands one at a time). Writers keep going; SIGKILL;
          restart: every item acknowledged before SAVE is found.
  bgsave  the same with BGSAVE (the fork happens when the command runs), waiting until the
          background save reports success before the SIGKILL.
  rewrite like aof, with BGREWRITEAOF mid-load and aof-use-rdb-preamble no: the base file
          is the module's AOF rewrite output (its own commands), then more writes, SIGKILL,
          restart: every acknowledged item is found.
So the restarts load the module's data through all three paths: replayed commands (aof),
its AOF rewrite commands (rewrite) and its RDB load (save, bgsave). Every server is stopped
by PID on every exit path.
Exit 77 (skipped) when redis-server or python3-redis is missing, or the module is not given
for a module kind.
"""
import os
import sys
import threading
import time

try:
    import redis
except ImportError:
    print("SKIP: python3-redis is not installed (scripts/setup installs it)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crash_harness  # noqa: E402
from redis_server import RedisServer  # noqa: E402
from waits import restart_after_crash, wait_until, within  # noqa: E402

WRITERS = 4
BATCH = 100
CAPACITY = 2_000_000   # large enough that no writer fills a cuckoo filter in the test's time
MIN_ACKED = 2000       # a scenario that acknowledged fewer items before the crash proves little
LOAD_SECONDS = 1.5     # writers run this long before the snapshot / the kill


class Load:
    """WRITERS threads adding into one key per kind until stopped or the server dies.
    acked[(kind, key)] holds the items whose command was answered."""

    def __init__(self, server, kinds, deadline):
        self.server = server
        self.kinds = kinds
        self.deadline = deadline
        self.acked = {(k.name, "fault:" + k.name): [] for k in kinds}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.errors = []      # error replies: module failures, reported
        self.cut_off = 0      # writers whose connection the crash cut
        self.threads = [threading.Thread(target=self._write, args=(w,), daemon=True)
                        for w in range(WRITERS)]

    def start(self):
        for t in self.threads:
            t.start()

    def _write(self, w):
        c = self.server.client(socket_timeout=10)
        n = 0
        try:
            while not self.stop.is_set() and self.deadline.left() > 5:
                for kind in self.kinds:
                    key = "fault:" + kind.name
                    items = [f"w{w}:{i}" for i in range(n, n + BATCH)]
                    stored = kind.add(c.execute_command, key, items)
                    with self.lock:
                        self.acked[(kind.name, key)].extend(stored)
                n += BATCH
        except (redis.ConnectionError, redis.TimeoutError):
            with self.lock:
                self.cut_off += 1
        except redis.ResponseError as e:
            self.errors.append(f"writer {w}: {e}")
        finally:
            c.close()

    def snapshot(self):
        with self.lock:
            return {k: list(v) for k, v in self.acked.items()}

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join(within(self.deadline, 30))
        return not any(t.is_alive() for t in self.threads)


def check_all_found(server, kinds, acked, what, failures):
    c = server.client(socket_timeout=30)
    try:
        total = 0
        for kind in kinds:
            key = "fault:" + kind.name
            items = acked[(kind.name, key)]
            total += len(items)
            if len(items) < MIN_ACKED:
                failures.append(f"{what} {kind.name}: only {len(items)} items acknowledged "
                                "before the crash; the test proves little")
            lost = []
            for i in range(0, len(items), 1000):
                lost += kind.missing(c.execute_command, key, items[i:i + 1000])
            if lost:
                failures.append(f"{what} {kind.name}: {len(lost)} of {len(items)} "
                                f"acknowledged items lost after restart, e.g. {lost[:3]}")
        return total
    finally:
        c.close()


def crash(server, failures):
    """Our SIGKILL. A server that already died on its own (the module crashed, or a
    sanitizer stopped it) would look the same afterwards: that is a failure."""
    if not server.alive():
        failures.append(f"{server.name}: redis-server died before the SIGKILL "
                        f"(exit {server.proc.returncode}):\n" + server.log_tail())
    server.kill()


def scenario(servers, tmp, name, kinds, module, deadline, failures):
    args = {"aof": ["--appendonly", "yes", "--appendfsync", "always", "--save", ""],
            "save": ["--appendonly", "no", "--save", ""],
            "bgsave": ["--appendonly", "no", "--save", ""],
            # the rewritten base as commands, so the module's AOF rewrite callback writes it
            "rewrite": ["--appendonly", "yes", "--appendfsync", "always", "--save", "",
                        "--aof-use-rdb-preamble", "no"]}[name]
    server = RedisServer(module=module, args=args, tmp=tmp, name=name)
    servers.append(server)  # before start(): stopped by main even if start fails
    server.start()
    c = server.client(socket_timeout=30)
    for kind in kinds:
        kind.create(c.execute_command, "fault:" + kind.name, CAPACITY)
    load = Load(server, kinds, deadline)
    load.start()
    time.sleep(LOAD_SECONDS)

    if name == "aof":
        crash(server, failures)  # writers are mid-command: some batches never get an answer
    elif name == "rewrite":
        c.execute_command("BGREWRITEAOF")

        def rewritten():
            p = c.info("persistence")
            return p["aof_rewrites"] >= 1 and p["aof_rewrite_in_progress"] == 0 \
                and p["aof_rewrite_scheduled"] == 0
        wait_until(deadline, "BGREWRITEAOF to finish", rewritten, cap=30)
        if c.info("persistence")["aof_last_bgrewrite_status"] != "ok":
            failures.append("rewrite: BGREWRITEAOF failed:\n" + server.log_tail())
        aof_dir = os.path.join(server.dir, "appendonlydir")
        if not any(f.endswith(".base.aof") for f in os.listdir(aof_dir)):
            failures.append(f"rewrite: no command-form base file in {os.listdir(aof_dir)}")
        time.sleep(0.3)  # more writes into the new incremental file, then the crash
        crash(server, failures)
    else:
        durable = load.snapshot()  # everything answered before the save command is sent
        if name == "save":
            c.execute_command("SAVE")
        else:
            before = c.info("persistence")["rdb_last_save_time"]
            c.execute_command("BGSAVE")

            def saved():
                p = c.info("persistence")
                return p["rdb_bgsave_in_progress"] == 0 and p["rdb_last_save_time"] != before
            wait_until(deadline, "BGSAVE to finish", saved, cap=30)
            if c.info("persistence")["rdb_last_bgsave_status"] != "ok":
                failures.append("bgsave: BGSAVE failed:\n" + server.log_tail())
        time.sleep(0.3)  # more writes after the snapshot, then the crash
        crash(server, failures)
    c.close()
    if not load.join():
        failures.append(f"{name}: writer threads did not stop")
    failures.extend(f"{name}: {e}" for e in load.errors)
    if load.cut_off == 0:
        failures.append(f"{name}: no writer was cut off: the kill was not mid-load")
    if name in ("aof", "rewrite"):
        durable = load.snapshot()

    restart_after_crash(server, deadline)
    total = check_all_found(server, kinds, durable, name, failures)
    print(f"{name}: checked {total} acknowledged items over {len(kinds)} keys after SIGKILL "
          f"and restart ({load.cut_off} of {WRITERS} writers cut off mid-load)")
    server.stop()


def main():
    args, kinds = crash_harness.parse()
    if not os.path.exists("/usr/bin/redis-server"):
        print("SKIP: redis-server is not installed (scripts/setup installs it)")
        return 77
    module = crash_harness.module_for(kinds, args.module)

    def every_scenario(servers, tmp, deadline, failures):
        for name in ("aof", "rewrite", "save", "bgsave"):
            scenario(servers, tmp, name, kinds, module, deadline, failures)
    failures = crash_harness.run("fl_redis_faults_", args.time_limit, every_scenario)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
