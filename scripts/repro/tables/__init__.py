"""One module per table of the report. Each has
  NUMBER   the seed table it reproduces (None for a table that measures no seed claim),
  KEY      its entry in tables.json,
  DATA     the data/ file it is computed from (None: it reads its own files),
  build(ctx, d)  adds its rows to ctx.tables[KEY] and its measured facts to ctx.facts; d is
           DATA's JSON (a table whose DATA file the run did not write is left out),
  EXPLAIN  claim id -> the explanation of that claim's verdict (see verdicts.judge).

ALL is the order the tables are built in, which is also the order of tables.json's keys.
Explanations run after every table is built, so they may read any table's facts."""

from rundata import load_json
from tables import (advice, t1_naive_vs_blocked, t2_crawler, t3_sizing, t4_fill, t5_space, t6_bound,
                    t7_dedup, t8_sweep)
from tables import t9_counting, t10_cms, t11_hll, t12_scalable, t13_bloom_variants

ALL = (t1_naive_vs_blocked, t2_crawler, t3_sizing, t4_fill, t5_space, t6_bound, t7_dedup, t8_sweep, advice)
ALL += (t9_counting, t10_cms, t11_hll, t12_scalable)
ALL += (t13_bloom_variants,)


def by_number():
    """Seed table number -> its module."""
    return {t.NUMBER: t for t in ALL if t.NUMBER is not None}


def build_all(ctx):
    for t in ALL:
        if t.DATA is None:
            t.build(ctx)
            continue
        d = load_json(ctx.out, t.DATA)
        if d:
            t.build(ctx, d)
