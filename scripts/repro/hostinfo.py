"""What machine and what checkout a run happens on: CPU, caches, virtualisation, host id,
git commit, date. Everything is read from /proc, /sys, lscpu and git; nothing is guessed
from names that are not in those sources."""

import datetime
import hashlib
import os
import platform
import re
import shutil
import subprocess

# Intel family 6 model numbers (Intel SDM vol. 4, "CPUID Signature Values") and AMD family
# numbers, for a readable microarchitecture slug. Unknown models fall back to the model name.
INTEL_FAMILY6 = {
    0x3C: "haswell", 0x3F: "haswell", 0x45: "haswell", 0x46: "haswell",
    0x3D: "broadwell", 0x47: "broadwell", 0x4F: "broadwell", 0x56: "broadwell",
    0x4E: "skylake", 0x5E: "skylake", 0x55: "skylakex",
    0x8E: "kabylake", 0x9E: "coffeelake", 0xA5: "cometlake", 0xA6: "cometlake",
    0x66: "cannonlake", 0x7D: "icelake", 0x7E: "icelake", 0x6A: "icelakex", 0x6C: "icelakex",
    0x8C: "tigerlake", 0x8D: "tigerlake", 0xA7: "rocketlake",
    0x97: "alderlake", 0x9A: "alderlake", 0xB7: "raptorlake", 0xBA: "raptorlake",
    0xBF: "raptorlake", 0xAA: "meteorlake", 0xAC: "meteorlake", 0xBD: "lunarlake",
    0xC5: "arrowlake", 0xC6: "arrowlake",
    0x8F: "sapphirerapids", 0xCF: "emeraldrapids", 0xAD: "graniterapids", 0xAE: "graniterapids",
    0xAF: "sierraforest",
}
ARM_PARTS = {  # (implementer, part) from /proc/cpuinfo on aarch64
    (0x41, 0xD0C): "neoverse-n1", (0x41, 0xD40): "neoverse-v1", (0x41, 0xD49): "neoverse-n2",
    (0x41, 0xD4F): "neoverse-v2", (0x41, 0xD8E): "neoverse-n3", (0x41, 0xD84): "neoverse-v3",
    (0x41, 0xD0B): "cortex-a76", (0x41, 0xD08): "cortex-a72", (0x41, 0xD03): "cortex-a53",
    (0xC0, 0xAC3): "ampereone", (0x61, 0x000): "apple",
}


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


def _slug(s):
    s = re.sub(r"\(r\)|\(tm\)|cpu|processor|@.*", "", s.lower())
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-")[:24] or "cpu"


def cpu_info():
    """Vendor, model name, family/model/stepping and a microarchitecture slug."""
    info = {"vendor": "", "model_name": "", "family": None, "model": None, "stepping": None,
            "flags": ""}
    first = {}
    for line in _read("/proc/cpuinfo").splitlines():
        if not line.strip():
            if first:
                break
            continue
        k, _, v = line.partition(":")
        first.setdefault(k.strip(), v.strip())
    info["vendor"] = first.get("vendor_id", "")
    info["model_name"] = first.get("model name", "") or first.get("Model", "")
    for key, name in (("family", "cpu family"), ("model", "model"), ("stepping", "stepping")):
        try:
            info[key] = int(first.get(name, ""), 0)
        except ValueError:
            pass
    info["flags"] = first.get("flags", "") or first.get("Features", "")
    uarch = None
    if info["vendor"] == "GenuineIntel" and info["family"] == 6:
        uarch = INTEL_FAMILY6.get(info["model"])
        if info["model"] == 0x55 and (info["stepping"] or 0) >= 5:
            uarch = "cascadelake" if info["stepping"] < 10 else "cooperlake"
    elif info["vendor"] == "AuthenticAMD" and info["family"] is not None:
        m = info["model"] or 0
        if info["family"] == 0x17:
            uarch = "zen2" if m >= 0x30 else "zen"
        elif info["family"] == 0x19:
            uarch = "zen4" if (0x10 <= m <= 0x1F or 0x60 <= m <= 0x7F or 0xA0 <= m <= 0xAF) else "zen3"
        elif info["family"] == 0x1A:
            uarch = "zen5"
    elif platform.machine() == "aarch64":
        try:
            impl = int(first.get("CPU implementer", ""), 0)
            part = int(first.get("CPU part", ""), 0)
            uarch = ARM_PARTS.get((impl, part)) or ARM_PARTS.get((impl, 0))
            info["model_name"] = info["model_name"] or "aarch64 implementer %#x part %#x" % (impl, part)
        except ValueError:
            pass
    info["uarch"] = uarch or _slug(info["model_name"] or platform.machine())
    info["uarch_source"] = "cpuid family/model" if uarch else "model name"
    return info


