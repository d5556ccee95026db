"""Whether a pushdown grammar's positions can be checked in pairs, as the token-bigram prototype
checks JSON's (bench/prototypes/json_token_bigrams.c, pass C): a step toward deriving its pair
table from the automaton instead of writing it by hand.

A position is what the lexical layer (src/abnfc/automata/lexical.py) lets stage 1 mark: a
structural byte, a string's opening quote, a token's first byte.  Its *kind* is the structural
byte itself, STR or SCALAR.  For each machine (the start rule's and each nested part's, the
contexts of the prototype) the script runs the automaton a kind at a time from the machine's
entry: whitespace before a position is skipped, a string is read whole (the state after its
closing quote), a token is read whole (every state it may end in), and a nested part is passed
from its opening byte to the state after its closing byte.  Then, for each kind, it collects the
states that may follow it at that level and compares what they allow next (the set of kinds):

- **1-local**: every state after the kind allows the same kinds, so a table of pairs (kind
  before, kind) per context decides every position;
- **2-local**: the states after the kind differ, but the kind before it tells which (JSON's
  strings in an object: after ``{`` or ``,`` a key, after ``:`` a value), so the kind needs the
  kind before it to be refined first;
- otherwise the pairs cannot decide, and the walk must stay.

    python bench/prototypes/position_kinds.py grammars/json.abnf
"""
from __future__ import annotations

import sys
from collections import defaultdict

from abnfc.automata.bigrams import KindSteps
from abnfc.automata.lexical import find_layer
from abnfc.automata.pushdown import Pushdown
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation


def level(steps: KindSteps, entry: int) -> tuple[dict[str, set[int]], dict[int, set[str]]]:
    """For one machine: the states after each kind at its level, and the kinds before each state."""
    after: dict[str, set[int]] = defaultdict(set)
    before: dict[int, set[str]] = defaultdict(set)
    before[entry].add("(entry)")
    seen, todo = {entry}, [entry]

    def reached(state: int, kind: str) -> None:
        after[kind].add(state)
        before[state].add(kind)
        if state not in seen:
            seen.add(state)
            todo.append(state)

    while todo:
        state = todo.pop()
        for kind in steps.kinds:
            for target in steps.after(state, kind):
                if isinstance(target, int):
                    reached(target, kind)
                elif target[0] == "call":  # on at the state after the nested part's closing byte
                    for byte in range(256):
                        going_on = steps.step[target[1]][byte]
                        if going_on != steps.dead:
                            reached(going_on, f"{kind}...{chr(byte)}")
    return after, before


def report(pushdown: Pushdown) -> list[str]:
    layer = find_layer(pushdown)
    if layer is None:
        return ["no lexical layer: the grammar has no two-stage path"]
    steps = KindSteps(pushdown, layer)
    lines = []
    for machine in pushdown.machines:
        after, before = level(steps, machine.start)
        lines.append(f"{machine.name}:")
        for kind, states in sorted(after.items()):
            futures = {steps.allows(s) for s in states}
            if len(futures) == 1:
                lines.append(f"  after {kind!r}: 1-local, then {sorted(next(iter(futures)))}")
                continue
            by_before: dict[str, set[frozenset[str]]] = defaultdict(set)
            for state in before:
                for kind_before in before[state]:
                    for target in steps.after(state, kind):
                        if isinstance(target, int):
                            by_before[kind_before].add(steps.allows(target))
            two = all(len(f) == 1 for f in by_before.values())
            detail = "; ".join(f"after {b!r}: {sorted(next(iter(f)))}" if len(f) == 1 else f"after {b!r}: ambiguous"
                               for b, f in sorted(by_before.items()))
            lines.append(f"  after {kind!r}: {'2-local' if two else 'neither'} ({detail})")
    return lines


def main() -> None:
    pushdown = Compilation(load(sys.argv[1])).pushdown
    if not isinstance(pushdown, Pushdown):
        sys.exit("not a pushdown grammar")
    print("\n".join(report(pushdown)))


if __name__ == "__main__":
    main()
