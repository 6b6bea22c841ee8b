"""redis-server processes for the cluster and fault tests and the Redis benchmark.

One job: start redis-server processes on 127.0.0.1 on ports probed free, each in its own
directory, wait (bounded) until they answer, SIGKILL or restart one by PID, and stop every
process this object started, by PID, on every exit path (use it as a context manager).

    with ServerGroup(tmpdir, deadline) as group:
        s = group.start("a", ["--appendonly", "yes"], module=path_or_None)
        ...
        group.kill(s)           # SIGKILL, like a crash
        group.restart(s)        # same port, same directory, same arguments

Nothing here binds anything but the loopback address.
"""
import os
import signal
import socket
import subprocess
import time

import redis

SERVER = "/usr/bin/redis-server"
HOST = "127.0.0.1"


def free_port():
    """A port nothing listens on now (the kernel's pick). A server may still race us to it:
    start() retries with a new port when its server cannot bind."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Deadline:
    """The time budget of a whole test: every wait takes its timeout from here."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self, cap=None):
        t = self.end - time.monotonic()
        if t <= 0:
            raise TimeoutError("test ran past its time limit")
        return t if cap is None else min(t, cap)


def wait_until(deadline, what, predicate, cap=30.0, step=0.05):
    """Poll predicate() until it is true; raise TimeoutError naming `what` after `cap`
    seconds (or the test's deadline, whichever comes first)."""
    end = time.monotonic() + deadline.left(cap)
    while True:
        try:
            if predicate():
                return
        except (redis.RedisError, OSError):
            pass  # not up yet, loading, failing over: poll again
        if time.monotonic() >= end:
            raise TimeoutError("timed out waiting for " + what)
        time.sleep(step)


class Server:
    def __init__(self, name, directory, port, args):
        self.name = name
        self.dir = directory
        self.port = port
        self.args = args  # everything after the fixed arguments (port, bind, dir)
        self.proc = None
        self.log = os.path.join(directory, "server.log")

    def client(self, **kw):
        """A single-connection-per-command client; short timeouts so a dead server is an
        error, not a hang."""
        kw.setdefault("socket_timeout", 10)
        kw.setdefault("socket_connect_timeout", 2)
        return redis.Redis(host=HOST, port=self.port, **kw)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines=30):
        try:
            with open(self.log, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


class ServerGroup:
    def __init__(self, tmpdir, deadline):
        self.tmpdir = tmpdir
        self.deadline = deadline
        self.servers = []

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop_all()

    def _command(self, s):
        return [SERVER, "--port", str(s.port), "--bind", HOST, "--dir", s.dir,
                "--logfile", s.log, "--daemonize", "no", "--protected-mode", "yes"] + s.args

    def _spawn(self, s):
        s.proc = subprocess.Popen(self._command(s), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  cwd=s.dir)

    def _wait_up(self, s, cap=30.0):
        """Until the server answers PING and has finished loading its data set."""
        def up():
            if not s.alive():
                raise ServerExited(s)
            c = s.client()
            try:
                return c.info("persistence").get("loading") == 0
            finally:
                c.close()
        try:
            wait_until(self.deadline, f"{s.name} (port {s.port}) to start", up, cap)
        except ServerExited:
            raise RuntimeError(f"redis-server {s.name} exited with {s.proc.returncode}:\n"
                               + s.log_tail()) from None

    def start(self, name, args, module=None, port_args=None, attempts=5):
        """Start a redis-server named `name` in tmpdir/name. `port_args`, if given, maps
        the chosen port to more arguments (e.g. the cluster bus port); a module path is
        loaded with --loadmodule."""
        directory = os.path.join(self.tmpdir, name)
        os.makedirs(directory, exist_ok=True)
        # servers run in their own directory: a relative module path would not resolve there
        extra = list(args) + (["--loadmodule", os.path.abspath(module)] if module else [])
        for attempt in range(attempts):
            port = free_port()
            more = port_args(port) if port_args else []
            s = Server(name, directory, port, extra + more)
            self._spawn(s)
            self.servers.append(s)
            try:
                self._wait_up(s)
                return s
            except RuntimeError:
                # Lost the race for the port (or a real failure: retried, then reported).
                if attempt == attempts - 1 or "Address already in use" not in s.log_tail():
                    raise
                self.servers.remove(s)

    def kill(self, s):
        """SIGKILL by PID, as a crash would: no shutdown save, no AOF flush beyond what the
        server already wrote."""
        if s.alive():
            os.kill(s.proc.pid, signal.SIGKILL)
            s.proc.wait(self.deadline.left(10))

    def restart(self, s):
        """The same server again: same port, directory and arguments (so the same data
        files are loaded)."""
        self.kill(s)
        self._spawn(s)
        self._wait_up(s, cap=60.0)
        return s

    def stop_all(self):
        for s in self.servers:
            if s.alive():
                s.proc.terminate()
        for s in self.servers:
            if s.proc is None:
                continue
            try:
                s.proc.wait(5)
            except subprocess.TimeoutExpired:
                s.proc.kill()
                s.proc.wait()


class ServerExited(Exception):
    def __init__(self, s):
        super().__init__(s.name)
