"""Hopcroft minimization, byte-class merging, canonical numbering, and equivalence checks.

Hopcroft (1971), "An n log n algorithm for minimizing states in a finite automaton": refine the
partition {accepting, non-accepting} by splitting blocks against the predecessors of a splitter
block, keeping the smaller half as the next splitter.  Then byte classes whose columns are equal
in every state are merged (so a class may be a union of ranges), and states are renumbered
canonically: the dead state is 0, the others follow in breadth-first order from the start state,
taking classes in order of their smallest byte.  The result depends only on the language, so
equal languages give identical tables and generated files are byte-identical on every run.
"""
from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Mapping

from ..charset import Ranges, normalize
from ..errors import Meter, limit_error
from ..frontend.ir import Origin
from ..i18n import N_
from .dfa import DEFAULT_MAX_WORK, Dfa


def minimize(dfa: Dfa, max_work: int = DEFAULT_MAX_WORK, labels: Mapping[int, int] | None = None) -> Dfa:
    """The canonical minimal DFA accepting the same language as ``dfa``; raises LimitError when
    that takes more than ``max_work`` steps (transitions visited).  States with different
    ``labels`` (a pushdown machine's call states, by the nested part they call) are never merged."""
    meter = Meter(max_work, EXCEEDED)
    reachable = _reachable(dfa)
    block_of = _hopcroft(dfa, reachable, meter, labels or {})
    quotient = _quotient(dfa, reachable, block_of)
    return canonical(_merge_classes(quotient))


EXCEEDED = limit_error(N_("minimizing the DFA took more than {limit:,} steps (transitions visited); raise "
                          "the limit with --max-work if this is intended"))


def _reachable(dfa: Dfa) -> list[int]:
    seen, queue = {dfa.start, dfa.dead}, [dfa.start, dfa.dead]
    for state in queue:  # grows while iterating
        for target in dfa.transitions[state]:
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return sorted(seen)


def _hopcroft(dfa: Dfa, states: list[int], meter: Meter, labels: Mapping[int, int]) -> dict[int, int]:
    """Block number of each state in the coarsest partition compatible with acceptance and
    ``labels``.

    A splitter's predecessors are gathered from the incoming transitions of its states, so a
    splitter costs its in-degree, not its size times the number of classes.
    """
    incoming: dict[int, list[tuple[int, int]]] = defaultdict(list)  # target -> (class, source)
    for state in states:
        for cls, target in enumerate(dfa.transitions[state]):
            incoming[target].append((cls, state))
    meter.spend(len(states) * (1 + dfa.num_classes))
    initial: dict[tuple[bool, int | None], set[int]] = defaultdict(set)
    for state in states:
        initial[state in dfa.accepting, labels.get(state)].add(state)
    blocks = [initial[kind] for kind in sorted(initial, key=lambda kind: (kind[0], kind[1] is not None, kind[1] or 0))]
    block_of = {s: index for index, block in enumerate(blocks) for s in block}
    pending = set(range(len(blocks)))
    while pending:
        splitter = tuple(blocks[pending.pop()])
        by_class: dict[int, list[int]] = defaultdict(list)
        for target in splitter:
            edges = incoming.get(target, ())
            meter.spend(1 + len(edges))
            for cls, source in edges:
                by_class[cls].append(source)
        for cls in sorted(by_class):
            predecessors: dict[int, list[int]] = defaultdict(list)
            for source in by_class[cls]:
                predecessors[block_of[source]].append(source)
            for block, members in predecessors.items():
                if len(members) < len(blocks[block]):
                    _split(blocks, block_of, block, members, pending)
    return block_of


def _split(blocks, block_of, block: int, members: list[int], pending: set[int]) -> None:
    new = len(blocks)
    blocks.append(set(members))
    blocks[block] -= blocks[new]
    for state in members:
        block_of[state] = new
    if block in pending or len(blocks[new]) <= len(blocks[block]):
        pending.add(new)
    else:
        pending.add(block)


def _quotient(dfa: Dfa, states: list[int], block_of: dict[int, int]) -> Dfa:
    representative: dict[int, int] = {}
    for state in states:
        representative.setdefault(block_of[state], state)
    numbering = {block: index for index, block in enumerate(sorted(representative))}
    transitions: list[tuple[int, ...]] = [()] * len(numbering)
    origins: list[set[Origin]] = [set() for _ in numbering]
    for state in states:
        number = numbering[block_of[state]]
        transitions[number] = tuple(numbering[block_of[t]] for t in dfa.transitions[state])
        if dfa.origins:
            origins[number] |= dfa.origins[state]
    accepting = frozenset(numbering[block_of[s]] for s in states if s in dfa.accepting)
    return Dfa(dfa.classes, tuple(transitions), numbering[block_of[dfa.start]], accepting,
               numbering[block_of[dfa.dead]], tuple(frozenset(o) for o in origins) if dfa.origins else ())


def _merge_classes(dfa: Dfa) -> Dfa:
    """Merge byte classes that every state treats alike."""
    by_column: dict[tuple[int, ...], list[Ranges]] = {}
    for cls, ranges in enumerate(dfa.classes):
        column = tuple(row[cls] for row in dfa.transitions)
        by_column.setdefault(column, []).append(ranges)
    merged = sorted(((normalize(r for ranges in group for r in ranges), column)
                     for column, group in by_column.items()), key=lambda item: item[0][0][0])
    classes = tuple(ranges for ranges, _ in merged)
    transitions = tuple(tuple(column[state] for _, column in merged) for state in range(dfa.num_states))
    return Dfa(classes, transitions, dfa.start, dfa.accepting, dfa.dead, dfa.origins)


def canonical(dfa: Dfa) -> Dfa:
    """Renumber: dead state 0, then breadth-first from the start; classes by smallest byte."""
    order = sorted(range(dfa.num_classes), key=lambda c: dfa.classes[c][0][0])
    numbering = {dfa.dead: 0}
    queue = deque([dfa.start])
    while queue:
        state = queue.popleft()
        if state in numbering:
            continue
        numbering[state] = len(numbering)
        queue.extend(dfa.transitions[state][c] for c in order)
    states = sorted(numbering, key=lambda state: numbering[state])
    transitions = tuple(tuple(numbering[dfa.transitions[s][c]] for c in order) for s in states)
    origins = tuple(dfa.origins[s] for s in states) if dfa.origins else ()
    return Dfa(tuple(dfa.classes[c] for c in order), transitions, numbering[dfa.start],
               frozenset(numbering[s] for s in dfa.accepting if s in numbering), 0, origins)
