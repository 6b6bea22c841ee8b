"""The failed-check count the Redis module's tests keep (test_module.py, test_compat.py,
test_cf_width.py, test_hll_interop.py, test_bench_against.py): check(cond, what) prints
"FAIL: what" when cond is false, counts it in checks.failures and returns cond, so a test
goes on after a failure and reports them all; run(name, fn, *args) calls one test function
and prints "ok name" or "FAILED name" by whether it failed a check.

    import checks
    from checks import check
    check(reply == b"OK", "BF.RESERVE answers OK")
    checks.run("bf", test_bf, r)
    sys.exit(1 if checks.failures else 0)
"""

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)
    return cond


def run(name, fn, *args):
    before = failures
    fn(*args)
    print(f"{'ok' if failures == before else 'FAILED'} {name}")
