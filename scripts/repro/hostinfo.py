"""What machine and what checkout a run happens on: CPU, caches, virtualisation, host id,
git commit, date. The machine part comes from `filterlab host --json` (the library's
fl_host_describe, src/cpu/host.c), the same description flbench records and `filterlab advise`
matches, so the three cannot disagree; only what the library does not know (git, memory,
tools, Python) is read here."""

import datetime
import json
import os
import platform
import re
import shutil
import subprocess

_HOST = {}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def _run(cmd, cwd=None):
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def filterlab_binary(root, build_dir=None):
    """The filterlab command to ask: $FILTERLAB if set, else BUILD/src/cli/filterlab with
    BUILD = build_dir, $FL_BUILD_DIR or ROOT/build."""
    if os.environ.get("FILTERLAB"):
        return os.environ["FILTERLAB"]
    build = build_dir or os.environ.get("FL_BUILD_DIR") or os.path.join(root, "build")
    return os.path.join(build, "src", "cli", "filterlab")


def host(root=None, build_dir=None):
    """`filterlab host --json`, read once per process. Raises RuntimeError (saying what to
    build) when the command is missing or fails."""
    exe = filterlab_binary(root or ROOT, build_dir)
    if exe in _HOST:
        return _HOST[exe]
    env = dict(os.environ)
    env.pop("FILTERLAB_KERNEL", None)  # the description does not depend on it; a bad value
    try:                               # would only turn the exit status into 1
        p = subprocess.run([exe, "host", "--json"], capture_output=True, text=True, timeout=60, env=env)
    except OSError as e:
        raise RuntimeError("hostinfo: cannot run %s (%s): build first (ninja -C build), or set "
                           "FILTERLAB or FL_BUILD_DIR" % (exe, e.strerror))
    if p.returncode != 0:
        raise RuntimeError("hostinfo: %s host --json failed (exit %d): %s"
                           % (exe, p.returncode, p.stderr.strip()))
    _HOST[exe] = json.loads(p.stdout)
    return _HOST[exe]


def cpu_info(root=None, build_dir=None):
    """Vendor, model name, family/model/stepping, a microarchitecture slug and where that
    name came from (the library's rule: the cpuid model table, the CPU's features when they
    contradict the model, or the model name)."""
    h = host(root, build_dir)
    model_name = h["brand"] or ""
    if not model_name and h["arm_implementer"] and h["arm_part"] and platform.machine() == "aarch64":
        try:
            model_name = "aarch64 implementer %#x part %#x" % (int(h["arm_implementer"], 0),
                                                              int(h["arm_part"], 0))
        except ValueError:
            pass
    return {"vendor": h["vendor"] or "", "model_name": model_name, "family": h["family"],
            "model": h["model"], "stepping": h["stepping"], "flags": h["flags"] or "",
            "uarch": h["uarch"], "uarch_source": h["uarch_source"], "features": h["features"]}


def cpu_signature(root=None, build_dir=None):
    """The raw identification fields of the first processor in /proc/cpuinfo joined by '-':
    vendor_id, cpu family, model, stepping on x86; CPU implementer, architecture, part,
    revision on Arm. `filterlab advise` matches results with the same string."""
    return host(root, build_dir)["signature"]


def hypervisor(root=None, build_dir=None):
    """'kvm', 'xen', 'vmware', 'hyperv', ... or None on bare metal (CPUID hypervisor bit)."""
    return host(root, build_dir)["hypervisor"] or None


def caches(root=None, build_dir=None):
    """Caches of cpu0 from sysfs: a list of dicts plus l1d/l2/llc byte sizes."""
    h = host(root, build_dir)
    out = [{"level": c["level"], "type": c["type"], "bytes": c["bytes"], "ways": c["ways"],
            "line": c["line"], "shared_cpu_list": c["shared_cpu_list"]} for c in h["caches"]]
    return {"list": out, "l1d": h["l1d_bytes"], "l2": h["l2_bytes"], "llc": h["llc_bytes"],
            "source": "/sys/devices/system/cpu/cpu0/cache"}


def pmu_present():
    """A CPU PMU driver in sysfs (perf counters can exist). The harness reports whether it
    could really open them; this only decides what to expect."""
    return any(os.path.isdir("/sys/bus/event_source/devices/" + d)
               for d in ("cpu", "cpu_core", "armv8_pmuv3", "armv8_pmuv3_0"))


def ncpus(root=None, build_dir=None):
    """CPUs this process may run on."""
    return host(root, build_dir)["cpus_usable"]


def host_id(root=None, build_dir=None):
    """<uarch>-<hypervisor>-<N>c-<hash>: stable for a machine, short, readable. The hash is
    the first 4 hex digits of SHA-256 of the host name, so two machines of one class get two
    folders. FL_HOST_ID overrides it. Computed by the library (fl_host_describe)."""
    return host(root, build_dir)["host_id"]


def git_info(root):
    commit = _run(["git", "rev-parse", "HEAD"], cwd=root).strip() or None
    dirty = bool(_run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root).strip())
    describe = _run(["git", "log", "-1", "--format=%cI %s"], cwd=root).strip()
    return {"commit": commit, "short": commit[:12] if commit else None, "dirty": dirty,
            "last_commit": describe}


def mem_total():
    m = re.search(r"MemTotal:\s+(\d+) kB", _read("/proc/meminfo"))
    return int(m.group(1)) * 1024 if m else None


def describe(root, build_dir=None):
    """Everything run.json records about the host. build_dir: the build whose filterlab to
    ask (default $FL_BUILD_DIR, else ROOT/build)."""
    h = host(root, build_dir)
    cpu = cpu_info(root, build_dir)
    return {
        "host_id": h["host_id"],
        "hostname_sha256_4": h["hostname_sha256_4"],
        "cpu": {k: cpu[k] for k in ("vendor", "model_name", "family", "model", "stepping",
                                    "uarch", "uarch_source", "features")},
        "cpu_signature": h["signature"],
        "hypervisor": h["hypervisor"] or None,
        "ncpus": h["cpus_usable"],
        "mem_total": mem_total(),
        "caches": caches(root, build_dir),
        "pmu_driver_present": pmu_present(),
        "perf_event_paranoid": _read("/proc/sys/kernel/perf_event_paranoid") or None,
        "os": "%s %s %s" % (platform.system(), platform.release(), platform.machine()),
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git": git_info(root),
        "tools": {name: (shutil.which(name) or None) for name in ("hyperfine", "valgrind", "awk", "sort")},
    }


if __name__ == "__main__":
    print(json.dumps(describe(ROOT), indent=1))
