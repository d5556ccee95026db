"""``abnfc check --records``: validate each record of a file on its own, at data scale.

Files are read as blocks of records (:mod:`.formats`: lines, a CSV column, a JSON Lines field,
a Parquet column; CSV and JSON Lines split by C readers where there is a compiler), each block
checked with one call of the C batch kernel where the grammar has a DFA (:mod:`.verify`; the
Python validator or the interpreter otherwise), and the invalid records
reported with the bytes expected at their first error (:mod:`.report`).  :mod:`.job` runs it
from a typed request, once the inputs are found readable.

A gzip file is read as the records it holds, and a zstd file where the zstandard package is
installed (:mod:`.compressed`).

Exit status: 0 when every record matches, 1 when one does not (null and missing values count as
invalid), 2 when a file cannot be read as records of its format (the message names the file and,
where it is one record's fault, the record); the other files are still checked, and the records
of a file read before its error count in the totals.  The summary is printed when at least one
file was read to its end.  In text output a file name is printed with its control characters
escaped (``\n``, ``\x1b``), as ``ls`` does, so that a name cannot forge a line or move the cursor.
"""
from __future__ import annotations

import argparse
import os
import stat
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, BinaryIO, Protocol

from ..errors import printable
from ..i18n import _
from ..native.readers import Readers
from ..native.readers import readers as native_readers
from .compressed import READ_ERRORS, decompressed
from .formats import Block, RecordError, RecordFormat, parse_format, read_blocks
from .report import Progress, Totals, file_line, json_line, summary, text_line
from .verify import Bad, Choice, Verifier, choose, say_once


class Options(Protocol):
    """What :func:`run` reads of its request (:class:`.job.RecordsRequest`), read-only."""

    @property
    def grammar(self) -> str: ...

    @property
    def imports(self) -> tuple[str, ...]: ...

    @property
    def encoding(self) -> str | None: ...

    @property
    def start(self) -> str | None: ...

    @property
    def engine(self) -> str: ...

    @property
    def max_nfa_states(self) -> int: ...

    @property
    def max_dfa_states(self) -> int: ...

    @property
    def max_work(self) -> int: ...

    @property
    def inputs(self) -> tuple[str, ...]: ...

    @property
    def records(self) -> RecordFormat: ...

    @property
    def format(self) -> str: ...

    @property
    def quiet(self) -> bool: ...

    @property
    def count(self) -> bool: ...

    @property
    def delimiter(self) -> str | None: ...


def run(args: Options, compilation: Callable[[], object]) -> int:
    """Every file's records, then the summary; the exit status (see :func:`.job.check_records`)."""
    started = time.monotonic()
    form = _with_delimiter(args.records, args.delimiter)
    if form is None:
        return 2
    choice = Choice(args.grammar, tuple(args.imports or ()), args.encoding, args.start, args.engine,
                    (args.max_nfa_states, args.max_dfa_states, args.max_work))
    warn = say_once()
    verifier = choose(choice, compilation, warn)  # type: ignore[arg-type]
    readers = native_readers(warn) if form.kind in ("csv", "jsonl") else None
    output = Output(args.format == "json", args.quiet, args.count)
    names = args.inputs or ["-"]
    progress = Progress(_total_size(names))
    status, tally, read = 0, Tally(), 0
    for name in names:
        try:
            _check_file(verifier, (name, form, readers), output, progress, tally)
            read += 1
        except RecordError as error:
            print(error.diagnostics[0].message, file=sys.stderr)
            status = 2
        except BrokenPipeError:  # the reader of standard output went away: the command line stops quietly
            raise
        except READ_ERRORS as error:
            reason = getattr(error, "strerror", None) or error
            print(_("abnfc: cannot read {name}: {reason}").format(name=printable(name), reason=reason),
                  file=sys.stderr)
            status = 2
        finally:
            progress.next_file(name)
    status = max(status, 1 if tally.invalid else 0)
    progress.done()
    if read:  # after files that could not be read and nothing else, totals would only mislead
        print(summary(Totals(tally.records, tally.invalid, time.monotonic() - started), output.json))
    return status


