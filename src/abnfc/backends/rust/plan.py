"""Neutral tables -> the Rust plan: the strategy, every table as Rust text, the doc comments.

The module is one loop over the bytes, in one of three strategies (``--rust-strategy``), chosen
from the automaton as the C backend chooses (see :mod:`abnfc.backends.analysis`):

- ``pairs`` (at most 10 states, at most 256 pair functions): a *shift DFA* stepping two bytes at
  a time.  A 64 KiB table gives the number of each byte pair's transition function, and that
  function's row packs every state's successor as 6-bit shift amounts: two bytes cost two loads
  and one shift, and the chain from one step to the next is the shift alone.
- ``shift`` (at most 10 states): the same rows one byte at a time (``rows[byte] >> (st & 63)``).
- ``table``: a byte-class map and a transition table, for any size.  Up to 256 states and 256
  pair functions, it too steps two bytes at a time: the 64 KiB table of pair functions, and per
  function a row of states, so the chain from step to step is one load
  (``NEXT2[PAIRS[b0 + 256 * b1]][st]``).  Beyond that, states are held
  premultiplied (s times the number of classes: a step is one add and one load), and a state
  whose self-loop holds many bytes (Hyperscan's acceleration) skips its runs with a membership
  table, one independent load a byte instead of a chain of dependent ones.

``auto`` picks the first that fits, except for a finite language (no cycle through live states),
which gets the plain byte loop of ``shift`` or ``table``: every input stops within a few bytes.
Otherwise input runs in blocks of 64 bytes with no check per byte (the dead state is absorbing,
so a block that ends dead is run again to find the byte), and in a state whose self-loop holds
every byte below 0x80 a run of such blocks is skipped in a loop that ORs words and does nothing
else (compilers turn it into SIMD).

Measured (bench/bench_rust.py; one machine): the table strategy's two-byte steps ran URI
references 2.8x as fast as its one-byte steps with run skipping (which were no faster than the
regex crate).  Four-byte steps (475 functions for URI, a table of 87 KiB) were no faster than
two; pairs found from byte classes (no 64 KiB table) were 8% slower; a state held in a byte
(``u8``) 25% slower than in a ``usize`` (the compiler zero-extends it on the chain); rows of 183
states 12% slower than rows of 256; four bytes a loop turn with one check, 25% slower.  Skipping
ASCII blocks in a loop of their own runs 16 MiB of ASCII at 54-70 GB/s, as fast as the cache
delivers it (``std::str::from_utf8`` 52-55 GB/s in the same runs).

Every index into a table is proven in bounds by its type (a byte into 256 entries, a pair into
65,536) or read through ``get``, so the module cannot panic on any input and needs no ``unsafe``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...charset import format_hex
from ...errors import InvariantError
from ..analysis import Pairs as AnalysedPairs
from ..analysis import Speed, analyse, pair_functions, plan_strategy
from ..tables import Comments, Tables, comment_text
from .window import RustWindow, plan_window

SHIFT_BITS = 6
MAX_SHIFT_STATES = 64 // SHIFT_BITS  # 10 states fit in a u64 row
BLOCK = 64  # bytes run with no check per byte, and skipped at once
MAX_LOOP_SETS = 8  # self-loop sets of the table strategy: one bit each in a byte
MAX_TABLE_PAIR_STATES = 256  # the table's two-byte steps hold a state in a byte
BYTES_PER_LINE = 16

__all__ = ["RustPlan", "lower"]


@dataclass(frozen=True)
class Docs(Comments):
    """Text for the module's doc comments: every line printable, none ending in whitespace."""

    fence: str = "```"  # a code fence longer than any run of backticks in the text it encloses


@dataclass(frozen=True)
class Line:
    label: str  # "80-8F", or a state's note
    cells: str  # "C1, C1, ..." or "0, 12, ..."


@dataclass(frozen=True)
class RowConst:
    name: str  # C3
    value: str  # 0x0000_0000_0000_0000
    comment: str  # class 3: A0-BF


@dataclass(frozen=True)
class Shift:
    """shift and pairs: each byte class's row of next states packed in a 64-bit word."""

    rows: tuple[RowConst, ...]
    byte_lines: tuple[Line, ...]  # per byte: its row's name
    accept_mask: str
    skip_mask: str  # bit 6s for each state whose self-loop holds every byte 00-7F
    skips: bool


@dataclass(frozen=True)
class Pairs:
    """pairs: two bytes a step, through the transition function of each byte pair."""

    rows: tuple[RowConst, ...]  # one row per pair function (256 entries, the rest unused)
    count: int
    lines: tuple[str, ...]  # the 65,536 pair numbers as byte-string lines, [second byte][first byte]


