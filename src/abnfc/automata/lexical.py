"""The lexical layer of a pushdown validator: what a data-parallel first stage can find in a block.

A JSON parser in two stages (Langdale and Lemire, "Parsing gigabytes of JSON per second", VLDB
Journal 28, 2019) first marks, 64 bytes at a time and without branches, the bytes that matter
(structural characters, string quotes, the starts of numbers and literals) and then runs its
parser over those positions only.  This module finds that layer in the automaton, not in rule
names, so that any grammar shaped like JSON gets it:

1. **Strings.**  For a byte ``q``, the states *outside* are those the start state (and the
   starts of nested parts) reach by bytes other than ``q``; ``q`` read outside opens a string,
   and the *region* is every state reached from there by bytes other than ``q``; a ``q`` read
   in the region that leads out of it closes the string, and what follows is outside again
   (both grown to a fixed point).  It is a string region when

   - no state is both outside and in the region, no state outside the region enters it except
     by ``q``, and it holds no call state and no state that returns (nothing nests inside a
     string);
   - at most one byte ``e`` escapes: the only states whose ``q`` stays inside the region are
     reached on ``e``;
   - the escape rule holds as a block scan computes it: run the region's states together with
     the parity of the run of ``e`` before each byte (breadth-first over pairs).  A ``q`` after
     an even run (none included) leaves the region or fails; after an odd run it stays inside or
     fails; any other byte stays inside or fails.

   So ``q`` opens and closes strings, ``e`` escapes the next byte, and a byte's being inside a
   string follows from the quote and escape masks alone (the prefix XOR of the unescaped quotes).
   The first ``q`` (by byte value) that passes is taken.

2. **Whitespace** ``W`` is what the start state reads and stays in; the *between-token* states
   are the states outside strings that keep ``W``.  **Structural** bytes push (a call) or pop (a
   return), or *separate*: every state outside strings that reads them goes to a between-token
   state.  **Token** states are the other states outside strings (numbers, literals), entered
   by *token start* bytes from between-token states.

3. **Skip classes.**  For stage 2 the layer is summed up as the bytes each lexical sub-language
   loops on: a state's *self-loop set* (the bytes that lead back to it).  Each distinct set of at
   least two bytes (string interiors, whitespace, digits) becomes a class; stage 1 marks, per
   class, the bytes *not* in it (its *stops*), and stage 2, in a state of the class, moves to the
   next stop instead of the next byte.  That is exact for any input: the bytes passed over lead
   back to the state they are read in.  A class is tested with two 16-entry nibble tables (one
   bit per rectangle low-nibble set x high-nibble set, Mula and Lemire's ``pshufb`` lookup); the
   classes with the most bytes are taken while their rectangles fit the 8 bits of a table entry.

:func:`find_layer` returns None ("no two-stage path") where step 1 finds no string region or no
structural byte, or where no skip class is left.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..charset import Ranges, from_bytes, members
from .pushdown import Pushdown

MAX_NIBBLE_BITS = 8  # rectangles a one-byte nibble-table entry can tell apart
MIN_SKIP_BYTES = 2  # a self-loop on fewer bytes saves too little to be worth a stop mask


@dataclass(frozen=True)
class Strings:
    """A string region: entered and left by ``quote``, with ``escape`` (or None) escaping the next byte."""

    quote: int
    escape: int | None
    states: frozenset[int]


@dataclass(frozen=True)
class SkipClass:
    """Bytes some states loop on, and the nibble rectangles ``(low nibbles, high nibbles)`` that make them."""

    loops: Ranges
    states: frozenset[int]
    rectangles: tuple[tuple[frozenset[int], frozenset[int]], ...]


@dataclass(frozen=True)
class LexicalLayer:
    strings: Strings
    whitespace: Ranges
    pushes: Ranges  # bytes on which some state calls
    pops: Ranges  # bytes on which some state returns
    separators: Ranges
    token_starts: Ranges
    token_states: frozenset[int]
    skip_classes: tuple[SkipClass, ...]
    # The index of the skip class whose states loop on every UTF-8 character beyond ASCII, in a
    # language of UTF-8 only, where they are entered at character boundaries only; -1: none.
    utf8_skip: int = -1

    @property
    def structural(self) -> Ranges:
        return from_bytes({*members(self.pushes), *members(self.pops), *members(self.separators)})


class _View:
    """The pushdown automaton's table read byte by byte."""

    def __init__(self, pushdown: Pushdown):
        dfa = pushdown.dfa
        self.dead = dfa.dead
        self.calls = frozenset(pushdown.calls)
        self.next = [[row[dfa.byte_class[b]] for b in range(256)] for row in dfa.transitions]
        self.returning = [frozenset(members(r)) for r in pushdown.returns]
        self.live = [s for s in range(dfa.num_states) if s != dfa.dead]
        self.start = dfa.start
        self.entries = frozenset(pushdown.calls.values())

    def loops(self, state: int) -> frozenset[int]:
        return frozenset(b for b in range(256) if self.next[state][b] == state)


