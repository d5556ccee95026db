"""Every example on every page of the documentation site (docs/**/*.md) runs as pasted and
prints what the page shows: the conventions of tests/helpers/doc_examples.py, each page in a
sandbox of its own, its commands in order.  Test ids name the page and the command.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, missing_toolchain
from helpers import doc_examples

PAGES = doc_examples.pages()


@pytest.mark.parametrize("page", PAGES, ids=doc_examples.page_name)
def test_every_code_block_is_run(page):
    """Code in a runnable language names its file, and some console block of the page runs it."""
    assert doc_examples.unrun_blocks(page) == []


def test_the_pages_have_examples():
    assert len(PAGES) >= 10
    assert sum(len(doc_examples.examples(page)) for page in PAGES) >= 50


@pytest.fixture(scope="module")
def sandboxes(tmp_path_factory) -> dict[str, Path]:
    """A sandbox per page, made when the page's first example runs."""
    return {}


def sandbox_of(page: str, sandboxes: dict[str, Path], tmp_path_factory) -> Path:
    if page not in sandboxes:
        folder = tmp_path_factory.mktemp(Path(page).stem)
        doc_examples.make_sandbox(ROOT / page, folder)
        sandboxes[page] = folder
    return sandboxes[page]


CONSOLE = [pytest.param(example, id=f"{example.page.removeprefix('docs/')}: {example.command[:60]}",
                        marks=[pytest.mark.slow] if example.slow else [])
           for page in PAGES for example in doc_examples.examples(page)]


@pytest.mark.parametrize("example", CONSOLE)
def test_console_example(example, sandboxes, tmp_path_factory):
    toolchain = doc_examples.toolchain_of(example.command)
    missing = toolchain and missing_toolchain(toolchain)
    if missing:
        pytest.skip(missing)
    output = doc_examples.run(example, sandbox_of(example.page, sandboxes, tmp_path_factory))
    assert doc_examples.matches(example.expected, output), doc_examples.mismatch(example, output)
