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

from abnfc.automata.lexical import LexicalLayer, find_layer
from abnfc.automata.pushdown import Pushdown
from abnfc.charset import members
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation


class KindSteps:
    """The automaton read a position's kind at a time."""

    def __init__(self, pushdown: Pushdown, layer: LexicalLayer):
        dfa = pushdown.dfa
        self.dead = dfa.dead
        self.step = [[row[dfa.byte_class[b]] for b in range(256)] for row in dfa.transitions]
        self.calls = dict(pushdown.calls)
        self.returning = [set(members(r)) for r in pushdown.returns]
        self.whitespace = set(members(layer.whitespace))
        self.tokens = layer.token_states
        self.region = layer.strings.states
        self.quote = layer.strings.quote
        self.starts = set(members(layer.token_starts))
        self.ends = self.whitespace | set(members(layer.structural)) | {self.quote}
        self.kinds = [chr(b) for b in sorted(members(layer.structural))] + ["STR", "SCALAR"]

    def after_whitespace(self, state: int) -> set[int]:
        found, todo = {state}, [state]
        while todo:
            current = todo.pop()
            for byte in self.whitespace:
                target = self.step[current][byte]
                if target != self.dead and target not in found:
                    found.add(target)
                    todo.append(target)
        return found

    def _reach(self, first: int, inside: frozenset[int] | set[int], bytes_: range | set[int]) -> set[int]:
        found, todo = {first}, [first]
        while todo:
            current = todo.pop()
            for byte in bytes_:
                target = self.step[current][byte]
                if target in inside and target not in found:
                    found.add(target)
                    todo.append(target)
        return found

    def _after_string(self, state: int) -> set[int]:
        opened = self.step[state][self.quote]
        if opened not in self.region:
            return set()
        closing = {self.step[s][self.quote] for s in self._reach(opened, self.region, range(256))}
        return closing - self.region - {self.dead}

    def _after_token(self, state: int) -> set[int]:
        found = set()
        for byte in self.starts:
            first = self.step[state][byte]
            if first == self.dead:
                continue
            if first not in self.tokens:
                found.add(first)
                continue
            inside = self._reach(first, self.tokens, set(range(128)) - self.ends)
            found |= {s for s in inside
                      if any(self.step[s][b] != self.dead for b in self.ends) or self.returning[s]}
            found |= {self.step[s][b] for s in inside for b in range(128)
                      if b not in self.ends and self.step[s][b] not in self.tokens} - {self.dead}
        return found

    def after(self, state: int, kind: str) -> set[int | tuple[str, int]]:
        """The states after a position of ``kind`` read in ``state`` (with whitespace before it or
        not); ("call", k) where its byte opens a nested part, ("return", b) where it ends one."""
        found: set[int | tuple[str, int]] = set()
        for current in self.after_whitespace(state):
            if kind == "SCALAR":
                if current not in self.tokens:  # right after a token, a token's byte goes on with it
                    found |= self._after_token(current)
            elif kind == "STR":
                found |= self._after_string(current)
            else:
                byte = ord(kind)
                target = self.step[current][byte]
                if target in self.calls:
                    found.add(("call", target))
                elif target != self.dead:
                    found.add(target)
                elif byte in self.returning[current]:
                    found.add(("return", byte))
        return found

    def allows(self, state: int) -> frozenset[str]:
        return frozenset(kind for kind in self.kinds if self.after(state, kind))


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