def cpu_signature():
    """The raw identification fields of the first processor in /proc/cpuinfo joined by '-':
    vendor_id, cpu family, model, stepping on x86; CPU implementer, architecture, part,
    revision on Arm. `filterlab advise` builds the same string to find this machine's
    results."""
    first = {}
    for line in _read("/proc/cpuinfo").splitlines():
        if not line.strip():
            if first:
                break
            continue
        k, _, v = line.partition(":")
        first.setdefault(k.strip(), v.strip())
    if "vendor_id" in first:
        keys = ("vendor_id", "cpu family", "model", "stepping")
    else:
        keys = ("CPU implementer", "CPU architecture", "CPU part", "CPU revision")
    return "-".join(first.get(k, "") for k in keys)


def hypervisor():
    """'kvm', 'xen', 'vmware', 'hyperv', ... or None on bare metal (CPUID hypervisor bit)."""
    if " hypervisor" not in " " + cpu_info()["flags"]:
        return None
    out = _run(["lscpu"])
    m = re.search(r"Hypervisor vendor:\s*(\S+)", out)
    if m:
        v = m.group(1).lower()
        return {"microsoft": "hyperv"}.get(v, v)
    return _read("/sys/hypervisor/type") or "vm"


def caches():
    """Caches of cpu0 from sysfs: a list of dicts plus l1d/l2/llc byte sizes."""
    out = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        names = sorted(os.listdir(base))
    except OSError:
        names = []
    for name in names:
        if not name.startswith("index"):
            continue
        d = os.path.join(base, name)
        size = _read(os.path.join(d, "size"))
        m = re.match(r"(\d+)([KMG]?)", size)
        if not m:
            continue
        b = int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]
        out.append({"level": int(_read(os.path.join(d, "level"), "0")),
                    "type": _read(os.path.join(d, "type")),
                    "bytes": b,
                    "ways": int(_read(os.path.join(d, "ways_of_associativity"), "0") or 0),
                    "line": int(_read(os.path.join(d, "coherency_line_size"), "64") or 64),
                    "shared_cpu_list": _read(os.path.join(d, "shared_cpu_list"))})
    l1d = next((c["bytes"] for c in out if c["level"] == 1 and c["type"] == "Data"), None)
    l2 = next((c["bytes"] for c in out if c["level"] == 2 and c["type"] != "Instruction"), None)
    data = [c for c in out if c["type"] != "Instruction"]
    llc = max(data, key=lambda c: c["level"])["bytes"] if data else None
    return {"list": out, "l1d": l1d, "l2": l2, "llc": llc, "source": base}


def pmu_present():
    """A CPU PMU driver in sysfs (perf counters can exist). The harness reports whether it
    could really open them; this only decides what to expect."""
    return any(os.path.isdir("/sys/bus/event_source/devices/" + d)
               for d in ("cpu", "cpu_core", "armv8_pmuv3", "armv8_pmuv3_0"))


def ncpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def host_id(cpu=None):
    """<uarch>-<hypervisor>-<N>c-<hash>: stable for a machine, short, readable. The hash is
    the first 4 hex digits of SHA-256 of the host name, so two machines of one class get two
    folders. FL_HOST_ID overrides it."""
    env = os.environ.get("FL_HOST_ID")
    if env:
        return re.sub(r"[^A-Za-z0-9._-]+", "-", env)
    cpu = cpu or cpu_info()
    parts = [cpu["uarch"]]
    hv = hypervisor()
    if hv:
        parts.append(hv)
    parts.append("%dc" % ncpus())
    parts.append(hashlib.sha256(platform.node().encode()).hexdigest()[:4])
    return "-".join(parts)


def git_info(root):
    commit = _run(["git", "rev-parse", "HEAD"], cwd=root).strip() or None
    dirty = bool(_run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root).strip())
    describe = _run(["git", "log", "-1", "--format=%cI %s"], cwd=root).strip()
    return {"commit": commit, "short": commit[:12] if commit else None, "dirty": dirty,
            "last_commit": describe}


def mem_total():
    m = re.search(r"MemTotal:\s+(\d+) kB", _read("/proc/meminfo"))
    return int(m.group(1)) * 1024 if m else None


def describe(root):
    cpu = cpu_info()
    c = caches()
    return {
        "host_id": host_id(cpu),
        "hostname_sha256_4": hashlib.sha256(platform.node().encode()).hexdigest()[:4],
        "cpu": {k: cpu[k] for k in ("vendor", "model_name", "family", "model", "stepping",
                                    "uarch", "uarch_source")},
        "cpu_signature": cpu_signature(),
        "hypervisor": hypervisor(),
        "ncpus": ncpus(),
        "mem_total": mem_total(),
        "caches": c,
        "pmu_driver_present": pmu_present(),
        "perf_event_paranoid": _read("/proc/sys/kernel/perf_event_paranoid") or None,
        "os": "%s %s %s" % (platform.system(), platform.release(), platform.machine()),
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git": git_info(root),
        "tools": {name: (shutil.which(name) or None) for name in ("hyperfine", "valgrind", "awk", "sort")},
    }


if __name__ == "__main__":
    import json
    print(json.dumps(describe(os.getcwd()), indent=1))
