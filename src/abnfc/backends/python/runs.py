"""Flat runs of a pushdown validator as regular expressions, so that ``re`` reads them in C.

Between two bytes that open or close a nested part (*events*: a byte that leads to a call state,
or one a state returns on), a pushdown validator is a plain DFA.  The generated loop is in one
of a few states right after an event: the start state, a nested part's start, or a state a
return leads to.  For each such state ``q`` this module writes one regular expression for the
paths that go from ``q`` without an event to a state ``t`` whose next byte is an event: the
*flat* part of the table, with a final node reached from every state ``t`` that reads an event
byte on an edge ``(?=[event bytes of t])()``, converted to an expression by state elimination
(Brzozowski and McCluskey, "Signal flow graph techniques for sequential circuit state
diagrams", IEEE Transactions on Electronic Computers 12(2), 1963).  The empty group of each edge
is a marker: ``match.lastindex`` names the state the match ends in.

The DFA is deterministic, so the input has one path from ``q``: the expression matches at most
one string (up to the first event), and whatever it matches is a path of the table, so the loop
may jump there and go on in the marker's state.  Loops are written possessive (``*+``): a loop
of the expression is a cycle back to one state, which a deterministic path takes as often as it
can anyway, so nothing is lost and ``re`` never backtracks into it.  Where the expression does
not match (an invalid byte, the end of the input before an event, or no expression), the
generated module steps bytes, so verdicts and offsets are the byte loop's.

Alternatives that begin with the same item are factored (``ab|ac`` -> ``a(?:b|c)``) and
alternatives that are single byte sets merged, which keeps the expression linear in the states
for strings and numbers.  An expression that nests groups deeper than ``MAX_DEPTH`` (``re``
compiles recursively) or grows past ``MAX_LENGTH`` characters is left out.

Each state with a self-loop on at least two bytes also gets ``[bytes]*+`` (*loop skips*), which
the byte-stepping loop uses to pass over whitespace, string bodies and digit runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ...charset import Ranges, from_bytes, members
from ..tables import Tables
from .skip import char_class

MAX_DEPTH = 64  # nested groups; re.compile recurses once a level
MAX_LENGTH = 60_000  # characters of one expression; longer ones cost more to compile than they save
MIN_LOOP_BYTES = 2  # a self-loop on one byte saves too little for a call into re


@dataclass(frozen=True)
class Chars:
    ranges: Ranges

    @cached_property
    def size(self) -> int:  # about the characters it is written with
        return 8 * len(self.ranges)


@dataclass(frozen=True)
class Seq:
    items: tuple

    @cached_property
    def size(self) -> int:
        return sum(item.size for item in self.items)


@dataclass(frozen=True)
class Alt:
    items: tuple

    @cached_property
    def size(self) -> int:
        return 4 + sum(1 + item.size for item in self.items)


@dataclass(frozen=True)
class Star:
    item: object

    @cached_property
    def size(self) -> int:
        return 6 + self.item.size


@dataclass(frozen=True)
class Mark:
    state: int
    events: Ranges  # the lookahead: the bytes on which ``state`` opens or closes a nested part

    @cached_property
    def size(self) -> int:
        return 8 + 8 * len(self.events)


class TooLong(Exception):
    """An expression outgrew ``MAX_LENGTH`` while states were eliminated."""


EMPTY = Seq(())


@dataclass(frozen=True)
class RunPattern:
    state: int  # the state the expression starts from
    pattern: str  # a bytes regular expression written with \\xNN escapes only
    ends: tuple[int, ...]  # ends[k - 1]: the state group k marks


@dataclass(frozen=True)
class LoopSkip:
    state: int
    pattern: str  # ``[bytes]*+``


def seq(*items):
    """The concatenation; None (no string) if any part is None."""
    flat: list = []
    for item in items:
        if item is None:
            return None
        flat.extend(item.items if isinstance(item, Seq) else (item,))
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def alt(*items):
    """The union, with single byte sets merged and common first items factored out."""
    flat: list = []
    for item in items:
        if item is None:
            continue
        for one in item.items if isinstance(item, Alt) else (item,):
            if one not in flat:
                flat.append(one)
    byte_sets = [one for one in flat if isinstance(one, Chars)]
    if len(byte_sets) > 1:
        merged = Chars(from_bytes({b for one in byte_sets for b in members(one.ranges)}))
        flat = [merged] + [one for one in flat if not isinstance(one, Chars)]
    flat = _factored(flat)
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else Alt(tuple(flat))


def _factored(items: list) -> list:
    groups: dict[object, list] = {}
    for item in items:
        groups.setdefault(_head(item), []).append(item)
    result = []
    for head, group in groups.items():
        if len(group) == 1 or head is None:
            result.extend(group)
        else:
            rests = [_tail(item) for item in group]
            rest = alt(*rests)
            result.append(seq(head, rest if rest is not None else EMPTY))
    empty = [item for item in result if item == EMPTY]  # the empty alternative last: longer ones first
    return [item for item in result if item != EMPTY] + empty


def _head(item):
    if isinstance(item, Seq):
        return item.items[0] if item.items else None
    return item


def _tail(item):
    return Seq(item.items[1:]) if isinstance(item, Seq) and len(item.items) > 2 else \
        item.items[1] if isinstance(item, Seq) and len(item.items) == 2 else EMPTY


def star(item):
    if item is None or item == EMPTY:
        return EMPTY
    return item if isinstance(item, Star) else Star(item)


class _Flat:
    """The table's flat moves: byte sets between states, without calls, returns and the dead state."""

    def __init__(self, tables: Tables):
        pushdown = tables.pushdown
        assert pushdown is not None
        self.dead = tables.dead
        self.first_call = pushdown.first_call
        self.moves: list[dict[int, Ranges]] = []
        self.events: list[Ranges] = []
        for state in tables.states:
            returning = set(members(pushdown.returns[state.index]))
            by_target: dict[int, set[int]] = {}
            events = set(returning)
            for byte in range(256):
                if byte in returning:
                    continue
                target = state.targets[tables.byte_class[byte]]
                if target >= self.first_call:
                    events.add(byte)
                elif target != self.dead:
                    by_target.setdefault(target, set()).add(byte)
            self.moves.append({t: from_bytes(bs) for t, bs in by_target.items()})
            self.events.append(from_bytes(events))

    def region(self, source: int) -> list[int]:
        seen, todo = {source}, [source]
        while todo:
            for target in self.moves[todo.pop()]:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return sorted(seen)


