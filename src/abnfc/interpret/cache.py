"""Memo tables: interned continuations and local states, and their memoised transitions.

Continuations are chains of frames interned as small integers keyed by (frame, parent id), so
comparing and hashing them never walks a chain.  Local states are interned too, and stepping a
local state by a byte class is memoised in a lazily filled table, so for a grammar without
recursive rules the recogniser's inner loop is one list lookup per byte:
``sid = table[sid][byte_class]``.  Per state the items are also kept pre-digested for stepping.

Recognisers of one grammar share its cache (:func:`shared_for`); the slow paths hold a lock.
When the tables pass their bound the recogniser starts a new cache holding only what it still
refers to (see :mod:`.recognizer`), so correctness never depends on the cache.
"""
from __future__ import annotations

import dataclasses
import threading
import weakref

from ..errors import InvariantError
from ..frontend.resolve import ResolvedGrammar
from .closure import Closure
from .nodes import DEAD, DONE, END, UNKNOWN, Frame, Item, PendingCall, Thread
from .program import Program


class Cache:
    def __init__(self, program: Program):
        self.program = program
        self.lock = threading.RLock()
        self.conts: list[Frame | None] = [None]  # END has no frame
        self.cont_ids: dict[Frame, int] = {}
        self.states: list[frozenset[Item]] = []
        self.state_ids: dict[frozenset[Item], int] = {}
        self.threads: list[tuple[tuple[int, int], ...]] = []  # per state: (class mask, cont)
        self.calls: list[tuple[PendingCall, ...]] = []  # per state: its pending calls
        self.done: list[bool] = []
        self.live: list[bool] = []  # could still consume a byte
        self.call_starts: list[int] = []  # byte classes that can start one of the pending calls
        self.reads: list[int] = []  # byte classes that a thread or a pending call can read
        self.table: list[list[int]] = []
        self.union_memo: dict[tuple[int, int], int] = {}
        self.finish_memo: dict[int, int] = {}
        self.call_memo: dict[int, int] = {}
        self.start_state: int | None = None
        self.live_calls_memo: dict[tuple[int, int], tuple[PendingCall, ...]] = {}
        self.expected_memo: dict[frozenset[int], tuple] = {}
        self.intern(frozenset())  # DEAD
        self.done_only = self.intern(frozenset([DONE]))  # a body that completed and can do no more

    def full(self, limit: int) -> bool:
        memos = (len(self.conts) + len(self.union_memo) + len(self.live_calls_memo)
                 + len(self.expected_memo))
        return len(self.states) > limit or memos > 4 * limit

    def cont(self, frame: Frame) -> int:
        cont = self.cont_ids.get(frame)
        if cont is None:
            cont = self.cont_ids[frame] = len(self.conts)
            self.conts.append(frame)
        return cont

    def frame(self, cont: int) -> Frame:
        frame = self.conts[cont]
        if frame is None:
            raise InvariantError("END has no frame")
        return frame

    def intern(self, items: frozenset[Item]) -> int:
        sid = self.state_ids.get(items)
        if sid is None:
            sid = self.state_ids[items] = len(self.states)
            self.states.append(items)
            self._digest(items)
            self.table.append([UNKNOWN] * self.program.num_classes)
        return sid

    def _digest(self, items: frozenset[Item]) -> None:
        by_cont: dict[int, int] = {}
        calls = []
        starts = 0
        for item in items:
            if isinstance(item, Thread):
                by_cont[item.cont] = by_cont.get(item.cont, 0) | self.program.leaf_classes[item.leaf]
            elif isinstance(item, PendingCall):
                calls.append(item)
                starts |= self.program.call_first_classes[item.rule]
        self.threads.append(tuple((mask, cont) for cont, mask in by_cont.items()))
        self.calls.append(tuple(calls))
        self.done.append(DONE in items)
        self.live.append(bool(by_cont or calls))
        self.call_starts.append(starts)
        reads = starts
        for mask in by_cont.values():
            reads |= mask
        self.reads.append(reads)

    def union(self, first: int, second: int) -> int:
        key = (first, second)
        sid = self.union_memo.get(key)
        if sid is None:
            with self.lock:
                sid = self.union_memo[key] = self.intern(self.states[first] | self.states[second])
        return sid

    def step(self, sid: int, byte_class: int) -> int:
        """The local state after ``sid`` consumed a byte of ``byte_class`` (memoised)."""
        with self.lock:
            parts = [self.finish(cont) for mask, cont in self.threads[sid] if mask >> byte_class & 1]
            if not parts:
                result = DEAD
            elif len(parts) == 1:
                result = parts[0]
            else:
                result = self.intern(frozenset().union(*(self.states[p] for p in parts)))
            self.table[sid][byte_class] = result
            return result

    def finish(self, cont: int) -> int:
        """The local state reached by completing whatever ``cont`` continues."""
        sid = self.finish_memo.get(cont)
        if sid is None:
            with self.lock:
                sid = self.finish_memo[cont] = self.intern(Closure(self).finish(cont).run())
        return sid

    def call(self, rule: int) -> int:
        """The local state of a fresh call of recursive rule ``rule``."""
        sid = self.call_memo.get(rule)
        if sid is None:
            with self.lock:
                root = self.program.call_root[rule]
                sid = self.call_memo[rule] = self.intern(Closure(self).enter(root, END).run())
        return sid

    def start(self) -> int:
        """The local state before any input."""
        if self.start_state is None:
            with self.lock:
                self.start_state = self.intern(Closure(self).enter(self.program.start, END).run())
        return self.start_state

    def live_calls(self, sid: int, byte_class: int) -> tuple[PendingCall, ...]:
        """The pending calls in ``sid`` whose rule can start with a byte of ``byte_class``."""
        key = (sid, byte_class)
        calls = self.live_calls_memo.get(key)
        if calls is None:
            first = self.program.call_first_classes
            calls = tuple(call for call in self.calls[sid] if first[call.rule] >> byte_class & 1)
            self.live_calls_memo[key] = calls
        return calls

    def moved_into(self, new: Cache, conts: set[int]) -> dict[int, int]:
        """Re-intern ``conts`` and their ancestors in ``new``; returns old id -> new id.

        Parents always have smaller ids than their children, so one ascending pass suffices.
        """
        needed = set(conts)
        stack = list(conts)
        while stack:
            cont = stack.pop()
            if cont != END:
                parent = self.frame(cont).parent
                if parent not in needed:
                    needed.add(parent)
                    stack.append(parent)
        moved = {END: END}
        for cont in sorted(needed - {END}):
            frame = self.frame(cont)
            moved[cont] = new.cont(dataclasses.replace(frame, parent=moved[frame.parent]))
        return moved


class Shared:
    """A grammar's program and its current cache, shared by the grammar's recognisers; a
    recogniser that compacts the cache puts the new one here for the others."""

    def __init__(self, program: Program):
        self.program = program
        self.cache = Cache(program)


_shared: dict[int, tuple[weakref.ref, Shared]] = {}
_shared_lock = threading.Lock()


def shared_for(grammar: ResolvedGrammar) -> Shared:
    """Built once per grammar object, so its recognisers share the memo tables."""
    key = id(grammar)
    with _shared_lock:
        entry = _shared.get(key)
        if entry is not None and entry[0]() is grammar:
            return entry[1]
    shared = Shared(Program(grammar))

    def forget(ref, key=key):
        with _shared_lock:
            if _shared.get(key, (None,))[0] is ref:
                del _shared[key]
    try:
        ref = weakref.ref(grammar, forget)
    except TypeError:  # not weak-referenceable: just do not share
        return shared
    with _shared_lock:
        _shared[key] = (ref, shared)
    return shared
