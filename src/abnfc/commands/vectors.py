"""``abnfc vectors``: test vectors with expected verdicts and notes, from the grammar's minimal DFA.

The suite (:mod:`abnfc.crosscheck.suite`) covers every transition of the minimal DFA with boundary bytes, adds
lookalikes and truncations, and tells the DFA apart from every DFA with at most
``--extra-states`` more states that accepts a different language.  Recursive grammars get the
suite of their language up to ``--max-length`` bytes (:mod:`abnfc.crosscheck.bounded`), and a statement on
standard error that the coverage is bounded.  TSV has the columns of the UTF-8 conformance file
(``hex``, ``valid``, ``note``); JSON is a list of objects with those keys.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from .. import i18n
from ..i18n import N_, _
from .support import options

if TYPE_CHECKING:
    from ..crosscheck.suite import Vector

NAME = "vectors"
HELP = N_("test vectors with expected verdicts, derived from the grammar's minimal DFA")
EXAMPLE = ("examples:\n  abnfc vectors grammars/utf8.abnf > utf8-vectors.tsv\n"
           "  abnfc vectors grammars/utf8.abnf --extra-states 1 --format json")


DEFAULT_MAX_VECTORS = 2_000_000  # as abnfc.crosscheck.suite's (a test checks they agree)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv")
    parser.add_argument("--extra-states", type=options.nonnegative, default=0, metavar="K",
                        help=N_("tell the grammar apart from every wrong DFA with up to K more states "
                             "(default 0)"))
    parser.add_argument("--max-vectors", type=options.nonnegative, default=DEFAULT_MAX_VECTORS, metavar="N",
                        help=N_("refuse a suite that could be larger (default %(default)s)"))
    options.add_exploration(parser)
    options.add_limits(parser)


def hex_column(data: bytes) -> str:
    return data.hex(" ")


def tsv(vectors: list[Vector]) -> str:
    rows = ["hex\tvalid\tnote"]
    rows += [f"{hex_column(v.data)}\t{int(v.valid)}\t{_one_line(v.note)}" for v in vectors]
    return "\n".join(rows) + "\n"


def to_json(vectors: list[Vector]) -> str:
    items = [json.dumps({"hex": hex_column(v.data), "valid": v.valid, "note": v.note}) for v in vectors]
    return "[\n" + ",\n".join(f" {item}" for item in items) + "\n]\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def run(args: argparse.Namespace) -> int:
    from ..crosscheck.language import load_language
    from ..crosscheck.suite import build_suite

    language = load_language(options.compilation(args), args.max_length, args.max_runs, args.max_nesting)
    if not language.exact:
        print(_("abnfc vectors: {bound}; the vectors' coverage is bounded accordingly").format(
            bound=language.describe_bound()), file=sys.stderr)
    i18n.use(i18n.ENGLISH)  # the vectors' notes are data: the same on every machine, as generated files are
    vectors = build_suite(language.minimal, language.provenance, language.accepts,
                          args.extra_states, args.max_vectors)
    sys.stdout.write(to_json(vectors) if args.format == "json" else tsv(vectors))
    return 0
