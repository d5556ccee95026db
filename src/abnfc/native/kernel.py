"""Calling a compiled batch kernel through ctypes: records from one buffer and offsets (Arrow's
layout, with ``size_t``, 32-bit or 64-bit offsets read in place), from Arrow's string and binary
views (read in place, each view checked against its buffer first), or lines the kernel splits
itself, checked with one call a block; each record's first error, or only the invalid ones.
"""
from __future__ import annotations

import _ctypes
import ctypes
import os
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..errors import AbnfError
from ..i18n import _
from .cache import KEY_LENGTH, private_folder, verified

MAX_BAD = 4096  # invalid lines P_line_errors reports a call (5 numbers each)
SIZE_CODE = "Q" if ctypes.sizeof(ctypes.c_size_t) == 8 else "I"  # array typecode of size_t
SIZE_MAX = ctypes.c_size_t(-1).value  # a record's first error when it is valid


def cached(key: str, prefix: str = "validator") -> BatchKernel | None:
    """The library of ``key`` if it was built before and is whole (see :func:`.cache.verified`)."""
    folder, _problem = private_folder()
    if folder is None:
        return None
    path = folder / f"{key}.so"
    return load(path, key, prefix) if verified(path, key) is not None else None


def load(path: Path, key: str, prefix: str = "validator") -> BatchKernel | None:
    """The kernel in the library at ``path``, or None (and the library let go) when it does not
    carry ``key``."""
    lib = ctypes.CDLL(str(path))
    if carried_key(lib) != key:
        _ctypes.dlclose(lib._handle)  # so that a rebuilt file is loaded anew
        return None
    return BatchKernel(lib, prefix)


def carried_key(lib: ctypes.CDLL) -> str | None:
    """The key a library was built with (its ``abnfc_kernel_key``), None if it has none."""
    try:
        text = (ctypes.c_char * (KEY_LENGTH + 1)).in_dll(lib, "abnfc_kernel_key")
    except ValueError:
        return None
    return text.value.decode("ascii", "replace")


