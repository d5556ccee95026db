"""The pipeline runs each stage once per command: ``abnfc compile`` (every backend), ``explain
--steps``, ``check`` and ``crosscheck`` enter parse, resolve, Thompson, subset construction,
minimization, the neutral tables, the grammar facts and each backend's lowering at most once;
and commands take their options before or after their positional arguments."""
from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from abnfc import backends, pipeline
from abnfc.cli import main
from abnfc.commands.support import options
from abnfc.crosscheck import bounded, suite
from abnfc.frontend import source

ROOT = Path(__file__).resolve().parents[1]
UTF8 = str(ROOT / "grammars" / "utf8.abnf")
# The stages, as the modules that run them call them.
STAGES = {"parse": (source, "parse"), "resolve": (pipeline, "resolve"), "thompson": (pipeline, "build_nfa"),
          "subsets": (pipeline, "determinize"), "hopcroft": (pipeline, "minimize"),
          "tables": (pipeline, "make_tables"), "facts": (pipeline, "grammar_facts")}


@pytest.fixture
def entries(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[str]]:
    """Counts each stage's entries (and each backend's lowering) while a test runs."""
    counter: collections.Counter[str] = collections.Counter()

    def counting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def counted(*args: Any, **kwargs: Any) -> Any:
            counter[name] += 1
            return function(*args, **kwargs)
        return counted

    for name, (module, attribute) in STAGES.items():
        monkeypatch.setattr(module, attribute, counting(name, getattr(module, attribute)))
    generate = backends.Backend.generate

    def generating(backend: backends.Backend, *args: Any, **kwargs: Any) -> dict[str, str]:
        counter[f"lower {backend.name}"] += 1  # generate = lower, then render
        return generate(backend, *args, **kwargs)

    monkeypatch.setattr(backends.Backend, "generate", generating)
    yield counter


def test_compile_runs_each_stage_once(entries, tmp_path, capsys):
    assert main(["compile", UTF8, "--out", str(tmp_path)]) == 0
    expected = {name: 1 for name in STAGES} | {f"lower {language}": 1 for language in backends.DEFAULT_LANGUAGES}
    assert dict(entries) == expected


def test_explain_with_steps_runs_each_stage_once(entries, tmp_path, capsys):
    data = tmp_path / "input.txt"
    data.write_bytes("aä€😀".encode())
    assert main(["explain", UTF8, str(data), "--steps"]) == 0
    assert dict(entries) == {"parse": 1, "resolve": 1, "thompson": 1, "subsets": 1, "hopcroft": 1}


@pytest.mark.parametrize("engine", ["auto", "dfa", "interpreter"])
def test_check_runs_each_stage_at_most_once(entries, engine, capsys):
    assert main(["check", UTF8, str(ROOT / "README.md"), "--engine", engine]) == 0
    if engine == "interpreter":
        assert dict(entries) == {"parse": 1, "resolve": 1}
    else:  # the DFA engine runs the Python validator of the subset DFA: no minimization
        assert dict(entries) == {"parse": 1, "resolve": 1, "thompson": 1, "subsets": 1, "tables": 1,
                                 "lower python": 1}


def test_crosscheck_runs_each_stage_once(entries, tmp_path, capsys):
    """Each stage once for the grammar (a copy with no dialects beside it: each dialect found in
    variants/ is a grammar of its own, compiled once too), and once for each of its one-edit
    mutants, which are edited after parsing (every one of UTF-8's compiles)."""
    from abnfc.frontend.source import load
    from abnfc.learn.mutants import edits

    grammar = tmp_path / "utf8.abnf"
    grammar.write_bytes(Path(UTF8).read_bytes())
    status = main(["crosscheck", str(grammar), "--python", str(ROOT / "generated" / "utf8.py") + ":is_valid",
                   "--exhaustive", "1", "--sample", "10", "--random", "10"])
    assert status == 0, capsys.readouterr()
    mutants = len({str(edit.grammar) for edit in edits(load(UTF8).ast)})
    entries["parse"] -= 1  # the line above's
    assert mutants > 90
    assert dict(entries) == {"parse": 1} | {stage: 1 + mutants for stage in ("resolve", "thompson", "subsets",
                                                                            "hopcroft")}


def test_options_may_follow_positional_arguments(tmp_path, capsys):
    data = tmp_path / "input.txt"
    data.write_bytes(b"abc\xed\xa0\x80")
    outputs = []
    for argv in (["explain", "--steps", UTF8, str(data)], ["explain", UTF8, "--steps", str(data)],
                 ["explain", UTF8, str(data), "--steps"]):
        assert main(argv) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2] and "steps" in outputs[0]
    assert main(["check", "-q", UTF8, str(data), "--engine", "interpreter", str(ROOT / "README.md")]) == 1
    assert capsys.readouterr().out.startswith(f"{data}: invalid at offset 4")


def test_global_options_come_before_the_command(capsys):
    assert main(["--debug", "lint", UTF8]) == 0
    assert "start rule UTF8-octets" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stopped:
        main(["lnt", UTF8])
    assert stopped.value.code == 2
    assert "unknown command 'lnt'" in capsys.readouterr().err


def test_option_defaults_agree_with_the_stages():
    """The command line states the defaults without importing the stages; they must agree."""
    assert (options.DEFAULT_MAX_NFA_STATES, options.DEFAULT_MAX_DFA_STATES, options.DEFAULT_MAX_WORK) == (
        pipeline.Limits.max_nfa_states, pipeline.Limits.max_dfa_states, pipeline.Limits.max_work)
    assert (options.DEFAULT_MAX_LENGTH, options.DEFAULT_MAX_RUNS) == (bounded.DEFAULT_MAX_LENGTH,
                                                                       bounded.DEFAULT_BUDGET)
    from abnfc.commands import vectors
    assert vectors.DEFAULT_MAX_VECTORS == suite.DEFAULT_MAX_VECTORS


def test_a_compilation_memoises_every_stage(entries):
    compilation = pipeline.Compilation(source.from_text('r = "a" / "b" r\n', "g.abnf"))
    first = compilation.files(["python", "c"], "g", "test")
    second = compilation.files(["python", "c"], "g", "test")
    assert first == second
    assert dict(entries) == {"parse": 1, "resolve": 1, "thompson": 1, "subsets": 1, "hopcroft": 1, "tables": 1,
                             "lower python": 1, "lower c": 1}
