"""What ``abnfc check --records`` prints: the invalid records as text or JSON Lines, a summary,
and a progress bar on a terminal.

Text: ``FILE:RECORD: invalid at offset K: unexpected byte ...; expected RANGES`` (the sentences
and range format of ``abnfc check``) and an escaped excerpt with the byte at the error in
brackets; a CSV record is named by its line, ``FILE:LINE``, and ``FILE:LINE (record N)`` where
quoted line breaks or blank lines before it make its number differ from its line's (less the
header's).  JSON: one object per invalid record, ``{"file", "record", "offset", "expected"}``
(``line`` too for CSV; ``offset`` null and a ``reason`` for a null or missing value), and a last
object with the totals.
"""
from __future__ import annotations

import functools
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from ..charset import Ranges, byte_text, format_readable
from ..i18n import _, ngettext
from .verify import Bad

EXCERPT = 16  # bytes shown on each side of the error
PROGRESS_AFTER = 1.0  # seconds before the progress bar appears


@dataclass(frozen=True)
class Totals:
    records: int
    invalid: int
    seconds: float


def where(file: str, number: int, line: int | None = None, lead: int = 0) -> str:
    """``FILE:NUMBER``, or for a record that starts on ``line`` (after ``lead`` lines of header)
    ``FILE:LINE``, with ``(record NUMBER)`` where the two disagree."""
    if line is None:
        return f"{file}:{number}"
    if line == lead + number:
        return f"{file}:{line}"
    return _("{file}:{line} (record {number})").format(file=file, line=line, number=number)


def text_line(file: str, number: int, bad: Bad, line: int | None = None, lead: int = 0) -> str:
    """Record ``number`` of ``file``, invalid: where, why, what was expected, and an excerpt."""
    name = where(file, number, line, lead)
    if bad.offset is None:
        return f"{name}: {bad.reason}"
    data = bad.record
    what = _("unexpected end of input") if bad.offset >= len(data) else _("unexpected byte {byte}").format(
        byte=byte_text(data[bad.offset]))
    expected = _("; expected {ranges}").format(ranges=format_readable(bad.expected)) if bad.expected else ""
    head = _("{name}: invalid at offset {offset}: {what}").format(name=name, offset=bad.offset, what=what)
    return f"{head}{expected}\n  {excerpt(data, bad.offset)}"


def excerpt(data: bytes, offset: int) -> str:
    """``...01T00[:]00Z``: the bytes around ``offset`` with Python's escapes, the byte at the
    error in brackets (``[end]`` past the last byte)."""
    start, stop = max(0, offset - EXCERPT), offset + 1 + EXCERPT
    before, at, after = data[start:offset], data[offset: offset + 1], data[offset + 1: stop]
    return "".join(["..." if start else "", _escape(before), f"[{_escape(at)}]" if at else "[end]",
                    _escape(after), "..." if stop < len(data) else ""])


def _escape(data: bytes) -> str:
    return repr(data)[2:-1]


def json_line(file: str, number: int, bad: Bad, line: int | None = None, lead: int = 0) -> str:
    """``{"file": ..., "record": N, "offset": K, "expected": [[lo, hi], ...]}``, ``line`` for a
    CSV record and ``reason`` for a missing one.  Written by hand, the file name and ranges encoded
    once each: tens of thousands of invalid records otherwise spend more time in json.dumps than
    in checking."""
    offset = "null" if bad.offset is None else bad.offset
    reason = "" if bad.reason is None else f", \"reason\": {_json(bad.reason)}"
    starts = "" if line is None else f", \"line\": {line}"
    return (f'{{"file": {_json(file)}, "record": {number}{starts}, "offset": {offset}, '
            f'"expected": {_json_ranges(bad.expected or ())}{reason}}}')


@functools.lru_cache(maxsize=256)
def _json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


_RANGES_JSON: dict[int, tuple[Ranges, str]] = {}  # by the ranges' identity: (the ranges, their JSON)


def _json_ranges(ranges: Ranges) -> str:
    """The ranges as JSON, remembered by identity: records stopped in one automaton state share
    one tuple of ranges, and hashing it anew for each record would cost as much as the rest of
    the line (the ranges are kept with their JSON, so their identity is not reused meanwhile)."""
    kept = _RANGES_JSON.get(id(ranges))
    if kept is None or kept[0] is not ranges:
        if len(_RANGES_JSON) >= 4096:
            _RANGES_JSON.clear()
        kept = _RANGES_JSON[id(ranges)] = (ranges, json.dumps([[lo, hi] for lo, hi in ranges]))
    return kept[1]


def file_line(name: str, records: int, invalid: int) -> str:
    return ngettext("{name}: {records} record, {invalid} invalid", "{name}: {records} records, {invalid} invalid",
                    records).format(name=name, records=f"{records:,}", invalid=f"{invalid:,}")


def summary(totals: Totals, json_output: bool) -> str:
    if json_output:
        return json.dumps({"records": totals.records, "invalid": totals.invalid,
                           "seconds": round(totals.seconds, 3)})
    return ngettext("{records} record, {invalid} invalid, {seconds} s",
                    "{records} records, {invalid} invalid, {seconds} s", totals.records).format(
        records=f"{totals.records:,}", invalid=f"{totals.invalid:,}", seconds=f"{totals.seconds:.2f}")


class Progress:
    """A progress bar on standard error when it is a terminal, once a run takes more than a
    second: the part of the files read (a bar when their sizes are known, else a pulse), the
    records and invalid ones so far, the speed and the time left.  It is rich's, imported only
    when it appears, and it disappears at the end; while it shows, what the run prints on
    standard output goes above it."""

    def __init__(self, total_bytes: int | None = None, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.on = self.stream is not None and self.stream.isatty()
        self.total = total_bytes
        self.started = time.monotonic()
        self.before = 0  # the bytes of the files checked before this one
        self.bar: Any = None
        self.task: Any = None

    def update(self, records: int, invalid: int, position: int | None = None) -> None:
        """The records and invalid ones so far, and how far the current file has been read."""
        if not self.on or time.monotonic() - self.started < PROGRESS_AFTER:
            return
        if self.bar is None:
            self._show()
        self.bar.update(self.task, completed=self.before + (position or 0), text=_(
            "checking: {records} records, {invalid} invalid").format(records=f"{records:,}", invalid=f"{invalid:,}"))

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeRemainingColumn, TransferSpeedColumn
        from rich.progress import Progress as Bar

        self.bar = Bar(BarColumn(), TaskProgressColumn(), TextColumn("{task.fields[text]}"), TransferSpeedColumn(),
                       TimeRemainingColumn(), console=Console(file=self.stream), transient=True)
        self.task = self.bar.add_task("", total=self.total, text="")
        self.bar.start()

    def next_file(self, name: str) -> None:
        """A file is checked (or could not be): its size counts as read."""
        try:
            self.before += os.stat(name).st_size if name != "-" else 0
        except OSError:
            pass

    def done(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


__all__ = ["Progress", "Totals", "excerpt", "file_line", "json_line", "summary", "text_line", "where"]
