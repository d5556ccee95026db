"""A pushdown validator's fast verdict: innermost nested parts rewritten to one byte, in ``re``.

``re`` has no recursion, so no one expression decides a self-embedding language; but a nested
part whose content holds no nested part is a flat path of the table, which an expression
decides.  The generated module rewrites the input bottom-up (as a shift-reduce parser reduces
handles, here all the innermost ones of a pass at once): each *reduction* is ``re.sub`` of an
expression for ``b X c`` (a nested part opened by byte ``b`` and closed by byte ``c``) by one
*placeholder* byte ``p(b, c)``, a byte no state reads or returns on.  After each pass the *whole*
expression (the start state's paths to an accepting state) is tried on the rewritten input;
when it matches all of it, the input is valid.  When a pass rewrites too little, or the passes
reach their bound, the module runs its byte loop, which stays the reference; so the fast path
only ever answers "valid", and every other answer (and every offset) is the byte loop's.

The expressions are derived from the table as :mod:`.runs` derives its run patterns (state
elimination over the flat moves), over an *extended* table: every state ``s`` whose byte ``b``
leads to a call state ``k`` (a plain call, ``b`` not a byte ``s`` returns on) also moves on
``p(b, c)`` to ``after(k, c)``, the state the byte loop reaches when ``k`` is popped on ``c``.
A reduction for (``b``, ``c``) exists only where every call ``b`` makes starts the same nested
part ``e``; its expression is ``b``, the extended paths from ``e`` to a state that returns on
``c``, then ``c``, with nested parts one level down also read whole (``MAX_INLINED``).
Before the elimination, a state ``n`` that *covers* another state ``a`` (on every byte ``a``
reads, calls or returns on, ``n`` does the same; ``n`` accepts where ``a`` does) gets an empty
move to ``a`` in place of those bytes (see :func:`_covering`): the state after a number's last
digit covers the state after a value, and the number is then written once, not once per way
the value can go on, which ``re`` would otherwise read again for each way it tries.

Why a match of the whole expression proves the byte loop accepts (soundness).  The input holds
no placeholder byte (checked first), so each placeholder in the rewritten text stands for the
``b X c`` it replaced, and expanding them all gives back the input.  Claim: if the extended
table reads a text ``W`` from state ``s`` to state ``t``, the byte loop reads the expansion of
``W`` from ``s``, with any stack ``S``, to ``t`` with the stack ``S``, without error.  By
induction on the placeholders: a flat move on byte ``x`` is one plain step of the loop (flat
moves leave out the bytes ``s`` calls or returns on, and the dead state); a move on ``p(b, c)``
from ``s``: ``b`` leads to the call state ``k``, which the loop pushes, going on in ``e``; ``X``
was matched (when it was replaced) as a path from ``e`` to a state ``u`` that returns on ``c``,
so by induction the loop reads it to ``u`` with ``S + [k]``; ``c`` pops ``k`` and the loop goes
on in ``k``'s move on ``c``, ``after(k, c)``; an empty move from ``n`` to ``a`` is followed by
a byte ``a`` reads (or the end, or a return, where ``a`` accepts or returns), which ``n`` reads
alike in the table.  An inlined nested part is the same argument without a placeholder.  A
match of the whole expression is then a path of the loop from the start with an empty stack to
an accepting state, reading all of the input: valid.  Possessive loops (``*+``) and the order
of alternatives only lose matches (the fast path then falls back), never add any.  Depth: a
match of one reduction holds placeholders made by earlier calls of ``re.sub`` (one call's
matches do not overlap) and parts read whole one level down, so after ``n`` calls a
placeholder stands for a nested part at most ``n * LEVELS`` deep, and the loop's stack stays
that low; the module makes call ``n`` only while ``n * LEVELS <= max_depth`` (and at most
``MAX_PASSES`` passes over all reductions, which also bounds the time on deep input), so the
byte loop would not have raised NestingError either.

A pass that leaves more than three quarters of the text ends the fast path too: the input nests
deep with its bytes spread over the levels, and the passes would read most of it again and
again, where the byte loop reads it once.  The loop reads the first ``LOOP_FIRST`` bytes before
the passes (and all of a shorter input), so that input not in the language at all (another
format, a truncated download) fails as fast as before; after passes that prove nothing it goes
on from there.

What may make the fast path give up on a valid input (the byte loop then decides): nesting
deeper than the passes reach, a part opened by a byte whose calls start different machines
(it gets no reduction), and bytes inside a string that read as a whole nested part (``"[1]"``):
such a part is replaced inside the string, where the extended table has no move on its
placeholder.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...charset import from_bytes, members
from ..tables import Tables
from .runs import EMPTY, TooLong, _Edges, _eliminate, _Flat, _render, alt
from .skip import char_class

MAX_INLINED = 1  # levels of nested parts one reduction reads whole, below the one it replaces
LEVELS = MAX_INLINED + 1  # nesting levels one call of re.sub removes, at most
MAX_PASSES = 16  # passes before the byte loop decides (each reads the rewritten input once)
LOOP_FIRST = 4096  # bytes the loop reads first: an input not in the language mostly fails there
MAX_LENGTH = 100_000  # characters of one expression
BACKSLASH = 0x5C  # never a placeholder: re.sub reads it in a replacement as an escape


@dataclass(frozen=True)
class Reduction:
    opening: int  # the byte that opens the nested part
    closing: int  # the byte that closes it
    placeholder: int  # the byte it is rewritten to
    pattern: str  # ``b X c``, a bytes regular expression written with \\xNN escapes only


@dataclass(frozen=True)
class ReductionPlan:
    reductions: tuple[Reduction, ...]
    whole: str  # the start state's paths to an accepting state, over the extended table
    placeholders: tuple[int, ...]
    levels: int  # nesting levels one reduction's call of re.sub removes, at most
    passes: int
    loop_first: int = LOOP_FIRST


def reduction_plan(tables: Tables) -> ReductionPlan | None:
    """The reductions of a pushdown validator's table (see the module docstring), or None where
    there is no free byte for a placeholder or no nested part can be reduced."""
    pushdown = tables.pushdown
    if pushdown is None:
        return None
    flat = _Flat(tables)
    pairs = _pairs(tables, flat)
    free = _free_bytes(tables, flat)
    pairs = pairs[:len(free)]  # the pairs without a placeholder are never reduced: the loop decides
    while True:  # a pair whose part never reaches its closing byte gets no placeholder (the rest, fewer moves)
        placeholder = {pair: free[index] for index, pair in enumerate(pairs)}
        flat = _add_placeholder_moves(_Flat(tables), placeholder)
        accepting = set(tables.accepting)
        edges = _CoveredEdges(flat, _covering(flat, accepting))
        inners = {pair: _inner(edges, pair[2], pair[1]) for pair in pairs}
        if all(inner is not None for inner in inners.values()):
            break
        pairs = [pair for pair in pairs if inners[pair] is not None]
    if not pairs:
        return None
    reductions = [Reduction(opening, closing, placeholder[opening, closing, entry],
                            char_class(((opening, opening),)) + inner + char_class(((closing, closing),)))
                  for (opening, closing, entry), inner in inners.items() if inner is not None]
    finals = {state: EMPTY for state in accepting}
    try:
        whole = _eliminate(edges.at(0), tables.start, finals)
    except (TooLong, RecursionError):
        return None
    if whole is None:
        return None
    text, _, _ = _render(whole)
    return ReductionPlan(tuple(reductions), text, tuple(sorted(placeholder.values())), LEVELS, MAX_PASSES)


def _pairs(tables: Tables, flat: _Flat) -> list[tuple[int, int, int]]:
    """(opening byte, closing byte, the nested part's start) for each opening byte whose calls
    all start the same nested part, and each byte some state of that part returns on."""
    pushdown = tables.pushdown
    assert pushdown is not None
    entries: dict[int, set[int]] = {}
    for state in range(pushdown.first_call):
        if state == tables.dead:
            continue
        for call, bytes_in in flat.calls[state].items():
            for byte in members(bytes_in):
                entries.setdefault(byte, set()).add(pushdown.entries[call - pushdown.first_call])
    pairs = []
    for opening in sorted(entries):
        if len(entries[opening]) != 1:
            continue
        [entry] = entries[opening]
        for closing in flat.return_bytes:
            pairs.append((opening, closing, entry))
    return pairs


def _free_bytes(tables: Tables, flat: _Flat) -> list[int]:
    """The bytes no state reads or returns on, highest first: placeholders cannot be mistaken
    for the input's bytes (the module checks the input holds none)."""
    used = {b for state in tables.states for b in range(256)
            if state.targets[tables.byte_class[b]] != tables.dead or b in flat.returns[state.index]}
    return [b for b in range(255, -1, -1) if b not in used and b != BACKSLASH]


def _add_placeholder_moves(flat: _Flat, placeholder: dict[tuple[int, int, int], int]) -> _Flat:
    """Each state that calls on ``b`` moves on ``p(b, c)`` to where the return on ``c`` leads."""
    for state, calls in enumerate(flat.calls[:flat.first_call]):
        if state == flat.dead:
            continue
        for call, opening in calls.items():
            if flat.returns[call]:  # a call state that returns would not read c from its own row
                continue
            for (byte, closing, _), moved in placeholder.items():
                after = flat.after.get((call, closing))
                if after is None or byte not in set(members(opening)):
                    continue
                known = flat.moves[state].get(after, ())
                flat.moves[state][after] = from_bytes({*members(known), moved})
    return flat


def _inner(edges: _Edges, entry: int, closing: int) -> str | None:
    """The content expression of a nested part from ``entry`` to its ``closing`` byte, with
    ``MAX_INLINED`` levels read whole where the expression stays within the limits."""
    for level in range(MAX_INLINED, -1, -1):
        node = edges.nested(entry, closing, level)
        if node is None:
            continue
        text, _, depth = _render(node)
        if len(text) <= MAX_LENGTH and depth <= 64:
            return text
    return None


def _covering(flat: _Flat, accepting: set[int]) -> dict[int, int]:
    """For each state ``n`` that covers another, ``a``, the one with the most live bytes: on
    every byte ``a`` reads, calls or returns on, ``n`` does the same, and ``n`` accepts where
    ``a`` does; ``n`` reads more.  Those bytes of ``n`` (and its acceptance, where ``a``
    accepts) are taken out of ``flat`` and ``accepting``: ``n`` reaches them by an empty move
    to ``a`` instead (:class:`_CoveredEdges`).  No byte ``n`` loops on may be one ``a`` reads: a
    loop is written possessive (``*+``), and would take the bytes the empty move is for.

    A number's last digit state covers the state after a value: both go on alike after the
    number; written as paths of the DFA, each continuation would repeat the number, and ``re``
    would read it again for each continuation it tries.  Each string still has one path: a
    byte ``a`` reads takes the empty move, any other byte ``n``'s own edges; and every path is
    one of the table's, as ``n`` reads what ``a`` reads alike.  Live sets shrink along empty
    moves, so they make no cycle."""
    behaviour = [_behaviour(flat, state, state in accepting) for state in range(len(flat.moves))]
    found = {}
    for state in range(flat.first_call):
        mine = behaviour[state]
        if state == flat.dead or not mine:
            continue
        loops = set(members(flat.moves[state].get(state, ())))
        covered = [other for other in range(flat.first_call) if other not in (state, flat.dead)
                   and behaviour[other] and behaviour[other] < mine and not loops & _live_bytes(behaviour[other])]
        if covered:
            found[state] = max(covered, key=lambda other: (len(behaviour[other]), -other))
    for state, other in found.items():
        _take_out(flat, state, behaviour[other])
        if other in accepting:
            accepting.discard(state)
    return found


def _live_bytes(behaviour: frozenset[tuple]) -> set[int]:
    return {item[1] for item in behaviour if len(item) > 1}


def _behaviour(flat: _Flat, state: int, accepts: bool) -> frozenset[tuple]:
    """What ``state`` does on each byte it is live on, and at the end when it accepts."""
    found: set[tuple] = {("move", b, target) for target, ranges in flat.moves[state].items() for b in members(ranges)}
    found |= {("call", b, call) for call, ranges in flat.calls[state].items() for b in members(ranges)}
    found |= {("return", b) for b in flat.returns[state]}
    if accepts:
        found.add(("accept",))
    return frozenset(found)


def _take_out(flat: _Flat, state: int, behaviour: frozenset[tuple]) -> None:
    moved = {(item[1], item[2]) for item in behaviour if item[0] == "move"}
    moves = {}
    for target, ranges in flat.moves[state].items():
        kept = {b for b in members(ranges) if (b, target) not in moved}
        if kept:
            moves[target] = from_bytes(kept)
    flat.moves[state] = moves
    called = {item[1] for item in behaviour if item[0] == "call"}
    calls = {}
    for call, ranges in flat.calls[state].items():
        kept = {b for b in members(ranges) if b not in called}
        if kept:
            calls[call] = from_bytes(kept)
    flat.calls[state] = calls
    flat.returns[state] = flat.returns[state] - {item[1] for item in behaviour if item[0] == "return"}


class _CoveredEdges(_Edges):
    """The edges of :class:`_Edges` and an empty move from each covering state to the state it covers."""

    def __init__(self, flat: _Flat, covering: dict[int, int]):
        super().__init__(flat)
        self.covering = covering

    def at(self, level: int) -> list[dict]:
        if level not in self.levels:
            edges = super().at(level)
            for state, covered in self.covering.items():
                edges[state][covered] = alt(edges[state].get(covered), EMPTY)
        return self.levels[level]
