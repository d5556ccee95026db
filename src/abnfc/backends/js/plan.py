"""Neutral tables -> the JavaScript plan: the tables as JavaScript literals and comment text.

The module steps a flat ``Int32Array`` of premultiplied state numbers (state s is held as
s * classes), so a step is ``s = NEXT[s + CLASS_OF[byte]]``: two loads, no multiplication.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from ...charset import format_hex
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


def lower(tables: Tables, options: Mapping[str, str]) -> JsPlan:
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
        classes=tuple(ClassLine("[" + ", ".join(f"[0x{lo:02X}, 0x{hi:02X}]" for lo, hi in ranges) + "]",
                                block_comment_safe(f"class {index}: {format_hex(ranges)}"))
                      for index, ranges in enumerate(tables.classes)),
        states=tuple(StateLine(", ".join(str(t) for t in state.targets),
                               block_comment_safe(f"{state.index}: {state.note}" if state.note else str(state.index)))
                     for state in tables.states),
    )


def block_comment_safe(text: str) -> str:
    """``text`` made safe inside a ``/* */`` comment: ``*/`` would end it early."""
    return line_comment_safe(text.replace("*/", "*\\/"))


def line_comment_safe(text: str) -> str:
    """``text`` made safe after ``//``: it must stay on one line (printable text already does;
    U+2028 and U+2029 end lines in JavaScript too)."""
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").rstrip()
