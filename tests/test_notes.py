"""State notes in grammar terms: what each state of the minimal DFA expects, and after what,
from the provenance of the DFA before minimization (automata/notes.py).  Their exact wording is
held by tests/golden (test_golden.py), their truth by test_notes_exact.py."""
from __future__ import annotations

import pytest
from conftest import ROOT, compile_text, files_for

from abnfc import api
from abnfc.automata.notes import state_notes


def grammar_text(name: str) -> str:
    return (ROOT / "grammars" / f"{name}.abnf").read_text(encoding="utf-8")


UTF8 = compile_text(grammar_text("utf8"))


def state_after(dfa, data: bytes) -> int:
    state = dfa.start
    for byte in data:
        state = dfa.transitions[state][dfa.byte_class[byte]]
    return state


@pytest.mark.parametrize("grammar", ["utf8", "uri", "datetime"])
def test_notes_agree_with_the_automata(grammar):
    """Every position a minimal state's note expects is one of its origins, and reads a byte the
    state does not refuse; every position it comes after read a byte leading into it."""
    compiled = compile_text(grammar_text(grammar))
    minimal = compiled.minimal
    notes = state_notes(minimal, compiled.dfa)
    incoming: dict[int, set[int]] = {}
    for row in minimal.transitions:
        for cls, target in enumerate(row):
            incoming.setdefault(target, set()).update(b for lo, hi in minimal.classes[cls] for b in range(lo, hi + 1))
    for state, note in enumerate(notes):
        expected = {reading.origin for reading in note.expects}
        assert expected == minimal.origins[state], "the notes cover every position of the state"
        for reading in note.expects:
            assert any(minimal.transitions[state][minimal.byte_class[b]] != minimal.dead
                       for lo, hi in reading.ranges for b in range(lo, hi + 1))
        for reading in note.after:
            assert any(lo <= b <= hi for lo, hi in reading.ranges for b in incoming[state])


def test_the_dfa_before_minimization_has_one_path_per_state():
    for state, note in enumerate(state_notes(UTF8.dfa)):
        assert len(note.paths) == (0 if state == UTF8.dfa.dead else 1)


def test_generated_code_carries_the_notes():
    wanted = "after %xE0: expects %xA0-BF (UTF8-3 alternative 1, element 2)"
    for lang, name in (("python", "utf8.py"), ("c", "utf8.c"), ("js", "utf8.mjs")):
        files = api.generate_files(ROOT / "grammars" / "utf8.abnf", lang, prefix="utf8")
        assert wanted in files[name], lang


def test_a_comment_names_a_few_rules_and_counts_the_rest():
    text = files_for(grammar_text("uri"), "python", "uri")["uri.py"]
    assert "# ALPHA, alternatives 1 and 2; DIGIT; URI; path-abempty; 8 more rules\n" in text  # a skip line
    assert "sub-delims, alternatives 1-11; unreserved, alternatives 3-6" in text