def resume_states(tables: Tables) -> list[int]:
    """The states the loop can be in right after an event (or at the start)."""
    pushdown = tables.pushdown
    assert pushdown is not None
    returning = {b for ranges in pushdown.returns for b in members(ranges)}
    found = {tables.start, *pushdown.entries}
    for call in range(pushdown.first_call, tables.num_states):
        for byte in returning:
            target = tables.states[call].targets[tables.byte_class[byte]]
            if target != tables.dead and target < pushdown.first_call:
                found.add(target)
    return sorted(found - {tables.dead})


def run_patterns(tables: Tables) -> tuple[RunPattern, ...]:
    if tables.pushdown is None:
        return ()
    flat = _Flat(tables)
    found = []
    for state in resume_states(tables):
        try:
            expression = _eliminate(flat, state)
        except TooLong:
            continue
        if expression is None:
            continue
        text, ends, depth = _render(expression)
        if ends and depth <= MAX_DEPTH and len(text) <= MAX_LENGTH:
            found.append(RunPattern(state, text, tuple(ends)))
    return tuple(found)


def loop_skips(tables: Tables) -> tuple[LoopSkip, ...]:
    if tables.pushdown is None:
        return ()
    flat = _Flat(tables)
    skips = []
    for state in tables.states:
        loops = flat.moves[state.index].get(state.index, ()) if state.index < flat.first_call else ()
        if sum(hi - lo + 1 for lo, hi in loops) >= MIN_LOOP_BYTES:
            skips.append(LoopSkip(state.index, char_class(loops) + "*+"))
    return tuple(skips)


