"""The window test by nibble lookups: a cover of a k-definite language's forbidden windows by
boxes whose every position is a product of a set of high nibbles and a set of low nibbles, so
that 16-entry byte-shuffle tables (``pshufb``, ``vqtbl1q_u8``) check 16 or 32 positions at once.

Keiser and Lemire ("Validating UTF-8 in less than one instruction per byte", 2021) check UTF-8
with three such lookups (the previous byte's high and low nibble, the current byte's high
nibble), whose 8 bits are 8 "error kinds" ANDed, and one more test: the bit of "two continuation
bytes in a row" must equal "a 3- or 4-byte lead 2 or 3 bytes back" (two saturating subtractions).
This module derives the same kind of test from any automaton :mod:`.cover` applies to:

1. *Cells.*  High nibbles whose rows of 16 bytes fall into the same byte classes are merged into
   row groups, low nibbles likewise into column groups; a cell (row group, class) is a product of
   nibble sets, and a box at a position is a product (row groups) x (column groups), so a cell is
   in it, out of it, or only touched.  The class windows of :mod:`.cover` become cell windows.
2. *Deferred bytes.*  A byte whose class no live state takes (UTF-8's C0, C1, F5-FF) need not be
   caught where it stands: the window after it is caught instead (its context holds the byte, so
   no allowed window has it), and a last byte is caught by the run over the last k bytes.  That
   spares the low nibble of the byte checked, as in Keiser and Lemire.
3. *The equivalence bit.*  One bit may be tested by XOR rather than AND: "the high nibbles at
   distances 0 and 1 are in a set X" must equal "the byte at some distance d >= 2 is at least
   t_d" (t_d from 80 up, by saturating subtraction).  For each X (a union of row groups) the
   least thresholds that keep every allowed window with its bit clear are found directly, and
   the X that settles the most forbidden windows is kept, when it makes the test cheaper.
4. *Boxes.*  The remaining forbidden cell windows are covered greedily as in :mod:`.cover`
   (Chvátal's greedy set cover), a box grown one row or column group at a time, most new windows
   first, touching no allowed window; several seed orders are tried and the cover needing the
   fewest lookups kept.  Boxes go 8 to a byte; a group's lookups are the (distance, nibble)
   positions any of its boxes constrains.

A position past the first k is then wrong exactly when a group's AND of lookups, XOR the
equivalence bit, is not zero; with the first k bytes run through the DFA and the end decided by
the last k (as in :mod:`.cover`), an input is valid exactly when the DFA accepts it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..dfa import Dfa
from .cover import WindowTest, _contexts, ends_accepting
from .definite import _live

MAX_CELL_WINDOWS = 60_000  # beyond: no nibble test (the greedy cover's time grows with them)
MAX_GROUPS = 3  # bytes of box bits; beyond, the class cover's lookups are as cheap
SEED_ORDERS = 12  # greedy covers tried, each with its own order of seeds
FULL = 0xFFFF
WILD = -1  # a cell standing for every byte: the deferred windows' positions 2..k


@dataclass(frozen=True)
class NibbleBox:
    high: tuple[int, ...]  # per distance d = 0..k back: the high nibbles it holds (16 bits)
    low: tuple[int, ...]  # per distance: the low nibbles


@dataclass(frozen=True)
class Lookup:
    distance: int
    nibble: str  # "high" or "low"
    table: tuple[int, ...]  # 16 bytes: per nibble value, the group's box bits


@dataclass(frozen=True)
class NibbleTest:
    k: int
    boxes: tuple[NibbleBox, ...]
    groups: tuple[tuple[Lookup, ...], ...]  # per byte of box bits, its lookups
    # bit 7 of group 0 taken by XOR: per distance d = 0..k, the least byte that sets it (0: none)
    must: tuple[int, ...] | None
    live: tuple[int, ...]

    @property
    def lookups(self) -> int:
        return sum(len(group) for group in self.groups)

    @property
    def cost(self) -> int:
        """Instructions a block, roughly (:func:`_cost`)."""
        return _cost(self)

    @property
    def distances(self) -> tuple[int, ...]:
        """The distances whose bytes the test reads (0 always)."""
        used = {0} | {lookup.distance for group in self.groups for lookup in group}
        used |= {d for d, t in enumerate(self.must or ()) if t}
        return tuple(sorted(used))


def nibble_test(dfa: Dfa, test: WindowTest) -> NibbleTest | None:
    """The nibble test of the language ``test`` checks by classes, or None when none fits."""
    k, live = test.k, _live(dfa)
    contexts = _contexts(dfa, live, k)
    if contexts is None:
        return None
    rows, cols = _groups(dfa)
    cells = _cells(dfa, rows, cols)
    never = {c for c in range(dfa.num_classes) if all(dfa.transitions[s][c] not in live for s in live)}
    allowed: list[tuple[int, ...]] = []
    forbidden: list[tuple[int, ...]] = []
    for context, state in contexts.items():
        for cls, target in enumerate(dfa.transitions[state]):
            if target in live:
                allowed.append((*context, cls))
            elif cls not in never:
                forbidden.append((*context, cls))
    atoms = [(cell, cls) for cls in range(dfa.num_classes) for cell in cells[cls]]
    allowed_cells = _expand(allowed, cells)
    must_cells = _expand(forbidden, cells)
    if allowed_cells is None or must_cells is None:
        return None
    wild = (WILD,) * (k - 1)
    must_cells += [(a, n, *wild) for cls in never for n in cells[cls] for a, _cls in atoms]
    if len(allowed_cells) + len(must_cells) > MAX_CELL_WINDOWS:
        return None
    best: NibbleTest | None = None
    for equivalence in (None, _equivalence(allowed_cells, must_cells, rows, k)):
        if equivalence is None and best is not None:
            continue
        remaining = must_cells if equivalence is None else [w for w in must_cells if not _settled(w, *equivalence)]
        reserved = 0 if equivalence is None else 1
        boxes = _best_cover(allowed_cells, remaining, rows, cols, k + 1, reserved)
        if boxes is None:
            continue
        found = _pack(boxes, equivalence, k, tuple(sorted(live)))
        if found is not None and (best is None or _cost(found) < _cost(best)):
            best = found
    return best


def _cost(test: NibbleTest) -> int:
    """Instructions a block, roughly: a byte shift per distance read; a nibble taken out (a shift
    and an AND for a high one, an AND for a low one) once; a lookup a shuffle and an AND; a
    threshold a subtraction and an OR, the equivalence bit an AND and an XOR."""
    slots = {(lookup.distance, lookup.nibble) for group in test.groups for lookup in group}
    extract = sum(2 if nibble == "high" else 1 for _d, nibble in slots)
    thresholds = sum(1 for t in test.must if t) if test.must else 0
    return (len(test.distances) - 1) + extract + 2 * test.lookups + (2 + 2 * thresholds if test.must else 0)


def _groups(dfa: Dfa) -> tuple[list[int], list[int]]:
    """Row groups and column groups as 16-bit masks of nibbles (identical rows, identical columns)."""
    byte_class = dfa.byte_class
    by_row: dict[bytes, int] = {}
    by_col: dict[bytes, int] = {}
    for nibble in range(16):
        by_row[bytes(byte_class[16 * nibble + low] for low in range(16))] = by_row.get(
            bytes(byte_class[16 * nibble + low] for low in range(16)), 0) | 1 << nibble
        column = bytes(byte_class[16 * high + nibble] for high in range(16))
        by_col[column] = by_col.get(column, 0) | 1 << nibble
    return list(by_row.values()), list(by_col.values())


Cell = tuple[int, int]  # (high nibbles, low nibbles): a product of nibble sets, inside one class


def _cells(dfa: Dfa, rows: list[int], cols: list[int]) -> list[list[Cell]]:
    """Per class, its cells: for each row group it meets, the column groups it has there."""
    byte_class = dfa.byte_class
    found: list[list[Cell]] = [[] for _ in range(dfa.num_classes)]
    for row in rows:
        high = (row & -row).bit_length() - 1
        lows: dict[int, int] = {}
        for low in range(16):
            cls = byte_class[16 * high + low]
            lows[cls] = lows.get(cls, 0) | 1 << low
        for cls, low in lows.items():
            found[cls].append((row, low))
    return found


def _expand(windows: list[tuple[int, ...]], cells: list[list[Cell]]) -> list[tuple] | None:
    """Class windows as cell windows (each class at each position by each of its cells)."""
    out: list[tuple] = []
    for window in windows:
        partial: list[tuple] = [()]
        for cls in window:
            partial = [(*p, cell) for p in partial for cell in cells[cls]]
        out += partial
        if len(out) > MAX_CELL_WINDOWS:
            return None
    # positions stored newest first (distance order); cells are (row, low) pairs
    return [tuple(reversed(w)) for w in out]


def _equivalence(allowed: list[tuple], must: list[tuple], rows: list[int], k: int
                 ) -> tuple[int, tuple[int, ...]] | None:
    """The set X of high nibbles and the thresholds per distance (0: none) of the equivalence bit
    that settles the most forbidden windows, or None when none settles any."""
    if k < 2:
        return None
    best: tuple[int, tuple[int, ...]] | None = None
    best_gain = 0
    allowed_heads, must_heads = _by_head(allowed), _by_head(must)
    tops = {head: [max(_highest(tail[i]) for tail in tails) for i in range(k - 1)]
            for head, tails in allowed_heads.items()}
    upper = [row for row in rows if row & 0xFF == 0]  # X of bytes 80-FF, as the thresholds are
    for choice in range(1, 1 << len(upper)):
        x = 0
        for index, row in enumerate(upper):
            if choice >> index & 1:
                x |= row
        thresholds = _thresholds(allowed_heads, tops, x, k)
        if thresholds is None:
            continue
        gain = 0
        for head, tails in must_heads.items():
            if _in_x(head, x) is not None:
                gain += sum(count for tail, count in tails.items() if _settled((*head, *tail), x, thresholds))
        if gain > best_gain:
            best, best_gain = (x, thresholds), gain
    return best


def _by_head(windows: list[tuple]) -> dict[tuple, dict[tuple, int]]:
    """Windows by their cells at distances 0 and 1 (on which X decides): the rows of the cells at
    distances 2 and on (on which the thresholds decide), each with its number of windows."""
    heads: dict[tuple, dict[tuple, int]] = {}
    for window in windows:
        tails = heads.setdefault(window[:2], {})
        tail = tuple(c if c == WILD else (c[0], FULL) for c in window[2:])
        tails[tail] = tails.get(tail, 0) + 1
    return heads


def _in_x(window: tuple, x: int) -> bool | None:
    """Whether distances 0 and 1 have high nibbles in x (None: it depends on the byte)."""
    inside = [_rows_in(cell, x) for cell in window[:2]]
    if None in inside:
        return None
    return all(inside)


def _rows_in(cell, x: int) -> bool | None:
    if cell == WILD:
        return None
    row = cell[0]
    return True if row & x == row else False if row & x == 0 else None


def _at_least(cell, threshold: int) -> bool | None:
    """Whether the cell's bytes are at least ``threshold`` (a multiple of 16)."""
    if cell == WILD or threshold == 0:
        return None if cell == WILD and threshold else False
    row, high = cell[0], threshold >> 4
    below = row & ((1 << high) - 1)
    return True if below == 0 else False if below == row else None


