"""Neutral tables of a pushdown validator -> the Rust plan of its stack machine.

A self-embedding grammar (``Tables.pushdown``) gets one loop, the one every backend follows (see
:mod:`abnfc.automata.pushdown`): a byte-indexed table step per byte, and on the rare bytes a push
(a call state: go on in the start of its nested part), a pop (``RETURN``: the byte closes a
nested part and is read from the popped call state) or the error.  The table is byte-major
(``NEXT[byte * NUM_STATES + state]``), as the C backend measured fastest: the column of a byte is
known before the previous load is done, so the chain from state to state is one load.

The stack is a ``Vec`` of call states in the narrowest type that holds them, so this module uses
``alloc`` (not only ``core``).  The one-shot functions have no depth limit (the stack holds at
most one entry per byte of the input); the incremental ``Validator`` and ``first_error_within``
take one (``MAX_DEPTH`` by default) and stop with a ``NestingError`` past it, as the generated
Python module does.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...charset import format_hex, members
from ...errors import printable
from ..analysis import check_pushdown_layout, check_pushdown_strategy
from ..tables import Tables
from .plan import Docs, Expected, RustPlan, docs, lower

CELLS_PER_LINE = 32

__all__ = ["RustPushdownPlan", "lower_any", "lower_pushdown"]


@dataclass(frozen=True)
class PartLine:
    """A machine of the pushdown validator, for the doc comments."""

    text: str  # "value: states 1-80, start 1, ends on 5D"


@dataclass(frozen=True)
class ByteColumn:
    note: str
    lines: tuple[str, ...]  # every state's next state on the byte, CELLS_PER_LINE to a line


@dataclass(frozen=True)
class RustPushdownPlan:
    prefix: str
    docs: Docs
    num_states: int
    num_classes: int
    start_state: int
    dead_state: int
    first_call: int
    calls: bool  # some state is a call state
    return_code: int
    max_depth: int
    cell_type: str  # a table entry: a state or RETURN
    call_type: str  # a stack entry: a call state
    columns: tuple[ByteColumn, ...]
    entries: str  # per call state, the start of its nested part
    accepting: str
    accepting_list: str
    parts: tuple[PartLine, ...]
    expected: tuple[Expected, ...]


def lower_any(tables: Tables, options: Mapping[str, str]) -> RustPlan | RustPushdownPlan:
    """The backend's ``lower``: a pushdown validator's plan, or a DFA's (:func:`.plan.lower`)."""
    return lower(tables, options) if tables.pushdown is None else lower_pushdown(tables, options)


def lower_pushdown(tables: Tables, options: Mapping[str, str]) -> RustPushdownPlan:
    check_pushdown_layout(tables)
    found = tables.pushdown
    assert found is not None
    check_pushdown_strategy(options.get("strategy", "auto"), "Rust", "--rust-strategy")
    return RustPushdownPlan(
        prefix=options["prefix"],
        docs=docs(tables),
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start_state=tables.start,
        dead_state=tables.dead,
        first_call=found.first_call,
        calls=found.first_call < tables.num_states,
        return_code=found.return_code,
        max_depth=found.max_depth,
        cell_type=_uint(found.return_code),
        call_type=_uint(tables.num_states - 1),
        columns=_columns(tables),
        entries=", ".join(str(e) for e in found.entries),
        accepting=", ".join("true" if s.accepting else "false" for s in tables.states),
        accepting_list=", ".join(str(s) for s in tables.accepting) or "none",
        parts=tuple(PartLine(f"{printable(p.name)}: states {p.first}-{p.end - 1}, start {p.start}"
                             + (f", ends on {format_hex(p.returns)}" if p.returns else ""))
                    for p in found.parts),
        expected=tuple(Expected(s.index, ", ".join(f"(0x{lo:02X}, 0x{hi:02X})" for lo, hi in s.expects))
                       for s in tables.states),
    )


def _uint(largest: int) -> str:
    return "u8" if largest < 1 << 8 else "u16" if largest < 1 << 16 else "u32"


def _columns(tables: Tables) -> tuple[ByteColumn, ...]:
    """Per byte, every state's next state (RETURN where the state closes a nested part on it)."""
    found = tables.pushdown
    assert found is not None
    returning = [set(members(ranges)) for ranges in found.returns]
    width = len(str(found.return_code))
    columns = []
    for byte in range(256):
        cls = tables.byte_class[byte]
        targets = [f"{found.return_code if byte in returning[s.index] else s.targets[cls]:>{width}},"
                   for s in tables.states]
        columns.append(ByteColumn(f"byte {byte:02X} (class {cls})", tuple(
            " ".join(targets[i:i + CELLS_PER_LINE]) for i in range(0, len(targets), CELLS_PER_LINE))))
    return tuple(columns)
