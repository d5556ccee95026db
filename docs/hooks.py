"""MkDocs hooks of the documentation site (``hooks:`` in mkdocs.yml).

Two jobs, both on each page's Markdown before it is rendered:

- The fences keep the conventions the tests run them by (tests/helpers/doc_examples.py): a
  block that names its file (```python api.py) is shown with the name as its title, and a
  console block marked ``slow`` as a plain console block.
- A page may hold markers that are replaced by text made from the code, so that it cannot drift:
  ``<!-- abnfc: cli-reference -->`` becomes the reference of every command, built by walking the
  argparse parsers of :mod:`abnfc.cli` (the top parser, then each command's parser with its
  argument groups, choices and defaults), and ``<!-- abnfc: backends -->`` the table of the
  backend registry (:func:`abnfc.backends.names`): each backend's name, summary and options.
"""
from __future__ import annotations

import argparse
import functools
import html
import re
import sys
from pathlib import Path
from typing import Any

# The site documents this checkout's code, whatever abnfc the environment has installed.
SRC = str(Path(__file__).resolve().parents[1] / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

FENCE_OPEN = re.compile(r"^([ \t]*)```(\w+)[ \t]+([^\s`]+)[ \t]*$", re.M)
CLI_MARKER = "<!-- abnfc: cli-reference -->"
BACKENDS_MARKER = "<!-- abnfc: backends -->"
WIDTH = 100  # of the usage lines, whatever the terminal that builds the site


def on_page_markdown(markdown: str, page: Any = None, **_: Any) -> str:
    markdown = FENCE_OPEN.sub(_fence, markdown)
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    if BACKENDS_MARKER in markdown:
        markdown = markdown.replace(BACKENDS_MARKER, backends_table())
    return markdown


def _fence(match: re.Match[str]) -> str:
    indent, language, name = match.groups()
    if name == "slow":
        return f"{indent}```{language}"
    return f'{indent}```{language} title="{name}"'


def _text(words: str) -> str:
    """Help text as Markdown that shows it as written: no HTML, no emphasis, no table cells."""
    escaped = html.escape(words, quote=False)
    return re.sub(r"([\\`*_|\[\]])", r"\\\1", escaped).replace("\n", " ")


def _english() -> None:
    from abnfc import i18n

    i18n.use(i18n.ENGLISH)


def _sized(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.formatter_class = functools.partial(parser.formatter_class, width=WIDTH)  # type: ignore[call-arg]
    return parser


def cli_reference() -> str:
    """The Markdown reference of the command line, from its parsers."""
    from abnfc import cli
    from abnfc.commands import COMMANDS, command

    _english()
    top = _sized(cli._top_parser(listed=False))
    lines = ["## abnfc", "", _text(top.description or ""), "", "```text", top.format_usage().strip(), "```", "",
             *_arguments(top), "| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#abnfc-{name}) | {_text(command(name).HELP)} |" for name in COMMANDS]
    lines.append("")
    for name in COMMANDS:
        lines += _command(name, _sized(cli.command_parser(name)))
    return "\n".join(lines)


def _command(name: str, parser: argparse.ArgumentParser) -> list[str]:
    lines = [f"## abnfc {name}", "", _text(parser.description or "") + ".", "", "```text",
             parser.format_usage().strip(), "```", ""]
    lines += _arguments(parser)
    if parser.epilog:
        heading, _newline, examples = parser.epilog.partition("\n")
        lines += [_text(heading[:1].upper() + heading[1:]), "", "```text",
                  *(line.strip() for line in examples.splitlines()), "```", ""]
    return lines


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    """A table per argument group of the parser (positional arguments, options, named groups)."""
    formatter = parser._get_formatter()
    lines = []
    for group in parser._action_groups:
        actions = [action for action in group._group_actions if action.help is not argparse.SUPPRESS]
        if not actions:
            continue
        lines += [f"**{_text(group.title or '')}**", "", "| argument | meaning |", "|---|---|"]
        for action in actions:
            invocation = formatter._format_action_invocation(action)
            meaning = formatter._expand_help(action) if action.help else ""
            lines.append(f"| `{invocation}` | {_text(meaning)} |")
        lines.append("")
    return lines


def backends_table() -> str:
    """The backends of the registry, with their summaries and command-line options."""
    from abnfc import backends

    _english()
    lines = ["| `--lang` | what it writes | options |", "|---|---|---|"]
    for name in backends.names():
        backend = backends.get(name)
        options = ", ".join(f"`--{name}-{option.name}`" for option in backend.options) or "—"
        lines.append(f"| `{name}` | {_text(backend.summary)} | {options} |")
    return "\n".join(lines) + "\n"
