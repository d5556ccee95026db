"""Neutral tables -> the C plan: the strategy, the speed settings, every table and literal as C text.

Three strategies (``--c-strategy``), each one loop over the bytes with the same shape:

- ``pairs`` (at most 10 states, at most 256 pair functions): a *shift DFA* that steps two bytes at
  a time.  A 64 KiB table gives the number of each byte pair's transition function and that
  function's row packs every state's successor as 6-bit shift amounts, so two bytes cost two
  loads and one shift, and the loop carries one shift per two bytes.
- ``shift`` (at most 10 states): the same rows one byte at a time (2 KiB of tables).
- ``table``: a byte-class map and a transition table of premultiplied state numbers (state s is
  held as s times the number of classes, so a step is one add and one load), in the narrowest
  type; no 64-bit arithmetic, for small and 32-bit targets and for automata of any size.

``auto`` picks the first that fits, except for a finite language (no cycle through live states):
every input then stops within a few bytes, so ``auto`` gives it the plain loop of ``shift`` or
``table`` and none of what follows.  Every strategy shares the rest (see ``analysis``): long
inputs run in segments side by side, their boundaries put after synchronizing bytes and checked;
blocks of 64 bytes are skipped in states whose self-loop covers them (SIMD tests chosen at run
time on x86, a word test elsewhere); accelerated states find the end of their runs with SIMD.
The number of segments per strategy was chosen by measurement: the ``table`` loop waits for a
load each byte, so four segments side by side ran 3x as fast as one; ``shift`` and ``pairs``
wait for one shift per step and keep the load units busy with one segment (2, 4 and 8 segments
were no faster, 8 slower: the states no longer fit in registers).

Under ``auto``, a regular automaton of at most 64 states that gets no window test also gets Sheng
in is_valid (:mod:`.sheng`: a shuffle a byte, chunks side by side from every state), on by default
where the strategy's loop skips no runs.  Measured with bench/bench_sheng.py on 1 MiB of valid
records: RFC 3339 timestamps one a line (29 states, ``table``), 4.6 GB/s against 2.6 for the four
segments and 0.7 for one; HTTP list field values one a line (10 states, ``pairs``, which skips
tokens and quoted strings), 4.1 GB/s against 3.3, but 4.1 against 24 on lines of long quoted
strings, so off by default there (``P_SHENG`` turns it on).

All C syntax (literal suffixes, types, macro names) is decided here; the templates only place it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...charset import format_hex
from ...errors import InvariantError
from ..analysis import Speed, analyse, plan_strategy
from ..tables import Comments, Tables, comment_text
from .literals import ByteLine, Row, RowMacro, byte_lines, cells, chunks, comment_safe, hex64, hex_cells, uint_type
from .sheng import ShengC, plan_sheng
from .window_driver import WindowDriverC, plan_window_driver
from .window_test import WindowTestC, plan_window_test

SHIFT_BITS = 6
MAX_SHIFT_STATES = 64 // SHIFT_BITS  # 10 states fit in a uint64 row
SEGMENTS = {"pairs": 1, "shift": 1, "table": 4}  # default number of segments, measured
MAX_SEGMENTS = 8
MIN_SEGMENT = 4096  # bytes; shorter inputs run in one piece
SYNC_WINDOW = 16  # bytes searched for a synchronizing byte at each segment boundary
CHECKPOINTS = 16  # states kept per segment to find where a re-run meets the first run
BLOCK = 64  # bytes run with no check per byte, and skipped at once

__all__ = ["CPlan", "comment_safe", "comments", "expected_tables", "lower"]


@dataclass(frozen=True)
class SkipC:
    """A self-loop set, with the tables of its SIMD test as C text."""

    number: int  # 1-based; 0 in the per-state table means none
    state: int
    held: str  # the state as held
    kind: str  # "high", "shufti" or "truffle"
    low: str
    high: str
    ranges: str
    accelerated: bool
    per_byte: bool  # its per-byte test is used (a "high" block test needs none)


@dataclass(frozen=True)
class PairMacro:
    name: str
    lines: tuple[str, ...]  # 256 pair numbers, one per first byte, as string literals of \x escapes


@dataclass(frozen=True)
class ShiftRows:
    """shift and pairs: each byte class's row of next states packed in a 64-bit word."""

    row_macros: tuple[RowMacro, ...]
    accept_mask: str
    shift_mask: str


@dataclass(frozen=True)
class PairTables:
    """pairs: two bytes a step, through the transition function of each byte pair."""

    pair_rows: tuple[RowMacro, ...]  # one row per pair function
    pair_macros: tuple[PairMacro, ...]  # the pair numbers for each class of second byte, as strings
    pair_lines: tuple[ByteLine, ...]  # per second byte, its pair macro


