"""The JSON output of ``abnfc explain``: the same information as the text, for tools.

The schema is described in docs/teaching.md.  Trees are given whole (``--max-nodes``
only shortens the text), each rule with its terminals as leaves, and written node by node as they
are made, so a tree of millions of nodes never sits in memory twice.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TextIO

from ..frontend.ir import Origin
from .model import Explanation, Step
from .search import Derivation, Leaf
from .text import MAX_SHOWN_BYTES, TextRenderer


def render(explanation: Explanation, text: TextRenderer) -> str:
    """The JSON document; ``text`` renders the sentences in it (in the reader's language)."""
    return "".join(chunks(explanation, text))


def write(explanation: Explanation, text: TextRenderer, out: TextIO) -> None:
    """The JSON document, written as it is made: the tree of a long input has millions of nodes."""
    batch: list[str] = []
    for chunk in chunks(explanation, text):
        batch.append(chunk)
        if len(batch) >= 4096:
            out.write("".join(batch))
            batch.clear()
    out.write("".join(batch))


def chunks(explanation: Explanation, text: TextRenderer) -> Iterator[str]:
    """The JSON document in pieces, trees streamed node by node."""
    outcome = explanation.outcome
    head = {"grammar": explanation.grammar, "start": explanation.start, "input": explanation.name,
            "size": outcome.size, "accepted": explanation.accepted}
    yield "{\n"
    for key, value in head.items():
        yield f" {_dump(key)}: {_dump(value)},\n"
    yield ' "tree": '
    writer = _TreeWriter(explanation.data, text)
    yield from writer.chunks(explanation.tree) if explanation.tree else ["null"]
    yield ',\n "ambiguity": '
    ambiguity = explanation.ambiguity
    if ambiguity is None:
        yield "null"
    else:
        first = ambiguity.first
        yield f'{{"rule": {_dump(first.rule)}, "start": {first.start}, "end": {first.end}, "derivations": ['
        yield from writer.chunks(ambiguity.first)
        yield ", "
        yield from writer.chunks(ambiguity.second)
        yield "]}"
    yield f',\n "error": {_dump(_error(explanation, text))}'
    if explanation.steps is not None:
        yield ',\n "steps": ['
        positions: dict[int, tuple[tuple[Origin, ...], str]] = {}  # each list of positions written once
        for index, step in enumerate(explanation.steps):
            yield (",\n  " if index else "\n  ") + _step(step, positions, explanation.pushdown)
        yield "\n ]"
        if explanation.final_state is not None:
            state, accepting = explanation.final_state
            yield f',\n "final_state": {_dump({"state": state, "accepting": accepting})}'
    yield "\n}\n"


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


class _TreeWriter:
    """Trees as nested objects, node by node and without recursion (trees may nest deeply); the
    text of a terminal's leaf is made once per terminal."""

    def __init__(self, data: bytes, text: TextRenderer):
        self.data, self.text = data, text
        self.leaves: dict[int, tuple[Origin, str]] = {}  # id of an origin -> it, and its leaf's start
        self.shown: dict[bytes, str] = {}  # short spans' text and hex: inputs repeat their characters

    def chunks(self, tree: Derivation) -> Iterator[str]:
        stack: list[Derivation | Leaf | str] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, str):
                yield node
            elif isinstance(node, Leaf):
                yield f'{self._leaf_start(node.origin)}, "offset": {node.offset}}}'
            else:
                yield self._rule_start(node)
                stack.append("]}")
                children = node.children
                for index in range(len(children) - 1, -1, -1):
                    stack.append(children[index])
                    if index:
                        stack.append(", ")

    def _leaf_start(self, origin: Origin) -> str:
        found = self.leaves.get(id(origin))
        if found is None:
            entry = {"terminal": self.text.element_text(origin), **_origin(origin)}
            found = self.leaves[id(origin)] = (origin, _dump(entry)[:-1])
        return found[1]

    def _rule_start(self, node: Derivation) -> str:
        return (f'{{"rule": {_dump(node.rule)}, "alternative": {node.alternative}, '
                f'"alternatives": {node.alternatives}, "start": {node.start}, "end": {node.end}, '
                f'"complete": {_dump(node.complete)}, {self._shown(node)}, "children": [')

    def _shown(self, node: Derivation) -> str:
        if node.end - node.start > MAX_SHOWN_BYTES:
            return '"text": null, "hex": null'
        covered = self.data[node.start: node.end]
        found = self.shown.get(covered)
        if found is None:
            if len(self.shown) > 1 << 16:
                self.shown.clear()
            text = self.text.show_bytes(covered)[1:-1]
            found = self.shown[covered] = f'"text": {_dump(text)}, "hex": {_dump(covered.hex(" "))}'
        return found


def _origin(origin: Origin) -> dict:
    span = origin.span
    return {"rule": origin.rule, "alternative": origin.alternative + 1, "element": origin.element + 1,
            "reads": [list(r) for r in origin.reads],
            "file": span.source.name if span else None, "line": span.line if span else None,
            "column": span.column if span else None}


def _error(explanation: Explanation, text: TextRenderer) -> dict | None:
    outcome = explanation.outcome
    if outcome.offset is None:
        return None
    at_end = outcome.offset == outcome.size
    return {"offset": outcome.offset, "byte": None if at_end else explanation.data[outcome.offset],
            "context_start": outcome.context_start, "context": outcome.context.hex(" "),
            "expected": [{**_origin(e.origin), "after": text.element_text(e.after) if e.after else None,
                          "message": text.expectation_text(e)} for e in explanation.expected]}


def _step(step: Step, positions: dict[int, tuple[tuple[Origin, ...], str]], pushdown: bool = False) -> str:
    """One step as a JSON object (the lists of positions from ``positions``, made once each:
    steps alike share their tuples; keyed by identity, as equal origins may differ in their span)."""
    def listed(origins: tuple[Origin, ...]) -> str:
        found = positions.get(id(origins))
        if found is None:
            found = positions[id(origins)] = (origins, _dump([_origin(o) for o in origins]))
        return found[1]

    stack = f', "push": {max(step.move, 0)}, "pop": {max(-step.move, 0)}, "depth": {step.depth}' if pushdown else ""
    return (f'{{"offset": {step.offset}, "byte": {step.byte}, "class": {step.byte_class}, "from": {step.before}, '
            f'"to": {step.after}{stack}, "read_by": {listed(step.read_by)}, "expected": {listed(step.expected)}}}')
