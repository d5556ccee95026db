"""``abnfc crosscheck``: run another implementation over many inputs and report each class of
disagreement with the grammar, with its shortest witness (:mod:`abnfc.crosscheck.session`).

With ``--spark``, a ``--python`` function runs over every string of up to ``--exhaustive`` bytes
on Spark's executors (:mod:`abnfc.spark.crosscheck`); the rest runs here, as without it.

The grammar's dialects (:mod:`abnfc.crosscheck.neighbours`: files naming it in ``variants/``
beside it) and the ``--neighbours`` ones give the inputs tried first, then the grammar's one-edit
mutants (:mod:`abnfc.learn.mutants`).

Every grammar (``--against`` and ``--neighbours`` ones too) is read and resolved and the implementation's options
checked before any grammar is compiled or the implementation run.  With ``--learn`` the job is
:func:`abnfc.learn.job.learn_grammar`.

Exit status 0: no disagreement; 1: disagreements; 2: a usage error, or a program that crashed,
hung or printed something that is not a verdict.
"""
from __future__ import annotations

import argparse
import sys

from ..i18n import N_, _
from .support import options

NAME = "crosscheck"
HELP = N_("run another implementation over many inputs and report where it disagrees with the grammar")
EXAMPLE = ("examples:\n  abnfc crosscheck grammars/utf8.abnf --cmd 'python3 examples/cpython_decode.py'\n"
           "  abnfc crosscheck grammars/utf8.abnf --python examples/cpython_decode.py:accepts\n"
           "  abnfc crosscheck grammars/utf8.abnf --cmd './validate {}' --protocol exit\n"
           "  abnfc crosscheck grammars/utf8.abnf --cmd ./mbrtowc --against grammars/variants/*.abnf\n"
           "  abnfc crosscheck grammars/utf8.abnf --python examples/cpython_decode.py:accepts --exhaustive 4 --spark")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    options.add_target(parser)
    parser.add_argument("--exhaustive", type=options.nonnegative, metavar="N", help=N_("try every string of up "
                        "to N bytes (default 2; 1 with --protocol exit)"))
    parser.add_argument("--sample", type=options.nonnegative, metavar="N", help=N_("and N random strings one byte "
                        "longer (default 65536; 0 with --protocol exit)"))
    parser.add_argument("--random", type=options.nonnegative, metavar="N", help=N_("and N strings generated from "
                        "the grammar, every second one a near-miss (default 10000; 200 with "
                        "--protocol exit)"))
    parser.add_argument("--seed", type=int, default=0, help=N_("seed of the random inputs (default 0)"))
    parser.add_argument("--extra-states", type=options.nonnegative, default=0, metavar="K",
                        help=N_("the vectors tried first detect every wrong DFA with up to K more states"))
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--against", nargs="+", default=[], metavar="FILE",
                        help=N_("other grammars: say which one the implementation agrees with"))
    parser.add_argument("--neighbours", nargs="+", default=[], metavar="DIR|FILE", help=N_(
        "dialects of the grammar (grammar files, or folders of them) whose differences from it are tried first, "
        "besides those found beside it (files in variants/ whose header says '; Dialect of: GRAMMAR-FILE')"))
    parser.add_argument("--progress", action="store_true", help=N_("report progress on standard error "
                        "(the default when it is a terminal)"))
    parser.add_argument("--learn", action="store_true", help=N_("learn the implementation's language (as abnfc "
                        "learn does) and report the exact differences instead of sampled ones"))
    parser.add_argument("--spark", nargs="?", const="", metavar="MASTER", help=N_(
        "run the --python function over every string of up to --exhaustive bytes (at most 4 with --spark) on "
        "Spark's executors, MASTER (default: spark-submit's master under spark-submit, else local[*]; give it "
        "after GRAMMAR or as --spark=MASTER); needs pip install pyspark pandas pyarrow and Java"))
    options.add_exploration(parser)
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ..crosscheck.language import load_language
    from ..crosscheck.neighbours import expand
    from ..crosscheck.report import text, to_json
    from ..crosscheck.session import DEFAULTS, Amounts, Progress, crosscheck

    _check_spark(args)
    target = options.target(args)
    grammar = options.parsed(args)
    others = [options.parsed(args, path) for path in args.against]  # every grammar read before any compiles
    given = [options.parsed(args, path, args.start) for path in expand(args.neighbours)]
    if args.learn:
        return _learned(args, grammar, target)
    progress = Progress(args.progress or sys.stderr.isatty(), sys.stderr.isatty())
    runner = target.runner(progress)
    language, *against = (load_language(one, args.max_length, args.max_runs, args.max_nesting)
                          for one in (grammar, *others))
    neighbours = [*_neighbours(args, {one.grammar.path: one for one in given}), *_mutants(grammar)]
    defaults = DEFAULTS[target.protocol]
    amounts = Amounts(defaults.exhaustive if args.exhaustive is None else args.exhaustive,
                      defaults.sample if args.sample is None else args.sample,
                      defaults.random if args.random is None else args.random, args.seed, args.extra_states,
                      defaults.every_byte)
    if args.spark is not None:
        return _on_spark(args, language, against, runner, amounts, progress, neighbours)
    label = args.cmd if args.cmd else _("{function} (a Python function, in a child process)").format(
        function=args.python)
    result = crosscheck(language, against, runner, target.protocol, amounts, progress, label, neighbours=neighbours)
    sys.stdout.write(to_json(result) if args.format == "json" else text(result))
    return result.exit_status


