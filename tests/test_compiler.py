"""Compiler: NFA -> DFA -> minimal DFA; sizes, limits, cycles, provenance, minimization laws."""
from __future__ import annotations

import time

import pytest
from conftest import compile_text
from hypothesis import given, settings
from hypothesis import strategies as st

from abnfc.automata.dfa import Dfa
from abnfc.automata.minimize import canonical, minimize
from abnfc.automata.product import distinguishing_input, equivalent
from abnfc.errors import AbnfError, LimitError
from abnfc.pipeline import Limits

UTF8_CLASSES = [
    ((0x00, 0x7F),), ((0x80, 0x8F),), ((0x90, 0x9F),), ((0xA0, 0xBF),), ((0xC0, 0xC1), (0xF5, 0xFF)),
    ((0xC2, 0xDF),), ((0xE0, 0xE0),), ((0xE1, 0xEC), (0xEE, 0xEF)), ((0xED, 0xED),), ((0xF0, 0xF0),),
    ((0xF1, 0xF3),), ((0xF4, 0xF4),),
]


def test_utf8_minimal_dfa_has_9_states_and_12_classes(utf8_compiled):
    minimal = utf8_compiled.minimal
    assert (minimal.num_states, minimal.num_classes) == (9, 12)
    assert list(minimal.classes) == UTF8_CLASSES
    assert (minimal.dead, minimal.start, minimal.accepting) == (0, 1, frozenset({1}))
    assert utf8_compiled.dfa.num_states > minimal.num_states  # minimization did real work
    assert equivalent(utf8_compiled.dfa, minimal)


def test_provenance_names_the_rules_each_state_reads(utf8_compiled):
    minimal = utf8_compiled.minimal
    rules = [sorted({o.rule for o in origins}) for origins in minimal.origins]
    assert rules[0] == []
    assert rules[1] == ["UTF8-1", "UTF8-2", "UTF8-3", "UTF8-4"]
    after_e0 = minimal.transitions[1][6]
    origin, = minimal.origins[after_e0]
    assert (origin.rule, origin.alternative, origin.element) == ("UTF8-3", 0, 1)
    assert origin.span.line == 9 and str(origin).startswith("UTF8-3/1.2")


@pytest.mark.parametrize("text, expected", [
    ('r = 100000000"a"', "NFA states"),
    ("r = 1*65535(%x00-FF)", "DFA needs more than"),
    ("r = *(%x61 / %x62) %x61 20(%x61 / %x62)", "DFA needs more than"),
    ("r = 1000(1000(1000%x41))", "NFA states"),
])
def test_limits_fail_fast_with_a_clear_error(text, expected):
    begun = time.process_time()
    with pytest.raises(LimitError) as caught:
        compile_text(text)
    assert expected in str(caught.value) and "--max-" in str(caught.value)
    # CPU seconds, generous (the slowest case uses 1.2): the point is "no hang", not speed
    assert time.process_time() - begun < 10


def test_limits_can_be_raised():
    text = "r = *(%x61 / %x62) %x61 11(%x61 / %x62)"
    with pytest.raises(LimitError):
        compile_text(text, None, Limits(max_dfa_states=1000))
    compiled = compile_text(text, None, Limits(max_dfa_states=10_000))
    assert compiled.minimal.num_states == 2 ** 12 + 1  # the classic 2^(n+1) blow-up, plus dead


def test_recursive_grammar_is_refused_naming_the_cycle():
    with pytest.raises(AbnfError) as caught:
        compile_text('a = "x" b\nb = "(" a ")" / "y"\n')
    message = str(caught.value)
    assert "a -> b -> a" in message and "g.abnf:2:9" in message and "interpreter" in message


@pytest.mark.parametrize("text, accepted, rejected", [
    ('r = *"a" "a"', [b"a", b"aaa"], [b"", b"b"]),
    ('r = "aB"', [b"ab", b"AB", b"aB", b"Ab"], [b"a", b"abb"]),
    ('r = %s"aB"', [b"aB"], [b"ab", b"AB"]),
    ("r = 2*3%x41", [b"AA", b"AAA"], [b"A", b"AAAA"]),
    ("r = %x0D.0A [ %d65 ] 0%x42", [b"\r\n", b"\r\nA"], [b"\r\nB", b"\n"]),
    ('r = "" / 0*0"x"', [b""], [b"x"]),
])
def test_constructs_compile_to_the_right_language(text, accepted, rejected):
    compiled = compile_text(text)
    for engine in (compiled.dfa, compiled.minimal):
        assert all(engine.matches(x) for x in accepted)
        assert not any(engine.matches(x) for x in rejected)


# --- minimization laws on random DFAs ------------------------------------------------------

@st.composite
def random_dfas(draw):
    states = draw(st.integers(1, 12))
    cuts = sorted(draw(st.sets(st.integers(1, 255), max_size=4)))
    starts = [0, *cuts]
    classes = tuple(((lo, hi - 1),) for lo, hi in zip(starts, [*starts[1:], 256], strict=True))
    rows = [tuple(draw(st.integers(0, states)) for _ in classes) for _ in range(states)]
    dead = states  # an explicit dead state after the random ones
    rows.append(tuple(dead for _ in classes))
    accepting = frozenset(draw(st.sets(st.integers(0, states - 1))))
    return Dfa(classes, tuple(rows), draw(st.integers(0, states - 1)), accepting, dead)


@settings(max_examples=300, deadline=None)
@given(random_dfas())
def test_minimization_keeps_the_language_and_is_idempotent(machine):
    minimal = minimize(machine)
    assert distinguishing_input(machine, minimal) is None
    assert minimize(minimal) == minimal
    assert minimal.num_states <= machine.num_states + 1


@settings(max_examples=150, deadline=None)
@given(random_dfas())
def test_minimal_dfa_states_are_pairwise_distinguishable(machine):
    minimal = minimize(machine)
    live = range(minimal.num_states)
    variants = [Dfa(minimal.classes, minimal.transitions, s, minimal.accepting, minimal.dead) for s in live]
    for a in live:
        for b in range(a + 1, minimal.num_states):
            assert not equivalent(variants[a], variants[b])


@settings(max_examples=150, deadline=None)
@given(random_dfas(), st.randoms(use_true_random=False))
def test_renumbering_states_does_not_change_the_canonical_result(machine, rng):
    order = list(range(machine.num_states))
    rng.shuffle(order)
    rename = {old: new for new, old in enumerate(order)}
    rows: list[tuple[int, ...]] = [()] * machine.num_states
    for old, row in enumerate(machine.transitions):
        rows[rename[old]] = tuple(rename[t] for t in row)
    shuffled = Dfa(machine.classes, tuple(rows), rename[machine.start],
                   frozenset(rename[s] for s in machine.accepting), rename[machine.dead])
    assert minimize(shuffled) == minimize(machine)
    assert canonical(minimize(machine)) == minimize(machine)


def test_equivalence_check_finds_a_shortest_difference():
    a, b = compile_text('r = *"a"').minimal, compile_text('r = *"a" / "aab"').minimal
    assert distinguishing_input(a, b) in (b"aab", b"AAB", b"aaB", b"aAb", b"AAb", b"Aab", b"aAB", b"AaB")
    assert not equivalent(a, b)
