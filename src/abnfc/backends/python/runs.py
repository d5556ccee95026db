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

Whatever the expression matches is a path of the table, so the loop may jump to its end and go
on in the marker's state.  The DFA is deterministic, so the input has one path from ``q``: the
flat expression matches at most one string (up to the first event).  Loops are written
possessive (``*+``): a loop of the expression is a cycle back to one state, which a
deterministic path takes as often as it can anyway, so nothing is lost and ``re`` never
backtracks into it.  Where the expression does
not match (an invalid byte, the end of the input before an event, or no expression), the
generated module steps bytes, so verdicts and offsets are the byte loop's.

Each call into ``re`` costs about as much as stepping a dozen bytes in Python, so the expression
also reads whole the nested parts that close within ``MAX_INLINED`` levels: a call whose nested
part returns is one more edge of the graph, labelled with the opening byte, the nested part's
own expression up to a state that returns, and the closing byte, leading to the state the
return goes on in.  A match then opens and closes nested parts, so the generated loop uses it
only while the stack has room for that many more (NestingError stays the byte loop's); a deeper
nested part fails the alternative, and the match ends before it, at its opening byte, having
read it in vain.  So only the start state and the nested parts' starts inline: the loop is in a
state a return leads to because a nested part was too deep to inline, and its siblings
usually are too (a JSON array of records that hold arrays of arrays would have each record
read twice).

Alternatives that begin with the same item are factored (``ab|ac`` -> ``a(?:b|c)``), then
those that end with the same item (``ac|bc`` -> ``(?:a|b)c``: after a number, whichever state
it ends in, the same paths go on), and alternatives that are single byte sets merged; states
are eliminated in depth-first postorder, so that alternatives follow the table's branches.  An
expression that nests groups deeper than ``MAX_DEPTH`` (``re`` compiles recursively) or grows
past ``MAX_LENGTH`` characters is left out (with fewer levels inlined first).

Each state with a self-loop on at least two bytes also gets ``[bytes]*+`` (*loop skips*), which
the byte-stepping loop uses to pass over whitespace, string bodies and digit runs.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from ... import graph
from ...charset import Ranges, from_bytes, members
from ..tables import Tables
from .skip import char_class

MAX_DEPTH = 64  # nested groups; re.compile recurses once a level
MAX_LENGTH = 100_000  # characters of one expression; longer ones cost more to compile than they save
MAX_INLINED = 1  # levels of nested parts a run pattern reads whole
MIN_LOOP_BYTES = 2  # a self-loop on one byte saves too little for a call into re


@dataclass(frozen=True)
class Chars:
    ranges: Ranges

    @cached_property
    def size(self) -> int:  # about the characters it is written with
        return 8 * len(self.ranges)

    depth = 0  # groups nested in the expression


@dataclass(frozen=True)
class Seq:
    items: tuple

    @cached_property
    def size(self) -> int:
        return sum(item.size for item in self.items)

    @cached_property
    def depth(self) -> int:
        return max((item.depth for item in self.items), default=0)

    def __hash__(self) -> int:  # trees are hashed often while states are eliminated: once each
        return self.hashed

    @cached_property
    def hashed(self) -> int:
        return hash(("seq", self.items))


@dataclass(frozen=True)
class Alt:
    items: tuple

    @cached_property
    def size(self) -> int:
        return 4 + sum(1 + item.size for item in self.items)

    @cached_property
    def depth(self) -> int:
        return 1 + max(item.depth for item in self.items)

    def __hash__(self) -> int:  # trees are hashed often while states are eliminated: once each
        return self.hashed

    @cached_property
    def hashed(self) -> int:
        return hash(("alt", self.items))


@dataclass(frozen=True)
class Star:
    item: Node

    @cached_property
    def size(self) -> int:
        return 6 + self.item.size

    @cached_property
    def depth(self) -> int:
        return 1 + self.item.depth

    def __hash__(self) -> int:  # trees are hashed often while states are eliminated: once each
        return self.hashed

    @cached_property
    def hashed(self) -> int:
        return hash(("star", self.item))


@dataclass(frozen=True)
class Mark:
    state: int
    events: Ranges  # the lookahead: the bytes on which ``state`` opens or closes a nested part

    @cached_property
    def size(self) -> int:
        return 8 + 8 * len(self.events)

    depth = 1


Node = Chars | Seq | Alt | Star | Mark


class TooLong(Exception):
    """An expression outgrew ``MAX_LENGTH`` or ``MAX_DEPTH`` while states were eliminated."""


EMPTY = Seq(())


@dataclass(frozen=True)
class RunPattern:
    state: int  # the state the expression starts from
    pattern: str  # a bytes regular expression written with \\xNN escapes only
    ends: tuple[int, ...]  # ends[k - 1]: the state group k marks
    inlined: int  # nested parts opened and closed inside a match, at most


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
    return _ordered(_suffixes_factored(_prefixes_factored(items)))


def _suffixes_factored(items: list) -> list:
    """``ac|bc`` -> ``(?:a|b)c``: paths of several states that go on alike are written once."""
    groups: dict[object, list] = {}
    for item in items:
        groups.setdefault(_sequence(item)[-1] if item != EMPTY else None, []).append(item)
    result = []
    for last, group in groups.items():
        if len(group) == 1 or last is None:
            result.extend(group)
            continue
        sequences = [_sequence(item) for item in group]
        common = _common_length([tuple(reversed(items)) for items in sequences])
        rest = alt(*(seq(*items[:len(items) - common]) for items in sequences))
        result.append(seq(rest if rest is not None else EMPTY, *sequences[0][len(sequences[0]) - common:]))
    return result


def _prefixes_factored(items: list) -> list:
    """``ab|ac`` -> ``a(?:b|c)``."""
    groups: dict[object, list] = {}
    for item in items:
        groups.setdefault(_sequence(item)[0] if item != EMPTY else None, []).append(item)
    result = []
    for head, group in groups.items():
        if len(group) == 1 or head is None:
            result.extend(group)
            continue
        sequences = [_sequence(item) for item in group]
        common = _common_length(sequences)
        rest = alt(*(seq(*items[common:]) for items in sequences))
        result.append(seq(*sequences[0][:common], rest if rest is not None else EMPTY))
    return result


def _sequence(item) -> tuple:
    return item.items if isinstance(item, Seq) else (item,)


def _common_length(sequences: list[tuple]) -> int:
    """The length of the longest prefix all ``sequences`` share."""
    common = min(len(items) for items in sequences)
    for items in sequences[1:]:
        common = next((i for i in range(common) if items[i] != sequences[0][i]), common)
    return common


def _ordered(items: list) -> list:
    """A mark (the run ends here) after the ways on, and the empty alternative last: the longer
    match is tried first."""
    def rank(item) -> int:
        return 2 if item == EMPTY else 1 if isinstance(item, Mark) else 0
    return sorted(items, key=rank)


def star(item):
    if item is None or item == EMPTY:
        return EMPTY
    return item if isinstance(item, Star) else Star(item)


class _Flat:
    """The table's flat moves (byte sets between states, without calls, returns and the dead
    state), its events, and what a call followed by a return leads to."""

    def __init__(self, tables: Tables):
        pushdown = tables.pushdown
        assert pushdown is not None
        self.dead = tables.dead
        self.first_call = pushdown.first_call
        self.entries = pushdown.entries
        self.moves: list[dict[int, Ranges]] = []
        self.events: list[Ranges] = []
        self.calls: list[dict[int, Ranges]] = []  # per state: call state -> the bytes that enter it
        self.returns = [set(members(ranges)) for ranges in pushdown.returns]
        self.return_bytes = sorted({b for ranges in pushdown.returns for b in members(ranges)})
        self.after: dict[tuple[int, int], int] = {}  # (call state, return byte) -> the state reached
        for state in tables.states:
            by_target: dict[int, set[int]] = {}
            calls: dict[int, set[int]] = {}
            events = set(self.returns[state.index])
            for byte in range(256):
                if byte in self.returns[state.index]:
                    continue
                target = state.targets[tables.byte_class[byte]]
                if target >= self.first_call:
                    events.add(byte)
                    calls.setdefault(target, set()).add(byte)
                elif target != self.dead:
                    by_target.setdefault(target, set()).add(byte)
            self.moves.append({t: from_bytes(bs) for t, bs in by_target.items()})
            self.events.append(from_bytes(events))
            self.calls.append({c: from_bytes(bs) for c, bs in calls.items()})
            if state.index >= self.first_call:
                for byte in self.return_bytes:
                    target = state.targets[tables.byte_class[byte]]
                    if target != self.dead and target < self.first_call:
                        self.after[(state.index, byte)] = target


class _Edges:
    """The flat moves as expressions, and with ``level`` > 0 also each call whose nested part
    returns within ``level - 1`` further levels, as one edge: the opening byte, the nested
    part's paths to its return (nested calls inlined the same way) and the closing byte."""

    def __init__(self, flat: _Flat):
        self.flat = flat
        self.memo: dict[tuple[int, int, int], Node | None] = {}
        self.levels: dict[int, list[dict[int, Node]]] = {}

    def at(self, level: int) -> list[dict[int, Node]]:
        if level not in self.levels:
            flat = self.flat
            edges: list[dict[int, Node]] = [{t: Chars(r) for t, r in moves.items()} for moves in flat.moves]
            if level > 0:
                for state, calls in enumerate(flat.calls):
                    for call, opening in calls.items():
                        for byte in flat.return_bytes:
                            after = flat.after.get((call, byte))
                            inner = None if after is None else self.nested(flat.entries[call - flat.first_call],
                                                                           byte, level - 1)
                            if inner is not None and after is not None:
                                label = seq(Chars(opening), inner, Chars(((byte, byte),)))
                                edges[state][after] = alt(edges[state].get(after), label)
            self.levels[level] = edges
        return self.levels[level]

    def nested(self, entry: int, closing: int, level: int):
        """The paths of a nested part from ``entry`` to a state that returns on ``closing``."""
        key = (entry, closing, level)
        if key not in self.memo:
            finals = {s: EMPTY for s in range(len(self.flat.moves)) if closing in self.flat.returns[s]}
            try:
                self.memo[key] = _eliminate(self.at(level), entry, finals)
            except (TooLong, RecursionError):  # factoring recurses once a branch: a pathological tree
                self.memo[key] = None
        return self.memo[key]


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
    """A run pattern for each state the loop resumes in, with nested parts inlined up to
    ``MAX_INLINED`` levels deep (from the start state and the nested parts' starts; see the
    module docstring) where the expression stays within the limits (fewer where not)."""
    if tables.pushdown is None:
        return ()
    flat = _Flat(tables)
    edges = _Edges(flat)
    marks = {s: Mark(s, events) for s, events in enumerate(flat.events) if events and s < flat.first_call}
    found = []
    opening = {tables.start, *tables.pushdown.entries}
    for state in resume_states(tables):
        for level in range(MAX_INLINED if state in opening else 0, -1, -1):
            try:
                expression = _eliminate(edges.at(level), state, marks)
            except (TooLong, RecursionError):
                continue
            if expression is None:
                break
            text, ends, depth = _render(expression)
            if ends and depth <= MAX_DEPTH and len(text) <= MAX_LENGTH:
                found.append(RunPattern(state, text, tuple(ends), level))
                break
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


def _eliminate(edges: list[dict[int, Node]], source: int, finals: Mapping[int, Node]) -> Node | None:
    """The expression of the paths from ``source`` along ``edges`` that end with the final edge
    of a state in ``finals`` (state elimination); None where there is none."""
    region = _postorder(edges, source)
    graph: dict[int, dict[int, Node]] = {SOURCE: {source: EMPTY}}
    into: dict[int, set[int]] = {state: set() for state in region}
    into[source].add(SOURCE)
    into[FINAL] = set()
    for state in region:
        out = dict(edges[state])
        if state in finals:
            out[FINAL] = finals[state]
        graph[state] = out
        for target in out:
            into[target].add(state)
    for state in region:
        _remove(graph, into, state)
    return graph[SOURCE].get(FINAL)


def _remove(edges, into, state: int) -> None:
    out = edges.pop(state)
    loop = star(out.pop(state, None))
    for before in into.pop(state) - {state}:
        into_state = edges[before].pop(state)
        for after, expression in out.items():
            path = seq(into_state, loop, expression)
            edges[before][after] = combined = alt(edges[before].get(after), path)
            if combined.size > MAX_LENGTH or combined.depth > MAX_DEPTH:
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
            written = [_text(item, ends) for item in node.item.items]
            loops = [text + "++" if isinstance(item, Chars) else text
                     for item, (text, _) in zip(node.item.items, written, strict=True)]
            return "(?:" + "|".join(loops) + ")*+", 1 + max(d for _, d in written)
        body, depth = _text(node.item, ends)
        return f"(?:{body})*+", depth + 1
    if isinstance(node, Alt):
        branches = [_text(item, ends) for item in node.items]
        return "(?:" + "|".join(p for p, _ in branches) + ")", 1 + max(d for _, d in branches)
    texts: list[str] = []
    deepest, count = 0, 0
    previous: Chars | None = None
    for item in node.items:  # a run of one byte set is written once, with a count
        if isinstance(item, Chars) and item == previous:
            count += 1
            continue
        if previous is not None:
            texts.append(_repeat(previous, count))
        previous, count = (item, 1) if isinstance(item, Chars) else (None, 0)
        if previous is None:
            written_item, item_depth = _text(item, ends)
            texts.append(written_item)
            deepest = max(deepest, item_depth)
    if previous is not None:
        texts.append(_repeat(previous, count))
    return "".join(texts), deepest


def _repeat(chars: Chars, count: int) -> str:
    text = char_class(chars.ranges)
    return text if count == 1 else f"{text}{{{count}}}"


def _postorder(edges: list[dict[int, Node]], source: int) -> list[int]:
    """The states reached from ``source`` in depth-first postorder: a state is eliminated after
    the states it leads to, so each alternative of the result starts where the table branches
    (the expression follows the DFA, one alternative per byte set, and ``re`` rarely tries more
    than one); the source goes last."""
    return graph.postorder_from(source, lambda current: sorted(edges[current]))
