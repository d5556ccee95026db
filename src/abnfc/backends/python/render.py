"""Python plan -> one standalone module (``<module>.py``) through ``templates/python.py.j2``."""
from __future__ import annotations

from dataclasses import dataclass

from ...charset import Ranges, format_hex, format_readable
from ...errors import printable
from ..templating import render_template
from .plan import PythonPlan


@dataclass(frozen=True)
class ClassRow:
    index: int
    ranges: Ranges
    hex: str  # "80-8F A0-BF"


def render(plan: PythonPlan) -> dict[str, str]:
    tables = plan.tables
    return {f"{plan.module}.py": render_template(
        "abnfc.backends.python", "python.py.j2", plan=plan, tables=tables,
        header_lines=tables.header.lines, start_rule=_docstring_safe(tables.header.start_rule),
        grammar_file=_docstring_safe(tables.grammar_file),
        grammar_lines=_docstring_lines(tables.header.grammar_lines),
        class_rows=[ClassRow(index, ranges, format_hex(ranges)) for index, ranges in enumerate(tables.classes)],
        pushdown=_pushdown(tables), return_rows=_return_rows(tables), run_lines=_run_lines(plan),
        reduction_lines=_reduction_lines(plan),
        whole_lines=_pieces(plan.reductions.whole) if plan.reductions else [],
        table_lines=_docstring_lines(tables.table_text))}


@dataclass(frozen=True)
class PartText:
    name: str
    first: int
    end: int
    start: int
    returns: Ranges
    returns_text: str


@dataclass(frozen=True)
class PushdownText:
    """A pushdown validator's calls and returns, with its machines' names made docstring-safe."""

    first_call: int
    return_code: int
    entries: tuple[int, ...]
    max_depth: int
    parts: tuple[PartText, ...]


def _pushdown(tables) -> PushdownText | None:
    found = tables.pushdown
    if found is None:
        return None
    parts = tuple(PartText(_docstring_safe(printable(p.name)), p.first, p.end, p.start, p.returns,
                           _docstring_safe(format_readable(p.returns))) for p in found.parts)
    return PushdownText(found.first_call, found.return_code, found.entries, found.max_depth, parts)


def _return_rows(tables) -> list[tuple[int, Ranges]]:
    if tables.pushdown is None:
        return []
    return [(state, ranges) for state, ranges in enumerate(tables.pushdown.returns) if ranges]


def _docstring_lines(lines: tuple[str, ...]) -> list[str]:
    """Lines indented for the module docstring."""
    return [f"    {_docstring_safe(line)}".rstrip() for line in lines]


def _docstring_safe(text: str) -> str:
    """``text`` (one printable line) made safe inside a non-raw triple-quoted string."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


PATTERN_WIDTH = 100  # characters of a run pattern a line


def _run_lines(plan: PythonPlan) -> list[tuple[int, int, str, list[str]]]:
    """Each run pattern as (state, levels inlined, its ends, the pieces of its text a line); a
    piece never ends in a backslash, which a raw literal cannot."""
    return [(run.state, run.inlined, "".join(f"{end}, " for end in run.ends), _pieces(run.pattern))
            for run in plan.runs]


def _reduction_lines(plan: PythonPlan) -> list[tuple[str, str, str, list[str]]]:
    """Each reduction as (opening byte, closing byte, placeholder byte, its pattern's pieces)."""
    if plan.reductions is None:
        return []
    return [(f"0x{r.opening:02X}", f"0x{r.closing:02X}", f"0x{r.placeholder:02X}", _pieces(r.pattern))
            for r in plan.reductions.reductions]


def _pieces(text: str) -> list[str]:
    """``text`` in lines of PATTERN_WIDTH characters, none ending in a backslash (which a raw
    literal cannot)."""
    pieces = []
    while text:
        cut = min(len(text), PATTERN_WIDTH)
        while 1 < cut < len(text) and text[cut - 1] == "\\":
            cut -= 1
        pieces.append(text[:cut])
        text = text[cut:]
    return pieces
