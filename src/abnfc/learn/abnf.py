"""A DFA as an ABNF grammar that abnfc compiles back to the same language.

State elimination (Brzozowski and McCluskey, "Signal flow graph techniques for sequential
circuit state diagrams", 1963): a fresh start and a fresh end are joined to the DFA's live
states by empty moves, and the live states are removed one by one, each removal replacing the
paths through a state ``q`` by ``in q* out`` expressions on the edges that bypassed it.  States
are removed in order of fewest in-edges times out-edges first (a common heuristic for small
expressions).  Expressions are simplified as they are built: byte sets on parallel edges are
one alternative, nested alternatives and sequences are flattened, a common first or last
element of an alternation is factored out, and ``x *x`` reads ``1*x``.

The expression can still grow exponentially with the states, so elimination stops once the
edges would print as more than :data:`MAX_TEXT` characters, and the grammar is then written as a
right-linear rule per state, which abnfc compiles just the same.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..charset import Ranges, normalize


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


Expr = Bytes | Cat | Alt | Star
EMPTY = Cat(())  # the empty string


MAX_TEXT = 4000  # characters of one rule's expression; a larger language gets a rule per state


def to_abnf(dfa: Dfa, rule: str, comments: tuple[str, ...] = ()) -> str:
    """ABNF text: ``comments`` (each a ``;`` line), then ``rule = <the DFA's language>``: one
    expression, or, where state elimination would make one longer than :data:`MAX_TEXT`
    characters (it can grow exponentially), a right-linear rule per state."""
    lines = [f"; {line}".rstrip() for line in comments]
    try:
        expression = language(dfa)
    except TooLong:
        return "\n".join([*lines, *_rule_per_state(dfa, rule), ""])
    if expression is None:  # ABNF has no element that matches nothing; a rule with no way out does
        return "\n".join([*lines, f"{rule} = never", "never = never  ; no input matches", ""])
    return "\n".join([*lines, f"{rule} = {render(expression, top=True)}", ""])


class TooLong(Exception):
    """State elimination would print an expression longer than :data:`MAX_TEXT`."""


def _rule_per_state(dfa: Dfa, rule: str) -> list[str]:
    """``state-N = <bytes> state-M / ... / ""``: right-linear, so abnfc compiles it to a DFA."""
    live = _live(dfa)
    names = {state: rule if state == dfa.start else f"state-{state}" for state in sorted(live)}
    lines = ["; the expression of this language would be too long to read: a rule per state"]
    for state in sorted(live, key=lambda q: (q != dfa.start, q)):
        targets: dict[int, list] = {}
        for cls, target in enumerate(dfa.transitions[state]):
            if target in live:
                targets.setdefault(target, []).extend(dfa.classes[cls])
        parts = [f"{render(Bytes(normalize(ranges)))} {names[target]}" for target, ranges in sorted(targets.items())]
        if state in dfa.accepting:
            parts.append('""')
        lines.append(f"{names[state]} = {' / '.join(parts)}")
    return lines


def language(dfa: Dfa) -> Expr | None:
    """An expression of the DFA's language; None when it is empty."""
    live = _live(dfa)
    if dfa.start not in live:
        return None
    start, end = -1, -2
    edges: dict[tuple[int, int], Expr] = {}
    for state in live:
        targets: dict[int, list] = {}
        for cls, target in enumerate(dfa.transitions[state]):
            if target in live:
                targets.setdefault(target, []).extend(dfa.classes[cls])
        for target, ranges in targets.items():
            edges[state, target] = Bytes(normalize(ranges))
        if state in dfa.accepting:
            edges[state, end] = EMPTY
    edges[start, dfa.start] = EMPTY
    remaining = set(live)
    sizes: dict[int, tuple[Expr, int]] = {}
    while remaining:
        state = min(remaining, key=lambda q: (_degree(edges, q), q))
        remaining.discard(state)
        _eliminate(edges, state)
        if sum(_size(e, sizes) for e in edges.values()) > MAX_TEXT:
            raise TooLong()
    return edges.get((start, end))


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


def _eliminate(edges: dict[tuple[int, int], Expr], state: int) -> None:
    loop = edges.pop((state, state), None)
    ins = [(p, e) for (p, q), e in list(edges.items()) if q == state]
    outs = [(q, e) for (p, q), e in list(edges.items()) if p == state]
    for p, _e in ins:
        del edges[p, state]
    for q, _e in outs:
        del edges[state, q]
    middle = [] if loop is None else [star(loop)]
    for p, into in ins:
        for q, out in outs:
            path = cat([into, *middle, out])
            edges[p, q] = alt([edges[p, q], path]) if (p, q) in edges else path


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


def _value(lo: int, hi: int) -> str:
    return f"%x{lo:02X}" if lo == hi else f"%x{lo:02X}-{hi:02X}"
