"""Calling a compiled batch kernel (``backends/c/static/batch.c`` compiled with a grammar's
generated C, by :mod:`abnfc.backends.c.batch`) through ctypes, and the cache that holds it.

This module is the light half: finding a library in the cache and calling it needs neither the
parser nor the automata nor the backends, so that ``abnfc check --records`` with a cached
kernel starts in tens of milliseconds.  The kernel's functions read records from one buffer and
offsets (Arrow's layout, with ``size_t``, 32-bit or 64-bit offsets read in place), or split
lines themselves, and return each record's first error, or only the invalid ones.

The cache folder is ``$ABNFC_CACHE``, else ``$XDG_CACHE_HOME/abnfc``, else ``~/.cache/abnfc``;
a library's key covers what its code depends on (see :func:`cache_key`).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import AbnfError
from .i18n import _
from .version import __version__

# The kernel's source belongs to the C backend; its text is part of every key, so that a changed
# kernel is rebuilt.
KERNEL = Path(__file__).parent / "backends" / "c" / "static" / "batch.c"
MAX_BAD = 4096  # invalid lines P_line_errors reports a call (4 numbers each)
SIZE_CODE = "Q" if ctypes.sizeof(ctypes.c_size_t) == 8 else "I"  # array typecode of size_t
SIZE_MAX = ctypes.c_size_t(-1).value  # a record's first error when it is valid


def find_compiler() -> str | None:
    """The C compiler: ``$CC`` if set and found, else ``cc``, ``gcc`` or ``clang``; None if none is."""
    for candidate in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if candidate and shutil.which(candidate):
            return candidate
    return None


def cache_folder() -> Path:
    """Where compiled kernels are kept: $ABNFC_CACHE, $XDG_CACHE_HOME/abnfc or ~/.cache/abnfc."""
    explicit = os.environ.get("ABNFC_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "abnfc"


def cache_key(cc: str, *parts: str | bytes) -> str:
    """The key of a library: ``parts`` (what the caller's source depends on), the compiler (its
    name, and the size and time of the file it resolves to, so that an upgrade rebuilds),
    abnfc's version and the kernel's text."""
    found = shutil.which(cc) or cc
    stat = os.stat(os.path.realpath(found))
    digest = hashlib.sha256()
    for part in (__version__, cc, f"{found}:{stat.st_size}:{stat.st_mtime_ns}", KERNEL.read_bytes(), *parts):
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()[:40]


def cached(key: str, prefix: str = "validator") -> BatchKernel | None:
    """The library of ``key`` if it was built before."""
    library = cache_folder() / f"{key}.so"
    return BatchKernel(ctypes.CDLL(str(library)), prefix) if library.exists() else None


@dataclass(frozen=True)
class BadLine:
    """An invalid line of a block: its index in the block, first error, start and end in the block."""

    index: int
    offset: int
    start: int
    end: int


def _address(data: bytes | bytearray | array) -> int:
    """The address of a buffer's first byte (kept alive by the caller during the call)."""
    if isinstance(data, array):
        return data.buffer_info()[0]
    return ctypes.addressof(ctypes.c_char.from_buffer(data)) if isinstance(data, bytearray) else \
        ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0


