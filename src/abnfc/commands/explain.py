"""``abnfc explain``: show how a grammar derives an input, or where and why it rejects it
(:mod:`abnfc.explain`), as text or JSON, in the reader's language."""
from __future__ import annotations

import argparse
import sys

from ..i18n import N_
from .support import options

NAME = "explain"
SPEAKS_LOCALE = True  # --locale is the language of its output and of the command line
HELP = N_("show how a grammar derives an input, or where and why it rejects it")
EXAMPLE = ("examples:\n  printf 'a\\xc3\\xa4' | abnfc explain grammars/utf8.abnf -\n"
           "  printf 'abc\\xed\\xa0\\x80' | abnfc explain grammars/utf8.abnf - --steps\n"
           "  abnfc explain grammars/uri.abnf link.txt --format json")

MAX_INPUT_BYTES = 1 << 20  # explain is for teaching inputs; check takes inputs of any size
# The tree search of a recursive grammar takes about a microsecond and up to 50 bytes a step:
# this default stops a runaway search within seconds, not minutes (a 10 KB JSON document needs
# 0.6 M steps beyond the 100 a byte every command allows).
EXPLAIN_MAX_WORK = 2_000_000
DEFAULT_MAX_NODES = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    parser.add_argument("input", nargs="?", default="-", metavar="FILE",
                        help=N_("the input to explain; - (the default) for standard input"))
    parser.add_argument("--steps", action="store_true",
                        help=N_("also show the automaton's steps, one line per byte (the pushdown validator's, "
                                "with its calls and returns, for a self-embedding grammar)"))
    parser.add_argument("--format", choices=("text", "json"), default="text")
    options.add_locale(parser, N_("the explanation; grammar text, rule names and bytes stay as written"))
    parser.add_argument("--max-nodes", type=options.nonnegative, default=DEFAULT_MAX_NODES, metavar="N",
                        help=N_("tree lines (and steps) shown before the middle of a long tree (or run) "
                                "is left out (default %(default)s; 0: all)"))
    options.add_limits(parser, max_work=EXPLAIN_MAX_WORK)


def run(args: argparse.Namespace) -> int:
    from ..errors import AbnfError
    from ..explain import json_output
    from ..explain.explainer import explain
    from ..explain.text import TextRenderer
    from ..i18n import choose, translation

    try:
        locale = choose(args.locale)
        _ = translation(locale).gettext
    except ValueError as error:
        raise AbnfError.at(None, str(error)) from None
    if args.grammar == "-" and args.input == "-":
        raise AbnfError.at(None, _("the grammar and the input cannot both come from standard input; "
                                   "give one of them as a file"))
    compilation = options.compilation(args)
    if args.steps:
        _check_has_automaton(compilation, _)
    name, data = _read_input(args.input, _)
    try:
        explanation = explain(compilation, name, data, _, steps=args.steps)
    except AbnfError as error:
        if any(d.span for d in error.diagnostics):
            raise
        for diagnostic in error.diagnostics:  # a limit this input reached: say which input, as check does
            print(f"{name}: {diagnostic.format()}", file=sys.stderr)
        return 2
    text = TextRenderer(_, translation(locale).ngettext)
    if args.format == "json":
        json_output.write(explanation, text, sys.stdout)
    else:
        sys.stdout.write(text.render(explanation, args.max_nodes))
    return 0 if explanation.accepted else 1


def _check_has_automaton(compilation, _) -> None:
    from ..automata.pushdown import Pushdown
    from ..errors import AbnfError

    resolved = compilation.resolved
    if not resolved.is_regular and resolved.embedding is not None:
        found = compilation.pushdown
        if not isinstance(found, Pushdown):
            raise AbnfError.at(None, _("--steps shows the automaton, and rule '{rule}' has none: its "
                                       "recursion is self-embedding ({path}) and {why}; explain it without "
                                       "--steps").format(rule=resolved.start_name, path=resolved.embedding.path,
                                                         why=found.message))
        compilation.pushdown_subset  # noqa: B018 -- built before the search runs, as below
        return
    compilation.minimal  # noqa: B018 -- a grammar beyond the limits is refused before the search runs


def _read_input(path: str, _) -> tuple[str, bytes]:
    from ..errors import AbnfError

    if path == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise AbnfError.at(None, _("no input: give a file, or pipe the input into standard input "
                                       "(run 'abnfc explain --help')"))
        name, data = "<stdin>", sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    else:
        name = path
        try:
            with open(path, "rb") as file:
                data = file.read(MAX_INPUT_BYTES + 1)
        except OSError as error:
            raise AbnfError.at(None, _("cannot read {path}: {reason}").format(
                path=path, reason=error.strerror)) from None
    if len(data) > MAX_INPUT_BYTES:
        raise AbnfError.at(None, _("{name} is larger than {size} KiB; explain is meant for inputs a "
                                   "reader can follow (use abnfc check for large inputs)").format(
                                       name=name, size=MAX_INPUT_BYTES >> 10))
    return name, data
