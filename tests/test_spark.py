"""abnfc.spark.validate in Spark's local[2] mode: the column checked on the executors through an
Arrow UDF (and mapInArrow, PySpark's way before 4.1) and validate_arrow, against the generated
Python module; errors on the driver.  Skipped without pyspark or a Java runtime."""
from __future__ import annotations

import os
import shutil
import sys

import pytest
from conftest import ROOT, python_module
from helpers.cache import kernel_cache
from test_dataframes import TEXT, values

from abnfc.errors import AbnfError

pytestmark = pytest.mark.slow
DATETIME = ROOT / "grammars" / "datetime.abnf"


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory):
    yield from kernel_cache(tmp_path_factory)


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    pytest.importorskip("pandas")
    if shutil.which("java") is None:
        pytest.skip("no Java runtime (apt-get install default-jre-headless): Spark cannot start")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers run this environment's Python
    session = (SparkSession.builder.master("local[2]").appName("abnfc-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize(("lang", "way"), [("c", "udf"), ("python", "udf"), ("c", "mapInArrow")])
def test_a_column_checked_on_the_executors(spark, lang, way, monkeypatch):
    import pyspark.sql.functions

    import abnfc.spark

    if way == "mapInArrow":  # as on PySpark before 4.1, which has no arrow_udf
        monkeypatch.delattr(pyspark.sql.functions, "arrow_udf")
    items = values(3000)
    frame = spark.createDataFrame([(index, item) for index, item in enumerate(items)], "i int, ts string")
    checked = abnfc.spark.validate(frame.repartition(4), "ts", DATETIME, start="date-time", lang=lang)
    assert checked.columns == ["i", "ts", "valid"]
    assert ("MapInArrow" in checked._jdf.queryExecution().toString()) == (way == "mapInArrow")
    got = {row.i: row.valid for row in checked.collect()}
    module = python_module(TEXT, "date-time")
    assert [got[index] for index in range(len(items))] == [
        None if item is None else module.is_valid(item.encode()) for item in items]


def test_mistakes_are_reported_on_the_driver(spark):
    import abnfc.spark

    frame = spark.createDataFrame([("x",)], "ts string")
    with pytest.raises(AbnfError, match="the frame has no column nope; it has ts"):
        abnfc.spark.validate(frame, "nope", DATETIME)
    with pytest.raises(AbnfError, match="already has a column ts"):
        abnfc.spark.validate(frame, "ts", DATETIME, output_column="ts")
    with pytest.raises(AbnfError, match="start rule 'no-such-rule' is not defined"):
        abnfc.spark.validate(frame, "ts", DATETIME, start="no-such-rule")


def test_columns_are_checked_on_the_driver_as_spark_resolves_them(spark):
    """A column that holds neither strings nor binary is refused on the driver (not a traceback
    from a failed task), and a column name is found as Spark's resolver finds it: regardless of
    case unless spark.sql.caseSensitive is set."""
    import abnfc.spark

    frame = spark.createDataFrame([(1, "2020-01-01T00:00:00Z", "x")], "n int, Ts string, valid string")
    with pytest.raises(AbnfError, match=r"the column n holds int, not strings or binary; cast it first"):
        abnfc.spark.validate(frame, "n", DATETIME, output_column="ok")
    checked = abnfc.spark.validate(frame, "ts", DATETIME, start="date-time", output_column="ok")
    assert [row.ok for row in checked.collect()] == [True]
    with pytest.raises(AbnfError, match="already has a column VALID"):
        abnfc.spark.validate(frame, "Ts", DATETIME, output_column="VALID")
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        with pytest.raises(AbnfError, match="the frame has no column ts; it has n, Ts, valid"):
            abnfc.spark.validate(frame, "ts", DATETIME, output_column="ok")
    finally:
        spark.conf.unset("spark.sql.caseSensitive")
