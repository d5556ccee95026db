"""The driver of a k-definite language's C window test (see :mod:`abnfc.automata.window_test`):
how an input is walked block by block, and what stands in for the DFA at both ends.

The window test alone says whether every byte past the first k may follow the k before it; the
start (the first k bytes, read from the start state) and the end (whether the last k bytes
leave an accepting state) are the DFA's.  Where the language allows, both become windows too,
by checking the input as if padded on both sides with bytes that ask nothing more ("pads"):

- before it, k bytes ``before`` that the start state stays put on: the windows that reach into
  them read the first bytes of the input exactly as the start state does (k-definite: the last
  k bytes decide the state, and k bytes ``before`` decide the start state);
- after it, bytes ``after``: k + 1 of them leave a live state alive exactly when it is
  accepting (so the state they lead to loops on ``after``, and more of them change nothing).

The input is then valid exactly when no window of the padded input is forbidden, and the first
forbidden window ends where the DFA dies (its first error), or past the input when the input
ends incomplete: the same test gives ``is_valid`` and ``first_error``, with no run of the DFA,
which is what makes short inputs cheap.  Without pads (the start state loops on no byte, or no
byte ends as ``after`` must), the DFA checks the first k bytes and the end, as before.

Blocks of bytes 00-7F (where those bytes are one class and no window of them is forbidden) are
skipped, as in simdutf8 (Keiser and Lemire, "Validating UTF-8 in less than one instruction per
byte", 2021), one 64-byte block at a time: such a block after another one changes nothing; after
a block with other bytes it is allowed exactly when the state that block ended in survives
k + 1 bytes 00-7F, which the previous block's last k byte classes decide (``end_table``, one bit
per tuple of classes, when there are at most :data:`MAX_END_TABLE` tuples; otherwise that block
is checked in full).

With AVX-512 VBMI an input of 1 to 64 bytes is one block: the bits of the bytes before it are
merged in by a masked one-source permute, and the windows past the block are decided by the end
table where there is one (by ``is_valid``, where the end table decomposes into one limit per
position from the end, by one compare of the block with those limits, as simdutf8's check of an
incomplete end); longer padded inputs shift each block's classes once per distance and
look every group of boxes up in them, or, where that takes fewer permutes, shift the classes one
position only and each group's chain of box bits two positions a pair of distances (the
lookups at distances 2j and 2j + 1 ANDed first, then moved on with the deeper ones: shifting is
linear, so a chain moved 2 then 2 again is moved 4), as the stride-doubling of a prefix scan.
Where the classes are at most 16 and the bits they have at the even distances fall into at most 8
groups, each byte's id is its class plus its group times 16, and every level is one lookup of 128
cells (two-source permute) in c1's class and c's group, selected from c1 and c by one bitwise
select: a permute a level, not one a distance (UTF-8: 5 permutes a block rather than 7).

The nibble test (:mod:`abnfc.automata.window_test.nibble`; AVX2, SSE4.1, NEON) catches a byte no
live state takes at the window after it rather than where it stands: its walks take the first
flagged position f, and f - 1 when the byte there is such a byte (``deferred``); the end table
never lets a block of bytes 00-7F be skipped after such a byte.  Where the end table decomposes
into limits with such a last byte refused too (``nibble_limits``; UTF-8: simdutf8's), the AVX2
walk of inputs of 8 to 256 bytes reads whole blocks of 32 only, the last one the 32 bytes that end
with the input, the windows of every block past the first reading the bytes before it from
memory rather than from the previous block (so no block depends on another), ORs their box bits
and tests them once, with the end one compare of the last block with the limits; the long walk
reads its steps' windows from memory too, and decides by the limits whether a step of bytes
00-7F may be skipped.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...automata.dfa import Dfa
from ..tables import Tables
from .literals import hex_cells
from .window_test import MIN_LENGTH, WindowTestC

SHORT_MIN = 8  # shorter inputs: the strategy's loop is as fast (UTF-8, Zen 4: about 4.5 ns either way at 8)
# ... with AVX2's nibble test too (its short inputs read by masked loads, not copied: UTF-8, Zen 4,
# 16 bytes 7.4 ns against the pairs loop's 12-13); with SSE4.1, NEON and AVX2's class test, whose
# last part block is copied (AVX2 on UTF-8 when it copied: 16 bytes 18 ns against the pairs
# loop's 12, 64 bytes 13.7 against 17.8)
OTHER_MIN = 64
# ... but 16 with SSE4.1 and NEON where AVX2 is not the class test: their last part block is read
# as the input's last 16 bytes, moved down, not copied (SSE4.1 on UTF-8, Zen 4: 16 bytes 8-13 ns
# against the pairs loop's 12-15, 40 bytes 10-11 against 24-26; NEON not timed); shorter inputs
# are still copied
NIBBLE_MIN = 16
# Inputs up to this long are walked with every block checked: a branch a block on whether it
# holds only bytes 00-7F is mispredicted about every other block on mostly-ASCII strings (UTF-8,
# Zen 4, German strings of 256 bytes: 22.7 ns with the branch, 13.7 without), but on strings of
# bytes 00-7F alone it skips work the dense walk does (1 KiB: 23-34 ns skipping, 47-50 dense;
# 256 bytes: 7.4-11.6 against 13.8-14.8), so the dense walk stops at 256
DENSE_MAX = 256
# Levels past 0 reading two distances from which the pairs walk reads them by kinds: with one,
# it was no faster (Zen 4, 1 MiB: UTF-8 26.2 against 26.5-26.9 GB/s, WTF-8 21.1 against 22.8;
# RFC 2279's UTF-8, two levels: 17.3 against 16.3-16.4)
KINDS_MIN = 2
MAX_END_TABLE = 4096  # tuples of k classes: a table of at most 512 bytes
JOINT_CLASSES = 16  # the joint index: c1's class in bits 0-3 ...
JOINT_GROUPS = 8  # ... and c's group in bits 4-6 (a two-source permute reads 7 bits)


@dataclass(frozen=True)
class WindowDriverC:
    pads: bool  # the input is checked padded: no DFA run at either end
    before: int  # the byte the start state stays put on (pads)
    after: int  # the byte k + 1 of which leave exactly the accepting live states alive (pads)
    before_low: bool  # pads, and ``before`` is one of the bytes 00-7F the driver skips
    after_low: bool  # ... and so is ``after``: the end table also decides the end of the input
    end_table: str  # bits per tuple of the last k classes: 1 when a block of bytes 00-7F may follow ("": none)
    end_classes: str  # 256 cells, the class of each byte, for the end table ("": none)
    num_classes: int
    # 256 cells, 1 for a byte no live state takes: the nibble test may flag it one position late
    # (at the window after it), so its walks step back over one ("": no such byte, or no pads)
    deferred: str
    short_min: int
    other_min: int  # the same where AVX2, SSE4.1 or NEON runs
    # AVX-512 VBMI (pads): per group and distance 1..k, the box bits the bytes before the input
    # leave for the first block (prev[g * k + d - 1]), as constants rather than a block's work
    before_bits: tuple[int, ...]
    # ... and per group and distance 0..k, the box bits of the bytes after the input
    after_bits: tuple[tuple[int, ...], ...]
    dense_max: int  # inputs up to this long are walked with no block skipped
    # per group of boxes, the distances 1..k the AVX-512 VBMI block looks up and shifts: padded,
    # those at which one of the group's boxes does not hold every byte (RFC 2279's UTF-8: 6 and
    # 2 lookups, not 6 and 6: 1.55 times as fast); unpadded, all, as the zero bits before the
    # input are what lets the windows that reach before it pass
    distances: tuple[tuple[int, ...], ...]
    # AVX-512 VBMI walk (pads): shift the block's classes, once per distance any group looks at,
    # and look each group's bits up in the shifted classes, rather than shift each group's bits
    # (Zen 4, 1 MiB mixed text: RFC 2279's UTF-8, 5 shifts a block, not 7: 68.4 against 74.7 us;
    # UTF-8, 3 shifts either way: 41.0 against 41.6).  Unpadded, the zero bits that stand for the
    # bytes before the input are no class's
    shift_classes: bool
    before_class: int  # the class of ``before``
    # k bytes whose classes' end-table bit is 1 ("": none): what the one-block is_valid reads the
    # end table from when the input ends inside the block, so that it reads it with no branch on
    # the length (UTF-8, Zen 4, 64-byte strings: with the call trimmed, 5.6-5.8 ns against 5.9-6.2)
    end_quiet: str
    # AVX-512 VBMI walk (pads), where it takes fewer permutes than shifting the classes: the
    # classes are moved one position on (c1), the lookups at distances 2j and 2j + 1 read c and c1
    # and are ANDed into level j, and each group's levels are chained from the deepest, the chain
    # moved two positions on per level: RFC 2279's UTF-8, 3 shifts a block rather than 5, UTF-8 2
    # rather than 3 (see :func:`_pair_levels`); () where the classes are shifted
    pair_levels: tuple[tuple[PairLevel, ...], ...]
    pair_shift_one: bool  # some lookup reads c1
    # per carried chain (prev[1], prev[2], ...): the bits the bytes before the input leave there
    pair_before: tuple[int, ...]
    # The pairs walk reads bytes as ids (0-63) rather than classes where the classes' bits at the
    # distances past 1 fall into at most 8 kinds (RFC 2279's UTF-8: 16 classes, 7 kinds): an id
    # is its class's kind times 8 plus its number among that kind's classes, so that the kinds of
    # c and c1 make one 6-bit index (a shift and a select, no permute), and a level past 0 takes
    # one lookup of it instead of one of c and one of c1 (see :func:`_pair_ids`).  "": classes.
    pair_high: str  # 128 cells: the id of each byte 80-FF
    pair_low: str  # 128 cells: the id of each byte 00-7F ("" when they are all pair_low_id)
    pair_low_id: int
    pair_before_id: int  # the id of ``before``
    pair_index: bool  # some level reads the index of kinds, or the joint index (pair_joint)
    # Where the end table decomposes by position (the state the last k bytes leave survives k + 1
    # bytes 00-7F exactly when, for each j < k, the byte j positions from the end is below a
    # limit): 128 cells, the limit less one of the byte j positions before the end at cell
    # 63 - j, FF elsewhere, so that the one-block is_valid compares its block, already in a
    # register, with the 64 cells from 64 - len on, as simdutf8 does, rather than read the last
    # bytes' classes and the table, a chain of dependent loads ("": it does not decompose)
    end_limits: str = ""
    # The pairs walk's ids are class + 16 * group, the group of a class its bits at the even
    # distances (those read in c), and each level is one lookup of the joint index, c1's class
    # and c's group ((c1 & 15) | (c & 0x70)), in 128 cells (see :func:`_pair_joint`)
    pair_joint: bool = False
    pair_select: int = 7  # the bits the index takes from the first operand of its select (kinds: 7, joint: 15)
    # is_valid on 65 to dense_max bytes by a walk of its own, the end by the limits (pads, pairs,
    # end_limits, end_quiet: as the one-block is_valid)
    dense_valid: bool = False
    # The same for the AVX2 nibble walk, whose windows flag a byte no live state takes one
    # position late (past the input when it is the last byte): such a last byte must be refused
    # too, so the tuples whose first k - 1 classes some live state survives and whose last class
    # no live state takes count, with bit 0.  64 cells, the limit less one of the byte j positions
    # before the end at cell 31 - j, FF elsewhere: a block of 32 that ends with the input is
    # compared with the first 32, one the input ends inside (len bytes) with the 32 from 32 - len
    # ("": it does not decompose; the walk reads the end table)
    nibble_limits: str = ""


@dataclass(frozen=True)
class PairLevel:
    """One level j of a group's chain: the lookups at distances 2j and 2j + 1."""

    lookups: tuple[tuple[int, bool], ...]  # (distance, read in c1: moved one position on)
    shift: int  # positions the deeper levels' chain moves on before this level ANDs it (0: the deepest)
    carry: int  # the prev[] holding the previous block's chain before that shift (when shift)
    # what the C reads: ("c", "c1" or "kinds": the index of the kinds of c and c1, 64 cells: the
    # box bits of each id or index)
    reads: tuple[tuple[str, str], ...] = ()


