"""What the recogniser reports: verdicts, the bytes and rules it expected, and the work limit.

A failure report lists, per rule, the bytes whose terminals in that rule's definition could have
read the next byte: the leaves of the live threads, and the FIRST leaves of the pending calls.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..charset import Ranges, format_abnf
from ..errors import Diagnostic, LimitError
from .cache import Cache
from .nodes import Leaf, PendingCall, Thread

DEFAULT_MAX_WORK = 20_000_000  # steps on the stack beyond WORK_PER_BYTE (see the recogniser's "Work limit")
WORK_PER_BYTE = 100  # steps allowed for each byte read, on top of max_work


class WorkLimitError(LimitError):
    """The recogniser took more than ``limit`` steps beyond :data:`WORK_PER_BYTE` per byte read;
    ``offset`` is the byte it had reached."""

    def __init__(self, offset: int, steps: int, limit: int):
        self.offset, self.steps, self.limit = offset, steps, limit
        super().__init__(Diagnostic(
            f"the interpreter gave up at offset {offset} after {steps} steps, more than the work "
            f"limit of {limit} plus {WORK_PER_BYTE} a byte: the grammar is too ambiguous for this "
            "input (such grammars take up to cubic time); raise the limit with --max-work if this "
            "is intended"))


class DepthLimitError(LimitError):
    """The input opened more than ``limit`` calls of recursive rules at once (the recogniser's
    ``max_depth``); ``offset`` is the byte that opened one too many."""

    def __init__(self, offset: int, limit: int):
        self.offset, self.limit = offset, limit
        super().__init__(Diagnostic(f"the input nests deeper than {limit} at byte offset {offset}"))


@dataclass(frozen=True, order=True)
class Expectation:
    """Bytes some parse could have consumed, and the rule whose body holds that terminal."""

    ranges: Ranges
    rule: str

    def __str__(self) -> str:
        return f"{format_abnf(self.ranges)} ({self.rule})"


@dataclass(frozen=True)
class Verdict:
    """Whether the input matched; if not, where and why not.

    ``offset`` is None when matched; otherwise the offset of the first byte no parse could
    consume, or the input length when the input ended while parses were incomplete
    (``end_of_input`` is then True).  ``expected`` lists what some parse could have consumed at
    ``offset``.  ``could_end`` is True when the input before ``offset`` is itself a match: the
    grammar wanted the input to end there (or to go on as ``expected`` says).
    """

    matched: bool
    offset: int | None
    expected: tuple[Expectation, ...] = ()
    end_of_input: bool = False
    could_end: bool = False

    def describe(self) -> str:
        if self.matched:
            return "matched"
        wanted = _join_or([str(e) for e in self.expected])
        if not self.end_of_input:
            return f"offset {self.offset}: expected {wanted or 'end of input'}"
        ending = f"offset {self.offset}: unexpected end of input"
        return f"{ending}; expected {wanted}" if wanted else ending


def _join_or(words: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def expectations(cache: Cache, sids) -> tuple[Expectation, ...]:
    program = cache.program
    masks: dict[str, int] = {}
    for sid in sids:
        for item in cache.states[sid]:
            if isinstance(item, Thread):
                leaves: tuple[int, ...] = (item.leaf,)
            elif isinstance(item, PendingCall):
                leaves = program.call_first[item.rule]
            else:
                continue
            for index in leaves:
                leaf = program.typed(index, Leaf)
                masks[leaf.rule] = masks.get(leaf.rule, 0) | leaf.mask
    return tuple(sorted(Expectation(_ranges(mask), rule) for rule, mask in masks.items()))


def _ranges(mask: int) -> Ranges:
    """The runs of set bits in ``mask``, lowest first."""
    ranges = []
    while mask:
        low = (mask & -mask).bit_length() - 1
        run = mask >> low
        length = (run ^ (run + 1)).bit_length() - 1  # trailing ones
        ranges.append((low, low + length - 1))
        mask &= ~(((1 << length) - 1) << low)
    return tuple(ranges)
