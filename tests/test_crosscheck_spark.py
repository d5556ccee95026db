"""abnfc crosscheck --spark: the slices cover every string of up to N bytes once and in order;
the tasks with their follow-ups find exactly what the run without Spark finds, however small the
caps (run here, without Spark); usage errors before anything runs; and in Spark's local[2] mode
(slow tier, skipped without pyspark or a Java runtime): the same report with and without Spark,
a function that ends the run named with its input, a crashed worker reported in a sentence."""
from __future__ import annotations

import importlib.util
import itertools
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Sequence

import pytest
from conftest import ROOT
from helpers.cli import run_cli_text

import abnfc
from abnfc.crosscheck import session
from abnfc.crosscheck.inputs import Elsewhere, _all_strings
from abnfc.crosscheck.language import load_language
from abnfc.crosscheck.programs import Fault
from abnfc.crosscheck.session import Amounts, Progress, crosscheck
from abnfc.pipeline import Compilation
from abnfc.spark import crosscheck as on_spark
from abnfc.spark.exhaustive import MAX_TASK, Job, Share, Table, Tally, count_upto, load, slices

pytestmark = pytest.mark.usefixtures("at_root")
UTF8 = "grammars/utf8.abnf"
FUNCTIONS = """\
    def surrogates(data):
        return data.decode("utf-8", "surrogatepass")

    def everything(data):
        return 1

    def ends(data):
        if data == b"zq":
            raise SystemExit(4)
        return True

    def crash(data):
        import os
        if data == b"zq":
            os._exit(5)
        return True
    """


@pytest.fixture
def functions(tmp_path) -> str:
    path = tmp_path / "functions.py"
    path.write_text(textwrap.dedent(FUNCTIONS))
    return str(path)


def test_the_slices_cover_every_string_once_and_in_order():
    pieces = slices(2, 16, least=256, most=4096)
    assert [data for piece in pieces for data in piece.strings()] == list(_all_strings(2))
    assert len(pieces) == 1 + 1 + 16 and len(slices(2, 40, least=256, most=4096)) == 2 + 37  # 1,792 strings each
    for length, tasks in [(3, 8), (4, 8), (4, 4000)]:
        pieces = slices(length, tasks)
        assert sum(piece.size for piece in pieces) == count_upto(length)
        for size in range(length + 1):  # each length from 0 to 256^size, without a gap or an overlap
            ranges = [(piece.start, piece.stop) for piece in pieces if piece.length == size]
            assert ranges[0][0] == 0 and ranges[-1][1] == 256 ** size
            assert all(stop == start for (_a, stop), (start, _b) in itertools.pairwise(ranges))
        assert all(piece.size <= MAX_TASK and (piece.length == 0 or piece.size % 256 == 0) for piece in pieces)
    assert len(slices(4, 8)) == 3 + 4 + 1024  # four tasks per core on two cores: the size cap decides


class InProcess:
    """A runner calling the function here (python_worker's verdicts, without the child process)."""

    def __init__(self, function):
        self.function = function

    def verdicts(self, inputs: Sequence[bytes]) -> list[bool]:
        found = []
        for data in inputs:
            try:
                result = self.function(data)
            except Exception:
                found.append(False)
                continue
            found.append(bool(result) if isinstance(result, bool | int) else True)
        return found


def _languages(*paths: str):
    return [load_language(Compilation(abnfc.load_grammar(ROOT / path))) for path in paths]


@pytest.mark.parametrize(("name", "kept"), [("surrogates", 20), ("everything", 3000)])
def test_tasks_and_follow_ups_find_what_the_run_in_order_finds(monkeypatch, functions, name, kept):
    """Caps far smaller than the defaults, so that the report's room runs out inside a task and
    follow-ups fetch the rest (or, for the surrogates, before the exhaustive part): the result is
    the same, disagreement for disagreement."""
    monkeypatch.setattr(session, "MAX_KEPT", kept)
    monkeypatch.setattr(session, "MAX_ACCEPTED", 2000)
    language, *others = _languages(UTF8, "grammars/variants/generalized-utf8.abnf", "grammars/variants/wtf8.abnf")
    spec = f"{functions}:{name}"
    program = on_spark.program(spec)
    runner = InProcess(load(program))
    amounts = Amounts(2, 500, 500)
    progress = Progress(False, False)
    asked, runs = [], []

    def run(job: Job, shares: list[Share]) -> list[Tally]:
        runs.append(shares)
        return on_spark.local_run(job, shares)

    def remote(piece: Elsewhere, kept: int, accepted: int) -> session.Found:
        asked.append(piece)
        job = Job(name, Table.of(language.minimal), tuple(Table.of(other.minimal) for other in others), program,
                  piece.seen)
        return on_spark.gather(job, piece, run, 40, kept, accepted, per_task=7)

    plain = crosscheck(language, others, runner, "python", amounts, progress, "f")
    split = crosscheck(language, others, runner, "python", amounts, progress, "f", remote)
    assert split == plain
    assert plain.disagreements > kept and plain.classes
    assert len(runs) == 2 and not any(share.complete for share in runs[1])  # the tasks, then follow-ups
    assert asked[0].length == 2 and asked[0].seen and all(len(data) <= 2 for data in asked[0].seen)