@dataclass(frozen=True)
class TablePairs:
    """table, two bytes a step (at most 256 states): the transition functions of byte pairs, as
    in :mod:`..analysis` but for any number of states, each a column of states."""

    columns: int
    lines: tuple[str, ...]  # the 65,536 function numbers as byte-string lines, [second byte][first byte]
    next_lines: tuple[Line, ...]  # per function: the state after its two bytes from each state, 256 cells


@dataclass(frozen=True)
class Table:
    """table: a byte-class map and a transition table of premultiplied states, for any size."""

    cell_type: str  # the narrowest unsigned type holding a state as held
    unit: int  # state s is held as s * unit: the number of classes, or 1 with pairs
    class_lines: tuple[Line, ...]
    next_lines: tuple[Line, ...]  # one row per state
    accepting: str  # per state: true or false
    skips: str  # per state: true when its self-loop holds every byte 00-7F
    any_skip: bool
    loop_lines: tuple[Line, ...]  # per byte: a bit for each self-loop set holding it
    loop_bits: str  # per state: the bit of its self-loop set, or 0
    loops: bool
    pairs: TablePairs | None


@dataclass(frozen=True)
class Expected:
    state: int
    ranges: str  # "(0x00, 0x7F), (0xC2, 0xF4)"


@dataclass(frozen=True)
class RustPlan:
    prefix: str
    strategy: str  # "pairs", "shift" or "table"
    plain: bool  # a finite language under "auto": one byte loop
    life: int  # plain: the most bytes an input stays alive (else -1)
    num_states: int
    num_classes: int
    start_state: int
    dead_state: int
    accepting_list: str
    docs: Docs
    held_type: str  # how the loop holds a state: u64 (shift, pairs) or usize (table)
    start: str  # the start state as held
    dead: str
    unit: str  # state s is held as s times this
    block: int
    expected: tuple[Expected, ...]
    shift: Shift | None = None
    pairs: Pairs | None = None
    table: Table | None = None
    window: RustWindow | None = None  # auto, k-definite language: the window test with AVX2


def lower(tables: Tables, options: Mapping[str, str]) -> RustPlan:
    if tables.pushdown is not None:
        raise InvariantError("the Rust backend was given the tables of a pushdown validator")
    speed = analyse(tables)
    wanted = options.get("strategy", "auto")
    strategy, plain = plan_strategy(tables, speed, wanted, "Rust", "--rust-strategy")
    shifting = strategy != "table"
    columns = None if shifting or plain else pair_functions(tables, MAX_TABLE_PAIR_STATES, 256)
    # The table's two-byte steps hold states as they are: NEXT2 is read by function, then state.
    unit = SHIFT_BITS if shifting else tables.num_classes if columns is None else 1
    ascii_skips = frozenset() if plain else frozenset(s.state for s in speed.skip_sets if s.kind == "high")
    return RustPlan(
        prefix=options["prefix"],
        strategy=strategy,
        plain=plain,
        life=speed.life if speed.life is not None else -1,
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start_state=tables.start,
        dead_state=tables.dead,
        accepting_list=", ".join(str(s) for s in tables.accepting) or "none",
        docs=docs(tables),
        held_type="u64" if shifting else "usize",
        start=str(tables.start * unit),
        dead=str(tables.dead * unit),
        unit=str(unit),
        block=BLOCK,
        expected=tuple(Expected(s.index, ", ".join(f"(0x{lo:02X}, 0x{hi:02X})" for lo, hi in s.expects))
                       for s in tables.states),
        shift=_shift(tables, ascii_skips) if shifting else None,
        pairs=_pairs(tables, speed) if strategy == "pairs" else None,
        table=None if shifting else _table(tables, speed, ascii_skips, plain, columns),
        window=None if plain else plan_window(tables, wanted, options.get("simd", "std")),
    )


def docs(tables: Tables) -> Docs:
    text = comment_text(tables, _doc_safe)
    return Docs(**vars(text), fence=_fence((*text.header_lines, *text.grammar_lines, *text.table_lines)))


def _doc_safe(text: str) -> str:
    """Printable text stays on its line in a ``//!`` comment; tabs become spaces (clippy's
    tabs_in_doc_comments), to the columns of 8 that terminals show; rustfmt refuses trailing spaces."""
    return text.expandtabs(8).rstrip()


def _fence(lines: tuple[str, ...]) -> str:
    """A markdown code fence that no line of the enclosed text can close (CommonMark: a closing
    fence is at least as long as the opening one)."""
    longest = 0
    for line in lines:
        run = 0
        for ch in line:
            run = run + 1 if ch == "`" else 0
            longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _packed(targets) -> int:
    """Row of a class: bits 6s..6s+5 hold 6*next(s, c), so next = (row >> (6*s)) & 63."""
    return sum((SHIFT_BITS * target) << (SHIFT_BITS * state) for state, target in enumerate(targets))


