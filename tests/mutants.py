"""Faulty automata for the fault-detection tests: a minimal DFA with one transition redirected
or one accepting flag flipped, optionally after K extra states were added (copies of existing
states that some transitions now lead to, so the language is unchanged until the fault)."""
from __future__ import annotations

import random

from abnfc.automata.dfa import Dfa
from abnfc.automata.product import equivalent


def mutant(dfa: Dfa, rng: random.Random, extra_states: int = 0) -> Dfa:
    rows = [list(row) for row in dfa.transitions]
    accepting = set(dfa.accepting)
    for _ in range(extra_states):
        original = rng.randrange(1, len(rows)) if len(rows) > 1 else 0
        rows.append(list(rows[original]))
        copy = len(rows) - 1
        if original in accepting:
            accepting.add(copy)
        for _ in range(rng.randint(1, 4)):
            state, cls = rng.randrange(len(rows)), rng.randrange(dfa.num_classes)
            if rows[state][cls] == original:
                rows[state][cls] = copy
    state = rng.randrange(1, len(rows))  # never the dead state 0
    if rng.random() < 0.5:
        rows[state][rng.randrange(dfa.num_classes)] = rng.randrange(len(rows))
    else:
        accepting ^= {state}
    return Dfa(dfa.classes, tuple(map(tuple, rows)), dfa.start, frozenset(accepting), 0)


def wrong_mutants(dfa: Dfa, count: int, seed: int, extra_states: int = 0) -> list[Dfa]:
    """``count`` mutants whose language differs from ``dfa``'s."""
    rng = random.Random(seed)
    found: list[Dfa] = []
    while len(found) < count:
        candidate = mutant(dfa, rng, extra_states)
        if not equivalent(candidate, dfa):
            found.append(candidate)
    return found


def table_module(dfa: Dfa) -> str:
    """A Python module whose ``accepts`` runs ``dfa``: an implementation for crosscheck."""
    return (f"CLASSES = {list(dfa.byte_class)!r}\nROWS = {[list(r) for r in dfa.transitions]!r}\n"
            f"ACCEPTING = {sorted(dfa.accepting)!r}\nSTART = {dfa.start}\n\n"
            "def accepts(data):\n    state = START\n    for byte in data:\n"
            "        state = ROWS[state][CLASSES[byte]]\n    return state in ACCEPTING\n")
