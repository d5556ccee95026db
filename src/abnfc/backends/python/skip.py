"""Skip patterns: regular expressions that let ``re`` run whole stretches of input in C.

A state that the automaton keeps returning to (a *hub*) gets a possessive expression over every
path that leaves it and first comes back (dead ends and inner cycles excluded, so the paths form
a DAG and the expression is finite).  The DFA is deterministic, so the alternatives of a pattern
start with disjoint byte sets and ``re`` never backtracks more than one path's length.

Patterns are built as trees (:class:`Node`) and written twice: compactly, to measure them, and in
``re.VERBOSE`` form for the generated module, one alternative of the hub per line with a comment
naming the grammar rules and alternatives that read its first byte (from the states'
provenance), so that the UTF-8 pattern reads like RFC 3629 section 4.

``re`` compiles a pattern recursively, one level per group: a path whose groups nest deeper than
``MAX_DEPTH`` is left out of the pattern (the table loop walks it instead), and a pattern is kept
within ``MAX_LENGTH`` characters (its shortest alternatives, when all of them would not fit), so
that every generated module imports and runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ... import graph
from ...automata.notes import number_runs
from ...charset import Ranges, normalize
from ..tables import Tables

MAX_NAMED = 4  # rules a comment names; beyond this, a count
MAX_LENGTH = 20_000  # characters; longer patterns cost more to compile than they save
MAX_DEPTH = 64  # nested groups; re.compile recurses once a level (Python's limit is 1000 frames)
MAX_HUBS = 32  # states considered for a skip pattern; each costs one pass over the DFA
MAX_WORK = 400_000  # hubs x states x classes (about 5 us each); bigger DFAs get fewer hubs


@dataclass(frozen=True)
class Node:
    """A sequence of byte sets and groups of alternatives: ``items`` are Ranges or Node lists."""

    items: tuple  # each a Ranges (one byte) or a tuple of Nodes (a group of alternatives)

    @cached_property
    def depth(self) -> int:
        return max((1 + max(n.depth for n in item) for item in self.items if _is_group(item)), default=0)

    @cached_property
    def text(self) -> str:
        return "".join(_compact_run(item, count) for item, count in _runs(self.items))

    def compact(self) -> str:
        return self.text

    def spaced(self) -> str:
        return " ".join(_compact_run(item, count) for item, count in _runs(self.items))


@dataclass(frozen=True)
class Alternative:
    text: str  # spaced, for a VERBOSE pattern
    comment: str


@dataclass(frozen=True)
class SkipPattern:
    state: int
    pattern: str  # compact; bytes regular expression written with \xNN escapes only
    alternatives: tuple[Alternative, ...]  # the same, one alternative of the hub a line


def skip_patterns(tables: Tables) -> tuple[SkipPattern, ...]:
    patterns = []
    for state in sorted(_hubs(tables)):
        pattern = _Builder(tables, state).pattern()
        if pattern is not None and len(pattern.pattern) <= MAX_LENGTH:
            patterns.append(pattern)
    return tuple(patterns)


def _hubs(tables: Tables) -> list[int]:
    """The states worth a skip pattern, within the work budget.

    Only a state on a cycle can be returned to.  States with a self-loop come first: long runs of
    input (text, digits, padding) stay in them, and in practice they are the only states that
    get a pattern, because the cycles through other states pass through a self-loop state.
    """
    budget = min(MAX_HUBS, MAX_WORK // (tables.num_states * tables.num_classes))
    if budget == 0:
        return []
    cyclic = sorted(_cyclic_states(tables, tables.dead))
    return sorted(cyclic, key=lambda s: not tables.states[s].self_loop)[:budget]  # stable: self-loops first


class _Builder:
    """The paths from ``hub`` that first return to ``hub``, as a tree."""

    def __init__(self, tables: Tables, hub: int):
        self.tables = tables
        self.hub = hub
        self.cyclic = _cyclic_states(tables, hub)
        self.memo: dict[int, Node | None] = {}

    def pattern(self) -> SkipPattern | None:
        alternatives = []
        for target, ranges in self._targets(self.hub):
            if target == self.hub:
                alternatives.append((Node((ranges,)), "++", ranges))
            elif (rest := self._returns(target)) is not None:
                alternatives.append((Node((ranges, *rest.items)), "", ranges))
        alternatives = _within_budget(alternatives)
        if not alternatives:
            return None
        compact = "(?:" + "|".join(node.compact() + suffix for node, suffix, _ in alternatives) + ")*+"
        lines = tuple(Alternative(node.spaced() + suffix, self._comment(first))
                      for node, suffix, first in alternatives)
        return SkipPattern(self.hub, compact, lines)

    def _targets(self, state: int) -> list[tuple[int, Ranges]]:
        by_target: dict[int, list] = {}
        for cls, target in enumerate(self.tables.states[state].targets):
            if target != self.tables.dead and target not in self.cyclic:
                by_target.setdefault(target, []).extend(self.tables.classes[cls])
        return sorted(((t, normalize(r)) for t, r in by_target.items()), key=lambda x: x[1][0])

    def _returns(self, state: int) -> Node | None:
        """Paths from ``state`` (not the hub) to the hub; None if there are none (or they are
        too deep or too long for ``re``)."""
        for current in self._postorder(state):
            parts = []
            for target, ranges in self._targets(current):
                if target == self.hub:
                    parts.append(Node((ranges,)))
                elif (rest := self.memo.get(target)) is not None:
                    parts.append(Node((ranges, *rest.items)))
            node = None if not parts else parts[0] if len(parts) == 1 else Node((tuple(parts),))
            if node is not None and (node.depth > MAX_DEPTH or len(node.compact()) > MAX_LENGTH):
                node = None
            self.memo[current] = node
        return self.memo[state]

    def _postorder(self, state: int) -> list[int]:
        return graph.postorder_from(
            state, lambda current: [t for t, _ in reversed(self._targets(current)) if t != self.hub], self.memo)

    def _comment(self, first: Ranges) -> str:
        """The rules and alternatives of the hub's grammar positions that read ``first``."""
        counts = dict(self.tables.alternatives)
        by_rule: dict[str, set[int]] = {}
        for reading in self.tables.states[self.hub].reads:
            if _overlap(reading.ranges, first):
                by_rule.setdefault(reading.rule, set()).add(reading.alternative + 1)
        parts = []
        for rule, numbers in by_rule.items():
            if counts.get(rule, 1) <= 1:
                parts.append(rule)
            else:
                parts.append(f"{rule}, alternative{'s' if len(numbers) > 1 else ''} {_numbers(sorted(numbers))}")
        if len(parts) > MAX_NAMED + 1:  # a line is read, not searched: name a few, count the rest
            parts[MAX_NAMED:] = [f"{len(parts) - MAX_NAMED} more rules"]
        return "; ".join(parts)


