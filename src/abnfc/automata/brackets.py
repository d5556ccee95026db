"""Cut a self-embedding grammar at its brackets: nested parts between a call byte and a return byte.

A pushdown validator calls a nested part when it reads the byte that opens it and returns when it
reads the byte that closes it, as a visibly pushdown automaton does (Alur and Madhusudan, "Visibly
pushdown languages", STOC 2004): the input itself says when the stack moves, so the automaton is
deterministic where each machine is.  This module finds those brackets in the grammar.

In each self-embedding set of rules (:mod:`abnfc.frontend.recursion`), a sequence that refers to
the set is looked at with the references to rules outside recursion opened up
(``begin-array = ws %x5B ws`` gives its three items): if a single-byte terminal ``c`` stands
before the first item that refers to the set and one, ``r``, after the last, the sequence
``P c MID r Q`` becomes ``P <c MID r> Q``, where the *token* ``<c MID r>`` reads ``c``, then a
string of ``MID``'s language (a nested part, matched by a machine of its own) and then ``r``.
Otherwise the cut is tried inside the sequence's items.  A token is lowered as the two terminals
``c r``; the terminal ``r`` carries a :class:`CallSite` origin, so that a DFA state that waits
for it (after ``c``) is known to be a *call state*.  Nested parts equal in form and return byte
share one machine.

Once every set is cut, the rules are classified again: if some set still embeds itself (a
reference with no bracket bytes around it), the cut failed and :class:`Bracketing` says where.
Otherwise every machine (the start rule and each nested part) is a regular grammar over bytes,
whose own recursion, if any, is right- or left-linear.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import assert_never

from ..charset import Ranges
from ..frontend import ir, recursion
from ..frontend.imports import RuleDef
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar

MAX_OPENED = 4096  # items a sequence is opened up to while looking for its brackets
BODY_PREFIX = "<nested "  # a key no ABNF rule name can take (names have no '<' or space)


@dataclass(frozen=True)
class CallSite(Origin):
    """The origin of a token's return terminal: the grammar position of ``r``, and the nested
    part (``body``, an index into :attr:`Bracketing.bodies`) a call state waits for the end of."""

    body: int = 0


@dataclass(frozen=True)
class Body:
    """A nested part: what a call reads between its call byte and its return byte."""

    key: str  # its machine's rule key in the cut grammar
    node: ir.Node
    returns: Ranges  # the bytes that end it
    holder: str  # the rule it was cut from (key)
    opens: Origin  # the call byte's terminal
    closes: Origin  # the return byte's terminal


@dataclass(frozen=True)
class Bracketing:
    """The grammar cut at its brackets: each machine is a regular grammar (``grammars[key]``).

    ``failure`` is set when the cut leaves a self-embedding set: the reference that still
    embeds, and no machine is built."""

    cut: ResolvedGrammar  # every rule with its tokens, and a rule per nested part
    bodies: tuple[Body, ...]
    failure: recursion.Embedding | None = None
    machines: Mapping[str, ResolvedGrammar] = field(default_factory=dict)  # start, then each body

    @property
    def start(self) -> str:
        return self.cut.start


def bracket(grammar: ResolvedGrammar) -> Bracketing:
    """Cut ``grammar``'s self-embedding sets at their brackets (see the module's docstring)."""
    cutter = _Cutter(grammar)
    lowered = dict(grammar.ir)
    for component in grammar.components:
        if component.kind == recursion.SELF_EMBEDDING:
            members = frozenset(component.rules)
            for key in component.rules:
                lowered[key] = cutter.cut(lowered[key], members, key)
    for body in cutter.bodies:
        lowered[body.key] = body.node
    lowered = _without_empty_parts(lowered, cutter.bodies)
    cut = _regrammar(grammar, lowered, cutter.bodies)
    if cut.embedding is not None:
        return Bracketing(cut, tuple(cutter.bodies), cut.embedding)
    keys = (grammar.start, *(body.key for body in cutter.bodies))
    return Bracketing(cut, tuple(cutter.bodies), None, MappingProxyType({key: _machine(cut, key) for key in keys}))


class _Cutter:
    def __init__(self, grammar: ResolvedGrammar):
        self.grammar = grammar
        self.bodies: list[Body] = []
        self.index: dict[tuple[ir.Node, Ranges], int] = {}

    def cut(self, node: ir.Node, members: frozenset[str], holder: str) -> ir.Node:
        """``node`` with its bracketed sequences replaced by tokens; recursion is bounded by the
        parser's nesting limit."""
        if not _refers(node, members):
            return node
        match node:
            case ir.Seq():
                return self._cut_sequence(node, members, holder)
            case ir.Alt():
                return ir.Alt(tuple(self.cut(item, members, holder) for item in node.items))
            case ir.Repeat():
                return replace(node, item=self.cut(node.item, members, holder))
            case ir.Ref() | ir.Terminal():
                return node
            case _:
                assert_never(node)

    def _cut_sequence(self, node: ir.Seq, members: frozenset[str], holder: str) -> ir.Node:
        """The widest bracket around every reference to the set (``"[" a "," a "]"`` becomes one
        nested part); failing that, brackets from left to right (``"(" s ")" s`` becomes a
        nested part and a tail reference); failing that, the cut is tried inside the items."""
        items = self._opened(node.items, members)
        inside = [i for i, item in enumerate(items) if _refers(item, members)]
        widest = self._bracket(items, inside[0], inside[-1], holder)
        if widest is not None:
            return widest
        cut: list[ir.Node] = []
        rest = items
        while rest:
            inside = [i for i, item in enumerate(rest) if _refers(item, members)]
            if not inside:
                cut.extend(rest)
                break
            first = inside[0]
            after = next((j for j in range(first + 1, len(rest)) if _single_byte(rest[j])), None)
            token = self._bracket(rest[:after + 1], first, first, holder) if after is not None else None
            if token is None or after is None:
                cut.extend(rest[:first])
                cut.append(self.cut(rest[first], members, holder))
                rest = rest[first + 1:]
            else:
                cut.extend(token.items)
                rest = rest[after + 1:]
        return ir.Seq(tuple(cut))

    def _bracket(self, items: list[ir.Node], first: int, last: int, holder: str) -> ir.Seq | None:
        """``items`` with ``items[first..last]`` and what stands between them and the nearest
        single-byte terminals on either side made a token; None without such terminals."""
        before = next((i for i in range(first - 1, -1, -1) if _single_byte(items[i])), None)
        after = next((i for i in range(last + 1, len(items)) if _single_byte(items[i])), None)
        if before is None or after is None:
            return None
        opens, closes = items[before], items[after]
        assert isinstance(opens, ir.Terminal) and isinstance(closes, ir.Terminal)
        middle = items[before + 1:after]
        body = self._body(middle[0] if len(middle) == 1 else ir.Seq(tuple(middle)), opens, closes, holder)
        site = CallSite(closes.origin.rule, closes.origin.alternative, closes.origin.element,
                        closes.origin.span, closes.origin.reads, body)
        token = (opens, ir.Terminal(closes.ranges, site))
        return ir.Seq((*items[:before], *token, *items[after + 1:]))

    def _body(self, node: ir.Node, opens: ir.Terminal, closes: ir.Terminal, holder: str) -> int:
        key = (node, closes.ranges)
        if key not in self.index:
            self.index[key] = len(self.bodies)
            name = f"{BODY_PREFIX}{len(self.bodies) + 1}>"
            self.bodies.append(Body(name, node, closes.ranges, holder, opens.origin, closes.origin))
        return self.index[key]

    def _opened(self, items: tuple[ir.Node, ...], members: frozenset[str]) -> list[ir.Node]:
        """``items`` with nested sequences flattened and references to rules outside recursion
        whose body is a sequence or a terminal replaced by it, up to :data:`MAX_OPENED` items."""
        opened: list[ir.Node] = []
        pending = list(reversed(items))
        grammar = self.grammar
        while pending:
            item = pending.pop()
            inner: ir.Node | None = None
            if isinstance(item, ir.Seq):
                inner = item
            elif (isinstance(item, ir.Ref) and item.key not in members and item.key not in grammar.recursive
                  and isinstance(grammar.ir[item.key], ir.Seq | ir.Terminal)):
                inner = grammar.ir[item.key]
            if inner is not None and len(opened) + len(pending) < MAX_OPENED:
                pending.extend(reversed(inner.items if isinstance(inner, ir.Seq) else (inner,)))
            else:
                opened.append(item)
        return opened


