"""Tests asked first in each round of learning: the neighbours' witnesses and long runs of a class.

The equivalence oracle (:mod:`.oracle`) is exact for black boxes with at most K more states than
the hypothesis; real implementations have more, but deviate in known ways.  So before its tests,
each round asks:

1. for every neighbour grammar N (a dialect, :mod:`abnfc.crosscheck.neighbours`), the shortest
   inputs through every place where L(N) and L(H) part, H being the current hypothesis
   (:func:`abnfc.crosscheck.neighbours.parting_inputs`, both directions).  A black box that
   accepts exactly L(N) disagrees with H on one of them whenever H is not N, so every neighbour
   is learned exactly, whatever its size: the guarantee becomes "exact for every implementation
   within H + K states, or equal to a neighbour of the grammar";
2. long runs of one class (:func:`runs`): where a token may begin (the start state and every
   accepting state, after its access word), a byte the hypothesis refuses there, then the same
   byte repeated K+2 to :data:`LONGEST_RUN` times, for the lowest and highest byte of each range
   of each class.  These have the shape of RFC 2279's five- and six-byte forms (F8 then four
   continuation bytes), a lead byte the grammar has no token for and the longer token it begins,
   which lie beyond the W-method's K+1 letters; with class edges as representatives they cost
   token starts x edges^2 x lengths, not every byte.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..automata.product import access_words
from ..crosscheck.neighbours import MAX_PAIRS, discover, expand, parting_inputs
from ..errors import AbnfError
from ..frontend.source import load
from ..i18n import _
from ..pipeline import Compilation

LONGEST_RUN = 7  # bytes after the refused one: a six-byte form has five
MAX_RUNS = 50_000  # per round


def first_tests(hypothesis: Dfa, neighbours: Sequence[Dfa], extra_states: int) -> list[bytes]:
    """The neighbours' witnesses against ``hypothesis``, shortest first, then the runs."""
    found: set[bytes] = set()
    for neighbour in neighbours:
        found |= parting_inputs(hypothesis, neighbour, MAX_PAIRS)
    return sorted(found, key=lambda d: (len(d), d)) + runs(hypothesis, extra_states)


def _edges(dfa: Dfa) -> list[int]:
    return sorted({byte for ranges in dfa.classes for lo, hi in ranges for byte in (lo, hi)})


def runs(hypothesis: Dfa, extra_states: int, longest: int = LONGEST_RUN, limit: int = MAX_RUNS) -> list[bytes]:
    """After the access word of each state where a token may begin: a byte refused there, then a
    run of one class edge (see the module's docstring), at most ``limit`` words."""
    access = access_words(hypothesis)
    edges = _edges(hypothesis)
    found: list[bytes] = []
    for state in sorted(access, key=lambda s: (len(access[s]), access[s])):
        if state == hypothesis.dead or (state != hypothesis.start and state not in hypothesis.accepting):
            continue
        row = hypothesis.transitions[state]
        refused = [byte for byte in edges if row[hypothesis.byte_class[byte]] == hypothesis.dead]
        for first in refused:
            for byte in edges:
                for length in range(extra_states + 2, longest + 1):
                    found.append(access[state] + bytes([first]) + bytes([byte]) * length)
                    if len(found) >= limit:
                        return found
    return found


@dataclass(frozen=True)
class RegularNeighbour:
    path: str
    dfa: Dfa  # minimal


def regular_neighbours(grammar: str, given: Sequence[str], compile_: Callable[[str], Compilation],
                       warn: Callable[[str], None]) -> list[RegularNeighbour]:
    """The grammar's dialects and the ``--neighbours`` ones that compile to a DFA (learning has
    a DFA prior, so only those are comparable); the others are left out with a warning, and one
    the user named that does not load stops the run."""
    mine = set(expand(given))
    found = []
    for path in dict.fromkeys([*discover(grammar), *mine]):
        try:
            compilation = compile_(path)
            if not compilation.resolved.is_regular:
                warn(_("neighbour grammar {path} left out: it is recursive").format(path=path))
                continue
            found.append(RegularNeighbour(path, compilation.minimal))
        except AbnfError as error:
            if path in mine:
                raise
            warn(_("neighbour grammar {path} left out: {error}").format(path=path, error=str(error).splitlines()[0]))
    return found


def compiled_like(compilation: Compilation, given: Sequence[str],
                  warn: Callable[[str], None]) -> list[RegularNeighbour]:
    """:func:`regular_neighbours` of ``compilation``'s grammar file, each compiled from the same
    start rule (when one was named) with the same limits."""
    return regular_neighbours(compilation.grammar.path, given,
                              lambda path: Compilation(load(path), compilation.start, compilation.limits), warn)
