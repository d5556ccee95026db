"""The automaton read a position's kind at a time: whitespace skipped, a string read whole, a
token read whole, a nested part from its opening byte to the state after its closing byte."""
from __future__ import annotations

from ...charset import members
from ..lexical import LexicalLayer
from ..pushdown import Pushdown
from .tables import SCALAR, STR


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
        self.kinds = [chr(b) for b in sorted(members(layer.structural))] + [STR, SCALAR]

    def after_whitespace(self, state: int) -> set[int]:
        return self._reach(state, None, self.whitespace)

    def _reach(self, first: int, inside: frozenset[int] | None, bytes_: range | set[int]) -> set[int]:
        """The states reached from ``first`` by ``bytes_`` without leaving ``inside`` (None: any live state)."""
        found, todo = {first}, [first]
        while todo:
            current = todo.pop()
            for byte in bytes_:
                target = self.step[current][byte]
                if target != self.dead and (inside is None or target in inside) and target not in found:
                    found.add(target)
                    todo.append(target)
        return found

    def string_entries(self) -> set[int]:
        """The states a string starts in (after its opening quote)."""
        return {row[self.quote] for state, row in enumerate(self.step)
                if state not in self.region and row[self.quote] in self.region}

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
            if kind == SCALAR:
                if current not in self.tokens:  # right after a token, a token's byte goes on with it
                    found |= self._after_token(current)
            elif kind == STR:
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
