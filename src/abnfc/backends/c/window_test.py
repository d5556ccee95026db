"""The window test of a k-definite language as C: tables for an AVX-512 VBMI loop that checks 64
positions at once (see :mod:`abnfc.automata.window_test` for the test and why it is exact).

Each 64-byte block is read as byte classes (one ``vpermi2b`` over a 128-entry table for the bytes
80-FF; the bytes 00-7F by a second one, or by a constant when they are all one class), each
class becomes its box bits at each distance (one ``vpermb`` per distance over a 64-entry table),
the bits of distance d are moved d positions on, taking the end of the previous block's
(``vpermi2b`` with a fixed index; where the input is padded, the classes are moved instead, once
for every group of boxes, see :mod:`.window_driver`), and the AND of all distances is ORed into
the error.  A block
of bytes 00-7F after another one is skipped when those bytes are one class and no window of them
is forbidden.  Only ``is_valid`` takes this path, on inputs of at least :data:`MIN_LENGTH` bytes
and where the CPU has AVX-512 VBMI; everything else is the strategy's own loop.

Where the CPU has AVX2 but not AVX-512 VBMI, the language's nibble test
(:mod:`abnfc.automata.window_test.nibble`, Keiser and Lemire's kind of test) runs 32 positions at
a time: the block's bytes moved d positions on (``vperm2i128`` and ``vpalignr``, the first d from
the previous block), their nibbles looked up in 16-byte tables (``pshufb``) and ANDed, the
equivalence bit XORed in from saturating subtractions.  The same test runs 16 positions at a
time with SSE4.1 (``palignr``, ``pshufb``), the x86 instance of last resort, and with NEON on
AArch64 (``vextq_u8``, ``vqtbl1q_u8``), chosen when compiling.  Where the language has no nibble
test but at most 16 classes, the AVX2 instance checks the class test instead: a byte's class
comes from its high nibble (``pshufb``), or, for the high nibbles whose bytes fall into several
classes, from its low nibble (a ``pshufb``, a compare and a blend per such nibble); box bits by
``pshufb`` on the class; the shifts across the two 16-byte lanes by ``vperm2i128`` and
``vpalignr``.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...automata.dfa import Dfa
from ...automata.window_test import WindowTest, window_test
from ...automata.window_test.nibble import NibbleTest, nibble_test
from ..tables import Tables
from .literals import hex_cells

MIN_LENGTH = 256  # shorter inputs: the strategy's loop is as fast
MAX_CLASSES = 64  # a class is a vpermb index
AVX2_CLASSES = 16  # a class is a pshufb index
AVX2_ROWS = 8  # high nibbles whose bytes are not all one class, each a pshufb, a compare and a blend
# Box-bit lookups a block (groups of 8 boxes times k + 1 distances) beyond which the AVX2 instance
# was slower than the shift DFA with pairs (UTF-8, 4 lookups: 8.8 GB/s against 4.4-5.5; RFC 2279,
# 12: 3.6 GB/s, faster only than the table loop, 2.7)
AVX2_MAX_LOOKUPS = 8


@dataclass(frozen=True)
class NibbleRow:
    """Bytes with one high nibble whose classes differ: the class of each low nibble."""

    high: int
    cells: str  # 16 cells


@dataclass(frozen=True)
class NibbleLookupC:
    distance: int
    high: bool  # the high nibble (else the low one)
    table: int  # its row of the tables


@dataclass(frozen=True)
class NibbleTableC:
    cells: str  # 16 cells
    note: str


@dataclass(frozen=True)
class NibbleC:
    """The nibble test's tables and what its block code reads."""

    lookups: int
    boxes: int
    tables: tuple[NibbleTableC, ...]  # the low-nibble mask first, then the lookups', thresholds', bit 7, first block's
    groups: tuple[tuple[NibbleLookupC, ...], ...]
    thresholds: tuple[tuple[int, int, int], ...]  # the equivalence bit's (distance, byte, table of byte - 80)
    bit7: int  # the table of 80s
    first: int  # the table of the first block's mask
    distances: tuple[int, ...]  # the distances past 0 whose bytes are read
    highs: tuple[int, ...]  # the distances whose high nibbles are looked up
    lows: tuple[int, ...]
    # zero bytes before the input flag no position (00 keeps the start state): no mask needed on
    # the first block, whose first k positions the DFA checks
    pad_safe: bool


