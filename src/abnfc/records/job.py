"""The job of ``abnfc check --records`` (:func:`check_records`), as a function of a typed request.

The inputs are checked first (every file exists and can be read, standard input is open and
not asked for Parquet), so that a mistake is reported before the grammar is compiled; then the
verifier is chosen (:func:`.verify.choose`: a cached kernel needs no grammar parsed at all, else
the grammar is read and compiled), and each file's records are checked in turn, the invalid ones
printed as they are found and the summary last.
"""
from __future__ import annotations

import errno
import os
import stat
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

from ..i18n import _
from .formats import Block, RecordError, RecordFormat, read_blocks
from .report import Progress, Totals, file_line, json_line, summary, text_line
from .verify import Bad, Choice, Verifier, choose, say_once

if TYPE_CHECKING:
    from ..pipeline import Compilation


@dataclass(frozen=True)
class Output:
    """What to print: JSON Lines or text, the per-file lines left out (quiet), the invalid
    records left out (count)."""

    json: bool
    quiet: bool
    count: bool


@dataclass(frozen=True)
class RecordsRequest:
    """Check each record of ``inputs`` (``-``: standard input), read as ``form``, against the
    grammar file ``grammar`` (with its ``imports``, ``encoding`` and ``start`` rule) with ``engine``
    (auto, dfa or interpreter) within ``limits``, printing as ``output`` says.  The limits are
    :class:`abnfc.pipeline.Limits`'s three numbers, so that a run with a cached kernel imports
    neither the pipeline nor the parser."""

    grammar: str
    inputs: tuple[str, ...]
    form: RecordFormat
    output: Output
    limits: tuple[int, int, int]  # max NFA states, max DFA states, max work
    imports: tuple[str, ...] = ()
    encoding: str | None = None
    start: str | None = None
    engine: str = "auto"


def check_records(request: RecordsRequest) -> int:
    """Every file's records, then the summary; the exit status (0 all valid, 1 an invalid record,
    2 a file that cannot be read as records)."""
    started = time.monotonic()
    output, names = request.output, request.inputs or ("-",)
    problems = [problem for name in names if (problem := _unreadable(name, request.form))]
    if problems:  # before the grammar is compiled, which may take long
        for problem in problems:
            print(problem, file=sys.stderr)
        print(summary(Totals(0, 0, time.monotonic() - started), output.json))
        return 2
    choice = Choice(request.grammar, request.imports, request.encoding, request.start, request.engine,
                    repr(request.limits))
    verifier = choose(choice, lambda: _compilation(request), say_once())
    progress = Progress(_total_size(names))
    status, records, invalid = 0, 0, 0
    for name in names:
        try:
            counted, bad = _check_file(verifier, name, request.form, output, progress, records, invalid)
        except RecordError as error:
            print(error.diagnostics[0].message, file=sys.stderr)
            status = 2
            continue
        except BrokenPipeError:  # the reader of standard output went away: the command line stops quietly
            raise
        except OSError as error:
            print(_("abnfc: cannot read {name}: {reason}").format(name=name, reason=error.strerror or error),
                  file=sys.stderr)
            status = 2
            continue
        finally:
            progress.next_file(name)
        records, invalid = records + counted, invalid + bad
        status = max(status, 1 if bad else 0)
    progress.done()
    print(summary(Totals(records, invalid, time.monotonic() - started), output.json))
    return status


def _compilation(request: RecordsRequest) -> Compilation:
    """The grammar, read and parsed (only when no cached kernel fits)."""
    from ..frontend.source import load
    from ..pipeline import Compilation, Limits

    grammar = load(request.grammar, list(request.imports), request.encoding)
    return Compilation(grammar, request.start, Limits(*request.limits))


def _unreadable(name: str, form: RecordFormat) -> str:
    """Why ``name`` cannot be read, as the message says it; "" when it can (as far as can be told
    without opening it: a named pipe opened and closed here would lose its writer)."""
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


