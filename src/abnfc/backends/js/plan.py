"""Neutral tables -> the JavaScript plan: the tables as JavaScript literals and comment text.

The module steps a flat ``Int32Array`` of premultiplied state numbers (state s is held as
s * classes), so a step is ``s = NEXT[s + CLASS_OF[byte]]``: two loads, no multiplication.

A pushdown validator (``Tables.pushdown``, a self-embedding grammar) is rendered from a template
of its own: its table is indexed by byte, not by class, with states premultiplied by 256
(``held = ROWS[held | byte]``: one load a byte, no shift), and holds RETURN where a state
closes a nested part, so that a byte which calls, returns or fails is found by comparing with
FIRST_CALL and DEAD, whatever the state.  The plan picks the narrowest typed arrays that hold
its numbers: the table's up to RETURN * 256, the stack's up to the last call state.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from ...charset import Ranges, format_hex, format_readable
from ...errors import printable
from ..tables import Tables


@dataclass(frozen=True)
class ClassLine:
    ranges: str  # "[[0x80, 0x8F], [0xA0, 0xBF]]"
    comment: str


@dataclass(frozen=True)
class StateLine:
    targets: str  # "0, 2, 4"
    comment: str


@dataclass(frozen=True)
class PartLine:
    """A machine of a pushdown validator, for the header comment."""

    text: str  # "value: states 1-80, start 1, ends on ']'"


@dataclass(frozen=True)
class ReturnLine:
    state: int
    ranges: str  # "[[0x5D, 0x5D]]"


@dataclass(frozen=True)
class JsPushdown:
    first_call: int
    return_code: int  # RETURN: in ROWS, the byte closes a nested part
    entries: str  # "81, 33"
    max_depth: int
    parts: tuple[PartLine, ...]
    returns: tuple[ReturnLine, ...]  # the states that return, in order
    row_array: str  # the typed array of ROWS: holds every state and RETURN, premultiplied by 256
    stack_array: str  # the typed array of the stack: holds every call state
    first_call_held: int  # FIRST_CALL << 8, RETURN << 8 and DEAD << 8: literals in the loop
    return_held: int
    dead_held: int


@dataclass(frozen=True)
class JsPlan:
    module: str  # file stem
    header_lines: tuple[str, ...]  # safe inside // comments
    grammar_file: str
    start_rule: str
    grammar_lines: tuple[str, ...]
    table_lines: tuple[str, ...]
    num_states: int
    num_classes: int
    start: int
    dead: int
    accepting: str  # "[1, 3]"
    classes: tuple[ClassLine, ...]
    states: tuple[StateLine, ...]
    template: str = "validator.mjs.j2"
    pushdown: JsPushdown | None = None


def lower(tables: Tables, options: Mapping[str, str]) -> JsPlan:
    found = _pushdown(tables)
    return JsPlan(
        module=options["prefix"],
        header_lines=tuple(line_comment_safe(line) for line in tables.header.lines),
        grammar_file=block_comment_safe(tables.grammar_file),
        start_rule=block_comment_safe(tables.header.start_rule),
        grammar_lines=tuple(block_comment_safe(line) for line in tables.header.grammar_lines),
        table_lines=tuple(block_comment_safe(line) for line in tables.table_text),
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start=tables.start,
        dead=tables.dead,
        accepting=json.dumps(list(tables.accepting)),
        classes=tuple(ClassLine(_ranges(ranges), block_comment_safe(f"class {index}: {format_hex(ranges)}"))
                      for index, ranges in enumerate(tables.classes)),
        states=tuple(StateLine(", ".join(str(t) for t in state.targets),
                               block_comment_safe(f"{state.index}: {state.note}" if state.note else str(state.index)))
                     for state in tables.states),
        template="validator.mjs.j2" if found is None else "pushdown.mjs.j2",
        pushdown=found,
    )


def _pushdown(tables: Tables) -> JsPushdown | None:
    found = tables.pushdown
    if found is None:
        return None
    parts = tuple(PartLine(block_comment_safe(
        f"{printable(p.name)}: states {p.first}-{p.end - 1}, start {p.start}"
        + (f", ends on {format_readable(p.returns)}" if p.returns else ""))) for p in found.parts)
    returns = tuple(ReturnLine(state, _ranges(ranges)) for state, ranges in enumerate(found.returns) if ranges)
    return JsPushdown(found.first_call, found.return_code, ", ".join(str(e) for e in found.entries),
                      found.max_depth, parts, returns, _typed_array(found.return_code << 8),
                      _typed_array(tables.num_states - 1), found.first_call << 8, found.return_code << 8,
                      tables.dead << 8)


def _typed_array(largest: int) -> str:
    """The narrowest unsigned typed array that holds 0..largest: a smaller table stays in a
    faster cache."""
    return "Uint8Array" if largest < 1 << 8 else "Uint16Array" if largest < 1 << 16 else "Uint32Array"


def _ranges(ranges: Ranges) -> str:
    return "[" + ", ".join(f"[0x{lo:02X}, 0x{hi:02X}]" for lo, hi in ranges) + "]"


def block_comment_safe(text: str) -> str:
    """``text`` made safe inside a ``/* */`` comment: ``*/`` would end it early."""
    return line_comment_safe(text.replace("*/", "*\\/"))


def line_comment_safe(text: str) -> str:
    """``text`` made safe after ``//``: it must stay on one line (printable text already does;
    U+2028 and U+2029 end lines in JavaScript too)."""
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").rstrip()
