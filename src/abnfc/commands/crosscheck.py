"""``abnfc crosscheck``: run another implementation over many inputs and report each class of
disagreement with the grammar, with its shortest witness (:mod:`abnfc.crosscheck.session`).

With ``--spark``, a ``--python`` function runs over every string of up to ``--exhaustive`` bytes
on Spark's executors (:mod:`abnfc.spark.crosscheck`); the rest runs here, as without it.

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
    parser.add_argument("--progress", action="store_true", help=N_("report progress on standard error "
                        "(the default when it is a terminal)"))
    parser.add_argument("--learn", action="store_true", help=N_("learn the implementation's language (as abnfc "
                        "learn does) and report the exact differences instead of sampled ones"))
    parser.add_argument("--spark", nargs="?", const="", metavar="MASTER", help=N_(
        "run the --python function over every string of up to --exhaustive bytes (at most 4 with --spark) on "
        "Spark's executors, MASTER (default: spark-submit's master under spark-submit, else local[*]; give it "
        "after GRAMMAR or as --spark=MASTER); needs pip install 'abnfc[spark]' and Java"))
    options.add_exploration(parser)
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ..crosscheck.language import load_language
    from ..crosscheck.report import text, to_json
    from ..crosscheck.session import DEFAULTS, Amounts, Progress, crosscheck
    from ..errors import AbnfError

    if args.spark is not None and not args.python:
        raise AbnfError.at(None, _("--spark runs a --python function on Spark's executors; it does not apply to "
                                   "--cmd programs"))
    if args.spark is not None and args.learn:
        raise AbnfError.at(None, _("--spark does not apply to --learn"))
    if args.learn:
        return _learned(args)
    progress = Progress(args.progress or sys.stderr.isatty(), sys.stderr.isatty())
    language = load_language(options.compilation(args), args.max_length, args.max_runs, args.max_nesting)
    others = [load_language(options.compilation(args, path), args.max_length, args.max_runs, args.max_nesting)
              for path in args.against]
    neighbours = _neighbours(args)
    runner, kind = options.target_runner(args, progress)
    defaults = DEFAULTS[kind]
    amounts = Amounts(defaults.exhaustive if args.exhaustive is None else args.exhaustive,
                      defaults.sample if args.sample is None else args.sample,
                      defaults.random if args.random is None else args.random, args.seed, args.extra_states,
                      defaults.every_byte)
    if args.spark is not None:
        return _on_spark(args, language, others, runner, amounts, progress, neighbours)
    label = args.cmd if args.cmd else _("{function} (a Python function, in a child process)").format(
        function=args.python)
    result = crosscheck(language, others, runner, kind, amounts, progress, label, neighbours=neighbours)
    sys.stdout.write(to_json(result) if args.format == "json" else text(result))
    return result.exit_status


def _neighbours(args: argparse.Namespace):
    """The grammar's dialects (:mod:`abnfc.crosscheck.neighbours`), loaded as the grammar is."""
    from ..crosscheck.language import load_language
    from ..crosscheck.neighbours import for_grammar

    def load(path: str):
        return load_language(options.compilation(args, path, args.start), args.max_length, args.max_runs,
                             args.max_nesting)

    def warn(message: str) -> None:
        print(f"abnfc crosscheck: {message}", file=sys.stderr)

    return for_grammar(args.grammar, getattr(args, "neighbours", None) or [], load, warn)


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


def _learned(args: argparse.Namespace) -> int:
    """crosscheck --learn: the exact differences of the learned language, as ``abnfc diff`` says them."""
    from .learn import compared, learned_grammar

    text, compilation, stopped = learned_grammar(args)
    lines, equal = compared(text, "<learned>", compilation, args)
    sys.stdout.write("\n".join(lines) + "\n")
    if stopped:
        print(f"abnfc crosscheck: {stopped}", file=sys.stderr)
        return 2
    return 0 if equal else 1
