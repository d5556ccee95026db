"""The C tables of the token-bigram ``is_valid`` (:mod:`abnfc.automata.bigrams`): a pushdown
validator's positions checked in pairs, 64 at a time, with AVX-512 VBMI2, and no walk.

The generated path (templates/c_pushdown_bigrams.c.j2) takes every input but short ones on
processors with AVX-512 VBMI2; it has no walk to fall back on, so it is emitted only where the
automaton's tables say exactly what the byte loop would: the pairs derive, stage 1's escape
sequences are every escape strings read, and the strings' UTF-8 is the layer's.  The escape
sequences whose bytes cross a block's end are checked by a short scalar test of each sequence.

All C syntax is decided here; the template only places it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...automata.bigrams import TOKEN_WIDTH, Bigrams
from .literals import chunks

CELLS_PER_LINE = 32


@dataclass(frozen=True)
class BigramsC:
    kind_notes: tuple[str, ...]  # per kind code from 1: what it is, for comments
    kinds: int
    start: int
    contexts: int
    classes: tuple[str, ...]  # 128 cells
    ok: tuple[str, ...]  # 128 cells
    tag: tuple[str, ...]  # 128 cells
    refined: str  # 64 cells (a whole vector)
    ends: str  # 16 cells
    brackets: tuple[str, ...]  # 256 cells
    token_table: tuple[str, ...]  # 256 x TOKEN_WIDTH cells, a row per byte
    token_states: int
    token_complete: str  # TOKEN_WIDTH cells
    utf8: bool  # strings read UTF-8 beyond ASCII; else no byte beyond ASCII is allowed anywhere
    late_escapes: str  # the escaped bytes whose sequence may not end inside their block
    token_width: int = TOKEN_WIDTH


def lower_bigrams(found: Bigrams | None, utf8: bool, sets: list[frozenset[int]],
                  sequences: tuple[tuple[int, ...], ...]) -> BigramsC | None:
    """The bigram path's C cells, or None where the automaton has no tables or its strings' UTF-8
    is not stage 1's; ``sets`` and ``sequences``: stage 1's escape sequences."""
    if found is None or found.utf8_strings != utf8 or any(byte >= 0x80 for part in sets for byte in part):
        return None
    longest = max((len(sequence) for sequence in sequences), default=1)
    late = 1 | (((1 << 64) - 1) << (65 - longest) & ((1 << 64) - 1) if longest > 1 else 0)
    return BigramsC(
        kind_notes=_kind_notes(found), kinds=found.kinds, start=found.start, contexts=found.contexts,
        classes=_lines(found.classes), ok=_lines(found.ok), tag=_lines(found.tag),
        refined=", ".join(map(str, (*found.refined, *[0] * (64 - len(found.refined))))),
        ends=", ".join(map(str, found.ends)), brackets=_lines(found.brackets),
        token_table=tuple(", ".join(map(str, found.tokens.table[b * TOKEN_WIDTH:(b + 1) * TOKEN_WIDTH]))
                          for b in range(256)),
        token_states=len(found.tokens.complete),
        token_complete=", ".join(map(str, (*found.tokens.complete,
                                           *[0] * (TOKEN_WIDTH - len(found.tokens.complete))))),
        utf8=utf8, late_escapes=f"0x{late:016X}u")


def _lines(values: tuple[int, ...]) -> tuple[str, ...]:
    return chunks([str(value) for value in values], CELLS_PER_LINE)


def _kind_notes(found: Bigrams) -> tuple[str, ...]:
    notes = [name if len(name) > 1 else f"the byte {ord(name):02X}" for name in found.kind_names]
    notes.append("START (before the first position)")
    notes += [f"{notes[kind - 1]}, refined by the kind before it" for kind in range(16) if found.refined[kind] != kind]
    return tuple(notes)