def _thresholds(allowed: dict[tuple, dict[tuple, int]], tops: dict[tuple, list[int]], x: int, k: int
                ) -> tuple[int, ...] | None:
    """The least thresholds keeping the equivalence bit clear on every allowed window (``allowed``
    by head, as :func:`_by_head` gives them, ``tops`` the highest row's first byte at each distance
    from 2 on among a head's tails): above every byte at distance d of the allowed windows outside
    X, and some distance at least its threshold inside."""
    highest = [0x70] * (k + 1)
    inside_tails = []
    for head, tails in allowed.items():
        inside = _in_x(head, x)
        if inside is None:
            return None
        if inside:
            inside_tails += list(tails)
            continue
        for d, top in enumerate(tops[head], start=2):
            highest[d] = max(highest[d], top)
    thresholds = [0, 0] + [0 if highest[d] >= 0xF0 else (highest[d] + 16) & 0xF0 for d in range(2, k + 1)]
    if not any(thresholds):
        return None
    for tail in inside_tails:
        if not any(_at_least(tail[d - 2], thresholds[d]) is True for d in range(2, k + 1)):
            return None
    return tuple(thresholds)


def _highest(cell) -> int:
    row = cell[0]
    return 16 * (row.bit_length() - 1)


def _settled(window: tuple, x: int, thresholds: tuple[int, ...]) -> bool:
    """Whether the equivalence bit is set on every byte window of the cell window."""
    inside = _in_x(window, x)
    if inside is None:
        return False
    tests = [_at_least(window[d], t) for d, t in enumerate(thresholds) if t]
    if inside:
        return all(test is False for test in tests)
    return any(test is True for test in tests)


