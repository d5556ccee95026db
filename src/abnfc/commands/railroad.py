"""``abnfc railroad``: a railroad (syntax) diagram of every rule, as SVG files that link to each
other (:mod:`abnfc.pictures.railroad`).

With ``--out DIR`` it writes ``<rule>.svg`` for every rule of the grammar and the core rules they
use (or the ``--rule`` ones), each written atomically and only when it changed; without it, it
prints the one diagram ``--rule`` names.  Labels (``2 times``) are in the language of
``--locale`` or of the environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG).
"""
from __future__ import annotations

import argparse
import sys

from ..i18n import N_, _
from .support import options

NAME = "railroad"
SPEAKS_LOCALE = True  # --locale is the language of its output and of the command line
HELP = N_("draw a railroad (syntax) diagram of every rule, as SVG")
EXAMPLE = ("examples:\n  abnfc railroad grammars/utf8.abnf --out diagrams      # UTF8-octets.svg, UTF8-char.svg, ...\n"
           "  abnfc railroad grammars/uri.abnf --rule IPv4address > ipv4.svg")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    parser.add_argument("--rule", action="append", default=[], metavar="RULE",
                        help=N_("draw this rule (repeatable; default: every rule and the core rules they use)"))
    parser.add_argument("--out", metavar="DIR", help=N_("write <rule>.svg files into DIR; without it, print "
                        "the diagram of the one --rule"))
    options.add_locale(parser, N_("the labels"))


def run(args: argparse.Namespace) -> int:
    from ..errors import AbnfError, print_diagnostics
    from ..grammar_facts import shown_rules
    from ..i18n import choose, translator
    from ..pictures.railroad import diagram_svg
    from .support.writing import write_and_say

    compilation = options.compilation(args, prose=True)  # an RFC grammar is drawn as written
    grammar, resolved = compilation.grammar, compilation.resolved
    print_diagnostics(resolved.warnings)
    try:
        translate = translator(choose(args.locale))
    except ValueError as error:
        raise AbnfError.at(None, str(error)) from None
    keys = [key.lower() for key in args.rule] or shown_rules(grammar.ast, resolved)
    unknown = [name for name in args.rule if name.lower() not in resolved.rules]
    if unknown:
        raise AbnfError.at(None, _("{path} has no rule {names}").format(
            path=grammar.path, names=", ".join(repr(n) for n in unknown)))
    if args.out is None and len(keys) != 1:
        raise AbnfError.at(None, _("give --out DIR to write the diagram of every rule, or one --rule to print "
                                   "its diagram"))
    files = {f"{resolved.rule(key).name}.svg": diagram_svg(
        resolved.rule(key).name, resolved.rule(key).definition,
        lambda target: f"{resolved.rule(target).name}.svg", translate, standalone=True) + "\n" for key in keys}
    if args.out is None:
        sys.stdout.write(next(iter(files.values())))
        return 0
    write_and_say(files, args.out)
    return 0
