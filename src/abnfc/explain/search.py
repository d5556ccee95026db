"""Derivation trees of an input, built by a memoised top-down search over the grammar's IR.

``abnfc explain`` asks the interpreter whether an input matches; this module then finds out how.
It answers three questions about the input ``data``, each memoised per grammar node and offset
(:mod:`.fixpoint` resolves left recursion and cycles of nullable rules to their least fixed
point):

    ends(x, i)        the offsets where node x can end when it starts at offset i
    derives(x, i, j)  whether x derives exactly data[i:j]
    nexts(x, i)       the terminals that could read the byte after the data, where x starts at
                      offset i and has read the rest of the data (for a rejected input's prefix)

``derives`` is asked with both ends known, so the last item of a concatenation and the last
iteration of an optional group are looked up with their end fixed: a right-recursive list
(``list = item [ "," list ]``) then costs a constant per item instead of the quadratic sets
``ends`` would make.  Repetitions are searched breadth first over (offset, iterations), so a
long ``*( UTF8-char )`` needs no deep recursion.  Iterations that match the empty string are
only used to reach a repetition's minimum.  ``ends`` asks only ``ends``; ``derives`` and
``nexts`` ask ``ends`` and themselves: so no memoised answer rests on the approximation of a
question still in progress in another memo.  :mod:`.trees` builds derivation trees from the
answers.
"""
from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import assert_never

from .. import graph
from ..errors import InvariantError, LimitError, Meter
from ..frontend import ast, ir
from ..frontend.ir import Origin
from ..frontend.productive import productive_rules
from ..frontend.resolve import ResolvedGrammar
from .fixpoint import Fixpoint

NOTHING: frozenset = frozenset()


def rule_alternatives(grammar: ResolvedGrammar, key: str) -> tuple[ir.Node, ...]:
    """The IR of each alternative of rule ``key``, as the grammar writes them."""
    definition, body = grammar.rule(key).definition, grammar.ir[key]
    count = len(definition.alternatives) if isinstance(definition, ast.Alternation) else 1
    found = (body,) if count == 1 else body.items if isinstance(body, ir.Alt) else ()
    InvariantError.check(len(found) == count, f"rule {key!r} lowered to other alternatives")
    return found


MAX_ANSWERS = 2_000_000  # memoised answers kept at most: about 600 MB (300 bytes each, measured on JSON)


class SearchLimitError(LimitError):
    """The search took more than ``limit`` steps."""

    def __init__(self, steps: int, limit: int):
        self.steps, self.limit = steps, limit
        super().__init__([])


