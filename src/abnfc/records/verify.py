"""Checking blocks of records: the C batch kernel where there is a DFA and a C compiler, the
generated Python validator where there is a DFA and no compiler, and otherwise the engine
``abnfc check`` would choose (the pushdown validator or the interpreter), one record at a time.

Each verifier returns only the invalid records, with their first error; the bytes expected
there are asked for afterwards, for those records alone.  The grammar files are read once: their
bytes make the key the C library is looked up by in the cache (:mod:`abnfc.native`), before
anything is parsed, so a run with a cached kernel loads neither the parser nor the automata; on
a miss exactly those bytes are compiled, so a file that changes meanwhile cannot put one
grammar's kernel under another's key.
"""
from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from .. import native
from ..charset import Ranges, normalize
from ..errors import LimitError
from ..i18n import _
from .formats import Block

if TYPE_CHECKING:
    from ..engines import Engine
    from ..pipeline import Compilation


class Bad(NamedTuple):
    """An invalid record: its index in its block (``row``), its first error (None when it is
    missing) and its bytes.  A named tuple, not a dataclass: a run may make millions, and a tuple is made
    three times faster."""

    row: int
    offset: int | None
    record: bytes
    reason: str | None = None
    expected: Ranges | None = None  # when the verifier knew them at once (else: Verifier.expected)


class Verifier(Protocol):
    name: str
    parallel: bool  # whether blocks may be checked on several threads at once (C, without Python's lock)

    def errors(self, block: Block) -> tuple[int, list[Bad]]:
        """The number of records in the block and the invalid ones (missing ones left out)."""
    def count(self, block: Block) -> tuple[int, int]:
        """The number of records in the block and of invalid ones (missing ones left out)."""
    def expected(self, record: bytes) -> Ranges: ...


class CVerifier:
    """The batch kernel: one call a block."""

    name = "c"
    parallel = True

    def __init__(self, kernel: native.BatchKernel):
        self.kernel = kernel

    def errors(self, block: Block) -> tuple[int, list[Bad]]:
        if block.count is None:
            count, lines = self.kernel.line_errors(block.data)
            expected = self.kernel.expected_in
            return count, [Bad(index, at, block.data[start:end], None, expected(state))
                           for index, at, start, end, state in lines]
        missing = {index for index, _reason in block.missing}
        found, _invalid_count = self._first_errors(block)
        if block.values is not None:
            return block.count, [Bad(i, at, _arrow_bytes(block.values[i].as_py()))
                                 for i, at in _invalid(found) if i not in missing]
        offsets = block.offsets or array("Q", [0])
        return block.count, [Bad(i, at, block.data[offsets[i]: offsets[i + 1]])
                             for i, at in _invalid(found) if i not in missing]

    def _first_errors(self, block: Block) -> tuple[array, int]:
        """Each record's first error, and how many records are invalid."""
        if block.values is not None:
            found = self.kernel.arrow_first_errors(block.values)
            return found, len(found) - found.count(native.SIZE_MAX)
        return self.kernel.counted_first_errors(block.data, block.offsets or array("Q", [0]))

    def count(self, block: Block) -> tuple[int, int]:
        if block.count is None:  # lines: the kernel counts, and no invalid line becomes an object
            return self.kernel.line_error_count(block.data)
        found, invalid = self._first_errors(block)  # counted in C: no record becomes an object
        return block.count or 0, invalid - sum(found[i] != native.SIZE_MAX for i, _reason in block.missing)

    def expected(self, record: bytes) -> Ranges:
        return self.kernel.expected(record)  # sorted and merged already (P_expected)


def _count(verifier: Verifier, block: Block) -> tuple[int, int]:
    count, bad = verifier.errors(block)
    return count, len(bad)


INVALID_STEP = 64  # records a slice of the first errors that is skipped at once when all are valid


