"""The closure: follow nodes and continuations without consuming input.

Entering a node collects the threads (leaves with their continuations) that can read the next
byte; finishing a continuation pops its frames until it reaches a node to enter.  The result
is one local state: a frozenset of items (:mod:`.nodes`).  Work lists and visited sets replace
recursion, so neither deeply nested grammars nor empty loops can recurse or spin.

Repetitions of an element that can match the empty string are treated as ``0*max``; empty
iterations are never worth taking then, so within one closure only the lowest iteration count
of each repetition is entered, which keeps ``1*100000000( "" / "a" )`` from looping.  A call of
a recursive rule is recorded as a :class:`~.nodes.PendingCall` and made only once a byte that
can start the rule arrives; if the rule can match the empty string, that empty match is taken
here and now, so a call never completes where it was made.
"""
from __future__ import annotations

from typing import Protocol

from .nodes import DONE, END, Alt, Frame, Item, Leaf, PendingCall, Ref, Rep, RepFrame, Seq, SeqFrame, Thread
from .program import Program


class Continuations(Protocol):
    """What a closure needs of the cache (:class:`.cache.Cache`): the program, and continuations
    interned as numbers."""

    program: Program

    def cont(self, frame: Frame) -> int: ...
    def frame(self, cont: int) -> Frame: ...


class Closure:
    __slots__ = ("cache", "entered", "enters", "finished", "finishes", "items", "lowest", "program")

    def __init__(self, cache: Continuations):
        self.cache = cache
        self.program = cache.program
        self.items: set[Item] = set()
        self.entered: set[tuple[int, int]] = set()
        self.finished: set[int] = set()
        self.lowest: dict[tuple[int, int], int] = {}  # (repetition, parent) -> lowest count entered
        self.enters: list[tuple[int, int]] = []
        self.finishes: list[int] = []

    def enter(self, node: int, cont: int) -> Closure:
        self.enters.append((node, cont))
        return self

    def finish(self, cont: int) -> Closure:
        self.finishes.append(cont)
        return self

    def run(self) -> frozenset[Item]:
        while self.finishes or self.enters:
            if self.finishes:
                self._finish(self.finishes.pop())
            else:
                self._enter(*self.enters.pop())
        return frozenset(self.items)

    def _enter(self, index: int, cont: int) -> None:
        if (index, cont) in self.entered or not self.program.productive[index]:
            return
        self.entered.add((index, cont))
        node = self.program.nodes[index]
        if isinstance(node, Leaf):
            self.items.add(Thread(index, cont))
        elif isinstance(node, Alt):
            self.enters.extend((alternative, cont) for alternative in node.items)
        elif isinstance(node, Seq):
            self._enter_item(index, node, 0, cont)
        elif isinstance(node, Rep):
            if node.min == 0:
                self.finishes.append(cont)
            self._iterate(index, node, 0, cont)
        elif isinstance(node, Ref):
            self.enters.append((node.target, cont))
        else:
            self.items.add(PendingCall(node.rule, cont))
            if self.program.call_nullable[node.rule]:
                self.finishes.append(cont)

    def _enter_item(self, index: int, node: Seq, item: int, parent: int) -> None:
        items = node.items
        if item == len(items):
            self.finishes.append(parent)
        elif item == len(items) - 1:  # the last item finishes the concatenation: no frame needed
            self.enters.append((items[item], parent))
        else:
            self.enters.append((items[item], self.cache.cont(SeqFrame(index, item + 1, parent))))

    def _finish(self, cont: int) -> None:
        if cont in self.finished:
            return
        self.finished.add(cont)
        if cont == END:
            self.items.add(DONE)
            return
        frame = self.cache.frame(cont)
        if isinstance(frame, SeqFrame):
            self._enter_item(frame.node, self.program.typed(frame.node, Seq), frame.index, frame.parent)
            return
        node = self.program.typed(frame.node, Rep)
        done = frame.count + 1
        if done >= node.min:
            self.finishes.append(frame.parent)
        self._iterate(frame.node, node, done, frame.parent)

    def _iterate(self, index: int, node: Rep, count: int, parent: int) -> None:
        """Enter the repetition's element after ``count`` iterations."""
        if node.nullable:  # min is 0 then: a lower count allows everything a higher one does
            best = self.lowest.get((index, parent))
            if best is not None and best <= count:
                return
            self.lowest[(index, parent)] = count
        if node.max is None:  # counts above the minimum all behave alike: cap them, stay finite
            cont = self.cache.cont(RepFrame(index, min(count, node.min), parent))
        elif count == node.max - 1:  # the last allowed iteration finishes the repetition
            cont = parent
        else:
            cont = self.cache.cont(RepFrame(index, count, parent))
        self.enters.append((node.element, cont))
