"""Derivation trees in time linear in the input, for grammars without recursion: a path through
an NFA whose epsilon moves mark where each rule's alternative begins and ends.

This is the method of Dubé and Feeley (2000), "Efficiently building a parse tree from a regular
expression" (Acta Informatica 37), on the tree NFA of :mod:`.tree_nfa`: a path over the input
spells a derivation -- the markers on its epsilon moves open and close the rules' nodes, and
each byte move is a terminal reading a byte.  Three passes, each a dictionary look-up per byte
once its tables are cached:

1. forward: the set of NFA states after each prefix (the subset construction run lazily: one id
   per offset; each set and each move between sets is built once);
2. backward: for each state of those sets, how many paths lead from it to the end, counted up
   to :data:`MAX_COUNTED`, one table per (set, table after it, byte);
3. a walk from the start taking at each choice the first option with a path to the end -- or,
   for path number r, the option that the counts say holds it (the usual unranking of paths by
   their counts).

Two paths can make the same tree: the tree shows rules and terminals, not where a repetition's
iterations split (``2( *"a" )`` reads ``aa`` as 2+0, 1+1 or 0+2 with one tree).  A second
derivation is looked for among the first :data:`MAX_COUNTED` paths, so an ambiguity that is
reported is real; one whose first paths all make the same tree is not reported.

The tree NFA has no cycle of epsilon moves, so the counts are finite.  Grammars with recursion,
and inputs whose sets of states pass the DFA state limit, are left to the tree search
(:class:`NotRegular`).
"""
from __future__ import annotations

from array import array

from ..errors import InvariantError, Meter
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar
from .search import Derivation, Leaf
from .tree_nfa import Enter, Marker, NotRegular, TreeNfa, build

MAX_COUNTED = 8  # paths are counted up to this many

__all__ = ["MAX_COUNTED", "NotRegular", "Paths", "TreeNfa", "build"]


