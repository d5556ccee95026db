"""Thompson construction: the resolved grammar's IR -> NFA over byte ranges, with provenance.

Thompson (1968), "Regular expression search algorithm": one start and one accepting state,
epsilon moves for alternation and repetition.  Each rule is built once as a block of states in
which a reference to another rule is a placeholder pair of states; a repetition copies its
element's block.  The rules' expanded sizes are then summed in dependency order and checked
against ``max_states`` *before* anything is expanded, so ``r = 100000000"a"`` fails at once with
an error instead of filling memory.  Finally the start rule's block is copied into the result
and placeholders are filled with copies of their rules, using a work list: nothing recurses
through rule references, so chains of thousands of rules cannot overflow the stack.

Recursion that keeps the language regular (right- or left-linear sets of rules, classified by
:mod:`abnfc.frontend.recursion`) is built as one block per set and entry rule, holding every rule
of the set once, as in the construction of Mohri and Nederhof (2001) for strongly regular
grammars.  In a right-linear set a reference to a rule of the set is a tail call: it becomes a
jump to that rule's start, and every rule's end leads to the block's exit.  A left-linear set is
the mirror image: the block's start leads to every rule's start, a reference at the start of a
rule is resumed from the end of the rule it names, and the entry rule's end is the exit.
Recursion with no way out leaves states from which the accepting state cannot be reached; their
transitions are cut (the automaton is *trimmed*).

Provenance: the state before each byte transition records the terminal's
:class:`~abnfc.frontend.ir.Origin` -- the rule, the index of the top-level alternative and of
the element within it, the bytes read and the terminal's span.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from .. import graph
from ..charset import Ranges
from ..errors import AbnfError, InvariantError, LimitError, Span
from ..frontend import ir
from ..frontend.ir import Origin
from ..frontend.recursion import RIGHT_LINEAR, Component
from ..frontend.resolve import ResolvedGrammar
from ..i18n import _

DEFAULT_MAX_NFA_STATES = 200_000


@dataclass(frozen=True)
class Nfa:
    start: int
    accept: int
    epsilon: tuple[tuple[int, ...], ...]  # per state: epsilon targets
    edges: tuple[tuple[tuple[Ranges, int], ...], ...]  # per state: (byte ranges, target)
    origins: tuple[Origin | None, ...]  # per state: the terminal it is about to read

    def __post_init__(self):
        count = len(self.epsilon)
        InvariantError.check(len(self.edges) == count == len(self.origins), "NFA tables differ in length")
        InvariantError.check(0 <= self.start < count and 0 <= self.accept < count, "NFA start or accept out of range")
        InvariantError.check(not self.edges[self.accept] and not self.epsilon[self.accept],
                             "the NFA's accepting state has transitions")

    @property
    def num_states(self) -> int:
        return len(self.epsilon)


class _Builder:
    """Mutable state table; blocks of states are contiguous so they can be copied."""

    def __init__(self, max_states: int):
        self.max_states = max_states
        self.epsilon: list[list[int]] = []
        self.edges: list[list[tuple[Ranges, int]]] = []
        self.origins: list[Origin | None] = []
        self.calls: dict[int, str] = {}  # placeholder entry state -> rule; its exit is entry + 1
        # Within a block of recursive rules: the entry state of a tail call -> the rule it jumps
        # to (right-linear), and the exit state of a head reference -> the rule whose end it
        # resumes from (left-linear).
        self.jumps: dict[int, str] = {}
        self.resumes: dict[int, str] = {}

    def new(self) -> int:
        self.epsilon.append([])
        self.edges.append([])
        self.origins.append(None)
        return len(self.epsilon) - 1

    def reserve(self, count: int, span: Span | None) -> None:
        if len(self.epsilon) + count > self.max_states:
            raise LimitError.at(span, _("the grammar needs more than {limit} NFA states (at least {count}); "
                                        "raise the limit with --max-nfa-states if this is intended").format(
                                            limit=self.max_states, count=len(self.epsilon) + count))

    def copy_block(self, other: _Builder, first: int, end: int, span: Span | None) -> int:
        """Append a copy of ``other``'s states ``first..end-1``; return the offset added."""
        self.reserve(end - first, span)
        offset = len(self.epsilon) - first
        for state in range(first, end):
            self.epsilon.append([t + offset for t in other.epsilon[state]])
            self.edges.append([(ranges, t + offset) for ranges, t in other.edges[state]])
            self.origins.append(other.origins[state])
            for links, own in ((other.calls, self.calls), (other.jumps, self.jumps),
                               (other.resumes, self.resumes)):
                if state in links:
                    own[state + offset] = links[state]
        return offset


@dataclass(frozen=True)
class _Fragment:
    first: int  # states first..end-1 belong to the fragment
    end: int
    start: int
    accept: int

    def shifted(self, offset: int) -> _Fragment:
        return _Fragment(self.first + offset, self.end + offset, self.start + offset, self.accept + offset)


