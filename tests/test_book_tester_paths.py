"""The book's tester names only the grammar positions on the path the input took, as
``abnfc explain --steps`` does: a state of the minimal automaton merges states reached along
different paths (after ``tru`` and after ``fals``, both expecting ``e``), so its positions are
not the input's.  The tester runs the automaton before minimization alongside (for a pushdown
validator, its machines from the subset construction with the same calls and returns); its
"read by" column and its "expected" list are held to explain's steps, in regular and pushdown
books alike.  The page's script runs in Node.js with the small DOM stand-in of
tests/test_book_pushdown.py."""
from __future__ import annotations

import re

import pytest
from conftest import ROOT
from test_book_pushdown import NODE, run_tester

from abnfc import api
from abnfc.explain.explainer import automaton_steps
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

INPUTS = {
    "json": [b'{"a": [1, 2, {"b": tru}]}', b'{"a": fals}', b'[nul]', b'[1, {"x": [true, 0.5e]}]', b'{"a" 1}',
             b'[1,{"a":[]}', b'[[', b'["\xc3\xa9", {"b": null}]'],
    "uri": [b"http://example.com/a?b#c", b"http://[v1.x]:80/", b"http://[::1]/x y", b"mailto:a@b", b"a:/%zz",
            b"ftp://user:pw@host:99/p", b"h://1.2.3.4:x/"],
    "datetime": [b"2024-01-01T00:00:00Zx", b"2024-13-01T00:00:00Z", b"2024-01-01T00:00:00.5+01:3"],
    "utf8": [b"\xe0\xa0\x41", b"\xe1\x80\x41", b"\xf0\x90\x80", b"a\xed\xa0\x80"],
    "email": [b"a@b.c..", b"\"a b\"@c", b"a@[1.2.3", b"(x(y)z)a@b"],
}


def names(text: str) -> set[str]:
    """The positions a cell or an item names: ``rule alternative A, element E``."""
    return set(re.findall(r"[\w-]+ alternative \d+, element \d+", text))


def named(origins) -> set[str]:
    return {f"{o.rule} alternative {o.alternative + 1}, element {o.element + 1}" for o in origins}


@pytest.mark.parametrize("grammar", sorted(INPUTS))
def test_the_testers_positions_are_those_explain_names(grammar, tmp_path):
    [(_, page)] = api.generate_files(ROOT / "grammars" / f"{grammar}.abnf", "html", prefix=grammar).items()
    compilation = Compilation(load(str(ROOT / "grammars" / f"{grammar}.abnf")))
    shown = run_tester(page, INPUTS[grammar], tmp_path)
    for data, result in zip(INPUTS[grammar], shown, strict=True):
        steps, _final = automaton_steps(compilation, data)
        reading = [step for step in steps if step.read_by]
        assert [names(row[-1]) for row in result["steps"][:len(reading)]] == [named(s.read_by) for s in reading], data
        failing = [step for step in steps if not step.read_by]
        if failing:  # the byte that fails: what the input's path expected there
            shown_names = set().union(*map(names, result["expected"]))
            assert shown_names == named(failing[0].expected), data


def test_a_rejected_true_names_only_true(tmp_path):
    """The JSON case a reader met: nothing about ``false`` applies to ``tru``."""
    [(_, page)] = api.generate_files(ROOT / "grammars" / "json.abnf", "html", prefix="json").items()
    [result] = run_tester(page, [b'{"a": [1, 2, {"b": tru}]}'], tmp_path)
    assert result["expected"] == ["%x65 ('e'): true alternative 1, element 1"]
    assert result["steps"][21][-1] == "%x75 ('u') (true alternative 1, element 1)"


def test_a_table_too_large_to_embed_leaves_the_minimal_states_positions(tmp_path, monkeypatch):
    """Past MAX_EXACT_CELLS the book holds no table before minimization; the tester still runs,
    naming every position of the minimal state (false's too)."""
    import abnfc.grammar_facts

    monkeypatch.setattr(abnfc.grammar_facts, "MAX_EXACT_CELLS", 0)
    [(_, page)] = api.generate_files(ROOT / "grammars" / "json.abnf", "html", prefix="json").items()
    assert '"exact": null' in page
    [result] = run_tester(page, [b'{"a": [1, 2, {"b": tru}]}'], tmp_path)
    assert result["expected"] == ["%x65 ('e'): false alternative 1, element 1; true alternative 1, element 1"]
