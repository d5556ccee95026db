"""The job of ``abnfc check --records`` (:func:`check_records`), as a function of a typed request.

The inputs are checked first (every file exists and can be read, standard input is open and not
asked for Parquet), so that a mistake is reported before the grammar is read and compiled; then
:func:`abnfc.records.run` chooses the verifier (:func:`.verify.choose`: a cached kernel needs no
grammar parsed at all, else the grammar is read and compiled) and checks each file's records in
turn, printing the invalid ones as they are found and the summary last.
"""
from __future__ import annotations

import errno
import os
import stat
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..i18n import _
from . import run
from .formats import RecordFormat

if TYPE_CHECKING:
    from ..pipeline import Compilation


@dataclass(frozen=True)
class RecordsRequest:
    """Check each record of ``inputs`` (``-``: standard input; none: standard input), read as
    ``records`` says, against the grammar file ``grammar`` (with its ``imports``, ``encoding`` and
    ``start`` rule) with ``engine`` (auto, dfa or interpreter) within the limits of
    :class:`abnfc.pipeline.Limits`; print in ``format`` (text or json), only the invalid records
    (``quiet``) or only how many there are (``count``); CSV fields are split at ``delimiter``."""

    grammar: str
    inputs: tuple[str, ...]
    records: RecordFormat
    max_nfa_states: int
    max_dfa_states: int
    max_work: int
    format: str = "text"
    quiet: bool = False
    count: bool = False
    imports: tuple[str, ...] = ()
    encoding: str | None = None
    start: str | None = None
    engine: str = "auto"
    delimiter: str | None = None


def check_records(request: RecordsRequest) -> int:
    """Every file's records, then the summary; the exit status (0 all valid, 1 an invalid record,
    2 a file that cannot be read as records: then, when found before the work, none is checked)."""
    problems = [problem for name in request.inputs or ("-",) if (problem := _unreadable(name, request.records))]
    if problems:  # before the grammar is read and compiled, which may take long
        for problem in problems:  # no file was read, so no summary (as when every file fails later)
            print(problem, file=sys.stderr)
        return 2
    return run(request, lambda: _compilation(request))


def _compilation(request: RecordsRequest) -> Compilation:
    """The grammar, read and parsed (only when no cached kernel fits)."""
    from ..frontend.source import load
    from ..pipeline import Compilation, Limits

    grammar = load(request.grammar, list(request.imports), request.encoding)
    limits = Limits(request.max_nfa_states, request.max_dfa_states, request.max_work)
    return Compilation(grammar, request.start, limits)


def _unreadable(name: str, form: RecordFormat) -> str:
    """Why ``name`` cannot be read, as reading it would say; "" when it can, as far as can be told
    without opening it (a named pipe opened and closed here would lose what its writer sends)."""
    if name == "-":
        if form.kind == "parquet":
            return _("Parquet cannot be read from standard input; give a file")
        return _("cannot read <stdin>: it is closed") if sys.stdin is None else ""
    try:
        mode = os.stat(name).st_mode
    except OSError as error:
        return _("abnfc: cannot read {name}: {reason}").format(name=name, reason=error.strerror or error)
    if stat.S_ISDIR(mode) or not os.access(name, os.R_OK):
        reason = os.strerror(errno.EISDIR if stat.S_ISDIR(mode) else errno.EACCES)
        return _("abnfc: cannot read {name}: {reason}").format(name=name, reason=reason)
    return ""


__all__ = ["RecordsRequest", "check_records"]
