"""Automatic neighbours: the grammar's mutants one edit away, the deviations an implementation of
it most likely has (mutation-based conformance testing: the faults worth testing for are near
the specification).

The edits are made on the grammar's text, outside comments, one at a time: a range of values
``%xLO-HI`` with a bound moved by one either way (``%xE1-EC`` to ``%xE1-ED``: one byte too many,
a classic off-by-one), or widened to the whole byte range; a repetition count ``N(`` changed by
one, or made unbounded (``N*(``).  Each mutant is compiled with the grammar's start rule and
limits; the regular ones whose language differs from the grammar's are kept, each language once,
at most :data:`MAX_MUTANTS`, for grammars small enough that this is cheap (UTF-8's 64 edits
compile in 0.2 s).
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from ..automata.dfa import Dfa
from ..automata.minimize import canonical
from ..automata.product import equivalent
from ..errors import AbnfError
from ..frontend.source import from_text
from ..pipeline import Compilation

RANGE = re.compile(r"%x([0-9A-Fa-f]+)-([0-9A-Fa-f]+)")
COUNT = re.compile(r"(?<![%\w*.-])(\d+)(?=\s*\()")
MAX_MUTANTS = 200
MAX_TEXT = 20_000  # characters: larger grammars get no automatic mutants (each is compiled)
MAX_STATES = 64  # of the grammar's minimal DFA: compiling a mutant of URI's (hundreds) takes 0.5 s


def _edits(text: str) -> Iterator[str]:
    """Every one-edit mutant's text (see the module's docstring)."""
    for match in RANGE.finditer(text):
        if ";" in text[text.rfind("\n", 0, match.start()) + 1:match.start()]:
            continue  # in a comment
        lo, hi = int(match.group(1), 16), int(match.group(2), 16)
        top = 0xFF if hi <= 0xFF else 0x10FFFF
        for new_lo, new_hi in ((lo - 1, hi), (lo + 1, hi), (lo, hi - 1), (lo, hi + 1), (0, 0xFF)):
            if 0 <= new_lo <= new_hi <= top and (new_lo, new_hi) != (lo, hi) and (new_hi <= 0xFF or top > 0xFF):
                yield f"{text[:match.start()]}%x{new_lo:02X}-{new_hi:02X}{text[match.end():]}"
    for match in COUNT.finditer(text):
        if ";" in text[text.rfind("\n", 0, match.start()) + 1:match.start()]:
            continue
        count = int(match.group(1))
        for new in (str(count + 1), str(count - 1) if count > 1 else "", f"{count}*"):
            if new:
                yield f"{text[:match.start()]}{new}{text[match.end():]}"


def mutants(compilation: Compilation) -> list[Dfa]:
    """The minimal DFAs of the grammar's distinct one-edit mutants (see the module's docstring)."""
    text = compilation.grammar.text
    if len(text) > MAX_TEXT or compilation.grammar.imports:
        return []
    grammar = compilation.minimal
    if grammar.num_states > MAX_STATES:
        return []
    found: list[Dfa] = []
    seen: set[tuple] = set()
    for mutated in dict.fromkeys(_edits(text)):
        try:
            mutant = Compilation(from_text(mutated, compilation.grammar.path), compilation.start, compilation.limits)
            if not mutant.resolved.is_regular:
                continue
            dfa = canonical(mutant.minimal)
        except AbnfError:  # an edit that breaks the grammar (a range turned around) is no neighbour
            continue
        key = (dfa.classes, dfa.transitions, dfa.start, dfa.accepting)
        if key in seen or equivalent(dfa, grammar):
            continue
        seen.add(key)
        found.append(dfa)
        if len(found) >= MAX_MUTANTS:
            break
    return found