def build(grammar: ResolvedGrammar, max_states: int = DEFAULT_MAX_NFA_STATES) -> Nfa:
    """The Thompson NFA of ``grammar``'s start rule; the grammar must be regular (recursion, if
    any, right- or left-linear)."""
    embedding = grammar.embedding
    if embedding is not None:
        raise AbnfError.at(embedding.reference.span,
                           _("rule '{rule}' cannot be compiled to a DFA: its recursion is self-embedding "
                             "({path}; {why}); use the interpreter (abnfc check --engine interpreter)").format(
                                 rule=grammar.start_name, path=embedding.path, why=embedding.explain()))
    blocks: dict[str, tuple[_Builder, _Fragment]] = {}
    expanded: dict[str, int] = {}
    for key, builder, fragment in _blocks(grammar, max_states):
        blocks[key] = (builder, fragment)
        expanded[key] = len(builder.epsilon) + sum(expanded[callee] for callee in builder.calls.values())
        if expanded[key] > max_states:
            raise LimitError.at(grammar.rule(key).span, _("rule '{rule}' expands to {count} NFA states, more "
                                                          "than the limit of {limit}; raise it with "
                                                          "--max-nfa-states if this is intended").format(
                                                              rule=grammar.rule(key).name, count=expanded[key],
                                                              limit=max_states))
    return _expand(blocks, grammar.start, max_states)


def _blocks(grammar: ResolvedGrammar, max_states: int):
    """(rule, builder, fragment) for each rule that can be instantiated, each after the rules its
    block refers to: a block per rule outside recursion, a block per entry rule of a recursive set."""
    sets = {key: component for component in grammar.components for key in component.rules}
    entries = _entry_rules(grammar, sets)
    for members in graph.strongly_connected(grammar.graph):  # callees first
        component = sets.get(members[0])
        if component is None:
            builder = _Builder(max_states)
            yield members[0], builder, _RuleBuilder(grammar, members[0], builder).build()
            continue
        for entry in component.rules:
            if entry in entries:
                builder = _Builder(max_states)
                yield entry, builder, _recursive_block(grammar, component, entry, builder)


def _entry_rules(grammar: ResolvedGrammar, sets: dict[str, Component]) -> set[str]:
    """Recursive rules that the start rule or a rule outside their set refers to."""
    entries = {grammar.start}
    for key, callees in grammar.graph.items():
        entries.update(callee for callee in callees if callee in sets and sets.get(key) is not sets[callee])
    return entries


def _recursive_block(grammar: ResolvedGrammar, component: Component, entry: str, builder: _Builder) -> _Fragment:
    """Every rule of a right- or left-linear set, entered at rule ``entry``."""
    bodies = {key: _RuleBuilder(grammar, key, builder, component).build() for key in component.rules}
    builder.reserve(2, grammar.rule(entry).span)
    start, exit_ = builder.new(), builder.new()
    if component.kind == RIGHT_LINEAR:
        builder.epsilon[start].append(bodies[entry].start)
        for body in bodies.values():
            builder.epsilon[body.accept].append(exit_)
        for state, key in builder.jumps.items():  # a tail call: go to the rule's start
            builder.epsilon[state].append(bodies[key].start)
    else:
        for body in bodies.values():
            builder.epsilon[start].append(body.start)
        builder.epsilon[bodies[entry].accept].append(exit_)
        for state, key in builder.resumes.items():  # once the named rule matched, go on here
            builder.epsilon[bodies[key].accept].append(state)
    InvariantError.check(not (builder.jumps and builder.resumes), "a recursive set is both right- and left-linear")
    builder.jumps, builder.resumes = {}, {}
    return _Fragment(0, len(builder.epsilon), start, exit_)


def _expand(blocks: dict[str, tuple[_Builder, _Fragment]], start: str, max_states: int) -> Nfa:
    """Copy the start rule's block, then fill every placeholder with a copy of its rule."""
    result = _Builder(max_states)

    def instantiate(key: str) -> _Fragment:
        builder, fragment = blocks[key]
        return fragment.shifted(result.copy_block(builder, 0, len(builder.epsilon), None))

    top = instantiate(start)
    while result.calls:
        entry, key = result.calls.popitem()
        callee = instantiate(key)
        result.epsilon[entry].append(callee.start)
        result.epsilon[callee.accept].append(entry + 1)
    _trim(result, top.accept)
    return Nfa(top.start, top.accept, tuple(map(tuple, result.epsilon)),
               tuple(map(tuple, result.edges)), tuple(result.origins))


