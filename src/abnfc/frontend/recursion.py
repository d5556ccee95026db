"""Which kind of recursion a grammar has: right-linear, left-linear or self-embedding.

A context-free grammar that is not *self-embedding* (no rule derives itself with something on
both sides, ``A =>* x A y`` with ``x`` and ``y`` non-empty) describes a regular language
(Chomsky 1959, "On certain formal properties of grammars", Information and Control 2(2)).
The test used here is the syntactic one of Mohri and Nederhof, "Regular approximation of
context-free grammars through transformation" (2001): a grammar is *strongly regular* when each
strongly connected set of mutually recursive rules is either

- right-linear: every reference to a rule of the set is the last thing the referring rule
  matches (``list = item [ "," list ]``), or
- left-linear: every such reference is the first thing it matches (``r = r "a" / "b"``).

Position is read on the IR, for each reference to a member of the same set: alternatives and an
optional ``[x]`` (a repetition of at most one) keep the position of their element; in a
concatenation only the last item is last and only the first is first, ignoring items that can
match nothing but the empty string (``""``); a repetition of more than one puts its element in the
middle (``*( "a" r )`` repeats ``r`` before more of itself).  This is sufficient for regularity,
not necessary: ``r = n r "a"`` with ``n = ""`` is called self-embedding.

The sets come from Tarjan's algorithm (:func:`abnfc.graph.strongly_connected`), deepest first.
For a self-embedding set, :class:`Embedding` names the reference that embeds: one in the middle
of its rule, or, when the set recurses at both ends, one reference of each kind.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from .. import graph
from ..errors import InvariantError, Span
from . import ir

FIRST, LAST = 1, 2  # bits of a reference's position in its rule
RIGHT_LINEAR, LEFT_LINEAR, SELF_EMBEDDING = "right-linear", "left-linear", "self-embedding"


@dataclass(frozen=True)
class Reference:
    """A reference from rule ``holder`` to rule ``target`` (keys) of the same recursive set."""

    holder: str
    target: str
    span: Span | None
    position: int  # FIRST | LAST bits: 0 when it is neither, in the middle of its rule

    @property
    def where(self) -> str:
        return self.span.location() if self.span else "?"


@dataclass(frozen=True)
class Component:
    """A strongly connected set of recursive rules and the kind of its recursion."""

    rules: tuple[str, ...]  # keys, in the grammar's breadth-first order from the start rule
    kind: str  # RIGHT_LINEAR, LEFT_LINEAR or SELF_EMBEDDING
    cycle: tuple[str, ...]  # display names of a shortest cycle through its first rule
    references: tuple[Reference, ...]  # every reference from a member to a member

    @property
    def path(self) -> str:
        return " -> ".join(self.cycle + self.cycle[:1])


@dataclass(frozen=True)
class Embedding:
    """Why a grammar is self-embedding: a cycle through the reference that embeds, and for a
    set recursing at both ends, a reference of the other kind."""

    cycle: tuple[str, ...]  # display names: cycle[0] -> ... -> cycle[-1] -> cycle[0]
    reference: Reference  # in the middle of its rule, or last in it when ``other`` is set
    other: Reference | None  # a reference first in its rule (the set recurses at both ends)
    names: Mapping[str, str]  # key -> display name

    @property
    def path(self) -> str:
        return " -> ".join(self.cycle + self.cycle[:1])

    def explain(self) -> str:
        """What embeds, with the references' locations."""
        ref, name = self.reference, self.names
        if self.other is None:
            return f"'{name[ref.holder]}' refers to '{name[ref.target]}' at {ref.where}, neither first nor last"
        other = self.other
        return (f"'{name[ref.holder]}' ends with '{name[ref.target]}' at {ref.where} and "
                f"'{name[other.holder]}' starts with '{name[other.target]}' at {other.where}: "
                "recursion at both ends nests")

    def __str__(self) -> str:
        return f"{self.path}: {self.explain()}"


