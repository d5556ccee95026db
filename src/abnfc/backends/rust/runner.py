"""Load rendered Rust: the modules of a batch of grammars are built into one program with one
``rustc`` run, which is driven over pipes (``templates/driver.rs.j2``: one request and answer
per line, byte strings in hex), and each module is wrapped with the interface of the generated
Python module.

Building is what costs: one program for the whole batch, so that a test suite pays for one
compiler run, at ``-C opt-level=1`` (which builds a few times faster than ``-O`` and runs the
small inputs of tests as fast); a batch of more than 4 MB of source (a suite's hundreds of
grammars, each with its 64 KiB pair table) is built at ``opt-level=0``, three times faster
again, which also checks every addition for overflow as it runs.  ``rustc`` is ``$RUSTC`` if
set, else found on ``PATH``, else in ``~/.cargo/bin``.

A pushdown validator (a recursive grammar's; its module defines ``NestingError``) is wrapped as
the generated Python module is: ``max_depth`` where that module takes it (None: the default,
100,000; ``math.inf``: no limit), :class:`NestingError` past the limit, ``depth`` on the
incremental validator.
"""
from __future__ import annotations

import functools
import math
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...errors import AbnfError
from ...i18n import _
from .. import Validator
from ..driver import DriverProcess, NestingError, hex_of
from ..templating import render_template

RUSTC_FLAGS = ["--edition", "2021", "-C", "debuginfo=0"]
LARGE_BATCH = 4_000_000  # characters of source: past this a batch is built without optimization
BATCH = 2000  # inputs per request


MIN_RUST = (1, 88)  # the generated modules' oldest Rust


def rustc() -> str:
    """The Rust compiler's path: ``$RUSTC`` as given, or the one :func:`find_tool` picks;
    AbnfError when there is none, or when the one picked is older than :data:`MIN_RUST`."""
    chosen = os.environ.get("RUSTC")
    found = find_tool("rustc", chosen)
    if found is None:
        raise AbnfError.at(None, _("the Rust compiler ('rustc') was not found on PATH or in ~/.cargo/bin; "
                                   "it builds the Rust backend's validators (install it from https://rustup.rs)"))
    version = None if chosen else rust_version(found)
    if version is not None and version < MIN_RUST:
        raise AbnfError.at(None, _("the Rust compiler {path} is Rust {found}, older than Rust {needed}, which the "
                                   "generated modules need (install a newer one from https://rustup.rs, or name "
                                   "one with RUSTC)").format(path=found, found=".".join(map(str, version)),
                                                               needed=".".join(map(str, MIN_RUST))))
    return found


def find_tool(name: str, chosen: str | None = None) -> str | None:
    """A Rust tool: ``chosen`` if given and found; else the first of ``name`` on PATH and in
    ~/.cargo/bin whose folder's rustc is at least :data:`MIN_RUST` (a distribution's older
    rustc can come first on PATH, rustup's in ~/.cargo/bin); else the first of them found."""
    if chosen and shutil.which(chosen):
        return shutil.which(chosen)
    cargo_home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    in_cargo_home = cargo_home / "bin" / name
    on_path = shutil.which(name)
    found = [path for path in (on_path, str(in_cargo_home)) if path and os.access(path, os.X_OK)]
    recent = [path for path in found if (rust_version(str(Path(path).parent / "rustc")) or (0,)) >= MIN_RUST]
    return (recent or found)[0] if found else None


