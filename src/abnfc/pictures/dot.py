"""A DFA as a Graphviz DOT graph (https://graphviz.org/doc/info/lang.html).

One edge per (state, target) pair, labelled with the union of the byte classes that lead there
(merged hex ranges), so a state has at most as many edges as successors.  A state's label is its
number and the grammar positions it reads (``UTF8-3/1.2``: alternative 1, element 2 of UTF8-3),
its tooltip the full note (:mod:`abnfc.automata.notes`).  Accepting states have a double outline;
an arrow from a point marks the start.  The dead state and the edges into it are left out unless
asked for: every missing byte leads there.  A legend says how to read the position labels.  The
words (the legend, "positions", "dead") are in the reader's language (:mod:`abnfc.i18n`).  The
text depends only on the DFA and the language, so it is the same on every machine.  Graphs with
many edges ask Graphviz for a bounded layout effort (its ``nslimit``
and ``mclimit`` attributes): RFC 3986's URI DFA (about 600 edges) takes dot 118 s by default and
17 s so; smaller graphs keep dot's default layout.

A pushdown validator (:func:`pushdown_to_dot`) is drawn with one cluster per machine, its call
states as boxes, a dashed edge from each call state to the start of the nested part it enters and
a dotted edge, labelled with the closing bytes, from each state that closes a nested part to a
note saying that the popped call state reads the byte.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..automata.dfa import Dfa
from ..automata.pushdown import Pushdown
from ..charset import Ranges, format_hex, normalize
from ..frontend.ir import Origin
from ..i18n import N_, Translate

RANGES_PER_LINE = 4  # of an edge label
POSITIONS_PER_RULE = 2  # listed in a state's label before they are counted
MANY_EDGES = 200  # from here on, the layout effort is bounded
BOUNDED_EFFORT = "  nslimit=2; nslimit1=2; mclimit=0.5;"
LEGEND = N_("state numbers as abnfc dfa prints them; RULE/A.E: the state reads element E of alternative A "
            "of RULE next; double outline: accepting")


def _english(message: str) -> str:
    return message


def quote(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def edges(dfa: Dfa, show_dead: bool = False) -> list[tuple[int, int, Ranges]]:
    """(source, target, bytes) for every pair of states joined by some byte class."""
    found = []
    for state, row in enumerate(dfa.transitions):
        if state == dfa.dead and not show_dead:
            continue
        targets: dict[int, list] = {}
        for cls, target in enumerate(row):
            if target != dfa.dead or show_dead:
                targets.setdefault(target, []).extend(dfa.classes[cls])
        found += [(state, target, normalize(ranges)) for target, ranges in sorted(targets.items())]
    return found


def edge_label(ranges: Ranges) -> str:
    parts = format_hex(ranges).split()
    return "\n".join(" ".join(parts[i:i + RANGES_PER_LINE]) for i in range(0, len(parts), RANGES_PER_LINE))


def positions_label(origins: frozenset[Origin], _: Translate = _english) -> list[str]:
    """One line per rule: ``UTF8-3/1.1 /2.1 ...``, or ``UTF8-3 (4 positions)``."""
    by_rule: dict[str, list[Origin]] = {}
    for origin in sorted(origins, key=lambda o: (o.reads, o.rule, o.alternative, o.element)):
        by_rule.setdefault(origin.rule, []).append(origin)
    lines = []
    for rule, found in by_rule.items():
        places = sorted({(o.alternative + 1, o.element + 1) for o in found})
        if len(places) <= POSITIONS_PER_RULE:
            lines.append(rule + " ".join(f"/{a}.{e}" for a, e in places))
        else:
            lines.append(_("{rule} ({count} positions)").format(rule=rule, count=len(places)))
    return lines


def _opening(name: str, start: int) -> list[str]:
    """The graph's first lines: left to right, the fonts, and an arrow into the start state."""
    return [f"digraph {quote(name)} {{",
            "  rankdir=LR;",
            '  node [shape=ellipse, margin="0.05,0.03", fontname="Helvetica", fontsize=11];',
            '  edge [fontname="Helvetica", fontsize=10];',
            '  start [shape=point, width=0.12, label=""];',
            f"  start -> {start};"]


