"""The token automaton of a pushdown validator, as C tables for the token-bigram prototype's pass N.

The lexical layer (src/abnfc/automata/lexical.py) sorts the automaton's states outside strings
into between-token states and token states (numbers, literals).  A token starts where a byte of
``token_starts`` leads a between-token state into a token state, and each context (the top level,
an array, an object) has its own copy of the token states.  This script runs the copies together
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

from abnfc.automata.lexical import find_layer
from abnfc.automata.pushdown import Pushdown
from abnfc.charset import members
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation

DEAD, FIN = 0, 1
WIDTH = 32  # states a row of tok_table holds


def derive(pushdown: Pushdown) -> tuple[list[int], list[int]]:
    """(tok_complete, tok_table) for ``pushdown``, whose lexical layer must have token states."""
    layer = find_layer(pushdown)
    if layer is None or not layer.token_states:
        raise SystemExit("no lexical layer with tokens")
    dfa = pushdown.dfa
    step = [[row[dfa.byte_class[b]] for b in range(256)] for row in dfa.transitions]
    tokens = layer.token_states
    ends = {*members(layer.whitespace), *members(layer.structural), layer.strings.quote}
    between = [s for s in range(dfa.num_states)
               if s != dfa.dead and s not in layer.strings.states and s not in tokens and s not in pushdown.calls]
    numbers: dict[frozenset[int], int] = {}
    todo: list[frozenset[int]] = []

    def number(subset: frozenset[int]) -> int:
        if subset not in numbers:
            numbers[subset] = len(numbers) + 2
            todo.append(subset)
        return numbers[subset]

    first = {b: number(frozenset(step[q][b] for q in between if step[q][b] in tokens))
             for b in members(layer.token_starts)}
    moves: dict[tuple[int, int], int] = {}
    while todo:
        subset = todo.pop()
        for byte in range(128):
            targets = {step[s][byte] for s in subset} - {dfa.dead}
            inside = frozenset(t for t in targets if t in tokens)
            if inside and len(inside) != len(targets):
                raise SystemExit(f"byte {byte} leads some of the states {sorted(subset)} out of the tokens, not all")
            if inside:
                moves[(numbers[subset], byte)] = number(inside)
            elif targets and byte not in ends:
                moves[(numbers[subset], byte)] = FIN
    copies = {len(subset) for subset in numbers}
    if len(copies) != 1:
        raise SystemExit(f"the contexts read tokens differently (subsets of sizes {sorted(copies)})")
    count = len(numbers) + 2
    if count > WIDTH:
        raise SystemExit(f"{count} token states: more than a row of {WIDTH}")
    complete = [0] * count
    complete[FIN] = 1
    for subset, index in numbers.items():
        complete[index] = int(any(step[s][b] != dfa.dead for s in subset for b in ends)
                              or any(pushdown.returns[s] for s in subset))
    table = []
    for byte in range(256):
        for state in range(WIDTH):
            if state == DEAD or state >= count:
                table.append(DEAD)
            elif byte & 0x80:
                table.append(first.get(byte & 0x7F, DEAD) if complete[state] else DEAD)
            else:
                table.append(moves.get((state, byte), DEAD))
    return complete, table


def main() -> None:
    pushdown = Compilation(load(sys.argv[1])).pushdown
    assert isinstance(pushdown, Pushdown), "not a pushdown grammar"
    complete, table = derive(pushdown)
    rows = (", ".join(map(str, table[b * WIDTH:(b + 1) * WIDTH])) for b in range(256))
    print(f"/* derived from {sys.argv[1]} by bench/prototypes/derive_token_automaton.py */")
    print(f"#define TOK_STATES {len(complete)}")
    print(f"static const uint8_t tok_complete[{len(complete)}] = {{ {', '.join(map(str, complete))} }};")
    print(f"static const uint8_t tok_table[256 * {WIDTH}] = {{\n    " + ",\n    ".join(rows) + "\n};")


if __name__ == "__main__":
    main()
