"""What every mode of scripts/bench-redis writes: the record's common head (what, command,
host, date, commit) and the JSON and Markdown files, the Markdown also printed."""
import datetime
import json
import os
import shutil
import subprocess

from redisbench import ROOT


def ratio(x, y):
    return x / y if y else None


def run_record(what, command, host):
    """The head of a results file: what was measured, by which command, where, when, at
    which commit."""
    return {
        "what": what,
        "command": command,
        "host": host["host_id"],
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                 text=True).stdout.strip(),
    }


def write_results(out, stem, doc, text):
    """OUT/STEM.json (doc) and OUT/STEM.md (text); prints the text and what it wrote."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write(text)
    print(text)
    print(f"wrote {out}/{stem}.json and {stem}.md")


def caveat(load_before, sharing):
    """The results' caveat: whether other work was running before the run (1-minute load
    average 1.5 or more), then what shares the machine's vCPUs."""
    return ("Measured while other work was running (1-minute load average 1.5 or more "
            "before the run); rerun on a quiet machine for publishable figures. "
            if load_before[0] >= 1.5 else "No other work was running before the run. ") + sharing


def two_modules_record(version, other_label, module, other, loaded):
    """The part of an --against record that says what ran: the Redis version and server, and
    both modules, each with its path and what MODULE LIST said it loaded."""
    return {"redis_version": version, "redis_server": shutil.which("redis-server"),
            "other_label": other_label,
            "modules": {"filterlab": {"path": module, "loaded": loaded["filterlab"]},
                        "other": {"path": other, "loaded": loaded["other"]}}}
