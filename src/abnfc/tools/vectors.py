"""``abnfc vectors``: test vectors with expected verdicts and notes, from the grammar's minimal DFA.

The suite (:mod:`.suite`) covers every transition of the minimal DFA with boundary bytes, adds
lookalikes and truncations, and tells the DFA apart from every DFA with at most
``--extra-states`` more states that accepts a different language.  Recursive grammars get the
suite of their language up to ``--max-length`` bytes (:mod:`.bounded`), and a statement on
standard error that the coverage is bounded.  TSV has the columns of the UTF-8 conformance file
(``hex``, ``valid``, ``note``); JSON is a list of objects with those keys.
"""
from __future__ import annotations

import json
import sys

from .common import add_language_options, language_from_args, nonnegative
from .suite import DEFAULT_MAX_VECTORS, Vector, build_suite

NAME = "vectors"
HELP = "test vectors with expected verdicts, derived from the grammar's minimal DFA"
EXAMPLE = ("examples:\n  abnfc vectors grammars/utf8.abnf > utf8-vectors.tsv\n"
           "  abnfc vectors grammars/utf8.abnf --extra-states 1 --format json")


def add_arguments(parser) -> None:
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv")
    parser.add_argument("--extra-states", type=nonnegative, default=0, metavar="K",
                        help="tell the grammar apart from every wrong DFA with up to K more states "
                             "(default 0)")
    parser.add_argument("--max-vectors", type=nonnegative, default=DEFAULT_MAX_VECTORS, metavar="N",
                        help="refuse a suite that could be larger (default %(default)s)")
    add_language_options(parser)


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


def run(args) -> int:
    language = language_from_args(args)
    if not language.exact:
        print(f"abnfc vectors: {language.describe_bound()}; the vectors' coverage is bounded "
              "accordingly", file=sys.stderr)
    vectors = build_suite(language.minimal, language.provenance, language.accepts,
                          args.extra_states, args.max_vectors)
    sys.stdout.write(to_json(vectors) if args.format == "json" else tsv(vectors))
    return 0
