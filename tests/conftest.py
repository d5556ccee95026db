"""Shared helpers: compile grammar text, load generated Python modules, find the repo."""
from __future__ import annotations

import types
from pathlib import Path

import pytest

from abnfc import dfa, minimize, nfa
from abnfc.build import Compiled, Loaded, compile_grammar, generate
from abnfc.parse import parse

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UTF8_GRAMMAR = ROOT / "grammars" / "utf8.abnf"


def loaded_from_text(text: str, name: str = "g.abnf") -> Loaded:
    return Loaded(name, text, "0" * 64, parse(text, name))


def compile_text(text: str, start: str | None = None) -> Compiled:
    return compile_grammar(loaded_from_text(text), start)


def python_module(text: str, start: str | None = None, name: str = "g") -> types.ModuleType:
    """The generated Python validator for grammar ``text``, loaded in memory."""
    loaded = loaded_from_text(text)
    files = generate(loaded, compile_grammar(loaded, start), ["python"], name, "test")
    module = types.ModuleType(name)
    exec(compile(files[f"{name}.py"], f"<{name}.py>", "exec"), module.__dict__)
    return module


def load_module_file(path: Path) -> types.ModuleType:
    module = types.ModuleType(path.stem)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


def utf8_vectors() -> list[tuple[bytes, bool, str]]:
    """The shared conformance vectors: (bytes, valid per the file, note)."""
    path = SHARED / "conformance" / "utf8-vectors.tsv"
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
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
    from abnfc.build import load

    return compile_grammar(load(str(UTF8_GRAMMAR)))


@pytest.fixture(scope="session")
def utf8_module() -> types.ModuleType:
    """The committed generated/utf8.py (a separate test checks it is up to date)."""
    return load_module_file(ROOT / "generated" / "utf8.py")


__all__ = ["dfa", "minimize", "nfa"]
