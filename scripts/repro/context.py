"""What every table module and explanation shares while a run is analysed: the run, this
host's caches, the facts measured so far (what claims are compared with) and the tables
built so far. Tables are built in registry order, and explanations run after all of them,
so an explanation may read any table (table 1's reasons quote table 8's DRAM point)."""

from fmt import human_bytes

# The five filter variants the seed tables compare, in their columns' order.
VARIANTS = ("classic", "block512", "split256", "reg64", "cuckoo")


def size_class(b, caches):
    """Where a structure of b bytes fits by the sizes sysfs reports: L1, L2, LLC or DRAM."""
    if b is None:
        return "n/a"
    if caches.get("l1d") and b <= caches["l1d"]:
        return "L1"
    if caches.get("l2") and b <= caches["l2"]:
        return "L2"
    if caches.get("llc") and b <= caches["llc"]:
        return "LLC"
    return "DRAM"


class Context:
    def __init__(self, out, run):
        self.out = out
        self.run = run
        self.host = run["host"]
        self.caches = self.host["caches"]
        self.kernel = run["stamp"]["kernel_selected"]
        self.facts = {}      # measure key -> value (what claims are compared with)
        self.sources = {}    # measure key -> data file it came from
        self.tables = {}     # table key (t1 ... t8, advice) -> what the report prints

    def fact(self, key, value, source):
        self.facts[key] = value
        self.sources[key] = source

    def table(self, key):
        """A table built earlier in this run, or {} when its data is missing."""
        return self.tables.get(key) or {}

    def size_class(self, b):
        """size_class by the sizes sysfs reports, except that a size at or past the DRAM point
        this run measured (run.json t8_dram_point: the smallest footprint from which the memory
        probe's latency is DRAM-like) is DRAM, whatever sysfs says of the last-level cache (a
        VM may report the host's whole L3)."""
        dram_from = (self.run.get("t8_dram_point") or {}).get("bytes")
        if dram_from and b is not None and b >= dram_from:
            return "DRAM"
        return size_class(b, self.caches)

    def fits(self, b):
        """(class, sentence): where a b-byte structure lives here. Past the footprint where
        table 8's memory probe measured DRAM-like latency it counts as DRAM, whatever size
        sysfs gives the last-level cache (a VM may report the host's whole L3)."""
        c = self.caches
        cls = self.size_class(b)
        ml = self.table("t8").get("memory_like_from")
        if ml and b and b >= ml and cls in ("LLC", "L2"):
            return "DRAM", ("the %s structure is past %s, where this machine's memory latency is already "
                            "DRAM-like (table 8), although sysfs reports a %s last-level cache" % (
                                human_bytes(b), human_bytes(ml), human_bytes(c["llc"])))
        where = {"L1": "the %s L1d" % human_bytes(c["l1d"]), "L2": "the %s L2" % human_bytes(c["l2"]),
                 "LLC": "the %s last-level cache" % human_bytes(c["llc"])}.get(cls)
        return cls, ("the %s filter fits in %s here" % (human_bytes(b), where)) if where else \
            ("the %s filter is larger than the %s last-level cache" % (human_bytes(b), human_bytes(c["llc"])))

    def fits_text(self, b):
        """Only the sentence of fits(b); '' when b is unknown."""
        return self.fits(b)[1] if b else ""
