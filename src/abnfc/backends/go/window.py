"""The window test in Go assembly: a k-definite language's nibble test
(:mod:`abnfc.automata.window_test.nibble`, Keiser and Lemire's kind of test, "Validating UTF-8 in
less than one instruction per byte", 2021) as an AVX2 function in ``<prefix>_amd64.s``, which
``IsValid`` calls on long inputs where the CPU has AVX2, and as a NEON function in
``<prefix>_arm64.s`` (:func:`_neon`).

Go has no SIMD intrinsics, so the block code is written here, instruction by instruction, as the
C backend's AVX2 instance (:mod:`abnfc.backends.c.window_test`) computes it: per 32-byte block,
the block's bytes moved d positions on (``VPERM2I128`` and ``VPALIGNR``, the first d from the
previous block), their nibbles looked up in 16-byte tables (``VPSHUFB``) and ANDed, the
equivalence bit XORed in from saturating subtractions (``VPSUBUSB``); the box bits of every
position are ORed together, and any bit set means an error.  64 bytes a step; a step of bytes
00-7F after another one is skipped (those bytes are one class and no window of them is
forbidden).

The input is checked as if padded (:mod:`abnfc.backends.c.window_driver`): bytes the start state
stays put on before it, bytes after it that leave a live state alive exactly when it is
accepting; every condition is then a window, so the assembly needs no DFA at either end.  It
reads whole 64-byte steps only: the Go caller hands it the input's whole steps, then a copy of
the rest padded with the bytes after, so nothing past the input is ever read.

The tables go 32 bytes each (a 16-byte table in both lanes, as ``VPSHUFB`` looks up in each lane)
in one read-only symbol.  Registers: the block, the previous block, their carry, the bits, the
error, two temporaries, the step's second block and the nibble mask are fixed; the other seven
hold the nibble vectors and then the lookup tables, as many as fit; the rest are recomputed or
loaded where used (CESU-8's 14 lookups).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...automata.dfa import Dfa
from ...automata.window_test import WindowTest, window_test
from ...automata.window_test.nibble import NibbleTest, nibble_test
from ..c.window_driver import _pads
from ..tables import Tables

MIN_LENGTH = 64  # shorter inputs: the byte loop is as fast (one step of the window test)
STEP = 64
TABLES = "nibbles<>"  # the read-only symbol of the tables, local to the .s file
FREE = ("Y7", "Y8", "Y9", "Y10", "Y11", "Y12", "Y14")  # what fixed registers leave
X, PREV, CARRY, BITS, ERROR, TMP, TMP2, SECOND, MASK = "Y0 Y1 Y2 Y3 Y4 Y5 Y6 Y13 Y15".split()


@dataclass(frozen=True)
class GoWindow:
    k: int
    lookups: int
    boxes: int
    before: int  # the byte before the input (the start state stays put on it)
    after: int  # the byte after it
    quiet_low: bool  # a step of bytes 00-7F after another one is skipped
    quiet_start: bool  # ... and the bytes before the input are such bytes
    data: tuple[str, ...]  # DATA lines of the tables
    size: int  # the tables' bytes
    notes: tuple[str, ...]  # per table, what it is (for the comment)
    block: tuple[str, ...]  # the instructions checking the block in X, the previous one in PREV
    second: tuple[str, ...]  # ... the block in SECOND, the previous one in X
    loads: tuple[str, ...]  # the tables kept in registers, loaded before the loop
    min_length: int
    neon: NeonWindow


@dataclass(frozen=True)
class NeonWindow:
    """The same test with NEON (arm64): 16 positions a block, four blocks a step."""

    data: tuple[str, ...]
    size: int
    notes: tuple[str, ...]
    loads: tuple[str, ...]  # the tables kept in registers, loaded before the loop
    blocks: tuple[str, ...]  # the instructions checking the step's four blocks


def plan_window(tables: Tables) -> GoWindow | None:
    """The AVX2 window test of a DFA, or None when its language has no nibble test or no pads."""
    if tables.pushdown is not None:
        return None
    dfa = Dfa(tables.classes, tuple(s.targets for s in tables.states), tables.start,
              frozenset(tables.accepting), tables.dead)
    found = window_test(dfa)
    if not isinstance(found, WindowTest) or len(found.live) != tables.num_states - 1:
        return None  # the padded check takes "not dead" for "live": no other state may be hopeless
    nibble = nibble_test(dfa, found)
    targets = [s.targets for s in tables.states]
    before, after = _pads(targets, tables.start, tables.dead, set(tables.accepting), tables.byte_class, found.k)
    if nibble is None or not before or not after or found.k + 1 > STEP:
        return None
    before_byte = next((b for b in before if b < 0x80), before[0])
    quiet = len(set(tables.byte_class[:0x80])) == 1 and _allowed_low(nibble)
    data, notes, offsets = _tables(nibble)
    block, loads = _block(nibble, offsets, X, PREV)
    second, _ = _block(nibble, offsets, SECOND, X)
    return GoWindow(
        k=found.k,
        lookups=nibble.lookups,
        boxes=len(nibble.boxes),
        before=before_byte,
        after=next((b for b in after if b < 0x80), after[0]),
        quiet_low=quiet,
        quiet_start=quiet and before_byte < 0x80,
        data=data,
        size=32 * len(notes),
        notes=notes,
        block=block,
        second=second,
        loads=loads,
        min_length=MIN_LENGTH,
        neon=_neon(nibble),
    )


def _allowed_low(test: NibbleTest) -> bool:
    """Whether a window of bytes 00 alone passes the test (bit 7's thresholds are 80 or more, so
    they leave it be)."""
    for group in test.groups:
        bits = 0xFF
        for lookup in group:
            bits &= lookup.table[0]
        if bits:
            return False
    return True


def _tables(test: NibbleTest) -> tuple[tuple[str, ...], tuple[str, ...], dict]:
    """DATA lines, notes, and the offset of each table: the nibble mask, the lookups', the
    thresholds', bit 7."""
    cells: list[tuple[int, ...]] = [(0x0F,) * 16]
    notes = ["the mask of a low nibble"]
    offsets: dict = {"mask": 0}
    for g, group in enumerate(test.groups):
        for n, lookup in enumerate(group):
            offsets[("lookup", g, n)] = 32 * len(cells)
            cells.append(lookup.table)
            notes.append(f"box bits {8 * g}-{8 * g + 7}, {lookup.nibble} nibble at distance {lookup.distance}")
    for d, t in enumerate(test.must or ()):
        if t:
            offsets[("threshold", d)] = 32 * len(cells)
            cells.append((t - 0x80,) * 16)
            notes.append(f"{t:02X} - 80: bytes {t:02X}-FF at distance {d} keep bit 7 after subtracting it (saturating)")
    if test.must:
        offsets["bit7"] = 32 * len(cells)
        cells.append((0x80,) * 16)
        notes.append("bit 7")
    return _data(cells, 32), tuple(notes), offsets


