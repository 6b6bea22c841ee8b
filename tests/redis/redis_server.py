"""Start and stop local redis-server processes for tests (shared by the tests in tests/redis/).

    from redis_server import RedisServer, free_port, Deadline
    with RedisServer(module="build/redis/filterlab_redis.so") as srv:
        r = srv.client()
        ...
    # or srv.start() / srv.stop() / srv.kill() / srv.restart() by hand

Every server binds 127.0.0.1 only, on a port probed free, with its own directory (under a
temporary directory the caller may pass), and is stopped by its PID: stop() sends SIGTERM
and waits (SIGKILL after a timeout), kill() sends SIGKILL (a crash, for fault tests). Every
server still running when the interpreter exits or gets SIGTERM/SIGINT/SIGHUP is stopped.
FL_REDIS_PRELOAD, if set, is the LD_PRELOAD of the servers (a sanitizer runtime a module
built with sanitizers needs). skip_if_unavailable() exits 77 (meson's "skipped") when
redis-server or python3-redis is missing.
"""
import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SERVER = shutil.which("redis-server")
_running = set()


def skip_if_unavailable():
    try:
        import redis  # noqa: F401
    except ImportError:
        print("SKIP: python3-redis is not installed (scripts/setup installs it)")
        sys.exit(77)
    if not SERVER:
        print("SKIP: redis-server is not installed (scripts/setup installs it)")
        sys.exit(77)


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Deadline:
    """A time budget for a whole test: left() raises TimeoutError once it is spent."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        t = self.end - time.monotonic()
        if t <= 0:
            raise TimeoutError("test ran past its time limit")
        return t


class RedisServer:
    def __init__(self, module=None, args=(), tmp=None, port=None, name="redis",
                 start_timeout=20):
        self.module = os.path.abspath(module) if module else None
        self.args = [str(a) for a in args]
        self.own_tmp = tmp is None
        self.tmp = tmp or tempfile.mkdtemp(prefix="fl_redis_")
        self.dir = os.path.join(self.tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        self.port = port or free_port()
        self.name = name
        self.start_timeout = start_timeout
        self.proc = None
        self.log = os.path.join(self.dir, "server.log")

    # Persistence off unless the caller's args turn it on (later arguments win).
    def command(self):
        cmd = [SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
               "--save", "", "--appendonly", "no", "--enable-debug-command", "local",
               "--logfile", self.log]
        if self.module:
            cmd += ["--loadmodule", self.module]
        return cmd + self.args

    def start(self):
        import redis
        env = dict(os.environ)
        # A sanitizer runtime the module needs (the ASan build): preloaded into the server
        # only, not into this interpreter.
        if os.environ.get("FL_REDIS_PRELOAD"):
            env["LD_PRELOAD"] = os.environ["FL_REDIS_PRELOAD"]
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.STDOUT, env=env)
        _running.add(self)
        end = time.monotonic() + self.start_timeout
        r = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)
        while True:
            try:
                r.ping()
                return self
            except redis.BusyLoadingError:
                pass
            except redis.ConnectionError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"{self.name}: redis-server exited "
                                       f"({self.proc.returncode}); log:\n{self.log_tail()}")
            if time.monotonic() > end:
                self.stop()
                raise RuntimeError(f"{self.name}: redis-server did not answer in "
                                   f"{self.start_timeout}s")
            time.sleep(0.05)

    def client(self, **kw):
        import redis
        kw.setdefault("socket_timeout", 60)
        return redis.Redis(host="127.0.0.1", port=self.port, **kw)

    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=10):
        """SIGTERM by PID (a clean shutdown: an RDB save if `save` is configured)."""
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        _running.discard(self)

    def kill(self):
        """SIGKILL by PID: the server dies without saving (a crash)."""
        if self.alive():
            self.proc.kill()
            self.proc.wait()
        _running.discard(self)

    def restart(self):
        self.stop()
        return self.start()

    def log_tail(self, lines=20):
        try:
            with open(self.log, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def cleanup(self):
        self.stop()
        if self.own_tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


def stop_all():
    for s in list(_running):
        s.stop()


def _on_signal(sig, _frame):
    stop_all()
    sys.exit(128 + sig)


atexit.register(stop_all)
for _s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_s, _on_signal)
