"""Benchmark: a grammar's validator inside DuckDB and Polars, against their regular expressions.

2 million RFC 3339 timestamps with 2,000 broken ones (bench_records.timestamps), in a DuckDB
table and a Polars frame: ``abnfc.duckdb.register``'s functions (the native one, a DuckDB
extension, and the Arrow UDF; on one thread and on DuckDB's default number) against
``regexp_full_match``, and ``abnfc.polars.is_valid`` against ``str.contains`` with the anchored
pattern (both RE2), counting the invalid rows.  The pattern is bench_records.DATETIME,
equivalent to grammars/datetime.abnf's date-time; the counts must agree.  Medians of 5 runs, and
the regular expression's time over abnfc's (above 1: abnfc is faster).

    pip install duckdb numpy polars pyarrow pyspark pandas   # and a Java runtime for Spark
    python bench/bench_dataframes.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_records import DATETIME, timestamps  # noqa: E402

GRAMMAR = ROOT / "grammars" / "datetime.abnf"


def median(run, repeats: int = 5) -> tuple[float, int]:
    times, result = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def duckdb_rows(values: list[str]) -> list[str]:
    """DuckDB on one thread and on its default number: the native function (an extension abnfc
    builds, which needs allow_unsigned_extensions) and the Arrow UDF, each against
    regexp_full_match."""
    import duckdb
    import pyarrow as pa

    import abnfc.duckdb

    connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    abnfc.duckdb.register(connection, "is_timestamp", GRAMMAR, start="date-time", native=True)
    abnfc.duckdb.register(connection, "is_timestamp_arrow", GRAMMAR, start="date-time", native=False)
    connection.register("source", pa.table({"ts": values}))
    connection.execute("create table t as select * from source")
    default = connection.sql("select current_setting('threads')").fetchall()[0][0]
    pattern = DATETIME[1:-1]  # regexp_full_match anchors itself
    rows = []
    for threads in sorted({1, default}):
        connection.execute(f"set threads = {threads}")
        theirs = median(lambda: connection.sql(f"select count(*) from t where not regexp_full_match(ts, '{pattern}')")
                        .fetchall()[0][0])
        for function, kind in (("is_timestamp", "native"), ("is_timestamp_arrow", "Arrow UDF")):
            ours = median(lambda f=function: connection.sql(f"select count(*) from t where not {f}(ts)")
                          .fetchall()[0][0])
            rows.append(_row(f"DuckDB, {threads} thread{'s' if threads > 1 else ''}: abnfc {kind} vs "
                             "regexp_full_match", ours, theirs))
    return rows


def duckdb_json_rows(_values: list[str]) -> list[str]:
    """A column of 200,000 JSON documents (bench_records.json_documents, one in fifty broken):
    the native function of grammars/json.abnf (its C pushdown validator) against DuckDB's own
    json_valid, at DuckDB's default number of threads."""
    import duckdb
    from bench_records import json_documents

    import abnfc.duckdb

    connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    abnfc.duckdb.register(connection, "is_json", ROOT / "grammars" / "json.abnf", native=True)
    documents = [document.decode() for document in json_documents(200_000)]
    connection.execute("create table docs as select unnest($1::varchar[]) as doc", [documents])
    ours = median(lambda: connection.sql("select count(*) from docs where not is_json(doc)").fetchall()[0][0])
    theirs = median(lambda: connection.sql("select count(*) from docs where not json_valid(doc)").fetchall()[0][0])
    return [_row("DuckDB: abnfc native is_json (RFC 8259) vs json_valid", ours, theirs)]


def polars_rows(values: list[str]) -> list[str]:
    import polars as pl

    import abnfc.polars

    frame = pl.DataFrame({"ts": values})
    check = abnfc.polars.is_valid(pl.col("ts"), GRAMMAR, start="date-time")
    ours = median(lambda: frame.select((~check).sum()).item())
    theirs = median(lambda: frame.select((~pl.col("ts").str.contains(DATETIME)).sum()).item())
    return [_row("Polars: abnfc.polars.is_valid vs str.contains", ours, theirs)]


def spark_rows(values: list[str]) -> list[str]:
    """Spark local[1] and local[2]: abnfc.spark.validate against rlike (Java's regex), and the
    scaling from one core to two, rows a second a core."""
    import os

    from pyspark.sql import SparkSession

    import abnfc.spark

    os.environ["PYSPARK_PYTHON"] = sys.executable
    rows = []
    for cores in (1, 2):
        spark = (SparkSession.builder.master(f"local[{cores}]").appName("bench").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        frame = spark.createDataFrame([(value,) for value in values], "ts string").repartition(cores * 4).cache()
        frame.count()
        checked = abnfc.spark.validate(frame, "ts", GRAMMAR, start="date-time")
        ours = median(lambda c=checked: c.filter("not valid").count(), 3)
        # [.], not \\.: Spark SQL string literals unescape backslashes before the regex sees them
        pattern = DATETIME.replace("\\.", "[.]")
        theirs = median(lambda f=frame, p=pattern: f.filter(f"not ts rlike '{p}'").count(), 3)
        rows.append(_row(f"Spark local[{cores}]: abnfc.spark.validate vs rlike", ours, theirs)
                    + f" {len(values) / ours[0] / cores:,.0f} rows/s a core |")
        spark.stop()
    return rows


def _row(label: str, ours: tuple[float, int], theirs: tuple[float, int]) -> str:
    if ours[1] != theirs[1]:
        raise SystemExit(f"{label}: abnfc counts {ours[1]} invalid rows, the regular expression {theirs[1]}")
    return f"| {label} | {ours[0]:.3f} s | {theirs[0]:.3f} s | {theirs[0] / ours[0]:.2f}x | {ours[1]:,} |"


def main() -> int:
    lines, _broken = timestamps(2_000_000, 2_000)
    values = [line.decode("ascii") for line in lines]
    print("| run | abnfc | regular expression | ratio | invalid rows |")
    print("|---|---|---|---|---|")
    for rows in (duckdb_rows, duckdb_json_rows, polars_rows, spark_rows):
        try:
            for row in rows(values):
                print(row, flush=True)
        except ImportError as error:
            print(f"(left out: {error})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
