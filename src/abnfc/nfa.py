"""Thompson construction: resolved grammar -> NFA over byte ranges, with provenance.

Thompson (1968), "Regular expression search algorithm": one start and one accepting state,
epsilon moves for alternation and repetition.  Each rule is built once as a block of states in
which a reference to another rule is a placeholder pair of states; a repetition copies its
element's block.  The rules' expanded sizes are then summed in dependency order and checked
against ``max_states`` *before* anything is expanded, so ``r = 100000000"a"`` fails at once with
an error instead of filling memory.  Finally the start rule's block is copied into the result
and placeholders are filled with copies of their rules, using a work list: nothing recurses
through rule references, so chains of thousands of rules cannot overflow the stack.

Provenance: the state before each byte transition records an :class:`Origin` -- the rule, the
index of the top-level alternative and of the element within it, and the terminal's span.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ast
from .charset import Ranges, case_variants, normalize
from .errors import AbnfError, LimitError, Span
from .resolve import ResolvedGrammar

DEFAULT_MAX_NFA_STATES = 200_000


@dataclass(frozen=True)
class Origin:
    """A grammar position: element ``element`` of alternative ``alternative`` of ``rule``, and
    the bytes the NFA state reads there (one character of a string, one value, one range)."""

    rule: str
    alternative: int
    element: int
    span: Span | None = field(default=None, compare=False)
    reads: Ranges = ()

    def __str__(self) -> str:
        where = f" at {self.span.location()}" if self.span else ""
        return f"{self.rule}/{self.alternative + 1}.{self.element + 1}{where}"


@dataclass(frozen=True)
class Nfa:
    start: int
    accept: int
    epsilon: tuple[tuple[int, ...], ...]  # per state: epsilon targets
    edges: tuple[tuple[tuple[Ranges, int], ...], ...]  # per state: (byte ranges, target)
    origins: tuple[Origin | None, ...]  # per state: the terminal it is about to read

    def __post_init__(self):
        count = len(self.epsilon)
        assert len(self.edges) == count == len(self.origins)
        assert 0 <= self.start < count and 0 <= self.accept < count
        assert not self.edges[self.accept] and not self.epsilon[self.accept]

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

    def new(self) -> int:
        self.epsilon.append([])
        self.edges.append([])
        self.origins.append(None)
        return len(self.epsilon) - 1

    def reserve(self, count: int, span: Span | None) -> None:
        if len(self.epsilon) + count > self.max_states:
            raise LimitError.at(span, f"the grammar needs more than {self.max_states} NFA states "
                                f"(at least {len(self.epsilon) + count}); raise the limit with "
                                "--max-nfa-states if this is intended")

    def copy_block(self, other: "_Builder", first: int, end: int, span: Span | None) -> int:
        """Append a copy of ``other``'s states ``first..end-1``; return the offset added."""
        self.reserve(end - first, span)
        offset = len(self.epsilon) - first
        for state in range(first, end):
            self.epsilon.append([t + offset for t in other.epsilon[state]])
            self.edges.append([(ranges, t + offset) for ranges, t in other.edges[state]])
            self.origins.append(other.origins[state])
            if state in other.calls:
                self.calls[state + offset] = other.calls[state]
        return offset


@dataclass(frozen=True)
class _Fragment:
    first: int  # states first..end-1 belong to the fragment
    end: int
    start: int
    accept: int

    def shifted(self, offset: int) -> "_Fragment":
        return _Fragment(self.first + offset, self.end + offset, self.start + offset, self.accept + offset)


def build(grammar: ResolvedGrammar, max_states: int = DEFAULT_MAX_NFA_STATES) -> Nfa:
    """The Thompson NFA of ``grammar``'s start rule; the grammar must be regular."""
    if grammar.cycle:
        raise AbnfError.at(grammar.cycle.reference,
                           f"rule '{grammar.start_name}' cannot be compiled to a DFA: its rules "
                           f"refer to themselves ({grammar.cycle}); use the interpreter "
                           "(abnfc check --engine interpreter)")
    blocks: dict[str, tuple[_Builder, _Fragment]] = {}
    expanded: dict[str, int] = {}
    for key in _dependency_order(grammar):
        builder = _Builder(max_states)
        blocks[key] = (builder, _RuleBuilder(grammar, key, builder).build())
        expanded[key] = len(builder.epsilon) + sum(expanded[callee] for callee in builder.calls.values())
        if expanded[key] > max_states:
            raise LimitError.at(grammar.rule(key).span, f"rule '{grammar.rule(key).name}' expands "
                                f"to {expanded[key]} NFA states, more than the limit of {max_states}; "
                                "raise it with --max-nfa-states if this is intended")
    return _expand(blocks, grammar.start, max_states)


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
    return Nfa(top.start, top.accept, tuple(map(tuple, result.epsilon)),
               tuple(map(tuple, result.edges)), tuple(result.origins))


