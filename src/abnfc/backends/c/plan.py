"""Neutral tables -> the C plan: the strategy, and every table and literal as C text.

Two strategies:

- ``shift`` (an automaton of at most 10 states): a *shift DFA*.  Each byte's row packs every
  state's successor into one ``uint64_t`` as 6-bit shift amounts, so a step is one load and one
  shift, with no table lookup waiting on the one before.
- ``table``: a byte-class map and a transition table with the narrowest state type; it needs
  no 64-bit arithmetic, so it suits small and 32-bit targets.

``auto`` picks ``shift`` when the automaton fits.  A state whose self-loop covers every ASCII
byte gets 64-byte ASCII blocks skipped at once, in either strategy.  All C syntax (literal
suffixes, types, macro names) is decided here; the templates only place it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...errors import AbnfError, printable
from ..tables import Tables

SHIFT_BITS = 6
MAX_SHIFT_STATES = 64 // SHIFT_BITS  # 10 states fit in a uint64 row
BLOCK = 64  # bytes checked at once for all-ASCII blocks
BYTES_PER_LINE = 16
STRATEGIES = ("auto", "shift", "table")


@dataclass(frozen=True)
class ByteLine:
    label: str  # "80-8F"
    cells: str  # "C1, C1, ..." or " 1,  1, ..."


@dataclass(frozen=True)
class Row:
    cells: str  # " 0,  2,  4"
    note: str


@dataclass(frozen=True)
class RowMacro:
    name: str  # UTF8_C3
    padded: str  # the name padded to the longest one, for alignment
    value: str  # UINT64_C(0x...)
    comment: str  # class 3: A0-BF


@dataclass(frozen=True)
class CPlan:
    prefix: str  # identifier prefix and file stem
    macro: str  # macro prefix
    strategy: str  # "shift" or "table"
    num_states: int
    num_classes: int
    start_state: int
    dead_state: int
    # comment text, safe inside /* */
    header_lines: tuple[str, ...]
    grammar_file: str
    start_rule: str
    grammar_lines: tuple[str, ...]
    table_lines: tuple[str, ...]
    # the automaton, as C text
    byte_lines: tuple[ByteLine, ...]  # per byte: its row macro (shift) or class number (table)
    row_macros: tuple[RowMacro, ...]  # shift only
    state_type: str  # the narrowest type holding a state (table)
    next_header: str
    next_rows: tuple[Row, ...]  # table only
    accepting_cells: tuple[str, ...]  # table only
    accept_mask: str  # shift only
    accepting_list: str
    start: str  # how the start state is held
    dead: str
    ascii_state: str | None  # how the ASCII self-loop state is held, if there is one
    state_unit: str  # state s is held as s times this
    shift_mask: str
    initial_error: str  # the stream's error before any input
    expect_lo: str  # per state, the byte ranges that do not lead to the dead state
    expect_hi: str
    expect_first: str  # index of each state's first range; one more entry at the end
    max_ranges: int
    private_macros: tuple[str, ...]  # undefined at the end of the source


def lower(tables: Tables, options: Mapping[str, str]) -> CPlan:
    prefix = options["prefix"]
    macro = prefix.upper()
    strategy = _strategy(tables, options.get("strategy", "auto"))
    shift = strategy == "shift"
    unit = SHIFT_BITS if shift else 1
    ascii_state = _ascii_state(tables)
    width = max(len(str(tables.num_classes - 1)), len(str(tables.num_states - 1)))
    row_macros = _row_macros(tables, macro) if shift else ()
    lo, hi, first = _expected_tables(tables)
    held = _held(unit)
    return CPlan(
        prefix=prefix,
        macro=macro,
        strategy=strategy,
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start_state=tables.start,
        dead_state=tables.dead,
        header_lines=tuple(comment_safe(line) for line in tables.header.lines),
        grammar_file=comment_safe(tables.grammar_file),
        start_rule=comment_safe(printable(tables.header.start_rule)),
        grammar_lines=tuple(comment_safe(line) for line in tables.header.grammar_lines),
        table_lines=tuple(comment_safe(line) for line in tables.table_text),
        byte_lines=_byte_lines([row_macros[c].name for c in tables.byte_class] if shift
                               else [f"{c:>{width}}" for c in tables.byte_class]),
        row_macros=row_macros,
        state_type=_uint_type(tables.num_states),
        next_header="  ".join(f"{c:>{width}}" for c in range(tables.num_classes)),
        next_rows=tuple(Row(", ".join(f"{t:>{width}}" for t in s.targets),
                            comment_safe(f"{s.index:>{width}}: {s.note}" if s.note else f"{s.index:>{width}}"))
                        for s in tables.states),
        accepting_cells=_chunks(["1" if s.accepting else "0" for s in tables.states], 32),
        accept_mask=_hex64(sum(1 << (SHIFT_BITS * s) for s in tables.accepting)),
        accepting_list=", ".join(str(s) for s in tables.accepting) or "none",
        start=held(tables.start),
        dead=held(tables.dead),
        ascii_state=None if ascii_state is None else held(ascii_state),
        state_unit=f"{unit}u",
        shift_mask=f"{(1 << SHIFT_BITS) - 1}u",
        # An automaton that starts dead matches nothing, not even the empty input: error at 0.
        initial_error="0" if tables.start == tables.dead else "SIZE_MAX",
        expect_lo=", ".join(lo) or "0",
        expect_hi=", ".join(hi) or "0",
        expect_first=", ".join(first),
        max_ranges=max((len(s.expects) for s in tables.states), default=0),
        private_macros=tuple(m.name for m in row_macros) + tuple(
            f"{macro}_{name}" for name in ("START", "DEAD", "BLOCK") + ("ASCII",) * (ascii_state is not None)
            + ("ACCEPT",) * shift),
    )


def _strategy(tables: Tables, wanted: str) -> str:
    if wanted not in STRATEGIES:
        raise AbnfError.at(None, f"unknown C strategy {wanted!r}; choose from {', '.join(STRATEGIES)}")
    fits = tables.num_states <= MAX_SHIFT_STATES
    if wanted == "shift" and not fits:
        raise AbnfError.at(None, f"the shift strategy holds at most {MAX_SHIFT_STATES} states, and "
                                 f"this DFA has {tables.num_states}; use --c-strategy table or auto")
    if wanted == "auto":
        return "shift" if fits else "table"
    return wanted


def _held(unit: int):
    """How state s is written in C: ``s*unit`` as an unsigned literal."""
    return lambda state: f"{state * unit}u"


def _uint_type(count: int) -> str:
    return "uint8_t" if count <= 0x100 else "uint16_t" if count <= 0x10000 else "uint32_t"


def _hex64(value: int) -> str:
    return f"UINT64_C(0x{value:016X})"


def _row_macros(tables: Tables, macro: str) -> tuple[RowMacro, ...]:
    """Row of class c: bits 6s..6s+5 hold 6*next(s, c), so next = (row >> (6*s)) & 63."""
    names = [f"{macro}_C{c}" for c in range(tables.num_classes)]
    width = max(len(name) for name in names)
    rows = []
    for cls, ranges in enumerate(tables.classes):
        value = sum((SHIFT_BITS * s.targets[cls]) << (SHIFT_BITS * s.index) for s in tables.states)
        hex_ranges = " ".join(f"{lo:02X}" if lo == hi else f"{lo:02X}-{hi:02X}" for lo, hi in ranges)
        rows.append(RowMacro(names[cls], f"{names[cls]:<{width}}", _hex64(value), f"class {cls}: {hex_ranges}"))
    return tuple(rows)


def _ascii_state(tables: Tables) -> int | None:
    """The start state if every ASCII byte leaves it unchanged, else None."""
    start = tables.states[tables.start]
    loops = start.self_loop
    if tables.start != tables.dead and any(lo == 0 and hi >= 0x7F for lo, hi in loops):
        return tables.start
    return None


def _expected_tables(tables: Tables) -> tuple[list[str], list[str], list[str]]:
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


def _byte_lines(cells: list[str]) -> tuple[ByteLine, ...]:
    width = max(len(cell) for cell in cells)
    lines = []
    for start in range(0, len(cells), BYTES_PER_LINE):
        end = start + BYTES_PER_LINE - 1
        lines.append(ByteLine(f"{start:02X}-{end:02X}",
                              ", ".join(f"{cell.strip():>{width}}" for cell in cells[start:end + 1])))
    return tuple(lines)


def _chunks(cells: list[str], size: int) -> tuple[str, ...]:
    return tuple(", ".join(cells[i:i + size]) for i in range(0, len(cells), size))


def comment_safe(text: str) -> str:
    """``text`` made safe inside a ``/* */`` comment, kept readable.

    ``*/`` would end the comment early and ``/*`` trips -Wcomment, so a backslash goes between
    their characters; ``??/`` is the trigraph for a backslash (C99, C++11), so its question marks
    are split the same way; trailing whitespace goes, so no line ends in a backslash and space.
    """
    text = text.replace("*/", "*\\/").replace("/*", "/\\*").replace("??/", "?\\?/")
    return text.rstrip()
