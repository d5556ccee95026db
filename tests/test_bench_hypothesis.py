"""bench/bench_hypothesis.py: its smoke mode runs, every input it reports as a find exposes the
planted bug (checked here against the grammar's DFA, not the harness's oracle), its regular
expressions agree with the grammars on the inputs it checks, and a correct implementation is never reported."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from abnfc.frontend.source import load
from abnfc.pipeline import Compilation

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_hypothesis", ROOT / "bench" / "bench_hypothesis.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_hypothesis"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _grammar_accepts(grammar: str):
    return Compilation(load(str(ROOT / grammar))).minimal.matches


def _exposes_the_bug(name: str, data: bytes) -> bool:
    """Whether ``data`` is an input of the planted bug's kind, by the grammar's DFA."""
    if name == "utf8":
        return b"\xf0\x8f\xbf\xbf" in data and not _grammar_accepts("grammars/utf8.abnf")(data)
    if name == "uri":
        zone = _grammar_accepts("grammars/variants/uri-zone-id.abnf")
        return b"%25" in data and zone(data) and not _grammar_accepts("grammars/uri.abnf")(data)
    return data[17:19] == b"60" and _grammar_accepts("grammars/datetime.abnf")(data)


def test_smoke_finds_are_real_disagreements(bench, capsys):
    rows = bench.main(["--smoke"])
    assert [(row.target, row.contender) for row in rows] == [
        (target.name, contender) for target in bench.TARGETS for contender in bench.CONTENDERS]
    finds = [(row.target, row.contender, run.found) for row in rows for run in row.runs if run.found is not None]
    for target, contender, found in finds:
        assert _exposes_the_bug(target, found), (target, contender, found)
    # In 1,000 examples a valid timestamp with a leap second and an offset comes up; the
    # valid-only strategies can never expose the other two bugs (they accept too much).
    assert {("datetime", "abnfc valid=True"), ("datetime", "st.from_regex")} <= {f[:2] for f in finds}
    assert not {(t, c) for t, c, _ in finds if t != "datetime" and c in ("abnfc valid=True", "st.from_regex")}
    out = capsys.readouterr().out
    assert "| datetime | abnfc valid=True | 1/1 |" in out
    for target in bench.TARGETS:  # checked on the sampler's words, near misses and test vectors
        assert f"{target.name}: the regular expression and the grammar disagree on 0 of" in out


def test_a_correct_implementation_is_never_reported(bench):
    target = bench.TARGETS[2]
    valid = bench.oracle(target)
    honest = bench.Target("datetime", target.grammar, valid, target.regex, True)
    for name in bench.CONTENDERS:
        run = bench.run(honest, valid, bench.contender(honest, name), 1, 300, 10.0)
        assert run.found is None and run.examples == 300, name