class SearchMemoryError(LimitError):
    """The search would keep more than ``limit`` memoised answers."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__([])


@dataclass(frozen=True, slots=True)
class Leaf:
    """A terminal of the grammar that read the byte at ``offset``."""

    origin: Origin
    offset: int


@dataclass(frozen=True, slots=True)
class Derivation:
    """Rule ``rule`` derived data[start:end] by its alternative ``alternative`` (1-based, of
    ``alternatives``); ``complete`` is False for a rule still open at the end of a prefix."""

    rule: str
    alternative: int
    alternatives: int
    start: int
    end: int
    children: tuple[Derivation | Leaf, ...] = field(repr=False)
    complete: bool = True

    def walk(self) -> Iterator[Derivation | Leaf]:
        """Every node under this one (itself included), in pre-order, without recursion."""
        return graph.preorder(self, _children)


def _children(node: Derivation | Leaf) -> tuple[Derivation | Leaf, ...]:
    return node.children if isinstance(node, Derivation) else ()


@dataclass(frozen=True)
class Ambiguity:
    """Two different derivations of the same rule over the same bytes."""

    first: Derivation
    second: Derivation


Choice = tuple[Hashable, ...]  # a choice point of a search: node, kind, offsets


class Search:
    """The three questions above about ``data``, and trees built from their answers."""

    def __init__(self, grammar: ResolvedGrammar, data: bytes, max_work: int, max_answers: int | None = None):
        self.grammar = grammar
        self.data = data
        self.meter = Meter(max_work, SearchLimitError)
        # memory: the three memos together keep at most max_answers answers
        answers = Meter(MAX_ANSWERS if max_answers is None else max_answers,
                        lambda spent, limit: SearchMemoryError(limit))
        self._ends: Fixpoint[frozenset[int]] = Fixpoint(self._compute_ends, NOTHING, self.meter, answers)
        self._derives: Fixpoint[bool] = Fixpoint(self._compute_derives, False, self.meter, answers)
        # terminals by identity: two equal terminals written in two places are two positions
        self._nexts: Fixpoint[frozenset[int]] = Fixpoint(self._compute_nexts, NOTHING, self.meter, answers)
        self._nodes: dict[int, ir.Node] = {}
        self._alternatives: dict[str, tuple[ir.Node, ...]] = {}
        self._masks: dict[int, int] = {}  # terminal -> bit set of the bytes it reads
        self._productive_rules = productive_rules(grammar.ir)
        self._productive: dict[int, bool] = {}
        self.ambiguity: tuple[tuple[str, int, int], Choice] | None = None

    # -- the questions -----------------------------------------------------------------------

    def ends(self, node: ir.Node, i: int) -> frozenset[int]:
        followed = self._follow(node)
        if followed is None:
            return NOTHING
        node = followed
        if isinstance(node, ir.Terminal):
            return frozenset((i + 1,)) if i < len(self.data) and self._reads(node, i) else NOTHING
        return self._ends.get((self._key(node), i))

    def derives(self, node: ir.Node, i: int, j: int) -> bool:
        followed = self._follow(node)
        if followed is None:
            return False
        node = followed
        if isinstance(node, ir.Terminal):
            return j == i + 1 and i < len(self.data) and self._reads(node, i)
        return self._derives.get((self._key(node), 0, i, j))

    def nexts(self, node: ir.Node, i: int) -> frozenset[int]:
        followed = self._follow(node)
        if followed is None:
            return NOTHING
        node = followed
        if isinstance(node, ir.Terminal):
            return frozenset((self._key(node),)) if i == len(self.data) else NOTHING
        return self._nexts.get((self._key(node), 0, i))

    def _follow(self, node: ir.Node) -> ir.Node | None:
        """The node a reference stands for, through rules that are just a reference to another
        rule; None for a cycle of such rules (``a = b``, ``b = a``), which matches nothing."""
        seen: set[str] = set()
        while isinstance(node, ir.Ref):
            if node.key in seen:
                return None
            seen.add(node.key)
            node = self.grammar.ir[node.key]
        return node

    def _key(self, node: ir.Node) -> int:
        """The memo key of a node: its id (hashing the frozen IR would walk it); references are
        followed before this, so the memo holds rule bodies and the nodes inside them."""
        self._nodes[id(node)] = node  # kept alive while its id is a key
        return id(node)

    def _reads(self, node: ir.Terminal, i: int) -> bool:
        mask = self._masks.get(id(node))
        if mask is None:
            mask = sum((1 << (hi + 1)) - (1 << lo) for lo, hi in node.ranges)
            self._masks[id(node)] = mask
            self._nodes[id(node)] = node  # kept alive while its id is a key
        return bool(mask >> self.data[i] & 1)

    def _compute_ends(self, key) -> frozenset[int]:
        node, i = self._nodes[key[0]], key[1]
        self.meter.spend()
        match node:
            case ir.Alt():
                found: set[int] = set()
                for item in node.items:
                    found |= self.ends(item, i)
                return frozenset(found)
            case ir.Seq():
                positions = frozenset((i,))
                for item in node.items:
                    following: set[int] = set()
                    for p in positions:
                        reached = self.ends(item, p)
                        self.meter.spend(len(reached))  # the work of the union, and what it stores
                        following |= reached
                    self.meter.spend(len(positions))
                    positions = frozenset(following)
                return positions
            case ir.Repeat():
                states = self.iterations(node, i, None)
                # asked through ends, not derives: an answer of one memo must never rest on the
                # approximation of a question in progress in the other
                nullable = i in self.ends(node.item, i) if node.min else True
                return frozenset(p for p, c in states if c >= node.min or nullable)
            case ir.Terminal() | ir.Ref():
                raise InvariantError("terminals and references are answered without the memo")
            case _:
                assert_never(node)

    def _compute_derives(self, key) -> bool:
        node, extra, i, j = self._nodes[key[0]], key[1], key[2], key[3]
        self.meter.spend()
        match node:
            case ir.Alt():
                return any(self.derives(item, i, j) for item in node.items)
            case ir.Seq():
                return bool(self.splits(node, extra, i, j)) if node.items else i == j
            case ir.Repeat():
                return bool(self.finals(node, j, self.iterations(node, i, j)))
            case ir.Terminal() | ir.Ref():
                raise InvariantError("terminals and references are answered without the memo")
            case _:
                assert_never(node)

    def derives_rest(self, node: ir.Seq, index: int, i: int, j: int) -> bool:
        """Whether items ``index``.. of ``node`` derive data[i:j]."""
        if index == len(node.items):
            return i == j
        if index == len(node.items) - 1:
            return self.derives(node.items[index], i, j)
        return self._derives.get((self._key(node), index, i, j))

    def splits(self, node: ir.Seq, index: int, i: int, j: int) -> list[int]:
        """The ends of item ``index`` after which the items that follow derive the rest up to ``j``."""
        if index == len(node.items) - 1:
            return [j] if self.derives(node.items[index], i, j) else []
        ends = sorted(k for k in self.ends(node.items[index], i) if k <= j)
        self.meter.spend(len(ends))
        return [k for k in ends if self.derives_rest(node, index + 1, k, j)]

    def _compute_nexts(self, key) -> frozenset[int]:
        node, extra, i = self._nodes[key[0]], key[1], key[2]
        self.meter.spend()
        match node:
            case ir.Alt():
                return frozenset().union(*(self.nexts(item, i) for item in node.items))
            case ir.Seq():
                if extra >= len(node.items) or not all(self.productive(rest) for rest in node.items[extra + 1:]):
                    return NOTHING  # what follows can never match: nothing here leads to a match
                item = node.items[extra]
                found = set(self.nexts(item, i))
                if extra + 1 < len(node.items):
                    for k in self.ends(item, i):
                        found |= self.nexts_rest(node, extra + 1, k)
                return frozenset(found)
            case ir.Repeat():
                found = set()
                for p, c in self.iterations(node, i, None):
                    if node.max is None or c < node.max:
                        found |= self.nexts(node.item, p)
                return frozenset(found)
            case ir.Terminal() | ir.Ref():
                raise InvariantError("terminals and references are answered without the memo")
            case _:
                assert_never(node)

    def nexts_rest(self, node: ir.Seq, index: int, i: int) -> frozenset[int]:
        """What items ``index``.. of ``node`` could read next, starting at ``i``."""
        if not node.items:
            return NOTHING
        return self._nexts.get((self._key(node), index, i))

    def productive(self, node: ir.Node) -> bool:
        """Whether ``node`` matches some string (rules recursing with no way out match none):
        positions inside what cannot match are not expected, as the interpreter and the DFA
        (trimmed) do not expect them."""
        found = self._productive.get(id(node))
        if found is None:
            match node:
                case ir.Terminal():
                    found = bool(node.ranges)
                case ir.Ref():
                    found = node.key in self._productive_rules
                case ir.Seq():
                    found = all(self.productive(item) for item in node.items)
                case ir.Alt():
                    found = any(self.productive(item) for item in node.items)
                case ir.Repeat():
                    found = node.min == 0 or self.productive(node.item)
                case _:
                    assert_never(node)
            self._productive[id(node)] = found
            self._nodes[id(node)] = node  # kept alive while its id is a key
        return found

    # -- repetitions -------------------------------------------------------------------------

    def iterations(self, node: ir.Repeat, i: int, j: int | None) -> dict[tuple[int, int], list]:
        """The states (offset, iterations so far) a repetition starting at ``i`` reaches by
        iterations that read something, each with its predecessors; up to ``j`` when given.
        Unbounded repetitions count iterations only up to their minimum.  With ``j`` given, the
        last iteration of a bounded repetition is looked up with its end fixed."""
        cap = node.min if node.max is None else node.max
        states: dict[tuple[int, int], list[tuple[int, int]]] = {(i, 0): []}
        by_offset: dict[int, list[int]] = {i: [0]}
        heap = [i]
        while heap:  # every iteration reads something, so offsets are finished in increasing order
            p = heapq.heappop(heap)
            pending = by_offset[p]
            self.meter.spend(len(pending))
            for c in sorted(pending):
                if node.max is not None and c >= node.max:
                    continue
                following = min(c + 1, cap)
                if j is not None and node.max is not None and c + 1 == node.max:
                    ends = [j] if j > p and self.derives(node.item, p, j) else []
                else:
                    ends = sorted(k for k in self.ends(node.item, p) if k > p and (j is None or k <= j))
                self.meter.spend(len(ends))  # each end is an edge stored with its predecessor
                for k in ends:
                    if k not in by_offset:
                        by_offset[k] = []
                        heapq.heappush(heap, k)
                    target = (k, following)
                    if target not in states:
                        states[target] = []
                        by_offset[k].append(following)
                    states[target].append((p, c))
        return states

    def finals(self, node: ir.Repeat, j: int, states) -> list[tuple[int, int]]:
        """The states at ``j`` that complete the repetition, padding with empty iterations up to
        the minimum where the element matches the empty string."""
        at_end = sorted((p, c) for p, c in states if p == j)
        if any(c < node.min for _, c in at_end) and not self.derives(node.item, j, j):
            at_end = [(p, c) for p, c in at_end if c >= node.min]
        return at_end

    # -- the grammar as written ----------------------------------------------------------------

    def alternatives(self, key: str) -> tuple[ir.Node, ...]:
        """The IR of each alternative of rule ``key``, as the grammar writes them."""
        found = self._alternatives.get(key)
        if found is None:
            found = self._alternatives[key] = rule_alternatives(self.grammar, key)
        return found

    def expected(self) -> list[ir.Terminal]:
        """The terminals that could read the byte after the data."""
        found = (self._nodes[key] for key in self.nexts(ir.Ref(self.grammar.start), 0))
        return [node for node in found if isinstance(node, ir.Terminal)]