@dataclass(frozen=True)
class WindowTestC:
    k: int
    boxes: int
    high_classes: str  # 128 cells: the class of each byte 80-FF
    low_classes: str  # 128 cells: the class of each byte 00-7F ("" when they are all low_class)
    low_class: int
    quiet_low: bool  # blocks of bytes 00-7F after another such block are skipped
    groups: int  # bytes of box bits: 8 boxes each
    masks: tuple[tuple[str, ...], ...]  # per group, per distance 0..k: 64 cells, the group's box bits of each class
    mask_bytes: tuple[tuple[bytes, ...], ...]  # the same as bytes
    shifts: tuple[str, ...]  # per distance 1..k: 64 cells, the vpermi2b index moving bits d on
    live: str  # the live states as held, for the run over the last k bytes
    min_length: int
    # AVX2 (at most 16 classes): a byte's class by its high nibble, or by its low nibble in ``rows``
    avx2: bool
    avx2_high: str  # 16 cells: the class of each high nibble whose bytes are all one class
    avx2_rows: tuple[NibbleRow, ...]
    nibble: NibbleC | None  # the SSE4.1 and NEON instances' test, and AVX2's when avx2_nibble
    avx2_nibble: bool  # AVX2 takes the nibble test (else the class test, if avx2)
    prev_count: int  # vectors the AVX2 block carries from block to block


