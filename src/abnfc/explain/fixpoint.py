"""Memoised evaluation of a monotone recursive function whose calls may form cycles.

A top-down search over a grammar asks questions that depend on each other ("which ends can rule
r reach from offset i?" needs the same question for the rules r refers to), and left recursion
or a cycle of rules that match the empty string makes a question depend on itself.  The answer
wanted is the least fixed point.  This is the usual treatment of left recursion in memoised
top-down parsing (Johnson 1995, "Memoization in top-down parsing"; the seed growing of Warth,
Douglass and Millstein 2008, "Packrat parsers can support left recursion"): a question met again
while it is being answered gets its current approximation (first the bottom value); once the
answer is computed, a question that was met again is answered again until its value stops
changing.  Answers that used the approximation of a question still being answered further down
the stack are not memoised, since they may change; only the bottom-most question of a cycle
memoises its stable value, and the others are computed again the next time they are asked.
Values must only grow between rounds (sets growing, False becoming True), so rounds end.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from ..errors import Meter

V = TypeVar("V")

_UNKNOWN = object()
_FAR = 1 << 62  # "no dependency on a question in progress"


class Fixpoint(Generic[V]):
    """``get(key)``: ``compute(key)``, memoised, with cycles resolved to the least fixed point."""

    def __init__(self, compute: Callable[[Hashable], V], bottom: V, meter: Meter, stored: Meter | None = None):
        self.compute = compute
        self.bottom = bottom
        self.meter = meter
        self.stored = stored  # counts the answers memoised (a bound on memory), when given
        self.done: dict[Hashable, V] = {}
        self.guess: dict[Hashable, V] = {}  # the current approximation of each question in progress
        self.depth: dict[Hashable, int] = {}  # the stack index of each question in progress
        self.frames: list[list] = []  # per question in progress: [lowest depth used, met again]

    def get(self, key: Hashable) -> V:
        value = self.done.get(key, _UNKNOWN)
        if value is not _UNKNOWN:
            return value  # type: ignore[return-value]
        depth = self.depth.get(key)
        if depth is not None:  # a cycle: answer with the approximation, and say who used it
            self.frames[-1][0] = min(self.frames[-1][0], depth)
            self.frames[depth][1] = True
            return self.guess[key]
        return self._answer(key)

    def _answer(self, key: Hashable) -> V:
        self.meter.spend()
        index = len(self.frames)
        self.depth[key] = index
        self.guess[key] = self.bottom
        lowest = _FAR
        while True:
            frame = [_FAR, False]
            self.frames.append(frame)
            try:
                value = self.compute(key)
            finally:
                self.frames.pop()
            lowest = min(lowest, frame[0])
            changed = value != self.guess[key]
            self.guess[key] = value
            if not (frame[1] and changed):
                break
        del self.depth[key], self.guess[key]
        if lowest < index:  # it used a question still in progress below: not final yet
            self.frames[-1][0] = min(self.frames[-1][0], lowest)
        else:
            self.done[key] = value
            if self.stored is not None:
                self.stored.spend()
        return value
