"""A toy backend, shipped apart from abnfc to prove the backend contract: registered only
through the entry-point group ``abnfc.backends`` (tests/test_backend_plugin.py makes a
distribution of it), it writes the minimal DFA as a JSON table through a template of its own,
and its runner walks that table in Python.  Nothing in abnfc names it."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from abnfc.backends import Backend, Naming, Tables, Validator
from abnfc.backends.templating import render_template


@dataclass(frozen=True)
class ToyPlan:
    name: str
    header: tuple[str, ...]
    table: str  # the JSON object, on one line


def lower(tables: Tables, options: Mapping[str, str]) -> ToyPlan:
    table = {"start": tables.start, "dead": tables.dead, "accepting": list(tables.accepting),
             "byte_class": list(tables.byte_class), "rows": [list(state.targets) for state in tables.states]}
    return ToyPlan(options["prefix"], tables.header.lines, json.dumps(table, separators=(",", ":")))


def render(plan: ToyPlan) -> dict[str, str]:
    return {f"{plan.name}.toy.json": render_template("abnfc_toy", "toy.json.j2", plan=plan)}


class ToyValidator(Validator):
    """Walks the JSON table; the interface of the generated Python module."""

    def __init__(self, table: dict):
        self.table = table

    def first_error(self, data: bytes) -> int | None:
        stream = self.Validator()
        stream.feed(data)
        return stream.first_error()

    def is_valid(self, data: bytes) -> bool:
        return self.first_error(data) is None

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        live = [byte for byte in range(256)
                if self.table["rows"][state][self.table["byte_class"][byte]] != self.table["dead"]]
        ranges: list[tuple[int, int]] = []
        for byte in live:
            if ranges and ranges[-1][1] == byte - 1:
                ranges[-1] = (ranges[-1][0], byte)
            else:
                ranges.append((byte, byte))
        return ranges

    def Validator(self) -> ToyStream:
        return ToyStream(self.table)


class ToyStream:
    def __init__(self, table: dict):
        self.table, self.state, self.offset = table, table["start"], 0
        self.error: int | None = None

    def feed(self, chunk: bytes) -> bool:
        for byte in chunk:
            if self.error is not None:
                break
            following = self.table["rows"][self.state][self.table["byte_class"][byte]]
            if following == self.table["dead"]:
                self.error = self.offset
                break
            self.state, self.offset = following, self.offset + 1
        return self.error is None

    @property
    def complete(self) -> bool:
        return self.error is None and self.state in self.table["accepting"]

    def first_error(self) -> int | None:
        if self.error is not None:
            return self.error
        return None if self.state in self.table["accepting"] else self.offset


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[ToyValidator]:
    found = []
    for files in file_sets:
        [(name, text)] = files.items()
        (folder / name).write_text(text, encoding="utf-8")
        body = "\n".join(line for line in (folder / name).read_text(encoding="utf-8").splitlines()
                         if not line.startswith("//"))
        found.append(ToyValidator(json.loads(body)))
    return found


BACKEND = Backend("toy", "a JSON transition table (a test's plug-in)", lower, render, runners,
                  Naming(lambda prefix: (f"{prefix}.toy.json",)))
