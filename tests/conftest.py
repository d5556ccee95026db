"""Shared helpers: grammars compiled once per test run, validators loaded through the backends'
runners, the repository's UTF-8 conformance vectors.

Tests read nothing outside the repository.  The tiers (tests/README.md): ``-m quick`` (the
tests tiers.py names, marked here), ``-m "not slow"``, ``-m static``, and the full run.
"""
from __future__ import annotations

import functools
import importlib.util
import shutil
import sys
import types
from pathlib import Path

import pytest
import tiers
from helpers.paths import DATA, ROOT, UTF8_GRAMMAR

import abnfc
from abnfc import backends
from abnfc.frontend.source import Grammar
from abnfc.pipeline import DEFAULT_LIMITS, Compilation, Compiled, Limits, load_validators

LANGUAGES = backends.names()
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the quick tier's tests and the static checks, as tiers.py lists them (before ``-m``
    selects: pytest's own selection runs after this conftest's hook)."""
    for item in items:
        path = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
        if path in tiers.STATIC:
            item.add_marker(pytest.mark.static)
        function = getattr(item, "originalname", item.name)
        if item.get_closest_marker("slow") is None and tiers.is_named(tiers.quick_names(path), function, item.name):
            item.add_marker(pytest.mark.quick)


# How a grammar text is read: its encoding (None: chosen from the grammar) and the grammar files
# it imports (paths relative to the repository).
Setup = tuple[str | None, tuple[str, ...]]
PLAIN: Setup = (None, ())


@functools.cache
def grammar_from_text(text: str, name: str = "g.abnf", setup: Setup = PLAIN) -> Grammar:
    encoding, imports = setup
    return abnfc.load_grammar(text=text, name=name, encoding=encoding,
                              imports=[ROOT / path for path in imports])


def compile_text(text: str, start: str | None = None, limits: Limits = DEFAULT_LIMITS,
                 setup: Setup = PLAIN) -> Compiled:
    """Each grammar is compiled once per test run, however many tests use it (the arguments are
    passed on positionally, so the cache sees one key however they were given)."""
    return _compile_text(text, start, limits, setup)


def _compile_text(text: str, start: str | None, limits: Limits, setup: Setup) -> Compiled:
    return compilation_of_text(text, start, limits, setup).compiled


@functools.lru_cache(maxsize=4096)
def compilation_of_text(text: str, start: str | None = None, limits: Limits = DEFAULT_LIMITS,
                        setup: Setup = PLAIN) -> Compilation:
    """The compilation of grammar ``text`` (its stages run once per test run, when first asked)."""
    return Compilation(grammar_from_text(text, setup=setup), start, limits)


def files_for(text: str, language: str, prefix: str = "g", start: str | None = None,
              limits: Limits = DEFAULT_LIMITS, options: dict | None = None, setup: Setup = PLAIN) -> dict[str, str]:
    return compilation_of_text(text, start, limits, setup).files([language], prefix, "test",
                                                                  options={language: options or {}})


def validators(texts: list[str], language: str, limits: Limits = DEFAULT_LIMITS,
               starts: list[str | None] | None = None, setups: list[Setup] | None = None
               ) -> list[backends.Validator]:
    """One validator per grammar text (and start rule), all built in one go (one compiler run
    for C, one Node.js process for JavaScript)."""
    missing = missing_toolchain(language)
    if missing:
        pytest.skip(missing)
    starts = starts or [None] * len(texts)
    setups = setups or [PLAIN] * len(texts)
    file_sets = [files_for(text, language, f"g{index}", start, limits, setup=setup)
                 for index, (text, start, setup) in enumerate(zip(texts, starts, setups, strict=True))]
    return load_validators(file_sets, language)


def missing_toolchain(language: str) -> str | None:
    """Why ``language``'s validators cannot be built on this machine (a compiler it needs is not
    installed), or None: the tests that run every backend skip that one, saying so."""
    if language == "rust":
        from helpers.rust_tools import rust_problem
        return rust_problem()
    if language == "go":
        return None if shutil.which("go") else "the Go toolchain is not installed (apt-get install golang-go)"
    return None


def python_module(text: str, start: str | None = None, name: str = "g") -> types.ModuleType:
    """The generated Python validator for grammar ``text``."""
    files = compilation_of_text(text, start, Limits(), PLAIN).files(["python"], name, "test")
    [module] = load_validators([files], "python")
    return module  # type: ignore[return-value]


def utf8_vectors() -> list[tuple[bytes, bool, str]]:
    """The UTF-8 conformance vectors kept in tests/data: (bytes, valid per the file, note)."""
    rows = []
    lines = (DATA / "utf8-vectors.tsv").read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        hex_text, valid, _source, note = line.split("\t")
        rows.append((bytes.fromhex(hex_text), valid == "1", note))
    return rows


def decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@pytest.fixture(scope="session")
def utf8_compiled() -> Compiled:
    return abnfc.compile_grammar(UTF8_GRAMMAR)


def import_file(path: Path) -> types.ModuleType:
    """Import a Python file under a private name, outside sys.modules, writing no bytecode beside
    it (a __pycache__ in generated/ is not what compile writes there)."""
    spec = importlib.util.spec_from_file_location(f"_test_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes
    return module


@pytest.fixture(scope="session")
def utf8_module() -> types.ModuleType:
    """The committed generated/utf8.py (a separate test checks it is up to date)."""
    return import_file(ROOT / "generated" / "utf8.py")


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the test from the repository's root, so that paths like grammars/utf8.abnf work."""
    monkeypatch.chdir(ROOT)