@dataclass(frozen=True)
class TransitionTable:
    """table: a byte-class map and a transition table, for any size."""

    state_type: str  # the narrowest type holding a state as held
    next_header: str
    next_rows: tuple[Row, ...]
    accepting_cells: tuple[str, ...]


@dataclass(frozen=True)
class Segments:
    """Blocks run with no check per byte, and segments run side by side with checked guesses."""

    block: int
    segments: int  # default number of segments
    min_segment: int
    sync_window: int
    checkpoints: int
    chains: tuple[int, ...]  # 0 .. MAX_SEGMENTS - 1
    sync_type: str
    no_sync: str
    sync_lines: tuple[ByteLine, ...]  # per byte: the state after it, as held, or no_sync


@dataclass(frozen=True)
class SelfLoopSkips:
    """Self-loops skipped a block at a time: portable word tests and SIMD (shufti, truffle)."""

    skip_sets: tuple[SkipC, ...]
    skip_of_state: str  # per state: its skip set's number, or 0
    word_sets: tuple[SkipC, ...]  # the sets that hold every byte 00-7F: words can test them
    portable_skip: bool  # some can
    uses_shufti: bool
    uses_truffle: bool
    nibble_cells: str  # 32 bytes 0F
    bit_cells: str  # truffle: 1 << (i & 7) for each of 32 bytes
    top_cells: str  # truffle: 32 bytes 80
    single_skip: SkipC | None  # the only set, tested without a branch on the state
    skip_table: bool  # the per-state table of sets is used (several sets, or acceleration)
    words_use_table: bool  # ... by the portable code too
    accel: bool
    accel_sets: tuple[SkipC, ...]
    accel_cells: str  # per state: 1 when accelerated
    simd_from: int  # inputs at least this long run the SIMD instance where the CPU has it
    word_type: str  # the word of the portable block test
    word_bytes: int
    word_mask: str


@dataclass(frozen=True)
class CPlan:
    """Every decision about one grammar's C: what all strategies share, then the parts of the
    strategy chosen (``shift`` for shift and pairs, ``pairs``, ``table``; None where not used)."""

    prefix: str  # identifier prefix and file stem
    macro: str  # macro prefix
    strategy: str  # "pairs", "shift" or "table"
    plain: bool  # a finite language under "auto": one byte loop, nothing to run faster
    life: int  # plain: the most bytes an input stays alive (else -1)
    num_states: int
    num_classes: int
    start_state: int
    dead_state: int
    comments: Comments
    byte_lines: tuple[ByteLine, ...]  # per byte: its row macro (shift, pairs) or class (table)
    accepting_list: str
    start: str  # how the start state is held
    dead: str
    guess: str  # the state a segment starts in without a synchronizing byte, as held
    state_unit: str  # state s is held as s times this
    initial_error: str  # the stream's error before any input
    expect_lo: str  # per state, the byte ranges that do not lead to the dead state
    expect_hi: str
    expect_first: str  # index of each state's first range; one more entry at the end
    max_ranges: int
    private_macros: tuple[str, ...]  # undefined at the end of the source
    segments: Segments
    skips: SelfLoopSkips
    shift: ShiftRows | None = None
    pairs: PairTables | None = None
    table: TransitionTable | None = None
    window_test: WindowTestC | None = None  # auto, k-definite language: is_valid checks windows with AVX-512
    window_driver: WindowDriverC | None = None  # with the window test: how it walks an input
    sheng: ShengC | None = None  # auto, at most 64 states and no window test: is_valid runs shuffles


