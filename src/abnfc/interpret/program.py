"""The grammar as the interpreter runs it: flat node records and what is known about them.

Built once per resolved grammar from its IR (:mod:`abnfc.frontend.ir`), with its own analyses
and none of the compiler's code, so that the interpreter stays an independent check of the
compiler.  Rules are expanded in place (``Ref``) except a few recursive ones (``Call``), enough
that no cycle of in-place references makes the continuation grow (:func:`cut_rules`).  A reference
in tail position (nothing of its rule follows it) keeps its continuation, so right recursion
such as ``list = item [ "," list ]`` is expanded in place as a loop -- a tail call becomes a
jump -- and needs no graph-structured stack at all.  The analyses are least fixed points over a
post-order of the nodes: which nodes can match anything at all (*productive*), which can match
the empty string (*nullable*) and which leaves can read a node's first byte (*FIRST*).  Bytes
that no leaf tells apart share a class, so the recogniser's transition rows are as short as the
grammar allows.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, assert_never

from .. import graph
from ..errors import InvariantError
from ..frontend import ir
from ..frontend.resolve import ResolvedGrammar
from .nodes import Alt, Call, Leaf, Node, Ref, Rep, Seq

T = TypeVar("T")


class Program:
    """Everything about the grammar that does not change while recognising."""

    def __init__(self, grammar: ResolvedGrammar):
        self.nodes: list[Node] = []
        self._unlinked: list[tuple[int, str]] = []  # (node index, rule key) of each Ref
        self.calls = cut_rules(grammar)  # keys of the rules called through the GSS
        self.call_index = {key: i for i, key in enumerate(self.calls)}
        roots = {key: self._compile_rule(grammar.ir[key]) for key in grammar.reachable}
        self._link_references(roots)
        self.call_root = [roots[key] for key in self.calls]
        start_call = self.call_index.get(grammar.start)
        self.start = self._add(Ref(roots[grammar.start]) if start_call is None else Call(start_call))
        self.regular = not self.calls
        successors = {index: self.successors(index) for index in range(len(self.nodes))}
        order = graph.postorder(successors, range(len(self.nodes)))
        self.productive = self._fixpoint(order, False, self._is_productive)
        self.nullable = self._fixpoint(order, False, self._is_nullable)
        self._normalise_repetitions()
        first = self._fixpoint(order, 0, self._first_leaves) if self.calls else []
        self.call_nullable = [self.nullable[root] for root in self.call_root]
        self.call_first = [_bits(first[root]) for root in self.call_root]  # leaf indexes
        self._classify_bytes()

    # -- building ----------------------------------------------------------------------------

    def _add(self, node: Node) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def _compile_rule(self, body: ir.Node) -> int:
        """Post-order over the rule's IR with an explicit stack; returns the root's index."""
        built: list[int] = []
        stack: list[tuple[ir.Node, bool]] = [(body, False)]
        while stack:
            node, ready = stack.pop()
            kids = ir.children(node)
            if kids and not ready:
                stack.append((node, True))
                stack.extend((kid, False) for kid in reversed(kids))
                continue
            args = tuple(built[len(built) - len(kids):])
            del built[len(built) - len(kids):]
            built.append(self._add(self._node(node, args)))
            if isinstance(node, ir.Ref) and node.key not in self.call_index:
                self._unlinked.append((built[-1], node.key))
        return built[0]

    def _node(self, node: ir.Node, args: tuple[int, ...]) -> Node:
        match node:
            case ir.Terminal():
                mask = 0
                for lo, hi in node.ranges:
                    mask |= (1 << (hi + 1)) - (1 << lo)
                return Leaf(mask, node.origin.rule)
            case ir.Seq():
                return Seq(args)
            case ir.Alt():
                return Alt(args)
            case ir.Repeat():
                return Rep(node.min, node.max, args[0])
            case ir.Ref():
                index = self.call_index.get(node.key)
                return Ref(-1) if index is None else Call(index)  # a Ref is linked once every rule is built
            case _:
                assert_never(node)

    def _link_references(self, roots: dict[str, int]) -> None:
        for index, key in self._unlinked:
            self.nodes[index] = Ref(roots[key])

    def successors(self, index: int) -> tuple[int, ...]:
        node = self.nodes[index]
        if isinstance(node, (Seq, Alt)):
            return node.items
        if isinstance(node, Rep):
            return (node.element,)
        if isinstance(node, Ref):
            return (node.target,)
        if isinstance(node, Call):
            return (self.call_root[node.rule],)
        return ()

    # -- analyses ----------------------------------------------------------------------------

    def _fixpoint(self, order: list[int], bottom, combine: Callable[[int, list], object]) -> list:
        """Iterate ``values[node] = combine(node, values)`` over ``order`` until nothing changes."""
        values = [bottom] * len(self.nodes)
        changed = True
        while changed:
            changed = False
            for index in order:
                value = combine(index, values)
                if value != values[index]:
                    values[index] = value
                    changed = True
        return values

    def _is_productive(self, index: int, productive: list) -> bool:
        """Whether a node matches anything at all: closures skip the nodes that do not, so
        that no thread is ever kept that could not lead to a match."""
        node = self.nodes[index]
        if isinstance(node, Leaf):
            return node.mask != 0
        if isinstance(node, Seq):
            return all(productive[item] for item in node.items)
        if isinstance(node, Rep) and node.min == 0:
            return True
        return any(productive[item] for item in self.successors(index))

    def _is_nullable(self, index: int, nullable: list) -> bool:
        node = self.nodes[index]
        if isinstance(node, Leaf):
            return False
        if isinstance(node, Seq):
            return all(nullable[item] for item in node.items)
        if isinstance(node, Rep) and node.min == 0:
            return True
        return any(nullable[item] for item in self.successors(index))

    def _first_leaves(self, index: int, first: list) -> int:
        """The leaves that can consume the node's first byte, as a bit set of node indexes."""
        node = self.nodes[index]
        if not self.productive[index]:
            return 0
        if isinstance(node, Leaf):
            return 1 << index
        bits = 0
        for item in self.successors(index):
            bits |= first[item]
            if isinstance(node, Seq) and not self.nullable[item]:
                break
        return bits

    def _normalise_repetitions(self) -> None:
        """A repetition of a nullable element behaves as ``0*max``: record it in the node."""
        for index, node in enumerate(self.nodes):
            if isinstance(node, Rep) and self.nullable[node.element]:
                self.nodes[index] = Rep(0, node.max, node.element, True)

    def _classify_bytes(self) -> None:
        classes = [0] * 256
        masks = {node.mask for node in self.nodes if isinstance(node, Leaf)}
        for mask in masks:
            renumber: dict[tuple[int, int], int] = {}
            for value in range(256):
                key = (classes[value], mask >> value & 1)
                classes[value] = renumber.setdefault(key, len(renumber))
        self.class_of = bytes(classes)
        self.num_classes = max(classes) + 1
        self.leaf_classes = {index: self._class_mask(node.mask) for index, node in enumerate(self.nodes)
                             if isinstance(node, Leaf)}
        self.call_first_classes = [self._class_mask(self.mask_of(leaves)) for leaves in self.call_first]

    def _class_mask(self, mask: int) -> int:
        bits = 0
        for value in range(256):
            if mask >> value & 1:
                bits |= 1 << self.class_of[value]
        return bits

    def typed(self, index: int, kind: type[T]) -> T:
        """Node ``index``, which must be of type ``kind``."""
        node = self.nodes[index]
        if not isinstance(node, kind):
            raise InvariantError(f"node {index} is a {type(node).__name__}, not a {kind.__name__}")
        return node

    def mask_of(self, leaves) -> int:
        mask = 0
        for index in leaves:
            mask |= self.typed(index, Leaf).mask
        return mask


