"""Product automata: equivalence, difference and shortest witnesses between two DFAs.

One generic construction (as in greenery's ``fsm.py``): the pairs of states reachable from the
pair of start states, over the common refinement of both byte partitions, with acceptance
decided by a boolean function of the two sides.  Equivalence is the emptiness of the symmetric
difference; a shortest distinguishing input is a shortest word of it, found by breadth-first
search taking bytes in increasing order, so the word found is also the lexicographically least
of the shortest ones.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ..charset import contiguous_classes
from .dfa import Dfa

Combine = Callable[[bool, bool], bool]


def product(a: Dfa, b: Dfa, combine: Combine) -> Dfa:
    """The DFA accepting what ``combine(a accepts, b accepts)`` holds for; state 0 is dead."""
    classes = contiguous_classes([*a.classes, *b.classes])
    lows = [ranges[0][0] for ranges in classes]
    a_class, b_class = a.byte_class, b.byte_class
    columns = [(a_class[low], b_class[low]) for low in lows]
    dead = (a.dead, b.dead)
    index = {dead: 0, (a.start, b.start): 1} if (a.start, b.start) != dead else {dead: 0}
    pairs = list(index)
    rows = []
    for left, right in pairs:  # grows while iterating
        row = []
        for ca, cb in columns:
            pair = (a.transitions[left][ca], b.transitions[right][cb])
            if pair not in index:
                index[pair] = len(pairs)
                pairs.append(pair)
            row.append(index[pair])
        rows.append(tuple(row))
    accepting = frozenset(i for i, (left, right) in enumerate(pairs)
                          if combine(left in a.accepting, right in b.accepting))
    if 0 in accepting:  # the pair of dead states accepts (say, "not a and not b"): no dead state
        return _with_fresh_dead(classes, rows, index[(a.start, b.start)], accepting)
    return Dfa(classes, tuple(rows), index[(a.start, b.start)], accepting, 0)


def _with_fresh_dead(classes, rows, start: int, accepting: frozenset[int]) -> Dfa:
    dead = len(rows)
    rows = [*rows, tuple(dead for _ in classes)]
    return Dfa(classes, tuple(rows), start, accepting, dead)


def shortest_word(dfa: Dfa) -> bytes | None:
    """A shortest (then lexicographically least) input ``dfa`` accepts, or None."""
    representatives = sorted({dfa.byte_class[byte]: byte for byte in range(255, -1, -1)}.items(),
                             key=lambda item: item[1])
    parent: dict[int, tuple[int, int] | None] = {dfa.start: None}
    queue = deque([dfa.start])
    while queue:
        state = queue.popleft()
        if state in dfa.accepting:
            return _path(parent, state)
        for cls, byte in representatives:
            following = dfa.transitions[state][cls]
            if following not in parent and following != dfa.dead:
                parent[following] = (state, byte)
                queue.append(following)
    return None


def _path(parent: dict[int, tuple[int, int] | None], state: int) -> bytes:
    out = bytearray()
    step = parent[state]
    while step is not None:
        state, byte = step
        out.append(byte)
        step = parent[state]
    return bytes(reversed(out))


def difference(a: Dfa, b: Dfa) -> Dfa:
    """What ``a`` accepts and ``b`` does not."""
    return product(a, b, lambda x, y: x and not y)


def distinguishing_input(a: Dfa, b: Dfa) -> bytes | None:
    """A shortest input accepted by exactly one of ``a`` and ``b``, or None if they agree."""
    return shortest_word(product(a, b, lambda x, y: x != y))


def equivalent(a: Dfa, b: Dfa) -> bool:
    return distinguishing_input(a, b) is None


__all__ = ["difference", "distinguishing_input", "equivalent", "product", "shortest_word"]
