"""Product automata: equivalence, difference and shortest witnesses between two DFAs; words.

One generic construction (as in greenery's ``fsm.py``): the pairs of states reachable from the
pair of start states, over the common refinement of both byte partitions, with acceptance
decided by a boolean function of the two sides.  Equivalence is the emptiness of the symmetric
difference; a shortest distinguishing input is a shortest word of it, found by breadth-first
search taking bytes in increasing order, so the word found is also the lexicographically least
of the shortest ones.

Words of one DFA, all shortest and then lexicographically least, each class read as its least
byte: the access word of every state (breadth-first search), the completion of every state to
acceptance (breadth-first search backwards from the accepting states, then the least class that
gets one step closer), and the number of inputs of each length a DFA accepts (dynamic
programming over lengths, each class weighted by its number of bytes).  ``bounded`` intersects a
language with the inputs of at most N bytes (a product with a length counter).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ..charset import Ranges, contiguous_classes
from ..errors import LimitError
from ..i18n import _
from .dfa import Dfa

Combine = Callable[[bool, bool], bool]
Spend = Callable[[int], None]  # charges steps to a work limit, raising LimitError beyond it


@dataclass(frozen=True)
class Pairs:
    """The pairs of states of two DFAs reachable together: ``pairs[0]`` is the pair of dead
    states, ``pairs[start]`` the pair of start states, ``rows[i][c]`` the pair after class
    ``c`` (of the common refinement ``classes``)."""

    classes: tuple[Ranges, ...]
    pairs: tuple[tuple[int, int], ...]
    rows: tuple[tuple[int, ...], ...]
    start: int


def pairs(a: Dfa, b: Dfa, max_pairs: int | None = None, spend: Spend | None = None) -> Pairs:
    """The reachable pairs; LimitError beyond ``max_pairs`` of them, and ``spend`` is charged a
    step per transition built (the time and memory the product takes grow with both)."""
    classes = contiguous_classes([*a.classes, *b.classes])
    lows = [ranges[0][0] for ranges in classes]
    a_class, b_class = a.byte_class, b.byte_class
    columns = [(a_class[low], b_class[low]) for low in lows]
    dead = (a.dead, b.dead)
    index = {dead: 0, (a.start, b.start): 1} if (a.start, b.start) != dead else {dead: 0}
    found = list(index)
    rows = []
    for left, right in found:  # grows while iterating
        if spend is not None:
            spend(len(columns))
        row = []
        for ca, cb in columns:
            pair = (a.transitions[left][ca], b.transitions[right][cb])
            if pair not in index:
                if max_pairs is not None and len(found) >= max_pairs:
                    raise LimitError.at(None, _("the product of the two DFAs has more than {limit:,} pairs "
                                                "of states (--max-dfa-states); the languages are too far apart "
                                                "to compare quickly; raise the limit if this is intended").format(
                                                    limit=max_pairs))
                index[pair] = len(found)
                found.append(pair)
            row.append(index[pair])
        rows.append(tuple(row))
    return Pairs(classes, tuple(found), tuple(rows), index[(a.start, b.start)])


def product(a: Dfa, b: Dfa, combine: Combine, max_pairs: int | None = None) -> Dfa:
    """The DFA accepting what ``combine(a accepts, b accepts)`` holds for; state 0 is dead.
    Raises LimitError past ``max_pairs`` pairs of states."""
    together = pairs(a, b, max_pairs)
    accepting = frozenset(i for i, (left, right) in enumerate(together.pairs)
                          if combine(left in a.accepting, right in b.accepting))
    if 0 in accepting:  # the pair of dead states accepts (say, "not a and not b"): no dead state
        return _with_fresh_dead(together.classes, together.rows, together.start, accepting)
    return Dfa(together.classes, together.rows, together.start, accepting, 0)


def _with_fresh_dead(classes, rows, start: int, accepting: frozenset[int]) -> Dfa:
    dead = len(rows)
    rows = [*rows, tuple(dead for _ in classes)]
    return Dfa(classes, tuple(rows), start, accepting, dead)


def shortest_word(dfa: Dfa) -> bytes | None:
    """A shortest (then lexicographically least) input ``dfa`` accepts, or None."""
    representatives = class_order(dfa)
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


def class_order(dfa: Dfa) -> list[tuple[int, int]]:
    """(class, least byte) of every class, by least byte: the order words are built in."""
    return _by_least_byte(dfa.classes)


def _by_least_byte(classes: tuple[Ranges, ...]) -> list[tuple[int, int]]:
    return sorted(((cls, ranges[0][0]) for cls, ranges in enumerate(classes)), key=lambda item: item[1])


def access_words(dfa: Dfa) -> dict[int, bytes]:
    """The shortest (then least) input reaching each reachable state, the dead state included."""
    return shortest_words(dfa.classes, dfa.transitions, dfa.start)


def shortest_words(classes: tuple[Ranges, ...], rows, start: int) -> dict[int, bytes]:
    """The shortest (then least) input reaching each state reachable from ``start``, where
    ``rows[state][class]`` is the next state (a DFA's transitions, or a product's pair rows)."""
    order = _by_least_byte(classes)
    words = {start: b""}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        for cls, byte in order:
            following = rows[state][cls]
            if following not in words:
                words[following] = words[state] + bytes([byte])
                queue.append(following)
    return words


def completions(dfa: Dfa) -> dict[int, bytes]:
    """The shortest (then least) input taking each state to acceptance, for every state that can
    accept at all."""
    distance = _distances_to_acceptance(dfa)
    order = class_order(dfa)
    found: dict[int, bytes] = {}
    for state in sorted(distance, key=distance.__getitem__):  # nearer states are done first
        if distance[state] == 0:
            found[state] = b""
            continue
        for cls, byte in order:
            following = dfa.transitions[state][cls]
            if distance.get(following) == distance[state] - 1:
                found[state] = bytes([byte]) + found[following]
                break
    return found


def _distances_to_acceptance(dfa: Dfa) -> dict[int, int]:
    predecessors: list[set[int]] = [set() for _ in range(dfa.num_states)]
    for state, row in enumerate(dfa.transitions):
        for target in row:
            predecessors[target].add(state)
    distance = dict.fromkeys(dfa.accepting, 0)
    queue = deque(sorted(dfa.accepting))
    while queue:
        state = queue.popleft()
        for source in predecessors[state]:
            if source not in distance:
                distance[source] = distance[state] + 1
                queue.append(source)
    return distance


def nearest_live_byte(dfa: Dfa, state: int, byte: int) -> int | None:
    """The byte nearest ``byte`` (the lower one on a tie) that ``state`` does not send to the
    dead state, or None."""
    for distance in range(1, 256):
        for candidate in (byte - distance, byte + distance):
            if 0 <= candidate <= 255 and dfa.transitions[state][dfa.byte_class[candidate]] != dfa.dead:
                return candidate
    return None


def count_by_length(dfa: Dfa, max_length: int, spend: Spend | None = None) -> list[int]:
    """``counts[n]``: how many inputs of exactly ``n`` bytes ``dfa`` accepts, for n = 0..max_length."""
    return count_paths(dfa.classes, dfa.transitions, dfa.start, dfa.dead, dfa.accepting.__contains__,
                       max_length, spend)


def count_paths(classes: tuple[Ranges, ...], rows, start: int, dead: int, accepts: Callable[[int], bool],
                max_length: int, spend: Spend | None = None) -> list[int]:
    """``counts[n]``: how many inputs of ``n`` bytes lead from ``start`` to a state ``accepts``
    holds for (dynamic programming over lengths, each class weighted by its number of bytes);
    ``rows`` are a DFA's transitions or a product's pair rows.  ``spend`` is charged a step per
    transition followed and one more per 512 bits of the counts carried along it (counts of
    inputs of ``n`` bytes have up to ``8n`` bits, and adding them takes time in proportion)."""
    sizes = [sum(hi - lo + 1 for lo, hi in ranges) for ranges in classes]
    reaching = {start: 1}
    counts = []
    for length in range(max_length + 1):
        counts.append(sum(n for state, n in reaching.items() if accepts(state)))
        if length == max_length:
            break
        following: dict[int, int] = {}
        for state, n in reaching.items():
            if state == dead:
                continue
            if spend is not None:
                spend(len(sizes) * (1 + length // 64))
            for cls, target in enumerate(rows[state]):
                if target != dead:
                    following[target] = following.get(target, 0) + n * sizes[cls]
        reaching = following
    return counts


def bounded(dfa: Dfa, max_length: int) -> Dfa:
    """The DFA of the inputs of at most ``max_length`` bytes that ``dfa`` accepts."""
    if dfa.start == dfa.dead:
        return dfa
    index = {(dfa.dead, 0): 0, (dfa.start, 0): 1}
    pairs = [(dfa.dead, 0), (dfa.start, 0)]
    rows = []
    for state, length in pairs:  # grows while iterating
        row = []
        for target in dfa.transitions[state]:
            pair = (target, length + 1) if target != dfa.dead and length < max_length else (dfa.dead, 0)
            if pair not in index:
                index[pair] = len(pairs)
                pairs.append(pair)
            row.append(index[pair])
        rows.append(tuple(row))
    accepting = frozenset(i for i, (state, _) in enumerate(pairs) if state in dfa.accepting and i != 0)
    return Dfa(dfa.classes, tuple(rows), 1, accepting, 0)


__all__ = [
    "Pairs",
    "access_words",
    "bounded",
    "class_order",
    "completions",
    "count_by_length",
    "count_paths",
    "difference",
    "distinguishing_input",
    "equivalent",
    "nearest_live_byte",
    "pairs",
    "product",
    "shortest_word",
    "shortest_words",
]
