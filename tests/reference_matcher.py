"""A deliberately simple matcher for ABNF grammars, to check the interpreter against.

``ends(node, i)`` is the set of positions j such that ``node`` matches ``data[i:j]``, computed
straight from the definitions by plain recursion.  Rule results are the least fixpoint of those
equations: every pass recomputes them from the previous pass's values (a rule already being
computed in this pass reads its previous value, which makes left recursion harmless), until a pass
changes nothing.  Exponential-free thanks to per-pass memoisation, but slow: short inputs and
small grammars only.
"""
from __future__ import annotations

from abnfc.frontend import ast
from abnfc.frontend.resolve import ResolvedGrammar


def matches(grammar: ResolvedGrammar, data: bytes) -> bool:
    return len(data) in _Matcher(grammar, bytes(data)).rule_ends(grammar.start, 0)


class _Matcher:
    def __init__(self, grammar: ResolvedGrammar, data: bytes):
        self.rules = grammar.rules
        self.data = data
        self.known: dict[tuple[str, int], frozenset[int]] = {}

    def rule_ends(self, key: str, start: int) -> frozenset[int]:
        while True:
            self.changed = False
            self.this_pass: dict[tuple[str, int], frozenset[int]] = {}
            self.active: set[tuple[str, int]] = set()
            result = self._rule(key, start)
            if not self.changed:
                return result

    def _rule(self, key: str, start: int) -> frozenset[int]:
        slot = (key, start)
        if slot in self.this_pass:
            return self.this_pass[slot]
        previous = self.known.get(slot, frozenset())
        if slot in self.active:
            return previous
        self.active.add(slot)
        result = self._ends(self.rules[key].definition, start) | previous
        self.active.discard(slot)
        if result != previous:
            self.known[slot] = result
            self.changed = True
        self.this_pass[slot] = result
        return result

    def _ends(self, node: ast.Node, start: int) -> frozenset[int]:
        data = self.data
        if isinstance(node, ast.Alternation):
            return frozenset().union(*(self._ends(a, start) for a in node.alternatives))
        if isinstance(node, ast.Concatenation):
            positions = frozenset([start])
            for item in node.items:
                positions = frozenset().union(*(self._ends(item, p) for p in positions))
            return positions
        if isinstance(node, ast.Repetition):
            return self._repeat(node.min, node.max, node.element, start)
        if isinstance(node, ast.Option):
            return self._repeat(0, 1, node.element, start)
        if isinstance(node, ast.Group):
            return self._ends(node.element, start)
        if isinstance(node, ast.RuleRef):
            return self._rule(node.key, start)
        if isinstance(node, ast.CharVal):
            end = start + len(node.text)
            if end > len(data):
                return frozenset()
            text = data[start:end].decode("latin-1")
            same = text == node.text if node.case_sensitive else _fold(text) == _fold(node.text)
            return frozenset([end]) if same else frozenset()
        if isinstance(node, ast.NumVal):
            ok = data[start:start + len(node.values)] == bytes(node.values)
            return frozenset([start + len(node.values)]) if ok else frozenset()
        if isinstance(node, ast.NumRange):
            ok = start < len(data) and node.low <= data[start] <= node.high
            return frozenset([start + 1]) if ok else frozenset()
        raise TypeError(f"cannot match {node!r}")

    def _repeat(self, low: int, high: int | None, element: ast.Node, start: int) -> frozenset[int]:
        frontier = frozenset([start])
        result = set(frontier) if low == 0 else set()
        count = 0
        while frontier and (high is None or count < high):
            following = frozenset().union(*(self._ends(element, p) for p in frontier))
            count += 1
            if count >= low:
                if following == frontier and count > low:
                    break  # nothing new can come of further iterations
                result |= following
                if high is None:
                    return frozenset(self._closure(element, following, result))
            frontier = following
        return frozenset(result)

    def _closure(self, element: ast.Node, frontier, result: set[int]) -> set[int]:
        todo = list(frontier)
        while todo:
            for end in self._ends(element, todo.pop()):
                if end not in result:
                    result.add(end)
                    todo.append(end)
        return result


def _fold(text: str) -> str:
    return "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in text)
