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

Where a C compiler is found, CSV and JSON Lines are split by the C readers of
:mod:`abnfc.native.readers` instead, a block in one call: they take only what Python's modules
read the same (see ``native/static/readers.c``) and leave the rest to them, a JSON line at a time,
and for CSV the rest of the file from the first row they do not take (a row that is not strict
CSV, a quote never closed); so the blocks, record numbers and messages are the same either way
(tests/test_records_readers.py compares them).

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
from typing import Any, BinaryIO, cast

from ..errors import AbnfError
from ..i18n import _
from ..native.readers import NULL, PYTHON, Output, Readers

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


def read_blocks(stream: BinaryIO, form: RecordFormat, name: str, readers: Readers | None = None) -> Iterator[Block]:
    """The blocks of records of one open file (``name`` for messages); CSV and JSON Lines split
    by ``readers`` where given (the same blocks, faster)."""
    if form.kind == "lines":
        return _lines(stream)
    if form.kind == "csv":
        return _csv(stream, form, name, readers)
    if form.kind == "jsonl":
        return _jsonl(stream, form.key or "", name, readers)
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


def _csv(stream: BinaryIO, form: RecordFormat, name: str, readers: Readers | None) -> Iterator[Block]:
    # a field is as long as it is (the module's default limit, 128 KiB, would call a long value not CSV)
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    if readers is None or not _scannable(form.delimiter):
        return _csv_python(stream, form, name, "utf-8-sig")
    return _csv_scanned(stream, form, name, readers)


def _scannable(delimiter: str) -> bool:
    """Whether readers.c splits at ``delimiter`` as the csv module does: an ASCII character, not
    a quote, a line break or NUL (which the command line refuses, but a request may hold)."""
    return delimiter.isascii() and delimiter not in "\"\r\n\0"


def _csv_python(stream: BinaryIO, form: RecordFormat, name: str, encoding: str) -> Iterator[Block]:
    """CSV read by Python's csv module alone (``encoding``: utf-8 where a byte order mark has
    been taken off already)."""
    # utf-8-sig: a byte order mark is no part of the first column's name; surrogateescape: bytes
    # that are not UTF-8 come back unchanged when the value is encoded
    text = io.TextIOWrapper(stream, encoding=encoding, errors="surrogateescape", newline="")
    # strict: a quote that is never closed is an error, not the rest of the file in one field
    reader = csv.reader(text, delimiter=form.delimiter, strict=True)
    try:
        try:
            header = next(reader, None)
        except csv.Error as error:
            raise _csv_error(error, name, reader.line_num, 1) from None
        if header is None:
            return
        index, lead = _column(header, form.key or "", name), reader.line_num
        yield from _csv_rows(reader, _CsvPlace(index, form.key or "", lead, 0, name), [], [], array("Q"))
    finally:
        text.detach()  # the caller closes the file


@dataclass(frozen=True)
class _CsvPlace:
    """Where Python's csv reader reads: the column (its index and as asked for), the header's
    lines, the lines of the file before the reader's first and the file's name."""

    index: int
    column: str
    lead: int
    base: int
    name: str


def _csv_rows(reader: Any, place: _CsvPlace, values: list[bytes | None], reasons: list[str],
              lines: array) -> Iterator[Block]:
    """The blocks of the rows ``reader`` reads, after ``values`` (with their ``reasons`` and
    ``lines``): the start of a block already read by readers.c, or nothing."""
    start = place.base + reader.line_num + 1  # the line the next record starts on
    try:
        for row in reader:
            start, line = place.base + reader.line_num + 1, start
            if not row:  # a blank line
                continue
            lines.append(line)
            if place.index < len(row):
                values.append(row[place.index].encode("utf-8", "surrogateescape"))
            else:
                values.append(None)
                reasons.append(_("the row has no column {column}").format(column=place.column))
            if len(values) == BLOCK_RECORDS:
                yield replace(_joined(values, reasons), lines=lines, lead=place.lead)
                values, reasons, lines = [], [], array("Q")
        if values:
            yield replace(_joined(values, reasons), lines=lines, lead=place.lead)
    except csv.Error as error:
        raise _csv_error(error, place.name, place.base + reader.line_num, start) from None


