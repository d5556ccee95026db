"""Recursion: which grammars are right-linear, left-linear or self-embedding; the linear ones
compile to DFAs that agree with the interpreter; what lint and compile say; the interpreter's
work limit on the command line."""
from __future__ import annotations

import io
import sys

import pytest
from conftest import compile_text

from abnfc import interpret
from abnfc.cli import main
from abnfc.errors import AbnfError
from abnfc.frontend import recursion
from abnfc.frontend.parse import parse
from abnfc.frontend.resolve import resolve


def resolved(text: str, start: str | None = None):
    return resolve(parse(text, "g.abnf"), start)


@pytest.mark.parametrize("text, kinds", [
    ('list = item [ "," list ]\nitem = 1*ALPHA\n', ["right-linear"]),
    ('r = "a" r / "b"\n', ["right-linear"]),
    ('a = "x" b / ""\nb = "y" a\n', ["right-linear"]),
    ('r = "a" r "" 0"b" / "c"\n', ["right-linear"]),  # only the empty string may follow
    ('r = r "a" / "b"\n', ["left-linear"]),
    ('r = [ r ] "a"\n', ["left-linear"]),
    ('a = b "x" / "y"\nb = a "z" / "w"\n', ["left-linear"]),
    ('a = b\nb = a / "x"\n', ["right-linear"]),  # first and last at once: either will do
    ('s = "<" l ">" r\nl = l "a" / "b"\nr = "c" r / ""\n', ["right-linear", "left-linear"]),
    ('r = "a" r "b" / ""\n', ["self-embedding"]),
    ('r = *( "a" r ) "b"\n', ["self-embedding"]),  # a repetition puts r before more of itself
    ('r = 1*2( r ) / "b"\n', ["self-embedding"]),
    ('r = r "a" / "b" r / "c"\n', ["self-embedding"]),  # recursion at both ends
    ('r = "a" r / s\ns = "(" s ")" / "x"\n', ["self-embedding", "right-linear"]),
])
def test_kinds_of_recursive_sets(text, kinds):
    g = resolved(text)
    assert sorted(component.kind for component in g.components) == sorted(kinds)
    assert g.is_regular == ("self-embedding" not in kinds)
    assert g.cycle is not None and g.recursive  # the existing fields keep their meaning


def test_grammar_without_recursion_has_no_components():
    g = resolved('r = a a\na = "x"\n')
    assert g.components == () and g.embedding is None and g.is_regular and g.cycle is None


def test_embedding_names_the_reference_and_a_cycle_through_it():
    g = resolved('a = "x" b\nb = "(" a ")" / "y"\n')
    embedding = g.embedding
    assert embedding is not None and embedding.other is None
    assert (embedding.reference.holder, embedding.reference.target) == ("b", "a")
    assert embedding.reference.span.location() == "g.abnf:2:9" and embedding.path == "a -> b -> a"
    assert "'b' refers to 'a' at g.abnf:2:9, neither first nor last" in str(embedding)
    both = resolved('r = r "a" / "b" r / "c"\n').embedding
    assert both is not None and both.other is not None
    assert both.reference.position == recursion.LAST and both.other.position == recursion.FIRST
    assert "recursion at both ends" in both.explain()


def test_positions_in_a_rule():
    body = resolved('r = "a" [ "b" r ] / r "c" / ( r ) / "d" *r r\n').ir["r"]
    found = [(ref.target, ref.position) for ref in recursion.positions("r", body)]
    first, last = recursion.FIRST, recursion.LAST
    assert found == [("r", last), ("r", first), ("r", first | last), ("r", 0), ("r", last)]


@pytest.mark.parametrize("text, inputs", [
    ('list = item [ "," list ]\nitem = 1*ALPHA\n', [b"a,bc,d", b"a,", b",", b"ab,,c"]),
    ('top = a ";" b\na = b "x" / "y"\nb = a "z" / "w"\n', [b"wx;yz", b"y;w", b"yz;", b"w;x"]),
    ('r = "a" s / "b"\ns = "x" s\n', [b"ax", b"b", b"axx"]),  # s has no way out: trimmed
    ('r = s "a" / "b"\ns = s "x"\n', [b"xa", b"b", b"a"]),
])
def test_linear_grammars_compile_and_agree_with_the_interpreter(text, inputs):
    compiled = compile_text(text)
    for data in inputs:
        verdict = interpret.recognize(compiled.resolved, data)
        assert compiled.dfa.first_error(data) == compiled.minimal.first_error(data) == verdict.offset, data


def test_self_embedding_grammar_is_refused_naming_the_embedding_reference():
    with pytest.raises(AbnfError) as caught:
        compile_text('comment = "(" *( ctext / comment ) ")"\nctext = %x61-7A\n')
    message = str(caught.value)
    assert "cannot be compiled to a DFA: its recursion is self-embedding (comment -> comment;" in message
    assert "'comment' refers to 'comment' at g.abnf:1:26, neither first nor last" in message
    assert "abnfc check --engine interpreter" in message


@pytest.mark.parametrize("text, said", [
    ('r = "a"\n', "; regular: compiles to a DFA"),
    ('r = "a" r / "b"\n', "; recursive, right-linear (r -> r), so regular: compiles to a DFA"),
    ('s = "<" l ">" r\nl = l "a" / "b"\nr = "c" r / ""\n',
     "; recursive, right-linear (r -> r) and left-linear (l -> l), so regular: compiles to a DFA"),
    ('a = "x" b\nb = "(" a ")" / "y"\n', "; recursive, self-embedding (a -> b -> a): compiles to a pushdown "
     "validator (9 states, nesting closed by %x29 (')') (b))"),
    ('a = "x" a a / "y"\n', "; recursive, self-embedding (a -> a): needs the interpreter, because rule 'a' gets no "
     "pushdown validator: its reference to 'a' has no single-byte terminal before it and after it in its sequence "
     "(a -> a), so no byte opens and closes the nesting; use the interpreter (abnfc check --engine interpreter)"),
])
def test_lint_says_which_kind_of_recursion(text, said, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["lint", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<stdin>: ") and out.rstrip("\n").endswith(said), out


def test_check_stops_the_interpreter_at_the_work_limit(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.abnf").write_text('r = *( r / "a" )\n')
    (tmp_path / "long.txt").write_bytes(b"a" * 200)
    (tmp_path / "short.txt").write_bytes(b"a" * 20)
    status = main(["check", "g.abnf", "--max-work", "30000", "long.txt", "short.txt"])
    captured = capsys.readouterr()
    assert status == 2
    [line] = captured.err.splitlines()
    assert line.startswith("long.txt: error: the interpreter gave up at offset ")
    assert "the work limit of 30000 plus 100 a byte" in line and "--max-work" in line
    assert "Traceback" not in captured.err and "short.txt: valid (20 bytes)" in captured.out
    assert main(["check", "g.abnf", "--max-work", "100000000", "long.txt"]) == 0


def test_max_work_still_bounds_the_subset_construction(tmp_path, capsys):
    grammar = tmp_path / "big.abnf"
    grammar.write_text('r = *( "a" / "b" ) "a" 11( "a" / "b" )\n')
    assert main(["dfa", str(grammar), "--max-dfa-states", "100000", "--max-work", "1000"]) == 2
    assert "the subset construction took more than 1,000 steps" in capsys.readouterr().err