def _check_spark(args: argparse.Namespace) -> None:
    from ..errors import AbnfError

    if args.spark is not None and not args.python:
        raise AbnfError.at(None, _("--spark runs a --python function on Spark's executors; it does not apply to "
                                   "--cmd programs"))
    if args.spark is not None and args.learn:
        raise AbnfError.at(None, _("--spark does not apply to --learn"))


def _neighbours(args: argparse.Namespace, given: dict):
    """The grammar's dialects and the ``--neighbours`` ones (``given``: already read, by path),
    loaded as the grammar is."""
    from ..crosscheck.language import load_language
    from ..crosscheck.neighbours import for_grammar

    def load(path: str):
        compilation = given.get(path) or options.compilation(args, path, args.start)
        return load_language(compilation, args.max_length, args.max_runs, args.max_nesting)

    def warn(message: str) -> None:
        print(f"abnfc crosscheck: {message}", file=sys.stderr)

    return for_grammar(args.grammar, args.neighbours, load, warn)


def _mutants(grammar):
    """The grammar's one-edit mutants as neighbours (none for a recursive or a large grammar)."""
    from ..crosscheck.neighbours import mutant_neighbours
    from ..learn.mutants import labelled

    return mutant_neighbours((mutant.label, mutant.dfa) for mutant in labelled(grammar))


def _on_spark(args: argparse.Namespace, language, others, runner, amounts, progress, neighbours) -> int:
    """crosscheck --spark: the exhaustive part on Spark's executors, the rest here."""
    from ..crosscheck.report import text, to_json
    from ..crosscheck.session import crosscheck
    from ..spark.crosscheck import OnSpark, check

    check(language, others, amounts.exhaustive, args.spark)
    label = _("{function} (a Python function, in a child process and on Spark's executors)").format(
        function=args.python)
    with OnSpark(args.spark, language, others, args.python, progress, args.debug) as remote:
        result = crosscheck(language, others, runner, "python", amounts, progress, label, remote, neighbours)
    sys.stdout.write(to_json(result) if args.format == "json" else text(result))
    return result.exit_status


def _learned(args: argparse.Namespace, grammar, target) -> int:
    """crosscheck --learn: the exact differences of the learned language, as ``abnfc diff`` says them."""
    from ..learn.job import LearnRequest, compare_learned, learn_grammar

    learned = learn_grammar(LearnRequest(grammar, target, args.extra_states, seed=args.seed,
                                         progress=args.progress or sys.stderr.isatty(),
                                         neighbours=tuple(args.neighbours)))
    lines, equal = compare_learned(learned.text, "<learned>", grammar)
    sys.stdout.write("\n".join(lines) + "\n")
    if learned.stopped:
        print(f"abnfc crosscheck: {learned.stopped}", file=sys.stderr)
        return 2
    return 0 if equal else 1
