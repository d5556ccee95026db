"""The token automaton of a pushdown validator, as C tables for the token-bigram prototype's pass N.

The lexical layer (src/abnfc/automata/lexical.py) sorts the automaton's states outside strings
into between-token states and token states (numbers, literals).  A token starts where a byte of
``token_starts`` leads a between-token state into a token state, and each context (the top level,
an array, an object) has its own copy of the token states.  src/abnfc/automata/bigrams.py runs the copies together
(subsets, as in the subset construction) over the bytes read inside tokens; a byte that leads
every state of a subset out of the tokens ends the token (state FIN).  It checks that the copies
agree (every subset holds one state of each copy, so no token is read differently in different
contexts) and writes:

- ``tok_complete[s]``: a token may end in state ``s`` (a byte outside tokens may follow);
- ``tok_table[b << 5 | s]``: the state after byte ``b`` in state ``s``, where ``b`` has bit 7 set
  at a token's first byte: there the state is the token's first state if ``s`` is complete, else
  DEAD (0), so that one load per byte checks both the token and the one before it.

    python bench/prototypes/derive_token_automaton.py grammars/json.abnf > token_automaton.h
"""
from __future__ import annotations

import sys

from abnfc.automata.bigrams import TOKEN_WIDTH, derive_bigrams
from abnfc.automata.pushdown import Pushdown
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation


def main() -> None:
    pushdown = Compilation(load(sys.argv[1])).pushdown
    assert isinstance(pushdown, Pushdown), "not a pushdown grammar"
    tokens = derive_bigrams(pushdown).tokens
    complete, table = tokens.complete, tokens.table
    rows = (", ".join(map(str, table[b * TOKEN_WIDTH:(b + 1) * TOKEN_WIDTH])) for b in range(256))
    print(f"/* derived from {sys.argv[1]} by bench/prototypes/derive_token_automaton.py */")
    print(f"#define TOK_STATES {len(complete)}")
    print(f"static const uint8_t tok_complete[{len(complete)}] = {{ {', '.join(map(str, complete))} }};")
    print(f"static const uint8_t tok_table[256 * {TOKEN_WIDTH}] = {{\n    " + ",\n    ".join(rows) + "\n};")


if __name__ == "__main__":
    main()
