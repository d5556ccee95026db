"""A DFA as an ABNF grammar that abnfc compiles back to the same language.

State elimination (Brzozowski and McCluskey, "Signal flow graph techniques for sequential
circuit state diagrams", 1963): a fresh start and a fresh end are joined to the DFA's live
states by empty moves, and the live states are removed one by one, each removal replacing the
paths through a state ``q`` by ``in q* out`` expressions on the edges that bypassed it.  States
are removed in order of fewest in-edges times out-edges first (a common heuristic for small
expressions).  Expressions are simplified as they are built: byte sets on parallel edges are
one alternative, nested alternatives and sequences are flattened, a common first or last
element of an alternation is factored out, and ``x *x`` reads ``1*x``.

The expression can grow exponentially with the states.  So a state whose removal would make the
edges print as more than :data:`MAX_TEXT` characters, and longer than before, is kept instead, and elimination goes on
with the others; each kept state becomes a rule of its own (``part-N``), its expression naming
the kept states it leads to, right-linear, so abnfc compiles it just the same.  Most languages
keep none and print as one expression.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..charset import Ranges, normalize
from ..errors import printable


@dataclass(frozen=True)
class Bytes:
    ranges: Ranges


@dataclass(frozen=True)
class Cat:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Alt:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Star:
    item: Expr
    at_least: int = 0


@dataclass(frozen=True)
class Part:
    """A kept state's rule, referred to at the end of a path that leads to it."""

    name: str


Expr = Bytes | Cat | Alt | Star | Part
EMPTY = Cat(())  # the empty string


MAX_TEXT = 4000  # characters of the printed edges; a removal that passes it (growing them) keeps the state


def to_abnf(dfa: Dfa, rule: str, comments: tuple[str, ...] = ()) -> str:
    """ABNF text: ``comments`` (each a ``;`` line), then ``rule = <the DFA's language>``: one
    expression, or, where that would pass :data:`MAX_TEXT` characters, that rule and a rule per
    kept state."""
    return system_text(eliminate(dfa), rule, comments)


def system_text(system: System | None, rule: str, comments: tuple[str, ...] = ()) -> str:
    """:func:`to_abnf` of what :func:`eliminate` left (None: the empty language)."""
    lines = comment_lines(comments)
    if system is None:  # ABNF has no element that matches nothing; a rule with no way out does
        return "\n".join([*lines, f"{rule} = never", "never = never  ; no input matches", ""])
    names = {state: f"part-{number}" for number, state in enumerate(system.kept, 1)}
    rules = [f"{rule} = {_rule_text(system.start_edges, names)}"]
    rules += [f"{names[state]} = {_rule_text(system.parts[state], names)}" for state in system.kept]
    return "\n".join([*lines, *rules, ""])


def comment_lines(comments: tuple[str, ...]) -> list[str]:
    """Each comment as one ``;`` line: what it quotes (a --cmd, a grammar's path) may hold a line
    break, which would end the comment and start a rule of the learned grammar, or a terminal
    escape; those are written as escapes (``\\n``)."""
    return [f"; {printable(line)}".rstrip() for line in comments]


@dataclass(frozen=True)
class System:
    """What elimination leaves: the expressions from the start and from each kept state to each
    kept state (:class:`Part`) or to the end (None)."""

    start_edges: tuple[tuple[Expr, int | None], ...]
    kept: tuple[int, ...]
    parts: dict[int, tuple[tuple[Expr, int | None], ...]]

    @property
    def expression(self) -> Expr | None:
        """The language as one expression, when no state was kept."""
        if self.kept:
            return None
        return next((expression for expression, target in self.start_edges if target is None), None)


def language(dfa: Dfa) -> Expr | None:
    """An expression of the DFA's language; None when it is empty.  TooLong when states had to
    be kept."""
    system = eliminate(dfa)
    if system is None:
        return None
    if system.kept:
        raise TooLong()
    return system.expression


class TooLong(Exception):
    """One expression of the language would print longer than :data:`MAX_TEXT`."""


