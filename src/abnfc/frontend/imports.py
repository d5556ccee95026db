"""Linking: rules a grammar takes from imported grammars, and prose values that name rules.

RFC grammars use rules of other RFCs (RFC 3987 takes ``IPv6address`` from RFC 3986; RFC 9110
writes ``URI-reference = <URI-reference, see [URI], Section 4.1>``).  Given the grammar and the
imported grammars in order, each as a rule table (its own definitions and the core rules), a
name written in the grammar is bound, as a linker binds symbols, to the first of:

1. the grammar's own definition;
2. the core rule of that name;
3. the first imported grammar, in order, that defines it.

A name written in a rule of imported grammar ``S`` is bound to ``S``'s own definition first (a
rule taken from an import pulls in what it references from there), then to the core rule as the
grammar sees it, then to the grammar's own definition, then to the other imports in order.  So
the grammar's rules never change the meaning of an imported rule (RFC 9116 defines its own
``comment``; RFC 5322's ``CFWS``, which it imports, keeps RFC 5322's), except in the two ways the
grammar asks for: a core rule it redefines or extends is the one every file sees (RFC 6532
writes ``VCHAR =/ UTF8-non-ascii`` so that RFC 5322's rules accept UTF-8), and a rule it
extends with ``=/`` alone, with no ``=`` of its own, extends the imported definition for every
file that uses it (RFC 6532's ``ctext =/ UTF8-non-ascii``).

A rule whose whole definition is one prose value is a stand-in: a definition found by the same
search replaces it.  Prose values are rewritten on the way: ``0<...>`` matches the empty string,
and a prose value whose text is exactly a rule name refers to that rule.  Instances keep the
plain lower-cased name as their key unless another rule holds it; then the key is qualified
with the file's position in the import list, and references to it carry that key
(``RuleRef.target``).

Only what the grammar's rules (and the start rule) reach is taken from the imports: a
breadth-first work list over bound references.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..errors import Diagnostic, Span
from ..i18n import _
from . import ast


@dataclass(frozen=True)
class RuleDef:
    """A rule of a grammar's rule table: its definition as written (``=/`` merged)."""

    name: str
    definition: ast.Node
    span: Span | None
    core: bool = False
    partial: bool = False  # written only with '=/': extends a definition found by linking
    source: str | None = None  # the imported grammar file it was taken from


MAIN = 0  # scope index of the grammar itself; imports are 1..n
CORE = -1  # scope of the core rules the grammar does not redefine

Instance = tuple[int, str]  # (scope, lower-cased rule name)


@dataclass(frozen=True)
class Linked:
    rules: dict[str, RuleDef]  # key -> definition, references bound
    supplied: tuple[tuple[str, str], ...]  # (rule name, file) for each rule taken from an import
    notes: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]


@dataclass(frozen=True)
class Scope:
    name: str  # the file, for messages
    table: Mapping[str, RuleDef]  # its rule table: core rules and its own definitions

    def own(self, key: str) -> RuleDef | None:
        """Its own usable definition of ``key``: not a core rule, not a prose stand-in."""
        rule = self.table.get(key)
        return rule if rule is not None and not rule.core and not is_stand_in(rule) else None


def is_stand_in(rule: RuleDef) -> bool:
    """A rule defined only by a prose value, as RFCs write rules of other RFCs."""
    return isinstance(rule.definition, ast.ProseVal) and not rule.partial


def link(scopes: Sequence[Scope], roots: Sequence[str]) -> Linked:
    """Bind every rule the main grammar (``scopes[0]``) defines or ``roots`` names."""
    return _Linker(scopes).run(roots)


