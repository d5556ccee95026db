"""Load rendered JavaScript: one Node.js process runs the modules of a batch of grammars,
driven over pipes by ``driver.mjs`` (one JSON request and answer per line), and each module is
wrapped with the interface of the generated Python module.

A pushdown validator's module takes a depth limit: ``max_depth`` here, as in the Python module
(passed on as the module's ``maxDepth``; ``math.inf`` lifts it).  Its NestingError comes back as
:class:`NestingError`, with the module's message and offset.
"""
from __future__ import annotations

import math
import shutil
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ...errors import AbnfError
from ...i18n import _
from .. import Validator
from ..driver import DriverStream, JsonDriver, NestingError, hex_of

BATCH = 2000  # inputs per request


def _depth(max_depth: float | None) -> dict[str, Any]:
    """The request field of a depth limit: none for the module's default, null for no limit
    (JSON has no Infinity)."""
    if max_depth is None:
        return {}
    return {"max_depth": None if math.isinf(max_depth) else int(max_depth)}


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise AbnfError.at(None, _("Node.js ('node') was not found; it runs the JavaScript backend's "
                                   "validators (install it, for example with 'apt-get install nodejs')"))
    return found


def start_node(folder: Path) -> JsonDriver:
    """A Node.js process serving driver.mjs."""
    driver = folder / "abnfc-driver.mjs"
    driver.write_text(resources.files("abnfc.backends.js").joinpath("driver.mjs").read_text("utf-8"),
                      encoding="utf-8")
    return JsonDriver([node(), str(driver)], "JavaScript")


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[JsValidator]:
    process = start_node(folder)
    validators = []
    for files in file_sets:
        [(name, text)] = files.items()
        (folder / name).write_text(text, encoding="utf-8")
        module = process.ask(op="load", path=str(folder / name))["module"]
        validators.append(JsValidator(process, module))
    return validators


class JsValidator(Validator):
    """A grammar's generated JavaScript module, run by Node.js."""

    NestingError = NestingError  # what a pushdown validator raises, as the Python module's attribute

    def __init__(self, process: JsonDriver, module: int):
        self.process = process
        self.module = module

    # max_depth: a pushdown validator's depth limit (None: the module's default); a regular
    # validator ignores it.
    def is_valid(self, data, max_depth: float | None = None) -> bool:
        return bool(self.process.ask(op="is_valid", module=self.module, hex=hex_of(data),
                                     **_depth(max_depth))["result"])

    def first_error(self, data, max_depth: float | None = None) -> int | None:
        return self.process.ask(op="first_error", module=self.module, hex=hex_of(data),
                                **_depth(max_depth))["result"]

    def first_errors(self, inputs: Sequence[bytes], max_depth: float | None = None) -> list[int | None]:
        found: list[int | None] = []
        for start in range(0, len(inputs), BATCH):
            batch = [hex_of(data) for data in inputs[start:start + BATCH]]
            found += self.process.ask(op="first_errors", module=self.module, hex=batch,
                                      **_depth(max_depth))["result"]
        return found

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        reply = self.process.ask(op="expected_bytes", module=self.module, state=state)
        return [(lo, hi) for lo, hi in reply["result"]]

    def Validator(self, max_depth: float | None = None) -> JsStream:
        return JsStream(self.process, self.process.ask(op="new", module=self.module, **_depth(max_depth))["stream"])


class JsStream(DriverStream):
    """The module's incremental ``Validator``, with the generated Python module's interface."""

    def __init__(self, process: JsonDriver, stream: int):
        self.process = process
        self.stream = stream

    def feed(self, chunk) -> bool:
        return bool(self.process.ask(op="feed", stream=self.stream, hex=hex_of(chunk))["result"])

    def _status(self) -> dict:
        return self.process.ask(op="status", stream=self.stream)

    def first_error(self) -> int | None:
        return self._status()["first_error"]

    def expected(self) -> list[tuple[int, int]]:
        return [(lo, hi) for lo, hi in self._status()["expected"]]
