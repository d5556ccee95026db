"""Neutral tables -> the Go plan: the strategy, the speed settings, every table as Go text.

Three strategies (``--go-strategy``), chosen from the automaton as the C backend chooses (see
:mod:`abnfc.backends.c.plan` and :mod:`abnfc.backends.analysis`), each one loop over the bytes:

- ``pairs`` (at most 10 states, at most 256 pair functions): a *shift DFA* stepping two bytes
  at a time: a 64 KiB table, filled when the package is initialized from the byte classes and
  the pair functions, gives each byte pair's transition function, whose row packs every state's
  successor as 6-bit shift amounts; an 8-byte load gives four pairs.
- ``shift`` (at most 10 states): the same rows one byte at a time, ``st = rows[b] >> (st & 63)``:
  one load and one shift, no bounds check (the row array has 256 entries, the count is masked).
- ``table``: a byte-class map and a transition table of premultiplied states (state s is held as
  s times the number of classes), for automata of any size.

The ``table`` loop runs inputs of 16 KiB or more as 4 segments side by side, as C's does (see
:mod:`abnfc.backends.c.plan`; the boundaries after synchronizing bytes, a wrong guess run again
until it meets the first run).  Long inputs run in blocks of 64 bytes with no check per byte
(the dead state is absorbing, so a block that ends dead is run again byte by byte to find the
byte).  A state whose self-loop holds every byte 00-7F (analysis' ``high`` skip sets,
Hyperscan's acceleration in its simplest form) skips a block whose eight 64-bit words have no
high bit set.  Go has no SIMD intrinsics, so the shufti and truffle tests, which need byte
shuffles, are left out; but the runs of an accelerated state (few bytes leave it) are found by a
loop that only tests each byte's bit in a table (no chain of dependent loads, as the DFA step
has: 1-2 GB/s), then a few bytes are stepped, and again; an automaton with such states runs long
inputs in one piece rather than in segments.  ``auto`` picks the first strategy that fits,
except for a finite language (no cycle through live states), which gets a plain byte loop.

Under ``auto``, a k-definite language with a nibble window test also gets it as AVX2 and NEON
assembly for ``IsValid`` (:mod:`.window`; 17.6 GB/s on 1 MiB of UTF-8 that is not all ASCII),
with the loop chosen here as its fallback.

Measured with bench/bench_go.py (16 MiB UTF-8 corpora, Go 1.19, amd64): pairs 3.3-4.0 GB/s,
shift 2.9-3.3, table 0.5-0.7 on text that is not all ASCII, 25-27 GB/s for all three on ASCII
(skipped blocks), hence ``auto``'s order.  Tried and left out: a table index masked to a power
of two instead of bounds-checked (0.69 -> 0.46 GB/s: the mask lengthens the chain of dependent
steps, the check does not), and testing first for a step that keeps the state in the byte loop
(URI references: 0.70 -> 0.58 GB/s, mispredicted; the pushdown loop, where states dwell, gains).

Every decision is made here; the templates place the text.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...charset import format_hex
from ...errors import InvariantError
from ..analysis import Speed, analyse, plan_strategy
from ..tables import Comments, Tables, comment_text
from .window import GoWindow, plan_window

SHIFT_BITS = 6
MAX_SHIFT_STATES = 64 // SHIFT_BITS  # 10 states fit in a uint64 row
BLOCK = 64  # bytes run with no check per byte, and skipped at once
# The table loop waits for a load each byte: segments side by side overlap those waits (as in C,
# whose 4 were measured); the shift loops keep the load units busy with one.
SEGMENTS = {"pairs": 1, "shift": 1, "table": 4}
MIN_SEGMENT = 4096  # bytes; shorter inputs run in one piece
SYNC_WINDOW = 16  # bytes searched for a synchronizing byte at each segment boundary
CHECKPOINTS = 16  # states kept per segment to find where a re-run meets the first run
CELLS_PER_LINE = 16


@dataclass(frozen=True)
class Line:
    label: str  # what the cells are for: "00-0F", "0: start of rule r"
    cells: str  # "c03, c03, ..."


@dataclass(frozen=True)
class RowConst:
    name: str  # "c03": equal widths, so that gofmt aligns nothing
    value: str  # "0x0000000000000000"
    comment: str  # "class 3: A0-BF"


@dataclass(frozen=True)
class ShiftRows:
    """shift and pairs: each byte class's row of next states packed in a 64-bit word."""

    rows: tuple[RowConst, ...]
    byte_lines: tuple[Line, ...]  # per byte: its row constant
    accept_mask: str


@dataclass(frozen=True)
class PairTables:
    """pairs: the rows of the pair functions and, per pair of classes, its function."""

    rows: tuple[RowConst, ...]
    row_lines: tuple[Line, ...]  # the rows' names, for the array of rows
    class_lines: tuple[Line, ...]  # per byte: its class
    of_classes: tuple[Line, ...]  # per first class: the function of each second class
    num_classes: int