def _with_delimiter(form: RecordFormat, delimiter: str | None) -> RecordFormat | None:
    """``--records`` with ``--delimiter`` (CSV only); None, said, when it is not CSV."""
    if delimiter is None:
        return form
    if form.kind != "csv":
        print(_("abnfc check: --delimiter needs --records csv:COLUMN"), file=sys.stderr)
        return None
    return replace(form, delimiter=delimiter)


@dataclass(frozen=True)
class Output:
    """What to print: JSON Lines or text, the per-file lines left out (quiet), the invalid
    records left out (count)."""

    json: bool
    quiet: bool
    count: bool


class Tally:
    """The records and invalid ones of every file so far, counted as they are reported, so that
    those of a file that fails later still count."""

    def __init__(self) -> None:
        self.records = 0
        self.invalid = 0


def _check_file(verifier: Verifier, source: tuple[str, RecordFormat, Readers | None], output: Output,
                progress: Progress, tally: Tally) -> None:
    """Check one file (``source``: its name, format and the C readers, if any), adding its records
    and invalid ones to ``tally``."""
    name, form, readers = source
    shown = "<stdin>" if name == "-" else name
    text_name = printable(shown)  # JSON output escapes the name itself
    records, invalid = 0, 0
    check: Callable[[Block], tuple[int, Any]] = verifier.count if output.count else verifier.errors
    with _opened(name, form) as (raw, stream):
        for block, (count, result) in _checked(verifier, check, read_blocks(stream, form, text_name, readers)):
            if output.count:
                bad = result + len(block.missing)
            else:
                found = _with_missing(verifier, block, result)
                _show(found, shown if output.json else text_name, block, records, output.json)
                bad = len(found)
            records, invalid = records + count, invalid + bad
            tally.records, tally.invalid = tally.records + count, tally.invalid + bad
            progress.update(tally.records, tally.invalid, _position(raw))
    if not (output.quiet or output.json):
        print(file_line(text_name, records, invalid))


def _show(found: list[Bad], name: str, block: Block, before: int, json_output: bool) -> None:
    """The invalid records of a block, in one write (``before``: the file's records before it)."""
    if found:
        show = json_line if json_output else text_line
        sys.stdout.write("".join([f"{show(name, block.number(bad.row, before), bad, block.line(bad.row), block.lead)}\n"
                                  for bad in found]))


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
def _opened(name: str, form: RecordFormat) -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The file (for how far it has been read) and its records' bytes, decompressed."""
    shown = "<stdin>" if name == "-" else printable(name)
    if name != "-":
        with open(name, "rb") as stream:
            yield stream, stream if form.kind == "parquet" else decompressed(stream, shown)
        return
    if form.kind == "parquet":
        raise RecordError.at(None, _("Parquet cannot be read from standard input; give a file"))
    if sys.stdin is None:
        raise RecordError.at(None, _("cannot read <stdin>: it is closed"))
    yield sys.stdin.buffer, decompressed(sys.stdin.buffer, shown)


def record_format(text: str) -> RecordFormat:
    """The argparse type of ``--records``."""
    try:
        return parse_format(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{text!r} is not lines, csv:COLUMN, jsonl:FIELD or parquet:COLUMN").format(
            text=text)) from None


def delimiter(text: str) -> str:
    """The argparse type of ``--delimiter``: one character (``\\t`` or ``tab`` for a tab), not a
    quote or a line break."""
    character = "\t" if text in ("\\t", "tab", "TAB") else text
    if len(character) != 1 or character in "\"\r\n":
        raise argparse.ArgumentTypeError(_("{text!r} is not one character other than a quote or a line break "
                                           "(\\t or tab: a tab)").format(text=text))
    return character


__all__ = ["delimiter", "record_format", "run"]
