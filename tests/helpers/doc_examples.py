"""The examples of a Markdown page (README.md, docs/**/*.md), read and run as a reader would.

Fences follow three conventions, which the documentation site's hook (docs/hooks.py) renders:

- a code block whose info string names a file (```python api.py, ```rust rust_demo/main.rs) is
  written to that file, relative to the page's sandbox, before any command runs;
- a console block (```console) holds ``$ command`` lines, each followed by its expected output
  (stdout and stderr together); a line ``...`` in an expected output stands for any number of
  lines, and ``...`` inside a line for any text;
- a console block marked ```console slow runs only in the full tier (``-m slow``).

Each page runs in a sandbox of its own: a copy of the repository's grammars/, generated/ and
examples/ and of README.md, with this environment's abnfc, python3, cc and node first on PATH.
The commands of a page run in order, in one bash each, from the sandbox's folder.  A command
that calls rustc or go skips when that toolchain is missing (as the backends' tests do).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from abnfc.backends.rust.runner import find_tool
from helpers.paths import ROOT

FENCE = re.compile(r"^```(\w*)[ \t]*([^\n`]*)\n(.*?)^```$", re.M | re.S)
RUNNABLE = ("python", "c", "js", "rust", "go")  # code in these languages must be run by a console block
COPIED = ("grammars", "generated", "examples")
# How the pages name each backend of the registry (tests/test_docs_backends.py holds the pages to it).
LANGUAGE_NAMES = {"python": "Python", "c": "C", "js": "JavaScript", "rust": "Rust", "go": "Go", "html": "HTML"}
# The toolchain a command needs, by the programs it calls (a skip names it when it is missing).
TOOLCHAINS = (("rust", re.compile(r"(?:^|[;&|(]\s*)(?:rustc|cargo)\b")),
              ("go", re.compile(r"(?:^|[;&|(]\s*)go\s")))


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language, the file it names (or ``slow``, or nothing), its text."""

    language: str
    name: str
    body: str


@dataclass(frozen=True)
class Example:
    """One ``$ command`` of a page's console block, with the output the page shows for it."""

    page: str  # relative to the repository, as in the test ids
    command: str
    expected: str
    slow: bool


def pages() -> list[Path]:
    """Every Markdown page of the documentation site, in a stable order."""
    return sorted((ROOT / "docs").rglob("*.md"))


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def blocks(page: Path) -> list[Block]:
    return [Block(m.group(1), m.group(2).strip(), m.group(3)) for m in FENCE.finditer(page.read_text("utf-8"))]


def commands(block: Block) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    pairs: list[tuple[str, list[str]]] = []
    for line in block.body.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        elif pairs:
            pairs[-1][1].append(line)
        else:
            raise AssertionError(f"console block does not start with a command:\n{block.body}")
    return [(command, "\n".join(lines)) for command, lines in pairs]


def examples(page: Path) -> list[Example]:
    return [Example(page_name(page), command, expected, block.name == "slow")
            for block in blocks(page) if block.language == "console" for command, expected in commands(block)]


def unrun_blocks(page: Path) -> list[str]:
    """What is wrong with the page's runnable code blocks: each must name its file, and some
    console block of the page must use that file."""
    found = blocks(page)
    consoles = "\n".join(block.body for block in found if block.language == "console")
    problems = []
    for block in found:
        if block.language in RUNNABLE and not block.name:
            problems.append(f"a {block.language} block without a file name is not tested:\n{block.body}")
        elif block.language in RUNNABLE and not _used(block.name, consoles):
            problems.append(f"no console block of {page_name(page)} runs {block.name}")
    return problems


def _used(name: str, consoles: str) -> bool:
    """Whether a console block names the file, or the folder it is in (``cd go_demo && go run .``)."""
    folder = Path(name).parent.as_posix()
    return name in consoles or (folder != "." and folder in consoles)


def matches(expected: str, output: str) -> bool:
    pattern = ""
    for line in expected.splitlines():
        if line == "...":
            pattern += r"(?:[^\n]*\n)*?"
        else:
            pattern += ".*?".join(re.escape(part) for part in line.split("...")) + r"\n"
    return re.fullmatch(pattern, output if output.endswith("\n") or not output else output + "\n",
                        re.S) is not None


def make_sandbox(page: Path, folder: Path) -> None:
    """Fill ``folder`` with what the page's examples start from, and the files its blocks name."""
    for name in COPIED:
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(ROOT / "README.md", folder / "README.md")
    for block in blocks(page):
        if block.name and block.name != "slow":
            target = folder / block.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")


def environment() -> dict[str, str]:
    """This Python's scripts first on PATH, then the folder of the rustc the tests build with
    (a distribution's older rustc can come first on PATH, too old for the generated modules)."""
    folders = [str(Path(sys.executable).parent)]
    rustc = find_tool("rustc")
    if rustc:
        folders.append(str(Path(rustc).parent))
    return dict(os.environ, PATH=os.pathsep.join([*folders, os.environ.get("PATH", "")]))


def toolchain_of(command: str) -> str | None:
    """The backend language whose toolchain ``command`` runs (rust, go), or None."""
    return next((language for language, calls in TOOLCHAINS if calls.search(command)), None)


def run(example: Example, folder: Path) -> str:
    """What the command prints (stdout and stderr together), run from ``folder``."""
    result = subprocess.run(["bash", "-c", example.command], cwd=folder, env=environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=300)
    return result.stdout


def mismatch(example: Example, output: str) -> str:
    return (f"{example.page}: $ {example.command}\n--- expected ---\n{example.expected}\n"
            f"--- got ---\n{output}")
