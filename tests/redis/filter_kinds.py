"""The data types the cluster and fault tests load and check, as commands.

One job: for each type, how to create a key, how to add a batch of items (and which of them
the server acknowledged), and how to ask whether they are all still there. The tests treat
every type alike, so adding CF or CMS to a test is one more name in a list.

  bf   RedisBloom's BF.RESERVE / BF.MADD / BF.MEXISTS (filterlab module)
  cf   CF.RESERVE / CF.INSERT / CF.MEXISTS (filterlab module)
  bf-inplace, cf-inplace   the same with GROWTH INPLACE (one growing cuckoo filter per key)
  cms  CMS.INITBYDIM / CMS.INCRBY / CMS.QUERY (filterlab module): found means count >= 1
  set  native SADD / SMISMEMBER: the same harness with no module, to tell a harness fault
       from a module fault
"""


class Kind:
    """Each kind has create(cmd, key, capacity); add(cmd, key, items) -> the items the reply
    says were stored (one multi-item command); missing(cmd, key, items) -> the items the key
    no longer reports as present (one command). `cmd(*args)` sends one command and returns
    its reply (a client's execute_command, or one pinned to a cluster node)."""
    name = None
    needs_module = True
    # a key that doubles its table in place (GROWTH INPLACE), whose FILTERLAB.INFO reports
    # "Doublings"
    grows = False


def _absent(items, replies):
    return [item for item, r in zip(items, replies) if not int(r)]


class Bloom(Kind):
    name = "bf"

    def create(self, cmd, key, capacity):
        cmd("BF.RESERVE", key, "0.001", capacity)

    def add(self, cmd, key, items):
        # BF.MADD answers 1 (new) or 0 (maybe seen before) per item: both mean stored.
        replies = cmd("BF.MADD", key, *items)
        if len(replies) != len(items):
            raise AssertionError(f"BF.MADD answered {len(replies)} for {len(items)} items")
        return list(items)

    def missing(self, cmd, key, items):
        return _absent(items, cmd("BF.MEXISTS", key, *items))


class Cuckoo(Kind):
    name = "cf"

    def create(self, cmd, key, capacity):
        cmd("CF.RESERVE", key, capacity)

    def add(self, cmd, key, items):
        # CF.INSERT answers 1 per stored item, -1 when the filter is full (not stored).
        replies = cmd("CF.INSERT", key, "ITEMS", *items)
        return [item for item, r in zip(items, replies) if int(r) == 1]

    def missing(self, cmd, key, items):
        return _absent(items, cmd("CF.MEXISTS", key, *items))


class BloomInplace(Bloom):
    name = "bf-inplace"
    grows = True

    def create(self, cmd, key, capacity):
        cmd("BF.RESERVE", key, "0.01", capacity, "GROWTH", "INPLACE")


class CuckooInplace(Cuckoo):
    name = "cf-inplace"
    grows = True

    def create(self, cmd, key, capacity):
        cmd("CF.RESERVE", key, capacity, "GROWTH", "INPLACE")


class CountMin(Kind):
    name = "cms"

    def create(self, cmd, key, capacity):
        cmd("CMS.INITBYDIM", key, 2000, 5)

    def add(self, cmd, key, items):
        args = []
        for item in items:
            args += [item, 1]
        cmd("CMS.INCRBY", key, *args)
        return list(items)

    def missing(self, cmd, key, items):
        # Count-Min never undercounts: every item added once must query >= 1.
        return _absent(items, [int(c) >= 1 for c in
                               cmd("CMS.QUERY", key, *items)])


class NativeSet(Kind):
    name = "set"
    needs_module = False

    def create(self, cmd, key, capacity):
        pass  # a set springs into being on its first SADD

    def add(self, cmd, key, items):
        cmd("SADD", key, *items)
        return list(items)

    def missing(self, cmd, key, items):
        return _absent(items, cmd("SMISMEMBER", key, *items))


KINDS = {k.name: k for k in (Bloom(), Cuckoo(), BloomInplace(), CuckooInplace(), CountMin(),
                             NativeSet())}


def parse(names):
    """'bf,cf,cms' -> [Kind, ...]; unknown names are an error, not silently dropped."""
    out = []
    for n in names.split(","):
        if n not in KINDS:
            raise SystemExit(f"unknown kind {n!r}; known: {', '.join(KINDS)}")
        out.append(KINDS[n])
    return out
