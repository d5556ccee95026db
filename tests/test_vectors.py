"""abnfc vectors: the classic UTF-8 cases on their own, every transition covered, every
one-fault DFA told apart (with K extra states too), truncations, formats, determinism, recursive
grammars bounded and said to be, and the automata pieces under it (access words, completions,
separating words, harmonized identifiers)."""
from __future__ import annotations

import itertools
import json

import pytest
from conftest import ROOT, UTF8_GRAMMAR, decodes, utf8_vectors
from mutants import wrong_mutants

import abnfc
from abnfc.automata.identify import identifiers, separating_words
from abnfc.automata.product import access_words, completions
from abnfc.cli import main
from abnfc.crosscheck.language import load_language
from abnfc.crosscheck.provenance import NoProvenance
from abnfc.crosscheck.suite import build_suite
from abnfc.pipeline import Compilation

GRAMMARS = ROOT / "grammars"


@pytest.fixture(scope="module")
def utf8():
    language = load_language(Compilation(abnfc.load_grammar(UTF8_GRAMMAR)))
    return language, build_suite(language.minimal, language.provenance, language.accepts)


def by_input(vectors):
    return {v.data: v for v in vectors}


def test_utf8_vectors_hold_the_classic_cases_with_notes(utf8):
    _, vectors = utf8
    found = by_input(vectors)
    classic = ["c0 80", "c1 80", "e0 80 80", "f0 80 80 80", "ed a0 80", "f4 90 80 80", "f5",
               "ff", "80", "bf", "c2", "e0 a0", "f0 90 80", "f4 8f 80"]
    for text in classic:
        data = bytes.fromhex(text)
        assert data in found, text
        assert found[data].valid is False
    assert "after %xED (UTF8-3, alt 3) 0xA0 is outside %x80-9F (UTF8-3, alt 3)" in found[bytes.fromhex("ed a0 80")].note
    assert "after %xF4 (UTF8-4, alt 3) 0x90 is outside %x80-8F" in found[bytes.fromhex("f4 90 80 80")].note
    assert found[bytes.fromhex("e0 a0")].note.endswith("expected %x80-BF (UTF8-tail, alt 1)")
    for text in ["00", "7f", "c2 80", "df 80", "e0 a0 80", "ed 9f 80", "ee 80 80", "f0 90 80 80", "f4 8f 80 80"]:
        assert found[bytes.fromhex(text)].valid is True, text


def test_verdicts_agree_with_pythons_decoder(utf8):
    _, vectors = utf8
    assert all(v.valid == decodes(v.data) for v in vectors)
    assert all(v.note for v in vectors)


def test_every_transition_is_taken_with_the_boundary_bytes_of_its_class(utf8):
    language, vectors = utf8
    dfa, inputs = language.minimal, [v.data for v in vectors]
    taken = set()
    for data in inputs:
        state = dfa.start
        for byte in data:
            taken.add((state, byte))
            state = dfa.transitions[state][dfa.byte_class[byte]]
            if state == dfa.dead:
                break
    access = access_words(dfa)
    for state in access:
        if state == dfa.dead:
            continue
        for ranges in dfa.classes:
            for lo, hi in ranges:
                assert (state, lo) in taken and (state, hi) in taken, (state, lo, hi)


def test_truncations_every_rejected_proper_prefix_of_an_accepted_vector_once(utf8):
    _, vectors = utf8
    found = by_input(vectors)
    assert len(found) == len(vectors)
    for vector in vectors:
        if vector.valid:
            for end in range(len(vector.data)):
                assert vector.data[:end] in found


@pytest.mark.parametrize("grammar", ["utf8", pytest.param("datetime", marks=pytest.mark.slow)])
def test_every_one_fault_dfa_is_told_apart(grammar):
    language = load_language(Compilation(abnfc.load_grammar(GRAMMARS / f"{grammar}.abnf")))
    vectors = build_suite(language.minimal, language.provenance, language.accepts)
    for faulty in wrong_mutants(language.minimal, 150, seed=1):
        assert any(faulty.matches(v.data) != v.valid for v in vectors)