def _hex64(value: int) -> str:
    digits = f"{value:016X}"
    return "0x" + "_".join(digits[i:i + 4] for i in range(0, 16, 4))


def _mask(states) -> str:
    return _hex64(sum(1 << (SHIFT_BITS * s) for s in states))


def _byte_lines(cells: list[str]) -> tuple[Line, ...]:
    """256 cells, 16 to a line, labelled with the bytes they are for."""
    width = max(len(cell) for cell in cells)
    return tuple(Line(f"{start:02X}-{start + BYTES_PER_LINE - 1:02X}",
                      " ".join(f"{cell + ',':<{width + 1}}" for cell in cells[start:start + BYTES_PER_LINE]).rstrip())
                 for start in range(0, 256, BYTES_PER_LINE))


def _shift(tables: Tables, ascii_skips: frozenset[int]) -> Shift:
    rows = tuple(RowConst(f"C{cls}", _hex64(_packed(s.targets[cls] for s in tables.states)),
                          f"class {cls}: {format_hex(ranges)}")
                 for cls, ranges in enumerate(tables.classes))
    return Shift(rows, _byte_lines([rows[c].name for c in tables.byte_class]),
                 _mask(tables.accepting), _mask(ascii_skips), bool(ascii_skips))


def _pairs(tables: Tables, speed: Speed) -> Pairs:
    pairs = speed.pairs
    if pairs is None:
        raise InvariantError("the pairs strategy was chosen for an automaton without pair functions")
    rows = tuple(RowConst(str(number), _hex64(_packed(targets)), f"pair function {number}")
                 for number, targets in enumerate(pairs.rows))
    return Pairs(rows, len(rows), _pair_lines(tables, pairs.of_classes))


def _pair_lines(tables: Tables, of_classes: tuple[tuple[int, ...], ...]) -> tuple[str, ...]:
    """The function number of every byte pair b0, b1 at b0 + 256 * b1, as lines of a byte string
    (a compiler reads one 64 KiB string much faster than 65,536 numbers)."""
    escapes = [[f"\\x{n:02X}" for n in row] for row in of_classes]
    lines = []
    for second in range(256):
        column = tables.byte_class[second]
        text = "".join(escapes[tables.byte_class[first]][column] for first in range(256))
        lines += [text[start:start + 256] for start in range(0, len(text), 256)]
    return tuple(lines)


def _cell_type(largest: int) -> str:
    return "u8" if largest < 1 << 8 else "u16" if largest < 1 << 16 else "u32"


def _table_pairs(tables: Tables, found: AnalysedPairs) -> TablePairs:
    functions, of_classes = found.rows, found.of_classes
    width = len(str(tables.num_states - 1))
    # Rows of 256: the row of a function starts at function << 8, a shift where S would take a
    # multiplication (rows of 183 states ran URI 12% slower); the padding is never read.
    padding = [tables.dead] * (256 - tables.num_states)
    next_lines = tuple(Line(f"function {c}", " ".join(f"{t:>{width}}," for t in (*function, *padding)))
                       for c, function in enumerate(functions))
    return TablePairs(len(functions), _pair_lines(tables, of_classes), next_lines)


def _table(tables: Tables, speed: Speed, ascii_skips: frozenset[int], plain: bool,
           columns: AnalysedPairs | None) -> Table:
    unit = tables.num_classes if columns is None else 1
    width = len(str((tables.num_states - 1) * unit))
    next_lines = tuple(Line(f"{s.index}: {_doc_safe(s.note)}" if s.note else str(s.index),
                            " ".join(f"{t * unit:>{width}}," for t in s.targets)) for s in tables.states)
    loop_sets = () if plain or columns is not None else speed.skip_sets[:MAX_LOOP_SETS]
    bit_of = {s.state: 1 << k for k, s in enumerate(loop_sets)}
    loop_cells = [str(sum(bit_of[s.state] for s in loop_sets if any(lo <= byte <= hi for lo, hi in s.ranges)))
                  for byte in range(256)]
    return Table(
        cell_type=_cell_type((tables.num_states - 1) * unit),
        unit=unit,
        class_lines=_byte_lines([str(c) for c in tables.byte_class]),
        next_lines=next_lines,
        accepting=", ".join("true" if s.accepting else "false" for s in tables.states),
        skips=", ".join("true" if s.index in ascii_skips else "false" for s in tables.states),
        any_skip=bool(ascii_skips),
        loop_lines=_byte_lines(loop_cells),
        loop_bits=", ".join(str(bit_of.get(s.index, 0)) for s in tables.states),
        loops=bool(loop_sets),
        pairs=None if columns is None else _table_pairs(tables, columns),
    )
