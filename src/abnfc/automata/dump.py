"""A DFA as a readable table and as JSON, shared by ``abnfc dfa`` and the backends; a pushdown
validator likewise, with its machines, calls and returns.

Each state's note says what it expects in grammar terms (:mod:`.notes`); the caller gives the
notes, computed once by the pipeline from the provenance of the DFA before minimization.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..charset import format_hex, format_readable, intersect
from ..errors import InvariantError
from ..i18n import _, ngettext
from .dfa import Dfa
from .notes import Path, Reading, StateNote, state_notes
from .pushdown import Machine, Pushdown


def class_lines(dfa: Dfa) -> list[str]:
    label = _("class")
    return [f"{label} {index:>3}: {format_hex(ranges)}" for index, ranges in enumerate(dfa.classes)]


def table_lines(dfa: Dfa, notes: Sequence[str]) -> list[str]:
    """One row per state, one column per byte class, then its note; ``*`` marks accepting states."""
    width = max(2, len(str(dfa.num_states - 1)))
    header = " " * (width + 3) + " ".join(f"{c:>{width}}" for c in range(dfa.num_classes))
    lines = [_("states x classes (next state):"), header]
    for state, row in enumerate(dfa.transitions):
        mark = "*" if state in dfa.accepting else " "
        cells = " ".join(f"{t:>{width}}" for t in row)
        lines.append(f"{mark}{state:>{width}}: {cells}   ; {notes[state]}")
    return lines


MAX_LISTED_ACCEPTING = 16  # beyond this the summary gives a count; the table marks each one


def _states(dfa: Dfa) -> str:
    return ngettext("{count} state (dead state {dead} included)", "{count} states (dead state {dead} included)",
                    dfa.num_states).format(count=dfa.num_states, dead=dfa.dead)


def _classes(dfa: Dfa) -> str:
    return ngettext("{count} byte class", "{count} byte classes", dfa.num_classes).format(count=dfa.num_classes)


def _accepting(dfa: Dfa) -> str:
    accepting = sorted(dfa.accepting)
    if len(accepting) <= MAX_LISTED_ACCEPTING:
        return _("accepting {states}").format(states=accepting)
    return _("{count} accepting states (marked *)").format(count=len(accepting))


def text(dfa: Dfa, notes: Sequence[str], remarks: Sequence[str] = ()) -> str:
    """The summary and ``remarks`` under it, the byte classes and the table with a note per
    state, as ``abnfc dfa`` prints it."""
    summary = _("{states}, {classes}, start {start}, {accepting}").format(
        states=_states(dfa), classes=_classes(dfa), start=dfa.start, accepting=_accepting(dfa))
    return "\n".join([summary, *remarks, "", *class_lines(dfa), "", *table_lines(dfa, notes)]) + "\n"


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


# -- pushdown validators ------------------------------------------------------------------------

def machine_of(pushdown: Pushdown) -> tuple[int, ...]:
    """Per state, the index of the machine it belongs to (-1 for the dead state).  A call state
    lies beyond every machine's range (:attr:`Pushdown.first_call`); it belongs to the machine
    whose states read the byte that leads to it (machines never step into each other)."""
    owner = [-1] * pushdown.num_states
    for index, machine in enumerate(pushdown.machines):
        for state in range(machine.first, machine.end):
            owner[state] = index
    for index, machine in enumerate(pushdown.machines):
        for state in range(machine.first, machine.end):
            for target in pushdown.dfa.transitions[state]:
                if target in pushdown.calls and owner[target] == -1:
                    owner[target] = index
    for state in sorted(pushdown.calls):  # a call state reached only from another call state's row
        if owner[state] == -1:
            callers = [k for k in sorted(pushdown.calls) if state in pushdown.dfa.transitions[k] and owner[k] != -1]
            owner[state] = owner[callers[0]] if callers else -1
    return tuple(owner)


def _machine_view(pushdown: Pushdown, machine: Machine) -> Dfa:
    """The whole table, started at ``machine``'s start (so a walk from it stays in the machine)."""
    dfa = pushdown.dfa
    return Dfa(dfa.classes, dfa.transitions, machine.start, dfa.accepting, dfa.dead, dfa.origins)