class _Linker:
    def __init__(self, scopes: Sequence[Scope]):
        self.scopes = scopes
        self.main = scopes[MAIN]
        self.keys: dict[Instance, str] = {}
        self.taken: set[str] = set(self.main.table)  # core rules and the grammar's rules
        self.bound: dict[tuple[int, str], Instance | None] = {}
        self.rules: dict[str, RuleDef] = {}
        self.queue: deque[Instance] = deque()
        self.notes: list[Diagnostic] = []
        self.errors: list[Diagnostic] = []
        self.supplied: list[tuple[str, str]] = []

    def run(self, roots: Sequence[str]) -> Linked:
        for key, rule in self.main.table.items():
            if rule.core:
                self.rules[key] = rule
            elif is_stand_in(rule) and self._replacement(MAIN, key) is not None:
                self.taken.discard(key)  # the imported definition takes the name
        for key, rule in self.main.table.items():
            if not rule.core:
                self._key(self.bind(MAIN, key) or (MAIN, key))
        for name in roots:
            found = self.bind(MAIN, name.lower())
            if found is not None:
                self._key(found)
        while self.queue:
            self._build(self.queue.popleft())
        return Linked(self.rules, tuple(self.supplied), tuple(self.notes), tuple(self.errors))

    # -- binding names ---------------------------------------------------------------------

    def bind(self, scope: int, key: str) -> Instance | None:
        """The instance name ``key`` written in ``scope`` refers to (see the module docstring)."""
        if (scope, key) not in self.bound:
            self.bound[scope, key] = self._bind(scope, key)
        return self.bound[scope, key]

    def _bind(self, scope: int, key: str) -> Instance | None:
        if scope > MAIN and self.scopes[scope].own(key) is not None:
            extended = self.main.table.get(key)
            if extended is not None and extended.partial and self._replacement(MAIN, key) == (scope, key):
                return MAIN, key  # the grammar extends this very rule with '=/'
            return scope, key
        if key in self.main.table and self.main.table[key].core:
            return CORE, key
        if self.main.own(key) is not None:  # the grammar's rules, core rules it redefines included
            return MAIN, key
        found = self._replacement(scope, key)
        if found is not None:
            return found
        for where in (scope, MAIN):
            if where >= MAIN and key in self.scopes[where].table:
                return where, key  # a stand-in nothing replaces: its prose is reported if reached
        return None

    def _replacement(self, scope: int, key: str) -> Instance | None:
        """A definition from the core rules or the imports, for a name ``scope`` lacks."""
        if key in self.main.table and self.main.table[key].core:
            return CORE, key
        for index in range(1, len(self.scopes)):
            if index != scope and self.scopes[index].own(key) is not None:
                return index, key
        return None

    def _key(self, instance: Instance) -> str:
        """The rule-table key of ``instance``, allocating it (and queueing it) when new."""
        if instance in self.keys:
            return self.keys[instance]
        scope, name = instance
        key = name if scope <= MAIN or name not in self.taken else f"{name}@{scope}"
        self.taken.add(key)
        self.keys[instance] = key
        if scope != CORE:
            self.queue.append(instance)
        return key

    # -- building instances ----------------------------------------------------------------

    def _build(self, instance: Instance) -> None:
        scope, name = instance
        key = self.keys[instance]
        rule = self.scopes[scope].table[name]
        definition = self._bound(scope, rule)
        if rule.partial:
            base = self._replacement(scope, name)
            if base is None:
                self.errors.append(Diagnostic(
                    _("'=/' adds alternatives to rule '{rule}', but it has no earlier '=' "
                      "definition, and no imported grammar defines it").format(rule=rule.name), rule.span))
            else:
                base_rule = self._base(base)
                definition = ast.Alternation(_alternatives(base_rule.definition) + _alternatives(definition),
                                             base_rule.definition.span)
        source = self.scopes[scope].name if scope > MAIN else None
        self.rules[key] = replace(rule, definition=definition, partial=False, source=source)
        if source is not None:
            self.supplied.append((rule.name, source))
            main_rule = self.main.table.get(name)
            if main_rule is not None and is_stand_in(main_rule):
                self.notes.append(Diagnostic(
                    _("rule '{rule}' is written as prose {prose}; using its definition in {source}").format(
                        rule=main_rule.name, prose=main_rule.definition, source=source), main_rule.span, "note"))

    def _base(self, instance: Instance) -> RuleDef:
        scope, name = instance
        if scope == CORE:
            return self.main.table[name]
        rule = self.scopes[scope].table[name]
        return replace(rule, definition=self._bound(scope, rule))

    def _bound(self, scope: int, rule: RuleDef) -> ast.Node:
        """``rule``'s definition with prose rewritten and each reference bound to its key."""
        home = MAIN if scope == CORE else scope
        own_key = rule.name.lower()

        def change(node: ast.Node) -> ast.Node:
            if isinstance(node, ast.ProseVal):
                return self._prose(home, node, own_key, rule.name)
            if isinstance(node, ast.RuleRef):
                found = self.bind(home, node.key)
                if found is None:
                    return node  # undefined: resolve reports it
                key = self._key(found)
                return node if key == node.name.lower() else replace(node, target=key)
            return node

        if not self._needs_rewrite(home, rule.definition):
            return rule.definition
        return ast.rewrite(ast.rewrite(rule.definition, _empty_prose), change)

    def _needs_rewrite(self, scope: int, definition: ast.Node) -> bool:
        """Whether a definition holds prose or a reference whose key is not its name (most do
        not, and walking is cheaper than rebuilding); allocates the keys it binds."""
        for node in ast.walk(definition):
            if isinstance(node, ast.ProseVal):
                return True
            if isinstance(node, ast.RuleRef):
                found = self.bind(scope, node.key)
                if found is not None and self._key(found) != node.name.lower():
                    return True
        return False

    def _prose(self, scope: int, node: ast.ProseVal, own_key: str, rule_name: str) -> ast.Node:
        name = node.text.strip()
        if not _is_rule_name(name) or name.lower() == own_key:
            return node
        found = self.bind(scope, name.lower())
        if found is None or (found[0] >= MAIN and is_stand_in(self.scopes[found[0]].table[found[1]])):
            return node
        key = self._key(found)
        where = _("a core rule") if found[0] == CORE else _("defined in {file}").format(file=self._file(found[0]))
        self.notes.append(Diagnostic(_("prose value {prose} in rule '{rule}' refers to rule '{name}' ({where})").format(
            prose=node, rule=rule_name, name=name, where=where), node.span, "note"))
        return ast.RuleRef(name, node.span, None if key == name.lower() else key)

    def _file(self, scope: int) -> str:
        return _("this grammar") if scope == MAIN else self.scopes[scope].name


