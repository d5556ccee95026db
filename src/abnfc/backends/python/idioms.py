"""Idiom recognition by proof: is the grammar's language one that a Python built-in decides?

Three languages have a built-in that decides them in C: every byte string (``True``), ASCII
(``bytes.isascii``) and strict UTF-8 (the ``utf-8`` codec, which rejects overlong forms,
surrogates and code points above U+10FFFF, as RFC 3629 does).  Each is written here as an
automaton of its own, from its definition (for UTF-8, the table of well-formed byte sequences of
the Unicode Standard, chapter 3, table 3-7), and the grammar's minimal DFA is compared with it
by the product construction (``automata.product.equivalent``): the generated module uses the
built-in only when the two accept exactly the same strings (a few witness strings on which the
languages differ rule most grammars out before the product is built).  Nothing is guessed from
rule names.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ...automata.dfa import Dfa
from ...automata.product import equivalent
from ...charset import Ranges, contiguous_classes
from ..tables import Tables

# Unicode 15, table 3-7: the well-formed UTF-8 byte sequences, one row per first-byte range.
WELL_FORMED_UTF8: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0x00, 0x7F),),
    ((0xC2, 0xDF), (0x80, 0xBF)),
    ((0xE0, 0xE0), (0xA0, 0xBF), (0x80, 0xBF)),
    ((0xE1, 0xEC), (0x80, 0xBF), (0x80, 0xBF)),
    ((0xED, 0xED), (0x80, 0x9F), (0x80, 0xBF)),
    ((0xEE, 0xEF), (0x80, 0xBF), (0x80, 0xBF)),
    ((0xF0, 0xF0), (0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF)),
    ((0xF1, 0xF3), (0x80, 0xBF), (0x80, 0xBF), (0x80, 0xBF)),
    ((0xF4, 0xF4), (0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF)),
)


@dataclass(frozen=True)
class Idiom:
    name: str  # "any", "ascii" or "utf8"
    resume: int | None  # utf8: the state every valid input ends in, where the DFA takes over


# Strings on which the three languages differ from each other and from most grammars: a DFA that
# disagrees with a reference on one of them cannot be equivalent, so the product is not built.
WITNESSES = (b"", b"A", b"A~", b"\x00", b"\x80", b"\xc3\xa9", b"\xe2\x82\xac", b"\xed\xa0\x80", b"\xff")


def recognise(tables: Tables) -> Idiom | None:
    dfa = as_dfa(tables)
    for name, reference in _references():
        if all(dfa.matches(w) == reference.matches(w) for w in WITNESSES) and equivalent(dfa, reference):
            return Idiom(name, _resume(tables) if name == "utf8" else None)
    return None


@functools.cache
def _references() -> tuple[tuple[str, Dfa], ...]:
    return (("any", sequences_star(((0x00, 0xFF),),)),
            ("ascii", sequences_star(((0x00, 0x7F),),)),
            ("utf8", sequences_star(*WELL_FORMED_UTF8)))


def _resume(tables: Tables) -> int | None:
    """After the codec decodes data[:k], the DFA continues from the state data[:k] leads to.
    data[:k] is in the language, so with one accepting state that is the state; a minimal DFA of
    strict UTF-8 has exactly one (its start), but the check costs nothing."""
    return tables.accepting[0] if len(tables.accepting) == 1 else None


def as_dfa(tables: Tables) -> Dfa:
    return Dfa(tables.classes, tuple(s.targets for s in tables.states), tables.start,
               frozenset(tables.accepting), tables.dead)


def sequences_star(*rows: tuple[tuple[int, int], ...]) -> Dfa:
    """The automaton of ``( row1 / row2 / ... )*`` for rows of byte ranges whose first ranges are
    disjoint: state 1 is between sequences, (row, position) inside one.  Deterministic as built."""
    ranges: list[Ranges] = [(r,) for row in rows for r in row]
    classes = contiguous_classes(ranges)
    inside = {(row, position): 2 + index for index, (row, position) in
              enumerate((r, p) for r, steps in enumerate(rows) for p in range(1, len(steps)))}
    transitions = [tuple(0 for _ in classes), _row(classes, [(steps[0], inside.get((r, 1), 1))
                                                             for r, steps in enumerate(rows)])]
    for (row, position) in inside:
        following = inside.get((row, position + 1), 1)
        transitions.append(_row(classes, [(rows[row][position], following)]))
    return Dfa(classes, tuple(transitions), 1, frozenset({1}), 0)


def _row(classes: tuple[Ranges, ...], moves: list[tuple[tuple[int, int], int]]) -> tuple[int, ...]:
    row = []
    for ((lo, _),) in classes:
        row.append(next((target for (first, last), target in moves if first <= lo <= last), 0))
    return tuple(row)