def pushdown_notes(pushdown: Pushdown, exact: Pushdown | None = None) -> tuple[StateNote, ...]:
    """A note for every state of ``pushdown``, from the provenance of ``exact`` (the same
    validator with its machines from the subset construction; ``pushdown`` itself when None).
    Each machine is walked from its start alongside its machine in ``exact``, as a minimal DFA
    is with the DFA it was made from.  A state that closes its nested part also expects the
    closing byte, read by the position the call states of that part wait at."""
    exact = exact or pushdown
    if len(exact.machines) != len(pushdown.machines):
        raise InvariantError("the pushdown validators' machines differ")
    owner = machine_of(pushdown)
    exact_owner = machine_of(exact)
    found: list[StateNote | None] = [None] * pushdown.num_states
    for index, (machine, twin) in enumerate(zip(pushdown.machines, exact.machines, strict=True)):
        view = _machine_view(pushdown, machine)
        notes = state_notes(view, view if exact is pushdown else _machine_view(exact, twin))
        closing = frozenset(Reading(origin, intersect(origin.reads, twin.returns))
                            for k in sorted(exact.calls) if exact.calls[k] == twin.start and exact_owner[k] >= 0
                            for origin in exact.dfa.origins[k] if intersect(origin.reads, twin.returns))
        for state in range(pushdown.num_states):
            if owner[state] != index:
                continue
            note = notes[state]
            paths = note.paths
            if pushdown.returns[state]:
                paths = tuple(Path(path.after, path.expects | closing) for path in paths) or (
                    Path(frozenset(), closing),)
            found[state] = StateNote(False, state == pushdown.start, state in pushdown.dfa.accepting, paths)
    dead, unknown = StateNote(True, False, False, ()), StateNote(False, False, False, ())
    return tuple(note if note is not None else dead if state == pushdown.dfa.dead else unknown
                 for state, note in enumerate(found))


def pushdown_lines(pushdown: Pushdown) -> list[str]:
    """The machines, the call states and the states that close a nested part, as ``abnfc dfa``
    prints them after the table."""
    owner = machine_of(pushdown)
    width = max(len(m.name) for m in pushdown.machines)
    lines = [_("machines (each state of the table belongs to one; a nested part is entered from a call "
               "state and closed by one of its closing bytes):")]
    for machine in pushdown.machines:
        states = _("states {first}-{last}").format(first=machine.first, last=machine.end - 1)
        line = f"  {machine.name:<{width}}  {states:<16} " + _("start {state}").format(state=machine.start)
        if machine.returns:
            line += ", " + _("closed by {bytes}").format(bytes=format_readable(machine.returns))
        lines.append(line)
    lines += ["", _("call states (marked >): reading the opening byte leads to one; it is pushed and the run "
                    "goes on at the start of the nested part; the byte that closes the part is then read from "
                    "the call state's row:")]
    starts = {m.start: m for m in pushdown.machines}
    for state in sorted(pushdown.calls):
        entry = pushdown.calls[state]
        where = pushdown.machines[owner[state]].name if owner[state] >= 0 else "?"
        lines.append("  " + _("{state} -> {entry}: enters {machine}, from {caller}").format(
            state=state, entry=entry, machine=starts[entry].name if entry in starts else "?", caller=where))
    lines += ["", _("returns (marked ^): on these bytes the state closes its nested part; the call state on "
                    "top of the stack is popped and reads the byte:")]
    for state, ranges in enumerate(pushdown.returns):
        if ranges:
            lines.append("  " + _("{state}: {bytes}, closes {machine}").format(
                state=state, bytes=format_readable(ranges), machine=pushdown.machines[owner[state]].name))
    return lines


def pushdown_text(pushdown: Pushdown, notes: Sequence[str]) -> str:
    """A pushdown validator as ``abnfc dfa`` prints it: the summary, the byte classes, the
    table (``*`` accepting, ``>`` call states, ``^`` states that close a nested part), the
    machines, the call states and the returns."""
    dfa = pushdown.dfa
    machines = ngettext("{count} machine", "{count} machines", len(pushdown.machines)).format(
        count=len(pushdown.machines))
    states = ngettext("{count} state (dead state {dead} included, call states from {first_call})",
                      "{count} states (dead state {dead} included, call states from {first_call})",
                      dfa.num_states).format(count=dfa.num_states, dead=dfa.dead, first_call=pushdown.first_call)
    summary = _("pushdown validator: {machines}, {states}, {classes}, start {start}, {accepting}").format(
        machines=machines, states=states, classes=_classes(dfa), start=dfa.start, accepting=_accepting(dfa))
    table = table_lines(dfa, notes)
    for state in range(dfa.num_states):
        mark = ">" if state in pushdown.calls else "^" if pushdown.returns[state] else None
        if mark is not None:
            table[state + 2] = mark + table[state + 2][1:]
    return "\n".join([summary, "", *class_lines(dfa), "", *table, "", *pushdown_lines(pushdown)]) + "\n"


def pushdown_json(pushdown: Pushdown) -> dict:
    """The DFA's keys (:func:`to_json`) and ``pushdown``: the calls, the returns and the machines."""
    return {
        **to_json(pushdown.dfa),
        "pushdown": {
            "first_call": pushdown.first_call,
            "calls": {str(state): entry for state, entry in sorted(pushdown.calls.items())},
            "returns": {str(state): [list(r) for r in ranges] for state, ranges in enumerate(pushdown.returns)
                        if ranges},
            "machines": [{"name": m.name, "first": m.first, "end": m.end, "start": m.start,
                          "returns": [list(r) for r in m.returns]} for m in pushdown.machines],
        },
    }