def _invalid(errors: array) -> list[tuple[int, int]]:
    """The (index, first error) of each invalid record: a slice of all valid records (every
    byte 0xFF: SIZE_MAX) is told by comparing its bytes and skipped, since most records are
    valid and a Python loop over each would cost more than checking them."""
    found: list[tuple[int, int]] = []
    raw, width = errors.tobytes(), errors.itemsize
    valid = b"\xff" * (width * INVALID_STEP)
    for start in range(0, len(errors), INVALID_STEP):
        piece = raw[start * width: (start + INVALID_STEP) * width]
        if piece != valid[: len(piece)]:
            found.extend((start + i, at) for i, at in enumerate(errors[start: start + INVALID_STEP])
                         if at != native.SIZE_MAX)
    return found


def _arrow_bytes(value: str | bytes | None) -> bytes:
    return b"" if value is None else value if isinstance(value, bytes) else value.encode("utf-8")


class PythonVerifier:
    """The generated Python validator of the minimal DFA, a record at a time."""

    name = "python"
    parallel = False

    def __init__(self, module):
        self.module = module

    def errors(self, block: Block) -> tuple[int, list[Bad]]:
        missing = {index for index, _reason in block.missing}
        first_error = self.module.first_error
        records = block.records()
        return len(records), [Bad(i, at, record) for i, record in enumerate(records)
                              if i not in missing for at in [first_error(record)] if at is not None]

    def count(self, block: Block) -> tuple[int, int]:
        return _count(self, block)

    def expected(self, record: bytes) -> Ranges:
        validator = self.module.Validator()
        validator.feed(record)
        return normalize(validator.expected())


class EngineVerifier:
    """An engine of ``abnfc check`` (pushdown validator or interpreter), a record at a time;
    a record beyond its limits is invalid, with the limit as the reason."""

    parallel = False

    def __init__(self, engine: Engine):
        self.engine = engine
        self.name = engine.name
        self._expected: dict[bytes, Ranges] = {}

    def errors(self, block: Block) -> tuple[int, list[Bad]]:
        missing = {index for index, _reason in block.missing}
        records = block.records()
        return len(records), [bad for i, record in enumerate(records) if i not in missing
                              for bad in [self.check(i, record)] if bad is not None]

    def check(self, row: int, record: bytes) -> Bad | None:
        """Record ``row`` of its block, if it is invalid."""
        from ..engines import check_bytes

        try:
            outcome = check_bytes(self.engine, record)
        except LimitError as error:
            return Bad(row, None, record, error.diagnostics[0].message)
        if outcome.matched:
            return None
        self._expected[record] = outcome.expected_bytes
        return Bad(row, outcome.offset, record)

    def count(self, block: Block) -> tuple[int, int]:
        self._expected.clear()
        return _count(self, block)

    def expected(self, record: bytes) -> Ranges:
        return self._expected.pop(record, ())


class PushdownCVerifier:
    """A self-embedding grammar's pushdown validator in the batch kernel, one C call a record;
    each refused record is fed once more to learn its status (nested past the depth limit, or
    invalid with the bytes that could continue it there, closing bytes included)."""

    name = "c"
    parallel = True

    def __init__(self, kernel: native.BatchKernel):
        self.fast = CVerifier(kernel)
        self.kernel = kernel

    def errors(self, block: Block) -> tuple[int, list[Bad]]:
        count, refused = self.fast.errors(block)
        return count, [self._reported(one) for one in refused]

    def _reported(self, one: Bad) -> Bad:
        status, at, expected = self.kernel.report(one.record)
        if status == TOO_DEEP:
            return Bad(one.row, None, one.record, _(
                "the input nests deeper than {limit} at byte offset {offset}; the interpreter has no depth limit "
                "(--engine interpreter)").format(limit=self.kernel.max_depth, offset=at))
        if status == NO_MEMORY:
            return Bad(one.row, None, one.record, _(
                "the input nests so deep at byte offset {offset} that its stack needs more memory than there "
                "is").format(offset=at))
        return Bad(one.row, at, one.record, None, expected)

    def count(self, block: Block) -> tuple[int, int]:
        return self.fast.count(block)

    def expected(self, record: bytes) -> Ranges:
        return self.kernel.report(record)[2]


TOO_DEEP, NO_MEMORY = 2, 3  # P_record_report's statuses beyond valid and invalid


