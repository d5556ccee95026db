"""The JSON output of ``abnfc explain``: the same information as the text, for tools.

The schema is described in the README ("abnfc explain").  Trees are given whole (``--max-nodes``
only shortens the text), each rule with its terminals as leaves.
"""
from __future__ import annotations

import json

from ..frontend.ir import Origin
from .model import Explanation, Step
from .search import Derivation, Leaf
from .text import TextRenderer


def render(explanation: Explanation, text: TextRenderer) -> str:
    """The JSON document; ``text`` renders the sentences in it (in the reader's language)."""
    outcome = explanation.outcome
    document = {
        "grammar": explanation.grammar,
        "start": explanation.start,
        "input": explanation.name,
        "size": outcome.size,
        "accepted": explanation.accepted,
        "tree": _tree(explanation.tree, explanation.data, text) if explanation.tree else None,
        "ambiguity": _ambiguity(explanation, text),
        "error": _error(explanation, text),
    }
    if explanation.steps is not None:
        document["steps"] = [_step(step) for step in explanation.steps]
        if explanation.final_state is not None:
            state, accepting = explanation.final_state
            document["final_state"] = {"state": state, "accepting": accepting}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def _tree(tree: Derivation, data: bytes, text: TextRenderer) -> dict:
    """The tree as nested objects, built without recursion (trees may nest deeply)."""
    root: dict = {}
    stack: list[tuple[Derivation | Leaf, list | None]] = [(tree, None)]
    while stack:
        node, siblings = stack.pop()
        if isinstance(node, Leaf):
            entry = {"terminal": text.element_text(node.origin), **_origin(node.origin), "offset": node.offset}
        else:
            entry = {"rule": node.rule, "alternative": node.alternative, "alternatives": node.alternatives,
                     "start": node.start, "end": node.end, "complete": node.complete,
                     "text": text.show_bytes(data[node.start: node.end])[1:-1] if node.end - node.start <= 32
                     else None,
                     "hex": data[node.start: node.end].hex(" "), "children": []}
            stack.extend((child, entry["children"]) for child in reversed(node.children))
        if siblings is None:
            root = entry
        else:
            siblings.append(entry)
    return root


def _origin(origin: Origin) -> dict:
    span = origin.span
    return {"rule": origin.rule, "alternative": origin.alternative + 1, "element": origin.element + 1,
            "reads": [list(r) for r in origin.reads],
            "file": span.source.name if span else None, "line": span.line if span else None,
            "column": span.column if span else None}


def _ambiguity(explanation: Explanation, text: TextRenderer) -> dict | None:
    ambiguity = explanation.ambiguity
    if ambiguity is None:
        return None
    first = ambiguity.first
    return {"rule": first.rule, "start": first.start, "end": first.end,
            "derivations": [_tree(tree, explanation.data, text) for tree in (ambiguity.first, ambiguity.second)]}


def _error(explanation: Explanation, text: TextRenderer) -> dict | None:
    outcome = explanation.outcome
    if outcome.offset is None:
        return None
    at_end = outcome.offset == outcome.size
    return {"offset": outcome.offset, "byte": None if at_end else explanation.data[outcome.offset],
            "context_start": outcome.context_start, "context": outcome.context.hex(" "),
            "expected": [{**_origin(e.origin), "after": text.element_text(e.after) if e.after else None,
                          "message": text.expectation_text(e)} for e in explanation.expected]}


def _step(step: Step) -> dict:
    return {"offset": step.offset, "byte": step.byte, "class": step.byte_class, "from": step.before,
            "to": step.after, "read_by": [_origin(o) for o in step.read_by],
            "expected": [_origin(o) for o in step.expected]}
