"""Neutral tables of a pushdown validator -> the Go plan of its stack machine.

A self-embedding grammar (``Tables.pushdown``) gets one loop, the C backend's (see
:mod:`abnfc.backends.c.pushdown` for the measurements behind it): a byte-major table
(``next[byte*states + state]``: the column of a byte is known before the previous step ends),
and one unsigned comparison that tells a plain step from the three rare ones, which share one
branch: the dead state 0 (``t - 1`` wraps around to the largest value), a call state
(``t >= firstCall``: push it, go on in the start of its nested part) and RETURN (the number of
states: pop the call state and read the byte from it), as
:meth:`abnfc.automata.pushdown.Pushdown.run` does.  A step that keeps the state is tested first:
while it holds, no load waits for the one before (16 MiB of JSON: 0.63 -> 0.77 GB/s, medians of
12 runs).

The 256-column table is filled when the package is initialized from the byte classes, the
table by class and each state's return bytes, so the source holds what the reader can check
against the comments.  The stack is a slice of the narrowest unsigned type holding the call
states; it grows with the nesting depth of the input only, up to the caller's limit (the
package's MaxDepth by default, as the Python module's).  Segments and block skipping need the
state at a block's start, which a stack makes unknowable, so none applies here.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...charset import format_hex
from ...errors import AbnfError, printable
from ...i18n import _
from ..analysis import check_pushdown_layout, check_pushdown_strategy
from ..tables import Tables
from .naming import NAMING
from .plan import Comments, GoPlan, Line, cell_lines, comment_safe, comments, lower


@dataclass(frozen=True)
class GoPushdownPlan:
    """Every decision about a pushdown validator's Go."""

    package: str
    comments: Comments
    num_states: int
    num_classes: int
    start_state: int
    dead_state: int
    first_call: int
    calls: bool  # some state is a call state (a nested part that can never close may leave none)
    return_code: int
    max_depth: int  # the default depth limit
    next_type: str  # a table entry: a state number or RETURN
    call_type: str  # a stack entry: a call state
    class_lines: tuple[Line, ...]
    class_rows: tuple[Line, ...]  # per state, the next state of each class, labelled with its note
    returns: tuple[str, ...]  # "state, lo, hi" for each range of bytes a state returns on
    entries: tuple[Line, ...]  # per call state, the start of its nested part
    accepting: tuple[str, ...]
    accepting_list: str
    parts: tuple[str, ...]  # a line per machine
    expected: tuple[str, ...]
    max_ranges: int


def lower_any(tables: Tables, options: Mapping[str, str]) -> GoPlan | GoPushdownPlan:
    """The backend's ``lower``: a pushdown validator's plan, or a DFA's (:func:`.plan.lower`).
    A prefix the naming rules refuse is refused here too: a default prefix gets ``g_`` in front
    of a refused one, which mends a reserved word but not a file name ending in ``_test``."""
    problem = NAMING.problem(options["prefix"])
    if problem:
        raise AbnfError.at(None, _("the Go package cannot be named {prefix!r}: {problem}; choose a name with "
                                   "--prefix").format(prefix=options["prefix"],
                                                      problem=_(problem).format(prefix=options["prefix"])))
    return lower(tables, options) if tables.pushdown is None else lower_pushdown(tables, options)


def lower_pushdown(tables: Tables, options: Mapping[str, str]) -> GoPushdownPlan:
    check_pushdown_layout(tables)
    found = tables.pushdown
    assert found is not None
    check_pushdown_strategy(options.get("strategy", "auto"), "Go", "--go-strategy")
    return GoPushdownPlan(
        package=options["prefix"],
        comments=comments(tables),
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start_state=tables.start,
        dead_state=tables.dead,
        first_call=found.first_call,
        calls=found.first_call < tables.num_states,
        return_code=found.return_code,
        max_depth=found.max_depth,
        next_type=_uint(found.return_code),
        call_type=_uint(tables.num_states - 1),
        class_lines=cell_lines([str(c) for c in tables.byte_class]),
        class_rows=tuple(Line(comment_safe(f"{s.index}: {s.note}" if s.note else f"{s.index}"),
                              ", ".join(map(str, s.targets)) + ",") for s in tables.states),
        returns=tuple(f"{state}, 0x{lo:02X}, 0x{hi:02X}" for state, ranges in enumerate(found.returns)
                      for lo, hi in ranges),
        entries=cell_lines([str(e) for e in found.entries], [""] * len(found.entries)),
        accepting=tuple(line.cells for line in cell_lines(["1" if s.accepting else "0" for s in tables.states])),
        accepting_list=", ".join(str(s) for s in tables.accepting) or "none",
        parts=tuple(comment_safe(f"{printable(p.name)}: states {p.first}-{p.end - 1}, start {p.start}"
                                 + (f", ends on {format_hex(p.returns)}" if p.returns else ""))
                    for p in found.parts),
        expected=tuple("{" + ", ".join(f"{{0x{lo:02X}, 0x{hi:02X}}}" for lo, hi in s.expects) + "}"
                       for s in tables.states),
        max_ranges=max((len(s.expects) for s in tables.states), default=0),
    )


def _uint(largest: int) -> str:
    return "uint8" if largest < 1 << 8 else "uint16" if largest < 1 << 16 else "uint32"