START, END = -1, -2


def eliminate(dfa: Dfa) -> System | None:
    """State elimination, keeping the states whose removal would pass :data:`MAX_TEXT`; None
    when the language is empty."""
    live = _live(dfa)
    if dfa.start not in live:
        return None
    edges = _edges(dfa, live)
    sizes: dict[int, tuple[Expr, int]] = {}
    total = sum(_size(e, sizes) for e in edges.values())
    kept: list[int] = []
    remaining = set(live)
    while remaining:
        state = min(remaining, key=lambda q: (_degree(edges, q), q))
        remaining.discard(state)
        removed, added = _elimination(edges, state)
        grown = total - sum(_size(edges[key], sizes) for key in removed) + sum(
            _size(e, sizes) - (_size(edges[key], sizes) if key in edges and key not in removed else 0)
            for key, e in added.items())
        if grown > max(MAX_TEXT, total):  # a removal that shortens the text is always taken
            kept.append(state)
            continue
        for key in removed:
            del edges[key]
        edges.update(added)
        total = grown
    kept.sort()

    def leaving(source: int) -> tuple[tuple[Expr, int | None], ...]:
        found = [(e, None if q == END else q) for (p, q), e in edges.items() if p == source]
        return tuple(sorted(found, key=lambda item: -1 if item[1] is None else item[1]))
    return System(leaving(START), tuple(kept), {state: leaving(state) for state in kept})


def _edges(dfa: Dfa, live: set[int]) -> dict[tuple[int, int], Expr]:
    edges: dict[tuple[int, int], Expr] = {}
    for state in live:
        targets: dict[int, list] = {}
        for cls, target in enumerate(dfa.transitions[state]):
            if target in live:
                targets.setdefault(target, []).extend(dfa.classes[cls])
        for target, ranges in targets.items():
            edges[state, target] = Bytes(normalize(ranges))
        if state in dfa.accepting:
            edges[state, END] = EMPTY
    edges[START, dfa.start] = EMPTY
    return edges


def _rule_text(edges: tuple[tuple[Expr, int | None], ...], names: dict[int, str]) -> str:
    """``e1 part-1 / e2 part-2 / e3``: right-linear (a part's self-loop is a reference to itself)."""
    parts = [render(cat([e, Part(names[target])]) if target is not None else e, top=True) for e, target in edges]
    return " / ".join(parts) if parts else '""'


def _size(expression: Expr, sizes: dict[int, tuple[Expr, int]]) -> int:
    """About how many characters ``expression`` prints as (shared parts counted each time they
    print, but worked out once; the cache keeps each expression alive, so no id is reused)."""
    known = sizes.get(id(expression))
    if known is not None:
        return known[1]
    match expression:
        case Bytes():
            found = 10 * len(expression.ranges)
        case Cat() | Alt():
            found = 3 + sum(_size(item, sizes) for item in expression.items)
        case Star():
            found = 5 + _size(expression.item, sizes)
        case Part():
            found = len(expression.name) + 1
    sizes[id(expression)] = (expression, found)
    return found


def _live(dfa: Dfa) -> set[int]:
    """States reachable from the start from which an accepting state can be reached."""
    reachable, stack = {dfa.start}, [dfa.start]
    while stack:
        for target in dfa.transitions[stack.pop()]:
            if target not in reachable:
                reachable.add(target)
                stack.append(target)
    useful = set(dfa.accepting) & reachable
    changed = True
    while changed:
        changed = False
        for state in reachable - useful:
            if any(t in useful for t in dfa.transitions[state]):
                useful.add(state)
                changed = True
    return useful


def _degree(edges: dict[tuple[int, int], Expr], state: int) -> int:
    ins = sum(1 for (p, q) in edges if q == state and p != state)
    outs = sum(1 for (p, q) in edges if p == state and q != state)
    return ins * outs


