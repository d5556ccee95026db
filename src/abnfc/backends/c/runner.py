"""Load rendered C: compile the sources of one or more grammars into one shared library and
call it through ctypes, with the interface of the generated Python module.

A batch of grammars (each file set has its own prefix) is compiled as a few *unity builds*, each
a file that includes several generated sources, one per processor and in parallel, then linked
into one library.  That is what makes running every case of a test suite through the C backend
cheap, and it relies on (so it also tests) what generated sources promise: every identifier is
prefixed and every private macro undefined at the end.  The compiler is ``$CC`` if set, else
``cc``, ``gcc`` or ``clang``, whichever is found first.

A pushdown validator (a recursive grammar's; its source defines ``<prefix>_validate``) is
wrapped as the generated Python module is: ``max_depth`` where that module takes it (None: the
default, 100,000; ``math.inf``: no limit), :class:`NestingError` past the limit, ``depth`` on the
incremental validator.
"""
from __future__ import annotations

import ctypes
import math
import os
import subprocess
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...automata.pushdown import DEFAULT_MAX_DEPTH
from ...automata.pushdown import NestingError as ReferenceNestingError
from ...errors import AbnfError
from ...i18n import _
from ...native import find_compiler
from .. import Validator
from ..arrow_input import as_bytes

SIZE_MAX = ctypes.c_size_t(-1).value
CFLAGS = ["-std=c99", "-O2", "-fPIC", "-Wall", "-Werror"]


def compiler() -> str:
    found = find_compiler()
    if found is not None:
        return found
    raise AbnfError.at(None, _("no C compiler found (looked for $CC, cc, gcc and clang); install "
                               "one, for example with 'apt-get install gcc'"))


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[CValidator | CPushdownValidator]:
    prefixes, sources = [], []
    for files in file_sets:
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        [source] = [name for name in files if name.endswith(".c")]
        prefixes.append(source[:-2])
        sources.append(source)
    library = folder / f"lib{prefixes[0] if len(prefixes) == 1 else 'validators'}.so"
    cc = compiler()
    objects = _compile_in_parallel(cc, folder, sources)
    _run([cc, "-shared", "-o", str(library), *map(str, objects)])
    lib = ctypes.CDLL(str(library))
    return [(CPushdownValidator if hasattr(lib, f"{prefix}_validate") else CValidator)(lib, prefix, files)
            for prefix, files in zip(prefixes, file_sets, strict=True)]


def _compile_in_parallel(cc: str, folder: Path, sources: list[str]) -> list[Path]:
    """One unity build per processor, compiled at the same time; returns the object files."""
    jobs = max(1, min(len(sources), os.cpu_count() or 1))
    units = []
    for job in range(jobs):
        unit = folder / f"abnfc_unity_{job}.c"
        unit.write_text("".join(f'#include "{source}"\n' for source in sources[job::jobs]), encoding="utf-8")
        units.append(unit)
    running = [subprocess.Popen([cc, *CFLAGS, "-I", str(folder), "-c", "-o", str(unit.with_suffix(".o")),
                                 str(unit)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
               for unit in units]
    failures = [output for process in running
                for output in [process.communicate()[0]] if process.returncode != 0]
    if failures:
        raise AbnfError.at(None, f"the C compiler failed on the generated code:\n{failures[0][-4000:]}")
    return [unit.with_suffix(".o") for unit in units]


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise AbnfError.at(None, f"{command[0]} failed:\n{result.stderr[-4000:]}")


def _as_bytes(data) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        raise TypeError("expected bytes, got str: pass bytes (for example text.encode('utf-8'))")
    return bytes(memoryview(data).cast("B"))


class _Range(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_uint8), ("hi", ctypes.c_uint8)]


class CValidator(Validator):
    """A grammar's generated C, called in process."""

    def __init__(self, lib: ctypes.CDLL, prefix: str, files: Mapping[str, str] | None = None):
        self.prefix = prefix
        self._files = files  # the generated source, for the batch kernel (validate_arrow)
        self._kernel: Any = None  # the batch kernel (abnfc.native.batch), built on first use
        self._fn = {}
        signatures = {
            "is_valid": (ctypes.c_bool, [ctypes.c_char_p, ctypes.c_size_t]),
            "first_error": (ctypes.c_size_t, [ctypes.c_char_p, ctypes.c_size_t]),
            "stream_init": (None, [ctypes.c_void_p]),
            "stream_feed": (ctypes.c_bool, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]),
            "stream_finish": (ctypes.c_size_t, [ctypes.c_void_p]),
            "stream_complete": (ctypes.c_bool, [ctypes.c_void_p]),
            "stream_offset": (ctypes.c_size_t, [ctypes.c_void_p]),
            "stream_state": (ctypes.c_uint32, [ctypes.c_void_p]),
            "expected": (ctypes.c_size_t, [ctypes.c_uint32, ctypes.POINTER(_Range), ctypes.c_size_t]),
            "stream_expected": (ctypes.c_size_t, [ctypes.c_void_p, ctypes.POINTER(_Range), ctypes.c_size_t]),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, f"{prefix}_{name}")
            function.restype, function.argtypes = restype, argtypes
            self._fn[name] = function

    def is_valid(self, data) -> bool:
        data = _as_bytes(data)
        return bool(self._fn["is_valid"](data, len(data)))

    def first_error(self, data) -> int | None:
        data = _as_bytes(data)
        offset = self._fn["first_error"](data, len(data))
        return None if offset == SIZE_MAX else offset

    def first_errors(self, inputs: Sequence[bytes]) -> list[int | None]:
        return [self.first_error(data) for data in inputs]

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        return _ranges(lambda out, cap: self._fn["expected"](state, out, cap))

    def validate_arrow(self, values):
        """Whether each element of a pyarrow string, large_string, binary, large_binary, string_view or
        binary_view array (or chunked array) matches, as a BooleanArray (nulls stay null), checked by the batch
        kernel over the array's own buffers; the kernel is compiled once and cached."""
        self._kernel = self._kernel or _batch_kernel(self._files)
        return _in_chunks(self._kernel.valid_bits, as_bytes(values))

    def Validator(self) -> CStream:
        return CStream(self._fn)


