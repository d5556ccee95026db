"""Load rendered Go: the packages of a batch of grammars are built into one program, which a
driver (``templates/driver.go.j2``) serves over pipes, one JSON request and answer per line as
the JavaScript runner's; each package is wrapped with the interface of the generated Python
module.

Building is what costs, so a batch is one module (``abnfcrun``, each grammar a package of it)
and one ``go build``, which compiles the packages in parallel and links once.  The build is
offline and self-contained: no proxy, no toolchain download, no network (GOPROXY=off,
GOTOOLCHAIN=local, GOFLAGS=-mod=mod), cgo off (no C compiler needed), and its cache
(``$GOCACHE``, else a folder in the system's temporary folder) outlives the run, so an
unchanged grammar is not compiled again.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import AbnfError
from ...i18n import _
from .. import Validator
from ..driver import DriverStream, JsonDriver, NestingError, hex_of
from ..templating import render_template

MODULE = "abnfcrun"
BATCH = 2000  # inputs per request
PUSHDOWN_MARK = "func NewValidatorDepth("  # what only a pushdown validator's package defines
WINDOW_MARK = "\nvar PureGo = "  # what only a package with a window test defines


def _depth(max_depth: float | None) -> dict[str, Any]:
    """The request field of a depth limit: none for the package's default, null for no limit."""
    if max_depth is None:
        return {}
    return {"max_depth": None if math.isinf(max_depth) else int(max_depth)}


def go() -> str:
    found = shutil.which("go")
    if found is None:
        raise AbnfError.at(None, _("the Go toolchain ('go') was not found; it builds the Go backend's "
                                   "validators (install it, for example with 'apt-get install golang-go')"))
    return found


def cache_folder() -> Path:
    """Where builds are cached between runs, unless $GOCACHE says."""
    user = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"abnfc-go-cache-{user}"


def environment() -> dict[str, str]:
    """The go command's environment: offline, local toolchain, a persistent build cache."""
    env = dict(os.environ)
    env.update(GOFLAGS="-mod=mod", GOTOOLCHAIN="local", GOPROXY="off", GOWORK="off", GO111MODULE="on",
               CGO_ENABLED="0", GOSUMDB="off")
    env.setdefault("GOCACHE", str(cache_folder() / "build"))
    if not env.get("GOPATH") and not env.get("HOME"):  # go needs one, even with no dependencies
        env["GOPATH"] = str(cache_folder() / "path")
    return env


def build(file_sets: Sequence[Mapping[str, str]], folder: Path) -> tuple[Path, list[tuple[str, bool, bool]]]:
    """Write the packages and the driver as one module in ``folder`` and build it; returns the
    program and the packages' names, in order, each with whether it is a pushdown validator and
    whether it has a window test (and so ``PureGo``)."""
    module = folder / MODULE
    module.mkdir()
    (module / "go.mod").write_text(f"module {MODULE}\n\ngo 1.19\n", encoding="utf-8")
    packages = []
    for files in file_sets:
        # <prefix>.go, and for a window test <prefix>_amd64.s and the files beside it
        main = min((name for name in files if name.endswith(".go")), key=len)
        package = main.removesuffix(".go")
        (module / package).mkdir()
        for name, text in files.items():
            (module / package / name).write_text(text, encoding="utf-8")
        packages.append((package, PUSHDOWN_MARK in files[main], WINDOW_MARK in files[main]))
    (module / "main.go").write_text(render_template("abnfc.backends.go", "driver.go.j2", packages=packages),
                                    encoding="utf-8")
    program = folder / "abnfc-go-driver"
    result = subprocess.run([go(), "build", "-o", str(program), "."], cwd=module, env=environment(),
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise AbnfError.at(None, _("go build failed on the generated code:\n{output}").format(
            output=(result.stdout + result.stderr)[-4000:]))
    return program, packages


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[GoValidator]:
    program, packages = build(file_sets, folder)
    process = JsonDriver([str(program)], "Go")
    return [GoValidator(process, index, package) for index, (package, _, _) in enumerate(packages)]


def _offset(found: int) -> int | None:
    return None if found < 0 else found


class GoValidator(Validator):
    """A grammar's generated Go package, run in the driver program."""

    NestingError = NestingError  # what a pushdown validator raises, as the Python module's attribute

    def __init__(self, process: JsonDriver, index: int, package: str, pure: bool = False):
        self.process = process
        self.index = index
        self.package = package
        self.pure = pure  # IsValid and FirstError with PureGo set: the byte loop, never the window test

    def pure_go(self) -> GoValidator:
        """The same package with ``PureGo`` set for each call (no change where it has no window test)."""
        return GoValidator(self.process, self.index, self.package, pure=True)

    def _pure(self) -> dict[str, Any]:
        return {"pure": True} if self.pure else {}

    # max_depth: a pushdown validator's depth limit (None: the package's MaxDepth); a regular
    # validator ignores it.
    def is_valid(self, data, max_depth: float | None = None) -> bool:
        return bool(self.process.ask(op="is_valid", g=self.index, hex=hex_of(data), **_depth(max_depth),
                                     **self._pure())["valid"])

    def first_error(self, data, max_depth: float | None = None) -> int | None:
        return self.first_errors([data], max_depth)[0]

    def first_errors(self, inputs: Sequence[bytes], max_depth: float | None = None) -> list[int | None]:
        found: list[int | None] = []
        for start in range(0, len(inputs), BATCH):
            batch = [hex_of(data) for data in inputs[start:start + BATCH]]
            reply = self.process.ask(op="first_errors", g=self.index, hex=batch, **_depth(max_depth), **self._pure())
            found += map(_offset, reply["result"])
        return found

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        return [(lo, hi) for lo, hi in self.process.ask(op="expected_bytes", g=self.index, state=state)["ranges"]]

    def Validator(self, max_depth: float | None = None) -> GoStream:
        return GoStream(self.process, self.process.ask(op="new", g=self.index, **_depth(max_depth))["stream"])


class GoStream(DriverStream):
    """The package's ``Validator``, with the generated Python module's interface."""

    def __init__(self, process: JsonDriver, stream: int):
        self.process = process
        self.stream = stream

    def feed(self, chunk) -> bool:
        return bool(self.process.ask(op="feed", s=self.stream, hex=hex_of(chunk))["valid"])

    def write(self, chunk) -> dict:
        """What Write returns: ``n``, and ``kind`` ("syntax" for a *SyntaxError, "other", or ""
        for none) with its ``offset`` and ``text``."""
        return self.process.ask(op="error", s=self.stream, hex=hex_of(chunk))

    def _status(self) -> dict:
        return self.process.ask(op="status", s=self.stream)

    def first_error(self) -> int | None:
        """As the Python module's: past the depth limit there is no verdict, and NestingError."""
        status = self._status()
        if "too_deep" in status:
            deep = status["too_deep"]
            raise NestingError(deep["text"], deep["offset"], deep["limit"])
        return _offset(status["first_error"])

    def expected(self) -> list[tuple[int, int]]:
        return [(lo, hi) for lo, hi in self._status()["ranges"]]
