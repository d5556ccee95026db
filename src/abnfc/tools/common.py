"""Options and argument types the tools share: size limits, the length bound of recursive
grammars, and loading a grammar as a :class:`~.language.Language`."""
from __future__ import annotations

import argparse

from ..build import Limits
from .bounded import DEFAULT_BUDGET, DEFAULT_MAX_LENGTH
from .language import Language, load_language


def nonnegative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (0 or more)")
    return value


def positive(text: str) -> int:
    value = nonnegative(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def add_language_options(parser) -> None:
    """The options that say how a grammar becomes an automaton (see :func:`language_from_args`)."""
    parser.add_argument("--max-length", type=positive, default=DEFAULT_MAX_LENGTH, metavar="N",
                        help="recursive grammars only: explore their language up to N bytes "
                             "through the interpreter (default %(default)s)")
    parser.add_argument("--max-runs", type=positive, default=DEFAULT_BUDGET, metavar="N",
                        help="recursive grammars only: interpreter runs the exploration may use "
                             "(default %(default)s); it stops at the last length that fits")
    parser.add_argument("--max-nfa-states", type=positive, default=Limits.max_nfa_states, metavar="N",
                        help="NFA size limit (default %(default)s)")
    parser.add_argument("--max-dfa-states", type=positive, default=Limits.max_dfa_states, metavar="N",
                        help="DFA size limit before minimization (default %(default)s)")
    parser.add_argument("--max-work", type=positive, default=Limits.max_work, metavar="N",
                        help="subset construction budget in NFA states (default %(default)s)")


def limits_from_args(args) -> Limits:
    return Limits(args.max_nfa_states, args.max_dfa_states, args.max_work)


def language_from_args(args, path: str | None = None, start: str | None = None) -> Language:
    """The grammar ``path`` (default: the command's GRAMMAR) as a :class:`Language`."""
    return load_language(path if path is not None else args.grammar,
                         start if path is not None else args.start,
                         limits_from_args(args), args.max_length, args.max_runs,
                         getattr(args, "imports", ()), getattr(args, "encoding", None))
