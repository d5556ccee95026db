"""Drawing a grammar's inputs: valid ones uniformly for each length, invalid ones one byte away.

Valid inputs come from the grammar's minimal DFA (a recursive grammar's pushdown validator
unfolded to a nesting depth, :meth:`abnfc.automata.pushdown.Pushdown.unfold`).  The number of
accepted words of each length from each state is counted once by dynamic programming, and a word
is *unranked*: its rank among the accepted words of its length, in byte order, picks at each
step the byte range and then the byte whose words hold that rank (the recursive method of
Nijenhuis and Wilf, "Combinatorial algorithms", 1978, ch. 13; Flajolet, Zimmermann and Van
Cutsem, "A calculus for the random generation of labelled combinatorial structures", TCS 132,
1994).  A uniform rank gives a uniform word of that length; rank 0 is the least word, so a
shrinker that makes the rank and the length smaller makes the word shorter and smaller.

Invalid inputs are made from a valid word so that the DFA refuses them by construction, the
inputs where implementations part from a grammar: at a position, a byte the state there refuses
(the nearest such byte on either side of each range the state takes: one step outside a range),
followed by the rest of the word or by the valid rest nearest in byte order (the greatest after a
byte below a range, the least after one above: the invalid input next to the valid ones, where an
off-by-one bound accepts it), or the word cut where the state is not accepting.

The parts of a grammar that a dialect accepts or refuses (:func:`sub_language`, a product
automaton minimized) are walked where they split one of the grammar's branches
(:func:`splits_branches`: a breadth-first search over the pairs of states the part and the
grammar reach together, looking for two bytes that go to one state of the grammar and to two
live states of the part).

The counts cost states x lengths big integers; :data:`MAX_CELLS` bounds them.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

from ..automata.dfa import Dfa
from ..automata.minimize import canonical, minimize
from ..automata.product import Combine, product
from ..automata.pushdown import Pushdown
from ..charset import contiguous_classes
from ..errors import AbnfError, LimitError
from ..i18n import _
from ..pipeline import Compilation

MAX_CELLS = 4_000_000  # states x (longest + 1) counts held at once
DEFAULT_DEPTH = 4


@dataclass(frozen=True)
class Edge:
    lo: int
    hi: int
    target: int


class Sampler:
    """The words of ``dfa`` (minimal, dead state absorbing) of up to ``longest`` bytes."""

    def __init__(self, dfa: Dfa, longest: int):
        if dfa.num_states * (longest + 1) > MAX_CELLS:
            raise LimitError.at(None, _("drawing inputs of up to {longest} bytes from an automaton of {states} states "
                                        "needs more than {limit:,} counts; draw shorter inputs").format(
                                            longest=longest, states=dfa.num_states, limit=MAX_CELLS))
        self.dfa = dfa
        self.longest = longest
        self.edges = [self._edges(state) for state in range(dfa.num_states)]

    def _edges(self, state: int) -> list[Edge]:
        """The byte ranges ``state`` takes to a live state, in byte order."""
        row = self.dfa.transitions[state]
        found = [Edge(lo, hi, row[cls]) for cls, ranges in enumerate(self.dfa.classes) for lo, hi in ranges
                 if row[cls] != self.dfa.dead]
        return sorted(found, key=lambda edge: edge.lo)

    @cached_property
    def branches(self) -> list[list[list[Edge]]]:
        """Each state's edges grouped by the state they lead to (the ranges of one branch), the
        groups in the byte order of their first range."""
        grouped: list[list[list[Edge]]] = []
        for edges in self.edges:
            by_target: dict[int, list[Edge]] = {}
            for edge in edges:
                by_target.setdefault(edge.target, []).append(edge)
            grouped.append(list(by_target.values()))
        return grouped

    @cached_property
    def counts(self) -> list[list[int]]:
        """``counts[n][s]``: the accepted words of ``n`` bytes from state ``s``."""
        dfa = self.dfa
        table = [[int(s in dfa.accepting) for s in range(dfa.num_states)]]
        for _n in range(self.longest):
            previous = table[-1]
            table.append([sum((edge.hi - edge.lo + 1) * previous[edge.target] for edge in self.edges[s])
                          for s in range(dfa.num_states)])
        return table

    @cached_property
    def lengths(self) -> list[int]:
        """The lengths of up to ``longest`` bytes that have an accepted word."""
        return [n for n in range(self.longest + 1) if self.counts[n][self.dfa.start]]

    def words_of_length(self, length: int) -> int:
        return self.counts[length][self.dfa.start]

    def unrank(self, length: int, rank: int) -> bytes:
        """The accepted word of ``length`` bytes with ``rank`` among them in byte order."""
        if not 0 <= rank < self.words_of_length(length):
            raise ValueError(f"rank {rank} out of range for length {length}")
        state, out = self.dfa.start, bytearray()
        for remaining in range(length - 1, -1, -1):
            for edge in self.edges[state]:
                each = self.counts[remaining][edge.target]
                block = (edge.hi - edge.lo + 1) * each
                if rank < block:
                    out.append(edge.lo + rank // each)
                    rank %= each
                    state = edge.target
                    break
                rank -= block
        return bytes(out)

    @cached_property
    def shortest(self) -> list[int]:
        """The length of each state's shortest accepted word (``longest + 1`` where it has none
        within ``longest`` bytes)."""
        return [next((n for n in range(self.longest + 1) if self.counts[n][s]), self.longest + 1)
                for s in range(self.dfa.num_states)]

    def valid(self, rng: random.Random) -> bytes:
        """A word of a uniformly drawn length (among those that have words), uniform among that
        length's words.  Raises ValueError when there is no word of up to ``longest`` bytes."""
        if not self.lengths:
            raise ValueError(f"no accepted word of at most {self.longest} bytes")
        length = rng.choice(self.lengths)
        return self.unrank(length, rng.randrange(self.words_of_length(length)))

    def refused_bytes(self, state: int) -> list[int]:
        """Bytes ``state`` refuses next to the ranges it takes (one step outside each), or its
        least refused byte when those are taken; [] when it takes every byte."""
        taken = [(edge.lo, edge.hi) for edge in self.edges[state]]
        row, dead = self.dfa.transitions[state], self.dfa.dead
        refused = {b for lo, hi in taken for b in (lo - 1, hi + 1)
                   if 0 <= b <= 0xFF and row[self.dfa.byte_class[b]] == dead}
        if not refused:
            refused = {next((b for b in range(256) if row[self.dfa.byte_class[b]] == dead), -1)} - {-1}
        return sorted(refused)

    def near_miss(self, word: bytes, position: int, choice: int) -> bytes | None:
        """``word`` with a refused byte at ``position`` (``choice`` picks among them), the rest of
        the word kept or, the second way, made the nearest in byte order: after a byte just below
        a range the greatest words of the rest's length, after one just above the least (from
        the state the nearest byte taken leads to), so that the input is next to the valid words
        in byte order, as F0 8F BF BF is to F0 90 80 80; or the word cut at ``position`` when
        that state is not accepting (``choice`` past those).  None when none applies there."""
        state = self.dfa.trace(word[:position])[-1]
        refused = self.refused_bytes(state)
        options = 2 * len(refused) + (state not in self.dfa.accepting)
        if options == 0:
            return None
        choice %= options
        if choice >= 2 * len(refused):
            return word[:position]
        byte, rest = refused[choice % len(refused)], word[position + 1:]
        if choice >= len(refused):
            rest = self.adjacent(state, byte, len(rest)) or rest
        return word[:position] + bytes([byte]) + rest

    def adjacent(self, state: int, byte: int, length: int) -> bytes | None:
        """The greatest (``byte`` below the nearest byte ``state`` takes) or least word of
        ``length`` bytes accepted from where that nearest byte leads; None when there is none."""
        edges = self.edges[state]
        if not edges:
            return None
        nearest = min((edge.lo if byte < edge.lo else edge.hi for edge in edges), key=lambda b: (abs(b - byte), b))
        target = self.dfa.transitions[state][self.dfa.byte_class[nearest]]
        if length > self.longest or not self.counts[length][target]:
            return None
        highest, out = byte < nearest, bytearray()
        for remaining in range(length - 1, -1, -1):
            for edge in (reversed(self.edges[target]) if highest else self.edges[target]):
                if self.counts[remaining][edge.target]:
                    out.append(edge.hi if highest else edge.lo)
                    target = edge.target
                    break
        return bytes(out)


