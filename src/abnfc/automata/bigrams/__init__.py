"""Token bigrams: the tables that let a pushdown validator check its positions in pairs, 64 at a
time, instead of walking them one by one.

A two-stage JSON parser (Langdale and Lemire, "Parsing gigabytes of JSON per second", VLDB
Journal 28, 2019) marks the structural positions in a first, data-parallel stage and then walks
them.  The walk is the slow part; this module derives what replaces it, from the automaton and
its lexical layer (:mod:`.lexical`), never from rule names.

**Positions and kinds.**  A position is what stage 1 marks outside strings: a structural byte, a
string's opening quote, a token's first byte.  Its *kind* is the structural byte itself, STR or
SCALAR.  Per *context* (a machine: the start rule's or a nested part's; at most 4) the automaton
is read a kind at a time from the machine's entry (:class:`KindSteps`): whitespace is skipped, a
string is read whole, a token whole, and a nested part from its opening byte to the state after
its closing byte.

**Pairs.**  Where the kinds allowed after a kind depend only on that kind, a table of pairs
(kind before, kind) per context decides every position.  Where they differ, the kind before it
must decide them (JSON: a string in an object is a key after ``{`` or a comma and a value after a
colon); the kind is then *refined* by the kind before it, and the table holds pairs (refined kind
before, kind).  Where neither holds, or there are more than two futures after a kind, the
derivation refuses and the walk stays.  At the end the last position's refined kind must be one
after which the start machine accepts.

**Brackets.**  Each opening byte must enter the same machine from every state; a stack of those
machines gives each position its context.  A closing byte that does not fit is a pair the table
refuses (its context is the part it closes).

**Tokens.**  The token states of every context are run together (the subset construction) over
the bytes read inside tokens; the copies must agree (no token is read differently in different
contexts).  The result is a table ``table[byte << 5 | state]`` in which a byte with bit 7 set is
a token's first byte: the token's first state where the token before is complete, else DEAD.

**Strings.**  Stage 1 checks a string's bytes one block at a time: a byte is *plain* where every
state a string starts in loops on it; every other ASCII byte but the quote and the escape must
fail there; beyond ASCII a string reads UTF-8 (the layer's UTF-8 skip class) or nothing.  Bytes
beyond ASCII never appear outside strings, and every lexical byte is ASCII, so the classes fit a
128-byte table.  No state outside strings reads the escape: the escape scan runs there too.

:func:`find_bigrams` returns None where any of this does not hold; :func:`derive_bigrams` raises
:class:`NoBigrams` saying why.
"""
from __future__ import annotations

from dataclasses import fields

from ..lexical import LexicalLayer, find_layer
from ..pushdown import Pushdown
from .pairs import pair_tables
from .steps import KindSteps
from .tables import (
    C_BR,
    C_SS,
    C_ST,
    C_WS,
    FIRST,
    PAIR_TABLE,
    TOKEN_DEAD,
    TOKEN_FIN,
    TOKEN_WIDTH,
    Bigrams,
    NoBigrams,
    PairTables,
    TokenAutomaton,
)
from .tokens import token_automaton

# The derivation reads the automaton a kind at a time from every state of each machine, with a
# search inside tokens and strings at each step: polynomial, but not cheap, so a bound keeps
# compiling quick (JSON has 120 states and takes 0.06 s).
MAX_STATES = 2000

__all__ = ["C_BR", "C_SS", "C_ST", "C_WS", "FIRST", "PAIR_TABLE", "TOKEN_DEAD", "TOKEN_FIN", "TOKEN_WIDTH", "Bigrams",
           "KindSteps", "NoBigrams", "TokenAutomaton", "derive_bigrams", "find_bigrams"]


def find_bigrams(pushdown: Pushdown, layer: LexicalLayer | None = None) -> Bigrams | None:
    try:
        return derive_bigrams(pushdown, layer)
    except NoBigrams:
        return None


def derive_bigrams(pushdown: Pushdown, layer: LexicalLayer | None = None) -> Bigrams:
    """The tables for ``pushdown`` whose lexical layer is ``layer`` (found where None)."""
    if pushdown.dfa.num_states > MAX_STATES:
        raise NoBigrams(f"more than {MAX_STATES} states")
    layer = layer or find_layer(pushdown)
    if layer is None:
        raise NoBigrams("no lexical layer")
    steps = KindSteps(pushdown, layer)
    utf8_strings = _check_bytes(steps, layer)
    pairs = pair_tables(pushdown, layer, steps, _plain_string_bytes(steps, layer))
    return Bigrams(**{field.name: getattr(pairs, field.name) for field in fields(PairTables)},
                   quote=layer.strings.quote, escape=layer.strings.escape, utf8_strings=utf8_strings,
                   tokens=token_automaton(pushdown, layer, steps))


def _check_bytes(steps: KindSteps, layer: LexicalLayer) -> bool:
    """That every lexical byte is ASCII and no state outside strings reads a byte beyond it or
    the escape; whether strings read UTF-8 beyond ASCII (else they read no such byte either)."""
    escape = layer.strings.escape
    lexical = steps.ends | steps.starts | (set() if escape is None else {escape})
    if any(byte >= 0x80 for byte in lexical):
        raise NoBigrams("a lexical byte beyond ASCII")
    for state, row in enumerate(steps.step):
        if state == steps.dead or state in steps.region:
            continue
        if any(row[b] != steps.dead for b in range(0x80, 256)):
            raise NoBigrams("a byte beyond ASCII read outside strings")
        # Stage 1's escape scan runs outside strings too: an escape read there would hide the
        # quote after it, and with no walk behind it that quote's string would be missed.
        if escape is not None and row[escape] != steps.dead:
            raise NoBigrams("the escape byte read outside strings")
    entries = steps.string_entries()
    if layer.utf8_skip >= 0 and entries <= layer.skip_classes[layer.utf8_skip].states:
        return True
    if any(steps.step[s][b] != steps.dead for s in steps.region for b in range(0x80, 256)):
        raise NoBigrams("strings read bytes beyond ASCII, but not UTF-8 only")
    return False


def _plain_string_bytes(steps: KindSteps, layer: LexicalLayer) -> set[int]:
    """The ASCII bytes every state a string starts in loops on; every other ASCII byte but the
    quote and the escape must fail there, so that stage 1 tells a string's bytes apart alone."""
    entries = steps.string_entries()
    plain = {b for b in range(0x80) if all(steps.step[s][b] == s for s in entries)}
    special = {layer.strings.quote, layer.strings.escape}
    for state in entries:
        for byte in set(range(0x80)) - plain - special:
            if steps.step[state][byte] != steps.dead:
                raise NoBigrams(f"byte {byte:#04x} in a string neither loops nor fails")
    return plain