def _dependency_order(grammar: ResolvedGrammar) -> list[str]:
    """Reachable rules, each after every rule it refers to (iterative post-order)."""
    from .resolve import references

    order, done, stack = [], set(), [(grammar.start, False)]
    while stack:
        key, expanded = stack.pop()
        if key in done:
            continue
        if expanded:
            done.add(key)
            order.append(key)
            continue
        stack.append((key, True))
        stack.extend((ref.key, False) for ref in references(grammar.rule(key)) if ref.key not in done)
    return order


class _RuleBuilder:
    """Builds one rule's block; a reference to another rule becomes a placeholder."""

    def __init__(self, grammar, key, builder):
        self.grammar = grammar
        self.rule = grammar.rule(key)
        self.b = builder

    def build(self) -> _Fragment:
        first = len(self.b.epsilon)
        definition = self.rule.definition
        alternatives = definition.alternatives if isinstance(definition, ast.Alternation) else (definition,)
        start, accept = self.b.new(), self.b.new()
        for alt_index, alternative in enumerate(alternatives):
            items = alternative.items if isinstance(alternative, ast.Concatenation) else (alternative,)
            fragments = [self.node(item, (alt_index, i)) for i, item in enumerate(items)]
            self._chain(start, fragments, accept)
        return _Fragment(first, len(self.b.epsilon), start, accept)

    def _chain(self, start: int, fragments: list[_Fragment], accept: int) -> None:
        current = start
        for fragment in fragments:
            self.b.epsilon[current].append(fragment.start)
            current = fragment.accept
        self.b.epsilon[current].append(accept)

    def node(self, node: ast.Node, where: tuple[int, int]) -> _Fragment:
        first = len(self.b.epsilon)
        if isinstance(node, (ast.Group,)):
            return self.node(node.element, where)
        if isinstance(node, ast.Option):
            return self.repeat(node.element, 0, 1, where, node.span)
        if isinstance(node, ast.Repetition):
            return self.repeat(node.element, node.min, node.max, where, node.span)
        if isinstance(node, ast.Alternation):
            start, accept = self.b.new(), self.b.new()
            for alternative in node.alternatives:
                self._chain(start, [self.node(alternative, where)], accept)
            return _Fragment(first, len(self.b.epsilon), start, accept)
        if isinstance(node, ast.Concatenation):
            start, accept = self.b.new(), self.b.new()
            self._chain(start, [self.node(item, where) for item in node.items], accept)
            return _Fragment(first, len(self.b.epsilon), start, accept)
        if isinstance(node, ast.RuleRef):
            self.b.reserve(2, node.span)
            entry, exit_ = self.b.new(), self.b.new()
            self.b.calls[entry] = node.key
            return _Fragment(first, len(self.b.epsilon), entry, exit_)
        return self.terminals(node, where)

    def terminals(self, node: ast.Node, where: tuple[int, int]) -> _Fragment:
        """A chain of byte transitions for a quoted string or numeric value."""
        if isinstance(node, ast.CharVal):
            steps = [case_variants(c, node.case_sensitive) for c in node.text]
        elif isinstance(node, ast.NumVal):
            steps = [((v, v),) for v in node.values]
        elif isinstance(node, ast.NumRange):
            steps = [((node.low, node.high),)]
        else:
            raise AbnfError.at(node.span, f"{node} cannot be compiled")
        self.b.reserve(len(steps) + 1, node.span)
        first = len(self.b.epsilon)
        current = start = self.b.new()
        for ranges in map(normalize, steps):
            following = self.b.new()
            self.b.edges[current].append((ranges, following))
            self.b.origins[current] = Origin(self.rule.name, where[0], where[1], node.span, ranges)
            current = following
        return _Fragment(first, len(self.b.epsilon), start, current)

    def repeat(self, element, low: int, high: int | None, where, span) -> _Fragment:
        first = len(self.b.epsilon)
        start, accept = self.b.new(), self.b.new()
        copies = low + 1 if high is None else high
        if copies == 0:
            self.b.epsilon[start].append(accept)
            return _Fragment(first, len(self.b.epsilon), start, accept)
        body = self.node(element, where)
        self.b.reserve((body.end - body.first) * (copies - 1), span)
        bodies = [body] + [body.shifted(self.b.copy_block(self.b, body.first, body.end, span))
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
