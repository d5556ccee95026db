"""The documentation site: it builds with ``mkdocs build --strict`` (no broken link or anchor), its
command-line reference is made from the parsers, its validators page has a complete program for
every validator backend of the registry, and the README and the pages say what is (the history
of the project belongs in the commits).
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, import_file
from helpers import doc_examples

from abnfc import backends
from abnfc.commands import COMMANDS

HOOKS = import_file(ROOT / "docs" / "hooks.py")
HISTORY = re.compile(r"before this work|\bissue \d+|\bused to\b|\bno longer\b", re.I)
VALIDATORS = [name for name in backends.names() if name != "html"]  # html writes a book, not a validator


def missing_site_packages() -> str | None:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        try:
            found = importlib.util.find_spec(module)
        except ModuleNotFoundError:
            found = None
        if found is None:
            return f"{module} is not installed (the docs extra: pip install -e '.[docs]')"
    return None


def test_the_site_builds_strictly(tmp_path):
    """Every page renders, with no warning: links and anchors resolve, the API is documented."""
    missing = missing_site_packages()
    if missing:
        pytest.skip(missing)
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f",
                             str(ROOT / "mkdocs.yml"), "-d", str(site)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    built = {path.relative_to(site).as_posix() for path in site.rglob("index.html")}
    assert len(built) == len(doc_examples.pages()), built
    cli = (site / "reference" / "cli" / "index.html").read_text("utf-8")
    assert all(f'id="abnfc-{name}"' in cli for name in COMMANDS)
    api = (site / "reference" / "api" / "index.html").read_text("utf-8")
    assert all(f"abnfc.api.{name}" in api for name in ("load_grammar", "compile_grammar", "load_validator",
                                                      "recognize", "generate_files"))


def test_the_cli_reference_holds_every_command_and_option():
    """The reference is made from the parsers, so every option of every command is in it."""
    from abnfc.cli import command_parser

    reference = HOOKS.cli_reference()
    for name in COMMANDS:
        assert f"\n## abnfc {name}\n" in reference
        for action in command_parser(name)._actions:
            for option in action.option_strings:
                assert f"`{option}" in reference or f", {option}" in reference, (name, option)


def test_fences_keep_their_file_names_as_titles():
    page = "```python api.py\nx = 1\n```\n\n```console slow\n$ abnfc dfa g.abnf\n```\n"
    shown = HOOKS.on_page_markdown(page)
    assert '```python title="api.py"' in shown
    assert "```console\n$ abnfc dfa" in shown


def test_every_validator_has_a_complete_example():
    """The validators page has a section for each validator backend, with a program in its
    language that its console blocks build and run (tests/test_docs_examples.py runs them)."""
    page = ROOT / "docs" / "validators.md"
    text = page.read_text("utf-8")
    named = {block.language for block in doc_examples.blocks(page) if block.name}
    for name in VALIDATORS:
        assert f"\n## {doc_examples.LANGUAGE_NAMES[name]}\n" in text, name
        assert name in named, f"no {name} program on {page.name}"


@pytest.mark.parametrize("page", [ROOT / "README.md", *doc_examples.pages()], ids=doc_examples.page_name)
def test_the_pages_say_what_is(page):
    """No project history on a page: that belongs in the commits."""
    found = [line for line in page.read_text("utf-8").splitlines() if HISTORY.search(line)]
    assert not found


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text("utf-8").splitlines()) <= 200