def plan_window_driver(tables: Tables, window: WindowTestC | None) -> WindowDriverC | None:
    if window is None:
        return None
    targets = [state.targets for state in tables.states]
    live = [s for s in range(tables.num_states) if s != tables.dead]
    byte_class = tables.byte_class

    def survives(state: int, cls: int) -> bool:
        return _survives(targets, tables.dead, state, cls, window.k + 1)

    before, after = _pads(targets, tables.start, tables.dead, set(tables.accepting), byte_class, window.k)
    before_byte = ([b for b in before if b < 0x80] or before or [0])[0]
    after_byte = next((b for b in after if b < 0x80), after[0] if after else 0)
    low_before = [b for b in before if b < 0x80]
    pads = bool(before and after)
    before_low = pads and window.quiet_low and bool(low_before)
    distances = tuple(_looked_at(group, tables.num_classes, window.boxes - 8 * g) if pads
                      else tuple(range(1, window.k + 1)) for g, group in enumerate(window.mask_bytes))
    levels = _pair_levels(distances) if pads else ()
    joint = _pair_joint(levels, window.mask_bytes, tables.num_classes)
    ids = joint or _pair_ids(levels, window.mask_bytes, tables.num_classes)
    levels = _joint_reads(levels, window.mask_bytes, joint) if joint \
        else _pair_reads(levels, window.mask_bytes, ids or list(range(tables.num_classes)), bool(ids))
    end = _end_table(targets, live, tables.dead, byte_class[0], tables.num_classes, window.k, survives) \
        if before_low and tables.num_classes ** window.k <= MAX_END_TABLE and window.k < 32 else None
    end_limits = _end_limits(end, targets, live, tables.dead, byte_class, tables.num_classes, window.k,
                             before_byte) if end else ""
    quiet = _end_quiet(end, byte_class, tables.num_classes, window.k) if end else ""
    return WindowDriverC(
        pads=pads,
        before=before_byte,
        after=after_byte,
        before_low=before_low,
        after_low=bool(end) and any(b < 0x80 for b in after),
        end_table=hex_cells(list(end)) if end else "",
        end_classes=hex_cells(list(byte_class)) if end else "",
        num_classes=tables.num_classes,
        deferred=_deferred(targets, live, tables.dead, byte_class) if pads and window.nibble else "",
        short_min=SHORT_MIN,
        other_min=OTHER_MIN if window.avx2 and not window.avx2_nibble else NIBBLE_MIN,
        before_bits=_before_bits(window, byte_class[before_byte]) if pads else (),
        after_bits=tuple(tuple(m[byte_class[after_byte]] for m in group) for group in window.mask_bytes)
        if pads else (),
        dense_max=DENSE_MAX,
        distances=distances,
        shift_classes=pads,
        before_class=byte_class[before_byte],
        end_quiet=quiet,
        pair_levels=levels,
        pair_shift_one=any(shifted for group in levels for level in group for _d, shifted in level.lookups),
        pair_before=_pair_before(levels, window.mask_bytes, byte_class[before_byte]),
        pair_high=hex_cells([ids[cls] for cls in byte_class[128:]]) if ids else "",
        pair_low="" if not ids or len(set(byte_class[:128])) == 1
        else hex_cells([ids[cls] for cls in byte_class[:128]]),
        pair_low_id=ids[byte_class[0]] if ids else 0,
        pair_before_id=ids[byte_class[before_byte]] if ids else 0,
        pair_index=bool(ids),
        pair_joint=bool(joint),
        pair_select=15 if joint else 7,
        dense_valid=bool(levels and any(b < 0x80 for b in after) and quiet and end_limits),
        end_limits=end_limits,
        nibble_limits=_nibble_limits(end, targets, live, tables.dead, byte_class, tables.num_classes, window.k,
                                     before_byte) if end and window.nibble and window.k <= 16 else "",
    )