def _data(cells: list[tuple[int, ...]], width: int) -> tuple[str, ...]:
    """DATA lines of 16-byte tables, each repeated to ``width`` bytes."""
    data = []
    for index, table in enumerate(cells):
        for part in range(width // 8):
            word = bytes(table[8 * (part % 2):8 * (part % 2) + 8])
            data.append(f"DATA {TABLES}+{width * index + 8 * part}(SB)/8, $0x{int.from_bytes(word, 'little'):016x}")
    return tuple(data)


def _block(test: NibbleTest, offsets: dict, x: str, prev: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The instructions ORing into ERROR the box bits of the block in ``x`` (``prev`` the block
    before it), and those loading the tables it keeps in registers."""
    out: list[str] = []
    if any(d for d in test.distances):
        out.append(f"VPERM2I128 $0x21, {x}, {prev}, {CARRY}")  # the previous block's high lane, then x's low lane

    def moved(d: int, into: str) -> str:
        """x moved d positions on (the first d from the previous block), in ``into``."""
        if d == 0:
            return x
        out.append(f"VPALIGNR ${16 - d}, {CARRY}, {x}, {into}")
        return into

    def nibble(d: int, high: bool, into: str) -> str:
        source = moved(d, into)
        if high:
            out.append(f"VPSRLW $4, {source}, {into}")
            out.append(f"VPAND {MASK}, {into}, {into}")
        else:
            out.append(f"VPAND {MASK}, {source}, {into}")
        return into

    slots = sorted({(lookup.distance, lookup.nibble == "high") for group in test.groups for lookup in group})
    free = list(FREE)
    held: dict = {}
    for slot in slots:  # a register for each nibble vector while one is left for a table
        if len(free) > 1 or (free and len(slots) == 1):
            held[slot] = free.pop(0)
    for d in sorted({d for d, _high in held}):
        low, high = held.get((d, False)), held.get((d, True))
        if low and high and d:  # both nibbles of the bytes moved d on: one move
            moved(d, high)
            out.append(f"VPAND {MASK}, {high}, {low}")
            out.append(f"VPSRLW $4, {high}, {high}")
            out.append(f"VPAND {MASK}, {high}, {high}")
            continue
        for register, is_high in ((low, False), (high, True)):
            if register:
                nibble(d, is_high, register)
    tables: dict = {}
    loads: list[str] = []
    for g, group in enumerate(test.groups):
        for n, _lookup in enumerate(group):
            if free:
                register = free.pop(0)
                tables[(g, n)] = register
                loads.append(f"VMOVDQU {TABLES}+{offsets[('lookup', g, n)]}(SB), {register}")
    for g, group in enumerate(test.groups):
        for n, lookup in enumerate(group):
            slot = (lookup.distance, lookup.nibble == "high")
            index = held[slot] if slot in held else nibble(*slot, TMP)
            table = tables.get((g, n))
            if table is None:
                out.append(f"VMOVDQU {TABLES}+{offsets[('lookup', g, n)]}(SB), {TMP2}")
                table = TMP2
            out.append(f"VPSHUFB {index}, {table}, {BITS if n == 0 else TMP2}")
            if n:
                out.append(f"VPAND {TMP2}, {BITS}, {BITS}")
        if g == 0 and test.must:
            first = True
            for d, t in enumerate(test.must):
                if not t:
                    continue
                source = moved(d, TMP)
                threshold = f"{TABLES}+{offsets[('threshold', d)]}(SB)"
                if first:
                    out.append(f"VPSUBUSB {threshold}, {source}, {TMP2}")
                else:
                    out.append(f"VPSUBUSB {threshold}, {source}, {TMP}")
                    out.append(f"VPOR {TMP}, {TMP2}, {TMP2}")
                first = False
            out.append(f"VPAND {TABLES}+{offsets['bit7']}(SB), {TMP2}, {TMP2}")
            out.append(f"VPXOR {TMP2}, {BITS}, {BITS}")
        out.append(f"VPOR {BITS}, {ERROR}, {ERROR}")
    return tuple(out), tuple(loads)


# NEON: V0-V3 the step's blocks, V4 the block before, V5 the box bits, V6 all box bits so far,
# V7 and V8 for the moment, V9 the nibble mask, V10 bit 7; the rest for nibbles and tables.
NEON_FREE = tuple(f"V{n}" for n in range(11, 32))


def _neon(test: NibbleTest) -> NeonWindow:
    """The NEON instance: TBL is the nibble lookup, EXT moves a block d positions on, and as Go's
    arm64 assembler has no saturating subtraction, "at least t" is UMAX and CMEQ (the tables
    hold t, not t - 80)."""
    cells: list[tuple[int, ...]] = [(0x0F,) * 16, (0x80,) * 16]
    notes = ["the mask of a low nibble", "bit 7"]
    table_of: dict = {}
    for d, t in enumerate(test.must or ()):  # before the lookups: always in registers
        if t:
            table_of[("threshold", d)] = len(cells)
            cells.append((t,) * 16)
            notes.append(f"{t:02X}: bytes {t:02X}-FF at distance {d} set bit 7")
    for g, group in enumerate(test.groups):
        for n, lookup in enumerate(group):
            table_of[("lookup", g, n)] = len(cells)
            cells.append(lookup.table)
            notes.append(f"box bits {8 * g}-{8 * g + 7}, {lookup.nibble} nibble at distance {lookup.distance}")
    free = list(NEON_FREE)
    slots = sorted({(lookup.distance, lookup.nibble == "high") for group in test.groups for lookup in group})
    distances = sorted(({d for d, _high in slots} | {d for d, t in enumerate(test.must or ()) if t}) - {0})
    moved = {d: free.pop(0) for d in distances}  # at most k registers
    registers = {0: "V9", 1: "V10"}
    thresholds = sum(1 for t in test.must or () if t)
    for index in range(2, 2 + thresholds):
        registers[index] = free.pop(0)
    held = {slot: free.pop(0) for slot in slots if len(free) > 1}
    for index in range(2, len(cells)):
        if index not in registers and free:
            registers[index] = free.pop(0)
    loads = tuple(line for index, register in sorted(registers.items())
                  for line in (f"MOVD ${TABLES}+{16 * index}(SB), R4", f"VLD1 (R4), [{register}.B16]"))
    out: list[str] = []
    for x, prev in [("V0", "V4"), ("V1", "V0"), ("V2", "V1"), ("V3", "V2")]:
        out += _neon_block(test, x, prev, moved, held, registers, table_of)
    return NeonWindow(_data(cells, 16), 16 * len(cells), tuple(notes), loads, tuple(out))


def _neon_block(test: NibbleTest, x: str, prev: str, moved: dict, held: dict, registers: dict, table_of: dict
                ) -> list[str]:
    """The instructions ORing into V6 the box bits of the block in ``x`` (``prev`` the one before)."""
    out: list[str] = []
    for d, register in moved.items():
        out.append(f"VEXT ${16 - d}, {x}.B16, {prev}.B16, {register}.B16")

    def source(d: int) -> str:
        return x if d == 0 else moved[d]

    def nibble(d: int, high: bool, into: str) -> str:
        if high:
            out.append(f"VUSHR $4, {source(d)}.B16, {into}.B16")
        else:
            out.append(f"VAND V9.B16, {source(d)}.B16, {into}.B16")
        return into

    def table(index: int) -> str:
        if index in registers:
            return registers[index]
        out.append(f"MOVD ${TABLES}+{16 * index}(SB), R4")
        out.append("VLD1 (R4), [V8.B16]")
        return "V8"

    for (d, high), register in held.items():
        nibble(d, high, register)
    for g, group in enumerate(test.groups):
        for n, lookup in enumerate(group):
            slot = (lookup.distance, lookup.nibble == "high")
            index = held[slot] if slot in held else nibble(*slot, "V7")
            into = "V5" if n == 0 else "V8"
            out.append(f"VTBL {index}.B16, [{table(table_of[('lookup', g, n)])}.B16], {into}.B16")
            if n:
                out.append("VAND V8.B16, V5.B16, V5.B16")
        if g == 0 and test.must:
            first = True
            for d, t in enumerate(test.must):
                if not t:
                    continue
                at_least = table(table_of[("threshold", d)])
                into = "V8" if first else "V7"
                out.append(f"VUMAX {at_least}.B16, {source(d)}.B16, {into}.B16")
                out.append(f"VCMEQ {into}.B16, {source(d)}.B16, {into}.B16")
                if not first:
                    out.append("VORR V7.B16, V8.B16, V8.B16")
                first = False
            out.append("VAND V10.B16, V8.B16, V8.B16")
            out.append("VEOR V8.B16, V5.B16, V5.B16")
        out.append("VORR V5.B16, V6.B16, V6.B16")
    return out
