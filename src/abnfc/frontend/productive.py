"""Which rules can match at least one string: the generating symbols of a context-free grammar
(Hopcroft and Ullman 1979, section 4.4), in time linear in the size of the IR.

The IR is read as a set of Horn clauses: a sequence or a repetition with a minimum needs all of
its parts, a choice needs one, a terminal, an empty sequence and a repetition that may be empty
need nothing, and a reference needs its rule.  Marking runs from the nodes that need nothing
upwards, each node keeping a count of the parts it still waits for, so every edge is followed
once (the unit propagation of Dowling and Gallier 1984, "Linear-time algorithms for testing the
satisfiability of propositional Horn formulae").  Repeating passes until nothing changes instead
took quadratic time on long chains of rules.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import assert_never

from . import ir


def productive_rules(rules: Mapping[str, ir.Node]) -> set[str]:
    """The keys of the rules (given as rule key -> IR) that match some string."""
    graph = _Clauses(rules)
    return {key for key, root in rules.items() if graph.solved[id(root)]}


class _Clauses:
    def __init__(self, rules: Mapping[str, ir.Node]):
        self.waiting: dict[int, int] = {}  # node -> parts still needed
        self.parents: dict[int, list[int]] = {}  # node -> nodes it is a part of, once per use
        self.solved: dict[int, bool] = {}
        ready: list[int] = []
        roots = {key: id(root) for key, root in rules.items()}
        users: dict[str, list[int]] = {}  # rule -> the Ref nodes that need it
        for root in rules.values():
            self._add_tree(root, ready, users)
        for key, refs in users.items():
            if key in roots:
                self.parents.setdefault(roots[key], []).extend(refs)
        self._propagate(ready)

    def _add_tree(self, root: ir.Node, ready: list[int], users: dict[str, list[int]]) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in self.waiting:
                continue  # a shared node: its parts are known already
            parts = ir.children(node)
            match node:
                case ir.Alt():
                    needed = 1  # an empty choice matches nothing: it never becomes ready
                case ir.Repeat():
                    needed = 1 if node.min > 0 else 0
                case ir.Ref():
                    needed = 1
                    users.setdefault(node.key, []).append(id(node))
                case ir.Seq() | ir.Terminal():
                    needed = len(parts)
                case _:
                    assert_never(node)
            self.waiting[id(node)] = needed
            self.solved[id(node)] = False
            for part in parts:
                self.parents.setdefault(id(part), []).append(id(node))
            if needed == 0:
                ready.append(id(node))
            stack.extend(parts)

    def _propagate(self, ready: list[int]) -> None:
        while ready:
            node = ready.pop()
            if self.solved[node]:
                continue
            self.solved[node] = True
            for parent in self.parents.get(node, ()):
                if not self.solved[parent]:
                    self.waiting[parent] -= 1
                    if self.waiting[parent] <= 0:
                        ready.append(parent)
