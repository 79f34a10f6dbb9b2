"""How long reading and validating the curated catalog takes (no database).

.venv/bin/python -m pytest bench/bench_catalog.py --benchmark-only
"""

from catalog.loader import read_catalog


def test_read_whole_catalog(benchmark):
    rows = benchmark(read_catalog)
    assert sum(len(kind_rows) for kind_rows in rows.values()) > 60