def _csv_scanned(stream: BinaryIO, form: RecordFormat, name: str, readers: Readers) -> Iterator[Block]:
    """CSV split by readers.c; the header, and from a row it leaves to Python on, the rest of the
    file, read by the csv module, so that every verdict and message is the module's."""
    source = _Bytes(stream)
    delimiter, limit = ord(form.delimiter), csv.field_size_limit()
    while len(source.data) < len(BOM) and source.more():
        pass
    source.position = len(BOM) if source.data.startswith(BOM) else 0
    while (end := readers.csv_row_end(source.rest(), source.eof, delimiter, limit)[0]) == -1 and not source.eof:
        source.more()
    if end == -2:  # after the byte order mark, which more() has let go of
        return (yield from _csv_python(source.chained(source.position), form, name, "utf-8"))
    if end < 0:  # no row at all: nothing but a byte order mark, if that
        return
    text = source.data[source.position: source.position + end].decode("utf-8", "surrogateescape")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=form.delimiter, strict=True)
    try:
        header = next(reader)
    except csv.Error as error:
        raise _csv_error(error, name, reader.line_num, 1) from None
    place = _CsvPlace(_column(header, form.key or "", name), form.key or "", reader.line_num, reader.line_num, name)
    source.position += end
    line, output = place.lead, Output(BLOCK_RECORDS)
    while True:
        scan = readers.csv(source.data, source.position, source.eof, delimiter, place.index, limit, line, output)
        source.position, line = source.position + scan.consumed, line + scan.lines
        if output.count == BLOCK_RECORDS:
            yield _csv_block(output, place)
            output.reset()
            continue
        if scan.python or (source.eof and source.position < len(source.data)):
            values, reasons, lines = _csv_lists(output, place)
            rest = io.TextIOWrapper(source.chained(source.position), encoding="utf-8", errors="surrogateescape",
                                    newline="")
            try:
                reader = csv.reader(rest, delimiter=form.delimiter, strict=True)
                return (yield from _csv_rows(reader, replace(place, base=line), values, reasons, lines))
            finally:
                rest.detach()
        if source.eof:
            break
        source.more()
    if output.count:
        yield _csv_block(output, place)


def _csv_block(output: Output, place: _CsvPlace) -> Block:
    count = output.count
    reason = _("the row has no column {column}").format(column=place.column)
    return Block(count, output.values(), output.offsets[: count + 1],
                 missing=tuple((index, reason) for index in _indices(output.flags, 1, count)),
                 lines=output.numbers[:count], lead=place.lead)


def _csv_lists(output: Output, place: _CsvPlace) -> tuple[list[bytes | None], list[str], array]:
    """The records of a block readers.c began, as the lists Python's reading goes on with."""
    offsets, flags, data = output.offsets, output.flags, output.data
    values: list[bytes | None] = [None if flags[i] else bytes(data[offsets[i]: offsets[i + 1]])
                                  for i in range(output.count)]
    reason = _("the row has no column {column}").format(column=place.column)
    return values, [reason for value in values if value is None], output.numbers[: output.count]


def _indices(flags: bytearray, flag: int, count: int) -> Iterator[int]:
    """Where ``flags[:count]`` holds ``flag``, in order."""
    at = flags.find(flag, 0, count)
    while at >= 0:
        yield at
        at = flags.find(flag, at + 1, count)


BOM = b"\xef\xbb\xbf"