SOURCE, FINAL = -1, -2


def _eliminate(flat: _Flat, source: int):
    """The expression of the flat paths from ``source`` to an event (state elimination)."""
    region = flat.region(source)
    edges: dict[int, dict[int, object]] = {SOURCE: {source: EMPTY}}
    into: dict[int, set[int]] = {state: set() for state in region}
    into[source].add(SOURCE)
    into[FINAL] = set()
    for state in region:
        out: dict[int, object] = {target: Chars(ranges) for target, ranges in flat.moves[state].items()}
        if flat.events[state]:
            out[FINAL] = Mark(state, flat.events[state])
            into[FINAL].add(state)
        edges[state] = out
        for target in out:
            if target != FINAL:
                into[target].add(state)
    for state in _postorder(flat, source):
        _remove(edges, into, state)
    return edges[SOURCE].get(FINAL)


def _remove(edges, into, state: int) -> None:
    out = edges.pop(state)
    loop = star(out.pop(state, None))
    for before in into.pop(state) - {state}:
        into_state = edges[before].pop(state)
        for after, expression in out.items():
            path = seq(into_state, loop, expression)
            edges[before][after] = combined = alt(edges[before].get(after), path)
            if combined.size > MAX_LENGTH:
                raise TooLong
            into[after].add(before)
    for after in out:
        into[after].discard(state)


def _render(expression) -> tuple[str, list[int], int]:
    """The expression as ``re`` syntax, the marked states in group order, and its group depth."""
    ends: list[int] = []
    text, depth = _text(expression, ends)
    return text, ends, depth


def _text(node, ends: list[int]) -> tuple[str, int]:
    if isinstance(node, Chars):
        return char_class(node.ranges), 0
    if isinstance(node, Mark):
        ends.append(node.state)
        return f"(?={char_class(node.events)})()", 1
    if isinstance(node, Star):
        if isinstance(node.item, Chars):
            return char_class(node.item.ranges) + "*+", 0
        if isinstance(node.item, Alt):  # a run of the loop's single bytes at a time, not one a pass
            parts = [_text(item, ends) for item in node.item.items]
            texts = [text + "++" if isinstance(item, Chars) else text
                     for item, (text, _) in zip(node.item.items, parts, strict=True)]
            return "(?:" + "|".join(texts) + ")*+", 1 + max(d for _, d in parts)
        inner, depth = _text(node.item, ends)
        return f"(?:{inner})*+", depth + 1
    if isinstance(node, Alt):
        parts = [_text(item, ends) for item in node.items]
        return "(?:" + "|".join(p for p, _ in parts) + ")", 1 + max(d for _, d in parts)
    parts, depth, previous, count = [], 0, None, 0
    for item in node.items:  # a run of one byte set is written once, with a count
        if isinstance(item, Chars) and item == previous:
            count += 1
            continue
        if previous is not None:
            parts.append(_repeat(previous, count))
        previous, count = (item, 1) if isinstance(item, Chars) else (None, 0)
        if previous is None:
            text, inner = _text(item, ends)
            parts.append(text)
            depth = max(depth, inner)
    if previous is not None:
        parts.append(_repeat(previous, count))
    return "".join(parts), depth


def _repeat(chars: Chars, count: int) -> str:
    text = char_class(chars.ranges)
    return text if count == 1 else f"{text}{{{count}}}"


def _postorder(flat: _Flat, source: int) -> list[int]:
    """The region in depth-first postorder from ``source``: a state is eliminated after the
    states it leads to, so each alternative of the result starts where the table branches (the
    expression follows the DFA, one alternative per byte set, and ``re`` rarely tries more than
    one); the source goes last."""
    order, stack, seen = [], [(source, False)], set()
    while stack:
        current, expanded = stack.pop()
        if expanded:
            order.append(current)
        elif current not in seen:
            seen.add(current)
            stack.append((current, True))
            stack.extend((t, False) for t in sorted(flat.moves[current], reverse=True) if t not in seen)
    return order
