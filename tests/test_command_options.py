"""Options of ``abnfc check`` and ``abnfc compile``: ``check --max-depth`` bounds the nesting of
a recursive grammar's inputs with the pushdown validator and the interpreter alike (the
interpreter counts the calls of recursive rules it must remember, so a tail call costs nothing),
naming the limit; ``compile --lang`` takes languages in any case."""
from __future__ import annotations

import pytest
from conftest import ROOT, grammar_from_text

from abnfc.cli import main
from abnfc.interpret import DepthLimitError, Recognizer
from abnfc.pipeline import resolve_grammar

JSON = str(ROOT / "grammars" / "json.abnf")
BALANCED = 'r = "(" r ")" r / ""\n'
LEFT = 'e = e "+" t / t\nt = "(" e ")" / "x"\n'


@pytest.mark.parametrize("engine", ["auto", "interpreter"])
def test_check_max_depth_bounds_the_nesting_and_names_the_limit(engine, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 3000 + b"]" * 3000)
    assert main(["check", "--engine", engine, "--max-depth", "5000", JSON, str(deep)]) == 0
    assert main(["check", "--engine", engine, "--max-depth", "100", JSON, str(deep)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"{deep}: error: the input nests deeper than 100 at byte offset 100: the limit of "
                           "--max-depth 100")


def test_check_max_depth_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["check", "--max-depth", "0", JSON, "-"])
    assert raised.value.code == 2
    assert "--max-depth" in capsys.readouterr().err


def test_the_pushdown_validators_default_limit_stays(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 100_001)
    assert main(["check", JSON, str(deep)]) == 2
    assert "nests deeper than 100000 at byte offset 100000; the interpreter has no depth limit" in \
        capsys.readouterr().err


def test_the_interpreters_depth_counts_what_it_must_remember():
    """Nesting counts; a long flat sequence of tail calls (()()()...) and left recursion
    (x+x+x...) do not; work stays bounded by the limit (the error comes at the byte past it)."""
    balanced = resolve_grammar(grammar_from_text(BALANCED))
    recognizer = Recognizer(balanced, max_depth=3)
    assert recognizer.feed(b"()" * 5000 + b"((()))" * 500) and recognizer.verdict().matched
    deep = Recognizer(balanced, max_depth=3)
    with pytest.raises(DepthLimitError) as raised:
        deep.feed(b"((((" + b")" * 4)
    assert (raised.value.offset, raised.value.limit) == (3, 3)
    with pytest.raises(DepthLimitError):  # for good, as the work limit
        deep.feed(b"")
    left = resolve_grammar(grammar_from_text(LEFT))
    assert Recognizer(left, max_depth=2).feed(b"x" + b"+x" * 5000)
    with pytest.raises(DepthLimitError):
        Recognizer(left, max_depth=2).feed(b"(((x)))")
    assert Recognizer(left).feed(b"(" * 2000 + b"x" + b")" * 2000)  # no limit by default


@pytest.mark.parametrize("written", ["Python", "PYTHON", "python,JS"])
def test_compile_lang_takes_any_case(written, tmp_path, capsys):
    assert main(["compile", str(ROOT / "grammars" / "utf8.abnf"), "--lang", written, "--out", str(tmp_path)]) == 0
    expected = {"utf8.py"} | ({"utf8.mjs"} if "JS" in written else set())
    assert {path.name for path in tmp_path.iterdir()} == expected
    header = (tmp_path / "utf8.py").read_text(encoding="utf-8")
    assert "--lang python" in header  # the regeneration command names the backend as it is called


def test_compile_lang_still_refuses_an_unknown_language(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["compile", str(ROOT / "grammars" / "utf8.abnf"), "--lang", "Cobol"])
    assert raised.value.code == 2
    assert "unknown language Cobol" in capsys.readouterr().err
