"""``abnfc learn``: the language an implementation really accepts, learned from queries with the
grammar as prior (:mod:`abnfc.learn`), printed as an ABNF grammar and compared with the grammar.

Exit status 0: the learned language is the grammar's; 1: it differs (the difference follows, as
``abnfc diff`` prints it, A being the learned grammar); 2: a usage error, a program that crashed,
hung or printed something that is not a verdict, or a limit reached (the partial grammar is
still written, marked so).
"""
from __future__ import annotations

import argparse
import os
import sys

from .. import i18n
from ..i18n import N_, _, ngettext
from .support import options

NAME = "learn"
HELP = N_("learn the language an implementation accepts, as an ABNF grammar, and compare it with the grammar")
EXAMPLE = ("examples:\n  abnfc learn grammars/utf8.abnf --python examples/cpython_decode.py:accepts\n"
           "  abnfc learn grammars/utf8.abnf --cmd ./mbrtowc --out mbrtowc.abnf")


DEFAULT_MAX_STATES = 2000
DEFAULT_MAX_QUERIES = 5_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    options.add_target(parser)
    parser.add_argument("--out", metavar="FILE", help=N_("write the learned grammar to FILE (default: standard "
                        "output; the comparison then goes to standard error)"))
    parser.add_argument("--extra-states", type=options.nonnegative, default=1, metavar="K",
                        help=N_("the tests find every difference of an implementation with up to K more states "
                                "than the hypothesis (default 1)"))
    parser.add_argument("--max-states", type=options.positive, default=DEFAULT_MAX_STATES, metavar="N",
                        help=N_("stop when the learned automaton would need more than N states (default 2000)"))
    parser.add_argument("--max-queries", type=options.positive, default=DEFAULT_MAX_QUERIES, metavar="N",
                        help=N_("stop after N distinct inputs asked (default 5000000)"))
    parser.add_argument("--seed", type=int, default=0, help=N_("seed of the random walks among the tests (default 0)"))
    parser.add_argument("--progress", action="store_true", help=N_("report progress on standard error "
                        "(the default when it is a terminal)"))
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from .support.writing import write_files

    text, compilation, stopped = learned_grammar(args)
    if args.out:
        write_files({os.path.basename(args.out): text}, os.path.dirname(args.out) or ".")
    else:
        sys.stdout.write(text)
    lines, equal = compared(text, args.out or "<learned>", compilation, args)
    print("\n".join(lines), file=sys.stdout if args.out else sys.stderr)
    if stopped:
        print(f"abnfc learn: {stopped}", file=sys.stderr)
        return 2
    return 0 if equal else 1


def learned_grammar(args: argparse.Namespace):
    """(the learned grammar's text, the grammar's compilation, which limit stopped the run or
    ""), for ``args`` of ``learn`` or ``crosscheck --learn`` (which lacks learn's limits)."""
    from ..crosscheck.programs import Fault
    from ..crosscheck.provenance import DfaProvenance
    from ..crosscheck.session import Progress
    from ..crosscheck.suite import build_suite
    from ..errors import AbnfError
    from ..learn import learn
    from ..learn.rules import rule_languages, to_abnf

    compilation = options.compilation(args)
    if not compilation.resolved.is_regular:
        raise AbnfError.at(None, _("abnfc learn needs a grammar that compiles to a DFA, the prior it starts from; "
                                   "rule '{rule}' is recursive").format(rule=compilation.resolved.start_name))
    progress = Progress(args.progress or sys.stderr.isatty(), sys.stderr.isatty())
    runner, _kind = options.target_runner(args, progress)
    prior = compilation.minimal
    neighbours = neighbour_dfas(args)
    tests = [v.data for v in build_suite(prior, DfaProvenance(compilation.dfa, compilation.resolved.start_name),
                                         prior.matches)]

    def told(rounds: int, states: int, queries: int) -> None:
        if args.progress or sys.stderr.isatty():
            print(_("round {rounds}: {states} states, {queries:,} inputs asked").format(
                rounds=rounds, states=states, queries=queries), file=sys.stderr)

    extra = args.extra_states  # crosscheck --learn: its own --extra-states (default 0)
    try:
        learned = learn(prior, tests, runner.verdicts, extra, getattr(args, "max_states", DEFAULT_MAX_STATES),
                        getattr(args, "max_queries", DEFAULT_MAX_QUERIES), args.seed, told,
                        [n.dfa for n in neighbours])
    except Fault as fault:  # the program crashed, hung or answered garbage: nothing can be learned
        raise AbnfError.at(None, fault.message) from None
    program = args.cmd if args.cmd else args.python
    with i18n.speaking(i18n.ENGLISH):  # the grammar is a file: the same words on every machine
        comments = (
            _("The language {program} accepts, learned by abnfc learn from {grammar} (start rule {rule}).").format(
                program=program, grammar=compilation.grammar.path, rule=compilation.resolved.start_name),
            ngettext("{queries} distinct inputs asked in {rounds} round, {seconds:.1f} s; {states} states.",
                     "{queries} distinct inputs asked in {rounds} rounds, {seconds:.1f} s; {states} states.",
                     learned.rounds).format(queries=learned.queries, rounds=learned.rounds,
                                            seconds=learned.seconds, states=learned.dfa.num_states),
            _stopped(learned.stopped, args) or _(
                "Exact for every implementation whose minimal DFA has at most {states} states (these plus "
                "--extra-states {extra}) and treats alike the bytes of each class the probes found.").format(
                    states=learned.dfa.num_states + extra, extra=extra),
        ) + ((_("Exact also for every implementation that accepts what one of these neighbour grammars "
                "accepts: {paths}.").format(paths=", ".join(n.path for n in neighbours)),)
             if neighbours and not learned.stopped else ())
    text = to_abnf(learned.dfa, comments, compilation.resolved, rule_languages(compilation.resolved, compilation))
    return text, compilation, _stopped(learned.stopped, args)


def neighbour_dfas(args: argparse.Namespace):
    """The grammar's regular dialects (:mod:`abnfc.learn.neighbours`), compiled as the grammar is."""
    from ..learn.neighbours import regular_neighbours

    def warn(message: str) -> None:
        print(f"abnfc learn: {message}", file=sys.stderr)

    return regular_neighbours(args.grammar, getattr(args, "neighbours", None) or [],
                              lambda path: options.compilation(args, path, args.start), warn)


def compared(text: str, name: str, compilation, args: argparse.Namespace) -> tuple[list[str], bool]:
    """What ``abnfc diff`` says of the learned grammar (A) and the grammar (B)."""
    from ..crosscheck.language import load_language
    from ..frontend.source import from_text
    from ..pipeline import Compilation
    from .diff import report

    learned = load_language(Compilation(from_text(text, name)))
    return report(learned, load_language(compilation), 6, args.max_dfa_states, args.max_work, 8)


def _stopped(limit: str, args: argparse.Namespace) -> str:
    """Which limit stopped the run, in the current language; "" when none did."""
    if limit == "queries":
        return _("stopped at --max-queries {limit}: this is the last hypothesis, not the implementation's "
                 "language").format(limit=getattr(args, "max_queries", DEFAULT_MAX_QUERIES))
    if limit == "states":
        return _("stopped at --max-states {limit}: this is the last hypothesis, not the implementation's "
                 "language").format(limit=getattr(args, "max_states", DEFAULT_MAX_STATES))
    return ""