def _ranges(call) -> list[tuple[int, int]]:
    count = call(None, 0)
    out = (_Range * max(count, 1))()
    call(out, count)
    return [(out[k].lo, out[k].hi) for k in range(count)]


class CStream:
    """The stream API, as the generated Python module's ``Validator``."""

    def __init__(self, fn):
        self._fn = fn
        self._memory = (ctypes.c_uint64 * 32)()  # more than the struct needs, suitably aligned
        self._handle = ctypes.cast(self._memory, ctypes.c_void_p)
        fn["stream_init"](self._handle)

    def feed(self, chunk) -> bool:
        data = _as_bytes(chunk)
        return bool(self._fn["stream_feed"](self._handle, data, len(data)))

    @property
    def complete(self) -> bool:
        return bool(self._fn["stream_complete"](self._handle))

    def first_error(self) -> int | None:
        offset = self._fn["stream_finish"](self._handle)
        return None if offset == SIZE_MAX else offset

    def expected(self) -> list[tuple[int, int]]:
        return _ranges(lambda out, cap: self._fn["stream_expected"](self._handle, out, cap))

    @property
    def state(self) -> int:
        return int(self._fn["stream_state"](self._handle))

    @property
    def offset(self) -> int:
        return int(self._fn["stream_offset"](self._handle))


# The status a pushdown validator's functions return (``<prefix>_status`` in its header).
VALID, INVALID, TOO_DEEP, NO_MEMORY = 0, 1, 2, 3


class NestingError(ReferenceNestingError, ValueError):
    """A C pushdown validator's input nests deeper than its depth limit.  Caught as the
    reference's (:class:`abnfc.automata.pushdown.NestingError`) or as the generated Python
    module's (a ValueError), with that module's message."""

    def __init__(self, offset: int, limit: int):
        Exception.__init__(self, f"the input nests deeper than {limit} at byte offset {offset}; "
                                 "raise max_depth if this is intended")
        self.offset = offset
        self.limit = limit


def _limit(max_depth: float | None) -> int:
    """The C depth limit: the default for None, SIZE_MAX (never reached) for infinity."""
    if max_depth is None:
        return DEFAULT_MAX_DEPTH
    return SIZE_MAX if math.isinf(max_depth) else int(max_depth)


def _verdict(status: int, at: int, limit: int) -> int | None:
    """A status and its offset as the Python module answers: None, an offset, or an exception."""
    if status == VALID:
        return None
    if status == INVALID:
        return at
    if status == TOO_DEEP:
        raise NestingError(at, limit)
    raise MemoryError(f"the C validator's stack could not grow at byte offset {at}")


