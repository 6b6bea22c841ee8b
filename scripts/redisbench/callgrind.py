"""scripts/bench-redis --callgrind: instructions per command inside redis-server under
valgrind's callgrind, by where they go (redis-callgrind.json and .md)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from redis_server import RedisServer
from redisbench.against import CREATE, NATIVE, against_workloads
from redisbench.output import run_record, write_results
from redisbench.runs import BENCH, DISTINCT_SPACE, PIPELINE

CG_COMMANDS = 2000   # commands counted per row (redis-benchmark -P 16 -c 1)
CG_WARM = 200        # commands run before the counters are zeroed
# Server functions by what they do, matched against callgrind's function names (Debian's
# redis-server exports its symbols; its static functions stay nameless and count as
# "other"). Self cost only: a function's callees are counted where they are.
# Building a reply, inside call(): the module API's RM_ReplyWith* and the server's addReply*
# under them. prepareClientToWrite runs for every reply element and calls
# clientHasPendingReplies each time; the write path after call() calls that too, but once a
# command, not once an item. Writing the reply out (writeToClient and below) is after call().
REPLY_BUILD = (r"addReply.*|_addReply.*|prepareClientToWrite|clientHasPendingReplies|"
               r"RM_ReplyWith.*|RM_ReplySetArrayLength|setDeferred.*")
CG_CATEGORIES = [
    ("read and parse", r"^(processMultibulkBuffer|processInlineBuffer|processInputBuffer|"
     r"string2ll|createEmbeddedStringObject|createStringObject|createRawStringObject|"
     r"createObject|readQueryFromClient|sdsMakeRoomFor.*|_?sdsnewlen|sdsrange|"
     r"__strchr_.*|__memchr_.*|connSocketRead|read)$"),
    ("reply", r"^(" + REPLY_BUILD + r"|writeToClient|_writeToClient|"
     r"handleClientsWithPendingWrites.*|connSocketWrite|write|writev)$"),
    ("allocation", r"^(malloc|free|calloc|realloc|malloc_usable_size|zmalloc.*|zfree|"
     r"zcalloc.*|ztrymalloc.*|zrealloc.*|decrRefCount|freeClientArgv|sdsfree|je_.*|"
     r"_rjem_.*)$"),
    ("dispatch, key, module API", r"^(call|processCommand|lookupCommand.*|"
     r"RedisModuleCommandDispatcher|moduleCreateContext|moduleFreeContext|"
     r"autoMemory.*|RM_.*|lookupKey.*|dictFind|dictFetchValue|siphash.*|dict.*Hash.*|"
     r"dict.*Compare|resetClient|commandProcessed|signalModifiedKey|touchWatchedKey|"
     r"trackingInvalidateKey|notifyKeyspaceEvent|alsoPropagate|propagatePendingCommands|"
     r"postExecutionUnitOperations|afterCommand|updateCommandLatencyHistogram|hdr_.*|"
     r"ustime|__strcasecmp.*|strcasecmp|getExpire|expireIfNeeded|keyIsExpired)$"),
]
# What any module pays inside call() for a command of RedisBloom's reply shape, whatever its
# own code: building the reply (writing it out happens after call()) and reading each
# argument's bytes (RM_StringPtrLen, the module API's only way to them). The floor under a
# module's instructions, beside everything outside call().
CG_FLOOR = r"^(" + REPLY_BUILD + r"|RM_StringPtrLen)$"


class CallgrindServer(RedisServer):
    """redis-server under valgrind's callgrind (instrumented from the start; counters
    zeroed and dumped by callgrind_control around each measured batch)."""

    def __init__(self, out_dir, **kw):
        super().__init__(start_timeout=180, **kw)
        self.out_dir = out_dir

    def command(self):
        return (["valgrind", "--tool=callgrind", "--callgrind-out-file=" +
                 os.path.join(self.out_dir, "callgrind.out.%p")] + super().command())


def callgrind_costs(path):
    """{(function, object): [self Ir, inclusive Ir]} from a callgrind output file (name
    compression and the cost line after each calls= line, which is the call's inclusive
    cost, handled)."""
    names = {"fn": {}, "ob": {}}
    cost = {}
    ob = fn = None
    call_line = False

    def name(kind, v):
        m = re.match(r"\((\d+)\)(?: (.*))?", v)
        if not m:
            return v
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), "?")
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = name("ob", line[3:].rstrip("\n"))
            elif line.startswith("cob="):
                name("ob", line[4:].rstrip("\n"))
            elif line.startswith("fn="):
                fn = name("fn", line[3:].rstrip("\n"))
            elif line.startswith("cfn="):
                name("fn", line[4:].rstrip("\n"))
            elif line.startswith("calls="):
                call_line = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                parts = line.split()
                if len(parts) >= 2:
                    c = cost.setdefault((fn, ob), [0, 0])
                    if not call_line:
                        c[0] += int(parts[1])
                    c[1] += int(parts[1])
                call_line = False
    return cost


def callgrind_figures(cost, mine, commands, per):
    """One row's figures from callgrind_costs' {(function, object): [self, inclusive]} of
    `commands` commands of `per` items: instructions per command and per item, call()'s
    share, the floor inside it (CG_FLOOR), the categories (the module: every function of an
    object in `mine`, real paths), and the module's six most expensive functions."""
    total = sum(v[0] for v in cost.values())
    cats = {k: 0 for k, _ in CG_CATEGORIES}
    cats["module"] = cats["other"] = 0
    top, floor = {}, 0
    for (fn, ob), (own, _) in cost.items():
        if ob and os.path.realpath(ob) in mine:
            cats["module"] += own
            top[fn] = top.get(fn, 0) + own
            continue
        if fn and re.match(CG_FLOOR, fn):
            floor += own
        for k, rx in CG_CATEGORIES:
            if fn and re.match(rx, fn):
                cats[k] += own
                break
        else:
            cats["other"] += own
    call = sum(v[1] for (fn, _), v in cost.items() if fn == "call")
    items = commands * per
    return {
        "items_per_command": per, "instructions_per_command": total / commands,
        "instructions_per_item": total / items,
        # call(): the command's execution (module code, module API, reply building) as
        # opposed to reading, parsing, writing and the event loop.
        "call_per_item": call / items,
        # reply building and argument reading inside call() (CG_FLOOR)
        "floor_in_call_per_item": floor / items,
        "per_item": {k: v / items for k, v in cats.items()},
        "module_top_per_item": sorted(((v / items, k) for k, v in top.items()),
                                      reverse=True)[:6],
    }


