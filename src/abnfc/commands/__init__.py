"""The commands of ``abnfc``: one module each, found through :data:`COMMANDS`.

A command module has ``NAME``, ``HELP`` (one line), ``EXAMPLE`` (the epilog of its help),
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status).  It declares its own
arguments, taking shared groups from :mod:`.support.options`, and imports what it runs only
inside ``run``, so that building the command line stays quick.  Beside them, in
:mod:`.support`: :mod:`.support.options` (the shared option groups) and
:mod:`.support.writing` (writing the files a command makes, atomically).
"""
from __future__ import annotations

import argparse
import importlib
from typing import Protocol, cast

# In the order ``abnfc --help`` lists them.
COMMANDS = ("compile", "check", "dfa", "lint", "explain", "railroad", "vectors", "crosscheck", "diff", "learn",
            "duckdb", "fuzz-kit")


class Command(Protocol):
    NAME: str
    HELP: str
    EXAMPLE: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...
    def run(self, args: argparse.Namespace) -> int: ...


def command(name: str) -> Command:
    """The module of command ``name``; KeyError when there is none."""
    if name not in COMMANDS:
        raise KeyError(name)
    return cast(Command, importlib.import_module(module_name(name)))


def module_name(name: str) -> str:
    """The module of command ``name`` (``fuzz-kit``: ``abnfc.commands.fuzz_kit``)."""
    return f"{__name__}.{name.replace('-', '_')}"