@dataclass(frozen=True)
class TransitionTable:
    """table: a byte-class map and a transition table of premultiplied states."""

    cell_type: str  # the narrowest unsigned type holding a state as held
    class_lines: tuple[Line, ...]
    next_rows: tuple[Line, ...]  # one per state, labelled with its note
    accepting: tuple[str, ...]  # lines of cells: 1 for each accepting state


@dataclass(frozen=True)
class GoPlan:
    package: str  # the package's name and the file's stem
    strategy: str  # "pairs", "shift" or "table"
    plain: bool  # a finite language under "auto": one byte loop
    life: int  # plain: the most bytes an input stays alive (else -1)
    num_states: int
    num_classes: int
    start_state: int
    dead_state: int
    comments: Comments
    accepting_list: str  # "1, 3" or "none"
    state_type: str  # how the loop holds a state
    start: str  # the start state as held
    dead: str
    unit: int  # state s is held as s times this
    mask: str  # the state alone, out of what the loop holds: "st & 63" or "st"
    expected: tuple[str, ...]  # per state, its ranges as a Go literal
    max_ranges: int
    block: int
    skip_test: str  # the condition on the held state under which a block of ASCII is skipped; "" for none
    skip_states: tuple[int, ...]
    shift: ShiftRows | None = None
    pairs: PairTables | None = None
    table: TransitionTable | None = None
    window: GoWindow | None = None  # the AVX2 window test of IsValid on amd64
    segments: Segments | None = None  # long inputs in segments side by side (table)
    runs: Runs | None = None  # accelerated states: the end of their runs found by a membership loop
    # bytes stepped after a run ends before looking for the next (URI, 1 MiB in runs of about 50
    # with an escape between: 4 bytes 0.65 GB/s, 8 1.0, 16 0.4, the 64 of a block 0.37)
    run_step: int = 8


@dataclass(frozen=True)
class Runs:
    states: tuple[int, ...]  # the accelerated states, bit n of a byte's cell for states[n]
    byte_lines: tuple[Line, ...]  # per byte: the bits of the accelerated states that stay put on it
    state_lines: tuple[Line, ...]  # per state: its bit (0: not accelerated)
    index: str  # the state's number, out of what the loop holds (as gofmt spaces it)


@dataclass(frozen=True)
class Segments:
    count: int
    min_segment: int
    sync_window: int
    checkpoints: int
    sync_lines: tuple[Line, ...]  # per byte: the state (as held) every live state is in after it, or no_sync
    no_sync: int
    guess: int  # the state (as held) a segment starts in without a synchronizing byte


def lower(tables: Tables, options: Mapping[str, str]) -> GoPlan:
    if tables.pushdown is not None:
        raise InvariantError("the Go plan of a DFA was asked for the tables of a pushdown validator")
    speed = analyse(tables)
    wanted = options.get("strategy", "auto")
    strategy, plain = plan_strategy(tables, speed, wanted, "Go", "--go-strategy")
    shifting = strategy != "table"
    unit = SHIFT_BITS if shifting else tables.num_classes
    skips = () if plain else tuple(s.state for s in speed.skip_sets if s.kind == "high")
    runs = None if plain else _runs(tables, speed, f"(st&63)/{SHIFT_BITS}" if shifting else f"st/{unit}")
    return GoPlan(
        package=options["prefix"],
        strategy=strategy,
        plain=plain,
        life=speed.life if speed.life is not None else -1,
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start_state=tables.start,
        dead_state=tables.dead,
        comments=comments(tables),
        accepting_list=", ".join(str(s) for s in tables.accepting) or "none",
        state_type="uint64" if shifting else "uint",
        start=str(tables.start * unit),
        dead=str(tables.dead * unit),
        unit=unit,
        mask="st & 63" if shifting else "st",
        expected=tuple("{" + ", ".join(f"{{0x{lo:02X}, 0x{hi:02X}}}" for lo, hi in s.expects) + "}"
                       for s in tables.states),
        max_ranges=max((len(s.expects) for s in tables.states), default=0),
        block=BLOCK,
        # Shift rows hold bits above the state's 6: the test masks them off.
        skip_test=" || ".join(f"{'st&63' if shifting else 'st'} == {s * unit}" for s in skips),
        skip_states=skips,
        shift=_shift_rows(tables) if shifting else None,
        pairs=_pair_tables(tables, speed) if strategy == "pairs" else None,
        table=None if shifting else _transition_table(tables, unit),
        # a strategy asked for by name runs as it is, as in C
        window=plan_window(tables) if wanted == "auto" and not plain else None,
        # segments run no runs: one piece that does was faster (one URI of 1 MiB: 1.0 GB/s against 0.4)
        segments=None if plain or runs is not None or SEGMENTS[strategy] == 1
        else _segments(tables, speed, unit, SEGMENTS[strategy]),
        runs=runs,
    )