def _best_cover(allowed: list[tuple], must: list[tuple], rows: list[int], cols: list[int], width: int,
                reserved: int) -> list[NibbleBox] | None:
    """The cover with the fewest lookups among a few seed orders (the first: the windows' order)."""
    index = _Index(allowed, must, rows, cols, width)
    best, best_cost = None, None
    rng = random.Random(0)
    for attempt in range(SEED_ORDERS):
        order = list(range(len(must)))
        if attempt:
            rng.shuffle(order)
        boxes = _cover(index, order, 8 * MAX_GROUPS - reserved)
        if boxes is None:
            continue
        cost = _lookups(boxes, reserved)
        if best_cost is None or cost < best_cost:
            best, best_cost = boxes, cost
    return best


class _Index:
    """Bit sets of cell windows (Python integers): which hold a row group or touch a column group
    at each position, so that the windows a box holds or touches are ANDs of ORs."""

    def __init__(self, allowed: list[tuple], must: list[tuple], rows: list[int], cols: list[int], width: int):
        self.rows, self.cols, self.width, self.must = rows, cols, width, must
        self.good = self._bits(allowed)
        self.bad = self._bits(must)

    def _bits(self, windows: list[tuple]) -> dict:
        size = (len(windows) + 7) // 8
        row_hits = [[bytearray(size) for _ in self.rows] for _ in range(self.width)]
        col_hits = [[bytearray(size) for _ in self.cols] for _ in range(self.width)]
        wild = [bytearray(size) for _ in range(self.width)]
        for index, window in enumerate(windows):
            byte, bit = index >> 3, 1 << (index & 7)
            for d, cell in enumerate(window):
                if cell == WILD:
                    wild[d][byte] |= bit
                    for g in range(len(self.cols)):
                        col_hits[d][g][byte] |= bit
                    continue
                row, low = cell
                row_hits[d][self.rows.index(row)][byte] |= bit
                for g, col in enumerate(self.cols):
                    if col & low:
                        col_hits[d][g][byte] |= bit

        def ints(arrays):
            return [int.from_bytes(a, "little") for a in arrays]
        return {"row": [ints(r) for r in row_hits], "col": [ints(c) for c in col_hits], "wild": ints(wild),
                "all": (1 << len(windows)) - 1}

    def windows(self, bits: dict, box: list[list[set[int]]], held: bool) -> int:
        """The windows the box holds (held) or touches."""
        found = bits["all"]
        for d in range(self.width):
            found &= self.part(bits, box, d, held)
            if not found:
                return 0
        return found

    def part(self, bits: dict, box: list[list[set[int]]], d: int, held: bool) -> int:
        """The windows whose cell at distance d the box holds (held) or touches."""
        row_set, col_set = box[d]
        rows = 0
        for g in row_set:
            rows |= bits["row"][d][g]
        if len(row_set) == len(self.rows) and len(col_set) == len(self.cols):
            return rows | bits["wild"][d]
        if held:
            outside = 0
            for g in range(len(self.cols)):
                if g not in col_set:
                    outside |= bits["col"][d][g]
            return rows & ~outside
        touched = 0
        for g in col_set:
            touched |= bits["col"][d][g]
        return rows & touched

    def others(self, bits: dict, box: list[list[set[int]]], held: bool) -> list[int]:
        """Per distance, the windows the box holds (touches) at every other distance (prefix and
        suffix ANDs), so that a change at one distance costs one :meth:`part`."""
        parts = [self.part(bits, box, d, held) for d in range(self.width)]
        before, after = [bits["all"]] * (self.width + 1), [bits["all"]] * (self.width + 1)
        for d in range(self.width):
            before[d + 1] = before[d] & parts[d]
        for d in reversed(range(self.width)):
            after[d] = after[d + 1] & parts[d]
        return [before[d] & after[d + 1] for d in range(self.width)]


