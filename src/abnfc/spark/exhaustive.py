"""Every string of up to N bytes, cut into slices for Spark's tasks, and the work of one task
(``crosscheck --spark``, :mod:`.crosscheck`); nothing here imports pyspark, so the tests run it
without Spark.

The strings come in crosscheck's order: shortest first, then in byte order, so the strings of
``length`` bytes are the numbers 0 .. 256^length - 1 written big-endian.  A :class:`Slice` is a
range of those numbers for one length, and :func:`slices` cuts each length into ranges of equal
size (a multiple of 256, so that a slice holds whole groups of strings that differ only in their
last byte), about as many as asked for, each at least :data:`MIN_TASK` and at most
:data:`MAX_TASK` strings: every string of up to 4 bytes is 1,031 tasks.

A task (:func:`run_share`) walks its slice a group of 256 strings at a time: the grammar's
minimal DFA reads the group's stem once, and the verdicts on the 256 strings are a row looked up
in a table of the state's verdicts after each last byte, so the grammar costs next to nothing;
the implementation, a ``--python`` function loaded from its shipped source, is called in process
on each string.  The task returns counts, the first disagreements and the first accepted valid
inputs (each up to a cap), or the input on which the function raised SystemExit or another
exception that is not an ``Exception`` (an ``Exception`` means rejected, as in
:mod:`abnfc.crosscheck.python_worker`).
"""
from __future__ import annotations

import importlib
import operator
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..automata.dfa import Dfa

MIN_TASK = 1 << 16  # strings: below this, a task costs Spark more than its work
MAX_TASK = 1 << 22  # strings: about 3 s of a fast function on one core, so progress shows and tasks balance
LASTS = tuple(bytes([byte]) for byte in range(256))


@dataclass(frozen=True)
class Slice:
    """The strings of ``length`` bytes whose big-endian value lies in [start, stop)."""

    length: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start

    def strings(self) -> Iterator[bytes]:
        """Its strings, in order (for tests; tasks go a group at a time)."""
        return (value.to_bytes(self.length, "big") for value in range(self.start, self.stop))


def count_upto(length: int) -> int:
    return sum(256 ** n for n in range(length + 1))