class Paths:
    """The paths of ``nfa`` over ``data`` that end in the accepting state (``open`` False) or,
    for the prefix of a rejected input (``open`` True), at a state that could read another byte
    on the way to a match."""

    def __init__(self, nfa: TreeNfa, grammar: ResolvedGrammar, data: bytes, open_: bool, meter: Meter,
                 max_sets: int):
        self.nfa, self.grammar, self.data, self.open, self.meter = nfa, grammar, data, open_, meter
        self.max_sets = max_sets
        self.set_ids: dict[frozenset[int], int] = {}
        self.sets: list[tuple[int, ...]] = []  # each set's states, the last in topological order first
        self.steps: dict[tuple[int, int], int] = {}
        self.count_ids: dict[tuple[tuple[int, int], ...], int] = {}
        self.counts: list[dict[int, int]] = []
        self.count_steps: dict[tuple[int, int, int], int] = {}
        self.segments: dict[tuple[int, int, int, bool], tuple] = {}
        self.offsets = self._forward()
        self.tables = self._backward() if self.offsets is not None else None

    @property
    def total(self) -> int:
        """How many paths there are, up to :data:`MAX_COUNTED`."""
        if self.tables is None:
            return 0
        return self.counts[self.tables[0]].get(self.nfa.start, 0)

    # -- pass 1: the sets of states after each prefix -----------------------------------------

    def _forward(self) -> array | None:
        current = self._intern(self._closure({self.nfa.start}))
        offsets = array("l", [current])
        for byte in self.data:
            following = self.steps.get((current, byte))
            if following is None:
                reads = self.nfa.reads
                kernel = {move[1] for state in self.sets[current]
                          if (move := reads[state]) is not None and move[0] >> byte & 1}
                following = self._intern(self._closure(kernel))
                self.steps[(current, byte)] = following
            self.meter.spend()
            if not self.sets[following]:
                return None
            offsets.append(following)
            current = following
        return offsets

    def _closure(self, states: set[int]) -> frozenset[int]:
        stack, found = list(states), set(states)
        while stack:
            for target, _ in self.nfa.epsilon[stack.pop()]:
                if target not in found:
                    found.add(target)
                    stack.append(target)
        self.meter.spend(len(found))
        return frozenset(s for s in found if s in self.nfa.live)

    def _intern(self, states: frozenset[int]) -> int:
        found = self.set_ids.get(states)
        if found is None:
            if len(self.sets) >= self.max_sets:
                raise NotRegular
            found = self.set_ids[states] = len(self.sets)
            self.sets.append(tuple(sorted(states, key=self.nfa.rank.__getitem__, reverse=True)))
        return found

    # -- pass 2: how many paths lead on from each state ---------------------------------------

    def _backward(self) -> array:
        offsets, data = self.offsets, self.data
        assert offsets is not None
        last = len(data)
        tables = array("l", [0]) * (last + 1)
        tables[last] = self._intern_counts(self._count(offsets[last], None, -1))
        for k in range(last - 1, -1, -1):
            key = (offsets[k], tables[k + 1], data[k])
            found = self.count_steps.get(key)
            if found is None:
                found = self.count_steps[key] = self._intern_counts(
                    self._count(offsets[k], self.counts[tables[k + 1]], data[k]))
            self.meter.spend()
            tables[k] = found
        return tables

    def _count(self, set_id: int, after: dict[int, int] | None, byte: int) -> dict[int, int]:
        nfa, counts = self.nfa, dict[int, int]()
        for state in self.sets[set_id]:  # successors first
            total = sum(counts.get(target, 0) for target, _ in nfa.epsilon[state])
            move = nfa.reads[state]
            if after is None:
                total += self._ends_here(state)
            elif move is not None and move[0] >> byte & 1:
                total += after.get(move[1], 0)
            if total:
                counts[state] = min(total, MAX_COUNTED)
        self.meter.spend(len(self.sets[set_id]))
        return counts

    def _ends_here(self, state: int) -> int:
        if self.open:
            return int(self.nfa.reads[state] is not None)
        return int(state == self.nfa.accept)

    def _intern_counts(self, counts: dict[int, int]) -> int:
        key = tuple(sorted(counts.items()))
        found = self.count_ids.get(key)
        if found is None:
            found = self.count_ids[key] = len(self.counts)
            self.counts.append(counts)
        return found

    # -- pass 3: one path, as a derivation -----------------------------------------------------

    def ends(self) -> list[Origin]:
        """The grammar positions a path can end at: for a prefix, those that could read the next
        byte on the way to a match."""
        if self.tables is None:
            return []
        counts, reads = self.counts[self.tables[-1]], self.nfa.reads
        return [move[2].origin for state in counts if self._ends_here(state)
                and (move := reads[state]) is not None]

    def derivation(self, rank: int = 0) -> Derivation:
        """The derivation of path number ``rank`` (below :attr:`total`)."""
        InvariantError.check(rank < self.total, "a path beyond the count of paths")
        assert self.tables is not None
        tree = _TreeMaker(self.grammar)
        state, last = self.nfa.start, len(self.data)
        for k in range(last + 1):
            markers, state, rank = self._segment(self.tables[k], state, rank, k == last)
            for marker in markers:
                tree.mark(marker, k)
            if k < last:
                reader = self.nfa.reads[state]
                assert reader is not None
                tree.leaf(reader[2].origin, k)
                state = reader[1]
            self.meter.spend()
        return tree.finish(last)

    def _segment(self, table: int, state: int, rank: int, at_end: bool) -> tuple:
        """The epsilon moves from ``state`` to the state that reads the next byte (or ends the
        path), by path rank: (their markers, that state, the rank among the paths from it)."""
        key = (table, state, rank, at_end)
        found = self.segments.get(key)
        if found is not None:
            return found
        counts, markers = self.counts[table], []
        while True:
            if at_end and self._ends_here(state):
                if rank == 0:
                    break
                rank -= 1
            options = [(target, marker) for target, marker in self.nfa.epsilon[state] if counts.get(target)]
            for target, marker in options:
                if rank < counts[target]:
                    markers.append(marker)
                    state = target
                    break
                rank -= counts[target]
            else:
                InvariantError.check(not at_end, "a path ran out of moves")
                break  # the state that reads the next byte
        found = self.segments[key] = (tuple(m for m in markers if m is not None), state, rank)
        return found


class _TreeMaker:
    """Derivations from a path's markers and leaves, with a stack of the rules open."""

    def __init__(self, grammar: ResolvedGrammar):
        self.grammar = grammar
        self.open: list[tuple[Enter, int, list]] = []
        self.root: Derivation | None = None

    def mark(self, marker: Marker, offset: int) -> None:
        if isinstance(marker, Enter):
            self.open.append((marker, offset, []))
        else:
            self.close(offset, complete=True)

    def leaf(self, origin: Origin, offset: int) -> None:
        self.open[-1][2].append(Leaf(origin, offset))

    def close(self, offset: int, complete: bool) -> None:
        enter, start, children = self.open.pop()
        found = Derivation(self.grammar.rule(enter.key).name, enter.alternative + 1, enter.alternatives,
                           start, offset, tuple(children), complete)
        if self.open:
            self.open[-1][2].append(found)
        else:
            self.root = found

    def finish(self, offset: int) -> Derivation:
        """The tree; rules still open end at ``offset`` incomplete, and those that begin there
        (nothing read in them yet) are left out, as the tree search leaves them out."""
        while len(self.open) > 1 and self.open[-1][1] == offset:
            self.open.pop()
        while self.open:
            self.close(offset, complete=False)
        assert self.root is not None
        return self.root
