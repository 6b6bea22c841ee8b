"""Python against the C library through the `filterlab` command: the same answers on the same
keys, and files that move both ways."""
import numpy as np
import pytest

import filterlab as fl
from conftest import keyset, lines

BLOOM = ["classic", "block512", "split256", "reg64", "cuckoo"]


@pytest.mark.parametrize("variant", BLOOM)
def test_cli_filter_answers_like_python(cli, tmp_path, variant):
    present, probe = keyset("user", 3000), keyset("user", 3000) + keyset("guest", 6000)
    path = tmp_path / "c.flt"
    cli("build", "--type", variant, "--n", 3000, "--fpr", 0.02, "--seed", 11, "-o", path,
        stdin=lines(present))
    f = fl.Filter.load(path)
    assert f.seed == 11 and f.variant == variant
    marks, _ = cli("query", path, "--mark", stdin=lines(probe))
    c_answers = np.array([m == b"1" for m in marks.split()])
    py_answers = f.contains_many(probe)
    assert len(c_answers) == len(probe)
    assert (py_answers == c_answers).all()
    assert py_answers[:3000].all()


@pytest.mark.parametrize("variant", BLOOM + ["counting", "counting512"])
def test_python_file_read_by_cli(cli, tmp_path, variant):
    f = fl.Filter(n=2000, fpr=0.01, variant=variant, seed=3)
    present = keyset("k", 2000)
    f.add_many(present)
    path = tmp_path / "p.flt"
    f.save(path)
    probe = present + keyset("absent", 4000)
    marks, _ = cli("query", path, "--mark", stdin=lines(probe))
    c_answers = np.array([m == b"1" for m in marks.split()])
    assert (c_answers == f.contains_many(probe)).all()
    info, _ = cli("info", path)
    assert variant.encode() in info and b"2000" in info


def test_cli_parquet_export_read_by_python(cli, tmp_path):
    flt, pq = tmp_path / "s.flt", tmp_path / "s.parquet-bloom"
    keys = keyset("row", 1000)
    cli("build", "--type", "split256", "--n", 1000, "--fpr", 0.01, "-o", flt, stdin=lines(keys))
    cli("export-parquet", flt, "-o", pq)
    g = fl.Filter.from_parquet(pq.read_bytes())
    assert g.contains_many(keys).all()
    assert g.to_parquet() == pq.read_bytes()


def test_cli_scalable_bloom(cli, tmp_path):
    path = tmp_path / "g.sbf"
    keys = keyset("grow", 5000)
    cli("build", "--type", "block512", "--grow", "--n", 500, "--fpr", 0.01, "-o", path,
        stdin=lines(keys))
    s = fl.ScalableBloom.load(path)
    assert len(s.info().filters) > 1 and s.contains_many(keys).all()
    probe = keys + keyset("other", 5000)
    marks, _ = cli("query", path, "--mark", stdin=lines(probe))
    assert (np.array([m == b"1" for m in marks.split()]) == s.contains_many(probe)).all()
    s.add_many(keyset("more", 100))
    out = tmp_path / "py.sbf"
    s.save(out)
    marks, _ = cli("query", out, "--count", stdin=lines(keyset("more", 100)))
    assert marks.strip() == b"100"


def test_cli_growing_cuckoo(cli, tmp_path):
    path = tmp_path / "g.gcf"
    keys = keyset("grow", 5000)
    cli("gcf-build", "--n", 500, "--seed", 4, "-o", path, stdin=lines(keys))
    g = fl.GrowingCuckoo.load(path)
    assert g.info().doublings >= 1 and g.info().seed == 4 and g.contains_many(keys).all()
    probe = keys + keyset("other", 5000)
    found, _ = cli("gcf-query", path, stdin=lines(probe))
    assert set(found.split()) == {k for k, hit in zip(probe, g.contains_many(probe)) if hit}
    g.add_many(keyset("more", 100))
    g.delete(keys[0])
    out = tmp_path / "py.gcf"
    g.save(out)
    count, _ = cli("gcf-query", out, "--count", stdin=lines(keyset("more", 100)))
    assert count.strip() == b"100"


def test_cli_hyperloglog_strings_equal_python(cli, tmp_path):
    keys = keyset("visitor", 20000) + keyset("visitor", 100)
    out = tmp_path / "h.hll"
    count, _ = cli("count", "-o", out, stdin=lines(keys))
    h = fl.HyperLogLog()
    h.add_many(keys)
    # PFCOUNT caches the count in the header (bytes 8..15); the CLI counted before saving.
    assert h.to_redis()[16:] == out.read_bytes()[16:]
    assert str(h.count()).encode() in count
    assert h.to_redis() == out.read_bytes()
    small = fl.HyperLogLog()
    small.add_many(keyset("few", 10))  # still sparse
    sp = tmp_path / "small.hll"
    sp.write_bytes(small.to_redis())
    c2, _ = cli("count", "--from", sp)
    assert str(small.count()).encode() in c2


def test_cli_count_min_files(cli, tmp_path):
    words = [b"apple"] * 50 + [b"pear"] * 20 + keyset("w", 300)
    path = tmp_path / "f.cms"
    cli("freq", "--width", 200, "--depth", 4, "--seed", 2, "--top", 3, "-o", path,
        stdin=lines(words))
    c = fl.CountMin.load(path)
    assert c.total == len(words) and c[b"apple"] >= 50
    assert c.top()[0][0] == b"apple"
    probe = [b"apple", b"pear", b"w-1", b"nothing"]
    qf = tmp_path / "q.txt"
    qf.write_bytes(lines(probe))
    out, _ = cli("freq", "--from", path, "--query", qf)
    c_est = [int(line.split(b"\t")[0]) for line in out.splitlines()]
    assert c_est == list(c.query_many(probe))
    c.add_many(probe)
    py = tmp_path / "py.cms"
    c.save(py)
    out, _ = cli("freq", "--from", py, "--query", qf)
    assert [int(line.split(b"\t")[0]) for line in out.splitlines()] == list(c.query_many(probe))
