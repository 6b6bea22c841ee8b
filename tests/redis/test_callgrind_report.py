#!/usr/bin/python3
"""scripts/bench-redis --callgrind's arithmetic, without valgrind or a server: a callgrind
output file read back (compressed names, self against inclusive costs, a call's cost line
counted only inclusively), one row's figures from its costs (categories, call(), the floor:
a module's own functions never count in it) and the report's two bounds computed from
made-up counts:

    tests/redis/test_callgrind_report.py

bound = the other's instructions over filterlab's outside call(); bound with the reply adds
the fewer of the two sides' reply-building and argument-reading instructions inside call()."""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from redisbench.callgrind import (CG_FLOOR, callgrind_costs, callgrind_figures,  # noqa: E402
                                  callgrind_markdown)
import re  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


CG_FILE = """# callgrind format
version: 1
events: Ir
ob=(1) /usr/bin/redis-server
fl=(1) server.c
fn=(1) call
10 100
cfn=(2) addReplyLongLong
calls=2 20
11 40
fn=(2)
20 40
fn=(3) RM_StringPtrLen
+1 7
ob=(2) /x/filterlab_redis.so
fn=(4) cmd_add
30 25
cob=(1)
cfn=(3)
calls=1 40
31 7
"""


def side(total, call, floor):
    return {"items_per_command": 100, "instructions_per_command": total * 100,
            "instructions_per_item": total, "call_per_item": call,
            "floor_in_call_per_item": floor,
            "per_item": {"module": 1, "read and parse": 1, "reply": 1, "allocation": 1,
                         "dispatch, key, module API": 1, "other": 1},
            "module_top_per_item": [[1.0, "f"]]}


def main():
    with tempfile.TemporaryDirectory(prefix="fl_cg_report_") as d:
        p = os.path.join(d, "callgrind.out.1")
        with open(p, "w") as f:
            f.write(CG_FILE)
        c = callgrind_costs(p)
    srv, mod = "/usr/bin/redis-server", "/x/filterlab_redis.so"
    check(c.get(("call", srv)) == [100, 140], f"call: self 100, inclusive 140 ({c})")
    check(c.get(("addReplyLongLong", srv)) == [40, 40], "compressed name (2) reused")
    check(c.get(("RM_StringPtrLen", srv)) == [7, 7], "relative line numbers")
    check(c.get(("cmd_add", mod)) == [25, 32], "a call into another object: inclusive only")
    # one row: 2 commands of 10 items
    fig = callgrind_figures({("call", srv): [100, 700], ("addReplyLongLong", srv): [40, 40],
                             ("RM_StringPtrLen", srv): [20, 20], ("writeToClient", srv): [60, 60],
                             ("processMultibulkBuffer", srv): [80, 80],
                             ("addReplyFake", mod): [30, 30], ("cmd_add", mod): [50, 90]},
                            {mod}, 2, 10)
    check(fig["instructions_per_item"] == 380 / 20, f"total over items ({fig})")
    check(fig["instructions_per_command"] == 190, "total over commands")
    check(fig["call_per_item"] == 700 / 20, "call()'s inclusive cost over items")
    check(fig["floor_in_call_per_item"] == 60 / 20,
          "the floor: reply building and argument reading, not the write, not the module's")
    check(fig["per_item"]["module"] == 80 / 20 and fig["per_item"]["reply"] == 100 / 20,
          f"categories ({fig['per_item']})")
    check(fig["per_item"]["read and parse"] == 4 and fig["per_item"]["other"] == 0,
          "read and parse; nothing left over")
    check(fig["module_top_per_item"][0] == (50 / 20, "cmd_add"), "the module's top function")
    for fn in ("addReplyLongLong", "RM_ReplyWithLongLong", "RM_StringPtrLen",
               "prepareClientToWrite"):
        check(re.match(CG_FLOOR, fn), f"{fn} is part of the floor")
    for fn in ("writeToClient", "processMultibulkBuffer", "call", "malloc"):
        check(not re.match(CG_FLOOR, fn), f"{fn} is not (outside call() or not the reply)")

    doc = {"host": "h", "date": "d", "command": "c", "commit": "0" * 40, "valgrind": "v",
           "redis_server": "r", "other_label": "RB", "settings": {"warm": 1, "commands": 2,
                                                              "pipeline": 16},
           "modules": {"filterlab": "a.so", "other": "b.so"},
           "results": {"filterlab": {"X.ADD": side(1000, 500, 150)},
                       "other": {"X.ADD": side(1200, 700, 170)}}}
    md = callgrind_markdown(doc)
    # bound 1200 / (1000 - 500) = 2.40x; with the reply 1200 / (500 + 150) = 1.85x
    check("| X.ADD | 1,000 | 1,200 | 1.20x | 2.40x | 1.85x |" in md,
          "the two bounds:\n" + md)
    doc["results"]["other"]["X.ADD"]["floor_in_call_per_item"] = 120
    md = callgrind_markdown(doc)
    check("| 2.40x | 1.94x |" in md, "the fewer of the two floors (1200 / 620)")
    del doc["results"]["filterlab"]["X.ADD"]["floor_in_call_per_item"]
    md = callgrind_markdown(doc)
    check("| 2.40x |  |" in md, "a file from before the floor: that column left empty")
    if FAILS:
        sys.exit(1)
    print("callgrind report: ok")


if __name__ == "__main__":
    main()
