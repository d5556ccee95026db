"""Every example in README.md runs as pasted and prints what the README shows.

Code blocks whose info string names a file (```python api.py) are written to that file; console
blocks (```console) hold ``$ command`` lines, each followed by its expected output (stdout and
stderr together).  A line ``...`` in an expected output stands for any number of lines, and
``...`` inside a line for any text.  Everything runs in a copy of the repository's grammars/,
generated/ and examples/ with this environment's abnfc, python3, cc and node first on PATH.  A
console block marked ```console slow runs only in the full tier (``-m slow``).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT

README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)[ \t]*([^\n`]*)\n(.*?)^```$", re.M | re.S)
RUNNABLE = ("python", "c", "js")


@dataclass(frozen=True)
class Block:
    language: str
    name: str
    body: str


def blocks() -> list[Block]:
    return [Block(m.group(1), m.group(2).strip(), m.group(3)) for m in FENCE.finditer(README.read_text("utf-8"))]


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


def matches(expected: str, output: str) -> bool:
    pattern = ""
    for line in expected.splitlines():
        if line == "...":
            pattern += r"(?:[^\n]*\n)*?"
        else:
            pattern += ".*?".join(re.escape(part) for part in line.split("...")) + r"\n"
    return re.fullmatch(pattern, output if output.endswith("\n") or not output else output + "\n",
                        re.S) is not None


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("readme")
    for name in ("grammars", "generated", "examples"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(README, folder / "README.md")
    for block in blocks():
        if block.name:
            (folder / block.name).write_text(block.body, encoding="utf-8")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    return folder, env


def test_every_code_block_is_run():
    """Code in a runnable language names its file, and some console block runs that file."""
    found = blocks()
    consoles = "\n".join(block.body for block in found if block.language == "console")
    for block in found:
        if block.language in RUNNABLE:
            assert block.name, f"a {block.language} block without a file name is not tested:\n{block.body}"
            assert block.name in consoles, f"no console block runs {block.name}"
    assert sum(block.language == "console" for block in found) >= 5


CONSOLE = [pytest.param(pair, id=pair[0][:60], marks=[pytest.mark.slow] if block.name == "slow" else [])
           for block in blocks() if block.language == "console" for pair in commands(block)]


@pytest.mark.parametrize("example", CONSOLE)
def test_console_example(example, sandbox):
    command, expected = example
    folder, env = sandbox
    result = subprocess.run(["bash", "-c", command], cwd=folder, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=300)
    assert matches(expected, result.stdout), f"$ {command}\n--- expected ---\n{expected}\n--- got ---\n{result.stdout}"


def test_the_setup_commands_are_the_ci_command():
    """The README's second command is exactly what .ci/run runs."""
    text = README.read_text("utf-8")
    found = re.search(r"# 2\..*\n(.*)\n", text)
    assert found is not None, "the README's second command is missing"
    second = found.group(1)
    assert second.strip() in (ROOT / ".ci" / "run").read_text("utf-8")