def to_dot(dfa: Dfa, notes: Sequence[str], name: str = "dfa", show_dead: bool = False,
           _: Translate = _english) -> str:
    """The DOT text of ``dfa``; ``notes[s]`` is the tooltip of state ``s``; ``_`` translates."""
    lines = _opening(name, dfa.start)
    drawn = edges(dfa, show_dead)
    if len(drawn) >= MANY_EDGES:
        lines.insert(2, BOUNDED_EFFORT)
    for state in range(dfa.num_states):
        if state == dfa.dead and not show_dead:
            continue
        peripheries = 2 if state in dfa.accepting else 1
        label = "\n".join([str(state), *(positions_label(dfa.origins[state], _) if dfa.origins else [])])
        if state == dfa.dead:
            label = f"{state}\n{_('dead')}"
        lines.append(f"  {state} [peripheries={peripheries}, label={quote(label)}, tooltip={quote(notes[state])}];")
    for source, target, ranges in drawn:
        lines.append(f"  {source} -> {target} [label={quote(edge_label(ranges))}];")
    if dfa.origins:
        lines.append(f'  legend [shape=note, fontsize=9, label={quote(_(LEGEND))}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


PUSHDOWN_LEGEND = N_("box: a call state, entered on the byte that opens a nested part; dashed: the call state "
                     "is pushed and the run goes on at the start of the nested part; dotted: on these bytes "
                     "the state closes its nested part, the call state is popped and reads the byte (its "
                     "own edges)")
RETURN_NOTE = N_("return: pop the call state,\nwhich reads the byte")


def pushdown_to_dot(pushdown: Pushdown, notes: Sequence[str], name: str = "pushdown", show_dead: bool = False,
                    _: Translate = _english) -> str:
    """The DOT text of a pushdown validator: one cluster per machine (a call state in the
    cluster of the machine that reads into it), the table's edges as for a DFA, a dashed edge
    from each call state to the start of the nested part it enters, and a dotted edge, labelled
    with the closing bytes, from each state that closes its nested part to that machine's
    return note.  ``notes[s]`` is the tooltip of state ``s``; ``_`` translates."""
    from ..automata.dump import machine_of

    dfa = pushdown.dfa
    lines = _opening(name, dfa.start)
    drawn = edges(dfa, show_dead)
    if len(drawn) + len(pushdown.calls) >= MANY_EDGES:
        lines.insert(2, BOUNDED_EFFORT)
    owner = machine_of(pushdown)
    for index, machine in enumerate(pushdown.machines):
        title = machine.name
        if machine.returns:
            title += "\n" + _("closed by {bytes}").format(bytes=format_hex(machine.returns))
        lines += [f"  subgraph {quote(f'cluster_{index}')} {{",
                  f'    label={quote(title)}; style=rounded; color=gray50; fontname="Helvetica"; fontsize=11;']
        for state in range(dfa.num_states):
            if owner[state] == index:
                lines.append("  " + _state_line(pushdown, state, notes, _))
        if machine.returns:
            lines.append(f"    return_{index} [shape=note, fontsize=9, label={quote(_(RETURN_NOTE))}];")
        lines.append("  }")
    for state in range(dfa.num_states):
        if owner[state] == -1 and (state != dfa.dead or show_dead):
            lines.append(_state_line(pushdown, state, notes, _))
    for source, target, ranges in drawn:
        lines.append(f"  {source} -> {target} [label={quote(edge_label(ranges))}];")
    call = quote(_("call"))
    for state, entry in sorted(pushdown.calls.items()):
        lines.append(f"  {state} -> {entry} [style=dashed, label={call}];")
    for state, ranges in enumerate(pushdown.returns):
        if ranges and owner[state] >= 0:
            lines.append(f"  {state} -> return_{owner[state]} [style=dotted, label={quote(edge_label(ranges))}];")
    legend = _(LEGEND) + "\n" + _(PUSHDOWN_LEGEND) if dfa.origins else _(PUSHDOWN_LEGEND)
    lines.append(f'  legend [shape=note, fontsize=9, label={quote(legend)}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _state_line(pushdown: Pushdown, state: int, notes: Sequence[str], _: Translate) -> str:
    dfa = pushdown.dfa
    peripheries = 2 if state in dfa.accepting else 1
    label = "\n".join([str(state), *(positions_label(dfa.origins[state], _) if dfa.origins else [])])
    if state == dfa.dead:
        label = f"{state}\n{_('dead')}"
    shape = "shape=box, " if state in pushdown.calls else ""
    return f"  {state} [{shape}peripheries={peripheries}, label={quote(label)}, tooltip={quote(notes[state])}];"
