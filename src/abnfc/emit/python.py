"""Python emitter: renders the plan as one standalone module (``<prefix>.py``)."""
from __future__ import annotations

from ..plan import Plan
from . import render_template


def render(plan: Plan) -> dict[str, str]:
    return {f"{plan.prefix}.py": render_template(
        "python.py.j2", plan=plan, grammar_file=_docstring_safe(plan.grammar_file),
        grammar_lines=_docstring_lines(plan.grammar_lines), table_lines=_docstring_lines(plan.table_text))}


def _docstring_lines(lines: tuple[str, ...]) -> list[str]:
    """Lines indented for the module docstring."""
    return [f"    {_docstring_safe(line)}".rstrip() for line in lines]


def _docstring_safe(text: str) -> str:
    """``text`` (one printable line) made safe inside a non-raw triple-quoted string."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
