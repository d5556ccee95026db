"""Python plan -> one standalone module (``<module>.py``) through ``templates/python.py.j2``."""
from __future__ import annotations

from dataclasses import dataclass

from ...charset import Ranges, format_hex
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
        table_lines=_docstring_lines(tables.table_text))}


def _docstring_lines(lines: tuple[str, ...]) -> list[str]:
    """Lines indented for the module docstring."""
    return [f"    {_docstring_safe(line)}".rstrip() for line in lines]


def _docstring_safe(text: str) -> str:
    """``text`` (one printable line) made safe inside a non-raw triple-quoted string."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