def find_layer(pushdown: Pushdown) -> LexicalLayer | None:
    """The lexical layer of ``pushdown`` (see the module docstring), or None where there is none."""
    if not pushdown.calls:
        return None
    view = _View(pushdown)
    strings = _first_string_region(view)
    if strings is None:
        return None
    outside = [s for s in view.live if s not in strings.states]
    whitespace = view.loops(view.start)
    between = frozenset(s for s in outside if s not in view.calls and whitespace <= view.loops(s))
    pushes = {b for s in view.live for b in range(256) if view.next[s][b] in view.calls}
    pops = {b for s in view.live for b in view.returning[s]}
    separators = _separators(view, outside, between, {*whitespace, *pushes, *pops, strings.quote})
    if not (pushes or pops or separators):
        return None
    tokens = frozenset(s for s in outside if s not in between and s not in view.calls)
    starts = {b for s in between for b in range(256) if view.next[s][b] in tokens}
    skips = _skip_classes(view)
    if not skips:
        return None
    return LexicalLayer(strings, from_bytes(whitespace), from_bytes(pushes), from_bytes(pops), from_bytes(separators),
                        from_bytes(starts), tokens, skips, _utf8_skip(view, pushdown, skips))


def _first_string_region(view: _View) -> Strings | None:
    for quote in range(256):
        found = _string_region(view, quote)
        if found is not None:
            return found
    return None


def _string_region(view: _View, quote: int) -> Strings | None:
    """The string region ``quote`` opens, if it meets the conditions of the module docstring."""
    outside, region = _split(view, quote)
    if not region or outside & region:
        return None
    if any(s in view.calls or view.returning[s] for s in region):
        return None
    if any(view.next[s][b] in region for s in view.live if s not in region for b in range(256) if b != quote):
        return None
    entries = {view.next[s][quote] for s in outside} & region
    escaped = {s for s in region if view.next[s][quote] in region}
    escapes = {b for s in region for b in range(256) if view.next[s][b] in escaped}
    if len(escapes) > 1:
        return None
    escape = next(iter(escapes), None)
    if not _escapes_by_parity(view, entries, region, quote, escape):
        return None
    return Strings(quote, escape, frozenset(region))


def _split(view: _View, quote: int) -> tuple[set[int], set[int]]:
    """(outside, region): the states reached from the start without opening a string, and those
    inside one, where ``quote`` read outside opens a string and read inside (unless its target
    is reached inside by other bytes too) closes it."""
    nested_starts = {view.next[k][b] for k in view.calls for s in view.live for b in view.returning[s]}
    outside = _closure(view, {view.start, *view.entries, *nested_starts} - {view.dead}, quote)
    region: set[int] = set()
    while True:
        opened = {view.next[s][quote] for s in outside} - {view.dead, *view.calls} - region
        if not opened:
            return outside, region
        region = _closure(view, region | opened, quote)
        closed = {view.next[s][quote] for s in region} - {view.dead} - region - outside
        outside = _closure(view, outside | closed, quote)


def _closure(view: _View, entries: Iterable[int], quote: int) -> set[int]:
    """The states reached from ``entries`` by bytes other than ``quote`` (an escaped quote's
    target is among them where it leads back to a string's ordinary state)."""
    region = set(entries)
    todo = list(region)
    while todo:
        state = todo.pop()
        for byte in range(256):
            target = view.next[state][byte]
            if byte != quote and target != view.dead and target not in region:
                region.add(target)
                todo.append(target)
    return region


def _escapes_by_parity(view: _View, entries: set[int], region: set[int], quote: int, escape: int | None) -> bool:
    """Run the region with the parity of the escape run before each byte: an unescaped quote
    leaves or fails, an escaped one stays or fails, every other byte stays or fails."""
    seen = {(s, False) for s in entries}
    todo = list(seen)
    while todo:
        state, odd = todo.pop()
        for byte in range(256):
            target = view.next[state][byte]
            if target == view.dead:
                continue
            inside = target in region
            if byte == quote and not odd:
                if inside:
                    return False
                continue
            if not inside:
                return False
            pair = (target, byte == escape and not odd)
            if pair not in seen:
                seen.add(pair)
                todo.append(pair)
    return True


def _separators(view: _View, outside: list[int], between: frozenset[int], excluded: set[int]) -> set[int]:
    found = set()
    for byte in range(256):
        if byte in excluded:
            continue
        targets = {view.next[s][byte] for s in outside} - {view.dead}
        if targets and all(t in between or t in view.calls for t in targets):
            found.add(byte)
    return found


