"""Every list of backends a reader meets is the backend registry's (:func:`abnfc.backends.names`):
``abnfc --help`` prints the registry's names, and pyproject's description, the README and the
documentation name each backend the registry holds (the site's table of backends is made from
the registry when it is built).
"""
from __future__ import annotations

import re
import tomllib

import pytest
from conftest import ROOT, import_file
from helpers import doc_examples

from abnfc import backends
from abnfc.cli import main

LANGUAGE_NAMES = doc_examples.LANGUAGE_NAMES  # a backend added to the registry is named there, then in the texts


def test_the_help_names_the_backends_of_the_registry(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert ", ".join(backends.names()) in " ".join(capsys.readouterr().out.split())


def test_the_texts_name_the_backends_of_the_registry():
    assert set(LANGUAGE_NAMES) == set(backends.names()), "name the new backend in LANGUAGE_NAMES, then in the texts"
    description = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["description"]
    texts = {"pyproject.toml's description": description, "README.md": (ROOT / "README.md").read_text("utf-8")}
    for where, text in texts.items():
        missing = [language for language in LANGUAGE_NAMES.values() if not re.search(rf"\b{language}\b", text)]
        assert not missing, f"{where} does not name {missing}"


def test_the_site_names_the_backends_of_the_registry():
    """The site's home page names each backend, and the validators page shows the table that the
    site's hook makes from the registry."""
    home = (ROOT / "docs" / "index.md").read_text("utf-8")
    missing = [language for language in LANGUAGE_NAMES.values() if not re.search(rf"\b{language}\b", home)]
    assert not missing, f"docs/index.md does not name {missing}"
    validators = (ROOT / "docs" / "validators.md").read_text("utf-8")
    assert "<!-- abnfc: backends -->" in validators
    assert f"(default `{','.join(backends.DEFAULT_LANGUAGES)}`)" in validators
    table = import_file(ROOT / "docs" / "hooks.py").backends_table()
    assert all(f"| `{name}` |" in table for name in backends.names())