def _single_byte(node: ir.Node) -> bool:
    return isinstance(node, ir.Terminal)


def _refers(node: ir.Node, members: frozenset[str]) -> bool:
    return any(isinstance(n, ir.Ref) and n.key in members for n in ir.walk(node))


def _without_empty_parts(lowered: dict[str, ir.Node], bodies: list[Body]) -> dict[str, ir.Node]:
    """Tokens whose nested part matches nothing (``r = "(" r ")"``) replaced by ``Alt(())``,
    which matches nothing, so that no machine reads the brackets of an impossible nesting.
    Which rules and parts can match something is a least fixpoint, as for productive rules."""
    live: set[str] = set()
    changed = True
    while changed:
        changed = False
        for key, node in lowered.items():
            if key not in live and _can_match(node, live, bodies):
                live.add(key)
                changed = True
    dead_bodies = {index for index, body in enumerate(bodies) if body.key not in live}
    if not dead_bodies:
        return lowered
    return {key: _pruned(node, dead_bodies) for key, node in lowered.items()}


def _can_match(node: ir.Node, live: set[str], bodies: list[Body]) -> bool:
    match node:
        case ir.Terminal():
            return not isinstance(node.origin, CallSite) or bodies[node.origin.body].key in live
        case ir.Seq():
            return all(_can_match(item, live, bodies) for item in node.items)
        case ir.Alt():
            return any(_can_match(item, live, bodies) for item in node.items)
        case ir.Repeat():
            return node.min == 0 or _can_match(node.item, live, bodies)
        case ir.Ref():
            return node.key in live
        case _:
            assert_never(node)


