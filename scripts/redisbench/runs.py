"""redis-benchmark runs against a server of scripts/bench-redis: the settings every mode
shares, one timed run (items/s, the server's time and CPU time per item), runs alternated
between sides, and their medians."""
import statistics
import subprocess

BENCH = "/usr/bin/redis-benchmark"
PER_CMD = 100        # items per multi-item command
PIPELINE = 16        # redis-benchmark -P
CLIENTS = 8          # redis-benchmark -c (2 vCPUs: more clients only add switching)
BF_ERROR = 0.01      # RedisBloom's default error rate

# URL-shaped items (68 bytes: the dedup-a-billion-URLs case) for the memory
# comparison, beside the bare 12-digit ones: a set's cost per member grows with the item,
# a filter's does not.
URL_ITEM = "https://www.example.com/articles/2026/11/__rand_int__/index.html"


def rand_args(n, item="__rand_int__"):
    return [item] * n


class Bench:
    def __init__(self, server, items, keyspace):
        self.server = server
        self.c = server.client(socket_timeout=600)
        self.items = items
        self.keyspace = keyspace

    def run(self, label, argv, items_per_cmd, command, setup=None):
        """One redis-benchmark run of `argv` on a fresh key: items/s and the server's time
        per item of `command`."""
        key = argv[1]
        self.c.delete(key)
        if setup:
            self.c.execute_command(*setup)
        return self.measure(label, argv, items_per_cmd, command)

    def measure(self, label, argv, items_per_cmd, command):
        self.c.config_resetstat()
        # redis-benchmark sends a pipeline's worth per client at a time and may overshoot -n
        # by up to clients x pipeline commands: ask for that many fewer, so that no run puts
        # more than --items items into a filter reserved for --items (it would scale).
        requests = self.items // items_per_cmd - CLIENTS * PIPELINE
        cpu_before = server_cpu_ns(self.server.pid())
        p = subprocess.run(
            [BENCH, "-h", "127.0.0.1", "-p", str(self.server.port), "-c", str(CLIENTS),
             "-P", str(PIPELINE), "-n", str(requests), "-r", str(self.keyspace), "--csv"] + argv,
            capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        cpu = server_cpu_ns(self.server.pid()) - cpu_before
        if p.returncode != 0:
            raise RuntimeError(f"redis-benchmark {label} failed: {p.stderr}")
        rows = [r for r in p.stdout.splitlines() if r.startswith('"') and not r.startswith('"test"')]
        rps = float(rows[-1].split(",")[1].strip('"'))
        if not 0 < rps < float("inf"):  # a run shorter than redis-benchmark's clock tick
            raise RuntimeError(f"{label}: redis-benchmark could not time the run "
                               f"({rps} requests/s): raise --items")
        # module commands keep the case they were registered with (cmdstat_BF.MADD)
        stats = {k.lower(): v for k, v in self.c.info("commandstats").items()}.get(
            "cmdstat_" + command.lower(), {})
        calls = int(stats.get("calls", 0))
        errors = int(stats.get("failed_calls", 0)) + int(stats.get("rejected_calls", 0))
        if calls < requests or calls * items_per_cmd > self.items or errors:
            raise RuntimeError(f"{label}: server counted {calls} calls ({errors} failed) "
                               f"for {requests} requests")
        return {"items_per_s": rps * items_per_cmd, "requests_per_s": rps,
                "items": calls * items_per_cmd,
                "server_ns_per_item": float(stats["usec_per_call"]) * 1000 / items_per_cmd,
                "server_cpu_ns_per_item": cpu / (calls * items_per_cmd)}

    def memory(self, key):
        return int(self.c.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0"))

    def memory_after(self, argv, r):
        """MEMORY USAGE of the key a run filled, into its result."""
        r["memory_bytes"] = self.memory(argv[1])
        return r


def server_cpu_ns(pid):
    """CPU time the server's main thread (which runs every command) has used, in ns: the
    first field of /proc/PID/schedstat. Unlike items/s it leaves out the time the server
    waited for a vCPU, which other work on a shared machine takes."""
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0])


def alternate(bench, reps, sides):
    """sides: {name: (argv, items_per_cmd, command, setup)}; runs them A B A B ... and
    returns {name: {median figures, runs}}."""
    runs = {name: [] for name in sides}
    for _ in range(reps):
        for name, (argv, per, command, setup) in sides.items():
            runs[name].append(bench.run(name, argv, per, command, setup))
    return {name: summarise(r) for name, r in runs.items()}


def lookups(bench, reps, sides):
    """Read-only runs on keys filled beforehand (no fresh key per run)."""
    runs = {name: [] for name in sides}
    for _ in range(reps):
        for name, (argv, per, command) in sides.items():
            runs[name].append(bench.measure(name, argv, per, command))
    return {name: summarise(r) for name, r in runs.items()}


def summarise(runs):
    return {"items_per_s": statistics.median(r["items_per_s"] for r in runs),
            "server_ns_per_item": statistics.median(r["server_ns_per_item"] for r in runs),
            "server_cpu_ns_per_item": statistics.median(r["server_cpu_ns_per_item"]
                                                        for r in runs),
            "runs": runs}

# redis-benchmark reads -r with atoi: the key space must fit an int. 1M draws from 2e9
# repeat about 250 items.
DISTINCT_SPACE = 2_000_000_000


def module_list(client):
    """MODULE LIST as [{name, ver}], for the record."""
    out = []
    for m in client.execute_command("MODULE", "LIST"):
        d = m if isinstance(m, dict) else dict(zip(m[::2], m[1::2]))
        d = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes)
                                                            else v) for k, v in d.items()}
        out.append({"name": d.get("name"), "ver": d.get("ver")})
    return out

