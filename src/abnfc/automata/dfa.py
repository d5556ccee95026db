"""Subset construction: NFA -> complete DFA over byte classes, and the frozen :class:`Dfa` type.

Rabin and Scott (1959), "Finite automata and their decision problems": each DFA state is the
epsilon closure of a set of NFA states.  The alphabet is the partition of 0..255 cut at every
range boundary of the NFA (:mod:`abnfc.charset`), so a state has one transition per class, not
per byte.  A subset's transitions are gathered from the sparse (class, target) moves of its NFA
states, so their cost is that of the edges followed, not subset size times classes.  The
construction stops with an error as soon as it passes ``max_states`` DFA states or ``max_work``
steps (NFA states, edges and closure members visited), so exponential blow-ups fail fast: both
the time and the memory of the construction are proportional to the steps taken.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property

from ..charset import Ranges, class_map, contiguous_classes, is_partition
from ..errors import InvariantError, LimitError, Meter, limit_error
from ..frontend.ir import Origin
from ..i18n import N_, _
from .nfa import Nfa

DEFAULT_MAX_DFA_STATES = 20_000
DEFAULT_MAX_WORK = 20_000_000


@dataclass(frozen=True)
class Dfa:
    """A complete DFA over byte classes.

    ``classes[c]`` lists the byte ranges of class ``c``; ``transitions[s][c]`` is the next
    state; ``dead`` is a non-accepting state that only leads to itself.  ``origins[s]`` holds the
    grammar positions state ``s`` stands for (empty tuple when not tracked).
    """

    classes: tuple[Ranges, ...]
    transitions: tuple[tuple[int, ...], ...]
    start: int
    accepting: frozenset[int]
    dead: int
    origins: tuple[frozenset[Origin], ...] = field(default=(), compare=False)

    def __post_init__(self):
        states = len(self.transitions)
        check = InvariantError.check
        check(is_partition(self.classes), "DFA classes must partition 0..255")
        check(all(len(row) == len(self.classes) for row in self.transitions), "a DFA row has the wrong length")
        check(all(0 <= t < states for row in self.transitions for t in row), "a DFA target is out of range")
        check(0 <= self.start < states and 0 <= self.dead < states, "DFA start or dead state out of range")
        check(self.dead not in self.accepting and set(self.transitions[self.dead]) == {self.dead},
              "the DFA's dead state accepts or leaves itself")
        check(not self.origins or len(self.origins) == states, "DFA origins differ in length")

    @property
    def num_states(self) -> int:
        return len(self.transitions)

    @property
    def num_classes(self) -> int:
        return len(self.classes)

    @cached_property
    def byte_class(self) -> bytes:
        return class_map(self.classes)

    def first_error(self, data: bytes) -> int | None:
        """None if ``data`` is in the language, else where the DFA dies or ``len(data)``."""
        state, byte_class = self.start, self.byte_class
        for offset, byte in enumerate(data):
            state = self.transitions[state][byte_class[byte]]
            if state == self.dead:
                return offset
        return None if state in self.accepting else len(data)

    def matches(self, data: bytes) -> bool:
        return self.first_error(data) is None

    def trace(self, data: bytes) -> list[int]:
        """The state before each byte and after the last one or the one the DFA dies on."""
        states, state, byte_class = [self.start], self.start, self.byte_class
        for byte in data:
            state = self.transitions[state][byte_class[byte]]
            states.append(state)
            if state == self.dead:
                break
        return states


def determinize(nfa: Nfa, max_states: int = DEFAULT_MAX_DFA_STATES,
                max_work: int = DEFAULT_MAX_WORK) -> Dfa:
    meter = Meter(max_work, EXCEEDED)
    classes = contiguous_classes(ranges for edges in nfa.edges for ranges, _ in edges)
    moves = _moves_by_class(nfa, classes, meter)
    closure = _Closure(nfa, meter)
    dead_set: frozenset[int] = frozenset()
    start_set = closure.of([nfa.start])
    index = {dead_set: 0, start_set: len({dead_set, start_set}) - 1}
    subsets = list(index)
    transitions: list[tuple[int, ...]] = []
    for subset in subsets:  # grows while iterating: breadth-first
        targets: dict[int, list[int]] = {}
        for state in subset:
            meter.spend(1 + len(moves[state]))
            for cls, target in moves[state]:
                targets.setdefault(cls, []).append(target)
        row = [0] * len(classes)
        for cls, reached in targets.items():
            following = closure.of(reached)
            if following not in index:
                if len(index) >= max_states:
                    raise LimitError.at(None, _("the DFA needs more than {limit} states; raise the limit "
                                                "with --max-dfa-states if this is intended").format(limit=max_states))
                index[following] = len(index)
                subsets.append(following)
            row[cls] = index[following]
        transitions.append(tuple(row))
    accepting = frozenset(i for i, subset in enumerate(subsets) if nfa.accept in subset)
    origins = tuple(frozenset(origin for s in subset if (origin := nfa.origins[s]) is not None)
                    for subset in subsets)
    return Dfa(classes, tuple(transitions), index[start_set], accepting, 0, origins)


# The construction's steps are NFA states and edges visited and closure states merged.
EXCEEDED = limit_error(N_("the subset construction took more than {limit:,} steps (NFA states, edges and "
                          "closures visited); the grammar's DFA is too large to build quickly; raise the "
                          "limit with --max-work if this is intended"))


def _moves_by_class(nfa: Nfa, classes: tuple[Ranges, ...], meter: Meter) -> list[tuple[tuple[int, int], ...]]:
    """``moves[s]``: the (byte class, NFA state) pairs of ``s``'s transitions, one per class a
    transition covers; sparse, since most states read one byte or one range."""
    byte_class = class_map(classes)
    moves = []
    for edges in nfa.edges:
        pairs = [(cls, target) for ranges, target in edges for lo, hi in ranges
                 for cls in range(byte_class[lo], byte_class[hi] + 1)]
        meter.spend(1 + len(pairs))
        moves.append(tuple(pairs))
    return moves


MEMO_MAX = 16  # NFA states in a set whose closure is remembered


class _Closure:
    """Epsilon closures of sets of NFA states, by one depth-first search over the whole set.

    Closing the states one at a time (even memoised) costs the sum of their closures, which
    overlap heavily when many alternatives lead to the same place (``256( %x00 / ... / %xFF )``);
    one search with a shared visited set costs the size of their union.  Only states that read
    a byte, and the accepting state, are kept: the others do not change what a subset does, and
    dropping them merges subsets that differ only in them.
    """

    def __init__(self, nfa: Nfa, meter: Meter):
        self.epsilon = nfa.epsilon
        self.meter = meter
        self.important = [bool(edges) for edges in nfa.edges]
        self.important[nfa.accept] = True
        self.known: dict[frozenset[int], frozenset[int]] = {}

    def of(self, states: Collection[int]) -> frozenset[int]:
        """The closure of ``states``, each distinct small set searched once: the sets of targets
        of a subset's classes repeat across classes and subsets (every letter of a name reaches
        the same few states), and a dictionary lookup costs far less than the search.  Large sets
        rarely repeat and are searched each time, so that the memo does not double the memory."""
        if len(states) > MEMO_MAX:
            return self._search(states)
        self.meter.spend(len(states))
        key = frozenset(states)
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = self._search(key)
        return found

    def _search(self, states: Collection[int]) -> frozenset[int]:
        seen = set(states)
        stack = list(seen)
        steps = 0
        epsilon = self.epsilon
        while stack:
            targets = epsilon[stack.pop()]
            steps += 1 + len(targets)
            for target in targets:
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        self.meter.spend(steps)
        important = self.important
        return frozenset(state for state in seen if important[state])
