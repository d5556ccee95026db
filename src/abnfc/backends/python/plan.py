"""Neutral tables -> the Python plan: the tables plus *skip patterns* for the ``re`` engine.

A state that the automaton keeps returning to gets a possessive regular expression over every
path that leaves the state and first comes back to it (dead ends and inner cycles excluded),
which lets ``re`` run whole stretches of input in C; the table loop handles everything else.
The DFA is deterministic, so the alternatives of a pattern start with disjoint byte sets and the
``re`` engine never backtracks more than one path's length.

Patterns are written in ``re.VERBOSE`` form, one alternative (a way to leave the state and come
back) per line, each with a comment naming the rules and alternatives whose first bytes it reads,
from the grammar positions of the state, so that UTF-8's reads like RFC 3629 section 4.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ... import graph
from ...charset import Ranges, normalize
from ..tables import Tables

MAX_SKIP_PATTERN = 20_000  # characters; longer patterns cost more to compile than they save
MAX_SKIP_HUBS = 32  # states considered for a skip pattern; each costs one pass over the DFA
MAX_SKIP_WORK = 400_000  # hubs x states x classes (about 5 µs each); bigger DFAs get fewer hubs
MAX_NAMED = 4  # rules named in a line's comment; beyond this, a count
COMMENT_COLUMN = 48  # comments line up here unless a pattern is longer


@dataclass(frozen=True)
class SkipLine:
    pattern: str  # one alternative of the skip pattern, \xNN escapes only (no space, no #)
    comment: str  # the rules and alternatives that read its first bytes


@dataclass(frozen=True)
class SkipPattern:
    state: int
    pattern: str  # a bytes regular expression written with \xNN escapes only
    lines: tuple[SkipLine, ...]  # the same, one top-level alternative a line (re.VERBOSE)

    def verbose_lines(self) -> tuple[str, ...]:
        """Each alternative, ``|`` before all but the first, its comment lined up."""
        width = min(COMMENT_COLUMN, max(len(line.pattern) for line in self.lines))
        return tuple((("| " if index else "  ") + line.pattern.ljust(width)
                      + (f"  # {line.comment}" if line.comment else "")).rstrip()
                     for index, line in enumerate(self.lines))


@dataclass(frozen=True)
class PythonPlan:
    module: str  # the module name, also the file's stem
    tables: Tables
    skip_patterns: tuple[SkipPattern, ...]


def lower(tables: Tables, options: Mapping[str, str]) -> PythonPlan:
    return PythonPlan(options["prefix"], tables, skip_patterns(tables))


def skip_patterns(tables: Tables) -> tuple[SkipPattern, ...]:
    patterns = []
    for state in sorted(_skip_hubs(tables)):
        lines = _SkipBuilder(tables, state).lines()
        pattern = f"(?:{'|'.join(line.pattern for line in lines)})*+" if lines else ""
        if pattern and len(pattern) <= MAX_SKIP_PATTERN:
            patterns.append(SkipPattern(state, pattern, lines))
    return tuple(patterns)


def _skip_hubs(tables: Tables) -> list[int]:
    """The states worth a skip pattern, within the work budget.

    Only a state on a cycle can be returned to.  States with a self-loop come first: long runs of
    input (text, digits, padding) stay in them, and in practice they are the only states that
    get a pattern, because the cycles through other states pass through a self-loop state.
    """
    budget = min(MAX_SKIP_HUBS, MAX_SKIP_WORK // (tables.num_states * tables.num_classes))
    if budget == 0:
        return []
    cyclic = sorted(_cyclic_states(tables, tables.dead))
    return sorted(cyclic, key=lambda s: not tables.states[s].self_loop)[:budget]  # stable: self-loops first


class _SkipBuilder:
    """Regular expression for the paths from ``hub`` that first return to ``hub``.

    States on a cycle that avoids the hub are left out, so the paths form a DAG and the pattern
    is finite.
    """

    def __init__(self, tables: Tables, hub: int):
        self.tables = tables
        self.hub = hub
        self.cyclic = _cyclic_states(tables, hub)
        self.memo: dict[int, str] = {}

    def lines(self) -> tuple[SkipLine, ...]:
        loops, branches = [], []
        for target, ranges in self._targets(self.hub):
            if target == self.hub:
                loops.append(SkipLine(_char_class(ranges) + "++", self._readers(ranges)))
            elif (rest := self._returns(target)):
                branches.append(SkipLine(_char_class(ranges) + rest, self._readers(ranges)))
        return tuple(loops + branches)

    def _readers(self, ranges: Ranges) -> str:
        """``UTF8-3 alternatives 2, 4``: the hub's positions that read some byte of ``ranges``,
        grouped by rule."""
        by_rule: dict[str, set[int]] = {}
        for rule, alternative, reads in self.tables.states[self.hub].readers:
            if _overlap(reads, ranges):
                by_rule.setdefault(rule, set()).add(alternative)
        named = [f"{rule} alternative{'s' if len(found) > 1 else ''} {_numbers(sorted(found))}"
                 for rule, found in by_rule.items()]
        if len(named) > MAX_NAMED + 1:  # "1 more rule" would take the place of its name
            named[MAX_NAMED:] = [f"{len(named) - MAX_NAMED} more rules"]
        return ", ".join(named)

    def _targets(self, state: int) -> list[tuple[int, Ranges]]:
        by_target: dict[int, list] = {}
        for cls, target in enumerate(self.tables.states[state].targets):
            if target != self.tables.dead and target not in self.cyclic:
                by_target.setdefault(target, []).extend(self.tables.classes[cls])
        return sorted(((t, normalize(r)) for t, r in by_target.items()), key=lambda x: x[1][0])

    def _returns(self, state: int) -> str:
        """Pattern for paths from ``state`` (not the hub) to the hub; "" if there are none."""
        order = self._postorder(state)
        for current in order:
            parts = []
            for target, ranges in self._targets(current):
                if target == self.hub:
                    parts.append(_char_class(ranges))
                elif self.memo.get(target):
                    parts.append(_char_class(ranges) + self.memo[target])
            pattern = parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})" if parts else ""
            self.memo[current] = pattern[:MAX_SKIP_PATTERN + 1]
        return self.memo[state]

    def _postorder(self, state: int) -> list[int]:
        order, stack, seen = [], [(state, False)], set(self.memo)
        while stack:
            current, expanded = stack.pop()
            if expanded:
                order.append(current)
            elif current not in seen:
                seen.add(current)
                stack.append((current, True))
                stack.extend((t, False) for t, _ in self._targets(current) if t != self.hub)
        return order


def _numbers(numbers: list[int]) -> str:
    """``1-4, 6``."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in runs)


def _cyclic_states(tables: Tables, hub: int) -> set[int]:
    """States on a cycle that does not pass through ``hub`` (or the dead state)."""
    skip = (hub, tables.dead)
    edges = {s.index: sorted({t for t in s.targets if t not in skip})
             for s in tables.states if s.index not in skip}
    return graph.cyclic_nodes(edges)


def _overlap(a: Ranges, b: Ranges) -> bool:
    return any(lo <= b_hi and b_lo <= hi for lo, hi in a for b_lo, b_hi in b)


def _char_class(ranges: Ranges) -> str:
    if ranges == ((0, 255),):
        return r"[\x00-\xff]"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return f"\\x{ranges[0][0]:02x}"
    body = "".join(f"\\x{lo:02x}" if lo == hi else f"\\x{lo:02x}-\\x{hi:02x}" for lo, hi in ranges)
    return f"[{body}]"
