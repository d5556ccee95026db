"""``abnfc learn``: the language an implementation really accepts, learned from queries with the
grammar as prior (:mod:`abnfc.learn`), printed as an ABNF grammar and compared with the grammar.

Exit status 0: the learned language is the grammar's; 1: it differs (the difference follows, as
``abnfc diff`` prints it, A being the learned grammar); 2: a usage error, a program that crashed,
hung or printed something that is not a verdict, or a limit reached (the partial grammar is
still written, marked so).  The grammar, the ``--neighbours``, the implementation and ``--out`` are checked before
anything is compiled or run; the job itself is :func:`abnfc.learn.job.learn_grammar`.
"""
from __future__ import annotations

import argparse
import os
import sys

from ..i18n import N_
from .support import options

NAME = "learn"
HELP = N_("learn the language an implementation accepts, as an ABNF grammar, and compare it with the grammar")
EXAMPLE = ("examples:\n  abnfc learn grammars/utf8.abnf --python examples/cpython_decode.py:accepts\n"
           "  abnfc learn grammars/utf8.abnf --cmd ./mbrtowc --out mbrtowc.abnf")

DEFAULT_MAX_STATES = 2000  # as abnfc.learn.job's (a test checks they agree): the parser imports no job
DEFAULT_MAX_QUERIES = 5_000_000
DEFAULT_MAX_SECONDS = 600.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    options.add_target(parser)
    parser.add_argument("--out", metavar="FILE", help=N_("write the learned grammar to FILE (default: standard "
                        "output; the comparison then goes to standard error)"))
    parser.add_argument("--extra-states", type=options.nonnegative, default=0, metavar="K",
                        help=N_("the tests find every difference of an implementation with up to K more states "
                                "than the hypothesis (default 0)"))
    parser.add_argument("--max-states", type=options.positive, default=DEFAULT_MAX_STATES, metavar="N",
                        help=N_("stop when the learned automaton would need more than N states (default 2000)"))
    parser.add_argument("--max-queries", type=options.positive, default=DEFAULT_MAX_QUERIES, metavar="N",
                        help=N_("stop after N distinct inputs asked (default 5000000)"))
    parser.add_argument("--max-seconds", type=options.positive_seconds, default=DEFAULT_MAX_SECONDS,
                        metavar="SECONDS", help=N_("stop after SECONDS of learning, with the last hypothesis "
                                                   "(default 600)"))
    parser.add_argument("--seed", type=int, default=0, help=N_("seed of the random walks among the tests (default 0)"))
    parser.add_argument("--neighbours", nargs="+", default=[], metavar="DIR|FILE", help=N_(
        "dialects of the grammar (grammar files, or folders of them) whose differences from each hypothesis are "
        "tested first, besides those found beside it (files in variants/ whose header says "
        "'; Dialect of: GRAMMAR-FILE')"))
    parser.add_argument("--progress", action="store_true", help=N_("report progress on standard error "
                        "(the default when it is a terminal)"))
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ..crosscheck.neighbours import expand
    from ..learn.job import LearnRequest, compare_learned, learn_grammar
    from .support.writing import check_writable, write_files

    folder, name = os.path.split(args.out) if args.out else ("", "")
    if args.out:
        check_writable(folder or ".", name)
    grammar = options.parsed(args)
    given = tuple(expand(args.neighbours))
    for path in given:  # read and resolved before anything runs
        options.parsed(args, path, args.start)
    request = LearnRequest(grammar, options.target(args), args.extra_states, args.max_states,
                           args.max_queries, args.max_seconds, args.seed, args.progress or sys.stderr.isatty(),
                           given)
    learned = learn_grammar(request)
    if args.out:
        write_files({name: learned.text}, folder or ".")
    else:
        sys.stdout.write(learned.text)
    lines, equal = compare_learned(learned.text, args.out or "<learned>", request.compilation)
    print("\n".join(lines), file=sys.stdout if args.out else sys.stderr)
    if learned.stopped:
        print(f"abnfc learn: {learned.stopped}", file=sys.stderr)
        return 2
    return 0 if equal else 1
