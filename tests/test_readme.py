"""Every example in README.md runs as pasted and prints what the README shows, and its set-up
commands are the ones CI runs.  The conventions of the examples are those of every page
(tests/helpers/doc_examples.py); the pages of docs/ are run by tests/test_docs_examples.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT, missing_toolchain
from helpers import doc_examples

README = ROOT / "README.md"


def test_every_code_block_is_run():
    """Code in a runnable language names its file, and some console block runs that file."""
    assert doc_examples.unrun_blocks(README) == []
    assert sum(block.language == "console" for block in doc_examples.blocks(README)) >= 3


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("readme")
    doc_examples.make_sandbox(README, folder)
    return folder


CONSOLE = [pytest.param(example, id=example.command[:60], marks=[pytest.mark.slow] if example.slow else [])
           for example in doc_examples.examples(README)]


@pytest.mark.parametrize("example", CONSOLE)
def test_console_example(example, sandbox):
    toolchain = doc_examples.toolchain_of(example.command)
    missing = toolchain and missing_toolchain(toolchain)
    if missing:
        pytest.skip(missing)
    output = doc_examples.run(example, sandbox)
    assert doc_examples.matches(example.expected, output), doc_examples.mismatch(example, output)


def test_the_setup_commands_are_the_ci_command():
    """The README's second command is exactly what .ci/run runs."""
    text = README.read_text("utf-8")
    found = re.search(r"# 2\..*\n(.*)\n", text)
    assert found is not None, "the README's second command is missing"
    second = found.group(1)
    assert second.strip() in (ROOT / ".ci" / "run").read_text("utf-8")
