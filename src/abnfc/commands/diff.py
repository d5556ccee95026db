"""``abnfc diff``: compare the languages of two grammars with a product automaton.

Says whether the two accept the same inputs; otherwise lists each distinct difference
(:mod:`abnfc.crosscheck.differences`) with its shortest inputs and the rules on both sides where they part, and
counts the inputs of each length in only one of the languages (:func:`abnfc.crosscheck.report.diff_report`).
Both grammars are read and resolved before either is compiled.  A recursive grammar is compared
up to a length bound (:mod:`abnfc.crosscheck.bounded`), and the output says so.  Exit status 0 when the
languages are equal, 1 when they differ, 2 for errors.
"""
from __future__ import annotations

import argparse
import sys

from ..i18n import N_
from .support import options

NAME = "diff"
HELP = N_("compare the languages of two grammars")
EXAMPLE = ("examples:\n  abnfc diff grammars/utf8.abnf grammars/variants/wtf8.abnf\n"
           "  abnfc diff a.abnf b.abnf --start-b other-rule --count-to 4")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser, "GRAMMAR_A")
    parser.add_argument("other", metavar="GRAMMAR_B", help=N_("the grammar to compare with"))
    parser.add_argument("--start-b", metavar="RULE", help=N_("start rule of GRAMMAR_B (default: its first)"))
    parser.add_argument("--count-to", type=options.nonnegative, default=6, metavar="N",
                        help=N_("count the inputs only one side accepts for each length up to N (default 6)"))
    parser.add_argument("--max-shown", type=options.positive, default=8, metavar="N",
                        help=N_("differences listed on each side (default 8)"))
    options.add_exploration(parser, nesting=False)  # diff compares two languages by length
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ..crosscheck.language import load_language
    from ..crosscheck.report import diff_report

    grammars = options.parsed(args), options.parsed(args, args.other, args.start_b)  # both, before compiling
    a, b = (load_language(grammar, args.max_length, args.max_runs) for grammar in grammars)
    lines, equal = diff_report(a, b, args.count_to, args.max_dfa_states, args.max_work, args.max_shown)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if equal else 1
