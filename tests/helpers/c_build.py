"""C builds for the tests: plans from grammar text, builds of a harness from tests/c with gcc (or
clang), record files of inputs and the harness's answers."""
from __future__ import annotations

import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import compile_text

from abnfc.automata.dfa import Dfa
from abnfc.backends import Header, make_tables
from abnfc.backends.c.plan import CPlan, lower
from abnfc.backends.c.render import render

HARNESS_DIR = Path(__file__).resolve().parents[1] / "c"
GCC = shutil.which("gcc") or "gcc"  # required: a missing gcc fails the C tests plainly
GXX = shutil.which("g++")
CLANG = shutil.which("clang")  # optional: the C tests also build with it where it is installed


def tool(path: str | None) -> str:
    """An optional tool's path, in a test that skips where it is missing."""
    assert path is not None, "the test should have been skipped"
    return path

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wsign-conversion",
          "-Wshadow", "-Werror", "-O2"]
SANITIZE = ["-std=c99", "-g", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer"]

needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc not found")


@dataclass(frozen=True)
class Generated:
    """A grammar's minimal DFA, its plan and the C files written for it."""

    minimal: Dfa
    plan: CPlan
    folder: Path

    @property
    def prefix(self) -> str:
        return self.plan.prefix

    @property
    def source(self) -> Path:
        return self.folder / f"{self.prefix}.c"

    @property
    def header(self) -> Path:
        return self.folder / f"{self.prefix}.h"


def make_plan(text: str, prefix: str, start: str | None = None, grammar_file: str = "grammars/g.abnf",
              strategy: str = "auto") -> tuple[Dfa, CPlan]:
    compiled = compile_text(text, start)
    header = Header(grammar_file, text, "0" * 64, compiled.resolved.start_name,
                    f"abnfc compile {grammar_file} --out generated")
    tables = make_tables(compiled.minimal, header)
    return compiled.minimal, lower(tables, {"prefix": prefix, "strategy": strategy})


def generate(folder: Path, text: str, prefix: str, start: str | None = None,
             grammar_file: str = "grammars/g.abnf", strategy: str = "auto") -> Generated:
    minimal, plan = make_plan(text, prefix, start, grammar_file, strategy)
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in render(plan).items():
        (folder / name).write_text(body, encoding="utf-8")
    return Generated(minimal, plan, folder)


def api_defines(gen: Generated) -> list[str]:
    """The harness names the API through PFX and MPFX (the prefix for functions and for macros)
    and HEADER (the header to include)."""
    return [f"-DPFX={gen.prefix}", f"-DMPFX={gen.plan.macro}", f'-DHEADER="{gen.header.name}"',
            f"-I{gen.folder}"]


def build(gen: Generated, harness: str, output: Path, flags: list[str], link_source: bool = True,
          compiler: str | None = None) -> Path:
    """Compile a harness from tests/c with the generated source; returns the executable."""
    sources = [str(HARNESS_DIR / harness)] + ([str(gen.source)] if link_source else [])
    command = [compiler or GCC, *flags, *api_defines(gen), "-o", str(output), *sources]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout}{result.stderr}"
    return output


def write_records(path: Path, inputs: list[bytes]) -> Path:
    """Records for check_records.c: a 4-byte little-endian length, then the bytes."""
    with path.open("wb") as stream:
        for data in inputs:
            stream.write(struct.pack("<I", len(data)))
            stream.write(data)
    return path


def run_records(binary: Path, records: Path, timeout: float = 300) -> list[int | None]:
    """First-error offsets the harness reports, one per record (None: all of it matches)."""
    result = subprocess.run([str(binary), str(records)], capture_output=True, text=True, timeout=timeout)
    output = result.stdout[-4000:] + result.stderr[-4000:]
    assert result.returncode == 0, f"{binary.name} failed ({result.returncode}):\n{output}"
    return [None if word == "-" else int(word) for word in result.stdout.split()]
