"""Rule table: merge ``=/`` alternatives, add the core rules, check references, find cycles,
and lower every rule the start rule reaches into the IR (:mod:`abnfc.frontend.lower`).

Produces a frozen :class:`ResolvedGrammar` or raises :class:`AbnfError` listing every error at
once.  Reachability is a breadth-first search from the start rule; rules that take part in a
cycle of references are found with Tarjan's strongly connected components algorithm
(:mod:`abnfc.graph`), and :mod:`abnfc.frontend.recursion` says whether each such set is right-
or left-linear (the grammar stays regular) or self-embedding.  Rules that can never match
(recursion with no way out) are the complement of the generating symbols (:mod:`.productive`).

Rules taken from imported grammars and prose values that name rules are bound first
(:mod:`abnfc.frontend.imports`); what terminal values mean (octets or code points) is decided
from the reachable rules (:mod:`abnfc.frontend.encoding`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

from .. import graph
from ..errors import AbnfError, Diagnostic, InvariantError, Span
from ..i18n import _, ngettext
from . import ast, ir, recursion
from .encoding import OCTETS, check_terminals, choose
from .imports import RuleDef, Scope, link, prose_error
from .lower import lower_rule
from .names import NameIndex
from .productive import productive_rules


@dataclass(frozen=True)
class Cycle:
    """A cycle of rule references: ``names[0] -> ... -> names[-1] -> names[0]``."""

    names: tuple[str, ...]
    reference: Span | None  # the reference that closes the cycle

    def __str__(self) -> str:
        return " -> ".join(self.names + self.names[:1])


@dataclass(frozen=True)
class ResolvedGrammar:
    rules: Mapping[str, RuleDef]  # lower-cased name -> definition
    start: str
    reachable: tuple[str, ...]  # start first, then breadth-first
    recursive: frozenset[str]  # reachable rules that are part of a reference cycle
    cycle: Cycle | None  # one such cycle, for messages
    warnings: tuple[Diagnostic, ...]
    ir: Mapping[str, ir.Node]  # each reachable rule, lowered
    graph: Mapping[str, tuple[str, ...]]  # each reachable rule -> the rules it refers to
    encoding: str = OCTETS  # what terminal values mean: octets or utf-8 code points
    notes: tuple[Diagnostic, ...] = ()  # for lint: the encoding chosen, imports, prose bound
    supplied: tuple[tuple[str, str], ...] = ()  # (rule, file) for each rule taken from an import
    components: tuple[recursion.Component, ...] = ()  # sets of mutually recursive rules, deepest first
    embedding: recursion.Embedding | None = None  # why the grammar is not regular (self-embedding)

    def rule(self, key: str) -> RuleDef:
        return self.rules[key]

    @property
    def start_name(self) -> str:
        return self.rules[self.start].name

    @property
    def is_regular(self) -> bool:
        """Whether it compiles to a DFA: no recursion, or only right- or left-linear recursion
        (:mod:`abnfc.frontend.recursion`)."""
        return self.embedding is None


@lru_cache(maxsize=1)
def core_grammar() -> ast.Grammar:
    from .parse import parse

    text = resources.files("abnfc.frontend").joinpath("core.abnf").read_text(encoding="utf-8")
    return parse(text, "<core rules>")


def resolve(grammar: ast.Grammar, start: str | None = None, *, imports: Sequence[ast.Grammar] = (),
            encoding: str | None = None, prose: bool = False) -> ResolvedGrammar:
    """Resolve ``grammar`` from ``start`` (default: its first rule), taking the rules it lacks
    from the grammars in ``imports``, with terminal values in ``encoding`` ("octets" or
    "utf-8"; by default chosen from the reachable rules).  ``prose``: a prose value no import
    defines is a warning, and matches nothing (to draw a grammar as written); otherwise an error."""
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    notes: list[Diagnostic] = []
    if not grammar.rules:
        where = Span(grammar.source, 1, 1, 1, 1) if grammar.source else None
        raise AbnfError.at(where, _("the grammar defines no rules"))
    scopes = [Scope(g.name, _rule_table(g, errors)) for g in (grammar, *imports)]
    linked = link(scopes, [start] if start else [])
    rules, notes = linked.rules, [*linked.notes]
    errors += linked.errors
    start_key = (start or grammar.rules[0].name).lower()
    if start_key not in rules:
        if errors:
            raise AbnfError(errors)
        wanted = start or grammar.rules[0].name
        raise AbnfError.at(None, _("start rule '{rule}' is not defined").format(rule=wanted)
                           + NameIndex(rules).suggest(start_key))
    reachable = _reachable(rules, start_key)
    used = set(reachable)
    names = NameIndex(rules)
    choice = choose(encoding, {k: r.definition for k, r in rules.items()}, reachable,
                    {k: r.name for k, r in rules.items()})
    notes += [choice.note] if choice.note else []
    for key, rule in rules.items():
        if not rule.core and (rule.source is None or key in used):
            _check_rule(rule, names, key in used, errors, warnings, prose)
            check_terminals(rule.name, rule.definition, choice.encoding, key in used,
                            errors, warnings, notes)
    unused = [rule for key, rule in rules.items() if not rule.core and rule.source is None and key not in used]
    if unused and start_key != grammar.rules[0].name.lower():
        # A start rule chosen among the grammar's rules (--start URI of uri.abnf) leaves the rules it
        # does not reach unused by choice, not by mistake: one note, which lint prints.
        notes.append(Diagnostic(ngettext(
            "{count} rule is not reachable from start rule '{start}': {rules}",
            "{count} rules are not reachable from start rule '{start}': {rules}", len(unused)).format(
                count=len(unused), start=rules[start_key].name, rules=", ".join(rule.name for rule in unused)),
            None, "note", kind="unused rule"))
        unused = []
    for rule in unused:
        warnings.append(Diagnostic(_("rule '{rule}' is never used (not reachable from start rule "
                                     "'{start}')").format(rule=rule.name, start=rules[start_key].name),
                                   rule.span, "warning", kind="unused rule"))
    if errors:
        raise AbnfError(sorted(errors, key=_position))
    lowered = {key: lower_rule(rules[key].name, rules[key].definition, choice.encoding, prose) for key in reachable}
    references = {key: tuple(ir.references(lowered[key])) for key in reachable}
    recursive, cycle = _cycles(rules, references)
    components: tuple[recursion.Component, ...] = ()
    embedding: recursion.Embedding | None = None
    if recursive:
        warnings += _unproductive_warnings(rules, reachable, lowered)
        components, embedding = recursion.classify(lowered, references, reachable,
                                                   {key: rules[key].name for key in reachable})
    return ResolvedGrammar(MappingProxyType(rules), start_key, tuple(reachable), recursive, cycle,
                           tuple(sorted(warnings, key=_position)), MappingProxyType(lowered),
                           MappingProxyType(references), choice.encoding,
                           tuple(sorted(notes, key=_position)), linked.supplied, components, embedding)


def _position(diagnostic: Diagnostic):
    span = diagnostic.span
    return (span.source.name, span.line, span.column) if span else ("", 0, 0)


def _rule_table(grammar: ast.Grammar, errors: list[Diagnostic]) -> dict[str, RuleDef]:
    rules = {r.key: RuleDef(r.name, r.definition, r.name_span, core=True) for r in core_grammar().rules}
    defined: dict[str, RuleDef] = {}
    for rule in grammar.rules:
        earlier = defined.get(rule.key)
        if earlier is None and rule.incremental and rule.key in rules:  # =/ extends a core rule
            earlier = RuleDef(rule.name, rules[rule.key].definition, rule.name_span)
        if earlier is None:
            # '=/' alone extends a rule that linking finds in an imported grammar
            defined[rule.key] = RuleDef(rule.name, rule.definition, rule.name_span, partial=rule.incremental)
        elif rule.incremental:
            merged = ast.Alternation(_alternatives(earlier.definition) + _alternatives(rule.definition),
                                     earlier.definition.span)
            defined[rule.key] = RuleDef(earlier.name, merged, earlier.span, partial=earlier.partial)
        elif earlier.partial:
            errors.append(Diagnostic(_("'=/' adds alternatives to rule '{rule}', but it has no "
                                       "earlier '=' definition").format(rule=rule.name), earlier.span))
        else:
            where = earlier.span.location() if earlier.span else _("an earlier line")
            errors.append(Diagnostic(_("rule '{rule}' is already defined at {where}; use '=/' "
                                       "to add alternatives").format(rule=rule.name, where=where),
                                     rule.name_span, kind="rule defined twice"))
    rules.update(defined)
    return rules


def _alternatives(node: ast.Node) -> tuple[ast.Node, ...]:
    return node.alternatives if isinstance(node, ast.Alternation) else (node,)


def _references(rule: RuleDef):
    return (n for n in ast.walk(rule.definition) if isinstance(n, ast.RuleRef))


def _reachable(rules: dict[str, RuleDef], start: str) -> list[str]:
    edges = _ReferenceEdges(rules)
    return graph.breadth_first(edges, [start])


class _ReferenceEdges(Mapping):
    """The defined rules each rule refers to, computed when first asked for."""

    def __init__(self, rules: Mapping[str, RuleDef]):
        self.rules = rules
        self.memo: dict[str, tuple[str, ...]] = {}

    def __getitem__(self, key: str) -> tuple[str, ...]:
        if key not in self.memo:
            self.memo[key] = tuple(dict.fromkeys(
                ref.key for ref in _references(self.rules[key]) if ref.key in self.rules))
        return self.memo[key]

    def __iter__(self):
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)


def _check_rule(rule: RuleDef, names: NameIndex, reachable: bool, errors, warnings, prose: bool = False) -> None:
    rules = names.rules
    for node in ast.walk(rule.definition):
        if isinstance(node, ast.Concatenation):
            warnings += _adjacent_elements(node)
        if isinstance(node, ast.RuleRef) and node.key not in rules:
            message = _("undefined rule '{rule}'").format(rule=node.name) + names.suggest(node.key)
            if reachable:
                errors.append(Diagnostic(message, node.span, kind="undefined rule"))
            else:
                warnings.append(Diagnostic(message + _(" (in a rule the start rule does not use)"),
                                           node.span, "warning", kind="undefined rule"))
        elif isinstance(node, ast.NumRange) and node.low > node.high:
            _report(_("range {range} is empty: its low end is above its high end").format(range=node), node.span,
                    reachable, errors, warnings)
        elif isinstance(node, ast.Repetition) and node.max is not None and node.min > node.max:
            _report(_("repetition {min}*{max} has a minimum above its maximum").format(min=node.min, max=node.max),
                    node.span, reachable, errors, warnings)
        elif isinstance(node, ast.ProseVal) and reachable:
            if prose:
                warnings.append(Diagnostic(prose_error(rule.name, rule.definition, node, drawn=True), node.span,
                                           "warning"))
            else:
                errors.append(Diagnostic(prose_error(rule.name, rule.definition, node), node.span))


def _report(message: str, span: Span | None, reachable: bool, errors, warnings) -> None:
    """An error in a rule the start rule reaches; elsewhere a warning."""
    if reachable:
        errors.append(Diagnostic(message, span))
    else:
        warnings.append(Diagnostic(message + _(" (in a rule the start rule does not use)"), span, "warning"))


def _adjacent_elements(node: ast.Concatenation) -> list[Diagnostic]:
    """RFC 5234 section 4 separates concatenated elements by white space; ``"a""b"`` lacks it."""
    found = []
    for left, right in zip(node.items, node.items[1:], strict=False):
        if left.span and right.span and (left.span.end_line, left.span.end_column) == (
                right.span.line, right.span.column):
            found.append(Diagnostic(_("no white space between {left} and {right}: RFC 5234 needs it between "
                                      "concatenated elements (read as a concatenation)").format(
                                          left=_excerpt(left), right=_excerpt(right)),
                                    right.span, "warning", kind="elements without white space"))
    return found


def _excerpt(node: ast.Node) -> str:
    """The node's source text, shortened: printing the node itself would recurse on its nesting."""
    span = node.span
    if span is None or span.line != span.end_line:
        text = type(node).__name__.lower()
    else:
        text = span.source.line_text(span.line)[span.column - 1: span.end_column - 1]
    return text if len(text) <= 30 else text[:27] + "..."


