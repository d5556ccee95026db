"""A DFA as a readable table and as JSON, shared by ``abnfc dfa`` and the backends.

Each state's note says what it expects in grammar terms (:mod:`.notes`); the caller gives the
notes, computed once by the pipeline from the provenance of the DFA before minimization.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..charset import format_hex
from .dfa import Dfa


def class_lines(dfa: Dfa) -> list[str]:
    return [f"class {index:>3}: {format_hex(ranges)}" for index, ranges in enumerate(dfa.classes)]


def table_lines(dfa: Dfa, notes: Sequence[str]) -> list[str]:
    """One row per state, one column per byte class, then its note; ``*`` marks accepting states."""
    width = max(2, len(str(dfa.num_states - 1)))
    header = " " * (width + 3) + " ".join(f"{c:>{width}}" for c in range(dfa.num_classes))
    lines = ["states x classes (next state):", header]
    for state, row in enumerate(dfa.transitions):
        mark = "*" if state in dfa.accepting else " "
        cells = " ".join(f"{t:>{width}}" for t in row)
        lines.append(f"{mark}{state:>{width}}: {cells}   ; {notes[state]}")
    return lines


MAX_LISTED_ACCEPTING = 16  # beyond this the summary gives a count; the table marks each one


def text(dfa: Dfa, notes: Sequence[str]) -> str:
    """The summary, the byte classes and the table with a note per state, as ``abnfc dfa`` prints it."""
    accepting = sorted(dfa.accepting)
    listed = (f"accepting {accepting}" if len(accepting) <= MAX_LISTED_ACCEPTING
              else f"{len(accepting)} accepting states (marked *)")
    summary = (f"{dfa.num_states} states (dead state {dfa.dead} included), {dfa.num_classes} byte "
               f"classes, start {dfa.start}, {listed}")
    return "\n".join([summary, "", *class_lines(dfa), "", *table_lines(dfa, notes)]) + "\n"


def to_json(dfa: Dfa) -> dict:
    return {
        "num_states": dfa.num_states,
        "num_classes": dfa.num_classes,
        "start": dfa.start,
        "dead": dfa.dead,
        "accepting": sorted(dfa.accepting),
        "classes": [[list(r) for r in ranges] for ranges in dfa.classes],
        "transitions": [list(row) for row in dfa.transitions],
        "origins": [sorted({str(o) for o in origins}) for origins in dfa.origins] if dfa.origins else [],
    }
