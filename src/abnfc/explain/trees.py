"""Derivation trees built top-down from the answers of a :class:`~.search.Search`.

At each choice (an alternative, where a concatenation splits, which iterations a repetition
makes) the builder takes the first option that derives its span, and checks whether a second
one does: if no choice of the tree has two options, the input has exactly one derivation;
otherwise the first such choice (from the top) is recorded, and :func:`rebuild` builds the same
rule again taking its second option, which shows a second derivation.  Rules being built are
kept on a path so that a cycle of rules over the same bytes is never followed.  The trees of a
rejected input's prefix (:func:`open_tree`) keep as much as can be complete and leave the rules
that would read the next byte open.
"""
from __future__ import annotations

from typing import assert_never

from ..frontend import ir
from .search import Choice, Derivation, Leaf, Search


def tree(search: Search) -> Derivation | None:
    """A derivation of all of the data from the start rule, or None if there is none."""
    return _Builder(search, {}).rule(search.grammar.start, 0, len(search.data))


def rebuild(search: Search, key: str, i: int, j: int, override: dict[Choice, int]) -> Derivation | None:
    """Rule ``key`` over data[i:j] again, taking option ``override[choice]`` at each choice given."""
    return _Builder(search, override).rule(key, i, j)


def open_tree(search: Search) -> Derivation | None:
    """A derivation of the data as the beginning of something the start rule derives, one that
    could go on with a byte; None if nothing can follow the data."""
    return _Builder(search, {}).open_rule(search.grammar.start, 0)


