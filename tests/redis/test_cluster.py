#!/usr/bin/python3
"""filterlab's Redis module on Redis Cluster: a master dies, its replica takes over, nothing
acknowledged is lost.

    tests/redis/test_cluster.py [--module PATH] [--kinds bf,cf,cms,bf-inplace,cf-inplace]
    tests/redis/test_cluster.py --kinds set          (native sets, no module: the harness alone)

1. Starts 6 redis-servers on 127.0.0.1 (free ports picked here, cluster bus ports too), each
   with --cluster-enabled yes, its own --cluster-config-file in a temp dir, and the module;
   `redis-cli --cluster create ... --cluster-replicas 1 --cluster-yes` makes 3 masters with
   one replica each. Waits (bounded) until every node says cluster_state:ok and every replica
   has finished its first sync (of an empty data set).
2. Through python3-redis's cluster client (redis.cluster.RedisCluster) creates, for each kind
   (tests/redis/filter_kinds.py: BF and CF keys as chains and as GROWTH INPLACE growing cuckoo
   filters, CMS), one key in each of the 16 slot ranges [1024 i, 1024 (i+1)) — so every
   master holds keys of every kind — and adds items in multi-item commands (replicated as
   commands); the first GROWTH INPLACE key of each kind gets enough to double its table
   (its FILTERLAB.INFO "Doublings", checked again after the failover). An item is
   *acknowledged* when its write succeeded and a WAIT 1 on the same connection then
   reported one replica had it.
3. The dying master's replica is SIGKILLed and restarted empty, and must fully resync (an
   RDB of every key, the module's types included, from master to replica).
4. A writer thread keeps adding (same rule) while the master owning the most keys is
   SIGKILLed. Waits (bounded) until its replica is promoted and the cluster is ok again.
5. A fresh cluster client asks for every acknowledged item: all must be found, on every key,
   including the keys that moved to the promoted replica.
Every server is stopped by PID on every exit path. Exit 77 (skipped) when redis-server,
redis-cli or python3-redis is missing, or the module is not given for a module kind.
"""
import logging
import os
import shutil
import subprocess
import sys
import threading
import time

try:
    import redis
    from redis.cluster import RedisCluster, ClusterNode
    from redis.crc import key_slot