def _pair_ids(levels: tuple[tuple[PairLevel, ...], ...], masks: tuple[tuple[bytes, ...], ...],
              classes: int) -> list[int] | None:
    """Each class's id: its kind (the classes whose bits agree at every distance past 1 that
    some level reads) times 8, plus its number among its kind's classes; None when the kinds or
    a kind's classes are more than 8, or when fewer than :data:`KINDS_MIN` levels past 0 read two
    distances (each saves a permute; the index of kinds costs a shift, which runs where permutes
    run, and a select, and makes the chain longer)."""
    deep = [(g, d) for g, group in enumerate(levels) for level in group for d, _one in level.lookups if d >= 2]
    if sum(len(level.lookups) == 2 and level.lookups[0][0] >= 2 for group in levels for level in group) < KINDS_MIN:
        return None
    kinds: dict[tuple[int, ...], list[int]] = {}
    for cls in range(classes):
        kinds.setdefault(tuple(masks[g][d][cls] for g, d in deep), []).append(cls)
    if len(kinds) > 8 or any(len(members) > 8 for members in kinds.values()):
        return None
    ids = [0] * classes
    for kind, members in enumerate(kinds.values()):
        for number, cls in enumerate(members):
            ids[cls] = 8 * kind + number
    return ids


def _pair_joint(levels: tuple[tuple[PairLevel, ...], ...], masks: tuple[tuple[bytes, ...], ...],
                classes: int) -> list[int] | None:
    """Each class's id for the joint index: the class plus 16 times its group, the classes whose
    bits (every group of boxes) agree at every even distance some level reads, numbered in the
    order of their first class; None where no level reads c1, or with more than
    :data:`JOINT_CLASSES` classes or :data:`JOINT_GROUPS` groups.  A level reads c at distance 2j
    and c1 at 2j + 1, so the class of c1 and the group of c give both its lookups' bits, in one
    lookup."""
    even = [(g, d) for g, group in enumerate(levels) for level in group for d, one in level.lookups if not one]
    if classes > JOINT_CLASSES or not any(one for group in levels for level in group for _d, one in level.lookups):
        return None
    groups: dict[tuple[int, ...], int] = {}
    for cls in range(classes):
        groups.setdefault(tuple(masks[g][d][cls] for g, d in even), len(groups))
    if len(groups) > JOINT_GROUPS:
        return None
    return [cls + 16 * groups[tuple(masks[g][d][cls] for g, d in even)] for cls in range(classes)]


