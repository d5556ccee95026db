"""C emitter: render a :class:`abnfc.plan.Plan` into ``<prefix>.h`` and ``<prefix>.c``.

The generated code is C99 with no allocation and only the standard headers.  The plan decides
everything (strategy, rows, masks, the ASCII state); this module only formats plan data into
lines for the templates: comment text made safe to embed, and the 256-entry byte tables cut into
rows of 16 with their byte-range labels.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..plan import Plan
from . import render_template

BYTES_PER_LINE = 16


@dataclass(frozen=True)
class ByteLine:
    label: str  # "80-8F"
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    cells: str  # " 0,  2,  4"
    note: str


def render(plan: Plan) -> dict[str, str]:
    context = _context(plan)
    return {
        f"{plan.prefix}.h": render_template("c_header.h.j2", **context),
        f"{plan.prefix}.c": render_template("c_source.c.j2", **context),
    }


def _context(plan: Plan) -> dict:
    shift = plan.c_strategy == "shift"
    class_names = [f"C{c.index}" for c in plan.classes]
    name_width = max(len(name) for name in class_names)
    width = max(len(str(plan.num_classes - 1)), len(str(plan.num_states - 1)))
    return {
        "plan": plan,
        "P": plan.prefix,
        "M": plan.prefix.upper(),  # macro prefix
        "strategy_template": "c_shift.c.j2" if shift else "c_table.c.j2",
        "header_lines": [comment_safe(line) for line in plan.header_lines],
        "grammar_file": comment_safe(plan.grammar_file),
        "start_rule": comment_safe(plan.origin.start_rule),
        "grammar_lines": [comment_safe(line) for line in plan.grammar_lines],
        "table_lines": [comment_safe(line) for line in plan.table_text],
        "class_names": class_names,
        "class_names_padded": [f"{name:<{name_width}}" for name in class_names],
        "class_hex": [comment_safe(c.hex) for c in plan.classes],
        "byte_lines": _byte_lines(
            [f"{class_names[c]:>{name_width}}" for c in plan.byte_class] if shift
            else [f"{c:>{width}}" for c in plan.byte_class]),
        "next_rows": [Row(", ".join(f"{t:>{width}}" for t in s.targets),
                          comment_safe(f"{s.index:>{width}}: {s.note}" if s.note else f"{s.index:>{width}}"))
                      for s in plan.states],
        "next_header": "  ".join(f"{c:>{width}}" for c in range(plan.num_classes)),
        "accepting_cells": _chunks(["1" if s.accepting else "0" for s in plan.states], 32),
        # An automaton that starts dead matches nothing, not even the empty input: error at 0.
        "initial_error": "0" if plan.start == plan.dead else "SIZE_MAX",
        "accepting_list": ", ".join(str(s) for s in plan.accepting) or "none",
    }


def _byte_lines(cells: list[str]) -> list[ByteLine]:
    lines = []
    for start in range(0, len(cells), BYTES_PER_LINE):
        end = start + BYTES_PER_LINE - 1
        lines.append(ByteLine(f"{start:02X}-{end:02X}", tuple(cells[start:end + 1])))
    return lines


def _chunks(cells: list[str], size: int) -> list[str]:
    return [", ".join(cells[i:i + size]) for i in range(0, len(cells), size)]


def comment_safe(text: str) -> str:
    """``text`` made safe inside a ``/* */`` comment, kept readable.

    ``*/`` would end the comment early and ``/*`` trips -Wcomment, so a backslash goes between
    their characters; ``??/`` is the trigraph for a backslash (C99, C++11), so its question marks
    are split the same way; trailing whitespace goes, so no line ends in a backslash and space.
    """
    text = text.replace("*/", "*\\/").replace("/*", "/\\*").replace("??/", "?\\?/")
    return text.rstrip()
