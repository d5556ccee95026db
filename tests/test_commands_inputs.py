"""Every command reads and checks all its inputs before its work: a broken second grammar, a
program that cannot be run, an ``--out`` in the way or a missing input file is reported, with exit
status 2, before the first grammar is compiled.

The first grammar (tests/data/expensive.abnf) takes about 4 s of CPU to compile; each command
here must end within 1 s of CPU (measured with getrusage on the child, not on the clock), so it
cannot have compiled it.  Work moved to the jobs (:mod:`abnfc.learn.job`,
:mod:`abnfc.records.job`) is tested as the commands use it.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

EXPENSIVE = str(ROOT / "tests" / "data" / "expensive.abnf")
BIG = ["--max-dfa-states", "100000"]  # so that the expensive grammar compiles, slowly, instead of failing
MAX_CPU_SECONDS = 1.0
BROKEN = 'r = "a" /\n'


def run_measured(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``abnfc args`` in ``cwd``: the result, and the CPU seconds the child (and its children) used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run([sys.executable, "-m", "abnfc", *args], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return result, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "broken.abnf").write_text(BROKEN)
    (tmp_path / "a-file.txt").write_text("not a folder\n")
    (tmp_path / "inputs.txt").write_text("ab\n")
    return tmp_path


GRAMMAR_ERROR = "broken.abnf:1:10: error: expected an element"
CASES = {
    "diff B": (["diff", EXPENSIVE, "broken.abnf", *BIG], GRAMMAR_ERROR),
    "diff --start-b": (["diff", EXPENSIVE, EXPENSIVE, "--start-b", "nothing", *BIG], "nothing"),
    "crosscheck --against": (["crosscheck", EXPENSIVE, "--cmd", "true", "--against", "broken.abnf", *BIG],
                             GRAMMAR_ERROR),
    "crosscheck --cmd": (["crosscheck", EXPENSIVE, "--cmd", "./no-such-program", *BIG],
                         "cannot run ./no-such-program: No such file or directory"),
    "crosscheck --learn --cmd": (["crosscheck", EXPENSIVE, "--learn", "--cmd", "'unclosed", *BIG], "cannot split"),
    "learn --out": (["learn", EXPENSIVE, "--cmd", "true", "--out", "a-file.txt/learned.abnf", *BIG],
                    "cannot write to a-file.txt: it is a file, not a folder"),
    "learn --out a folder": (["learn", EXPENSIVE, "--cmd", "true", "--out", ".", *BIG], "Is a directory"),
    "learn --import": (["learn", EXPENSIVE, "--cmd", "true", "--import", "broken.abnf", *BIG], GRAMMAR_ERROR),
    "learn --protocol": (["learn", EXPENSIVE, "--python", "m:f", "--protocol", "exit", *BIG], "--protocol applies"),
    "compile --out": (["compile", EXPENSIVE, "--out", "a-file.txt", "--lang", "python", *BIG],
                      "cannot write to a-file.txt: it is a file, not a folder"),
    "compile --out below a file": (["compile", EXPENSIVE, "--out", "a-file.txt/sub", "--lang", "python", *BIG],
                                   "cannot create the output folder a-file.txt/sub: Not a directory"),
    "compile --import": (["compile", EXPENSIVE, "--import", "broken.abnf", "--lang", "python", *BIG], GRAMMAR_ERROR),
    "check --records file": (["check", EXPENSIVE, "--records", "lines", "inputs.txt", "missing.txt", *BIG],
                             "cannot read missing.txt: No such file or directory"),
    "check --records folder": (["check", EXPENSIVE, "--records", "lines", "inputs.txt", ".", *BIG],
                               "cannot read .: Is a directory"),
    "check --records --import": (["check", EXPENSIVE, "--records", "lines", "--import", "broken.abnf", "inputs.txt",
                                  "--engine", "dfa", *BIG], GRAMMAR_ERROR),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_second_input_is_reported_before_any_compiling(folder, case):
    args, message = CASES[case]
    result, cpu = run_measured(*args, cwd=folder)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert cpu <= MAX_CPU_SECONDS, f"{case}: {cpu:.2f} s of CPU; the expensive grammar was compiled"
    assert not (folder / "a-file.txt" / "sub").exists() and not list(folder.glob("*.py"))


def test_the_expensive_grammar_is_expensive(folder):
    """The measure above means something: compiling the first grammar alone takes more than the limit."""
    result, cpu = run_measured("lint", EXPENSIVE, cwd=folder)
    assert result.returncode == 0 and cpu < MAX_CPU_SECONDS  # reading it is cheap
    result, cpu = run_measured("dfa", EXPENSIVE, "--format", "json", *BIG, cwd=folder)
    assert result.returncode == 0, result.stderr
    assert cpu > 2 * MAX_CPU_SECONDS


def test_a_missing_record_file_stops_the_run_before_the_others_are_checked(folder):
    """All the record inputs are checked first: with one missing, none is read (the exit status is 2,
    and no invalid record is printed)."""
    (folder / "bad.txt").write_text("c\n")
    result, _cpu = run_measured("check", "--records", "lines", EXPENSIVE, "bad.txt", "missing.txt", *BIG, cwd=folder)
    assert result.returncode == 2
    assert "bad.txt" not in result.stdout and "invalid at" not in result.stdout
    assert result.stderr.count("cannot read") == 1


def test_learn_writes_where_it_was_checked(tmp_path):
    """--out in a folder not made yet is fine: the folder is created once the grammar is learned."""
    out = tmp_path / "new" / "learned.abnf"
    result, _cpu = run_measured("learn", "grammars/utf8.abnf", "--python", "examples/cpython_decode.py:accepts",
                                "--out", str(out), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "learned by abnfc learn" in out.read_text()


def test_learns_defaults_are_the_jobs():
    """The command line names learn's limits without importing the job; they must agree."""
    from abnfc.commands import learn
    from abnfc.learn import job

    assert (learn.DEFAULT_MAX_STATES, learn.DEFAULT_MAX_QUERIES) == (job.DEFAULT_MAX_STATES, job.DEFAULT_MAX_QUERIES)
    assert job.LearnRequest.__dataclass_params__.frozen  # type: ignore[attr-defined]
