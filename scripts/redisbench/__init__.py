"""scripts/bench-redis's parts, one per job: runs (redis-benchmark runs and their medians),
output (the results files), and one module per mode: native (the module against Redis's
native sets), against (against another RedisBloom-compatible module), memory (MEMORY USAGE
of BF keys on both), cf_memory (MEMORY USAGE and measured FPR of CF keys on both) and
callgrind (instructions per command inside redis-server)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The servers are tests/redis's (started on a free port, stopped by PID); the host id is
# scripts/repro's.
sys.path.insert(0, os.path.join(ROOT, "tests", "redis"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "repro"))
