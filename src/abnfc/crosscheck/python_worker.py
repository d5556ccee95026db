"""The child process that runs a ``--python`` function for ``abnfc crosscheck``, speaking
hex-lines: one input per line in hex on standard input, ``1`` or ``0`` per line back.

The function runs here, not in abnfc, so that nothing it does can end abnfc or pass for a
verdict: an exit, an import that fails, a closed descriptor, a signal or a hang ends this
process, and abnfc reports the fault naming the function (:class:`.programs.PythonFunction`).
The answers go through a private copy of the standard output descriptor, and descriptor 1
becomes standard error, so that what the function prints or closes cannot garble them.

    python -m abnfc.crosscheck.python_worker MODULE:FUNCTION
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from ..errors import AbnfError
from ..i18n import LOCALES, _, use
from .programs import load_function

FLUSH_EVERY = 1024  # answers: fewer writes than one a line ...
FLUSH_AFTER = 0.1  # seconds: ... while abnfc still sees progress when the function is slow


def serve(function: Callable[[bytes], object], answers: int) -> None:
    written: list[bytes] = []
    flushed = time.monotonic()
    for line in sys.stdin.buffer:
        data = bytes.fromhex(line.decode("ascii"))
        try:
            verdict = _verdict(function, data)
        except BaseException as error:  # SystemExit, KeyboardInterrupt: the function ends the run
            _write_all(answers, b"".join(written))
            print(_("on input {input} it raised {error!r}").format(input=data.hex(" ").upper() or _("(empty)"),
                                                                   error=error), file=sys.stderr)
            raise SystemExit(3) from None
        written.append(b"1\n" if verdict else b"0\n")
        if len(written) >= FLUSH_EVERY or time.monotonic() - flushed >= FLUSH_AFTER:
            _write_all(answers, b"".join(written))
            written.clear()
            flushed = time.monotonic()
    _write_all(answers, b"".join(written))


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _verdict(function: Callable[[bytes], object], data: bytes) -> bool:
    """A bool (or int) result is the verdict, an exception means rejected, and any other result
    means accepted, because the function returned."""
    try:
        result = function(data)
    except Exception:
        return False
    return bool(result) if isinstance(result, (bool, int)) else True


def main(argv: list[str]) -> int:
    """``python -m abnfc.crosscheck.python_worker MODULE:FUNCTION [LOCALE]``: serve the function,
    its messages in LOCALE (the locale of the abnfc that started it)."""
    if len(argv) > 2 and argv[2] in LOCALES:
        use(argv[2])
    answers = os.dup(1)
    os.dup2(2, 1)
    try:
        function = load_function(argv[1])
    except AbnfError as error:
        print(error.diagnostics[0].message, file=sys.stderr)
        return 2
    except BaseException as error:  # SystemExit while importing: the module cannot be used
        print(_("importing it raised {error!r}").format(error=error), file=sys.stderr)
        return 2
    serve(function, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
