"""Reading records: a file as blocks of records, each checked on its own.

``lines`` reads 8 MiB at a time and completes each piece to the end of its line, so a block
holds whole lines and is split by the checker (the C kernel splits with ``memchr``; Python never sees a
valid line).  ``csv`` (Python's csv module in strict mode, a header row, the column named or
numbered from 1, a byte order mark ignored, blank lines skipped, fields of any size) and
``jsonl`` (a top-level string field of one JSON object a line; where a key appears twice the last
value counts, as for Python's json module and JavaScript's JSON.parse: RFC 8259 section 4 leaves
it to the reader) join a block's values into one buffer with offsets, Arrow's layout.  ``parquet``
hands pyarrow's arrays over as they are, to be read in place, a string column as binary: a value
is checked as the bytes in the file, UTF-8 or not, as everywhere else.

A CSV record is reported by the line it starts on (and its number among the records where a
quoted line break or a blank line makes that differ), a JSON Lines record by its line.

Null and missing values (a null or absent field, a short CSV row, a null in Parquet) are
records that cannot match: they count as invalid, with the reason instead of an offset; so does a
JSON line nested too deep for Python's JSON reader.  A value that is neither a string nor null (a
number in a JSON field, a non-string Parquet column) is the user's to fix: an error naming the
record, as is a JSON field that none of the first 1,000 records has (a misspelt name, not a
million missing values).
"""
from __future__ import annotations

import csv
import io
import json
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any, BinaryIO

from ..errors import AbnfError
from ..i18n import _

FORMATS = ("lines", "csv", "jsonl", "parquet")
LINES_PIECE = 8 << 20  # bytes read at a time for lines
BLOCK_RECORDS = 65536  # records a block for csv, jsonl and parquet
ARROW_TYPES = ("string", "large_string", "binary", "large_binary", "string_view", "binary_view")
AS_BINARY = {"string": "binary", "large_string": "large_binary", "string_view": "binary_view"}
FIELD_SURE_AFTER = 1000  # JSON Lines records without the field before it is taken as misspelt
FIELDS_SHOWN = 20  # field names listed in that error
CSV_FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)  # the csv module's field_size_limit takes a C long
JSON_WHITESPACE = b" \t\r\n"  # RFC 8259: not Python's, which also has \x0b and \x0c


class RecordError(AbnfError):
    """A file that cannot be read as records of its format: the user's to fix."""


@dataclass(frozen=True)
class RecordFormat:
    """``--records``: the format, and the CSV column or JSON field (None for lines)."""

    kind: str
    key: str | None = None
    delimiter: str = ","  # CSV's (--delimiter)


def parse_format(text: str) -> RecordFormat:
    """``lines``, ``csv:COLUMN``, ``jsonl:FIELD`` or ``parquet:COLUMN``; ValueError otherwise."""
    kind, colon, key = text.partition(":")
    if kind not in FORMATS or (kind == "lines") == bool(colon) or (colon and not key):
        raise ValueError(text)
    return RecordFormat(kind, key or None)


@dataclass(frozen=True)
class Block:
    """The next ``count`` records of a file (None for lines: the checker counts them as it splits
    them, so that the lines are read once).  Lines: ``data`` holds them with their line endings.
    Joined: ``data[offsets[i]:offsets[i + 1]]`` is record i.
    Arrow: ``values`` is a pyarrow string or binary array.  ``missing``: (index, reason) of the
    null or missing records, which hold nothing."""

    count: int | None
    data: bytes = b""
    offsets: array | None = None
    values: Any = None
    missing: tuple[tuple[int, str], ...] = field(default=())
    numbers: array | None = None  # each record's own number (JSON Lines: its line's), if not counted
    lines: array | None = None  # CSV: the line each record starts on
    lead: int = 0  # CSV: the lines before the first record (the header's)

    def number(self, index: int, before: int) -> int:
        """The number of record ``index`` of the block, as reported (from 1), ``before`` records
        of the file having come before the block."""
        return self.numbers[index] if self.numbers is not None else before + index + 1

    def line(self, index: int) -> int | None:
        """The line record ``index`` starts on, where it is not the record's number (CSV)."""
        return self.lines[index] if self.lines is not None else None

    def records(self) -> list[bytes]:
        """Every record as bytes (missing ones empty)."""
        if self.values is not None:
            return [b"" if value is None else value for value in self.values.to_pylist()]
        if self.offsets is None:
            lines = self.data.split(b"\n")
            if not self.data or self.data.endswith(b"\n"):
                lines.pop()
            return [line.removesuffix(b"\r") for line in lines]
        offsets = self.offsets
        return [self.data[offsets[i]: offsets[i + 1]] for i in range(len(offsets) - 1)]


