"""State identification: separating words and harmonized state identifiers of a minimal DFA.

A *separating word* of states ``i`` and ``j`` is an input that one of them leads to acceptance
and the other does not.  The shortest ones are found for every pair at once by breadth-first
search backwards over the graph of state pairs: pairs that differ in acceptance are at level 0,
and a pair is at level k+1 when some class takes it to a pair at level k (Moore's partition
refinement, one pair at a time).  Each word is then the least class leading one level down
followed by that pair's word, so it is the shortest and then lexicographically least.

The *harmonized state identifiers* of the HSI method (Petrenko, Yevtushenko, Lebedev and Das,
1993; surveyed by Dorofeeva, El-Fakih, Maag, Cavalli and Yevtushenko, "FSM-based conformance
testing methods", IST 52(12), 2010) give each state ``i`` the set H_i of the words separating it
from every other state, plus the empty word; H_i and H_j share the word separating ``i`` and
``j``.  With a state cover Q, the test suite Q . Sigma^{<=k+1} (+) H, which appends to each word
the identifier of the state it reaches, tells a minimal DFA of n states apart from every DFA of at
most n + k states over the same byte classes that accepts a different language (Chow's W-method,
1978, with W replaced by the per-state sets).
"""
from __future__ import annotations

from collections import deque

from ..errors import InvariantError
from .dfa import Dfa
from .product import class_order

Pair = tuple[int, int]


def separating_words(dfa: Dfa) -> dict[Pair, bytes]:
    """The shortest (then least) separating word of every pair ``(i, j)``, ``i < j``, of
    distinguishable states; for a minimal DFA that is every pair."""
    level = _levels(dfa)
    order = class_order(dfa)
    words: dict[Pair, bytes] = {}
    for pair in sorted(level, key=level.__getitem__):  # lower levels first
        i, j = pair
        if level[pair] == 0:
            words[pair] = b""
            continue
        for cls, byte in order:
            following = _pair(dfa.transitions[i][cls], dfa.transitions[j][cls])
            if following is not None and level.get(following) == level[pair] - 1:
                words[pair] = bytes([byte]) + words[following]
                break
    return words


def _pair(i: int, j: int) -> Pair | None:
    if i == j:
        return None
    return (i, j) if i < j else (j, i)


def _levels(dfa: Dfa) -> dict[Pair, int]:
    """Length of the shortest separating word of each distinguishable pair."""
    n = dfa.num_states
    inverse: list[list[list[int]]] = [[[] for _ in range(n)] for _ in dfa.classes]
    for state, row in enumerate(dfa.transitions):
        for cls, target in enumerate(row):
            inverse[cls][target].append(state)
    accepting = sorted(dfa.accepting)
    rejecting = sorted(set(range(n)) - dfa.accepting)
    level: dict[Pair, int] = {}
    for i in accepting:
        for j in rejecting:
            level[_pair(i, j)] = 0  # type: ignore[index]
    queue = deque(sorted(level))
    while queue:
        p, q = queue.popleft()
        for sources in inverse:
            for i in sources[p]:
                for j in sources[q]:
                    pair = _pair(i, j)
                    if pair is not None and pair not in level:
                        level[pair] = level[(p, q)] + 1
                        queue.append(pair)
    return level


def identifiers(dfa: Dfa) -> list[tuple[bytes, ...]]:
    """H_i for every state: the empty word and the words separating ``i`` from each other state,
    sorted shortest first, then lexicographically.  The DFA must be minimal."""
    words = separating_words(dfa)
    n = dfa.num_states
    InvariantError.check(len(words) == n * (n - 1) // 2, "state identifiers need a minimal DFA")
    sets: list[set[bytes]] = [{b""} for _ in range(n)]
    for (i, j), word in words.items():
        sets[i].add(word)
        sets[j].add(word)
    return [tuple(sorted(found, key=lambda w: (len(w), w))) for found in sets]


__all__ = ["identifiers", "separating_words"]