except ImportError:
    print("SKIP: python3-redis is not installed (scripts/setup installs it)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crash_harness  # noqa: E402
from redis_server import RedisServer, free_port  # noqa: E402
from waits import restart_after_crash, wait_until, within  # noqa: E402

# The cluster client logs every connection error it retries, with a traceback, to stderr;
# this test provokes them on purpose.
logging.getLogger("redis.cluster").addHandler(logging.NullHandler())
logging.getLogger("redis.cluster").propagate = False

CLI = "/usr/bin/redis-cli"
HOST = "127.0.0.1"
SLOT_RANGES = 16            # keys in slots [1024 i, 1024 (i + 1)) for each i
ITEMS_PER_KEY = 1000        # loaded before the failover
# A GROWTH INPLACE key's smallest table holds 3,686 items (FL_GCF_W_MIN, FL_GCF_GROW_LOAD), so
# the first key of each such kind gets this many more before the failover: it doubles, and
# the replica's resync and the promotion carry a grown table.
GROW_ITEMS = 4000
BATCH = 100                 # items per multi-item command
# cluster-node-timeout: how soon a dead master is failed over. Not shorter: on a loaded
# 2-vCPU machine a busy master must not look dead.
NODE_TIMEOUT_MS = 3000
WAIT_MS = 5000              # WAIT's timeout: time for the replica to acknowledge


def key_per_slot_range(kind):
    """One key name per slot range, found by counting up until each range has one."""
    keys = [None] * SLOT_RANGES
    n = 0
    while None in keys:
        k = f"{kind}:{n}"
        r = key_slot(k.encode()) * SLOT_RANGES // 16384
        if keys[r] is None:
            keys[r] = k
        n += 1
    return keys


def node_info(s, section):
    c = s.client(socket_timeout=5)
    try:
        return c.info(section)
    finally:
        c.close()


def cluster_ok(servers):
    for s in servers:
        c = s.client(socket_timeout=5)
        try:
            info = c.execute_command("CLUSTER", "INFO")
        finally:
            c.close()
        if isinstance(info, bytes):
            info = info.decode()
        if isinstance(info, str):
            info = dict(line.split(":", 1) for line in info.split() if ":" in line)
        if str(info.get("cluster_state")) != "ok" or int(info["cluster_slots_ok"]) != 16384:
            return False
    return True


def replicas_synced(replicas):
    for s in replicas:
        info = node_info(s, "replication")
        if info.get("role") != "slave" or info.get("master_link_status") != "up" \
                or info.get("master_sync_in_progress") != 0:
            return False
    return True


class Acked:
    """Items acknowledged (stored and replicated) per (kind, key); shared by threads."""

    def __init__(self):
        self.items = {}
        self.lock = threading.Lock()
        self.unacked_batches = 0
        self.acked_batches = 0

    def add(self, kind, key, items):
        with self.lock:
            self.items.setdefault((kind.name, key), []).extend(items)
            self.acked_batches += 1


def write_acked(rc, kind, key, items, acked):
    """One multi-item write to the node the cluster client routes `key` to, then WAIT 1 there.
    WAIT counts replicas that have the writes of *its own connection*, and the client may
    reconnect behind our back (it retries on connection errors). So CLIENT ID is asked before
    the write and after the WAIT, on the same node: the same id means write and WAIT ran on
    one server-side connection (ids are never reused while a server lives, and a promoted
    replica has another port). Anything else — an error, another id, WAIT < 1 — and the batch
    is not counted as acknowledged."""
    node = rc.get_node_from_key(key)

    def cmd(*args):
        return rc.execute_command(*args, target_nodes=node)
    try:
        before = cmd("CLIENT", "ID")
        stored = kind.add(cmd, key, items)
        replicas = cmd("WAIT", 1, WAIT_MS)
        after = cmd("CLIENT", "ID")
    except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError,
            redis.exceptions.ClusterError, redis.exceptions.RedisClusterException) as e:
        # redis-py's ClusterDownError is a ResponseError too, its text "The cluster is
        # down" (the reply's CLUSTERDOWN stripped): a fault of the failover, like the rest
        if isinstance(e, redis.ResponseError) and not isinstance(e, redis.exceptions.ClusterError) \
                and not str(e).startswith(("CLUSTERDOWN", "MOVED", "TRYAGAIN", "ASK", "LOADING",
                                           "READONLY")):
            raise  # a real error reply from the module: a failure, not a fault
        acked.unacked_batches += 1
        return False
    if before != after or int(replicas) < 1:
        acked.unacked_batches += 1
        return False
    acked.add(kind, key, stored)
    return True


def doublings_of(rc, key):
    """A GROWTH INPLACE key's "Doublings" from its FILTERLAB.INFO reply (field, value, ...)."""
    reply = rc.execute_command("FILTERLAB.INFO", key)
    fields = reply if isinstance(reply, dict) else dict(zip(reply[0::2], reply[1::2]))
    fields = {(k.decode() if isinstance(k, bytes) else k): v for k, v in fields.items()}
    if "Doublings" not in fields:
        raise AssertionError(f"FILTERLAB.INFO {key} has no Doublings: {reply!r}")
    return int(fields["Doublings"])


def cluster_client(servers):
    nodes = [ClusterNode(HOST, s.port) for s in servers if s.alive()]
    # socket_timeout above WAIT_MS: a WAIT that no replica answers (a key of the promoted
    # replica, which has none) must come back as 0, not time the socket out at the same
    # moment, which the client retries as a connection error (three times, after
    # re-reading the topology)
    return RedisCluster(startup_nodes=nodes, socket_timeout=WAIT_MS / 1000 + 5, socket_connect_timeout=2,
                        cluster_error_retry_attempts=1)


def main():
    args, kinds = crash_harness.parse()
    if not shutil.which(CLI) or not os.path.exists("/usr/bin/redis-server"):
        print("SKIP: redis-server/redis-cli not installed (scripts/setup installs them)")
        return 77
    module = crash_harness.module_for(kinds, args.module)

    def failover(servers, tmp, deadline, failures):
        run(servers, tmp, kinds, module, deadline, failures)
    failures = crash_harness.run("fl_redis_cluster_", args.time_limit, failover)
    if not failures:
        print("cluster: every acknowledged item found after the failover")
    return 1 if failures else 0