@functools.cache
def rust_version(rustc_path: str) -> tuple[int, ...] | None:
    """``rustc --version``'s major and minor numbers, or None where it does not run or say."""
    try:
        said = subprocess.run([rustc_path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"rustc (\d+)\.(\d+)", said)
    return (int(match[1]), int(match[2])) if match else None


def build(file_sets: Sequence[Mapping[str, str]], folder: Path,
          flags: Sequence[str] | None = None) -> tuple[Path, list[str]]:
    """Writes the modules and the driver into ``folder`` and builds them (``flags``: rustc's, by
    default chosen by the batch's size): the program and the modules' names, in order."""
    if flags is None:
        size = sum(len(text) for files in file_sets for text in files.values())
        flags = [*RUSTC_FLAGS, "-C", f"opt-level={0 if size > LARGE_BATCH else 1}"]
    names, pushdown = [], []
    for files in file_sets:
        [(name, text)] = files.items()
        (folder / name).write_text(text, encoding="utf-8")
        names.append(name.removesuffix(".rs"))
        pushdown.append("pub struct NestingError" in text)
    modules = [{"name": name, "pushdown": found} for name, found in zip(names, pushdown, strict=True)]
    main = folder / "abnfc_driver.rs"
    main.write_text(render_template("abnfc.backends.rust", "driver.rs.j2", modules=modules), encoding="utf-8")
    program = folder / "abnfc_driver"
    result = subprocess.run([rustc(), *flags, "-o", str(program), str(main)], capture_output=True, text=True)
    if result.returncode != 0:
        raise AbnfError.at(None, f"rustc failed on the generated code:\n{result.stderr[-4000:]}")
    return program, names


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[RustValidator]:
    program, modules = build(file_sets, folder)
    process = WordDriver([str(program)], "Rust", encoding="ascii")
    return [RustValidator(process, index) for index in range(len(modules))]


def _depth(max_depth: float | None) -> str:
    """A depth limit as the driver reads it: the module's default, none, or a number."""
    if max_depth is None:
        return "d"
    return "u" if math.isinf(max_depth) else str(int(max_depth))


class WordDriver(DriverProcess):
    """The Rust driver's protocol: words separated by spaces; an answer starting with ``!`` is an
    error (``!N offset limit message``: past the depth limit)."""

    def ask(self, *words: object) -> str:
        line = self.exchange(" ".join(map(str, words)))
        if line.startswith("!N "):
            _, offset, limit, message = line.split(" ", 3)
            raise NestingError(message, int(offset), int(limit))
        if line.startswith("!"):
            raise RuntimeError(f"Rust driver: {line[1:].strip()}")
        return line


def _hex(data) -> str:
    """An input as the driver reads it: hexadecimal, ``-`` for the empty input (a word)."""
    return hex_of(data) or "-"


def _offset(word: str) -> int | None:
    return None if word == "-" else int(word)


def _ranges(words: list[str]) -> list[tuple[int, int]]:
    return [(int(word[:2], 16), int(word[3:], 16)) for word in words]


class RustValidator(Validator):
    """A grammar's generated Rust module, run in the driver program."""

    NestingError = NestingError  # what a pushdown validator raises, as the Python module's attribute

    def __init__(self, process: WordDriver, module: int):
        self.process = process
        self.module = module

    # max_depth: a pushdown validator's depth limit (None: the module's default); a regular
    # validator ignores it.
    def is_valid(self, data, max_depth: float | None = None) -> bool:
        return self.process.ask("V", self.module, _depth(max_depth), _hex(data)) == "1"

    def first_error(self, data, max_depth: float | None = None) -> int | None:
        return _offset(self.process.ask("F", self.module, _depth(max_depth), _hex(data)))

    def first_errors(self, inputs: Sequence[bytes], max_depth: float | None = None) -> list[int | None]:
        found: list[int | None] = []
        for start in range(0, len(inputs), BATCH):
            batch = [_hex(data) for data in inputs[start:start + BATCH]]
            if batch:
                reply = self.process.ask("F", self.module, _depth(max_depth), *batch)
                found += [_offset(word) for word in reply.split(" ")]
        return found

    def validities(self, inputs: Sequence[bytes]) -> list[bool]:
        """``is_valid`` of each input, in batches."""
        found: list[bool] = []
        for start in range(0, len(inputs), BATCH):
            batch = [_hex(data) for data in inputs[start:start + BATCH]]
            if batch:
                found += [word == "1" for word in self.process.ask("V", self.module, "d", *batch).split(" ")]
        return found

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        return _ranges(self.process.ask("E", self.module, state).split())

    def every_string(self, length: int) -> str:
        """One character per byte string of ``length`` (at most 3) bytes, in order: its first
        error (``-`` for None, else the digit), ``!`` where ``is_valid`` or a stream fed one byte at
        a time disagrees; the driver runs them all."""
        return self.process.ask("A", self.module, length)

    def instance(self) -> str:
        """What ``is_valid`` and ``first_error`` run on long inputs: ``avx2`` (the window test),
        ``scalar`` (the strategy's loop alone) or ``pushdown``."""
        return self.process.ask("I", self.module)

    def Validator(self, max_depth: float | None = None) -> RustStream:
        return RustStream(self.process, int(self.process.ask("N", self.module, _depth(max_depth))))


class RustStream:
    """The module's incremental ``Validator``, with the generated Python module's interface."""

    def __init__(self, process: WordDriver, stream: int):
        self.process = process
        self.stream = stream

    def feed(self, chunk) -> bool:
        return self.process.ask("D", self.stream, _hex(chunk)) == "1"

    def _status(self) -> list[str]:
        return self.process.ask("S", self.stream).split()

    @property
    def complete(self) -> bool:
        return self._status()[0] == "1"

    def first_error(self) -> int | None:
        return _offset(self._status()[1])

    def expected(self) -> list[tuple[int, int]]:
        return _ranges(self._status()[5:])

    @property
    def state(self) -> int:
        return int(self._status()[2])

    @property
    def offset(self) -> int:
        return int(self._status()[3])

    @property
    def depth(self) -> int:
        """The number of nested parts open (always 0 for a regular grammar's validator)."""
        return int(self._status()[4])