class _Bytes:
    """A file's bytes read in pieces: ``data`` holds what has not been consumed yet (from
    ``position``), ``more`` appends the next piece (at least as large as what is held, so that a
    long record is not read again and again) and ``chained`` reads from a position to the end of
    the file, for Python's readers."""

    def __init__(self, stream: BinaryIO):
        self.stream, self.data, self.position, self.eof = stream, b"", 0, False

    def more(self) -> bool:
        """Read another piece; False at the end of the file."""
        if self.eof:
            return False
        piece = self.stream.read(max(LINES_PIECE, len(self.data) - self.position))
        self.data = self.data[self.position:] + piece
        self.position = 0
        self.eof = not piece
        return not self.eof

    def rest(self) -> bytes:
        return self.data[self.position:]

    def chained(self, position: int) -> BinaryIO:
        return cast(BinaryIO, io.BufferedReader(_Chained(self.data[position:], self.stream)))


class _Chained(io.RawIOBase):
    """Bytes already read, then the rest of a stream."""

    def __init__(self, head: bytes, stream: BinaryIO):
        self.head, self.stream = memoryview(head), stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            count = min(len(buffer), len(self.head))
            buffer[:count] = self.head[:count]
            self.head = self.head[count:]
            return count
        piece = self.stream.read(len(buffer))
        buffer[: len(piece)] = piece
        return len(piece)


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


def _jsonl(stream: BinaryIO, key: str, name: str, readers: Readers | None) -> Iterator[Block]:
    """One JSON object a line; a record's number is its line's (blank lines are no records)."""
    try:
        encoded = key.encode("utf-8")
    except UnicodeEncodeError:  # a name that came as bytes that are not UTF-8: Python's json alone
        readers = None
    if readers is None:
        return _jsonl_python(stream, key, name)
    return _jsonl_scanned(stream, encoded, _Fields(key, name), readers)


def _jsonl_python(stream: BinaryIO, key: str, name: str) -> Iterator[Block]:
    """JSON Lines read by Python's json module alone."""
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


def _jsonl_scanned(stream: BinaryIO, key: bytes, fields: _Fields, readers: Readers) -> Iterator[Block]:
    """JSON Lines read by readers.c, a line it leaves to Python read by the json module (which
    decides and words every error) before the next line."""
    output, reasons, line = Output(BLOCK_RECORDS), dict[int, str](), 1
    before, by_python = 0, 0  # the file's records before the block, those Python read
    for piece in _whole_lines(stream):
        start = 0
        while start < len(piece):
            scan = readers.jsonl(piece, start, key, line, output)
            if scan.records and output.flags[output.count - 1] == PYTHON:
                index = output.count - 1
                if before + index > by_python:  # a record readers.c took has the field
                    fields.found = True
                reason = _python_record(piece, start + output.starts[index], output, fields)
                if reason is not None:
                    reasons[index] = reason
                by_python += 1
            start, line = start + scan.consumed, line + scan.lines
            if output.count == BLOCK_RECORDS:
                yield _jsonl_block(output, reasons)
                before += output.count
                output.reset()
                reasons = {}
    if output.count:
        yield _jsonl_block(output, reasons)


def _whole_lines(stream: BinaryIO) -> Iterator[bytes]:
    """Pieces of about LINES_PIECE bytes, each completed to the end of its last line."""
    return (block.data for block in _lines(stream))


def _python_record(piece: bytes, start: int, output: Output, fields: _Fields) -> str | None:
    """Read the last record of ``output`` (its line starting at ``piece[start]``) with Python's
    json module: its value appended, or the reason it is missing."""
    end = piece.find(b"\n", start) + 1 or len(piece)
    index = output.count - 1
    number = output.numbers[index]
    value = _field(_document(piece[start:end], fields.name, number), fields.key, fields.name, number, fields)
    if isinstance(value, str):
        return value
    output.room(len(value))  # a value may be longer than its line (UTF-16 in, UTF-8 out)
    at = output.offsets[index]
    output.data[at: at + len(value)] = value
    output.offsets[index + 1] = at + len(value)
    return None


def _jsonl_block(output: Output, reasons: dict[int, str]) -> Block:
    count, null = output.count, _("null value")
    missing = sorted([*((index, null) for index in _indices(output.flags, NULL, count)), *reasons.items()])
    return Block(count, output.values(), output.offsets[: count + 1], missing=tuple(missing),
                 numbers=output.numbers[:count])


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