def cut_rules(grammar: ResolvedGrammar) -> list[str]:
    """Recursive rules to call through the GSS; every other rule is expanded in place.

    Expanding a reference in place keeps the continuation when the reference is in tail
    position, and grows it otherwise (:mod:`.closure`).  A cycle of in-place references through
    a growing one would grow continuations without end, so every such cycle must pass through a
    called rule; cycles of tail references may stay (they are loops).  Greedily, while a strongly
    connected set of the in-place references holds a growing one, the set's rule nearest the
    start rule is called.  So in ``comment = "(" *ccontent ")"`` with ``ccontent = ctext /
    comment`` only ``comment`` is called, and ordinary text inside a comment needs no GSS
    operation at all; in ``list = item [ "," list ]`` nothing is.
    """
    recursive = grammar.recursive
    rank = {key: index for index, key in enumerate(grammar.reachable)}
    references = [(holder, target, tail) for holder in grammar.reachable if holder in recursive
                  for target, tail in _references(grammar.ir[holder]) if target in recursive]
    cut: set[str] = set()
    while True:
        kept = [(holder, target, tail) for holder, target, tail in references if target not in cut]
        edges: dict[str, list[str]] = {key: [] for key in recursive}
        for holder, target, _ in kept:
            edges[holder].append(target)
        component = {key: index for index, members in enumerate(graph.strongly_connected(edges))
                     for key in members}
        growing = {component[holder] for holder, target, tail in kept
                   if not tail and component[holder] == component[target]}
        if not growing:
            return [key for key in grammar.reachable if key in cut]
        cut.update(min((key for key in recursive if component[key] == index), key=rank.__getitem__)
                   for index in growing)


def _references(body: ir.Node) -> list[tuple[str, bool]]:
    """Each rule reference in ``body`` and whether it is in tail position: reached only through
    alternatives, last items of concatenations and repetitions of at most one, which is where the
    closure enters it with the rule's own continuation."""
    found = []
    stack: list[tuple[ir.Node, bool]] = [(body, True)]
    while stack:
        node, tail = stack.pop()
        match node:
            case ir.Ref():
                found.append((node.key, tail))
            case ir.Alt():
                stack.extend((item, tail) for item in node.items)
            case ir.Seq():
                last = len(node.items) - 1
                stack.extend((item, tail and index == last) for index, item in enumerate(node.items))
            case ir.Repeat():
                stack.append((node.item, tail and node.max == 1))
            case ir.Terminal():
                pass
            case _:
                assert_never(node)
    return found


def _bits(bits: int) -> tuple[int, ...]:
    found = []
    while bits:
        low = bits & -bits
        found.append(low.bit_length() - 1)
        bits ^= low
    return tuple(found)
