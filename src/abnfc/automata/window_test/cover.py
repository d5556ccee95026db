"""Validation by windows: a k-definite language checked by independent tests of k+1 bytes, derived
from the automaton, so that SIMD instructions check 64 positions at once.

When the minimal DFA is k-definite on its live part (:mod:`.definite`), the state before any byte
past the first k is decided by the k bytes before it, so whether that byte may follow depends
only on its *window*, the k+1 bytes ending with it.  Keiser and Lemire ("Validating UTF-8 in
less than one instruction per byte", 2021) found by hand a cheap test of UTF-8's windows: a few
table lookups of the bytes 1, 2 and 3 positions back, combined with AND and OR, with no chain of
states.  This module derives such a test from any automaton it applies to:

1. *Contexts.*  Every context (the last k byte classes, with the state they decide) that an
   input reaches past its first k bytes is enumerated from the start state.  Extending a context
   by a class gives an *allowed* window when the DFA stays alive and a *forbidden* one when it
   dies.  Windows whose first k classes form no reachable context are *don't cares*: an input
   can only have one after an earlier forbidden window, which already rejects it.
2. *Boxes.*  The forbidden windows are covered by boxes, each a product of k+1 sets of classes
   (one per position of the window) containing no allowed window, grown greedily from an
   uncovered forbidden window, one class at a time, the class that covers the most uncovered
   windows first (a greedy set cover in the manner of logic minimisation; Chvátal, "A greedy
   heuristic for the set-covering problem", 1979).  So a window is forbidden exactly when some
   box holds it, on every reachable context.  UTF-8 needs 7 boxes, Java's modified UTF-8 5, RFC
   2279's UTF-8 (5-definite, 572,000 windows, covered in 1.6 s) 10.
3. *Masks.*  A box is a bit: for each distance d = 0..k back from the byte checked, a table of
   256 bytes gives, for each byte, the boxes whose set at that position holds the byte's class.
   A position is wrong exactly when the AND of its k+1 lookups (the byte itself, the byte before,
   ...) is not zero.  Boxes go in groups of 8, a byte of bits, so 64 positions take k+1 lookups of
   64 bytes per group, k byte shifts and k ANDs, with no dependency between blocks.

An input is then a prefix of a valid input exactly when its first k bytes keep the DFA alive and
no later position is wrong (by induction: the context at each position is reachable while no
earlier position was wrong).  It is valid when, besides, the state its last k bytes decide
accepts; that state is found by running the DFA over the last k bytes from each live state:
every run that stays alive ends in it.

Limits keep the analysis small: k at most :data:`MAX_K`, at most :data:`MAX_CONTEXTS` contexts
and :data:`MAX_BOXES` boxes; beyond them the language gets no window test.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...i18n import _
from ..dfa import Dfa
from .definite import Definiteness, _live, definiteness

MAX_K = 6
MAX_CONTEXTS = 50_000
MAX_BOXES = 16  # one bit each in two bytes
MAX_WINDOWS = 1_000_000  # allowed and forbidden windows: the cover's time and memory grow with them

Context = tuple[int, ...]  # the last k byte classes


@dataclass(frozen=True)
class WindowTest:
    k: int
    boxes: tuple[tuple[frozenset[int], ...], ...]  # per box: per position 0..k (oldest first), its classes
    masks: tuple[tuple[int, ...], ...]  # per distance d = 0..k back, per byte: the boxes holding its class
    live: tuple[int, ...]  # the live states, for the run over the last k bytes


@dataclass(frozen=True)
class NoWindowTest:
    reason: str  # why the language gets no window test


def window_test(dfa: Dfa, definite: Definiteness | None = None) -> WindowTest | NoWindowTest:
    """The window test of ``dfa``'s language, or why it has none (``definite``: the DFA's
    definiteness, when the caller has it already)."""
    k = (definite or definiteness(dfa)).k
    if k is None or k == 0:
        return NoWindowTest(_("not definite") if k is None else _("one live state: no windows needed"))
    if k > MAX_K:
        return NoWindowTest(_("{k}-definite: windows longer than {limit} bytes").format(k=k, limit=MAX_K + 1))
    live = _live(dfa)
    contexts = _contexts(dfa, live, k)
    if contexts is None:
        return NoWindowTest(_("more than {limit} contexts of {k} bytes").format(limit=MAX_CONTEXTS, k=k))
    allowed: list[Context] = []
    forbidden: list[Context] = []
    for context, state in contexts.items():
        for cls, target in enumerate(dfa.transitions[state]):
            (allowed if target in live else forbidden).append((*context, cls))
    if len(allowed) + len(forbidden) > MAX_WINDOWS:
        return NoWindowTest(_("more than {limit} windows").format(limit=MAX_WINDOWS))
    boxes = _cover(allowed, forbidden, k + 1, dfa.num_classes)
    if boxes is None:
        return NoWindowTest(_("its forbidden windows need more than {limit} boxes").format(limit=MAX_BOXES))
    return WindowTest(k, boxes, _masks(dfa, boxes, k), tuple(sorted(live)))


def _contexts(dfa: Dfa, live: set[int], k: int) -> dict[Context, int] | None:
    """Every context reachable past the first k bytes, with the state it decides."""
    frontier: list[tuple[Context, int]] = [((), dfa.start)]
    for _step in range(k):
        frontier = [((*context, cls), target) for context, state in frontier
                    for cls, target in enumerate(dfa.transitions[state]) if target in live]
        if len(frontier) > MAX_CONTEXTS:
            return None
    found = dict(frontier)
    stack = list(found)
    while stack:
        context = stack.pop()
        for cls, target in enumerate(dfa.transitions[found[context]]):
            following = (*context[1:], cls)
            if target in live and following not in found:
                if len(found) >= MAX_CONTEXTS:
                    return None
                found[following] = target
                stack.append(following)
    return found


def _cover(allowed: list[Context], forbidden: list[Context], width: int, classes: int
           ) -> tuple[tuple[frozenset[int], ...], ...] | None:
    """Boxes holding every forbidden window and no allowed one; None past :data:`MAX_BOXES`.

    Sets of windows are bit sets (Python integers) indexed by window: ``hits[p][c]`` holds the
    windows with class ``c`` at position ``p``, so the windows of a box are one AND over its
    positions of ORs over its classes.  Adding class ``c`` at position ``p`` adds the windows of
    ``others[p] & hits[p][c]``, ``others[p]`` being the AND over the other positions: one AND a
    trial."""
    bad_hits = _hits(forbidden, width, classes)
    good_hits = _hits(allowed, width, classes)
    uncovered = (1 << len(forbidden)) - 1
    boxes: list[tuple[frozenset[int], ...]] = []
    while uncovered:
        if len(boxes) == MAX_BOXES:
            return None
        seed = forbidden[(uncovered & -uncovered).bit_length() - 1]
        sides = [{seed[p]} for p in range(width)]
        while True:
            good_others = _others(sides, good_hits)
            bad_others = _others(sides, bad_hits)
            inside = _windows_of(sides, bad_hits) & uncovered
            best = None
            for position in range(width):
                for cls in range(classes):
                    if cls in sides[position] or good_others[position] & good_hits[position][cls]:
                        continue
                    gain = (bad_others[position] & bad_hits[position][cls] & uncovered & ~inside).bit_count()
                    if best is None or gain > best[0]:
                        best = (gain, position, cls)
            if best is None:
                break
            sides[best[1]].add(best[2])
        uncovered &= ~_windows_of(sides, bad_hits)
        boxes.append(tuple(frozenset(side) for side in sides))
    return tuple(boxes)


def _others(sides: list[set[int]], hits: list[list[int]]) -> list[int]:
    """Per position, the windows the box holds at every other position (prefix and suffix ANDs)."""
    unions = []
    for position, side in enumerate(sides):
        union = 0
        for cls in side:
            union |= hits[position][cls]
        unions.append(union)
    before, after = [-1] * (len(sides) + 1), [-1] * (len(sides) + 1)
    for position in range(len(sides)):
        before[position + 1] = before[position] & unions[position]
    for position in reversed(range(len(sides))):
        after[position] = after[position + 1] & unions[position]
    return [before[position] & after[position + 1] for position in range(len(sides))]


def _hits(windows: list[Context], width: int, classes: int) -> list[list[int]]:
    """``hits[p][c]``: the bit set of the windows with class ``c`` at position ``p`` (built in byte
    arrays: setting bits of a growing integer one by one would take quadratic time)."""
    size = (len(windows) + 7) // 8
    arrays = [[bytearray(size) for _ in range(classes)] for _ in range(width)]
    for index, window in enumerate(windows):
        byte, bit = index >> 3, 1 << (index & 7)
        for position, cls in enumerate(window):
            arrays[position][cls][byte] |= bit
    return [[int.from_bytes(array, "little") for array in row] for row in arrays]


def _windows_of(sides: list[set[int]], hits: list[list[int]]) -> int:
    found = -1
    for position, side in enumerate(sides):
        union = 0
        for cls in side:
            union |= hits[position][cls]
        found &= union
        if not found:
            return 0
    return found


def _masks(dfa: Dfa, boxes: tuple[tuple[frozenset[int], ...], ...], k: int) -> tuple[tuple[int, ...], ...]:
    """Per distance d back (0: the byte checked), each byte's box bits."""
    masks = []
    for distance in range(k + 1):
        position = k - distance
        masks.append(tuple(sum(1 << b for b, box in enumerate(boxes) if dfa.byte_class[byte] in box[position])
                           for byte in range(256)))
    return tuple(masks)