def lower(tables: Tables, options: Mapping[str, str]) -> CPlan:
    if tables.pushdown is not None:
        raise InvariantError("the plan of a DFA was asked for the tables of a pushdown validator")
    prefix = options["prefix"]
    macro = prefix.upper()
    speed = analyse(tables)
    wanted = options.get("strategy", "auto")
    strategy, plain = plan_strategy(tables, speed, wanted, "C", "--c-strategy")
    shifting = strategy != "table"
    unit = SHIFT_BITS if shifting else tables.num_classes
    width = max(len(str(tables.num_classes - 1)), len(str(tables.num_states - 1)))
    row_macros = _row_macros(tables, macro) if shifting else ()
    pair_rows, pair_macros, pair_lines = _pairs(tables, speed, macro) if strategy == "pairs" else ((), (), ())
    lo, hi, first = expected_tables(tables)
    skips = () if plain else _skip_sets(speed, unit)
    window_test = plan_window_test(tables, unit, strategy) if wanted == "auto" and not plain else None
    sheng = plan_sheng(tables, bool(skips)) if wanted == "auto" and not plain and window_test is None else None
    largest = (tables.num_states - 1) * unit
    sync_type = uint_type(largest + 1)
    return CPlan(
        prefix=prefix,
        macro=macro,
        strategy=strategy,
        plain=plain,
        life=speed.life if speed.life is not None else -1,
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start_state=tables.start,
        dead_state=tables.dead,
        comments=comments(tables),
        byte_lines=byte_lines([row_macros[c].name for c in tables.byte_class] if shifting
                              else [f"{c:>{width}}" for c in tables.byte_class]),
        accepting_list=", ".join(str(s) for s in tables.accepting) or "none",
        start=f"{tables.start * unit}u",
        dead=f"{tables.dead * unit}u",
        guess=f"{speed.guess * unit}u",
        state_unit=f"{unit}u",
        # An automaton that starts dead matches nothing, not even the empty input: error at 0.
        initial_error="0" if tables.start == tables.dead else "SIZE_MAX",
        expect_lo=", ".join(lo) or "0",
        expect_hi=", ".join(hi) or "0",
        expect_first=", ".join(first),
        max_ranges=max((len(s.expects) for s in tables.states), default=0),
        private_macros=tuple(m.name for m in row_macros) + tuple(m.name for m in pair_macros) + tuple(
            f"{macro}_{name}" for name in (_PRIVATE_PLAIN if plain else _PRIVATE)
            + ("ACCEPT",) * shifting + ("LITTLE_", "UNROLL2_") * (strategy == "pairs")
            + _PRIVATE_SHENG * (sheng is not None)),
        segments=Segments(
            block=BLOCK,
            segments=SEGMENTS[strategy],
            min_segment=MIN_SEGMENT,
            sync_window=SYNC_WINDOW,
            checkpoints=CHECKPOINTS,
            chains=tuple(range(MAX_SEGMENTS)),
            sync_type=sync_type,
            no_sync=f"{largest + 1}u",
            sync_lines=byte_lines([str(largest + 1 if target is None else target * unit)
                                   for target in (speed.sync[c] for c in tables.byte_class)])),
        skips=_skips(tables, skips, shifting),
        shift=ShiftRows(row_macros, hex64(sum(1 << (SHIFT_BITS * s) for s in tables.accepting)),
                        f"{(1 << SHIFT_BITS) - 1}u") if shifting else None,
        pairs=PairTables(pair_rows, pair_macros, pair_lines) if strategy == "pairs" else None,
        table=TransitionTable(uint_type(largest), "  ".join(f"{c:>{width}}" for c in range(tables.num_classes)),
                              _next_rows(tables, unit),
                              chunks(["1" if s.accepting else "0" for s in tables.states], 32))
        if not shifting else None,
        window_test=window_test,
        window_driver=plan_window_driver(tables, window_test),
        sheng=sheng,
    )


def comments(tables: Tables) -> Comments:
    """The comment text, safe inside /* */."""
    return comment_text(tables, comment_safe)


def _skips(tables: Tables, skips: tuple[SkipC, ...], shifting: bool) -> SelfLoopSkips:
    word_bytes = 8 if shifting else 4
    return SelfLoopSkips(
        skip_sets=skips,
        skip_of_state=", ".join(cells(_skip_numbers(tables, skips))),
        word_sets=tuple(s for s in skips if s.kind == "high"),
        portable_skip=any(s.kind == "high" for s in skips),
        uses_shufti=any(s.kind == "shufti" for s in skips),
        uses_truffle=any(s.kind == "truffle" for s in skips),
        nibble_cells=hex_cells([0x0F] * 32),
        bit_cells=hex_cells([1 << (i & 7) for i in range(32)]),
        top_cells=hex_cells([0x80] * 32),
        single_skip=skips[0] if len(skips) == 1 else None,
        skip_table=len(skips) > 1 or any(s.accelerated for s in skips),
        words_use_table=len(skips) > 1 and any(s.kind == "high" for s in skips),
        accel=any(s.accelerated for s in skips),
        accel_sets=tuple(s for s in skips if s.accelerated),
        accel_cells=", ".join("1" if any(s.accelerated and s.state == state.index for s in skips) else "0"
                              for state in tables.states),
        simd_from=33 if any(s.accelerated for s in skips) else BLOCK,
        word_type="uint64_t" if shifting else "uint32_t",
        word_bytes=word_bytes,
        word_mask=f"UINT{word_bytes * 8}_C(0x{'80' * word_bytes})",
    )