def _elimination(edges: dict[tuple[int, int], Expr], state: int
                 ) -> tuple[list[tuple[int, int]], dict[tuple[int, int], Expr]]:
    """The edges removing ``state`` takes away and the edges it sets (new or replaced)."""
    loop = edges.get((state, state))
    ins = [(p, e) for (p, q), e in edges.items() if q == state and p != state]
    outs = [(q, e) for (p, q), e in edges.items() if p == state and q != state]
    removed = [(p, state) for p, _e in ins] + [(state, q) for q, _e in outs]
    if loop is not None:
        removed.append((state, state))
    middle = [] if loop is None else [star(loop)]
    added: dict[tuple[int, int], Expr] = {}
    for p, into in ins:
        for q, out in outs:
            path = cat([into, *middle, out])
            before = added.get((p, q), edges.get((p, q)))
            added[p, q] = alt([before, path]) if before is not None else path
    return removed, added


def star(item: Expr) -> Expr:
    if isinstance(item, Star) and item.at_least <= 1:
        return Star(item.item)
    return Star(item)


def cat(items: Sequence[Expr]) -> Expr:
    flat: list[Expr] = []
    for item in items:
        flat.extend(item.items if isinstance(item, Cat) else [item])
    merged: list[Expr] = []
    for item in flat:  # x *x -> 1*x
        if isinstance(item, Star) and item.at_least == 0 and merged and merged[-1] == item.item:
            merged[-1] = Star(item.item, 1)
        else:
            merged.append(item)
    if not merged:
        return EMPTY
    return merged[0] if len(merged) == 1 else Cat(tuple(merged))


def alt(items: Sequence[Expr]) -> Expr:
    flat: list[Expr] = []
    for item in items:
        flat.extend(item.items if isinstance(item, Alt) else [item])
    single = [i for i in flat if isinstance(i, Bytes)]
    rest: list[Expr] = [i for i in flat if not isinstance(i, Bytes)]
    if len(single) > 1:
        rest.insert(0, Bytes(normalize(r for i in single for r in i.ranges)))
    else:
        rest = single + rest
    unique = list(dict.fromkeys(rest))
    factored = _factor(unique)
    if factored is not None:
        return factored
    return unique[0] if len(unique) == 1 else Alt(tuple(unique))


def _factor(items: Sequence[Expr]) -> Expr | None:
    """``a b / a c`` -> ``a ( b / c )`` and ``b a / c a`` -> ``( b / c ) a``."""
    if len(items) < 2:
        return None
    parts: list[list[Expr]] = [list(i.items) if isinstance(i, Cat) else [i] for i in items]
    if all(p and p[0] == parts[0][0] for p in parts) and any(len(p) > 1 for p in parts):
        return cat([parts[0][0], alt([cat(p[1:]) for p in parts])])
    if all(p and p[-1] == parts[0][-1] for p in parts) and any(len(p) > 1 for p in parts):
        return cat([alt([cat(p[:-1]) for p in parts]), parts[0][-1]])
    return None


def render(expression: Expr, top: bool = False) -> str:
    match expression:
        case Bytes():
            text = " / ".join(_value(lo, hi) for lo, hi in expression.ranges)
            return text if top or len(expression.ranges) == 1 else f"( {text} )"
        case Cat():
            if not expression.items:
                return '""'
            return " ".join(render(item) for item in expression.items)
        case Alt():
            others = [item for item in expression.items if item != EMPTY]
            text = " / ".join(render(item, top=True) for item in others)
            if len(others) < len(expression.items):  # the empty string is one alternative
                return f"[ {text} ]"
            return text if top else f"( {text} )"
        case Star():
            prefix = "*" if expression.at_least == 0 else f"{expression.at_least}*"
            inner = render(expression.item, top=True)
            simple = isinstance(expression.item, Bytes) and len(expression.item.ranges) == 1
            return f"{prefix}{inner}" if simple else f"{prefix}( {inner} )"
        case Part():
            return expression.name


def _value(lo: int, hi: int) -> str:
    return f"%x{lo:02X}" if lo == hi else f"%x{lo:02X}-{hi:02X}"