def plan_window_test(tables: Tables, unit: int, strategy: str) -> WindowTestC | None:
    """The window test's C tables, or None when the language has none or it does not fit."""
    if tables.num_classes > MAX_CLASSES or tables.pushdown is not None:
        return None
    dfa = Dfa(tables.classes, tuple(s.targets for s in tables.states), tables.start,
              frozenset(tables.accepting), tables.dead)
    found = window_test(dfa)
    if not isinstance(found, WindowTest) or len(found.live) != tables.num_states - 1:
        return None  # the loop takes "not dead" for "live": no other state may be hopeless
    classes = tables.byte_class
    uniform = len(set(classes[:128])) == 1
    groups = max(1, (len(found.boxes) + 7) // 8)  # no box at all (every window allowed): one group of zeros
    by_reach = _by_reach(found.masks, len(found.boxes))
    masks = tuple(tuple(_class_masks(classes, mask, group) for mask in by_reach) for group in range(groups))
    low = classes[0]
    all_low_allowed = _and_all(found.masks, 0) == 0
    nibble = nibble_test(dfa, found)
    nibble_c = None if nibble is None else _nibble_c(nibble, dfa)
    avx2 = _avx2(classes, tables.num_classes, groups * (found.k + 1) <= AVX2_MAX_LOOKUPS or strategy == "table")
    # AVX2 takes the cheaper test: CESU-8's nibble test needs 14 lookups, its class test 5 (8.8
    # GB/s against 6.6); WTF-8's nibble test is as costly by the count and faster (10.0 against 7.7)
    avx2_nibble = nibble is not None and (not avx2["avx2"] or nibble.cost <= _class_cost(avx2, groups, found.k))
    if avx2_nibble:
        avx2 |= {"avx2": True, "avx2_rows": ()}
    prev_count = (1 if nibble_c.pad_safe else 2) if avx2_nibble and nibble_c else groups * found.k
    return WindowTestC(
        k=found.k,
        boxes=len(found.boxes),
        high_classes=hex_cells(list(classes[128:])),
        low_classes="" if uniform else hex_cells(list(classes[:128])),
        low_class=low,
        quiet_low=uniform and all_low_allowed,
        groups=groups,
        masks=tuple(tuple(hex_cells(list(m)) for m in group) for group in masks),
        mask_bytes=masks,
        shifts=tuple(hex_cells([64 + i - d if i >= d else 64 - d + i for i in range(64)])
                     for d in range(1, found.k + 1)),
        live=", ".join(f"{state * unit}u" for state in found.live),
        min_length=MIN_LENGTH,
        nibble=nibble_c,
        avx2_nibble=avx2_nibble,
        prev_count=prev_count,
        **avx2,
    )


def _nibble_c(test: NibbleTest, dfa: Dfa) -> NibbleC:
    start_on_zero = dfa.transitions[dfa.start][dfa.byte_class[0]]
    pad_safe = start_on_zero == dfa.start and dfa.start in test.live
    slots = {(lookup.distance, lookup.nibble) for group in test.groups for lookup in group}
    tables = [NibbleTableC(hex_cells([0x0F] * 16), "the mask of a low nibble")]
    groups = []
    for g, group in enumerate(test.groups):
        found = []
        for lookup in group:
            found.append(NibbleLookupC(lookup.distance, lookup.nibble == "high", len(tables)))
            tables.append(NibbleTableC(hex_cells(list(lookup.table)), f"box bits {8 * g}-{8 * g + 7}, "
                                       f"{lookup.nibble} nibble at distance {lookup.distance}"))
        groups.append(tuple(found))
    thresholds = []
    for d, t in enumerate(test.must or ()):
        if t:
            thresholds.append((d, t, len(tables)))
            tables.append(NibbleTableC(hex_cells([t - 0x80] * 16), f"{t:02X} - 80: bytes {t:02X}-FF at distance "
                                       f"{d} keep bit 7 after subtracting it (saturating)"))
    bit7 = len(tables)
    if thresholds:
        tables.append(NibbleTableC(hex_cells([0x80] * 16), "bit 7"))
    first = len(tables)
    if not pad_safe:
        tables.append(NibbleTableC(hex_cells([0 if i < test.k else 0xFF for i in range(16)]),
                                   f"the first block's positions past the first {test.k} (the DFA checks those)"))
    return NibbleC(
        lookups=test.lookups,
        boxes=len(test.boxes),
        tables=tuple(tables),
        groups=tuple(groups),
        thresholds=tuple(thresholds),
        bit7=bit7,
        first=first,
        distances=tuple(d for d in test.distances if d),
        highs=tuple(sorted(d for d, nibble in slots if nibble == "high")),
        lows=tuple(sorted(d for d, nibble in slots if nibble == "low")),
        pad_safe=pad_safe,
    )


def _class_cost(avx2: dict, groups: int, k: int) -> int:
    """Instructions a block of the AVX2 class test, roughly (to weigh against the nibble test's
    :attr:`~abnfc.automata.window_test.nibble.NibbleTest.cost`): the class by high nibble (a shift,
    an AND, a shuffle), 4 per row of low nibbles (a shuffle, a compare, a blend, their AND), and per
    group a shuffle at distance 0 and a shuffle, two shifts and an AND at each other."""
    return 3 + 4 * len(avx2["avx2_rows"]) + groups * (1 + 4 * k)


def _avx2(classes: bytes, count: int, pays: bool) -> dict:
    """The AVX2 class lookup: by high nibble, and by low nibble for the rows that need it."""
    rows = [classes[16 * high:16 * high + 16] for high in range(16)]
    mixed = [high for high in range(16) if len(set(rows[high])) > 1]
    fits = pays and count <= AVX2_CLASSES and len(mixed) <= AVX2_ROWS
    return {"avx2": fits,
            "avx2_high": hex_cells([0 if high in mixed else rows[high][0] for high in range(16)]),
            "avx2_rows": tuple(NibbleRow(high, hex_cells(list(rows[high]))) for high in mixed) if fits else ()}


def _reach(masks: tuple[tuple[int, ...], ...], box: int) -> int:
    """The furthest distance back at which the box does not hold every byte."""
    return max((d for d, mask in enumerate(masks) if any(not (bits >> box) & 1 for bits in mask)), default=0)


def _by_reach(masks: tuple[tuple[int, ...], ...], boxes: int) -> tuple[tuple[int, ...], ...]:
    """The masks with the boxes numbered anew, those that look furthest back first, so that a group
    of 8 boxes holds the short ones together and needs no lookup at the distances none of them
    looks at (RFC 2279's UTF-8: 10 boxes, 4 of them 6 bytes long and 3 of them 2; two groups
    with 6 lookups each become one with 6 and one with 2; see the window driver's distances)."""
    order = sorted(range(boxes), key=lambda box: (-_reach(masks, box), box))
    return tuple(tuple(sum(((bits >> old) & 1) << new for new, old in enumerate(order)) for bits in mask)
                 for mask in masks)


def _class_masks(classes: bytes, mask: tuple[int, ...], group: int) -> bytes:
    """A per-byte mask as a per-class one (64 entries; a class's bytes share their mask), the
    bits of boxes 8 * group to 8 * group + 7."""
    found = [0] * MAX_CLASSES
    for byte in range(256):
        found[classes[byte]] = (mask[byte] >> (8 * group)) & 0xFF
    return bytes(found)


def _and_all(masks: tuple[tuple[int, ...], ...], byte: int) -> int:
    """The AND of every distance's mask of ``byte``: not zero when a window of it alone is
    forbidden."""
    found = -1
    for mask in masks:
        found &= mask[byte]
    return found