def _check_file(verifier: Verifier, name: str, form: RecordFormat, output: Output, progress: Progress,
                records_before: int, invalid_before: int) -> tuple[int, int]:
    """Check one file; its number of records and of invalid ones."""
    shown = "<stdin>" if name == "-" else name
    records, invalid = 0, 0
    check: Callable[[Block], tuple[int, Any]] = verifier.count if output.count else verifier.errors
    with _opened(name, form) as stream:
        for block, (count, result) in _checked(verifier, check, read_blocks(stream, form, shown)):
            if output.count:
                bad = result + len(block.missing)
            else:
                found = _with_missing(verifier, block, result)
                _show(found, shown, block.number, records, output.json)
                bad = len(found)
            records, invalid = records + count, invalid + bad
            progress.update(records_before + records, invalid_before + invalid, _position(stream))
    if not (output.quiet or output.json):
        print(file_line(shown, records, invalid))
    return records, invalid


def _show(found: list[Bad], name: str, number: Callable[[int, int], int], before: int, json_output: bool) -> None:
    """The invalid records of a block, in one write (``before``: the file's records before it)."""
    if found:
        show = json_line if json_output else text_line
        sys.stdout.write("".join([f"{show(name, number(bad.row, before), bad)}\n" for bad in found]))


def _checked(verifier: Verifier, check: Callable[[Block], tuple[int, Any]],
             blocks: Iterator[Block]) -> Iterator[tuple[Block, tuple[int, Any]]]:
    """Each block with what ``check`` says of it, in order.  The C kernel runs without Python's
    lock, so its blocks are checked on a thread per processor (up to four) while the next ones
    are read, at most two a thread ahead; the other verifiers run Python and check in turn."""
    workers = min(4, os.cpu_count() or 1)
    if not verifier.parallel or workers < 2:
        yield from ((block, check(block)) for block in blocks)
        return
    with ThreadPoolExecutor(workers) as pool:
        pending: deque[tuple[Block, Future[tuple[int, Any]]]] = deque()
        for block in blocks:
            pending.append((block, pool.submit(check, block)))
            if len(pending) >= 2 * workers:
                done, future = pending.popleft()
                yield done, future.result()
        while pending:
            done, future = pending.popleft()
            yield done, future.result()


def _with_missing(verifier: Verifier, block: Block, bad: list[Bad]) -> list[Bad]:
    """A block's invalid records, missing ones included, in order, each with the bytes expected
    at its error."""
    found = [one if one.expected is not None or one.offset is None else
             one._replace(expected=verifier.expected(one.record)) for one in bad]
    if block.missing:
        found += [Bad(index, None, b"", reason, ()) for index, reason in block.missing]
        found.sort(key=lambda one: one.row)
    return found


def _total_size(names: Sequence[str]) -> int | None:
    """The bytes of all the files, or None when one is standard input or not a regular file."""
    try:
        sizes = [os.stat(name) for name in names if name != "-"]
    except OSError:
        return None
    if len(sizes) < len(names) or not all(stat.S_ISREG(size.st_mode) for size in sizes):
        return None
    return sum(size.st_size for size in sizes)


def _position(stream: BinaryIO) -> int | None:
    """How far a file has been read, or None (a pipe)."""
    try:
        return stream.tell()
    except (OSError, ValueError):
        return None


@contextmanager
def _opened(name: str, form: RecordFormat) -> Iterator[BinaryIO]:
    if name != "-":
        with open(name, "rb") as stream:
            yield stream
        return
    if form.kind == "parquet":
        raise RecordError.at(None, _("Parquet cannot be read from standard input; give a file"))
    if sys.stdin is None:
        raise RecordError.at(None, _("cannot read <stdin>: it is closed"))
    yield sys.stdin.buffer


__all__ = ["Output", "RecordsRequest", "check_records"]
