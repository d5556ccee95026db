"""Option groups the commands share, declared once: the grammar input (GRAMMAR, ``--start``,
``--import``, ``--encoding``), the limits, the exploration bound of recursive grammars, the
output language (``--locale``), the implementation to run, and the argument types; and how a
command turns them into a :class:`~abnfc.pipeline.Compilation` (:func:`parsed`: read, parsed and
resolved, so that a command finds every mistake in its grammars before it compiles any) and a
:class:`~abnfc.crosscheck.programs.Target`.

Heavy modules (the front end, the automata) are imported only when a command runs, so building
the command line stays quick.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ...i18n import LOCALES, N_, _

if TYPE_CHECKING:
    from ...crosscheck.programs import Target
    from ...pipeline import Compilation, Limits

# The limits' defaults, as in abnfc.pipeline.Limits (a test checks they agree): repeated here so
# that building the command line does not import the automata.
DEFAULT_MAX_NFA_STATES = 200_000
DEFAULT_MAX_DFA_STATES = 20_000
DEFAULT_MAX_WORK = 20_000_000
# How far the tools explore a recursive grammar, as in abnfc.crosscheck.bounded (tested likewise).
DEFAULT_MAX_LENGTH = 4
DEFAULT_MAX_RUNS = 200_000
DEFAULT_MAX_NESTING = 1


def nonnegative(text: str) -> int:
    return _whole(text, 0, N_("a whole number (0 or more)"))


def positive(text: str) -> int:
    return _whole(text, 1, N_("a positive whole number"))


def _whole(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(_("{text!r} is not {what}").format(text=text, what=_(what)))
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(_("{text!r} is not a positive number of seconds").format(text=text))
    return value


def add_grammar(parser: argparse.ArgumentParser, metavar: str = "GRAMMAR") -> None:
    """The grammar to read, its start rule, the grammars it imports and its encoding."""
    parser.add_argument("grammar", metavar=metavar, help=N_("ABNF grammar file ('-': standard input)"))
    parser.add_argument("--start", metavar="RULE", help=N_("start rule (default: the first rule)"))
    parser.add_argument("--import", dest="imports", action="append", default=[], metavar="FILE",
                        help=N_("a grammar that supplies rules GRAMMAR uses but does not define "
                             "(repeatable; searched in order)"))
    parser.add_argument("--encoding", choices=("octets", "utf-8"), help=N_("what terminal values mean: "
                        "octets (bytes) or utf-8 (Unicode code points, matched as their UTF-8 "
                        "encoding); default: utf-8 when a value the start rule reaches is above %%xFF"))


def add_limits(parser: argparse.ArgumentParser, max_work: int = DEFAULT_MAX_WORK) -> None:
    """The limits of every stage and of the interpreter (see docs/reference/cli.md);
    ``max_work`` is the command's default work limit."""
    parser.add_argument("--max-nfa-states", type=positive, default=DEFAULT_MAX_NFA_STATES, metavar="N",
                        help=N_("NFA size limit (default %(default)s)"))
    parser.add_argument("--max-dfa-states", type=positive, default=DEFAULT_MAX_DFA_STATES, metavar="N",
                        help=N_("DFA size limit before minimization (default %(default)s)"))
    parser.add_argument("--max-work", type=positive, default=max_work, metavar="N",
                        help=N_("the work each algorithm may do (default %(default)s): the steps of the "
                             "subset construction and of minimization, or the interpreter's and "
                             "the tree search's steps beyond 100 a byte"))


def add_exploration(parser: argparse.ArgumentParser, nesting: bool = True) -> None:
    """How far the tools explore a recursive grammar, which has no DFA; with ``nesting``, how
    deep they unfold a pushdown validator instead."""
    if nesting:
        parser.add_argument("--max-nesting", type=positive, default=DEFAULT_MAX_NESTING, metavar="N",
                            help=N_("self-embedding grammars with a pushdown validator: derive inputs from it "
                                    "unfolded to N open nested parts (default %(default)s); the others are "
                                    "explored by length"))
    parser.add_argument("--max-length", type=positive, default=DEFAULT_MAX_LENGTH, metavar="N",
                        help=N_("recursive grammars only: explore their language up to N bytes "
                             "through the interpreter (default %(default)s)"))
    parser.add_argument("--max-runs", type=positive, default=DEFAULT_MAX_RUNS, metavar="N",
                        help=N_("recursive grammars only: interpreter runs the exploration may use "
                             "(default %(default)s); it stops at the last length that fits"))


def add_locale(parser: argparse.ArgumentParser, what: str) -> None:
    help = _("the language of {what} ({locales}; default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)")
    parser.add_argument("--locale", metavar="LOCALE", help=help.format(what=_(what), locales=", ".join(LOCALES)))


def limits(args: argparse.Namespace) -> Limits:
    """The limits a command was given (the defaults for a command that has no limit options)."""
    from ...pipeline import DEFAULT_LIMITS, Limits

    if not hasattr(args, "max_work"):
        return DEFAULT_LIMITS
    return Limits(args.max_nfa_states, args.max_dfa_states, args.max_work)


def compilation(args: argparse.Namespace, path: str | None = None, start: str | None = None,
                prose: bool = False) -> Compilation:
    """The grammar ``path`` (default: the command's GRAMMAR, from its ``--start``) with the
    command's imports, encoding and limits, ready to run through the stages (``prose``: for
    drawing, prose values no import defines are allowed)."""
    from ...frontend.source import load
    from ...pipeline import Compilation

    grammar = load(args.grammar if path is None else path, args.imports, args.encoding)
    return Compilation(grammar, args.start if path is None else start, limits(args), prose)


def parsed(args: argparse.Namespace, path: str | None = None, start: str | None = None) -> Compilation:
    """:func:`compilation`, with the grammar resolved (every error in it found, nothing compiled)."""
    found = compilation(args, path, start)
    found.resolved  # noqa: B018 -- resolving raises the grammar's errors, with file, line and column
    return found


def add_target(parser: argparse.ArgumentParser) -> None:
    """The implementation ``crosscheck`` and ``learn`` run: a program or a Python function, and
    how it answers."""
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--cmd", metavar="'PROGRAM ARGS'", help=N_("the program to check (split as a "
                        "shell would, but run without a shell)"))
    target.add_argument("--python", metavar="MODULE:FUNCTION", help=N_("a Python function to call on "
                        "each input (FILE.py:FUNCTION also works); it returns a truth value, or "
                        "raises to reject"))
    parser.add_argument("--protocol", choices=("hex-lines", "exit"), help=N_("hex-lines (default): one "
                        "process reads hex lines and prints 1/0, true/false or valid/invalid per "
                        "line; exit: one process per input, on stdin or in the file named by {}, "
                        "exit status 0 means accepted"))
    parser.add_argument("--timeout", type=positive_seconds, default=10.0, metavar="SECONDS",
                        help=N_("how long the program may take to show progress (default 10)"))


def target(args: argparse.Namespace) -> Target:
    """The implementation the options name, checked (AbnfError when it cannot be run)."""
    from ...crosscheck.programs import Target

    return Target.of(args.cmd, args.python, args.protocol, args.timeout)