def _empty_prose(node: ast.Node) -> ast.Node:
    """``0<...>``: zero repetitions of anything match the empty string (RFC 3986's path-empty)."""
    if isinstance(node, ast.Repetition) and node.max == 0 and isinstance(node.element, ast.ProseVal):
        return replace(node, element=ast.CharVal("", span=node.element.span))
    return node


def _is_rule_name(text: str) -> bool:
    return bool(text) and text[0].isascii() and text[0].isalpha() and all(
        c.isascii() and (c.isalnum() or c == "-") for c in text)


def _alternatives(node: ast.Node) -> tuple[ast.Node, ...]:
    return node.alternatives if isinstance(node, ast.Alternation) else (node,)


def prose_error(rule: str, definition: ast.Node, node: ast.ProseVal, drawn: bool = False) -> str:
    """The message for a prose value the start rule reaches, saying how to supply a definition
    (``drawn``: for a picture, where the prose is drawn as prose)."""
    if definition == node and drawn:
        return _("rule '{rule}' is written as prose {prose}, drawn as prose; give a grammar that defines "
                 "'{rule}' with --import FILE, or define it here in ABNF").format(rule=rule, prose=node)
    if definition == node:
        return _("rule '{rule}' is written as prose {prose}, which cannot be matched; give a grammar "
                 "that defines '{rule}' with --import FILE, or define it here in ABNF").format(rule=rule, prose=node)
    return _("prose value {prose} in rule '{rule}' cannot be matched: it describes text in words; "
             "replace it with ABNF, or with the name of a rule defined here or in a grammar given "
             "with --import FILE (a prose value that is exactly a rule name, <name>, refers to it)").format(
                 prose=node, rule=rule)