def _cover(index: _Index, order: list[int], limit: int) -> list[NibbleBox] | None:
    uncovered = index.bad["all"]
    boxes: list[list[list[set[int]]]] = []
    position = 0
    while uncovered:
        if len(boxes) == limit:
            return None
        while not uncovered >> order[position] & 1:
            position += 1
        box = _seed(index, index.must[order[position]])
        if index.windows(index.good, box, held=False):
            return None  # a forbidden cell window shares a cell window with an allowed one
        while True:
            inside = index.windows(index.bad, box, held=True) & uncovered
            good_others = index.others(index.good, box, held=False)
            bad_others = index.others(index.bad, box, held=True)
            best = None
            for d in range(index.width):
                for kind, count in ((0, len(index.rows)), (1, len(index.cols))):
                    for g in range(count):
                        if g in box[d][kind]:
                            continue
                        box[d][kind].add(g)
                        if not good_others[d] & index.part(index.good, box, d, held=False):
                            held = bad_others[d] & index.part(index.bad, box, d, held=True)
                            gain = (held & uncovered & ~inside).bit_count()
                            # equal gains: the position nearest to holding every byte, whose lookup may go
                            missing = count - len(box[d][kind])
                            if best is None or (gain, -missing) > best[0]:
                                best = ((gain, -missing), d, kind, g)
                        box[d][kind].discard(g)
            if best is None:
                break
            box[best[1]][best[2]].add(best[3])
        uncovered &= ~index.windows(index.bad, box, held=True)
        boxes.append(box)
    return [NibbleBox(tuple(_mask(index.rows, box[d][0]) for d in range(index.width)),
                      tuple(_mask(index.cols, box[d][1]) for d in range(index.width)))
            for box in _needed(index, boxes)]