@dataclass(frozen=True)
class Choice:
    """What ``--records`` was asked to use: the grammar files, the options that change the code."""

    grammar: str
    imports: tuple[str, ...]
    encoding: str | None
    start: str | None
    engine: str
    limits: tuple[int, int, int]  # max NFA states, max DFA states, max work


def choose(choice: Choice, compilation: Callable[[], Compilation], warn: Callable[[str], None]) -> Verifier:
    """The cached C kernel if there is one, else what the grammar and the machine allow
    (``compilation``: the grammar's, when its files cannot be read here, as from standard input)."""
    cc = native.find_compiler()
    sources = read_sources(choice)
    key = records_key(choice, cc, sources) if cc and sources is not None and choice.engine != "interpreter" else None
    if key is not None:
        kernel = native.cached(key)
        if kernel is not None:
            return PushdownCVerifier(kernel) if kernel.pushdown else CVerifier(kernel)
    # Only now the heavy modules: a cached kernel needs none of them
    from ..engines import choose_engine
    from ..native import batch
    from ..pipeline import load_validators

    compiled = compilation() if sources is None else compile_sources(choice, sources)
    if choice.engine != "interpreter" and compiled.resolved.is_regular:
        try:
            if cc is None:
                warn(_("abnfc check: no C compiler found; checking records with the Python validator, "
                       "which is slower"))
                files = compiled.files(["python"], "validator", "abnfc check")
                return PythonVerifier(load_validators([files], "python")[0])
            return CVerifier(batch.build(cc, key, compiled.files(["c"], "validator", "abnfc check"), warn))
        except LimitError:
            if choice.engine == "dfa":
                raise
    engine = choose_engine(compiled, choice.engine)
    if engine.name == "pushdown" and cc is not None:
        kernel = batch.build(cc, key, compiled.files(["c"], "validator", "abnfc check"), warn)
        return PushdownCVerifier(kernel)
    return EngineVerifier(engine)


MAX_GRAMMAR_BYTES = 16 << 20  # as abnfc.frontend.source's: a larger file is left for it to refuse


def read_sources(choice: Choice) -> tuple[bytes, ...] | None:
    """The bytes of the grammar file and its imports, each read once; None for a grammar on
    standard input, a file that cannot be read or is too large (the compilation says why)."""
    paths: Sequence[str] = (choice.grammar, *choice.imports)
    if "-" in paths:
        return None
    try:
        texts = tuple(_read(path) for path in paths)
    except OSError:
        return None
    return None if any(len(text) > MAX_GRAMMAR_BYTES for text in texts) else texts


def records_key(choice: Choice, cc: str, sources: Sequence[bytes]) -> str:
    """The cache key of the kernel compiled from ``sources`` (the grammar file's bytes and its
    imports') with ``choice``'s options."""
    options = repr((choice.encoding, choice.start, choice.engine, choice.limits, len(sources)))
    return native.kernel_key(cc, "records", options, *sources)


def compile_sources(choice: Choice, sources: Sequence[bytes]) -> Compilation:
    """The compilation of exactly ``sources`` (read by :func:`read_sources`), with ``choice``'s
    options."""
    from ..frontend.source import display_path, from_bytes, with_options
    from ..pipeline import Compilation, Limits

    grammar, *imports = [from_bytes(text, display_path(path))
                         for path, text in zip((choice.grammar, *choice.imports), sources, strict=True)]
    return Compilation(with_options(grammar, imports, choice.encoding), choice.start, Limits(*choice.limits))


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read(MAX_GRAMMAR_BYTES + 1)


def say_once(stream=None) -> Callable[[str], None]:
    """A warning printer that prints each message once (on standard error)."""
    said: set[str] = set()

    def warn(message: str) -> None:
        if message not in said:
            said.add(message)
            print(message, file=stream or sys.stderr)
    return warn


__all__ = ["Bad", "CVerifier", "Choice", "EngineVerifier", "PushdownCVerifier", "PythonVerifier", "Verifier", "choose",
           "compile_sources", "read_sources", "records_key", "say_once"]