@pytest.mark.slow
@pytest.mark.parametrize(("grammar", "extra", "count"), [("utf8", 0, 2000), ("utf8", 1, 1000), ("utf8", 2, 300),
                                                         ("datetime", 0, 400), ("datetime", 1, 100),
                                                         ("uri", 0, 25)])
def test_every_faulty_dfa_with_up_to_k_more_states_is_told_apart(grammar, extra, count):
    language = load_language(Compilation(abnfc.load_grammar(GRAMMARS / f"{grammar}.abnf")))
    vectors = build_suite(language.minimal, NoProvenance(), language.accepts, extra_states=extra)
    inputs, verdicts = [v.data for v in vectors], [v.valid for v in vectors]
    for faulty in wrong_mutants(language.minimal, count, seed=extra + 7, extra_states=extra):
        assert any(faulty.matches(data) != valid for data, valid in zip(inputs, verdicts, strict=True))


def test_the_conformance_file_misses_faults_the_vectors_catch(utf8):
    """The 1,405 hand-collected vectors pass many one-fault DFAs; the generated ones pass none."""
    language, vectors = utf8
    collected = [(data, valid) for data, valid, _ in utf8_vectors()]
    faulty = wrong_mutants(language.minimal, 100, seed=3)
    missed = sum(all(m.matches(d) == v for d, v in collected) for m in faulty)
    assert missed > 10
    assert not any(all(m.matches(v.data) == v.valid for v in vectors) for m in faulty)