def _needed(index: _Index, boxes: list) -> list:
    """The boxes without those whose windows the others hold (a later box may hold an earlier
    one's)."""
    held = [index.windows(index.bad, box, held=True) for box in boxes]
    kept = list(range(len(boxes)))
    for b in range(len(boxes)):
        others = 0
        for other in kept:
            if other != b:
                others |= held[other]
        if held[b] & ~others == 0:
            kept.remove(b)
    return [boxes[b] for b in kept]


def _seed(index: _Index, window: tuple) -> list[list[set[int]]]:
    box = []
    for cell in window:
        if cell == WILD:
            box.append([set(range(len(index.rows))), set(range(len(index.cols)))])
        else:
            row, low = cell
            box.append([{index.rows.index(row)}, {g for g, col in enumerate(index.cols) if col & low}])
    return box


def _mask(groups: list[int], chosen: set[int]) -> int:
    found = 0
    for g in chosen:
        found |= groups[g]
    return found


def _slots(box: NibbleBox) -> set[tuple[int, str]]:
    return ({(d, "high") for d, h in enumerate(box.high) if h != FULL}
            | {(d, "low") for d, low in enumerate(box.low) if low != FULL})


def _lookups(boxes: list[NibbleBox], reserved: int) -> int:
    return sum(len(slots) for slots in _grouped(boxes, reserved)[1])


def _grouped(boxes: list[NibbleBox], reserved: int) -> tuple[list[list[NibbleBox]], list[set[tuple[int, str]]]]:
    """Boxes 8 to a group (the first group keeps ``reserved`` bits), the boxes sharing lookups
    together (sorted by their lookups)."""
    ordered = sorted(boxes, key=lambda b: sorted(_slots(b)))
    groups: list[list[NibbleBox]] = []
    room = 8 - reserved
    while ordered or not groups:
        groups.append(ordered[:room])
        ordered, room = ordered[room:], 8
    return groups, [set().union(*(_slots(b) for b in g)) for g in groups]


def _pack(boxes: list[NibbleBox], equivalence: tuple[int, tuple[int, ...]] | None, k: int,
          live: tuple[int, ...]) -> NibbleTest | None:
    reserved = 0 if equivalence is None else 1
    groups, slots = _grouped(boxes, reserved)
    if len(groups) > MAX_GROUPS:
        return None
    if equivalence is not None:
        x = equivalence[0]
        slots[0] |= {(0, "high"), (1, "high")}
    packed = []
    for g, (members, used) in enumerate(zip(groups, slots, strict=True)):
        if not used and not members and g:
            continue
        used = used or {(0, "high")}
        lookups = []
        for d, nibble in sorted(used):
            table = []
            for value in range(16):
                bits = 0
                for b, box in enumerate(members):
                    if (box.high if nibble == "high" else box.low)[d] >> value & 1:
                        bits |= 1 << b
                if g == 0 and equivalence is not None and (nibble == "low" or d > 1 or x >> value & 1):
                    bits |= 0x80
                table.append(bits)
            lookups.append(Lookup(d, nibble, tuple(table)))
        packed.append(tuple(lookups))
    return NibbleTest(k, tuple(boxes), tuple(packed), None if equivalence is None else equivalence[1], live)


def nibble_accepts(test: NibbleTest, dfa: Dfa, data: bytes) -> bool:
    """Whether ``data`` is valid, decided as the generated nibble code decides it (the reference
    the generated SIMD code is tested against)."""
    k = test.k
    if len(data) <= k:
        return dfa.matches(data)
    if dfa.trace(data[:k])[-1] not in test.live:
        return False
    for i in range(k, len(data)):
        for g, group in enumerate(test.groups):
            bits = 0xFF
            for lookup in group:
                byte = data[i - lookup.distance]
                bits &= lookup.table[byte >> 4 if lookup.nibble == "high" else byte & 15]
            if g == 0 and test.must is not None and any(t and data[i - d] >= t for d, t in enumerate(test.must)):
                bits ^= 0x80
            if bits:
                return False
    return ends_accepting(dfa, test.live, data[-k:])
