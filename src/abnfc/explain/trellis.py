"""Derivation trees in time linear in the input, for grammars without recursion: a path through
an NFA whose epsilon moves mark where each rule's alternative begins and ends.

This is the method of Dubé and Feeley (2000), "Efficiently building a parse tree from a regular
expression" (Acta Informatica 37): a Thompson NFA of the grammar, every rule copied in where it
is referred to, in which a path over the input spells a derivation -- the markers on its epsilon
moves open and close the rules' nodes, and each byte move is a terminal reading a byte.  Three
passes, each a dictionary look-up per byte once its tables are cached:

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

A repetition may repeat an element that matches the empty string (``*( *"a" )``).  As in the
tree search of :mod:`.search`, an iteration beyond the minimum must read something: the element
is built twice, "nothing read yet" and "read something", byte moves lead from the first copy
into the second, and only the second leads back to the loop.  So the epsilon moves form no
cycle, each derivation is one path, and the counts are finite.

Grammars with recursion, and NFAs beyond the state limit, are left to the tree search
(:class:`NotRegular`).
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import assert_never

from ..errors import InvariantError, Meter
from ..frontend import ir
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar
from .search import Derivation, Leaf, rule_alternatives


class NotRegular(Exception):
    """The grammar recurses, or its NFA with every rule copied in is beyond the state limit."""


@dataclass(frozen=True)
class Enter:
    """An epsilon move into alternative ``alternative`` (0-based) of rule ``key``."""

    key: str
    alternative: int
    alternatives: int


EXIT = "exit"  # the epsilon move out of a rule
MAX_COUNTED = 8  # paths are counted up to this many
Marker = Enter | str | None
Read = tuple[int, int, ir.Terminal]  # the bytes (a bit set), the target state, the terminal


@dataclass(frozen=True)
class TreeNfa:
    start: int
    accept: int
    epsilon: tuple[tuple[tuple[int, Marker], ...], ...]  # per state, in order of preference
    reads: tuple[Read | None, ...]
    live: frozenset[int]  # the states from which the accepting state can be reached
    rank: tuple[int, ...]  # per state, its place in a topological order of the epsilon moves


def build(grammar: ResolvedGrammar, max_states: int) -> TreeNfa:
    """The tree NFA of ``grammar``'s start rule; :class:`NotRegular` if there is none."""
    builder = _Builder(grammar, max_states)
    start, accept = builder.rule(grammar.start)
    epsilon = tuple(tuple(moves) for moves in builder.epsilon)
    reads = tuple(builder.reads)
    return TreeNfa(start, accept, epsilon, reads, _live(epsilon, reads, accept), _ranks(epsilon))