def _skip_classes(view: _View) -> tuple[SkipClass, ...]:
    by_loops: dict[frozenset[int], set[int]] = {}
    for state in view.live:
        if state in view.calls:
            continue
        loops = view.loops(state)
        if len(loops) >= MIN_SKIP_BYTES:
            by_loops.setdefault(loops, set()).add(state)
    chosen, bits = [], 0
    for loops in sorted(by_loops, key=lambda ls: (-len(ls), sorted(ls))):
        rectangles = nibble_rectangles(loops)
        if bits + len(rectangles) > MAX_NIBBLE_BITS:
            continue
        bits += len(rectangles)
        chosen.append(SkipClass(from_bytes(loops), frozenset(by_loops[loops]), rectangles))
    return tuple(chosen)


# UTF-8 (RFC 3629, section 4) as a DFA: the boundary, then what the next bytes of a character
# must be.  Each entry: (lo, hi, next) ranges read from that state.
_UTF8: dict[str, tuple[tuple[int, int, str], ...]] = {
    "B": ((0x00, 0x7F, "B"), (0xC2, 0xDF, "C1"), (0xE0, 0xE0, "E0"), (0xE1, 0xEC, "C2"), (0xED, 0xED, "ED"),
          (0xEE, 0xEF, "C2"), (0xF0, 0xF0, "F0"), (0xF1, 0xF3, "C3"), (0xF4, 0xF4, "F4")),
    "C1": ((0x80, 0xBF, "B"),), "C2": ((0x80, 0xBF, "C1"),), "C3": ((0x80, 0xBF, "C2"),),
    "E0": ((0xA0, 0xBF, "C1"),), "ED": ((0x80, 0x9F, "C1"),), "F0": ((0x90, 0xBF, "C2"),), "F4": ((0x80, 0x8F, "C2"),),
}


def _utf8_step(where: str, byte: int) -> str | None:
    return next((state for lo, hi, state in _UTF8[where] if lo <= byte <= hi), None)


def _utf8_skip(view: _View, pushdown: Pushdown, skips: tuple[SkipClass, ...]) -> int:
    """The skip class stage 1 may let pass every non-ASCII byte of a valid UTF-8 input (-1: none).

    Runs the automaton beside UTF-8's DFA (returns going on after every call state, which can
    only add pairs): the language is UTF-8 only when no byte the automaton takes breaks UTF-8,
    every accepting state is at a character boundary and calls and returns happen at one.  A
    class qualifies when its states are only ever at boundaries and every non-ASCII character
    leads each of them back to itself."""
    pairs = _utf8_pairs(view, pushdown)
    if pairs is None:
        return -1
    for number, skip in enumerate(skips):
        if all(where == "B" for state, where in pairs if state in skip.states) and \
                all(_loops_on_utf8(view, state) for state in skip.states):
            return number
    return -1


def _utf8_pairs(view: _View, pushdown: Pushdown) -> set[tuple[int, str]] | None:
    nested_starts = {view.next[k][b] for k in view.calls for s in view.live for b in view.returning[s]}
    seen = {(s, "B") for s in {view.start, *view.entries, *nested_starts} - {view.dead}}
    todo = list(seen)
    while todo:
        state, where = todo.pop()
        if state in pushdown.dfa.accepting and where != "B":
            return None
        for byte in range(256):
            target = view.next[state][byte]
            if target == view.dead and byte not in view.returning[state]:
                continue
            after = _utf8_step(where, byte)
            if after is None:
                return None
            if target == view.dead or target in view.calls:
                if after != "B":
                    return None
                continue  # the nested part's start and what follows a return are seeded above
            if (target, after) not in seen:
                seen.add((target, after))
                todo.append((target, after))
    return seen


def _loops_on_utf8(view: _View, state: int) -> bool:
    """Whether every character of two to four bytes leads ``state`` back to itself."""
    todo, seen = [(state, "B", True)], set()
    while todo:
        current, where, first = todo.pop()
        for byte in range(0x80 if first else 0x00, 0x100):
            after = _utf8_step(where, byte)
            if after is None:
                continue
            target = view.next[current][byte]
            if after == "B":
                if target != state:
                    return False
            elif target == view.dead or target in view.calls:
                return False
            elif (target, after) not in seen:
                seen.add((target, after))
                todo.append((target, after, False))
    return True


def nibble_rectangles(byte_set: Iterable[int]) -> tuple[tuple[frozenset[int], frozenset[int]], ...]:
    """``byte_set`` as a union of disjoint rectangles (low nibbles x high nibbles): the high
    nibbles that share one set of low nibbles make one rectangle."""
    lows_of: dict[int, set[int]] = {}
    for byte in byte_set:
        lows_of.setdefault(byte >> 4, set()).add(byte & 15)
    highs_of: dict[frozenset[int], set[int]] = {}
    for high, lows in lows_of.items():
        highs_of.setdefault(frozenset(lows), set()).add(high)
    return tuple(sorted(((lows, frozenset(highs)) for lows, highs in highs_of.items()),
                        key=lambda pair: (sorted(pair[1]), sorted(pair[0]))))


__all__ = ["LexicalLayer", "SkipClass", "Strings", "find_layer", "nibble_rectangles"]