def test_a_function_that_ends_the_run_stops_its_task_at_the_input(functions):
    language, = _languages(UTF8)
    job = Job("ends", Table.of(language.minimal), (), on_spark.program(f"{functions}:ends"), frozenset())
    piece = Elsewhere(2, frozenset())
    with pytest.raises(Fault, match=r"raised SystemExit\(4\) on input 7A 71") as caught:
        on_spark.gather(job, piece, on_spark.local_run, 8, 10, 10)
    assert caught.value.data == b"zq"


def test_usage_errors_come_before_spark_starts(capsys, tmp_path):
    status, out = run_cli_text(capsys, "crosscheck", UTF8, "--cmd", "cat", "--spark")
    assert status == 2 and "--spark runs a --python function on Spark's executors" in out
    status, out = run_cli_text(capsys, "crosscheck", UTF8, "--python", "examples/cpython_decode.py:accepts",
                               "--learn", "--spark")
    assert status == 2 and "--spark does not apply to --learn" in out
    status, out = run_cli_text(capsys, "crosscheck", UTF8, "--python", "examples/cpython_decode.py:accepts",
                               "--exhaustive", "5", "--spark")
    assert status == 2 and "with --spark at most 4 bytes are supported" in out
    status, out = run_cli_text(capsys, "crosscheck", UTF8, "--python", "examples/cpython_decode.py:accepts",
                               "--spark=nonsense://x")
    assert status == 2 and "--spark nonsense://x: not a Spark master" in out
    nested = tmp_path / "nested.abnf"
    nested.write_text('s = "(" s ")" / "x"\n')
    status, out = run_cli_text(capsys, "crosscheck", str(nested), "--python", "examples/cpython_decode.py:accepts",
                               "--spark")
    assert status == 2 and "is recursive and has none" in out and "Traceback" not in out


def test_no_pyspark_or_no_java_is_named_with_the_way_to_install(capsys, monkeypatch):
    monkeypatch.setattr(on_spark, "_missing", lambda: "pyspark")
    status, out = run_cli_text(capsys, "crosscheck", UTF8, "--python", "examples/cpython_decode.py:accepts",
                               "--spark")
    assert status == 2 and "pyspark is missing: pip install pyspark pandas pyarrow" in out and "Traceback" not in out
    monkeypatch.undo()
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert on_spark._missing() == ("java" if importlib.util.find_spec("pyspark") else "pyspark")


@pytest.fixture(scope="module")
def spark_here():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("no Java runtime (apt-get install default-jre-headless): Spark cannot start")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers run this environment's Python


def _report(capsys, *args: str) -> tuple[int, dict]:
    status, out = run_cli_text(capsys, "crosscheck", UTF8, *args, "--format", "json")
    report = json.loads(out[:out.rindex("}") + 1])
    report.pop("implementation")
    return status, report


@pytest.mark.slow
def test_the_same_report_with_and_without_spark(capsys, spark_here, functions):
    """The session is started by the command (and stopped after it)."""
    args = ["--python", f"{functions}:surrogates", "--exhaustive", "2", "--sample", "2000", "--random", "2000",
            "--against", "grammars/variants/generalized-utf8.abnf", "grammars/variants/wtf8.abnf"]
    status, plain = _report(capsys, *args)
    assert (status, [c["witness"] for c in plain["classes"]]) == (1, ["ed a0 80"])
    assert _report(capsys, *args, "--spark=local[2]") == (status, plain)


@pytest.fixture(scope="module")
def session_here(spark_here):
    """A session of the test's own, which the command uses as it is (and does not stop)."""
    from pyspark.sql import SparkSession

    started = (SparkSession.builder.master("local[2]").appName("abnfc-tests")
               .config("spark.ui.enabled", "false").getOrCreate())
    started.sparkContext.setLogLevel("FATAL")
    yield started
    started.stop()


@pytest.mark.slow
def test_a_function_that_ends_the_run_is_named_with_its_input(capsys, session_here, functions):
    status, out = run_cli_text(capsys, "crosscheck", UTF8, "--python", f"{functions}:ends", "--spark")
    assert status == 2, out
    assert "raised SystemExit(4) on input 7A 71" in out and "triggering input: 7A 71" in out
    assert "Traceback" not in out


@pytest.mark.slow
def test_a_crashed_worker_is_reported_in_a_sentence(capsys, session_here, functions):
    status, out = run_cli_text(capsys, "crosscheck", UTF8, "--python", f"{functions}:crash", "--spark")
    assert status == 2, out
    assert "error: the Spark job failed: Python worker exited unexpectedly (crashed)" in out
    assert "Traceback" not in out and session_here.sparkContext.parallelize([1]).count() == 1