def start_cluster(servers, tmp, module, deadline):
    cluster_args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
                    "--appendonly", "no", "--save", "",
                    # a full sync starts at once (the default waits 5 s for more replicas)
                    "--repl-diskless-sync-delay", "0"]
    for i in range(6):
        s = RedisServer(module=module, tmp=tmp, name=f"node{i}",
                        args=cluster_args + ["--cluster-port", str(free_port())])
        servers.append(s)  # before start(): stopped by the caller even if start fails
        s.start()
    create = subprocess.run(
        [CLI, "--cluster", "create"] + [f"{HOST}:{s.port}" for s in servers]
        + ["--cluster-replicas", "1", "--cluster-yes"],
        capture_output=True, text=True, timeout=within(deadline, 60), stdin=subprocess.DEVNULL)
    if create.returncode != 0:
        raise RuntimeError("redis-cli --cluster create failed:\n" + create.stdout + create.stderr)
    wait_until(deadline, "cluster_state:ok on every node", lambda: cluster_ok(servers), 30)
    replicas = [s for s in servers if node_info(s, "replication")["role"] == "slave"]
    wait_until(deadline, "every replica's full sync", lambda: replicas_synced(replicas), 30)


def masters_of(servers):
    return [s for s in servers if s.alive() and node_info(s, "replication")["role"] == "master"]


