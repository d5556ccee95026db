"""Automatic neighbours: the grammar's mutants one edit away, the deviations an implementation of
it most likely has (mutation-based conformance testing: the faults worth testing for are near
the specification; the edit kinds are the classic mutation operators of grammar-based testing,
applied to ABNF).

The edits are made on the grammar's parsed rules (:mod:`abnfc.frontend.ast`), one at a time:

- a range of values ``%xLO-HI`` with a bound moved by one either way (``%xE1-EC`` to
  ``%xE1-ED``: one byte too many, a classic off-by-one), or widened to every byte;
- a repetition count changed by one, or its upper bound removed (``2( x )`` to ``3( x )``,
  ``1( x )`` and ``2*( x )``);
- an alternative dropped (``a / b / c`` to ``a / c``);
- an optional element made required (``[ x ]`` to ``( x )``), and an element of a concatenation
  made optional (``x y`` to ``[ x ] y``);
- a case-sensitive string made case-insensitive (``%s"T"`` and a ``%x`` chain with letters, such
  as ``%x74.72.75.65``, to ``"T"`` and ``"true"``), and a case-insensitive one made case-sensitive.

Each mutant is compiled with the grammar's start rule and limits; the regular ones whose language
differs from the grammar's are kept, each language once, with a label saying the edit and its
line (``line 12: %xE1-EC widened to %xE1-ED``).  The cost is bounded: grammars larger than
:data:`MAX_TEXT` characters or :data:`MAX_STATES` minimal DFA states get none, at most
:data:`MAX_EDITS` edits are compiled, fewer for a grammar with a large NFA (:data:`MAX_NFA_WORK`:
a mutant compiles in about the grammar's time), spread evenly over the grammar, and at most
:data:`MAX_MUTANTS` are kept.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from ..automata.dfa import Dfa
from ..automata.minimize import canonical
from ..automata.product import equivalent
from ..errors import AbnfError
from ..frontend import ast
from ..i18n import _
from ..pipeline import Compilation

MAX_MUTANTS = 200
MAX_EDITS = 400  # compiled; UTF-8's 95 compile in 0.2 s, RFC 3339's 47 in 0.15 s
MAX_NFA_WORK = 100_000  # NFA states over all compiled edits: RFC 2396's URI (4,382 states) gets 22 in 3 s
MAX_TEXT = 20_000  # characters: larger grammars get no automatic mutants (each is compiled)
MAX_STATES = 64  # of the grammar's minimal DFA: compiling a mutant of URI's (hundreds) takes 0.5 s
MAX_SHOWN = 40  # characters of an element quoted in a label


@dataclass(frozen=True)
class Mutant:
    label: str  # the edit and where: "line 12: %xE1-EC widened to %xE1-ED"
    dfa: Dfa  # minimal


@dataclass(frozen=True)
class Edit:
    label: str
    grammar: ast.Grammar


Path = tuple[int, ...]  # child indices from a rule's definition down to a node


def _sites(definition: ast.Node) -> Iterator[tuple[Path, ast.Node]]:
    """Every node of a rule's definition with its path, in the order of the text."""
    stack: list[tuple[Path, ast.Node]] = [((), definition)]
    while stack:
        path, node = stack.pop()
        yield path, node
        kids = ast.children(node)
        stack.extend(((*path, index), kid) for index, kid in reversed(list(enumerate(kids))))


def _replaced(node: ast.Node, path: Path, new: ast.Node | None) -> ast.Node:
    """``node`` with the node at ``path`` replaced by ``new`` (``None``: removed from its
    alternation)."""
    if not path:
        assert new is not None
        return new
    kids = list(ast.children(node))
    inner = _replaced(kids[path[0]], path[1:], new) if len(path) > 1 or new is not None else None
    if inner is None:
        del kids[path[0]]
    else:
        kids[path[0]] = inner
    return ast.with_children(node, tuple(kids))


def _shown(node: ast.Node) -> str:
    text = " ".join(ast.to_text(node).split())
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."


def _changes(node: ast.Node, parent: ast.Node | None) -> Iterator[tuple[str, ast.Node | None]]:
    """The one-node edits of ``node`` (whose parent is ``parent``): (what, replacement), where
    ``what`` says the edit without its line and ``None`` removes an alternative."""
    if isinstance(node, ast.NumRange):
        yield from _range_changes(node)
    elif isinstance(node, ast.Repetition):
        yield from _count_changes(node)
    elif isinstance(node, ast.Option):
        yield _("optional `{element}` made required").format(element=_shown(node)), ast.Group(node.element)
    elif isinstance(node, ast.CharVal | ast.NumVal):
        yield from _case_changes(node)
    if isinstance(parent, ast.Alternation) and len(parent.alternatives) > 1:
        yield _("alternative `{element}` dropped").format(element=_shown(node)), None
    empty = isinstance(node, ast.Option) or (isinstance(node, ast.Repetition) and node.min == 0)
    if isinstance(parent, ast.Concatenation) and len(parent.items) > 1 and not empty:
        yield _("`{element}` made optional").format(element=_shown(node)), ast.Option(node)


