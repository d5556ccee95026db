"""Generated validators run by a program of their own language, one request line in and one answer
line out, in order: what the JavaScript, Go and Rust runners share.

The JavaScript runner starts Node.js with its driver module; the Go and Rust runners build one
program from a batch of generated files and a driver.  Each wraps the answers with the interface
of the generated Python module.  :class:`DriverProcess` owns the program and its pipes (a lock
keeps a request and its answer together when threads share it); :class:`JsonDriver` speaks the JSON
lines of the JavaScript and Go drivers; :class:`NestingError` is what a pushdown validator's
depth limit raises, whichever language ran it.
"""
from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..automata.pushdown import NestingError as ReferenceNestingError
from ..errors import AbnfError
from ..i18n import _


class NestingError(ReferenceNestingError, ValueError):
    """A generated pushdown validator's NestingError: the input nests deeper than its depth limit.
    Caught as the reference's (:class:`abnfc.automata.pushdown.NestingError`) or as the generated
    Python module's (a ValueError); the message is the generated code's own."""

    def __init__(self, message: str, offset: int, limit: int):
        Exception.__init__(self, message)
        self.offset = offset
        self.limit = limit


class DriverProcess:
    """A program answering one line per request line, in order; ``language`` names it in errors."""

    def __init__(self, command: Sequence[str], language: str, encoding: str = "utf-8", cwd: Path | None = None):
        self.language = language
        self.process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        encoding=encoding, cwd=cwd)
        self.lock = threading.Lock()

    def exchange(self, line: str) -> str:
        """The answer to one request line (without its newline)."""
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None:
            raise AbnfError.at(None, f"the {self.language} driver has no pipes")
        with self.lock:
            stdin.write(line + "\n")
            stdin.flush()
            answer = stdout.readline()
        if not answer:
            raise AbnfError.at(None, _("the {language} validators' program exited (status {status})").format(
                language=self.language, status=self.process.poll()))
        return answer.rstrip("\n")

    def __del__(self):
        process = getattr(self, "process", None)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


class JsonDriver(DriverProcess):
    """A driver speaking JSON lines (the JavaScript and Go ones): a request is an object, and so
    is its answer, with ``nesting`` or ``error`` when the validator raised."""

    def ask(self, **request: Any) -> dict:
        reply = json.loads(self.exchange(json.dumps(request)))
        if "nesting" in reply:
            raise NestingError(reply["error"], reply["nesting"]["offset"], reply["nesting"]["limit"])
        if "error" in reply:
            raise RuntimeError(f"{self.language} validator: {reply['error']}")
        return reply


class DriverStream:
    """An incremental Validator a driver runs: what its status answer (``complete``, ``state``,
    ``offset`` and, for a pushdown validator, ``depth``) gives, as the Python module's
    ``Validator`` gives it.  Subclasses ask for the status in their driver's protocol."""

    def _status(self) -> dict:
        raise NotImplementedError

    @property
    def complete(self) -> bool:
        return bool(self._status()["complete"])

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


def hex_of(data) -> str:
    """An input as the drivers take it: hexadecimal; a str is refused as the Python module does."""
    if isinstance(data, str):
        raise TypeError("expected bytes, got str: pass bytes (for example text.encode('utf-8'))")
    return bytes(data).hex()
