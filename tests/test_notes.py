"""State notes in grammar terms: what each state of the minimal DFA expects, and after what,
from the provenance of the DFA before minimization (automata/notes.py)."""
from __future__ import annotations

import pytest
from conftest import ROOT, compile_text, files_for

from abnfc import api
from abnfc.automata.dump import notes_of
from abnfc.automata.notes import state_notes


def grammar_text(name: str) -> str:
    return (ROOT / "grammars" / f"{name}.abnf").read_text(encoding="utf-8")


UTF8 = compile_text(grammar_text("utf8"))


def state_after(dfa, data: bytes) -> int:
    state = dfa.start
    for byte in data:
        state = dfa.transitions[state][dfa.byte_class[byte]]
    return state


@pytest.mark.parametrize("prefix, note", [
    (b"\xe0", "after %xE0: expects %xA0-BF (UTF8-3 alternative 1, element 2)"),
    (b"\xed", "after %xED: expects %x80-9F (UTF8-3 alternative 3, element 2)"),
    (b"\xf4", "after %xF4: expects %x80-8F (UTF8-4 alternative 3, element 2)"),
    (b"\xf1", "after %xF1-F3 (UTF8-4 alternative 2, element 1): expects %x80-BF (UTF8-tail alternative 1, "
              "element 1)"),
    (b"", "start; accepting; expects %x00-7F (UTF8-1 alternative 1), %xC2-DF (UTF8-2 alternative 1), "
          "%xE0 (UTF8-3 alternative 1), %xE1-EC (UTF8-3 alternative 2), %xED (UTF8-3 alternative 3), "
          "%xEE-EF (UTF8-3 alternative 4), %xF0 (UTF8-4 alternative 1), %xF1-F3 (UTF8-4 alternative 2) "
          "or %xF4 (UTF8-4 alternative 3)"),
    (b"\xff", "dead"),
])
def test_utf8_notes_say_what_a_state_expects(prefix, note):
    assert notes_of(UTF8.minimal, UTF8.dfa)[state_after(UTF8.minimal, prefix)] == note


def test_a_state_that_must_end_says_so():
    compiled = compile_text(grammar_text("datetime"))
    final = state_after(compiled.minimal, b"1985-04-12T23:20:50Z")
    assert notes_of(compiled.minimal, compiled.dfa)[final] == (
        "accepting; after %x30-39 (DIGIT alternative 1, element 1) or %x5A / %x7A (time-offset "
        "alternative 1, element 1): expects the end of the input")


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