class _Builder:
    def __init__(self, grammar: ResolvedGrammar, max_states: int):
        self.grammar = grammar
        self.max_states = max_states
        self.epsilon: list[list[tuple[int, Marker]]] = []
        self.reads: list[Read | None] = []
        self.active: set[str] = set()  # rules being copied in: meeting one again is recursion
        self.nullable_rules: dict[str, bool] = {}

    def new(self) -> int:
        if len(self.epsilon) >= self.max_states:
            raise NotRegular
        self.epsilon.append([])
        self.reads.append(None)
        return len(self.epsilon) - 1

    def link(self, source: int, target: int, marker: Marker = None) -> None:
        self.epsilon[source].append((target, marker))

    def rule(self, key: str) -> tuple[int, int]:
        if key in self.active:
            raise NotRegular
        self.active.add(key)
        try:
            alternatives = rule_alternatives(self.grammar, key)
            start, end = self.new(), self.new()
            for a, body in enumerate(alternatives):
                first, last = self.node(body)
                self.link(start, first, Enter(key, a, len(alternatives)))
                self.link(last, end, EXIT)
            return start, end
        finally:
            self.active.discard(key)

    def node(self, node: ir.Node) -> tuple[int, int]:
        match node:
            case ir.Terminal():
                start, end = self.new(), self.new()
                mask = sum((1 << (hi + 1)) - (1 << lo) for lo, hi in node.ranges)
                self.reads[start] = (mask, end, node)
                return start, end
            case ir.Ref():
                return self.rule(node.key)
            case ir.Seq():
                start = end = self.new()
                for item in node.items:
                    first, last = self.node(item)
                    self.link(end, first)
                    end = last
                return start, end
            case ir.Alt():
                start, end = self.new(), self.new()
                for item in node.items:
                    first, last = self.node(item)
                    self.link(start, first)
                    self.link(last, end)
                return start, end
            case ir.Repeat():
                return self.repeat(node)
            case _:
                assert_never(node)

    def repeat(self, node: ir.Repeat) -> tuple[int, int]:
        """Iterations that read something, then -- only where the element matches the empty
        string and the minimum is not reached -- empty iterations up to the minimum, as in
        the tree search: where the empty ones go is not a choice between derivations."""
        start = end = self.new()
        exit_ = self.new()
        padding = self.padding(node.item, node.min, exit_) if node.min and self.nullable(node.item) else []
        for index in range(node.min):
            if padding:
                self.link(end, padding[index])  # the fewest iterations first, as the tree search's first tree
            first, last = self.iteration(node.item)
            self.link(end, first)
            end = last
        if node.max is None:
            junction = self.new()
            self.link(end, junction)
            first, last = self.iteration(node.item)
            self.link(junction, exit_)
            self.link(junction, first)
            self.link(last, junction)
            return start, exit_
        for _ in range(node.max - node.min):
            self.link(end, exit_)
            first, last = self.iteration(node.item)
            self.link(end, first)
            end = last
        self.link(end, exit_)
        return start, exit_

    def padding(self, item: ir.Node, count: int, exit_: int) -> list[int]:
        """A chain of ``count`` empty derivations of ``item`` ending at ``exit_``; entering at
        index i derives it empty ``count - i`` times."""
        starts, ends = [], []
        for _ in range(count):
            built = len(self.epsilon)
            first, last = self.node(item)
            for state in range(built, len(self.epsilon)):
                self.reads[state] = None  # only its empty derivations are left
            starts.append(first)
            ends.append(last)
        for last, following in zip(ends, [*starts[1:], exit_], strict=True):
            self.link(last, following)
        return starts

    def iteration(self, item: ir.Node) -> tuple[int, int]:
        """An iteration beyond the minimum: one that reads something."""
        if not self.nullable(item):
            return self.node(item)
        fresh = len(self.epsilon)
        first, _ = self.node(item)
        read = len(self.epsilon)
        _, last = self.node(item)
        shift = read - fresh
        InvariantError.check(len(self.epsilon) - read == shift, "the two copies of an iteration differ")
        for state in range(fresh, read):  # a byte read in the first copy moves into the second
            move = self.reads[state]
            if move is not None:
                self.reads[state] = (move[0], move[1] + shift, move[2])
        return first, last  # the first copy's end leads nowhere: an empty iteration stops

    def nullable(self, node: ir.Node) -> bool:
        match node:
            case ir.Terminal():
                return False
            case ir.Ref():
                found = self.nullable_rules.get(node.key)
                if found is None:
                    if node.key in self.active:
                        raise NotRegular
                    self.active.add(node.key)
                    try:
                        found = self.nullable(self.grammar.ir[node.key])
                    finally:
                        self.active.discard(node.key)
                    self.nullable_rules[node.key] = found
                return found
            case ir.Seq():
                return all(self.nullable(item) for item in node.items)
            case ir.Alt():
                return any(self.nullable(item) for item in node.items)
            case ir.Repeat():
                return node.min == 0 or self.nullable(node.item)
            case _:
                assert_never(node)


def _live(epsilon, reads, accept: int) -> frozenset[int]:
    before: list[list[int]] = [[] for _ in epsilon]
    for state, moves in enumerate(epsilon):
        for target, _ in moves:
            before[target].append(state)
        if reads[state] is not None:
            before[reads[state][1]].append(state)
    live, stack = {accept}, [accept]
    while stack:
        for source in before[stack.pop()]:
            if source not in live:
                live.add(source)
                stack.append(source)
    return frozenset(live)


def _ranks(epsilon) -> tuple[int, ...]:
    """A topological order of the epsilon moves (they form no cycle, by construction)."""
    rank = [-1] * len(epsilon)
    order: list[int] = []
    for root in range(len(epsilon)):
        if rank[root] != -1:
            continue
        rank[root] = -2
        stack = [(root, iter(epsilon[root]))]
        while stack:
            state, moves = stack[-1]
            for target, _ in moves:
                if rank[target] == -1:
                    rank[target] = -2
                    stack.append((target, iter(epsilon[target])))
                    break
                InvariantError.check(rank[target] != -2, "an epsilon cycle in the tree NFA")
            else:
                stack.pop()
                rank[state] = len(order)
                order.append(state)
    return tuple(len(order) - 1 - r for r in rank)  # sources first


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
