"""bench/prototypes/position_kinds.py: which kinds of positions a table of pairs can check, found
from the automaton.  JSON's are all decided by the kind before them except a string inside an
object (a key or a value), which the two kinds before it decide; an S-expression's all by one."""
from __future__ import annotations

import importlib.util
import sys

import pytest
from helpers.paths import ROOT

from abnfc.automata.pushdown import Pushdown
from abnfc.frontend.source import from_text, load
from abnfc.pipeline import Compilation


@pytest.fixture(scope="module")
def kinds():
    spec = importlib.util.spec_from_file_location("position_kinds", ROOT / "bench" / "prototypes" / "position_kinds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["position_kinds"] = module
    spec.loader.exec_module(module)
    return module


def _report(kinds, grammar: str) -> list[str]:
    pushdown = Compilation(load(str(ROOT / "grammars" / grammar))).pushdown
    assert isinstance(pushdown, Pushdown)
    return kinds.report(pushdown)


def test_json_strings_in_objects_need_the_kind_before(kinds):
    lines = _report(kinds, "json.abnf")
    assert "  after 'STR': 2-local (after '(entry)': [':']; after ',': [':']; after ':': [',', '}'])" in lines
    assert "  after 'SCALAR': 1-local, then [',', ']']" in lines  # in an array
    assert sum("2-local" in line for line in lines) == 1
    assert not any("neither" in line for line in lines)


def test_sexpr_positions_are_all_decided_by_the_kind_before(kinds):
    lines = _report(kinds, "sexpr.abnf")
    kinds_lines = [line for line in lines if line.startswith("  after")]
    assert kinds_lines and all("1-local" in line for line in kinds_lines)


def test_a_grammar_without_a_lexical_layer_is_said_so(kinds):
    assert _report(kinds, "email.abnf") == ["no lexical layer: the grammar has no two-stage path"]


def test_a_kind_the_kind_before_does_not_decide_is_said_so(kinds):
    """After ``a,"…"`` a colon follows, after ``b,"…"`` a semicolon: the comma before the string
    does not tell which, the kind two back does."""
    grammar = ('top = "[" *item "]"\n'
               'item = ( %s"a" "," str ":" ) / ( %s"b" "," str ";" ) / top\n'
               'str = DQUOTE *( %x20-21 / %x23-7E ) DQUOTE\n')
    pushdown = Compilation(from_text(grammar)).pushdown
    assert isinstance(pushdown, Pushdown)
    lines = kinds.report(pushdown)
    assert "  after 'STR': neither (after ',': ambiguous)" in lines
    assert "  after 'a': 1-local, then [',']" in lines