def _range_changes(node: ast.NumRange) -> Iterator[tuple[str, ast.Node]]:
    top = 0xFF if node.high <= 0xFF else 0x10FFFF
    lo, hi = node.low, node.high
    whole = [(0, 0xFF)] if top == 0xFF else []  # every byte; a code point range is not widened so
    for new_lo, new_hi in [(lo - 1, hi), (lo, hi + 1), (lo + 1, hi), (lo, hi - 1), *whole]:
        if not 0 <= new_lo <= new_hi <= top or (new_lo, new_hi) == (lo, hi):
            continue
        new = replace(node, low=new_lo, high=new_hi, base="x")
        wider = new_lo <= lo and new_hi >= hi
        what = _("{old} widened to {new}") if wider else _("{old} narrowed to {new}")
        yield what.format(old=node, new=new), new


def _count_changes(node: ast.Repetition) -> Iterator[tuple[str, ast.Node]]:
    low, high = node.min, node.max
    bounds = []
    if high is not None and low == high:
        bounds = [(low + 1, low + 1), (low - 1, low - 1), (low, None)]
    elif high is not None:
        bounds = [(low, high + 1), (low, high - 1), (low, None)]
    if low > 0 and high != low:
        bounds.append((low - 1, high))
    for new_low, new_high in bounds:
        if new_low < 0 or (new_high is not None and (new_high < max(new_low, 1))):
            continue
        new = replace(node, min=new_low, max=new_high)
        yield _("`{old}` changed to `{new}`").format(old=_shown(node), new=_shown(new)), new


def _case_changes(node: ast.CharVal | ast.NumVal) -> Iterator[tuple[str, ast.Node]]:
    if isinstance(node, ast.CharVal):
        if not any(c.isascii() and c.isalpha() for c in node.text):
            return
        new = replace(node, case_sensitive=not node.case_sensitive, prefixed=True)
        what = _("`{old}` made case-insensitive") if node.case_sensitive else _("`{old}` made case-sensitive")
        yield what.format(old=node), new
        return
    text = "".join(map(chr, node.values))
    printable = all(0x20 <= v <= 0x7E and v != 0x22 for v in node.values)
    if node.base != "x" or not printable or not any(c.isalpha() for c in text):
        return
    yield _("`{old}` made case-insensitive").format(old=node), ast.CharVal(text)


def edits(grammar: ast.Grammar) -> Iterator[Edit]:
    """Every one-edit mutant of ``grammar``, labelled (see the module's docstring)."""
    for index, rule in enumerate(grammar.rules):
        parents: dict[Path, ast.Node] = {}
        for path, node in _sites(rule.definition):
            parents[path] = node
            parent = parents.get(path[:-1]) if path else None
            for what, new in _changes(node, parent):
                definition = _replaced(rule.definition, path, new)
                rules = list(grammar.rules)
                rules[index] = replace(rule, definition=definition)
                line = node.span.line if node.span else rule.span.line if rule.span else 0
                label = _("line {line}: {edit}").format(line=line, edit=what)
                yield Edit(label, replace(grammar, rules=tuple(rules)))


def labelled(compilation: Compilation) -> list[Mutant]:
    """The grammar's distinct one-edit mutants, labelled (see the module's docstring)."""
    grammar = compilation.grammar
    if len(grammar.text) > MAX_TEXT or not compilation.resolved.is_regular:
        return []
    try:
        minimal = compilation.minimal
    except AbnfError:  # a DFA over the limits: its mutants would be too
        return []
    if minimal.num_states > MAX_STATES:
        return []
    found: list[Mutant] = []
    seen: set[tuple] = set()
    for text, edit in _spread(compilation):
        if len(found) >= MAX_MUTANTS:
            break
        dfa = _compiled(compilation, edit.grammar, text)
        if dfa is None:
            continue
        key = (dfa.classes, dfa.transitions, dfa.start, dfa.accepting)
        if key in seen or equivalent(dfa, minimal):
            continue
        seen.add(key)
        found.append(Mutant(edit.label, dfa))
    return found


def _spread(compilation: Compilation) -> list[tuple[str, Edit]]:
    """The distinct edits to compile (with their texts): all of them, or, past the budget
    (:data:`MAX_EDITS`, and :data:`MAX_NFA_WORK` over the grammar's NFA states, which a mutant
    costs about as much as), as many spread evenly over the grammar."""
    distinct = {str(edit.grammar): edit for edit in edits(compilation.grammar.ast)}
    allowed = min(MAX_EDITS, MAX_NFA_WORK // max(1, len(compilation.nfa.edges)))
    chosen = list(distinct.items())
    if len(chosen) <= allowed:
        return chosen
    return [chosen[index * len(chosen) // allowed] for index in range(allowed)]


def _compiled(compilation: Compilation, edited: ast.Grammar, text: str) -> Dfa | None:
    """The canonical minimal DFA of the edited grammar, or None when it is no regular grammar
    (an edit can make a rule undefined-free but self-embedding, or an empty concatenation)."""
    try:
        mutant = Compilation(replace(compilation.grammar, ast=edited, text=text), compilation.start,
                             compilation.limits)
        if not mutant.resolved.is_regular:
            return None
        return canonical(mutant.minimal)
    except AbnfError:
        return None


def mutants(compilation: Compilation) -> list[Dfa]:
    """The minimal DFAs of :func:`labelled`'s mutants."""
    return [mutant.dfa for mutant in labelled(compilation)]
