"""The record readers of ``static/readers.c`` (a JSON Lines field, a CSV column), compiled once
and cached as the batch kernels are (:mod:`.cache`), and called through ctypes.

The library depends on no grammar: its key is the compiler and its options, abnfc's version and
the lowering's source (``static/`` included).  Each call fills buffers that Python allocates and owns (a value
buffer at least as large as the bytes read, since a decoded value is never longer than its
source; the offsets, statuses and line numbers of up to a block of records), and ctypes lets go
of Python's lock meanwhile, so that reading the next block overlaps checking the last.
"""
from __future__ import annotations

import ctypes
import subprocess
import tempfile
from array import array
from dataclasses import dataclass
from pathlib import Path

from ..errors import AbnfError
from ..i18n import _
from . import cache
from .cache import STATIC, Note, find_compiler, kernel_key, key_define
from .kernel import _address, carried_key

READERS = STATIC / "readers.c"
CFLAGS = ["-std=c99", "-O2", "-fPIC", "-shared", "-Wall", "-Werror"]
VALUE, NULL, PYTHON = 0, 1, 2  # a JSON Lines record's status (readers.c's RECORD_*)


@dataclass
class Scan:
    """What one call read: the records, the bytes and lines it consumed, and (CSV) whether it
    stopped at a row for Python's reader."""

    records: int
    consumed: int
    lines: int
    python: bool = False


class Output:
    """The buffers of one block of up to ``capacity`` records: the values (``data``, grown as
    needed), their offsets, a byte a record (JSON Lines: its status; CSV: 1 for a row without the
    column) and a number a record (JSON Lines: its line's; CSV: the line it starts on); and for
    JSON Lines where each record's line starts in the bytes read."""

    def __init__(self, capacity: int):
        self.count = 0
        self.data = bytearray(1)  # never empty: ctypes takes no address of an empty buffer
        self.offsets = array("Q", bytes(8 * (capacity + 1)))
        self.flags = bytearray(capacity)
        self.numbers = array("Q", bytes(8 * capacity))
        self.starts = array("Q", bytes(8 * capacity))
        self.capacity = capacity

    def reset(self) -> None:
        """Empty, for the next block (its buffers kept: a block takes copies)."""
        self.count = 0

    def room(self, size: int) -> None:
        """Room for ``size`` more bytes of values."""
        need = self.offsets[self.count] + size
        if len(self.data) < need:
            self.data.extend(bytes(max(need - len(self.data), len(self.data))))

    def at(self, buffer: array | bytearray, width: int) -> int:
        """The address of the next record's entry of ``buffer``."""
        return _address(buffer) + width * self.count

    def values(self) -> bytes:
        with memoryview(self.data) as view:  # one copy, not two
            return bytes(view[: self.offsets[self.count]])


class Readers:
    """The functions of a loaded readers library."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        size, pointer, u64 = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_uint64
        out = ctypes.POINTER(ctypes.c_size_t)
        self._jsonl = lib.abnfc_jsonl_scan
        self._jsonl.restype = size
        self._jsonl.argtypes = [pointer, size, ctypes.c_char_p, size, size, u64, pointer, pointer, pointer,
                                pointer, pointer, out, out]
        self._csv = lib.abnfc_csv_scan
        self._csv.restype = size
        self._csv.argtypes = [pointer, size, ctypes.c_int, ctypes.c_uint8, ctypes.c_longlong, size, size, u64,
                              pointer, pointer, pointer, pointer, out, out, ctypes.POINTER(ctypes.c_int)]
        self._row_end = lib.abnfc_csv_row_end
        self._row_end.restype = ctypes.c_longlong
        self._row_end.argtypes = [ctypes.c_char_p, size, ctypes.c_int, ctypes.c_uint8, size, out]

    def jsonl(self, data: bytes, start: int, key: bytes, first_line: int, output: Output) -> Scan:
        """The records of the whole lines of ``data[start:]`` (the first being line
        ``first_line``) into ``output``, up to its capacity; stops after a record for Python."""
        size = len(data) - start
        output.room(size)
        consumed, lines = ctypes.c_size_t(), ctypes.c_size_t()
        count = self._jsonl(_address(data) + start, size, key, len(key), output.capacity - output.count, first_line,
                            _address(output.data), output.at(output.offsets, 8), output.at(output.flags, 1),
                            output.at(output.numbers, 8), output.at(output.starts, 8), ctypes.byref(consumed),
                            ctypes.byref(lines))
        output.count += count
        return Scan(count, consumed.value, lines.value)

    def csv(self, data: bytes, start: int, final: bool, delimiter: int, column: int, limit: int, first_line: int,
            output: Output) -> Scan:
        """The CSV records of ``data[start:]`` (the first starting on line ``first_line + 1``),
        column ``column`` (from 0) into ``output``, up to its capacity; stops before a row that
        needs more bytes (unless ``final``) or Python's reader."""
        size = len(data) - start
        output.room(size)
        consumed, lines, python = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_int()
        count = self._csv(_address(data) + start, size, int(final), delimiter, column, limit,
                          output.capacity - output.count, first_line + 1, _address(output.data),
                          output.at(output.offsets, 8), output.at(output.flags, 1), output.at(output.numbers, 8),
                          ctypes.byref(consumed), ctypes.byref(lines), ctypes.byref(python))
        output.count += count
        return Scan(count, consumed.value, lines.value, bool(python.value))

    def csv_row_end(self, data: bytes, final: bool, delimiter: int, limit: int) -> tuple[int, int]:
        """Where the first row of ``data`` ends and the lines it spans; (-1, 0) when more bytes
        are needed, (-2, 0) when it is for Python's reader."""
        lines = ctypes.c_size_t()
        end = self._row_end(data, len(data), int(final), delimiter, limit, ctypes.byref(lines))
        return end, lines.value


_LOADED: dict[str, Readers] = {}


def readers(note: Note | None = None) -> Readers | None:
    """The readers library, built and cached on first use; None without a C compiler or when it
    cannot be built (the records are then read by Python's modules alone, with the same
    results)."""
    cc = find_compiler()
    if cc is None:
        return None
    key = kernel_key(cc, "readers", " ".join(CFLAGS))
    if key not in _LOADED:
        try:
            _LOADED[key] = cache.obtain(f"{key}.so", key, lambda: compile_readers(cc, key),
                                        lambda path: _load(path, key), note)
        except AbnfError:
            return None
    return _LOADED[key]


def _load(path: Path, key: str) -> Readers | None:
    """The library at ``path`` if it carries ``key``."""
    lib = ctypes.CDLL(str(path))
    return Readers(lib) if carried_key(lib) == key else None


def compile_readers(cc: str, key: str) -> bytes:
    """The shared library of ``static/readers.c``, carrying ``key``."""
    with tempfile.TemporaryDirectory(prefix="abnfc-readers-") as work:
        built = Path(work, "readers.so")
        result = subprocess.run([cc, *CFLAGS, key_define(key), "-o", str(built), str(READERS)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise AbnfError.at(None, _("the C compiler failed on the batch kernel:\n{output}").format(
                output=result.stderr[-4000:]))
        return built.read_bytes()


__all__ = ["NULL", "PYTHON", "VALUE", "Output", "Readers", "Scan", "readers"]
