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

Two grammars' languages (:func:`compare_languages`) are compared through their minimal DFAs; where
one is recursive, through both DFAs cut to the shorter length bound, and the differences are then
grouped by where and why the refusing grammar itself rejects them (cut DFAs die early on inputs
that cannot be completed within the bound, so where they part is not where the languages do).
"""
from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..automata.dfa import Dfa
from ..automata.product import Pairs, Spend, completions, count_paths, pairs, shortest_words
from ..charset import Ranges, normalize
from ..errors import InvariantError, Meter, limit_error
from ..i18n import N_

if TYPE_CHECKING:
    from .language import Language

EXCEEDED = limit_error(N_("comparing the two grammars took more than {limit:,} steps (--max-work: pairs of "
                          "states times byte classes, while building the product and counting inputs); raise "
                          "the limit if this is intended"))


@dataclass(frozen=True)
class Difference:
    only_in_a: bool  # the inputs through it are in A's language and not in B's
    examples: tuple[bytes, ...]  # the shortest through it, then the one with the highest byte
    offset: int  # of the parting byte in the examples; len(example) when they part at the end; -1: unknown
    ranges: Ranges  # the bytes at the parting point (empty at the end)


@dataclass(frozen=True)
class Comparison:
    differences: tuple[Difference, ...]  # shortest example first; with a listing limit, the first ones
    counts: tuple[tuple[int, int, int], ...]  # (length, only in A, only in B), lengths 0..N
    found: tuple[int, int] = (0, 0)  # how many differences there are only in A, only in B

    @property
    def equal(self) -> bool:
        return not self.differences


def compare(a: Dfa, b: Dfa, count_to: int, max_pairs: int | None = None, max_work: int | None = None,
            listed: int | None = None) -> Comparison:
    """The differences of ``a`` and ``b`` (with ``listed``, only the first ``listed`` on each
    side, all being counted) and the counts of inputs of each length up to ``count_to`` that
    only one accepts.  The product is at most ``max_pairs`` pairs of states, and building it and
    counting take at most ``max_work`` steps (LimitError beyond either)."""
    spend = Meter(max_work, EXCEEDED).spend if max_work is not None else None
    together = pairs(a, b, max_pairs, spend)
    kept: tuple[list[Difference], list[Difference]] = ([], [])
    found = [0, 0]
    for difference in _differences(a, b, together):
        side = 0 if difference.only_in_a else 1
        found[side] += 1
        kept[side].append(difference)
        if listed is not None and len(kept[side]) > 2 * listed:  # keep the list short as it grows
            kept[side][:] = heapq.nsmallest(listed, kept[side], key=_order)
    shown = [d for side in kept for d in (heapq.nsmallest(listed, side, key=_order) if listed is not None else side)]
    parted = any((left in a.accepting) != (right in b.accepting) for left, right in together.pairs)
    InvariantError.check(bool(shown) == parted, "the differences found disagree with the product automaton")
    return Comparison(tuple(sorted(shown, key=_order)), _counts(a, b, together, count_to, spend),
                      (found[0], found[1]))


def _order(difference: Difference) -> tuple[int, bytes]:
    return len(difference.examples[0]), difference.examples[0]


def _differences(a: Dfa, b: Dfa, together: Pairs) -> Iterator[Difference]:
    """Every difference, once, in no particular order (see the module's docstring)."""
    access = shortest_words(together.classes, together.rows, together.start)  # of each pair
    ends = (completions(a), completions(b))
    yield from _at_the_start(a, b, ends)
    for index, word in access.items():
        left, right = together.pairs[index]
        if left == a.dead or right == b.dead:
            continue
        if (left in a.accepting) != (right in b.accepting):
            yield Difference(left in a.accepting, (word,), len(word), ())
        keyed: dict[tuple[int, bool], list[tuple[int, int]]] = {}  # (target, side) -> byte ranges
        for cls, target in enumerate(together.rows[index]):
            to_left, to_right = together.pairs[target]
            if (to_left == a.dead) != (to_right == b.dead):
                only_a = to_right == b.dead
                if (to_left if only_a else to_right) in ends[0 if only_a else 1]:
                    keyed.setdefault((target, only_a), []).extend(together.classes[cls])
        for (target, only_a), ranges in keyed.items():
            ending = ends[0 if only_a else 1][together.pairs[target][0 if only_a else 1]]
            merged = normalize(ranges)
            examples = tuple(dict.fromkeys(word + bytes([byte]) + ending for byte in (merged[0][0], merged[-1][1])))
            yield Difference(only_a, examples, len(word), merged)


def _counts(a: Dfa, b: Dfa, together: Pairs, count_to: int, spend: Spend | None) -> tuple[tuple[int, int, int], ...]:
    """(length, only in A, only in B) for lengths 0..count_to, by dynamic programming over the pairs."""
    def only(first: frozenset[int], second: frozenset[int], side: int) -> list[int]:
        return count_paths(together.classes, together.rows, together.start, 0,
                           lambda i: together.pairs[i][side] in first and together.pairs[i][1 - side] not in second,
                           count_to, spend)
    in_a, in_b = only(a.accepting, b.accepting, 0), only(b.accepting, a.accepting, 1)
    return tuple((n, in_a[n], in_b[n]) for n in range(count_to + 1))


def _at_the_start(a: Dfa, b: Dfa, ends: tuple[dict[int, bytes], dict[int, bytes]]) -> list[Difference]:
    """One language empty from the start (its start state is dead), the other not."""
    if (a.start == a.dead) == (b.start == b.dead):
        return []
    only_a = b.start == b.dead
    example = ends[0 if only_a else 1].get(a.start if only_a else b.start)
    return [] if example is None else [Difference(only_a, (example,), len(example), ())]




def compare_languages(a: Language, b: Language, count_to: int, max_pairs: int | None, max_work: int | None,
                      listed: int) -> tuple[Comparison, int | None]:
    """The differences of two grammars' languages (at least ``listed`` of each side found) and the
    length bound they were compared up to (None: exactly)."""
    dfa_a, dfa_b, bound = _comparable(a, b)
    if bound is None:
        return compare(dfa_a, dfa_b, count_to, max_pairs, max_work, listed=listed), None
    comparison = compare(dfa_a, dfa_b, min(count_to, bound), max_pairs, max_work, listed=None)
    return _merge_by_exact_failure(comparison, a, b), bound


def _comparable(a: Language, b: Language) -> tuple[Dfa, Dfa, int | None]:
    """The two DFAs to compare and the length bound (None: exact)."""
    from ..automata.product import bounded

    if a.exact and b.exact:
        return a.minimal, b.minimal, None
    bound = min(language.bounded.bound for language in (a, b) if language.bounded is not None)
    return bounded(a.minimal, bound), bounded(b.minimal, bound), bound


def _merge_by_exact_failure(comparison: Comparison, a: Language, b: Language) -> Comparison:
    """Differences grouped by where and why the refusing grammar itself (interpreter or exact DFA)
    rejects them, with no parting offset (-1): where two bounded DFAs part is not where the
    languages do."""
    kept: dict[tuple, Difference] = {}
    for difference in comparison.differences:
        refuses = b if difference.only_in_a else a
        key = (difference.only_in_a, _failure(refuses, difference.examples[0]))
        if key not in kept:
            kept[key] = replace(difference, offset=-1)
    merged = tuple(kept.values())
    found = (sum(d.only_in_a for d in merged), sum(not d.only_in_a for d in merged))
    return replace(comparison, differences=merged, found=found)


def _failure(language: Language, data: bytes) -> tuple:
    """Where and why ``language`` rejects ``data``, as a key."""
    from ..interpret import recognize

    if language.exact:
        dfa = language.minimal
        states = dfa.trace(data)
        if states[-1] == dfa.dead:
            return ("byte", states[-2], dfa.byte_class[data[len(states) - 2]])
        return ("end", states[-1])
    verdict = recognize(language.resolved, data)
    return ("end" if verdict.end_of_input else "byte", verdict.expected)