def _pairs(out: Any, count: int) -> tuple[tuple[int, int], ...]:
    """The first ``count`` (lo, hi) ranges of a buffer of byte pairs the kernel filled."""
    return tuple((out[2 * k], out[2 * k + 1]) for k in range(count))


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
        self._expected: dict[int, tuple[tuple[int, int], ...]] = {}  # by automaton state
        # every function returns a size_t but error_state (a uint32_t, set below)
        text = ctypes.c_char_p  # bytes passed as they are (ctypes hands over their buffer)
        for name, args in {"error_state": [text, size], "expected": [ctypes.c_uint32, pointer, size],
                           "first_errors": [text, pointer, size, pointer],
                           "first_errors_i32": [pointer, pointer, size, pointer],
                           "first_errors_i64": [pointer, pointer, size, pointer],
                           "valid_bits_i32": [pointer, pointer, size, pointer, size],
                           "first_errors_views": [pointer, pointer, size, size, pointer, pointer, size, pointer],
                           "valid_bits_views": [pointer, pointer, size, size, pointer, pointer, size, pointer],
                           "valid_bits_i64": [pointer, pointer, size, pointer, size],
                           "line_errors": [pointer, size, pointer, size, pointer, pointer]}.items():
            function = getattr(lib, f"{prefix}_{name}")
            function.restype, function.argtypes = size, args
            self._fn[name] = function
        self._fn["error_state"].restype = ctypes.c_uint32
        init = getattr(lib, f"{prefix}_batch_init")
        init.restype, init.argtypes = None, []
        init()  # the table, once, before threads may call the kernel (ctypes lets go of the GIL)
        # built from a pushdown validator: its first errors include input nested past the depth limit
        self.pushdown = bool(getattr(lib, f"{prefix}_batch_pushdown")())
        depth = getattr(lib, f"{prefix}_batch_max_depth")
        depth.restype, depth.argtypes = size, []
        self.max_depth = depth()
        report = self._fn["record_report"] = getattr(lib, f"{prefix}_record_report")
        report.restype, report.argtypes = ctypes.c_int, [text, size, pointer, pointer, size, pointer]

    def expected(self, record: bytes) -> tuple[tuple[int, int], ...]:
        """The byte ranges that could continue ``record`` at its first error."""
        return self.expected_in(self._fn["error_state"](record, len(record)))

    def report(self, record: bytes) -> tuple[int, int, tuple[tuple[int, int], ...]]:
        """(status, offset, expected ranges) of one record (see ``P_record_report``): status 0
        valid, 1 invalid, 2 nested past the depth limit, 3 out of memory."""
        at, count, out = ctypes.c_size_t(), ctypes.c_size_t(), (ctypes.c_uint8 * 512)()
        status = self._fn["record_report"](record, len(record), ctypes.byref(at), out, 256, ctypes.byref(count))
        return status, at.value, _pairs(out, min(count.value, 256))

    def expected_in(self, state: int) -> tuple[tuple[int, int], ...]:
        """The byte ranges that let a match continue from automaton ``state`` (P_expected),
        asked once per state: many invalid records stop in few states."""
        ranges = self._expected.get(state)
        if ranges is None:
            out = (ctypes.c_uint8 * 512)()  # 256 ranges of (lo, hi) at most
            count = self._fn["expected"](state, out, 256)
            ranges = self._expected[state] = _pairs(out, count)
        return ranges

    def first_errors(self, data: bytes, offsets: array) -> array:
        """Each record's first error (SIZE_MAX: valid); ``offsets`` has one more entry than records."""
        return self.counted_first_errors(data, offsets)[0]

    def counted_first_errors(self, data: bytes, offsets: array) -> tuple[array, int]:
        """:meth:`first_errors` and how many records are invalid, counted by the kernel."""
        count = max(len(offsets) - 1, 0)
        out = array(SIZE_CODE, bytes(ctypes.sizeof(ctypes.c_size_t) * count))
        invalid = self._fn["first_errors"](data, _address(offsets), count, _address(out)) if count else 0
        return out, invalid

    def line_errors(self, data: bytes) -> tuple[int, list[tuple[int, int, int, int, int]]]:
        """The number of lines in ``data`` and the invalid ones, each as (index, first error,
        start, end, automaton state at the error) in ``data`` (see ``P_line_errors``; tuples,
        not objects: there may be many)."""
        total, found = 0, list[tuple[int, int, int, int, int]]()
        for lines, start, row in self._line_calls(data):
            numbers = iter(row)
            found.extend((total + index, at, start + begin, start + end, state)
                         for index, at, begin, end, state in zip(numbers, numbers, numbers, numbers, numbers,
                                                                 strict=True))
            total += lines
        return total, found

    def line_error_count(self, data: bytes) -> tuple[int, int]:
        """The number of lines in ``data`` and of invalid ones."""
        total, invalid = 0, 0
        for lines, _start, numbers in self._line_calls(data):
            total, invalid = total + lines, invalid + len(numbers) // 5
        return total, invalid

    def _line_calls(self, data: bytes) -> Iterator[tuple[int, int, array]]:
        """``P_line_errors`` over all of ``data``, MAX_BAD invalid lines a call at most: for each
        call, the lines it checked, where they start in ``data`` and its five numbers a line."""
        bad = array(SIZE_CODE, bytes(ctypes.sizeof(ctypes.c_size_t) * 5 * MAX_BAD))
        lines, consumed = ctypes.c_size_t(), ctypes.c_size_t()
        base, start = _address(data), 0
        while start < len(data):
            n = self._fn["line_errors"](base + start, len(data) - start, _address(bad), MAX_BAD,
                                        ctypes.byref(lines), ctypes.byref(consumed))
            yield lines.value, start, bad[: 5 * n]
            start += consumed.value

    def arrow_first_errors(self, values: Any) -> array:
        """Each element's first error (SIZE_MAX: valid or null) of a pyarrow string or binary
        array (offsets or views), read from its own buffers."""
        count = len(values)
        out = array(SIZE_CODE, bytes(ctypes.sizeof(ctypes.c_size_t) * count))
        if count:
            width = arrow_width(values.type)
            if width:
                data, offsets = _arrow_buffers(values, width)
                self._fn[f"first_errors_i{width * 8}"](data, offsets, count, _address(out))
            else:
                views = _Views(values)
                views.check(self._fn["first_errors_views"](*views.arguments, _address(out)))
        return out

    def valid_bits(self, values: Any) -> Any:
        """A pyarrow BooleanArray: whether each element matches; nulls stay null."""
        import pyarrow as pa

        count = len(values)
        bits = bytearray((values.offset + count + 7) // 8 or 1)
        if count:
            width, out = arrow_width(values.type), _address(bits)
            if width:
                data, offsets = _arrow_buffers(values, width)
                check = self._fn[f"valid_bits_i{width * 8}"]
                _in_pieces(values.offset, count, lambda start, n: check(
                    data, offsets + start * width, n, out, values.offset + start))
            else:
                views, check = _Views(values), self._fn["valid_bits_views"]
                address, validity, first, _count, *buffers = views.arguments
                _in_pieces(values.offset, count, lambda start, n: views.check(check(
                    address, validity, first + start, n, *buffers, out)))
        validity = values.buffers()[0]
        return pa.Array.from_buffers(pa.bool_(), count, [validity, pa.py_buffer(bits)],
                                     null_count=values.null_count, offset=values.offset)


PIECE = 1 << 18  # values a thread checks at least: fewer cost more to hand over than to check
_POOL: list[ThreadPoolExecutor] = []  # made on first use, for the life of the process


def _in_pieces(offset: int, count: int, run: Callable[[int, int], object]) -> None:
    """``run(start, n)`` over values 0 .. count, in pieces on a thread per processor (up to four)
    when there are many: the kernel runs without Python's lock.  Each piece starts on a whole
    byte of the bitmap (offset + start a multiple of 8), so that no two threads write one byte."""
    workers = min(4, os.cpu_count() or 1)
    if workers < 2 or count < 2 * PIECE:
        run(0, count)
        return
    step = -(-count // workers)
    cuts = sorted({0, count, *(min(count, (start + offset + 7) // 8 * 8 - offset)
                               for start in range(step, count, step))})
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(workers, thread_name_prefix="abnfc-kernel"))
    for future in [_POOL[0].submit(run, start, stop - start) for start, stop in pairwise(cuts)]:
        future.result()


ARROW_WIDTHS = {"string": 4, "binary": 4, "large_string": 8, "large_binary": 8,
                "string_view": 0, "binary_view": 0}  # 0: views, not offsets
EMPTY = ctypes.create_string_buffer(1)  # the data pointer of an array with no data buffer


def _arrow_buffers(values: Any, width: int) -> tuple[int, int]:
    """The data address and the address of the array's first offset (its slice offset applied)."""
    _validity, offsets, data = values.buffers()[:3]
    data_address = data.address if data is not None and data.size else ctypes.addressof(EMPTY)
    return data_address, offsets.address + values.offset * width


class _Views:
    """The kernel's arguments for a string_view or binary_view array: the views, the validity
    bitmap (or none), the first value, the count, and the data buffers' addresses and sizes (the
    array keeps the buffers alive)."""

    def __init__(self, values: Any):
        validity, views, *data = values.buffers()
        self.addresses = (ctypes.c_void_p * max(len(data), 1))(*[b.address if b is not None else 0 for b in data])
        self.sizes = (ctypes.c_int64 * max(len(data), 1))(*[b.size if b is not None else 0 for b in data])
        self.arguments = (views.address, validity.address if validity is not None else None, values.offset,
                          len(values), self.addresses, self.sizes, len(data))
        self.type = values.type

    def check(self, invalid: int) -> None:
        """An AbnfError when the kernel found a view outside its buffer."""
        if invalid == SIZE_MAX:
            raise AbnfError.at(None, _("a {type} array has a view outside its data buffers; it is malformed").format(
                type=self.type))


def arrow_width(kind: Any) -> int:
    """4 or 8: the width of an Arrow type's offsets, 0 for views; AbnfError for a type that holds
    no strings."""
    width = ARROW_WIDTHS.get(str(kind))
    if width is None:
        raise AbnfError.at(None, _("validate_arrow takes a string, large_string, binary, large_binary, string_view "
                                   "or binary_view array, not {type}").format(type=kind))
    return width


__all__ = ["MAX_BAD", "SIZE_MAX", "BatchKernel", "cached", "carried_key", "load"]