# Macros every source defines (the settings included: undefined at the end like the rest).
_PRIVATE = ("SEGMENTS", "MIN_SEGMENT", "X86_", "TARGET_", "INLINE_", "BLOCK", "UNIT_", "START", "DEAD",
            "GUESS_", "NO_SYNC_", "SYNC_WINDOW_", "CHECKS_", "WINDOW_TEST_", "WINDOW_TEST_TARGET_",
            "WINDOW_TEST_MIN", "NO_WINDOW_TEST", "WINDOW_TEST_AVX2", "WINDOW_TEST_AVX2_TARGET_",
            "WINDOW_TEST_X86_", "WINDOW_TEST_NEON_", "WINDOW_TEST_SSE41_TARGET_", "WINDOW_TEST_OTHER_MIN_")
_PRIVATE_SHENG = ("SHENG", "SHENG_", "SHENG_MIN", "SHENG_CHUNKS", "NO_SHENG", "SHENG_TARGET_", "SHENG_STEP_")
_PRIVATE_PLAIN = ("INLINE_", "START", "DEAD")  # a finite language's source has no settings


def _row_macros(tables: Tables, macro: str) -> tuple[RowMacro, ...]:
    """Row of class c: bits 6s..6s+5 hold 6*next(s, c), so next = (row >> (6*s)) & 63."""
    names = [f"{macro}_C{c}" for c in range(tables.num_classes)]
    width = max(len(name) for name in names)
    rows = []
    for cls, ranges in enumerate(tables.classes):
        value = _packed(s.targets[cls] for s in tables.states)
        rows.append(RowMacro(names[cls], f"{names[cls]:<{width}}", hex64(value), f"class {cls}: {format_hex(ranges)}"))
    return tuple(rows)


def _packed(targets) -> int:
    return sum((SHIFT_BITS * target) << (SHIFT_BITS * state) for state, target in enumerate(targets))


def _pairs(tables: Tables, speed: Speed, macro: str):
    pairs = speed.pairs
    if pairs is None:
        raise InvariantError("the pairs strategy was chosen for an automaton without pair functions")
    users: dict[int, list[str]] = {}
    for first, row in enumerate(pairs.of_classes):
        for second, number in enumerate(row):
            users.setdefault(number, []).append(f"{first},{second}")
    rows = tuple(RowMacro(f"{number}", "", hex64(_packed(targets)),
                          f"pair {number}: class pairs " + " ".join(users[number][:6])
                          + (f" and {len(users[number]) - 6} more" if len(users[number]) > 6 else ""))
                 for number, targets in enumerate(pairs.rows))
    names = [f"{macro}_PAIRS_C{c}" for c in range(tables.num_classes)]
    macros = []
    for second in range(tables.num_classes):
        numbers = [pairs.of_classes[tables.byte_class[first]][second] for first in range(256)]
        macros.append(PairMacro(names[second], tuple('"' + "".join(f"\\x{n:02X}" for n in numbers[i:i + 32]) + '"'
                                                     for i in range(0, 256, 32))))
    lines = byte_lines([names[c] for c in tables.byte_class])
    return rows, tuple(macros), lines


def _next_rows(tables: Tables, unit: int) -> tuple[Row, ...]:
    width = len(str((tables.num_states - 1) * unit))
    return tuple(Row(", ".join(f"{t * unit:>{width}}" for t in s.targets),
                     comment_safe(f"{s.index}: {s.note}" if s.note else f"{s.index}"))
                 for s in tables.states)


def _skip_sets(speed: Speed, unit: int) -> tuple[SkipC, ...]:
    return tuple(SkipC(number, s.state, f"{s.state * unit}u", s.kind, hex_cells(s.low), hex_cells(s.high),
                       comment_safe(format_hex(s.ranges)), s.accelerated, s.accelerated or s.kind != "high")
                 for number, s in enumerate(speed.skip_sets, start=1))


def _skip_numbers(tables: Tables, skips: tuple[SkipC, ...]) -> list[int]:
    by_state = {s.state: s.number for s in skips}
    return [by_state.get(state.index, 0) for state in tables.states]


def expected_tables(tables: Tables) -> tuple[list[str], list[str], list[str]]:
    lo: list[str] = []
    hi: list[str] = []
    first: list[str] = []
    for state in tables.states:
        first.append(str(len(lo)))
        for low, high in state.expects:
            lo.append(f"0x{low:02X}")
            hi.append(f"0x{high:02X}")
    first.append(str(len(lo)))
    return lo, hi, first
