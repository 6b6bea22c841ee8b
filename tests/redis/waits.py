"""Bounded waits for the Redis tests that crash servers (test_cluster.py, test_faults.py).

One job: poll a condition until it holds, within both its own cap and the whole test's
Deadline (tests/redis/redis_server.py), and say what was awaited when it never did.
"""
import time

import redis


def within(deadline, cap):
    """Seconds to allow a step: its own cap, or what the test has left if that is less."""
    return min(cap, deadline.left())


def wait_until(deadline, what, predicate, cap=30.0, step=0.05):
    """Poll predicate() until it is true; raise TimeoutError naming `what` after `cap`
    seconds or at the test's deadline. Connection and server errors count as "not yet"
    (a server starting, loading, failing over)."""
    end = time.monotonic() + within(deadline, cap)
    while True:
        try:
            if predicate():
                return
        except (redis.RedisError, OSError):
            pass
        if time.monotonic() >= end:
            raise TimeoutError("timed out waiting for " + what)
        time.sleep(step)


def restart_after_crash(server, deadline, cap=60.0):
    """SIGKILL `server` (a redis_server.RedisServer) if it runs, start it again on the same
    port, directory and arguments, and wait until it has loaded its data set."""
    server.kill()
    server.start()

    def loaded():
        c = server.client(socket_timeout=5)
        try:
            return c.info("persistence")["loading"] == 0
        finally:
            c.close()
    wait_until(deadline, f"{server.name} to load its data after the restart", loaded, cap)
    return server