def test_cli_tsv_and_json_are_deterministic(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["vectors", "grammars/utf8.abnf"]) == 0
    first = capsys.readouterr().out
    assert main(["vectors", "grammars/utf8.abnf"]) == 0
    assert capsys.readouterr().out == first
    lines = first.splitlines()
    assert lines[0] == "hex\tvalid\tnote"
    assert "c0 80\t0\tlookalike: 0xC0 is outside" in first
    assert all(len(line.split("\t")) == 3 for line in lines)
    assert main(["vectors", "grammars/utf8.abnf", "--format", "json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert [f"{i['hex']}\t{int(i['valid'])}\t{i['note']}" for i in items] == lines[1:]
    assert set(items[0]) == {"hex", "valid", "note"} and isinstance(items[0]["valid"], bool)


def test_too_many_extra_states_are_refused(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["vectors", "grammars/datetime.abnf", "--extra-states", "5"]) == 2
    assert "--extra-states 5 would make up to" in capsys.readouterr().err


def test_recursive_grammar_is_bounded_and_says_so(capsys, tmp_path):
    grammar = tmp_path / "nest.abnf"
    grammar.write_text('nest = *group\ngroup = "(" nest ")"\n')
    assert main(["vectors", str(grammar), "--max-nesting", "2"]) == 0
    captured = capsys.readouterr()
    assert "is recursive (nest -> group -> nest)" in captured.err
    assert "nested up to 2 parts deep, unfolded from its pushdown validator" in captured.err
    assert "bounded" in captured.err
    rows = [line.split("\t") for line in captured.out.splitlines()[1:]]
    valid = {bytes.fromhex(h) for h, v, _ in rows if v == "1"}
    assert {b"", b"()", b"(())"} <= valid and b"(" not in valid and b")(" not in valid
    notes = {bytes.fromhex(h): note for h, _, note in rows}
    assert notes[b"\x00"] == "transition: 0x00 is outside %x28 ('(') (group)"  # even where the prefix matches
    loaded = abnfc.load_grammar(grammar)
    for hex_text, verdict, _ in rows:  # verdicts come from the pushdown validator: the interpreter's
        assert abnfc.recognize(loaded, bytes.fromhex(hex_text)).matched == (verdict == "1")
    assert b"(((" in {bytes.fromhex(h) for h, _, _ in rows}  # a call past the depth, with its verdict


def test_a_recursive_grammar_without_a_pushdown_validator_is_explored_by_length(capsys, tmp_path):
    grammar = tmp_path / "conflict.abnf"
    grammar.write_text('s = "(" s ")" / "(" "x" ")"\n')
    assert main(["vectors", str(grammar), "--max-length", "4"]) == 0
    captured = capsys.readouterr()
    assert "up to 4 bytes" in captured.err and "explored through the interpreter" in captured.err
    rows = [line.split("\t") for line in captured.out.splitlines()[1:]]
    assert {bytes.fromhex(h) for h, v, _ in rows if v == "1"} >= {b"(x)"}


def test_the_exploration_budget_stops_at_a_length_it_can_finish(capsys, tmp_path):
    grammar = tmp_path / "conflict.abnf"
    grammar.write_text('s = "(" s ")" / "(" t ")"\nt = *%x00-FF\n')
    assert main(["vectors", str(grammar), "--max-length", "6", "--max-runs", "5"]) == 0
    err = capsys.readouterr().err
    assert "up to 1 byte (--max-length 6 asked; 6 bytes would need more than the budget of 5" in err


def test_a_finite_recursive_language_is_explored_whole(capsys):
    text = 'r = "(" [ r ] ")"\n'
    language = load_language_text(text, 12)
    assert language.bounded.bound == 12
    accepted = {v.data for v in build_suite(language.minimal, language.provenance, language.accepts) if v.valid}
    assert b"()" in accepted and b"((()))" in accepted


def load_language_text(text: str, max_length: int):
    from abnfc.crosscheck.bounded import explore
    from abnfc.crosscheck.language import Language
    from abnfc.crosscheck.provenance import InterpreterProvenance
    from abnfc.frontend.resolve import resolve
    from abnfc.frontend.source import from_text
    resolved = resolve(from_text(text).ast)
    found = explore(resolved, max_length)
    return Language("<text>", resolved, found.dfa, InterpreterProvenance(resolved), found)


def test_words_are_shortest_then_least(utf8):
    language, _ = utf8
    dfa = language.minimal
    inputs = [bytes(w) for n in range(3) for w in itertools.product(range(256), repeat=n)]
    inputs.sort(key=lambda d: (len(d), d))
    runs: dict[object, bytes] = {}
    for data in inputs:
        runs.setdefault(run(dfa, data), data)
    for state, word in access_words(dfa).items():
        if state in runs:
            assert runs[state] == word
    completion = completions(dfa)
    assert completion[dfa.start] == b"" and completion[run(dfa, b"\xf0")] == b"\x90\x80\x80"


def run(dfa, data):
    state = dfa.start
    for byte in data:
        state = dfa.transitions[state][dfa.byte_class[byte]]
    return state


@pytest.mark.parametrize("grammar", ["utf8", "datetime"])
def test_separating_words_separate_and_identifiers_are_harmonized(grammar):
    dfa = abnfc.compile_grammar(GRAMMARS / f"{grammar}.abnf").minimal
    words = separating_words(dfa)
    assert len(words) == dfa.num_states * (dfa.num_states - 1) // 2
    for (i, j), word in words.items():
        assert (run_from(dfa, i, word) in dfa.accepting) != (run_from(dfa, j, word) in dfa.accepting)
        shorter = [w for w in words.values() if len(w) < len(word)]
        assert not any((run_from(dfa, i, w) in dfa.accepting) != (run_from(dfa, j, w) in dfa.accepting)
                       for w in set(shorter))  # no shorter word of the others separates them
    ids = identifiers(dfa)
    for (i, j), word in words.items():
        assert word in ids[i] and word in ids[j]


def run_from(dfa, state, data):
    for byte in data:
        state = dfa.transitions[state][dfa.byte_class[byte]]
    return state