def read_blocks(stream: BinaryIO, form: RecordFormat, name: str) -> Iterator[Block]:
    """The blocks of records of one open file (``name`` for messages)."""
    if form.kind == "lines":
        return _lines(stream)
    if form.kind == "csv":
        return _csv(stream, form, name)
    if form.kind == "jsonl":
        return _jsonl(stream, form.key or "", name)
    return _parquet(stream, form.key or "", name)


def _lines(stream: BinaryIO) -> Iterator[Block]:
    """Pieces of about LINES_PIECE bytes, each completed to the end of its last line."""
    while True:
        piece = stream.read(LINES_PIECE)
        if not piece:
            return
        if not piece.endswith(b"\n"):
            piece += stream.readline()  # the rest of the line (or nothing: the last line has no newline)
        yield Block(None, piece)


def _joined(values: list[bytes | None], reasons: list[str]) -> Block:
    """A block from values (None: missing, with its reason in ``reasons``, in order)."""
    present = [b"" if value is None else value for value in values]
    offsets = array("Q", [0])
    offsets.extend(accumulate(map(len, present)))
    missing = tuple(zip((i for i, value in enumerate(values) if value is None), reasons, strict=True))
    return Block(len(values), b"".join(present), offsets, missing=missing)


def _csv(stream: BinaryIO, form: RecordFormat, name: str) -> Iterator[Block]:
    # utf-8-sig: a byte order mark is no part of the first column's name; surrogateescape: bytes
    # that are not UTF-8 come back unchanged when the value is encoded
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="surrogateescape", newline="")
    # a field is as long as it is (the module's default limit, 128 KiB, would call a long value not CSV)
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    # strict: a quote that is never closed is an error, not the rest of the file in one field
    reader = csv.reader(text, delimiter=form.delimiter, strict=True)
    column, start = form.key or "", 1
    try:
        header = next(reader, None)
        if header is None:
            return
        index, lead = _column(header, column, name), reader.line_num
        start = lead + 1  # the line the next record starts on
        values, reasons, lines = list[bytes | None](), list[str](), array("Q")
        for row in reader:
            start, line = reader.line_num + 1, start
            if not row:  # a blank line
                continue
            lines.append(line)
            if index < len(row):
                values.append(row[index].encode("utf-8", "surrogateescape"))
            else:
                values.append(None)
                reasons.append(_("the row has no column {column}").format(column=column))
            if len(values) == BLOCK_RECORDS:
                yield replace(_joined(values, reasons), lines=lines, lead=lead)
                values, reasons, lines = [], [], array("Q")
        if values:
            yield replace(_joined(values, reasons), lines=lines, lead=lead)
    except csv.Error as error:
        raise _csv_error(error, name, reader.line_num, start) from None
    finally:
        text.detach()  # the caller closes the file


def _csv_error(error: csv.Error, name: str, line: int, start: int) -> RecordError:
    """A CSV error, the line of the record a never closed quote swallows the rest of the file into."""
    if str(error) == "unexpected end of data":
        return RecordError.at(None, _("{name}: line {line}: not CSV: a quote in the record that starts on line "
                                      "{start} is never closed").format(name=name, line=line, start=start))
    return RecordError.at(None, _("{name}: line {line}: not CSV: {reason}").format(
        name=name, line=line, reason=error))


def _column(header: list[str], column: str, name: str) -> int:
    """The index of ``column`` in the header: by name, else as a number from 1."""
    if column in header:
        return header.index(column)
    if column.isdigit() and 1 <= int(column) <= len(header):
        return int(column) - 1
    raise RecordError.at(None, _("{name}: no column {column}; the header has {columns}").format(
        name=name, column=column, columns=", ".join(header) or "nothing"))


def _jsonl(stream: BinaryIO, key: str, name: str) -> Iterator[Block]:
    """One JSON object a line; a record's number is its line's (blank lines are no records)."""
    values, reasons, numbers = list[bytes | None](), list[str](), array("Q")
    fields = _Fields(key, name)
    for number, line in enumerate(stream, 1):
        if not line.strip(JSON_WHITESPACE):
            continue
        value = _field(_document(line, name, number), key, name, number, fields)
        values.append(value if isinstance(value, bytes) else None)
        if not isinstance(value, bytes):
            reasons.append(value)
        numbers.append(number)
        if len(values) == BLOCK_RECORDS:
            yield _numbered(_joined(values, reasons), numbers)
            values, reasons, numbers = [], [], array("Q")
    if values:
        yield _numbered(_joined(values, reasons), numbers)


def _numbered(block: Block, numbers: array) -> Block:
    return replace(block, numbers=numbers)


