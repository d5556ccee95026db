"""State notes are exactly true (issue 17): on random grammars and on the repository's grammars,
every range a note attributes to a grammar position is a subset of what that position reads,
and the union over its positions is the state's real set of bytes: those leading into it (from
states that can still accept) for the positions it comes after, those that do not lead to the
dead state for the positions it expects."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from grammar_gen import random_linear_grammar, random_regular_grammar

import abnfc
from abnfc.automata.dfa import Dfa
from abnfc.automata.notes import Reading, state_notes
from abnfc.charset import Ranges, intersect, normalize

ROOT = Path(__file__).resolve().parents[1]
LIMITS = abnfc.Limits(max_nfa_states=3000, max_dfa_states=300)


def incoming(dfa: Dfa, reachable: set[int]) -> dict[int, Ranges]:
    """For each state, the bytes of the transitions into it from reachable states other than
    the dead one."""
    found: dict[int, list[tuple[int, int]]] = {}
    for source in reachable - {dfa.dead}:
        for cls, target in enumerate(dfa.transitions[source]):
            found.setdefault(target, []).extend(dfa.classes[cls])
    return {state: normalize(ranges) for state, ranges in found.items()}


def _reachable(dfa: Dfa) -> set[int]:
    seen, queue = {dfa.start}, [dfa.start]
    for state in queue:
        for target in dfa.transitions[state]:
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def outgoing(dfa: Dfa, state: int) -> Ranges:
    return normalize(r for cls, target in enumerate(dfa.transitions[state]) if target != dfa.dead
                     for r in dfa.classes[cls])


def union(readings: frozenset[Reading]) -> Ranges:
    return normalize(r for reading in readings for r in reading.ranges)


def check_exact(compiled) -> None:
    for automaton in (compiled.minimal, compiled.dfa):
        notes = state_notes(automaton, compiled.dfa)
        reachable = _reachable(automaton)
        into = incoming(automaton, reachable)
        for state, note in enumerate(notes):
            if state == automaton.dead or state not in reachable:
                continue
            for reading in note.after | note.expects:
                assert reading.ranges, reading
                assert intersect(reading.ranges, reading.origin.reads) == reading.ranges, reading
            assert union(note.expects) == outgoing(automaton, state), state
            assert union(note.after) == into.get(state, ()), state


@pytest.mark.parametrize("name", ["utf8", "uri", "datetime", "iri"])
def test_the_notes_of_the_repository_grammars_are_exact(name):
    imports = [ROOT / "grammars" / "uri.abnf"] if name == "iri" else []
    check_exact(abnfc.compile_grammar(abnfc.load_grammar(ROOT / "grammars" / f"{name}.abnf", imports=imports)))


@pytest.mark.parametrize("seed", range(40))
def test_the_notes_of_random_grammars_are_exact(seed):
    rng = random.Random(seed)
    for make in (random_regular_grammar, random_linear_grammar):
        try:
            compiled = abnfc.compile_grammar(abnfc.load_grammar(text=make(rng)), limits=LIMITS)
        except abnfc.AbnfError:
            continue
        check_exact(compiled)


def test_utf8_notes_no_longer_merge_ranges_across_alternatives():
    """The note that read "after %x80-BF (UTF8-3 alternatives 1, 3)": alternative 1 reads
    %xA0-BF there, alternative 3 reads %x80-9F."""
    compiled = abnfc.compile_grammar(abnfc.load_grammar(ROOT / "grammars" / "utf8.abnf"))
    state = compiled.minimal.trace(b"\xe0\xa0")[-1]
    note = state_notes(compiled.minimal, compiled.dfa)[state]
    after = {(r.origin.rule, r.origin.alternative + 1): r.ranges for r in note.after}
    assert after[("UTF8-3", 1)] == ((0xA0, 0xBF),)
    assert after[("UTF8-3", 3)] == ((0x80, 0x9F),)
