"""The token-bigram tables (see the package's docstring) and the limits they fit in."""
from __future__ import annotations

from dataclasses import dataclass

MAX_CONTEXTS = 4  # two bits of context per position
PAIR_TABLE = 128  # a two-register byte permutation: refined kinds x kinds must fit
MAX_KIND_CODES = 16  # kinds (with BAD, START and the refined ones) fit four bits
TOKEN_WIDTH = 32  # states a row of the token table holds
TOKEN_DEAD, TOKEN_FIN = 0, 1
FIRST = 0x80  # marks a token's first byte
# The class bits above the kind's four: whitespace, structural, a bracket, not a string's plain byte.
C_WS, C_ST, C_BR, C_SS = 0x10, 0x20, 0x40, 0x80
STR, SCALAR, START = "STR", "SCALAR", "START"


class NoBigrams(Exception):
    """The automaton's positions cannot be checked in pairs; the message says why."""


@dataclass(frozen=True)
class TokenAutomaton:
    complete: tuple[int, ...]  # per state: 1 where a token may end there
    table: tuple[int, ...]  # 256 x TOKEN_WIDTH: the state after (byte, state); bit 7 of byte: a first byte


@dataclass(frozen=True)
class PairTables:
    kind_names: tuple[str, ...]  # kind codes 1.. in order; 0 is BAD
    kinds: int  # codes of unrefined kinds, with BAD and START: the pair table's stride
    start: int  # START's code: the kind before the first position
    contexts: int
    ok: tuple[int, ...]  # PAIR_TABLE entries: bit c where context c allows (refined before, kind)
    tag: tuple[int, ...]  # PAIR_TABLE entries: bit c where (before, kind) refines kind in context c
    refined: tuple[int, ...]  # 16 entries: a kind's refined code (itself where none)
    ends: tuple[int, ...]  # 16 entries: 1 where the input may end after the refined kind
    classes: tuple[int, ...]  # 128 entries: the byte's kind and C_* bits
    brackets: tuple[int, ...]  # 256 entries: bit 0 opens a nested part, bits 1-2 the machine it enters


@dataclass(frozen=True)
class Bigrams(PairTables):
    """The tables of the pair check (see the package's docstring): the pairs', the strings' and the tokens'."""

    quote: int
    escape: int | None
    utf8_strings: bool  # strings read UTF-8 beyond ASCII (else no byte beyond ASCII anywhere)
    tokens: TokenAutomaton