def run(servers, tmp, kinds, module, deadline, failures):
    start_cluster(servers, tmp, module, deadline)
    rc = cluster_client(servers)
    acked = Acked()
    keys = {k.name: key_per_slot_range(k.name) for k in kinds}
    counter = [0]

    def next_items(n):
        first = counter[0]
        counter[0] += n
        return [f"item:{i}" for i in range(first, first + n)]

    for kind in kinds:
        for key in keys[kind.name]:
            node = rc.get_node_from_key(key)
            # a GROWTH INPLACE key at the least capacity, so that GROW_ITEMS double it
            kind.create(lambda *a: rc.execute_command(*a, target_nodes=node), key,
                        ITEMS_PER_KEY if kind.grows else 100000)
    batches = 0
    for kind in kinds:
        for key in keys[kind.name]:
            for _ in range(ITEMS_PER_KEY // BATCH):
                deadline.left()
                write_acked(rc, kind, key, next_items(BATCH), acked)
                batches += 1
    for kind in kinds:
        if not kind.grows:
            continue
        key = keys[kind.name][0]
        for _ in range(GROW_ITEMS // BATCH):
            deadline.left()
            write_acked(rc, kind, key, next_items(BATCH), acked)
            batches += 1
        doublings = doublings_of(rc, key)
        if doublings < 1:
            failures.append(f"{kind.name} {key}: {doublings} doublings after "
                            f"{ITEMS_PER_KEY + GROW_ITEMS} items")
    rc.close()
    # On a healthy cluster nearly every write is replicated within WAIT_MS; a straggler on a
    # loaded machine is only not counted, but many mean the replicas are not keeping up.
    if acked.unacked_batches > batches // 10:
        failures.append(f"{acked.unacked_batches} of {batches} writes not acknowledged "
                        "by a replica on a healthy cluster")
    before = sum(len(v) for v in acked.items.values())
    print(f"loaded {before} acknowledged items into {sum(map(len, keys.values()))} keys")

    # The master holding the most of our keys dies while a writer keeps adding.
    masters = masters_of(servers)
    port_of_key = {}
    probe = cluster_client(servers)
    for kind in kinds:
        for key in keys[kind.name]:
            port_of_key[key] = probe.get_node_from_key(key).port
    probe.close()
    victim = max(masters, key=lambda s: sum(p == s.port for p in port_of_key.values()))
    victim_keys = [k for k, p in port_of_key.items() if p == victim.port]
    c = victim.client(socket_timeout=5)
    victim_id = c.execute_command("CLUSTER", "MYID").decode()
    c.close()
    replica = next(s for s in servers if s is not victim and
                   node_info(s, "replication").get("master_port") == victim.port)

    # The replica that will take over gets everything once more through a full sync: it is
    # SIGKILLed and restarted with no data of its own: no AOF, and the dump.rdb its first sync
    # left is deleted (with it the replica would resume from that offset by a partial sync),
    # so the master sends it an RDB holding every key — the module's types travel through
    # their rdb_save on the master and rdb_load on the replica.
    full_syncs = int(node_info(victim, "stats")["sync_full"])
    replica.kill()
    rdb = os.path.join(replica.dir, "dump.rdb")
    if os.path.exists(rdb):
        os.remove(rdb)
    restart_after_crash(replica, deadline)
    wait_until(deadline, f"{replica.name}'s full sync after its restart",
               lambda: replicas_synced([replica]), cap=30)
    if int(node_info(victim, "stats")["sync_full"]) <= full_syncs:
        failures.append(f"{replica.name} came back without a full sync "
                        f"({full_syncs} -> {node_info(victim, 'stats')['sync_full']}):\n"
                        + replica.log_tail(15))
    print(f"replica {replica.name} restarted empty and fully resynced from {victim.name}")

    stop = threading.Event()
    writer_error = []

    def writer():
        wc = cluster_client(servers)
        try:
            i = 0
            while not stop.is_set() and deadline.left() > 5:
                # Every (kind, key) pair once in each len(kinds) * 16 writes (16 and 7 are
                # coprime, as 16 and 3 or 5 are), consecutive writes in slot ranges 7 apart:
                # on different masters, so the writes that wait WAIT_MS in vain for the
                # promoted replica's missing replica come one at a time, not a kind's worth
                # of keys in a row.
                kind = kinds[i % len(kinds)]
                key = keys[kind.name][(7 * i) % SLOT_RANGES]
                if not write_acked(wc, kind, key, next_items(BATCH), acked):
                    time.sleep(0.05)  # the cluster is failing over: don't spin
                i += 1
        except Exception as e:  # reported by the main thread
            writer_error.append(repr(e))
        finally:
            wc.close()

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    # The kill lands mid-load: once the writer has had a few batches acknowledged.
    first = acked.acked_batches
    wait_until(deadline, "the writer's first acknowledged writes",
               lambda: acked.acked_batches >= first + 5 or not t.is_alive(), cap=30)
    print(f"SIGKILL master {victim.name} (port {victim.port}, {len(victim_keys)} keys)")
    if not all(s.alive() for s in servers):
        failures.append("a node died before the SIGKILL")
    victim.kill()

    def promoted():
        return node_info(replica, "replication")["role"] == "master" and \
            cluster_ok([s for s in servers if s.alive()])
    wait_until(deadline, f"replica {replica.name} to take over from {victim.name}",
               promoted, cap=30)
    print(f"replica {replica.name} (port {replica.port}) promoted")
    # Writes go on after the failover (a batch to a key of the promoted replica is not
    # acknowledged: it has no replica left to WAIT for).
    resumed = acked.acked_batches
    wait_until(deadline, "acknowledged writes after the failover",
               lambda: acked.acked_batches >= resumed + 5 or not t.is_alive(), cap=30)
    stop.set()
    t.join(within(deadline, 30))
    if t.is_alive():
        failures.append("writer thread did not stop")
    if writer_error:
        failures.append("writer: " + writer_error[0])
    during = sum(len(v) for v in acked.items.values()) - before
    print(f"{during} more items acknowledged during the failover "
          f"({acked.unacked_batches} batches not acknowledged, not checked)")

    for s in servers:
        if s is not victim and not s.alive():
            failures.append(f"{s.name} died during the test (exit {s.proc.returncode}):\n"
                            + s.log_tail())

    # Every acknowledged item, through a fresh client that learns the new topology.
    vc = cluster_client(servers)
    try:
        moved = 0
        for kind in kinds:
            for key in keys[kind.name]:
                items = acked.items.get((kind.name, key), [])
                lost = []
                for i in range(0, len(items), BATCH):
                    lost += kind.missing(vc.execute_command, key, items[i:i + BATCH])
                if lost:
                    failures.append(f"{kind.name} {key}: {len(lost)} of {len(items)} "
                                    f"acknowledged items lost, e.g. {lost[:3]}")
                if kind.grows and key == keys[kind.name][0] \
                        and doublings_of(vc, key) < 1:
                    failures.append(f"{kind.name} {key}: its grown table did not survive")
                if key in victim_keys:
                    moved += 1
                    if vc.get_node_from_key(key).port != replica.port:
                        failures.append(f"{key} is not served by the promoted replica")
        print(f"checked {sum(len(v) for v in acked.items.values())} items; "
              f"{moved} keys were on the killed master {victim_id[:8]}")
    finally:
        vc.close()


if __name__ == "__main__":
    sys.exit(main())