def module_objects(module):
    """The module's object and the shared libraries it brings that redis-server does not
    link (filterlab's: libxxhash): the code counted as the module's."""
    def libs(path):
        p = subprocess.run(["ldd", path], capture_output=True, text=True)
        return {ln.split("=>")[1].split("(")[0].strip() for ln in p.stdout.splitlines()
                if "=>" in ln and "/" in ln.split("=>")[1]}
    server = shutil.which("redis-server")
    return {os.path.realpath(module)} | {os.path.realpath(x) for x in
                                         libs(module) - libs(server)}


def callgrind_side(module, rows, out_dir):
    """Runs `rows` on redis-server with `module` under callgrind: per row its setup (adds:
    a fresh key), CG_WARM commands, zeroed counters, CG_COMMANDS commands, a dump. Returns
    {row name: figures}."""
    os.makedirs(out_dir, exist_ok=True)
    mine = module_objects(module)
    res = {}
    with CallgrindServer(out_dir, module=module, name="callgrind") as srv:
        c = srv.client(socket_timeout=600)
        bench = [BENCH, "-h", "127.0.0.1", "-p", str(srv.port), "-c", "1", "-P",
                 str(PIPELINE), "-r", str(DISTINCT_SPACE), "-q"]
        for name, argv, per, setup in rows:
            if setup:
                c.delete(argv[1])
                c.execute_command(*setup)
            subprocess.run(bench + ["-n", str(CG_WARM)] + argv, check=True,
                           capture_output=True, timeout=600)
            subprocess.run(["callgrind_control", "-z", str(srv.pid())], check=True,
                           capture_output=True, timeout=600)
            subprocess.run(bench + ["-n", str(CG_COMMANDS)] + argv, check=True,
                           capture_output=True, timeout=1200)
            before = set(os.listdir(out_dir))
            subprocess.run(["callgrind_control", "-d", name, str(srv.pid())], check=True,
                           capture_output=True, timeout=600)
            dump = [x for x in set(os.listdir(out_dir)) - before if x.startswith("callgrind")]
            if len(dump) != 1:
                raise RuntimeError(f"callgrind: {name}: no single new dump ({dump})")
            cost = callgrind_costs(os.path.join(out_dir, dump[0]))
            res[name] = callgrind_figures(cost, mine, CG_COMMANDS, per)
        c.close()
    return res