def sub_language(dfa: Dfa, other: Dfa, keep: Combine, max_pairs: int, max_work: int) -> Dfa:
    """The minimal DFA of the words ``keep(dfa accepts, other accepts)`` holds for (a part of
    ``dfa``'s language when ``keep`` implies its first argument); LimitError past ``max_pairs``
    pairs of states or ``max_work`` steps of minimizing."""
    return canonical(minimize(product(dfa, other, keep, max_pairs), max_work))


def splits_branches(part: Dfa, dfa: Dfa) -> bool:
    """Whether ``part`` (a sub-language of ``dfa``'s) sets apart bytes that ``dfa`` takes to the
    same state: two bytes it takes to different live states where ``dfa`` has one branch for
    both, as a dialect's range 00-60 splits the grammar's 2DIGIT into 0-5 and 6.  A part that
    only leaves some of ``dfa``'s bytes out has no branch, and no range edge, of its own."""
    lows = [ranges[0][0] for ranges in contiguous_classes([*part.classes, *dfa.classes])]
    start = (part.start, dfa.start)
    seen, queue = {start}, [start]
    for ours, theirs in queue:  # grows while iterating
        targets: dict[int, int] = {}
        for low in lows:
            following = part.transitions[ours][part.byte_class[low]]
            if following == part.dead:
                continue
            grammar = dfa.transitions[theirs][dfa.byte_class[low]]
            if targets.setdefault(grammar, following) != following:
                return True
            if (following, grammar) not in seen:
                seen.add((following, grammar))
                queue.append((following, grammar))
    return False


def automaton(compilation: Compilation, depth: int = DEFAULT_DEPTH) -> Dfa:
    """The grammar's minimal DFA, or its pushdown validator unfolded to ``depth`` and minimized."""
    if compilation.resolved.is_regular:
        return compilation.minimal
    pushdown = compilation.pushdown
    if not isinstance(pushdown, Pushdown):
        raise AbnfError.at(None, _("the grammar is recursive and has no pushdown validator, so no inputs can be "
                                   "drawn from it"))
    limits = compilation.limits
    return canonical(minimize(pushdown.unfold(depth, limits.max_dfa_states), limits.max_work))