def _pruned(node: ir.Node, dead: set[int]) -> ir.Node:
    match node:
        case ir.Terminal():
            return ir.Alt(()) if isinstance(node.origin, CallSite) and node.origin.body in dead else node
        case ir.Seq():
            return ir.Seq(tuple(_pruned(item, dead) for item in node.items))
        case ir.Alt():
            return ir.Alt(tuple(_pruned(item, dead) for item in node.items))
        case ir.Repeat():
            return replace(node, item=_pruned(node.item, dead))
        case ir.Ref():
            return node
        case _:
            assert_never(node)


def _regrammar(grammar: ResolvedGrammar, lowered: Mapping[str, ir.Node], bodies: list[Body]) -> ResolvedGrammar:
    """The grammar with cut rules and a rule per nested part, its recursion classified again."""
    rules = dict(grammar.rules)
    for body in bodies:
        holder = grammar.rule(body.holder)
        number = body.key[len(BODY_PREFIX):-1]
        rules[body.key] = RuleDef(f"<nested part {number} of {holder.name}>", holder.definition,
                                  body.opens.span or holder.span)
    order = (*grammar.reachable, *(body.key for body in bodies))
    references = {key: tuple(ir.references(lowered[key])) for key in order}
    names = {key: rules[key].name for key in order}
    components, embedding = recursion.classify(lowered, references, order, names)
    recursive = frozenset(key for component in components for key in component.rules)
    return replace(grammar, rules=MappingProxyType(rules), reachable=order, recursive=recursive,
                   ir=MappingProxyType(dict(lowered)), graph=MappingProxyType(references),
                   components=components, embedding=embedding)


def _machine(cut: ResolvedGrammar, key: str) -> ResolvedGrammar:
    """The cut grammar seen from ``key``: what its machine's NFA is built from."""
    reachable, seen = [key], {key}
    for current in reachable:  # grows while iterating: breadth-first
        for callee in cut.graph[current]:
            if callee not in seen:
                seen.add(callee)
                reachable.append(callee)
    graph = MappingProxyType({k: cut.graph[k] for k in reachable})
    components = tuple(c for c in cut.components if c.rules[0] in seen)
    return replace(cut, start=key, reachable=tuple(reachable), graph=graph, components=components,
                   recursive=frozenset(k for c in components for k in c.rules))
