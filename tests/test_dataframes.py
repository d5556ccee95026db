"""abnfc.duckdb and abnfc.polars: a grammar's validator as a DuckDB function and a Polars
expression, against the generated Python module, nulls included."""
from __future__ import annotations

import random
import sys

import pytest
from conftest import ROOT, compile_text, python_module
from grammar_gen import mutations, sample

from abnfc.errors import AbnfError

DATETIME = ROOT / "grammars" / "datetime.abnf"
TEXT = DATETIME.read_text(encoding="utf-8")


def values(count: int) -> list[str | None]:
    """Timestamps sampled from the grammar, mutated ones and nulls (ASCII, so str and bytes agree)."""
    rng = random.Random(3339)
    resolved = compile_text(TEXT, "date-time").resolved
    found: list[str | None] = []
    while len(found) < count:
        data = sample(resolved, rng)
        assert data is not None
        for item in [data, *mutations(data, rng, 2)]:
            found.append(item.decode("latin-1") if item.isascii() else item[:5].decode("ascii", "replace"))
        if rng.random() < 0.05:
            found.append(None)
    return found[:count]


def expected(items: list[str | None]) -> list[bool | None]:
    module = python_module(TEXT, "date-time")
    return [None if item is None else module.is_valid(item.encode()) for item in items]


@pytest.mark.parametrize("lang", ["c", "python"])
def test_a_duckdb_function(lang):
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("numpy")
    import abnfc.duckdb

    items = values(5000)  # more than one of DuckDB's 2,048-row vectors
    connection = duckdb.connect()
    abnfc.duckdb.register(connection, "is_timestamp", DATETIME, start="date-time", lang=lang)
    connection.execute("create table t (i integer, s varchar)")
    connection.executemany("insert into t values (?, ?)", list(enumerate(items)))
    got = [row[0] for row in connection.sql("select is_timestamp(s) from t order by i").fetchall()]
    assert got == expected(items)


def test_a_polars_expression_eager_and_lazy():
    pl = pytest.importorskip("polars")
    import abnfc.polars

    items = values(5000)
    frame = pl.DataFrame({"ts": items})
    check = abnfc.polars.is_valid(pl.col("ts"), DATETIME, start="date-time")
    assert frame.select(check.alias("ok"))["ok"].to_list() == expected(items)
    kept = frame.lazy().filter(check).collect()["ts"].to_list()
    assert kept == [item for item, ok in zip(items, expected(items), strict=True) if ok]


def test_a_missing_package_is_named(monkeypatch):
    import abnfc.duckdb
    import abnfc.polars

    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb now raises ImportError
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(AbnfError, match=r"pip install duckdb numpy pyarrow"):
        abnfc.duckdb.register(object(), "f", DATETIME, start="date-time")
    with pytest.raises(AbnfError, match=r"pip install polars pyarrow"):
        abnfc.polars.is_valid(object(), DATETIME, start="date-time")