class _Builder:
    """Builds one tree top-down; records the first choice with two options (an ambiguity)."""

    def __init__(self, search: Search, override: dict[Choice, int]):
        self.search = search
        self.override = override
        self.path: set[tuple[str, int, int]] = set()  # rules being built (end -1: open), to stay out of cycles

    def options(self, choice: Choice, viable: list, context: tuple[str, int, int]) -> list:
        """``viable`` in the order to try them; the first choice with two options is recorded."""
        if len(viable) > 1 and context is not None and not self.override and self.search.ambiguity is None:
            self.search.ambiguity = (context, choice)
        taken = self.override.get(choice)
        if taken is not None and taken < len(viable):
            return [viable[taken], *viable[:taken], *viable[taken + 1:]]
        return viable

    def rule(self, key: str, i: int, j: int) -> Derivation | None:
        here = (key, i, j)
        if here in self.path:
            return None
        search = self.search
        alternatives = search.alternatives(key)
        viable = [a for a, body in enumerate(alternatives) if search.derives(body, i, j)]
        self.path.add(here)
        try:
            for a in self.options(("rule", *here), viable, here):
                children = self.node(alternatives[a], i, j, here)
                if children is not None:
                    return Derivation(search.grammar.rule(key).name, a + 1, len(alternatives), i, j, tuple(children))
            return None
        finally:
            self.path.discard(here)

    def node(self, node: ir.Node, i: int, j: int, context) -> list | None:
        search = self.search
        search.meter.spend()
        match node:
            case ir.Terminal():
                return [Leaf(node.origin, i)]
            case ir.Ref():
                found = self.rule(node.key, i, j)
                return None if found is None else [found]
            case ir.Alt():
                viable = [item for item in node.items if search.derives(item, i, j)]
                for item in self.options(("alt", id(node), i, j), viable, context):
                    children = self.node(item, i, j, context)
                    if children is not None:
                        return children
                return None
            case ir.Seq():
                return self.sequence(node, 0, i, j, context)
            case ir.Repeat():
                return self.repetition(node, i, j, context)
            case _:
                assert_never(node)

    def sequence(self, node: ir.Seq, index: int, i: int, j: int, context) -> list | None:
        if index == len(node.items):
            return [] if i == j else None
        for k in self.options(("seq", id(node), index, i, j), self.search.splits(node, index, i, j), context):
            left = self.node(node.items[index], i, k, context)
            right = None if left is None else self.sequence(node, index + 1, k, j, context)
            if right is not None:
                return left + right  # type: ignore[operator]
        return None

    def repetition(self, node: ir.Repeat, i: int, j: int, context) -> list | None:
        search = self.search
        states = search.iterations(node, i, j)
        failed: set[tuple[int, int]] = set()  # states from which no iterations back to i can be built
        for final in self.options(("end", id(node), i, j), search.finals(node, j, states), context):
            missing = max(0, node.min - final[1])
            # A tree node each: 999999999"" stops at the work limit, before it fills memory.
            search.meter.spend(min(missing, search.meter.limit - search.meter.spent + 1))
            padding = [(j, j)] * missing  # empty iterations up to the minimum
            children = self.iterations_to(node, i, j, final, states, failed, context)
            for start, end in padding:
                found = None if children is None else self.node(node.item, start, end, context)
                children = None if found is None or children is None else children + found
            if children is not None:
                return children
        return None

    def iterations_to(self, node: ir.Repeat, i: int, j: int, final, states, failed, context) -> list | None:
        """The children of the iterations from (i, 0) to ``final``, walking back from it: the
        first predecessor of each state, or the next where an iteration cannot be built (it would
        go round a cycle).  A depth-first search with its own stack: repetitions can be long."""
        def candidates(state):
            return iter(self.options(("rep", id(node), i, j, state), states[state], context))

        path = [(final, candidates(final))]
        pieces: list[list] = []  # the children of the iteration into each state of the path but the first
        while path:
            state, untried = path[-1]
            if state == (i, 0):
                return [child for piece in reversed(pieces) for child in piece]
            for before in untried:
                if before in failed:
                    continue
                last = self.node(node.item, before[0], state[0], context)
                if last is not None:
                    pieces.append(last)
                    path.append((before, candidates(before)))
                    break
            else:
                failed.add(state)
                path.pop()
                if pieces:
                    pieces.pop()
        return None

    # -- the open trees of a prefix ----------------------------------------------------------

    def open_rule(self, key: str, i: int) -> Derivation | None:
        here = (key, i, -1)
        if here in self.path:  # left recursion: the rule open inside itself at the same offset
            return None
        search = self.search
        alternatives = search.alternatives(key)
        self.path.add(here)
        try:
            for a, body in enumerate(alternatives):
                if search.nexts(body, i):
                    children = self.open(body, i)
                    if children is not None:
                        return Derivation(search.grammar.rule(key).name, a + 1, len(alternatives), i,
                                          len(search.data), tuple(children), complete=False)
            return None
        finally:
            self.path.discard(here)

    def open(self, node: ir.Node, i: int) -> list | None:
        """Children that read data[i:], the last of them still open; [] if nothing is read."""
        search = self.search
        search.meter.spend()
        match node:
            case ir.Terminal():
                return []
            case ir.Ref():
                if i == len(search.data):
                    return []
                found = self.open_rule(node.key, i)
                return None if found is None else [found]
            case ir.Alt():
                for item in node.items:
                    children = self.open(item, i) if search.nexts(item, i) else None
                    if children is not None:
                        return children
                return None
            case ir.Seq():
                return self.open_sequence(node, 0, i)
            case ir.Repeat():
                return self.open_repetition(node, i)
            case _:
                assert_never(node)

    def open_sequence(self, node: ir.Seq, index: int, i: int) -> list | None:
        search = self.search
        if not node.items:
            return None
        item = node.items[index]
        if index + 1 < len(node.items):
            for k in sorted(search.ends(item, i), reverse=True):  # as much complete as can be
                if search.nexts_rest(node, index + 1, k):
                    left = self.node(item, i, k, None)
                    right = None if left is None else self.open_sequence(node, index + 1, k)
                    if right is not None:
                        return left + right  # type: ignore[operator]
        return self.open(item, i) if search.nexts(item, i) else None

    def open_repetition(self, node: ir.Repeat, i: int) -> list | None:
        search = self.search
        states = search.iterations(node, i, None)
        candidates = [state for state in states if (node.max is None or state[1] < node.max)
                      and search.nexts(node.item, state[0])]
        for state in sorted(candidates, reverse=True):  # as many complete iterations as can be
            last = state[0]
            spans = []
            while state != (i, 0):
                before = states[state][0]
                spans.append((before[0], state[0]))
                state = before
            children: list | None = []
            for start, end in reversed(spans):
                found = self.node(node.item, start, end, None)
                children = None if found is None or children is None else children + found
            tail = None if children is None else self.open(node.item, last)
            if tail is not None and children is not None:
                return children + tail
        return None