def _runs(tables: Tables, speed: Speed, index: str) -> Runs | None:
    """The accelerated states (few bytes leave them for another live state) that skip sets do not
    already cover, at most 8: Go has no byte shuffle, but a loop that only tests membership has no
    chain of dependent loads, as the DFA's step has."""
    chosen = [s for s in speed.skip_sets if s.accelerated and s.kind != "high"][:8]
    if not chosen:
        return None
    cells = [0] * 256
    for bit, found in enumerate(chosen):
        for lo, hi in found.ranges:
            for byte in range(lo, hi + 1):
                cells[byte] |= 1 << bit
    of_state = [0] * tables.num_states
    for bit, found in enumerate(chosen):
        of_state[found.state] = 1 << bit
    unlabelled = [""] * ((tables.num_states + CELLS_PER_LINE - 1) // CELLS_PER_LINE)
    return Runs(tuple(s.state for s in chosen), cell_lines([f"0x{c:02X}" for c in cells]),
                cell_lines([str(b) for b in of_state], unlabelled), index)

def _segments(tables: Tables, speed: Speed, unit: int, count: int) -> Segments:
    no_sync = tables.num_states * unit
    by_class = [no_sync if target is None else target * unit for target in speed.sync]
    targets = [by_class[c] for c in tables.byte_class]
    return Segments(count, MIN_SEGMENT, SYNC_WINDOW, CHECKPOINTS, cell_lines([str(t) for t in targets]), no_sync,
                    speed.guess * unit)


def comments(tables: Tables) -> Comments:
    """The comment text for // comments: one line each, printable, no trailing blanks."""
    return comment_text(tables, comment_safe)


def comment_safe(text: str) -> str:
    """``text`` for a // comment: printable text is one line already; trailing blanks go, as
    gofmt would take them."""
    return text.rstrip()


def cell_lines(cells: list[str], labels: list[str] | None = None) -> tuple[Line, ...]:
    """Cells, 16 to a line; each line labelled with the bytes it is for, unless labels are given.
    Cells are not padded: gofmt puts one space between the elements of a list."""
    out = []
    for n, start in enumerate(range(0, len(cells), CELLS_PER_LINE)):
        end = min(start + CELLS_PER_LINE, len(cells)) - 1
        label = labels[n] if labels is not None else f"{start:02X}-{end:02X}"
        out.append(Line(label, ", ".join(cells[start:end + 1]) + ","))
    return tuple(out)


def _names(count: int, letter: str) -> list[str]:
    width = len(str(count - 1))
    return [f"{letter}{n:0{width}}" for n in range(count)]


def _packed(targets) -> int:
    """Bits 6s..6s+5 hold 6*next(s): next = (row >> (6*s)) & 63."""
    return sum((SHIFT_BITS * target) << (SHIFT_BITS * state) for state, target in enumerate(targets))


def _shift_rows(tables: Tables) -> ShiftRows:
    names = _names(tables.num_classes, "c")
    rows = tuple(RowConst(names[cls], f"0x{_packed(s.targets[cls] for s in tables.states):016X}",
                          f"class {cls}: {format_hex(ranges)}")
                 for cls, ranges in enumerate(tables.classes))
    accept = sum(1 << (SHIFT_BITS * s) for s in tables.accepting)
    return ShiftRows(rows, cell_lines([names[c] for c in tables.byte_class]), f"0x{accept:016X}")


def _pair_tables(tables: Tables, speed: Speed) -> PairTables:
    pairs = speed.pairs
    if pairs is None:
        raise InvariantError("the pairs strategy was chosen for an automaton without pair functions")
    names = _names(len(pairs.rows), "p")
    rows = tuple(RowConst(names[n], f"0x{_packed(targets):016X}", "") for n, targets in enumerate(pairs.rows))
    classes = cell_lines([str(c) for c in tables.byte_class])
    of_classes = tuple(line for first, row in enumerate(pairs.of_classes)
                       for line in cell_lines([str(n) for n in row], [f"first class {first}"] * len(row)))
    return PairTables(rows, cell_lines(names), classes, of_classes, tables.num_classes)


def _transition_table(tables: Tables, unit: int) -> TransitionTable:
    largest = (tables.num_states - 1) * unit
    cell_type = "uint8" if largest < 1 << 8 else "uint16" if largest < 1 << 16 else "uint32"
    rows = tuple(Line(comment_safe(f"{s.index}: {s.note}" if s.note else f"{s.index}"),
                      ", ".join(str(t * unit) for t in s.targets) + ",") for s in tables.states)
    accepting = tuple(line.cells for line in cell_lines(["1" if s.accepting else "0" for s in tables.states]))
    return TransitionTable(cell_type, cell_lines([str(c) for c in tables.byte_class]), rows, accepting)