class BatchKernel:
    """The kernel's functions in one library (``lib``, which also holds the generated
    validator's own functions, under ``prefix``)."""

    def __init__(self, lib: ctypes.CDLL, prefix: str):
        self.lib, self.prefix = lib, prefix
        pointer, size = ctypes.c_void_p, ctypes.c_size_t
        self._fn: dict[str, Any] = {}
        # every function returns a size_t but for stream_init (void) and stream_feed (bool): their
        # results are not read
        for name, args in {"stream_init": [pointer], "stream_feed": [pointer, pointer, size],
                           "stream_expected": [pointer, pointer, size],
                           "first_errors": [pointer, pointer, size, pointer],
                           "first_errors_i32": [pointer, pointer, size, pointer],
                           "first_errors_i64": [pointer, pointer, size, pointer],
                           "valid_bits_i32": [pointer, pointer, size, pointer, size],
                           "valid_bits_i64": [pointer, pointer, size, pointer, size],
                           "line_errors": [pointer, size, pointer, size, pointer, pointer]}.items():
            function = getattr(lib, f"{prefix}_{name}")
            function.restype, function.argtypes = size, args
            self._fn[name] = function

    def expected(self, record: bytes) -> tuple[tuple[int, int], ...]:
        """The byte ranges that could continue ``record`` at its first error (the generated
        stream functions: P_stream_feed, then P_stream_expected)."""
        stream = (ctypes.c_uint64 * 32)()  # more than the generated stream struct needs, aligned
        self._fn["stream_init"](stream)
        self._fn["stream_feed"](stream, _address(record), len(record))
        ranges = (ctypes.c_uint8 * 512)()  # 256 ranges of (lo, hi) at most
        count = self._fn["stream_expected"](stream, ranges, 256)
        return tuple((ranges[2 * k], ranges[2 * k + 1]) for k in range(count))

    def first_errors(self, data: bytes, offsets: array) -> array:
        """Each record's first error (SIZE_MAX: valid); ``offsets`` has one more entry than records."""
        count = max(len(offsets) - 1, 0)
        out = array(SIZE_CODE, bytes(ctypes.sizeof(ctypes.c_size_t) * count))
        if count:
            self._fn["first_errors"](_address(data), _address(offsets), count, _address(out))
        return out

    def line_errors(self, data: bytes) -> tuple[int, list[BadLine]]:
        """The number of lines in ``data`` and the invalid ones (see ``P_line_errors``)."""
        bad = array(SIZE_CODE, bytes(ctypes.sizeof(ctypes.c_size_t) * 4 * MAX_BAD))
        lines, consumed = ctypes.c_size_t(), ctypes.c_size_t()
        base, start, total, found = _address(data), 0, 0, list[BadLine]()
        while start < len(data):
            n = self._fn["line_errors"](base + start, len(data) - start, _address(bad), MAX_BAD,
                                        ctypes.byref(lines), ctypes.byref(consumed))
            found.extend(BadLine(total + bad[4 * k], bad[4 * k + 1], start + bad[4 * k + 2], start + bad[4 * k + 3])
                         for k in range(n))
            total += lines.value
            start += consumed.value
        return total, found

    def arrow_first_errors(self, values: Any) -> array:
        """Each element's first error (SIZE_MAX: valid or null) of a pyarrow string or binary
        array, read from its own buffers."""
        count = len(values)
        out = array(SIZE_CODE, bytes(ctypes.sizeof(ctypes.c_size_t) * count))
        if count:
            data, offsets, width = _arrow_buffers(values)
            self._fn[f"first_errors_i{width * 8}"](data, offsets, count, _address(out))
        return out

    def valid_bits(self, values: Any) -> Any:
        """A pyarrow BooleanArray: whether each element matches; nulls stay null."""
        import pyarrow as pa

        count = len(values)
        bits = bytearray((values.offset + count + 7) // 8 or 1)
        if count:
            data, offsets, width = _arrow_buffers(values)
            self._fn[f"valid_bits_i{width * 8}"](data, offsets, count, _address(bits), values.offset)
        validity = values.buffers()[0]
        return pa.Array.from_buffers(pa.bool_(), count, [validity, pa.py_buffer(bits)],
                                     null_count=values.null_count, offset=values.offset)


ARROW_WIDTHS = {"string": 4, "binary": 4, "large_string": 8, "large_binary": 8}
EMPTY = ctypes.create_string_buffer(1)  # the data pointer of an array with no data buffer


def _arrow_buffers(values: Any) -> tuple[int, int, int]:
    """The data address, the address of the array's first offset (its slice offset applied)
    and the offsets' width in bytes."""
    width = arrow_width(values.type)
    _validity, offsets, data = values.buffers()[:3]
    data_address = data.address if data is not None and data.size else ctypes.addressof(EMPTY)
    return data_address, offsets.address + values.offset * width, width


def arrow_width(kind: Any) -> int:
    """4 or 8: the width of an Arrow type's offsets; AbnfError for a type that holds no strings."""
    width = ARROW_WIDTHS.get(str(kind))
    if width is None:
        raise AbnfError.at(None, _("validate_arrow takes a string, large_string, binary or large_binary "
                                   "array, not {type}").format(type=kind))
    return width


__all__ = ["MAX_BAD", "SIZE_MAX", "BadLine", "BatchKernel", "cache_folder", "cache_key", "cached", "find_compiler"]