def callgrind_main(a, module, host, out):
    for tool in ("valgrind", "callgrind_control"):
        if not shutil.which(tool):
            sys.exit(f"bench-redis: --callgrind needs {tool} (scripts/setup installs valgrind)")
    other = os.path.abspath(a.against) if a.against else None
    if other and not os.path.isfile(other):
        sys.exit(f"bench-redis: --against {a.against}: no such file")
    # Each add row's key is reserved for the items the row puts in (CG_WARM + CG_COMMANDS
    # commands, and two pipelines' worth: redis-benchmark may overshoot -n by a pipeline),
    # so that, as in the timed runs, the counted adds fill it nearly to capacity (a cuckoo
    # filter's last items cost the most) and never make a chain grow.
    rows, fill = [], None
    for i, (name, argv, per, setup, _goal) in enumerate(against_workloads(1)):
        if setup:
            fill = (CG_WARM + CG_COMMANDS + 2 * PIPELINE) * per
        name, argv, per, setup, _goal = against_workloads(fill)[i]
        rows.append((name, argv, per, setup))
    # Key creation (redis-against.md's last table): every command names a new key, so each
    # one creates a filter of the module's default shape, or of one reserved shape.
    rows += [(name, argv, 1, None) for name, argv in CREATE]
    native = [("PING", ["PING"], 1, None)] + [(nm, argv, per, setup)
                                              for nm, argv, per, setup in NATIVE]
    with tempfile.TemporaryDirectory(prefix="fl_callgrind_") as d:
        sides = {"filterlab": callgrind_side(module, native + rows,
                                             os.path.join(d, "filterlab"))}
        if other:
            sides["other"] = callgrind_side(other, rows, os.path.join(d, "other"))
    doc = run_record("instructions per command inside redis-server under callgrind",
                     "scripts/bench-redis --callgrind" +
                     (" --against " + a.against if a.against else "") +
                     (f" --other-label '{a.other_label}'" if a.other_label else ""),
                     host)
    doc.update({
        "valgrind": subprocess.run(["valgrind", "--version"], capture_output=True,
                                   text=True).stdout.strip(),
        "redis_server": shutil.which("redis-server"),
        "other_label": a.other_label,
        "modules": {"filterlab": module, "other": other},
        "settings": {"commands": CG_COMMANDS, "warm": CG_WARM, "pipeline": PIPELINE,
                     "clients": 1},
        "results": sides,
    })
    write_results(out, "redis-callgrind", doc, callgrind_markdown(doc))


