"""The token automaton: the token states of every context run together (the subset construction)
over the bytes read inside tokens, as one table a byte with bit 7 marking a token's first byte."""
from __future__ import annotations

from ..lexical import LexicalLayer
from ..pushdown import Pushdown
from .steps import KindSteps
from .tables import FIRST, TOKEN_DEAD, TOKEN_FIN, TOKEN_WIDTH, NoBigrams, TokenAutomaton


def token_automaton(pushdown: Pushdown, layer: LexicalLayer, steps: KindSteps) -> TokenAutomaton:
    """The token states of every context run together over the bytes read inside tokens; a byte
    that leads every state of a subset out of the tokens (not a lexical byte) ends the token (FIN)."""
    dead, step, tokens = steps.dead, steps.step, layer.token_states
    between = [s for s in range(len(step))
               if s != dead and s not in layer.strings.states and s not in tokens and s not in pushdown.calls]
    numbers: dict[frozenset[int], int] = {}
    todo: list[frozenset[int]] = []

    def number(subset: frozenset[int]) -> int:
        if subset not in numbers:
            numbers[subset] = len(numbers) + 2
            todo.append(subset)
        return numbers[subset]

    first = {b: number(frozenset(step[q][b] for q in between if step[q][b] in tokens)) for b in sorted(steps.starts)}
    moves: dict[tuple[int, int], int] = {}
    while todo:
        subset = todo.pop()
        for byte in range(0x80):
            targets = {step[s][byte] for s in subset} - {dead}
            inside = frozenset(t for t in targets if t in tokens)
            if inside and len(inside) != len(targets):
                raise NoBigrams(f"byte {byte:#04x} leads some token states out of the tokens, not all")
            if inside:
                moves[(numbers[subset], byte)] = number(inside)
            elif targets and byte not in steps.ends:
                moves[(numbers[subset], byte)] = TOKEN_FIN
    if len({len(subset) for subset in numbers if subset}) > 1:
        raise NoBigrams("the contexts read tokens differently")
    count = len(numbers) + 2
    if count > TOKEN_WIDTH:
        raise NoBigrams(f"{count} token states: more than a row of {TOKEN_WIDTH}")
    complete = [0] * count
    complete[TOKEN_FIN] = 1
    for subset, index in numbers.items():
        complete[index] = int(any(step[s][b] != dead for s in subset for b in steps.ends)
                              or any(pushdown.returns[s] for s in subset))
    table = []
    for byte in range(256):
        for state in range(TOKEN_WIDTH):
            if state == TOKEN_DEAD or state >= count:
                table.append(TOKEN_DEAD)
            elif byte & FIRST:
                table.append(first.get(byte & 0x7F, TOKEN_DEAD) if complete[state] else TOKEN_DEAD)
            else:
                table.append(moves.get((state, byte), TOKEN_DEAD))
    return TokenAutomaton(tuple(complete), tuple(table))