def classify(lowered: Mapping[str, ir.Node], references: Mapping[str, Sequence[str]],
             order: Sequence[str], names: Mapping[str, str]) -> tuple[tuple[Component, ...], Embedding | None]:
    """The recursive sets of the reachable rules (deepest first) and, if the grammar is not
    strongly regular, the first embedding found.

    ``lowered`` and ``references`` cover the reachable rules, ``order`` lists them from the start
    rule breadth-first, ``names`` gives each key's display name.
    """
    rank = {key: index for index, key in enumerate(order)}
    components: list[Component] = []
    embedding: Embedding | None = None
    for members in graph.strongly_connected(references):
        member_set = set(members)
        if len(members) == 1 and members[0] not in references[members[0]]:
            continue
        rules = tuple(sorted(members, key=rank.__getitem__))
        refs = tuple(ref for key in rules for ref in positions(key, lowered[key]) if ref.target in member_set)
        kind = _kind(refs)
        cycle = graph.shortest_cycle(references, rules[0], member_set.__contains__)
        if cycle is None:
            raise InvariantError(f"rule {rules[0]} is in a looping component but on no cycle")
        components.append(Component(rules, kind, tuple(names[key] for key in cycle), refs))
        if kind == SELF_EMBEDDING and embedding is None:
            embedding = _embedding(refs, references, member_set, rank, names)
    return tuple(components), embedding


def positions(holder: str, body: ir.Node) -> list[Reference]:
    """Every rule reference in ``body`` with its position: first, last, both or neither."""
    found = []
    stack: list[tuple[ir.Node, int]] = [(body, FIRST | LAST)]
    while stack:
        node, bits = stack.pop()
        match node:
            case ir.Ref():
                found.append(Reference(holder, node.key, node.span, bits))
            case ir.Alt():
                stack.extend((item, bits) for item in reversed(node.items))
            case ir.Repeat():
                stack.append((node.item, bits if node.max == 1 else 0))
            case ir.Seq():
                solid = [index for index, item in enumerate(node.items) if not only_empty(item)]
                for index in reversed(range(len(node.items))):
                    here = bits
                    if solid and index > solid[0]:
                        here &= ~FIRST
                    if solid and index < solid[-1]:
                        here &= ~LAST
                    stack.append((node.items[index], here))
            case ir.Terminal():
                pass
            case _:
                assert_never(node)
    return found


def only_empty(node: ir.Node) -> bool:
    """Whether ``node`` can match nothing but the empty string (``""``, ``0"x"``), by its form."""
    match node:
        case ir.Seq() | ir.Alt():
            return all(only_empty(item) for item in node.items)  # depth is bounded by the parser
        case ir.Repeat():
            return node.max == 0 or only_empty(node.item)
        case ir.Terminal() | ir.Ref():
            return False
        case _:
            assert_never(node)


def _kind(refs: tuple[Reference, ...]) -> str:
    if all(ref.position & LAST for ref in refs):
        return RIGHT_LINEAR
    if all(ref.position & FIRST for ref in refs):
        return LEFT_LINEAR
    return SELF_EMBEDDING


def _embedding(refs, references, members: set[str], rank, names) -> Embedding:
    middle = [ref for ref in refs if not ref.position]
    if middle:
        reference, other = middle[0], None
    else:  # both ends: one reference only last, one only first
        reference = next(ref for ref in refs if ref.position == LAST)
        other = next(ref for ref in refs if ref.position == FIRST)
    cycle = _cycle_through(references, members, reference.holder, reference.target, rank)
    return Embedding(tuple(names[key] for key in cycle), reference, other, names)


def _cycle_through(references, members: set[str], holder: str, target: str, rank) -> list[str]:
    """A shortest cycle that takes the edge ``holder -> target``, turned to start at its
    earliest rule."""
    path = _shortest_path(references, members, target, holder)
    cycle = [holder, *path[:-1]] if holder != target else [holder]
    first = min(range(len(cycle)), key=lambda index: rank[cycle[index]])
    return cycle[first:] + cycle[:first]


def _shortest_path(references, members: set[str], source: str, goal: str) -> list[str]:
    """Rules from ``source`` to ``goal`` within ``members``, breadth-first (both included)."""
    parents: dict[str, str | None] = {source: None}
    frontier = [source]
    while frontier and goal not in parents:
        following = []
        for key in frontier:
            for successor in references[key]:
                if successor in members and successor not in parents:
                    parents[successor] = key
                    following.append(successor)
        frontier = following
    if goal not in parents:
        raise InvariantError(f"rule {goal} is in the component of {source} but not reachable from it")
    path: list[str] = []
    step: str | None = goal
    while step is not None:
        path.append(step)
        step = parents[step]
    return path[::-1]
