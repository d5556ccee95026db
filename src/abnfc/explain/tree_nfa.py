"""The tree NFA of a grammar without recursion: a Thompson NFA whose epsilon moves mark where
each rule's alternative begins and ends, so that a path over the input spells a derivation
(Dubé and Feeley 2000, "Efficiently building a parse tree from a regular expression", Acta
Informatica 37).  Every rule is copied in where it is referred to; a rule met again while it is
being copied is recursion, and the grammar is left to the tree search (:class:`NotRegular`), as
is an NFA beyond the state limit.

A repetition may repeat an element that matches the empty string (``*( *"a" )``).  As in the
tree search of :mod:`.search`, an iteration beyond the minimum must read something: the element
is built twice, "nothing read yet" and "read something", byte moves lead from the first copy
into the second, and only the second leads back to the loop; empty iterations only pad up to
the minimum, after the iterations that read.  So the epsilon moves form no cycle, each
derivation is one path, and :mod:`.trellis` can count paths.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from ..errors import InvariantError
from ..frontend import ir
from ..frontend.resolve import ResolvedGrammar
from .search import rule_alternatives


class NotRegular(Exception):
    """The grammar recurses, or its NFA with every rule copied in is beyond the state limit."""


@dataclass(frozen=True)
class Enter:
    """An epsilon move into alternative ``alternative`` (0-based) of rule ``key``."""

    key: str
    alternative: int
    alternatives: int


EXIT = "exit"  # the epsilon move out of a rule
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