def _trim(builder: _Builder, accept: int) -> None:
    """Cut the transitions of states from which the accepting state cannot be reached.

    Only recursion can make such states (``s = "x" s`` has no way out), and the interpreter
    never enters what cannot match; cutting them here keeps every subset of the DFA to the
    grammar positions some match can go on from, so both engines stop at the same byte and
    expect the same ones.
    """
    incoming: list[list[int]] = [[] for _ in builder.epsilon]
    for state, targets in enumerate(builder.epsilon):
        for target in targets:
            incoming[target].append(state)
    for state, edges in enumerate(builder.edges):
        for _ranges, target in edges:
            incoming[target].append(state)
    alive = {accept}
    stack = [accept]
    while stack:
        for source in incoming[stack.pop()]:
            if source not in alive:
                alive.add(source)
                stack.append(source)
    if len(alive) == len(builder.epsilon):
        return
    for state in range(len(builder.epsilon)):
        if state not in alive:
            builder.epsilon[state], builder.edges[state], builder.origins[state] = [], [], None


class _RuleBuilder:
    """Builds one rule's block; a reference to another rule becomes a placeholder."""

    def __init__(self, grammar: ResolvedGrammar, key: str, builder: _Builder,
                 component: Component | None = None):
        self.rule = grammar.rule(key)
        self.body = grammar.ir[key]
        self.b = builder
        # The rules of this rule's recursive set, built in the same block, and how they recur.
        self.linked = frozenset(component.rules if component else ())
        self.right_linear = component is not None and component.kind == RIGHT_LINEAR

    def build(self) -> _Fragment:
        return self.node(self.body)

    def _chain(self, start: int, fragments: list[_Fragment], accept: int) -> None:
        current = start
        for fragment in fragments:
            self.b.epsilon[current].append(fragment.start)
            current = fragment.accept
        self.b.epsilon[current].append(accept)

    def node(self, node: ir.Node) -> _Fragment:
        """The fragment of ``node``; recursion is bounded by the parser's nesting limit."""
        first = len(self.b.epsilon)
        match node:
            case ir.Terminal():
                return self.terminals((node,))
            case ir.Seq() if _all_terminals(node):
                return self.terminals(node.items)
            case ir.Repeat():
                return self.repeat(node)
            case ir.Ref():
                return self.reference(node, first)
            case ir.Alt():
                start, accept = self.b.new(), self.b.new()
                for item in node.items:
                    # An alternative's items chain straight from the choice: no states of its own.
                    items = item.items if isinstance(item, ir.Seq) and not _all_terminals(item) else (item,)
                    self._chain(start, [self.node(part) for part in items], accept)
                return _Fragment(first, len(self.b.epsilon), start, accept)
            case ir.Seq():
                start, accept = self.b.new(), self.b.new()
                self._chain(start, [self.node(item) for item in node.items], accept)
                return _Fragment(first, len(self.b.epsilon), start, accept)
            case _:
                assert_never(node)

    def reference(self, node: ir.Ref, first: int) -> _Fragment:
        """A placeholder pair of states, filled with the rule later, or a jump within a block of
        linear recursion (see the module's docstring)."""
        self.b.reserve(2, node.span)
        entry, exit_ = self.b.new(), self.b.new()
        if node.key not in self.linked:
            self.b.calls[entry] = node.key
        elif self.right_linear:
            self.b.jumps[entry] = node.key  # nothing follows a tail call: exit_ stays unreachable
        else:
            self.b.resumes[exit_] = node.key  # nothing precedes it: entry leads nowhere
        return _Fragment(first, len(self.b.epsilon), entry, exit_)

    def terminals(self, terminals) -> _Fragment:
        """A chain of byte transitions: a quoted string or numeric value."""
        self.b.reserve(len(terminals) + 1, terminals[0].origin.span)
        first = current = self.b.new()
        for terminal in terminals:
            following = self.b.new()
            self.b.edges[current].append((terminal.ranges, following))
            self.b.origins[current] = terminal.origin
            current = following
        return _Fragment(first, len(self.b.epsilon), first, current)

    def repeat(self, node: ir.Repeat) -> _Fragment:
        low, high = node.min, node.max
        first = len(self.b.epsilon)
        start, accept = self.b.new(), self.b.new()
        copies = low + 1 if high is None else high
        if copies == 0:
            self.b.epsilon[start].append(accept)
            return _Fragment(first, len(self.b.epsilon), start, accept)
        body = self.node(node.item)
        self.b.reserve((body.end - body.first) * (copies - 1), node.span)
        bodies = [body] + [body.shifted(self.b.copy_block(self.b, body.first, body.end, node.span))
                           for _ in range(copies - 1)]
        current = start
        for index, copy in enumerate(bodies):
            if index >= low:  # an optional copy may be skipped: jump to the end
                self.b.epsilon[current].append(accept)
            self.b.epsilon[current].append(copy.start)
            current = copy.accept
        if high is None:  # the last copy loops
            self.b.epsilon[current].append(bodies[-1].start)
        self.b.epsilon[current].append(accept)
        return _Fragment(first, len(self.b.epsilon), start, accept)


def _all_terminals(node: ir.Seq) -> bool:
    return bool(node.items) and all(isinstance(item, ir.Terminal) for item in node.items)
