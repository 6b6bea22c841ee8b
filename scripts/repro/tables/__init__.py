"""The report's registry: one module per table of the report, and the experiments that feed
them. A table module declares, once, everything about its table:
  NUMBER   the seed table it reproduces (None for a table that measures no seed claim),
  KEY      its entry in tables.json,
  DATA     the data/ file it is computed from (None: it reads its own files),
  build(ctx, d)  adds its rows to ctx.tables[KEY] and its measured facts to ctx.facts; d is
           DATA's JSON (a table whose DATA file the run did not write is left out),
  EXPLAIN  claim id -> the explanation of that claim's verdict (see verdicts.judge);
and, where it has them:
  EXPERIMENT, WRITES, SETTINGS, experiment(runner)
           its experiment's name and description (scripts/reproduce's progress, run.py
           --only), the data/ files it writes besides DATA (tests/repro/test_reproduce.sh
           checks them all), its settings per mode (quick, full, tiny; experiments.MODES
           merges them) and what it runs (experiments.Runner runs them in PARTS order);
  SECTION, report(page, t)[, report_after_figure(page, t)]
           REPORT.md's "Table NUMBER" section (report.py): heading, sources, figure caption,
           and its body; seed tables only;
  FIGURES, figure(t, out, stamp, caches, claims)
           the plots/ files its figure writes (plots.py), PNG and SVG;
  CSVS     its tables/*.csv files: (file, the table -> (rows, columns); rows None: the run
           has no such part) (csvout.py).

PARTS is the run order of the experiments: the table modules, and the modules of the
experiments several tables read (urlgen: the URL files; static_data: the binary fuse
filters; pyexp: the Python claims), which declare only an experiment. ALL, the table modules
in PARTS order, is the order the tables are built in, which is also the order of
tables.json's keys and of REPORT.md's sections. Explanations run after every table is built,
so they may read any table's facts."""

import pyexp
import static_data
import urlgen
from rundata import load_json
from tables import (advice, t1_naive_vs_blocked, t2_crawler, t3_sizing, t4_fill, t5_space, t6_bound, t7_dedup,
                    t8_sweep, t9_counting, t10_cms, t11_hll, t12_scalable, t13_bloom_variants)

PARTS = (urlgen, t1_naive_vs_blocked, t2_crawler, t3_sizing, t4_fill, t5_space, t6_bound, t7_dedup, t8_sweep,
         advice, t9_counting, t10_cms, t11_hll, t12_scalable, static_data, t13_bloom_variants, pyexp)
ALL = tuple(p for p in PARTS if hasattr(p, "KEY"))


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
