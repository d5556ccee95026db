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
long ``*( UTF8-char )`` needs no deep recursion.  A tree is built from the top, taking at each
choice (an alternative, where a concatenation splits, which iterations a repetition makes) the
first option that derives its span, and checking whether a second one does: if no choice of the
tree has two options, the input has exactly one derivation; otherwise the first such choice is
rebuilt with its second option to show a second derivation.  Iterations that match the empty
string are only used to reach a repetition's minimum, and are not counted as other derivations.
"""
from __future__ import annotations

import heapq
from collections.abc import Hashable
from dataclasses import dataclass, field

from ..errors import InvariantError, LimitError
from ..frontend import ast, ir
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar
from .fixpoint import Fixpoint, Meter

NOTHING: frozenset = frozenset()


class SearchLimitError(LimitError):
    """The search took more than ``limit`` steps."""

    def __init__(self, steps: int, limit: int):
        self.steps, self.limit = steps, limit
        super().__init__([])


@dataclass(frozen=True)
class Leaf:
    """A terminal of the grammar that read the byte at ``offset``."""

    origin: Origin
    offset: int


@dataclass(frozen=True)
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

    def walk(self):
        """Every node under this one (itself included), in pre-order, without recursion."""
        stack: list[Derivation | Leaf] = [self]
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, Derivation):
                stack.extend(reversed(node.children))


@dataclass(frozen=True)
class Ambiguity:
    """Two different derivations of the same rule over the same bytes."""

    first: Derivation
    second: Derivation


Choice = tuple[Hashable, ...]  # a choice point of a search: node, kind, offsets


class Search:
    """The three questions above about ``data``, and trees built from their answers."""

    def __init__(self, grammar: ResolvedGrammar, data: bytes, max_work: int):
        self.grammar = grammar
        self.data = data
        self.meter = Meter(max_work, SearchLimitError)
        self._ends: Fixpoint[frozenset[int]] = Fixpoint(self._compute_ends, NOTHING, self.meter)
        self._derives: Fixpoint[bool] = Fixpoint(self._compute_derives, False, self.meter)
        self._nexts: Fixpoint[frozenset[ir.Terminal]] = Fixpoint(self._compute_nexts, NOTHING, self.meter)
        self._nodes: dict[int, ir.Node] = {}
        self._alternatives: dict[str, tuple[ir.Node, ...]] = {}
        self._masks: dict[int, int] = {}  # terminal -> bit set of the bytes it reads
        self.ambiguity: tuple[tuple[str, int, int], Choice] | None = None

    # -- the questions -----------------------------------------------------------------------

    def ends(self, node: ir.Node, i: int) -> frozenset[int]:
        while isinstance(node, ir.Ref):
            node = self.grammar.ir[node.key]
        if isinstance(node, ir.Terminal):
            return frozenset((i + 1,)) if i < len(self.data) and self._reads(node, i) else NOTHING
        return self._ends.get((self._key(node), i))

    def derives(self, node: ir.Node, i: int, j: int) -> bool:
        while isinstance(node, ir.Ref):
            node = self.grammar.ir[node.key]
        if isinstance(node, ir.Terminal):
            return j == i + 1 and i < len(self.data) and self._reads(node, i)
        return self._derives.get((self._key(node), 0, i, j))

    def nexts(self, node: ir.Node, i: int) -> frozenset[ir.Terminal]:
        while isinstance(node, ir.Ref):
            node = self.grammar.ir[node.key]
        if isinstance(node, ir.Terminal):
            return frozenset((node,)) if i == len(self.data) else NOTHING
        return self._nexts.get((self._key(node), 0, i))

    def _key(self, node: ir.Node) -> int:
        self._nodes[id(node)] = node  # kept alive while its id is a key
        return id(node)

    def _reads(self, node: ir.Terminal, i: int) -> bool:
        mask = self._masks.get(id(node))
        if mask is None:
            mask = sum((1 << (hi + 1)) - (1 << lo) for lo, hi in node.ranges)
            self._masks[id(node)] = mask
            self._nodes[id(node)] = node  # kept alive while its id is a key
        return bool(mask >> self.data[i] & 1)

    def body(self, node: ir.Ref) -> ir.Node:
        return self.grammar.ir[node.key]

    def _compute_ends(self, key) -> frozenset[int]:
        node, i = self._nodes[key[0]], key[1]
        self.meter.spend()
        if isinstance(node, ir.Ref):
            return self.ends(self.body(node), i)
        if isinstance(node, ir.Alt):
            found: set[int] = set()
            for item in node.items:
                found |= self.ends(item, i)
            return frozenset(found)
        if isinstance(node, ir.Seq):
            positions = frozenset((i,))
            for item in node.items:
                following: set[int] = set()
                for p in positions:
                    following |= self.ends(item, p)
                self.meter.spend(len(positions))
                positions = frozenset(following)
            return positions
        if isinstance(node, ir.Repeat):
            states = self._iterations(node, i, None)
            nullable = self.derives(node.item, i, i) if node.min else True
            return frozenset(p for p, c in states if c >= node.min or nullable)
        raise InvariantError(f"unknown IR node {node!r}")

    def _compute_derives(self, key) -> bool:
        node, extra, i, j = self._nodes[key[0]], key[1], key[2], key[3]
        self.meter.spend()
        if isinstance(node, ir.Ref):
            return self.derives(self.body(node), i, j)
        if isinstance(node, ir.Alt):
            return any(self.derives(item, i, j) for item in node.items)
        if isinstance(node, ir.Seq):
            return bool(self.splits(node, extra, i, j)) if node.items else i == j
        if isinstance(node, ir.Repeat):
            return bool(self._finals(node, j, self._iterations(node, i, j)))
        raise InvariantError(f"unknown IR node {node!r}")

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

    def _compute_nexts(self, key) -> frozenset[ir.Terminal]:
        node, extra, i = self._nodes[key[0]], key[1], key[2]
        self.meter.spend()
        if isinstance(node, ir.Ref):
            return self.nexts(self.body(node), i)
        if isinstance(node, ir.Alt):
            return frozenset().union(*(self.nexts(item, i) for item in node.items))
        if isinstance(node, ir.Seq):
            if extra >= len(node.items):
                return NOTHING
            item = node.items[extra]
            found = set(self.nexts(item, i))
            if extra + 1 < len(node.items):
                for k in self.ends(item, i):
                    found |= self.nexts_rest(node, extra + 1, k)
            return frozenset(found)
        if isinstance(node, ir.Repeat):
            found = set()
            for p, c in self._iterations(node, i, None):
                if node.max is None or c < node.max:
                    found |= self.nexts(node.item, p)
            return frozenset(found)
        raise InvariantError(f"unknown IR node {node!r}")

    def nexts_rest(self, node: ir.Seq, index: int, i: int) -> frozenset[ir.Terminal]:
        """What items ``index``.. of ``node`` could read next, starting at ``i``."""
        if not node.items:
            return NOTHING
        return self._nexts.get((self._key(node), index, i))

    # -- repetitions -------------------------------------------------------------------------

    def _iterations(self, node: ir.Repeat, i: int, j: int | None) -> dict[tuple[int, int], list]:
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

    def _finals(self, node: ir.Repeat, j: int, states) -> list[tuple[int, int]]:
        """The states at ``j`` that complete the repetition, padding with empty iterations up to
        the minimum where the element matches the empty string."""
        at_end = sorted((p, c) for p, c in states if p == j)
        if any(c < node.min for _, c in at_end) and not self.derives(node.item, j, j):
            at_end = [(p, c) for p, c in at_end if c >= node.min]
        return at_end

    # -- trees -------------------------------------------------------------------------------

    def alternatives(self, key: str) -> tuple[ir.Node, ...]:
        """The IR of each alternative of rule ``key``, as the grammar writes them."""
        found = self._alternatives.get(key)
        if found is None:
            definition, body = self.grammar.rule(key).definition, self.grammar.ir[key]
            count = len(definition.alternatives) if isinstance(definition, ast.Alternation) else 1
            found = (body,) if count == 1 else body.items if isinstance(body, ir.Alt) else ()
            InvariantError.check(len(found) == count, f"rule {key!r} lowered to other alternatives")
            self._alternatives[key] = found
        return found

    def tree(self, override: dict[Choice, int] | None = None) -> Derivation | None:
        """A derivation of all of the data from the start rule, or None if there is none."""
        return _Builder(self, override or {}).rule(self.grammar.start, 0, len(self.data))

    def rebuild(self, key: str, i: int, j: int, override: dict[Choice, int]) -> Derivation | None:
        return _Builder(self, override).rule(key, i, j)

    def open_tree(self) -> Derivation | None:
        """A derivation of the data as the beginning of something the start rule derives, one
        that could go on with a byte; None if nothing can follow the data."""
        return _Builder(self, {}).open_rule(self.grammar.start, 0)

    def expected(self) -> frozenset[ir.Terminal]:
        """The terminals that could read the byte after the data."""
        return self.nexts(ir.Ref(self.grammar.start), 0)


class _Builder:
    """Builds one tree top-down; records the first choice with two options (an ambiguity)."""

    def __init__(self, search: Search, override: dict[Choice, int]):
        self.search = search
        self.override = override
        self.path: set[tuple[str, int, int]] = set()  # rules being built, to stay out of cycles

    def options(self, choice: Choice, viable: list, context: tuple[str, int, int]) -> list:
        """``viable`` in the order to try them; the first choice with two options is recorded."""
        if len(viable) > 1 and context is not None and not self.override and self.search.ambiguity is None:
            self.search.ambiguity = (context, choice)
        taken = self.override.get(choice)
        if taken is not None and taken < len(viable):
            return [viable[taken], *viable[:taken], *viable[taken + 1:]]
        return viable

    def rule(self, key: str, i: int, j: int) -> Derivation | None:
        here = (key, i, j)
        if here in self.path:
            return None
        search = self.search
        alternatives = search.alternatives(key)
        viable = [a for a, body in enumerate(alternatives) if search.derives(body, i, j)]
        self.path.add(here)
        try:
            for a in self.options(("rule", *here), viable, here):
                children = self.node(alternatives[a], i, j, here)
                if children is not None:
                    return Derivation(search.grammar.rule(key).name, a + 1, len(alternatives), i, j, tuple(children))
            return None
        finally:
            self.path.discard(here)

    def node(self, node: ir.Node, i: int, j: int, context) -> list | None:
        search = self.search
        search.meter.spend()
        if isinstance(node, ir.Terminal):
            return [Leaf(node.origin, i)]
        if isinstance(node, ir.Ref):
            found = self.rule(node.key, i, j)
            return None if found is None else [found]
        if isinstance(node, ir.Alt):
            viable = [item for item in node.items if search.derives(item, i, j)]
            for item in self.options(("alt", id(node), i, j), viable, context):
                children = self.node(item, i, j, context)
                if children is not None:
                    return children
            return None
        if isinstance(node, ir.Seq):
            return self.sequence(node, 0, i, j, context)
        if isinstance(node, ir.Repeat):
            return self.repetition(node, i, j, context)
        raise InvariantError(f"unknown IR node {node!r}")

    def sequence(self, node: ir.Seq, index: int, i: int, j: int, context) -> list | None:
        if index == len(node.items):
            return [] if i == j else None
        for k in self.options(("seq", id(node), index, i, j), self.search.splits(node, index, i, j), context):
            left = self.node(node.items[index], i, k, context)
            right = None if left is None else self.sequence(node, index + 1, k, j, context)
            if right is not None:
                return left + right  # type: ignore[operator]
        return None

    def repetition(self, node: ir.Repeat, i: int, j: int, context) -> list | None:
        search = self.search
        states = search._iterations(node, i, j)
        finals = search._finals(node, j, states)
        if not finals:
            return None
        state = self.options(("end", id(node), i, j), finals, context)[0]
        spans = [(j, j)] * max(0, node.min - state[1])  # empty iterations up to the minimum
        while state != (i, 0):
            before = self.options(("rep", id(node), i, j, state), states[state], context)[0]
            spans.append((before[0], state[0]))
            state = before
        children: list = []
        for start, end in reversed(spans):
            found = self.node(node.item, start, end, context)
            if found is None:
                return None
            children += found
        return children

    # -- the open trees of a prefix ----------------------------------------------------------

    def open_rule(self, key: str, i: int) -> Derivation | None:
        search = self.search
        alternatives = search.alternatives(key)
        for a, body in enumerate(alternatives):
            if search.nexts(body, i):
                children = self.open(body, i)
                if children is not None:
                    return Derivation(search.grammar.rule(key).name, a + 1, len(alternatives), i,
                                      len(search.data), tuple(children), complete=False)
        return None

    def open(self, node: ir.Node, i: int) -> list | None:
        """Children that read data[i:], the last of them still open; [] if nothing is read."""
        search = self.search
        search.meter.spend()
        if isinstance(node, ir.Terminal):
            return []
        if isinstance(node, ir.Ref):
            if i == len(search.data):
                return []
            found = self.open_rule(node.key, i)
            return None if found is None else [found]
        if isinstance(node, ir.Alt):
            for item in node.items:
                if search.nexts(item, i):
                    return self.open(item, i)
            return None
        if isinstance(node, ir.Seq):
            return self.open_sequence(node, 0, i)
        if isinstance(node, ir.Repeat):
            return self.open_repetition(node, i)
        raise InvariantError(f"unknown IR node {node!r}")

    def open_sequence(self, node: ir.Seq, index: int, i: int) -> list | None:
        search = self.search
        if not node.items:
            return None
        item = node.items[index]
        if index + 1 < len(node.items):
            for k in sorted(search.ends(item, i), reverse=True):  # as much complete as can be
                if search.nexts_rest(node, index + 1, k):
                    left = self.node(item, i, k, None)
                    right = None if left is None else self.open_sequence(node, index + 1, k)
                    if right is not None:
                        return left + right  # type: ignore[operator]
        return self.open(item, i) if search.nexts(item, i) else None

    def open_repetition(self, node: ir.Repeat, i: int) -> list | None:
        search = self.search
        states = search._iterations(node, i, None)
        candidates = [state for state in states if (node.max is None or state[1] < node.max)
                      and search.nexts(node.item, state[0])]
        if not candidates:
            return None
        state = max(candidates)
        last = state[0]
        spans = []
        while state != (i, 0):
            before = states[state][0]
            spans.append((before[0], state[0]))
            state = before
        children: list = []
        for start, end in reversed(spans):
            found = self.node(node.item, start, end, None)
            if found is None:
                return None
            children += found
        tail = self.open(node.item, last)
        return None if tail is None else children + tail
