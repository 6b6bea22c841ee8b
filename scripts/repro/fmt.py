"""How the report writes numbers, sizes and a claim's value: the one copy analyze's
explanations, report.py, plots.py and index.py share, so a number reads the same everywhere."""

import math


def g(x, digits=3):
    """A number with `digits` significant digits, no exponent for ordinary magnitudes."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    if x == 0:
        return "0"
    a = abs(x)
    if 1e-4 <= a < 1e7:
        d = max(0, digits - 1 - int(math.floor(math.log10(a))))
        return "%.*f" % (d, x)
    return "%.*g" % (digits, x)


def mib(b):
    return None if b is None else b / 1048576.0


def human_bytes(b, number=g):
    """b in the largest binary unit it reaches (GiB, MiB, KiB), the number written by
    `number`; plain bytes below 1 KiB."""
    if b is None:
        return "n/a"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return "%s %s" % (number(b / div), unit)
    return "%d B" % b


def pct(x):
    return "n/a" if x is None else g(100 * x) + "%"


def show(x, unit):
    """A claim's value (the seed's or the one measured here) in the claim's unit."""
    if x is None:
        return "n/a"
    if unit == "bytes":
        return "%s MB" % g(x / 1e6)
    if unit == "FPR":
        return pct(x)
    if unit.startswith("cycles"):
        return "%sM" % g(x / 1e6)
    if unit.startswith("ms "):
        return g(x) + " ms"
    if unit.startswith("ns "):
        return g(x) + " ns"
    if unit.startswith("bits per key") and not unit.startswith("bits per key per"):
        return g(x) + " bits/key"
    if unit.startswith("KiB"):
        return g(x) + " KiB"
    if unit == "x" or unit.startswith("x "):
        return g(x) + "x"
    return g(x)


def bigger(seed_value, m):
    """'larger here: ' / 'smaller here: ' (the measured value against the seed's), or ''."""
    if m is None:
        return ""
    return "%s here: " % ("larger" if m > seed_value else "smaller")


def thousands(n):
    return "{:,}".format(n)


def size_text(b):
    """b bytes as flbench's --sizes reads them: 32K, 1M, 2G, or the plain number."""
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d%s" % (b // div, unit)
    return str(b)


def pow2_floor(x):
    p = 1
    while p * 2 <= x:
        p *= 2
    return p


def md_table(head, rows, align=None):
    """A Markdown table; align: "l" or "r" per column (default: the first left, the rest right)."""
    align = align or ["l"] + ["r"] * (len(head) - 1)
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in r) + " |")
    return "\n".join(out)