def slices(max_length: int, tasks: int, least: int = MIN_TASK, most: int = MAX_TASK) -> list[Slice]:
    """Every string of up to ``max_length`` bytes, in order, in slices of about
    count / ``tasks`` strings (between ``least`` and ``most``, rounded up to a multiple of 256)."""
    size = min(most, max(least, -(-count_upto(max_length) // max(tasks, 1))))
    size = -(-size // 256) * 256
    return [Slice(length, start, min(start + size, 256 ** length))
            for length in range(max_length + 1) for start in range(0, 256 ** length, size)]


@dataclass(frozen=True)
class Table:
    """A minimal DFA as plain tuples: what a task needs of a grammar to give its verdicts."""

    start: int
    accepting: frozenset[int]
    byte_class: bytes
    rows: tuple[tuple[int, ...], ...]  # per state, the next state per byte class

    @classmethod
    def of(cls, dfa: Dfa) -> Table:
        return cls(dfa.start, dfa.accepting, dfa.byte_class, dfa.transitions)

    def walk(self, data: bytes) -> int:
        state, rows = self.start, self.rows
        for cls in data.translate(self.byte_class):
            state = rows[state][cls]
        return state

    def endings(self, state: int) -> list[bool]:
        """The verdict on a string that leads to ``state`` and then has one more byte, per byte."""
        row, accepting = self.rows[state], self.accepting
        return [row[cls] in accepting for cls in self.byte_class]


@dataclass(frozen=True)
class Program:
    """A ``--python`` function for the executors: its module's source when it is a file (loaded
    as :mod:`abnfc.crosscheck.programs` loads it), else the module's name, imported there."""

    spec: str  # as given to --python, for messages
    module: str
    function: str
    source: bytes | None
    path: str  # the source's file name, for tracebacks


@dataclass(frozen=True)
class Job:
    """What every task shares (a broadcast): the grammars, the function, the inputs already tried."""

    token: str  # tells this job's caches apart in a worker process that serves several
    grammar: Table
    others: tuple[Table, ...]  # the --against grammars
    program: Program
    seen: frozenset[bytes]  # inputs of the earlier parts, skipped (each input is tried once)


@dataclass(frozen=True)
class Share:
    """One task: its slice, and how many disagreements and accepted valid inputs to return.  A
    follow-up (``complete=False``) only fetches more of them and stops when it has them."""

    slice: Slice
    kept: int
    accepted: int
    complete: bool = True


@dataclass(frozen=True)
class Raised:
    """The function raised ``error`` (its repr) on ``data``; None: it did not load (``error`` says why)."""

    data: bytes | None
    error: str


@dataclass(frozen=True)
class Tally:
    """A task's answer: counts over its slice (but the inputs already tried), and the first
    disagreements and accepted valid inputs, up to the share's caps."""

    inputs: int
    count: int  # disagreements
    valid_accepted: int  # valid inputs the implementation accepts
    disagreements: tuple[tuple[bytes, bool], ...]  # (input, grammar's verdict)
    accepted: tuple[bytes, ...]
    against: tuple[int, ...]
    raised: Raised | None = None  # the task stopped there


class _Stop(Exception):
    def __init__(self, raised: Raised):
        super().__init__(raised.error)
        self.raised = raised


@dataclass
class _Counter:
    """A task's running counts and finds."""

    share: Share
    against: list[int]
    inputs: int = 0
    count: int = 0
    valid_accepted: int = 0
    disagreements: list[tuple[bytes, bool]] = field(default_factory=list)
    accepted: list[bytes] = field(default_factory=list)

    def full(self) -> bool:
        return len(self.disagreements) >= self.share.kept and len(self.accepted) >= self.share.accepted

    def tally(self, raised: Raised | None = None) -> Tally:
        return Tally(self.inputs, self.count, self.valid_accepted, tuple(self.disagreements), tuple(self.accepted),
                     tuple(self.against), raised)


_LOADED: dict[str, Callable[[bytes], object]] = {}  # per worker process: token -> the function
_ENDINGS: dict[tuple[str, int, int], list[bool]] = {}  # per worker process: (token, grammar, state) -> verdicts


def run_share(job: Job, share: Share) -> Tally:
    """The work of one task (see the module's docstring)."""
    counter = _Counter(share, [0] * len(job.others))
    try:
        function = _function(job)
    except _Stop as stop:
        return counter.tally(stop.raised)
    try:
        for inputs, expected, others in _groups(job, share.slice):
            _judge(counter, inputs, expected, others, _answers(function, inputs))
            if not share.complete and counter.full():
                break
    except _Stop as stop:
        return counter.tally(stop.raised)
    return counter.tally()


def _groups(job: Job, piece: Slice) -> Iterator[tuple[list[bytes], list[bool], list[list[bool]]]]:
    """The slice's strings a group at a time (those that differ only in their last byte), with
    the grammar's verdicts on them and those of the --against grammars, the inputs already
    tried left out."""
    if piece.length == 0:
        if b"" not in job.seen:
            yield [b""], [job.grammar.start in job.grammar.accepting], [
                [other.start in other.accepting] for other in job.others]
        return
    stems_seen = {data[:-1] for data in job.seen if len(data) == piece.length}
    for group in range(piece.start >> 8, ((piece.stop - 1) >> 8) + 1):
        stem = group.to_bytes(piece.length - 1, "big")
        low, high = max(piece.start - (group << 8), 0), min(piece.stop - (group << 8), 256)
        inputs = [stem + last for last in LASTS[low:high]]
        expected = _endings(job, 0, job.grammar, stem)[low:high]
        others = [_endings(job, index + 1, other, stem)[low:high] for index, other in enumerate(job.others)]
        if stem in stems_seen:  # rare: only a few short inputs come from the earlier parts
            keep = [index for index, data in enumerate(inputs) if data not in job.seen]
            inputs, expected = [inputs[i] for i in keep], [expected[i] for i in keep]
            others = [[verdicts[i] for i in keep] for verdicts in others]
        yield inputs, expected, others


def _endings(job: Job, which: int, table: Table, stem: bytes) -> list[bool]:
    state = table.walk(stem)
    key = (job.token, which, state)
    found = _ENDINGS.get(key)
    if found is None:
        found = _ENDINGS[key] = table.endings(state)
    return found


def _answers(function: Callable[[bytes], object], inputs: list[bytes]) -> list[bool]:
    """The function's verdicts, as python_worker gives them: a bool (or int) result is the
    verdict, an Exception means rejected, any other result means accepted; any other exception
    (SystemExit, KeyboardInterrupt) stops the task at that input."""
    found = []
    for data in inputs:
        try:
            result = function(data)
        except Exception:
            found.append(False)
            continue
        except BaseException as error:
            raise _Stop(Raised(data, repr(error))) from None
        found.append(result if result.__class__ is bool else bool(result) if isinstance(result, int) else True)
    return found


def _judge(counter: _Counter, inputs: list[bytes], expected: list[bool], others: list[list[bool]],
           got: list[bool]) -> None:
    share, kept, accepted = counter.share, counter.disagreements, counter.accepted
    counter.inputs += len(inputs)
    for index, verdicts in enumerate(others):
        counter.against[index] += sum(map(operator.ne, verdicts, got))
    if got == expected:  # the common case, compared in C
        valid = expected.count(True)
        counter.valid_accepted += valid
        if valid and len(accepted) < share.accepted:
            accepted.extend([data for data, ok in zip(inputs, expected, strict=True) if ok][:share.accepted
                                                                                          - len(accepted)])
        return
    for data, valid, answer in zip(inputs, expected, got, strict=True):
        if valid != answer:
            counter.count += 1
            if len(kept) < share.kept:
                kept.append((data, valid))
        elif valid:
            counter.valid_accepted += 1
            if len(accepted) < share.accepted:
                accepted.append(data)


def _function(job: Job) -> Callable[[bytes], object]:
    """The job's function, loaded once per worker process."""
    found = _LOADED.get(job.token)
    if found is None:
        found = _LOADED[job.token] = load(job.program)
    return found


def load(program: Program) -> Callable[[bytes], object]:
    """The function, from its shipped source or by its module's name; _Stop when it cannot be
    loaded (whatever the module raises while loading is the user's to fix)."""
    try:
        if program.source is None:
            module = importlib.import_module(program.module)
        else:
            module = types.ModuleType(program.module)
            module.__file__ = program.path
            sys.modules.setdefault(program.module, module)  # as programs._import does, for dataclasses
            exec(compile(program.source, program.path, "exec"), module.__dict__)
    except BaseException as error:
        raise _Stop(Raised(None, f"{type(error).__name__}: {error}")) from None
    function = getattr(module, program.function, None)
    if not callable(function):
        raise _Stop(Raised(None, f"AttributeError: {program.module} has no function {program.function!r}"))
    return function


def run_broadcast(shared: Any, share: Share) -> Tally:
    """A Spark task: the job comes as a broadcast, read once per worker process."""
    return run_share(shared.value, share)
