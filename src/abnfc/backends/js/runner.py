"""Load rendered JavaScript: one Node.js process runs the modules of a batch of grammars,
driven over pipes by ``driver.mjs`` (one JSON request and answer per line), and each module is
wrapped with the interface of the generated Python module.

A pushdown validator's module takes a depth limit: ``max_depth`` here, as in the Python module
(passed on as the module's ``maxDepth``; ``math.inf`` lifts it).  Its NestingError comes back as
:class:`NestingError`, with the module's message and offset.
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ...automata.pushdown import NestingError as ReferenceNestingError
from ...errors import AbnfError
from ...i18n import _

BATCH = 2000  # inputs per request


class NestingError(ReferenceNestingError, ValueError):
    """A JavaScript pushdown validator's NestingError: the input nests deeper than its depth
    limit.  Caught as the reference's (:class:`abnfc.automata.pushdown.NestingError`) or as the
    generated Python module's (a ValueError); the message is the JavaScript module's own."""

    def __init__(self, message: str, offset: int, limit: int):
        Exception.__init__(self, message)
        self.offset = offset
        self.limit = limit


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


class NodeProcess:
    """A Node.js process serving driver.mjs; requests are answered in order."""

    def __init__(self, folder: Path):
        driver = folder / "abnfc-driver.mjs"
        driver.write_text(resources.files("abnfc.backends.js").joinpath("driver.mjs").read_text("utf-8"),
                          encoding="utf-8")
        self.process = subprocess.Popen([node(), str(driver)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.lock = threading.Lock()

    def ask(self, **request: Any) -> dict:
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None:
            raise AbnfError.at(None, "the Node.js driver has no pipes")
        with self.lock:
            stdin.write(json.dumps(request) + "\n")
            stdin.flush()
            line = stdout.readline()
        if not line:
            raise AbnfError.at(None, f"the Node.js driver exited (status {self.process.poll()})")
        reply = json.loads(line)
        if "nesting" in reply:
            raise NestingError(reply["error"], reply["nesting"]["offset"], reply["nesting"]["limit"])
        if "error" in reply:
            raise RuntimeError(f"JavaScript validator: {reply['error']}")
        return reply

    def __del__(self):
        process = getattr(self, "process", None)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[JsValidator]:
    process = NodeProcess(folder)
    validators = []
    for files in file_sets:
        [(name, text)] = files.items()
        (folder / name).write_text(text, encoding="utf-8")
        module = process.ask(op="load", path=str(folder / name))["module"]
        validators.append(JsValidator(process, module))
    return validators


def _hex(data) -> str:
    if isinstance(data, str):
        raise TypeError("expected bytes, got str: pass bytes (for example text.encode('utf-8'))")
    return bytes(data).hex()


class JsValidator:
    """A grammar's generated JavaScript module, run by Node.js."""

    NestingError = NestingError  # what a pushdown validator raises, as the Python module's attribute

    def __init__(self, process: NodeProcess, module: int):
        self.process = process
        self.module = module

    # max_depth: a pushdown validator's depth limit (None: the module's default); a regular
    # validator ignores it.
    def is_valid(self, data, max_depth: float | None = None) -> bool:
        return bool(self.process.ask(op="is_valid", module=self.module, hex=_hex(data),
                                     **_depth(max_depth))["result"])

    def first_error(self, data, max_depth: float | None = None) -> int | None:
        return self.process.ask(op="first_error", module=self.module, hex=_hex(data),
                                **_depth(max_depth))["result"]

    def first_errors(self, inputs: Sequence[bytes], max_depth: float | None = None) -> list[int | None]:
        found: list[int | None] = []
        for start in range(0, len(inputs), BATCH):
            batch = [_hex(data) for data in inputs[start:start + BATCH]]
            found += self.process.ask(op="first_errors", module=self.module, hex=batch,
                                      **_depth(max_depth))["result"]
        return found

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        reply = self.process.ask(op="expected_bytes", module=self.module, state=state)
        return [(lo, hi) for lo, hi in reply["result"]]

    def Validator(self, max_depth: float | None = None) -> JsStream:
        return JsStream(self.process, self.process.ask(op="new", module=self.module, **_depth(max_depth))["stream"])


class JsStream:
    """The module's incremental ``Validator``, with the generated Python module's interface."""

    def __init__(self, process: NodeProcess, stream: int):
        self.process = process
        self.stream = stream

    def feed(self, chunk) -> bool:
        return bool(self.process.ask(op="feed", stream=self.stream, hex=_hex(chunk))["result"])

    def _status(self) -> dict:
        return self.process.ask(op="status", stream=self.stream)

    @property
    def complete(self) -> bool:
        return bool(self._status()["complete"])

    def first_error(self) -> int | None:
        return self._status()["first_error"]

    def expected(self) -> list[tuple[int, int]]:
        return [(lo, hi) for lo, hi in self._status()["expected"]]

    @property
    def state(self) -> int:
        return int(self._status()["state"])

    @property
    def offset(self) -> int:
        return int(self._status()["offset"])

    @property
    def depth(self) -> int:
        """The number of nested parts open (a pushdown validator's only)."""
        status = self._status()
        if "depth" not in status:
            raise AttributeError("depth: the validator of a regular grammar has no stack")
        return int(status["depth"])
