"""``abnfc dfa``: print a grammar's minimal DFA (or the DFA before minimization) as a table, JSON,
Graphviz DOT or SVG; for a self-embedding grammar, its pushdown validator (the minimal DFA of
each machine in one table, with its calls and returns; ``--no-minimize``: the machines from the
subset construction), or the conflict that prevents one as an error."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from ..i18n import N_
from .support import options

if TYPE_CHECKING:
    from ..pipeline import Compilation

NAME = "dfa"
HELP = N_("print a grammar's minimal DFA")
EXAMPLE = ("examples:\n  abnfc dfa grammars/utf8.abnf --format json\n"
           "  abnfc dfa grammars/utf8.abnf --format svg > utf8-dfa.svg   # needs Graphviz")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    parser.add_argument("--format", choices=("text", "json", "dot", "svg"), default="text",
                        help=N_("text (default), json, dot (Graphviz DOT) or svg (drawn by Graphviz's dot)"))
    parser.add_argument("--show-dead", action="store_true", help=N_("dot and svg: draw the dead state "
                        "and the edges into it"))
    parser.add_argument("--no-minimize", dest="minimal", action="store_false",
                        help=N_("print the DFA from subset construction, before minimization"))
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ..automata import dump, window_test
    from ..automata.window_test import definiteness
    from ..backends.c.window_driver import shortest_checked
    from ..backends.c.window_test import MIN_LENGTH
    from ..pictures import dot, graphviz

    compilation = options.compilation(args)
    if not compilation.resolved.is_regular:
        return _pushdown(args, compilation)
    automaton = compilation.minimal if args.minimal else compilation.dfa
    if args.format in ("dot", "svg"):
        notes = compilation.note_texts("minimal" if args.minimal else "subset")
        drawing = dot.to_dot(automaton, notes, compilation.resolved.start_name, args.show_dead)
        print(graphviz.render_svg(drawing) if args.format == "svg" else drawing, end="")
    elif args.format == "json":
        fields = dump.to_json(automaton)
        if args.minimal:  # the subset DFA's equivalent states would hide a definite language
            fields["definite_k"] = definiteness(automaton).k  # null: not definite, or not analysed
        print("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in fields.items()) + "\n}")
    else:
        remarks: tuple[str, ...] = ()
        if args.minimal:  # the subset DFA's equivalent states would hide a definite language
            definite = definiteness(automaton)
            test = window_test.window_test(automaton, definite)
            shortest = shortest_checked(automaton, test.k) if isinstance(test, window_test.WindowTest) else MIN_LENGTH
            remarks = (definite.sentence(), window_test.sentence(test, shortest, shortest != MIN_LENGTH))
        print(dump.text(automaton, compilation.note_texts("minimal" if args.minimal else "subset"), remarks), end="")
    return 0


def _pushdown(args: argparse.Namespace, compilation: Compilation) -> int:
    from ..automata import dump
    from ..automata.notes import note_text
    from ..i18n import _
    from ..pictures import dot, graphviz

    # raises the conflict's error when the grammar has no pushdown validator
    pushdown = compilation.pushdown_automaton("minimal" if args.minimal else "subset")
    if args.format == "json":
        fields = dump.pushdown_json(pushdown).items()
        print("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in fields) + "\n}")
        return 0
    exact = compilation.pushdown_automaton("subset")
    notes = tuple(note_text(note) for note in dump.pushdown_notes(pushdown, exact))
    if args.format in ("dot", "svg"):
        drawing = dot.pushdown_to_dot(pushdown, notes, compilation.resolved.start_name, args.show_dead, _)
        print(graphviz.render_svg(drawing) if args.format == "svg" else drawing, end="")
    else:
        print(dump.pushdown_text(pushdown, notes), end="")
    return 0