def _numbers(numbers: list[int]) -> str:
    """``2 and 4``, ``1-11``, ``1, 2 and 5-7``: runs of three or more consecutive numbers as ranges."""
    words = [word for lo, hi in number_runs(numbers)
             for word in ([str(lo)] if lo == hi else [str(lo), str(hi)] if hi == lo + 1 else [f"{lo}-{hi}"])]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" and {words[-1]}"


def _within_budget(alternatives: list) -> list:
    """The hub's alternatives, all of them if the pattern stays within ``MAX_LENGTH``, else the
    shortest ones that fit (their first bytes differ, so any subset is a correct pattern: input
    the pattern leaves out goes through the table loop, which hands back at the hub)."""
    def cost(alternative) -> int:
        return len(alternative[0].compact()) + len(alternative[1]) + 1
    if sum(map(cost, alternatives)) + 6 <= MAX_LENGTH:
        return alternatives
    kept, used = set(), 6
    for index in sorted(range(len(alternatives)), key=lambda i: cost(alternatives[i])):
        if used + cost(alternatives[index]) > MAX_LENGTH:
            break
        kept.add(index)
        used += cost(alternatives[index])
    return [a for index, a in enumerate(alternatives) if index in kept]


def _is_group(item) -> bool:
    return bool(item) and isinstance(item[0], Node)


def _runs(items: tuple) -> list[tuple[object, int]]:
    """Consecutive equal byte sets merged into (set, count)."""
    runs: list[tuple[object, int]] = []
    for item in items:
        if runs and not _is_group(item) and runs[-1][0] == item:
            runs[-1] = (item, runs[-1][1] + 1)
        else:
            runs.append((item, 1))
    return runs


def _compact_run(item, count: int) -> str:
    text = "(?:" + "|".join(n.compact() for n in item) + ")" if _is_group(item) else char_class(item)
    return text if count == 1 else f"{text}{{{count}}}"


def _overlap(a: Ranges, b: Ranges) -> bool:
    return any(lo <= hi2 and lo2 <= hi for lo, hi in a for lo2, hi2 in b)


def _cyclic_states(tables: Tables, hub: int) -> set[int]:
    """States on a cycle that does not pass through ``hub`` (or the dead state)."""
    skip = (hub, tables.dead)
    edges = {s.index: sorted({t for t in s.targets if t not in skip})
             for s in tables.states if s.index not in skip}
    return graph.cyclic_nodes(edges)


def char_class(ranges: Ranges) -> str:
    if ranges == ((0, 255),):
        return r"[\x00-\xff]"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return f"\\x{ranges[0][0]:02x}"
    body = "".join(f"\\x{lo:02x}" if lo == hi else f"\\x{lo:02x}-\\x{hi:02x}" for lo, hi in ranges)
    return f"[{body}]"