class CPushdownValidator(Validator):
    """A recursive grammar's generated C (a pushdown validator), called in process."""

    NestingError = NestingError  # what it raises past the depth limit, as the Python module's attribute
    MAX_DEPTH = DEFAULT_MAX_DEPTH

    def __init__(self, lib: ctypes.CDLL, prefix: str, files: Mapping[str, str] | None = None):
        self.prefix = prefix
        self._files = files  # the generated source, for the batch kernel (validate_arrow)
        self._kernel: Any = None
        self._fn = {}
        handle, size = ctypes.c_void_p, ctypes.c_size_t
        signatures = {
            "validate": (ctypes.c_int, [ctypes.c_char_p, size, size, ctypes.POINTER(size)]),
            "stream_init_depth": (None, [handle, size]),
            "stream_feed": (ctypes.c_bool, [handle, ctypes.c_char_p, size]),
            "stream_result": (ctypes.c_int, [handle, ctypes.POINTER(size)]),
            "stream_offset": (size, [handle]),
            "stream_state": (ctypes.c_uint32, [handle]),
            "stream_depth": (size, [handle]),
            "stream_free": (None, [handle]),
            "expected": (size, [ctypes.c_uint32, ctypes.POINTER(_Range), size]),
            "stream_expected": (size, [handle, ctypes.POINTER(_Range), size]),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, f"{prefix}_{name}")
            function.restype, function.argtypes = restype, argtypes
            self._fn[name] = function

    def first_error(self, data, max_depth: float | None = None) -> int | None:
        data = _as_bytes(data)
        limit = _limit(max_depth)
        at = ctypes.c_size_t()
        status = self._fn["validate"](data, len(data), limit, ctypes.byref(at))
        return _verdict(status, at.value, limit)

    def is_valid(self, data, max_depth: float | None = None) -> bool:
        return self.first_error(data, max_depth) is None

    def first_errors(self, inputs: Sequence[bytes], max_depth: float | None = None) -> list[int | None]:
        return [self.first_error(data, max_depth) for data in inputs]

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        return _ranges(lambda out, cap: self._fn["expected"](state, out, cap))

    def validate_arrow(self, values):
        """As the regular validator's validate_arrow, the batch kernel calling this validator once
        a value (up to MAX_DEPTH); a value nested deeper raises NestingError, as is_valid does."""
        self._kernel = self._kernel or _batch_kernel(self._files)
        return _in_chunks(self._checked_arrow, as_bytes(values))

    def _checked_arrow(self, values):
        import pyarrow.compute as pc

        verdicts = self._kernel.valid_bits(values)
        for index in pc.indices_nonzero(pc.invert(verdicts.fill_null(True))).to_pylist():
            value = values[index].as_py()
            status, at, _expected = self._kernel.report(value.encode("utf-8") if isinstance(value, str) else value)
            _verdict(status, at, self._kernel.max_depth)  # NestingError or MemoryError where there is no verdict
        return verdicts

    def Validator(self, max_depth: float | None = None) -> CPushdownStream:
        return CPushdownStream(self._fn, _limit(max_depth))


def _batch_kernel(files: Mapping[str, str] | None) -> Any:
    """The batch kernel of a generated source, compiled once and cached (:mod:`abnfc.native.batch`)."""
    from ...native import batch

    if files is None:
        raise AbnfError.at(None, _("this validator was loaded without its source; load it with "
                                   "abnfc.load_validator to validate Arrow arrays"))
    cc = compiler()
    return batch.build(cc, None, files)


def _in_chunks(check, values):
    """``check`` over a pyarrow array, or over each chunk of a ChunkedArray, in place."""
    if hasattr(values, "chunks"):
        import pyarrow as pa

        return pa.chunked_array([check(chunk) for chunk in values.chunks], type=pa.bool_())
    return check(values)


def _free_stream(free, memory) -> None:
    free(ctypes.cast(memory, ctypes.c_void_p))


class CPushdownStream(CStream):
    """The stream API of a pushdown validator, as the generated Python module's ``Validator``:
    feed() raises NestingError past the depth limit, and again on every later call, as does
    first_error() then (there is no verdict); the stack's heap memory is freed with the object."""

    def __init__(self, fn, limit: int):  # not CStream.__init__: the stream is set up with its depth limit
        self._fn = fn
        self._limit = limit
        # More than the struct needs (its inline stack is 64 entries of at most 4 bytes), aligned.
        self._memory = (ctypes.c_uint64 * 128)()
        self._handle = ctypes.cast(self._memory, ctypes.c_void_p)
        fn["stream_init_depth"](self._handle, limit)
        weakref.finalize(self, _free_stream, fn["stream_free"], self._memory)

    def _result(self) -> tuple[int, int]:
        at = ctypes.c_size_t()
        status = self._fn["stream_result"](self._handle, ctypes.byref(at))
        return status, at.value

    def feed(self, chunk) -> bool:
        data = _as_bytes(chunk)
        going = bool(self._fn["stream_feed"](self._handle, data, len(data)))
        if not going:
            status, at = self._result()
            if status != INVALID:
                _verdict(status, at, self._limit)
        return going

    @property
    def complete(self) -> bool:
        return self._result()[0] == VALID

    def first_error(self) -> int | None:
        return _verdict(*self._result(), self._limit)

    @property
    def depth(self) -> int:
        return int(self._fn["stream_depth"](self._handle))
