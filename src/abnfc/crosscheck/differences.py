"""Where two languages differ: distinct differences, their shortest inputs, counts by length.

The pairs of states of the two minimal DFAs reachable together (:func:`abnfc.automata.product.
pairs`) are searched breadth first, so every pair gets its shortest (then least) input.  A
*difference* is where the two part:

* a transition that one DFA takes to its dead state while the other goes on to a state that can
  still accept, in a pair where neither was dead before; differences with the same pair of
  states before and after are one difference, whatever the bytes;
* or a pair of live states of which exactly one accepts (the inputs that end there).

Every input accepted by exactly one side passes through exactly one difference first, so the
differences cover the two languages' symmetric difference, and each is shown by the shortest
input through it: the pair's input, then the difference's lowest (and highest) byte, then the
shortest completion on the side that goes on.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..automata.product import completions, count_by_length, difference, distinguishing_input, pairs, shortest_words
from ..charset import Ranges, normalize
from ..errors import InvariantError


@dataclass(frozen=True)
class Difference:
    only_in_a: bool  # the inputs through it are in A's language and not in B's
    examples: tuple[bytes, ...]  # the shortest through it, then the one with the highest byte
    offset: int  # of the parting byte in the examples; len(example) when they part at the end; -1: unknown
    ranges: Ranges  # the bytes at the parting point (empty at the end)


@dataclass(frozen=True)
class Comparison:
    differences: tuple[Difference, ...]  # shortest example first
    counts: tuple[tuple[int, int, int], ...]  # (length, only in A, only in B), lengths 0..N

    @property
    def equal(self) -> bool:
        return not self.differences


def compare(a: Dfa, b: Dfa, count_to: int) -> Comparison:
    together = pairs(a, b)
    access = shortest_words(together.classes, together.rows, together.start)  # of each pair
    ends = (completions(a), completions(b))
    keyed: dict[tuple, list[tuple[int, int]]] = {}  # (pair, target, side) -> byte ranges
    found: list[Difference] = _at_the_start(a, b, ends)
    for index in sorted(access, key=lambda i: (len(access[i]), access[i])):
        left, right = together.pairs[index]
        if left == a.dead or right == b.dead:
            continue
        if (left in a.accepting) != (right in b.accepting):
            found.append(Difference(left in a.accepting, (access[index],), len(access[index]), ()))
        for cls, target in enumerate(together.rows[index]):
            to_left, to_right = together.pairs[target]
            if (to_left == a.dead) != (to_right == b.dead):
                only_a = to_right == b.dead
                if (to_left if only_a else to_right) in ends[0 if only_a else 1]:
                    keyed.setdefault((index, target, only_a), []).extend(together.classes[cls])
    for (index, target, only_a), ranges in keyed.items():
        to_state = together.pairs[target][0 if only_a else 1]
        ending = ends[0 if only_a else 1][to_state]
        merged = normalize(ranges)
        lowest, highest = merged[0][0], merged[-1][1]
        examples = tuple(dict.fromkeys(access[index] + bytes([byte]) + ending for byte in (lowest, highest)))
        found.append(Difference(only_a, examples, len(access[index]), merged))
    found.sort(key=lambda d: (len(d.examples[0]), d.examples[0]))
    InvariantError.check(bool(found) == (distinguishing_input(a, b) is not None),
                         "the differences found disagree with the product automaton")
    in_a, in_b = count_by_length(difference(a, b), count_to), count_by_length(difference(b, a), count_to)
    counts = tuple((n, in_a[n], in_b[n]) for n in range(count_to + 1))
    return Comparison(tuple(found), counts)


def _at_the_start(a: Dfa, b: Dfa, ends: tuple[dict[int, bytes], dict[int, bytes]]) -> list[Difference]:
    """One language empty from the start (its start state is dead), the other not."""
    if (a.start == a.dead) == (b.start == b.dead):
        return []
    only_a = b.start == b.dead
    example = ends[0 if only_a else 1].get(a.start if only_a else b.start)
    return [] if example is None else [Difference(only_a, (example,), len(example), ())]