def callgrind_markdown(d):
    r = d["results"]
    fl, ot = r["filterlab"], r.get("other")
    other = ((d["other_label"] or os.path.basename(d["modules"]["other"]))
             if d["modules"]["other"] else None)
    cats = [k for k, _ in CG_CATEGORIES]
    lines = [
        f"# Instructions inside redis-server per command ({d['host']}, {d['date']})",
        "",
        f"Written by `{d['command']}` (commit `{d['commit'][:12]}`, {d['valgrind']}, "
        f"{d['redis_server']}). Each row: {d['settings']['warm']} commands, counters "
        f"zeroed, {d['settings']['commands']:,} commands by redis-benchmark -P "
        f"{d['settings']['pipeline']} -c 1, counters dumped: every instruction the server "
        "ran for them, divided by the items. An add row starts on a fresh key reserved for "
        "the items it adds and two pipelines more (BF at 0.01; the counted adds fill it "
        "nearly to capacity, as the timed runs do, and no chain grows); a lookup row reads "
        "the key the add before it filled. A *new key* row names a new key in every "
        "command (redis-benchmark's `__rand_int__` in the key name): each creates a filter "
        "of the module's default shape (BF.ADD, CF.ADD) or of the one BF.INSERT reserves, "
        "as redis-against.md's key creation runs do. Valgrind has no AVX-512: filterlab's kernels "
        "run their AVX2 or scalar forms here. Instruction counts, not time: they leave out "
        "cache misses and the machine's load, and they repeat.",
        "",
        "*module*: the module's own code (and the libraries it brings: libxxhash); the other "
        "columns are redis-server's, by function (self cost): *read and parse* the request "
        "and argument objects, *reply* building and writing it, *allocation* (jemalloc, "
        "argument objects freed), *dispatch, key, module API* (command lookup, the module "
        "API calls, key lookup); *other*: the event loop and redis-server's unnamed static "
        "functions. *call()*: the command's execution (module code, module API, reply "
        "building), as opposed to everything the server does around it.",
        "",
        "| command | items/cmd | module | instructions/item | call() | module | "
        + " | ".join(cats) + " | other |",
        "|:---|---:|:---|---:|---:|---:|" + "---:|" * (len(cats) + 1),
    ]
    for name, f in fl.items():
        for side, x in (("filterlab", f), (other, ot.get(name) if ot else None)):
            if x is None:
                continue
            pi = x["per_item"]
            lines.append(f"| {name} | {x['items_per_command']} | {side} | "
                         f"{x['instructions_per_item']:,.0f} | {x['call_per_item']:,.0f} | "
                         f"{pi['module']:,.0f} | " + " | ".join(f"{pi[k]:,.0f}" for k in cats) +
                         f" | {pi['other']:,.0f} |")
    if ot:
        lines += [
            "",
            f"filterlab against {other}: instructions per item, their ratio (other / "
            "filterlab: above 1, filterlab runs fewer), and the bound: the ratio filterlab "
            "would reach if its command's execution, call(), cost nothing at all (the other's "
            "instructions over filterlab's outside call()). A goal above the bound cannot be "
            "met by the module: what is left is the server reading, parsing, allocating and "
            "writing, the same for both. *Bound with the reply*: the same, with what any "
            "module pays inside call() added to filterlab's instructions: building the "
            "reply RedisBloom's command returns (addReply*, RM_ReplyWith*) and reading each "
            "argument (RM_StringPtrLen), the fewer of the two modules' counts; a module "
            "whose own code cost nothing would still pay these, so this bound is the "
            "tighter one.",
            "",
            f"| command | filterlab | {other} | {other} / filterlab | bound | "
            "bound with the reply |",
            "|:---|---:|---:|---:|---:|---:|",
        ]
        for name, x in ot.items():
            f = fl[name]
            rest = f["instructions_per_item"] - f["call_per_item"]
            floor = [y.get("floor_in_call_per_item") for y in (f, x)]
            tight = ("" if None in floor else
                     f"{x['instructions_per_item'] / (rest + min(floor)):.2f}x")
            lines.append(f"| {name} | {f['instructions_per_item']:,.0f} | "
                         f"{x['instructions_per_item']:,.0f} | "
                         f"{x['instructions_per_item'] / f['instructions_per_item']:.2f}x | "
                         f"{x['instructions_per_item'] / rest:.2f}x | {tight} |")
    lines += ["", "The module's most expensive functions, instructions per item (self):", ""]
    for name, f in fl.items():
        for side, x in (("filterlab", f), (other, ot.get(name) if ot else None)):
            if x and x["module_top_per_item"]:
                lines.append(f"- {name}, {side}: " + ", ".join(
                    f"{fn} {v:,.0f}" for v, fn in x["module_top_per_item"]))
    lines.append("")
    return "\n".join(lines)