class _Integer(str):
    """A JSON integer too long for Python's int (over 4,300 digits), kept as its digits."""


def _document(line: bytes, name: str, number: int) -> Any:
    """A line's JSON value, or a _TooDeep for one nested past Python's recursion limit."""
    try:
        return json.loads(line)
    except RecursionError:
        return _TOO_DEEP
    except ValueError as error:
        try:  # an integer of more digits than int() takes is still JSON
            return json.loads(line, parse_int=_Integer)
        except (ValueError, RecursionError):
            raise RecordError.at(None, _("{name}: record {record}: not JSON: {reason}").format(
                name=name, record=number, reason=error)) from None


class _TooDeep:
    """A JSON line nested too deep to read."""


_TOO_DEEP = _TooDeep()


class _Fields:
    """Whether any record so far has the field, and the fields the records had meanwhile: none of
    the first FIELD_SURE_AFTER having it is an error naming the fields seen."""

    def __init__(self, key: str, name: str):
        self.key, self.name = key, name
        self.found = False
        self.records = 0
        self.seen: dict[str, None] = {}

    def note(self, document: dict) -> None:
        if self.found:
            return
        if self.key in document:
            self.found = True
            return
        self.records += 1
        if len(self.seen) <= FIELDS_SHOWN:
            self.seen.update(dict.fromkeys(document))
        if self.records == FIELD_SURE_AFTER:
            shown = list(self.seen)[:FIELDS_SHOWN]
            raise RecordError.at(None, _("{name}: none of the first {count} records has a field {field}; the "
                                         "fields seen: {fields}").format(
                name=self.name, count=f"{FIELD_SURE_AFTER:,}", field=self.key,
                fields=", ".join(shown + (["..."] if len(self.seen) > FIELDS_SHOWN else [])) or _("none")))


def _field(document: Any, key: str, name: str, number: int, fields: _Fields) -> bytes | str:
    """The field's value as bytes, or the reason it is missing."""
    if document is _TOO_DEEP:
        return _("the line nests too deep for Python's JSON reader")
    if not isinstance(document, dict):
        raise RecordError.at(None, _("{name}: record {record}: not a JSON object").format(name=name, record=number))
    fields.note(document)
    if key not in document:
        return _("missing field {field}").format(field=key)
    value = document[key]
    if value is None:
        return _("null value")
    if not isinstance(value, str) or isinstance(value, _Integer):
        raise RecordError.at(None, _("{name}: record {record}: field {field} is {type}, not a string").format(
            name=name, record=number, field=key, type="int" if isinstance(value, _Integer) else type(value).__name__))
    return value.encode("utf-8", "surrogatepass")  # a lone surrogate stays, as bytes no UTF-8 grammar takes


def _parquet(stream: BinaryIO, column: str, name: str) -> Iterator[Block]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise RecordError.at(None, _("reading Parquet needs pyarrow: pip install pyarrow")) from None
    try:
        parquet = pq.ParquetFile(stream)
    except (pa.ArrowException, OSError) as error:
        raise RecordError.at(None, _("{name}: not a Parquet file: {reason}").format(name=name, reason=error)) from None
    names = parquet.schema_arrow.names
    chosen = names[_column(names, column, name)]
    if names.count(chosen) > 1:
        raise RecordError.at(None, _("{name}: {count} columns are named {column}, and they cannot be told "
                                     "apart").format(name=name, count=names.count(chosen), column=chosen))
    kind = parquet.schema_arrow.field(chosen).type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if str(kind) not in ARROW_TYPES:
        raise RecordError.at(None, _("{name}: column {column} holds {type}, not strings or binary").format(
            name=name, column=chosen, type=kind))
    as_bytes = pa.type_for_alias(AS_BINARY.get(str(kind), str(kind)))  # no copy: the same buffers
    try:
        for batch in parquet.iter_batches(batch_size=BLOCK_RECORDS, columns=[chosen]):
            values = batch.column(0).cast(as_bytes)  # a dictionary column as its values
            yield Block(len(values), values=values, missing=_nulls(values))
    except (pa.ArrowException, OSError) as error:
        raise RecordError.at(None, _("{name}: cannot read the Parquet file, column {column}: {reason}").format(
            name=name, column=chosen, reason=error)) from None


def _nulls(values: Any) -> tuple[tuple[int, str], ...]:
    if not values.null_count:
        return ()
    import pyarrow.compute as pc

    null = _("null value")
    return tuple((int(i), null) for i in pc.indices_nonzero(values.is_null()).to_pylist())


__all__ = ["FORMATS", "Block", "RecordError", "RecordFormat", "parse_format", "read_blocks"]
