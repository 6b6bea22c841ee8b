"""The failed-check count the Redis module's tests keep (test_module.py, test_compat.py,
test_hll_interop.py, test_bench_against.py): check(cond, what) prints "FAIL: what" when cond
is false, counts it in checks.failures and returns cond, so a test goes on after a failure
and reports them all.

    import checks
    from checks import check
    check(reply == b"OK", "BF.RESERVE answers OK")
    sys.exit(1 if checks.failures else 0)
"""

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)
    return cond