def accepts(test: WindowTest, dfa: Dfa, data: bytes) -> bool:
    """Whether ``data`` is valid, decided as generated code decides it: the first k bytes by the
    DFA, every later position by its window, the end by the last k bytes (the reference the
    generated SIMD code is tested against)."""
    k = test.k
    if len(data) <= k:
        return dfa.matches(data)
    if dfa.trace(data[:k])[-1] not in test.live:
        return False
    for i in range(k, len(data)):
        wrong = -1
        for distance in range(k + 1):
            wrong &= test.masks[distance][data[i - distance]]
        if wrong:
            return False
    return ends_accepting(dfa, test.live, data[-k:])


def ends_accepting(dfa: Dfa, live: tuple[int, ...], last: bytes) -> bool:
    """Whether the state the ``last`` k bytes of a k-definite language decide is accepting:
    found by running them from each live state, since every run that stays alive ends there."""
    for state in live:
        for byte in last:
            state = dfa.transitions[state][dfa.byte_class[byte]]
        if state in live:
            return state in dfa.accepting
    return False


def sentence(found: WindowTest | NoWindowTest, min_length: int, padded: bool = False) -> str:
    """What ``abnfc dfa`` says of the window test (the C backend's, taken from ``min_length`` bytes;
    ``padded``: the input checked as if padded, so that first_error takes it too)."""
    if isinstance(found, NoWindowTest):
        return _("no window test: {reason}").format(reason=found.reason)
    if padded:
        text = _("window test: the forbidden windows of {width} bytes are covered by {boxes} boxes of byte "
                 "classes, which the generated C (--c-strategy auto) checks 64 positions at a time in is_valid "
                 "and first_error, on inputs of {length} bytes or more where the CPU has AVX-512 VBMI")
    else:
        text = _("window test: the forbidden windows of {width} bytes are covered by {boxes} boxes of byte "
                 "classes, which the generated C (--c-strategy auto) checks 64 positions at a time in is_valid, "
                 "on inputs of {length} bytes or more where the CPU has AVX-512 VBMI")
    return text.format(width=found.k + 1, boxes=len(found.boxes), length=min_length)