def _unproductive_warnings(rules: Mapping[str, RuleDef], reachable: list[str],
                           lowered: Mapping[str, ir.Node]) -> list[Diagnostic]:
    productive = productive_rules(lowered)
    warnings = []
    for key in reachable:
        if key not in productive:
            needed = sorted({rules[r.key].name for r in _references(rules[key])
                             if r.key in rules and r.key not in productive})
            warnings.append(Diagnostic(
                _("rule '{rule}' can never match anything: each of its alternatives needs {needed}, and "
                  "that recursion has no way out").format(rule=rules[key].name,
                                                         needed=_(" or ").join(repr(n) for n in needed)),
                rules[key].span, "warning"))
    return warnings


def _cycles(rules: Mapping[str, RuleDef], references: Mapping[str, tuple[str, ...]]
            ) -> tuple[frozenset[str], Cycle | None]:
    """The recursive rules, and a shortest cycle through the earliest rule of the first looping
    component Tarjan's algorithm finds (the one deepest in the reference graph)."""
    recursive: set[str] = set()
    first: Cycle | None = None
    for component in graph.strongly_connected(references):
        members: set[str] = set(component)
        if len(component) == 1 and component[0] not in references[component[0]]:
            continue
        recursive |= members
        if first is None:
            start = next(key for key in references if key in members)
            path = graph.shortest_cycle(references, start, members.__contains__)
            if path is None:
                raise InvariantError(f"rule {start} is in a looping component but on no cycle")
            closing = next(ref.span for ref in _references(rules[path[-1]]) if ref.key == start)
            first = Cycle(tuple(rules[key].name for key in path), closing)
    return frozenset(recursive), first
