"""The grammar's one-edit mutants (abnfc.learn.mutants): every edit kind, each mutant labelled
with its edit and line and equal to the grammar written with that edit by hand; distinct
languages only, none equal to the grammar's, within the bounds."""
from __future__ import annotations

import pytest

from abnfc.automata.product import equivalent
from abnfc.frontend.source import from_text, load
from abnfc.learn.mutants import MAX_MUTANTS, labelled
from abnfc.pipeline import Compilation

pytestmark = pytest.mark.usefixtures("at_root")

GRAMMAR = """\
a = %s"T" b [ "x" ] / %x74.72.75.65
b = 2%x30-39
"""

# label -> the grammar with that one edit, written by hand
EDITED = {
    'line 1: `%s"T"` made case-insensitive': 'a = "T" b [ "x" ] / %x74.72.75.65\nb = 2%x30-39\n',
    "line 1: `%x74.72.75.65` made case-insensitive": 'a = %s"T" b [ "x" ] / "true"\nb = 2%x30-39\n',
    'line 1: `"x"` made case-sensitive': 'a = %s"T" b [ %s"x" ] / %x74.72.75.65\nb = 2%x30-39\n',
    'line 1: optional `[ "x" ]` made required': 'a = %s"T" b "x" / %x74.72.75.65\nb = 2%x30-39\n',
    "line 1: `b` made optional": 'a = %s"T" [ b ] [ "x" ] / %x74.72.75.65\nb = 2%x30-39\n',
    "line 1: alternative `%x74.72.75.65` dropped": 'a = %s"T" b [ "x" ]\nb = 2%x30-39\n',
    'line 1: alternative `%s"T" b [ "x" ]` dropped': "a = %x74.72.75.65\nb = 2%x30-39\n",
    "line 2: `2%x30-39` changed to `3%x30-39`": 'a = %s"T" b [ "x" ] / %x74.72.75.65\nb = 3%x30-39\n',
    "line 2: `2%x30-39` changed to `2*%x30-39`": 'a = %s"T" b [ "x" ] / %x74.72.75.65\nb = 2*%x30-39\n',
    "line 2: %x30-39 widened to %x30-3A": 'a = %s"T" b [ "x" ] / %x74.72.75.65\nb = 2%x30-3A\n',
    "line 2: %x30-39 narrowed to %x31-39": 'a = %s"T" b [ "x" ] / %x74.72.75.65\nb = 2%x31-39\n',
    "line 2: %x30-39 widened to %x00-FF": 'a = %s"T" b [ "x" ] / %x74.72.75.65\nb = 2%x00-FF\n',
}


def minimal(text: str):
    return Compilation(from_text(text, "edited.abnf")).minimal


def test_every_edit_kind_is_made_labelled_with_its_line_and_is_the_edit_it_names():
    grammar = Compilation(from_text(GRAMMAR, "g.abnf"))
    found = {mutant.label: mutant.dfa for mutant in labelled(grammar)}
    assert set(EDITED) <= set(found), sorted(set(EDITED) - set(found))
    for label, text in EDITED.items():
        assert equivalent(found[label], minimal(text)), label
    assert not any(equivalent(dfa, grammar.minimal) for dfa in found.values())
    dfas = list(found.values())
    assert not any(equivalent(a, b) for i, a in enumerate(dfas) for b in dfas[i + 1:])


def test_the_utf8_mutants_name_the_classic_deviations():
    found = {mutant.label: mutant.dfa for mutant in labelled(Compilation(load("grammars/utf8.abnf")))}
    assert 60 <= len(found) <= MAX_MUTANTS
    text = (load("grammars/utf8.abnf").text)
    surrogates = text.replace("%xE1-EC 2( UTF8-tail )", "%xE1-ED 2( UTF8-tail )")
    assert equivalent(found["line 9: %xE1-EC widened to %xE1-ED"], minimal(surrogates))
    no_plane_16 = text.replace("/\n              %xF4 %x80-8F 2( UTF8-tail )", "")
    assert no_plane_16 != text
    assert equivalent(found["line 12: alternative `%xF4 %x80-8F 2( UTF8-tail )` dropped"], minimal(no_plane_16))


def test_a_case_sensitive_dialect_gets_the_case_insensitive_grammar_back_as_a_mutant():
    upper = Compilation(load("grammars/variants/datetime-upper-case.abnf"))
    found = {mutant.label: mutant.dfa for mutant in labelled(upper)}
    assert any("`%s\"T\"` made case-insensitive" in label for label in found)
    both = upper.grammar.text.replace('%s"T"', '"T"')
    label = next(label for label in found if '`%s"T"` made case-insensitive' in label)
    assert equivalent(found[label], minimal(both))


def test_recursive_and_large_grammars_get_no_mutants():
    assert labelled(Compilation(load("grammars/json.abnf"))) == []
    assert labelled(Compilation(load("grammars/uri.abnf"))) == []  # 183 states, over MAX_STATES


def test_a_code_point_range_is_narrowed_to_ff_but_not_widened_to_every_byte():
    grammar = Compilation(from_text("a = %x80-100 *%x41\n", "g.abnf"))
    labels = {mutant.label for mutant in labelled(grammar)}
    assert "line 1: %x80-100 narrowed to %x80-FF" in labels
    assert not any("widened to %x00-FF" in label for label in labels)
    assert not any("`*%x41` made optional" in label for label in labels)  # it matches the empty string already


def test_a_grammar_with_a_large_nfa_gets_its_edits_spread_within_the_budget():
    from abnfc.learn.mutants import MAX_NFA_WORK, edits

    grammar = Compilation(load("grammars/variants/rfc2396-uri.abnf"))  # 13 states, but an NFA of 4,382
    allowed = MAX_NFA_WORK // len(grammar.nfa.edges)
    assert len({str(edit.grammar) for edit in edits(grammar.grammar.ast)}) > 5 * allowed
    found = labelled(grammar)
    assert 0 < len(found) <= allowed
    lines = {int(mutant.label.split(":")[0].split()[1]) for mutant in found}
    assert max(lines) - min(lines) > 30  # spread over the rules, not the first ones only