def _joint_reads(levels: tuple[tuple[PairLevel, ...], ...], masks: tuple[tuple[bytes, ...], ...],
                 ids: list[int]) -> tuple[tuple[PairLevel, ...], ...]:
    """The levels, each reading the joint index once: cell c1 + 16 * group of c holds the AND of
    the level's lookups (FF where no class or group is)."""
    found = []
    for g, group in enumerate(levels):
        chain = []
        for level in group:
            cells = [0xFF] * 128
            for cls, id_c in enumerate(ids):
                for cls1 in range(len(ids)):
                    bits = 0xFF
                    for d, one in level.lookups:
                        bits &= masks[g][d][cls1 if one else cls]
                    cells[cls1 + (id_c & 0x70)] = bits
            chain.append(replace(level, reads=(("joint", hex_cells(cells)),)))
        found.append(tuple(chain))
    return tuple(found)


def _pair_reads(levels: tuple[tuple[PairLevel, ...], ...], masks: tuple[tuple[bytes, ...], ...], ids: list[int],
                by_kind: bool) -> tuple[tuple[PairLevel, ...], ...]:
    """The levels with what each reads: level 0, and every level when ``by_kind`` is false, the
    bits of c and c1 by id; a level past 0 by kind, its tables' bits of c's kind ANDed with those
    of c1's kind."""
    found = []
    for g, group in enumerate(levels):
        chain = []
        for level in group:
            reads: tuple[tuple[str, str], ...]
            if by_kind and level.lookups[0][0] >= 2 and len(level.lookups) == 2:
                cells = [0xFF] * 64
                for cls, id_c in enumerate(ids):
                    for cls1, id_c1 in enumerate(ids):
                        bits = 0xFF
                        for d, one in level.lookups:
                            bits &= masks[g][d][cls1 if one else cls]
                        cells[id_c // 8 + (id_c1 // 8) * 8] = bits
                reads = (("kinds", hex_cells(cells)),)
            else:
                reads = tuple(("c1" if one else "c", hex_cells(_by_id(masks[g][d], ids))) for d, one in level.lookups)
            chain.append(replace(level, reads=reads))
        found.append(tuple(chain))
    return tuple(found)


def _by_id(mask: bytes, ids: list[int]) -> list[int]:
    cells = [0] * 64
    for cls, number in enumerate(ids):
        cells[number] = mask[cls]
    return cells


def _pair_levels(distances: tuple[tuple[int, ...], ...]) -> tuple[tuple[PairLevel, ...], ...]:
    """Each group's chain of levels (deepest first), or () when shifting the classes once per
    distance takes no more permutes.  Bits at distance d = 2j + e are those of the classes moved
    e positions on (e = 0 or 1), looked up at level j; moving a level's chain on by 2 before the
    level below ANDs it puts them d positions back in all: one shift a level and group, shared by
    both of the level's distances, and one of the classes, for all groups."""
    found = []
    for looked in distances:
        at = sorted({0, *looked})
        js = sorted({d // 2 for d in at}, reverse=True)
        found.append([(j, tuple((d, d % 2 == 1) for d in at if d // 2 == j)) for j in js])
    shifts = sum(len(group) - 1 for group in found) + any(d % 2 for looked in distances for d in looked)
    if shifts >= len({d for looked in distances for d in looked}):
        return ()
    carry, levels = 1, []
    for group in found:
        chain = []
        for index, (j, lookups) in enumerate(group):
            shift = 2 * (group[index - 1][0] - j) if index else 0
            chain.append(PairLevel(lookups, shift, carry if shift else 0))
            carry += bool(shift)
        levels.append(tuple(chain))
    return tuple(levels)


def _pair_before(levels: tuple[tuple[PairLevel, ...], ...], masks: tuple[tuple[bytes, ...], ...],
                 before_class: int) -> tuple[int, ...]:
    """The chains the bytes before the input leave, before their shifts: every byte of a block of
    ``before`` has the same bits, the AND of the deeper levels' lookups."""
    found = []
    for g, group in enumerate(levels):
        bits = 0xFF
        for level in group:
            if level.shift:
                found.append(bits)
            for d, _shifted in level.lookups:
                bits &= masks[g][d][before_class]
    return tuple(found)


def _looked_at(group: tuple[bytes, ...], classes: int, boxes: int) -> tuple[int, ...]:
    """The distances past 0 at which some class lacks a bit of one of the group's boxes."""
    mine = (1 << max(0, min(8, boxes))) - 1
    return tuple(d for d in range(1, len(group)) if any(cells & mine != mine for cells in group[d][:classes]))


def _before_bits(window: WindowTestC, before_class: int) -> tuple[int, ...]:
    return tuple(group[d][before_class] for group in window.mask_bytes for d in range(1, window.k + 1))


def shortest_checked(dfa: Dfa, k: int) -> int:
    """The shortest input the generated C checks by the window test by default, for a DFA whose
    window test is k bytes long: padded, short ones too."""
    before, after = _pads(dfa.transitions, dfa.start, dfa.dead, set(dfa.accepting), dfa.byte_class, k)
    return SHORT_MIN if before and after else MIN_LENGTH


def _end_quiet(end: bytes, byte_class: bytes, classes: int, k: int) -> str:
    """k bytes whose tuple of classes has its end-table bit set ("" when no tuple has)."""
    for index, word in enumerate(itertools.product(range(classes), repeat=k)):
        if end[index // 8] >> (index % 8) & 1:
            return hex_cells([byte_class.index(cls) for cls in word])
    return ""


def _end_limits(end: bytes, targets: Sequence[Sequence[int]], live: list[int], dead: int, byte_class: bytes,
                classes: int, k: int, before: int) -> str:
    """The end table as one limit per position from the end ("" when it does not decompose so).

    Only tuples of classes some live state survives count: any other ends no input whose windows
    all pass (for the AVX-512 VBMI block, the only reader, which flags a byte no live state takes
    where it stands; the nibble test flags it one position late, past the input), and a class in
    none of them at position j may be on either side of its limit.  A class is refused at
    position j when every such tuple with it there has bit 0; the table decomposes when a tuple's
    bit is 1 exactly when it holds no refused class, and each position's refused bytes are those
    from some byte on (one unsigned compare), with ``before`` (the bytes before the input, inside
    the last k when the input is shorter) below every limit."""
    words = [(word, bool(end[index // 8] >> (index % 8) & 1))
             for index, word in enumerate(itertools.product(range(classes), repeat=k))
             if _reached(targets, live, dead, word) is not None]
    return _limit_cells(_position_limits(words, byte_class, k, before), 128)


def _nibble_limits(end: bytes, targets: Sequence[Sequence[int]], live: list[int], dead: int, byte_class: bytes,
                   classes: int, k: int, before: int) -> str:
    """The end table as one limit per position from the end, for the nibble walk ("" when it does
    not decompose so): as :func:`_end_limits`, but a tuple also counts, with bit 0, when some live
    state survives its first k - 1 classes and no live state takes its last (the nibble test
    flags that byte past the input); a tuple whose last class only other live states take is
    flagged inside the input, and one some live state does not survive the first k - 1 classes
    of, before the last byte.  The limits are cells 31 - j of 64."""
    words = []
    for index, word in enumerate(itertools.product(range(classes), repeat=k)):
        if _reached(targets, live, dead, word) is not None:
            words.append((word, bool(end[index // 8] >> (index % 8) & 1)))
        elif _reached(targets, live, dead, word[:-1]) is not None \
                and all(targets[state][word[-1]] == dead for state in live):
            words.append((word, False))
    return _limit_cells(_position_limits(words, byte_class, k, before), 64)


def _limit_cells(limits: list[int] | None, size: int) -> str:
    """The limits as a table of ``size`` cells, limit j at cell size / 2 - 1 - j and FF elsewhere,
    so that a block ending with the input reads them from cell size / 2 - len on ("": none)."""
    if limits is None:
        return ""
    cells = [0xFF] * size
    for j, limit in enumerate(limits):
        cells[size // 2 - 1 - j] = limit
    return hex_cells(cells)


def _position_limits(words: list[tuple[tuple[int, ...], bool]], byte_class: bytes, k: int,
                     before: int) -> list[int] | None:
    """Per position j from the end, the limit less one of its byte, such that a tuple of the words
    has bit 1 exactly when every byte is at most its limit (None: no such limits).  A class is
    refused at j when every word with it there has bit 0; the refused bytes must be those from
    some byte on, and ``before`` below it."""
    seen = [{word[k - 1 - j] for word, _bit in words} for j in range(k)]
    refused = [{cls for cls in seen[j] if all(not bit for word, bit in words if word[k - 1 - j] == cls)}
               for j in range(k)]
    if any(bit != all(word[k - 1 - j] not in refused[j] for j in range(k)) for word, bit in words):
        return None
    limits = []
    for j in range(k):
        low = min((b for b in range(256) if byte_class[b] in refused[j]), default=256)
        if low == 0 or before >= low or any(byte_class[b] in seen[j] - refused[j] for b in range(low, 256)):
            return None
        limits.append(low - 1)
    return limits


def _reached(targets: Sequence[Sequence[int]], live: list[int], dead: int, word: Sequence[int]) -> int | None:
    """A live state the classes of word lead to from some live state (None: from none)."""
    for state in live:
        for cls in word:
            state = targets[state][cls]
            if state == dead:
                break
        if state != dead:
            return state
    return None


def _deferred(targets: Sequence[Sequence[int]], live: list[int], dead: int, byte_class: bytes) -> str:
    """Per byte, 1 when no live state takes it ("" when every byte is taken by some state)."""
    cells = [int(all(targets[s][byte_class[b]] == dead for s in live)) for b in range(256)]
    return hex_cells(cells) if any(cells) else ""


def _survives(targets: Sequence[Sequence[int]], dead: int, state: int, cls: int, count: int) -> bool:
    for _ in range(count):
        state = targets[state][cls]
        if state == dead:
            return False
    return True


def _pads(targets: Sequence[Sequence[int]], start: int, dead: int, accepting: set[int], byte_class: bytes,
          k: int) -> tuple[list[int], list[int]]:
    """The bytes the start state stays put on, and those k + 1 of which leave exactly the accepting
    live states alive."""
    live = [s for s in range(len(targets)) if s != dead]
    before = [b for b in range(256) if targets[start][byte_class[b]] == start]
    after = [b for b in range(256)
             if all(_survives(targets, dead, s, byte_class[b], k + 1) == (s in accepting) for s in live)]
    return before, after


def _end_table(targets: list[tuple[int, ...]], live: list[int], dead: int, low: int, classes: int, k: int,
               survives) -> bytes:
    """Per tuple of k classes (the first the most significant digit), a bit: 1 when the state
    those classes decide survives k + 1 bytes 00-7F.  0 when no live state survives them at all:
    the block before holds an error, which the nibble test may flag only in the block after (a
    byte no live state takes is caught by the window after it), so that block is checked."""
    bits = bytearray((classes ** k + 7) // 8)
    for index, word in enumerate(itertools.product(range(classes), repeat=k)):
        reached = _reached(targets, live, dead, word)
        if reached is not None and survives(reached, low):
            bits[index // 8] |= 1 << (index % 8)
    return bytes(bits)
