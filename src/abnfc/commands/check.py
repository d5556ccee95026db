"""``abnfc check``: validate files (or standard input) of any size against a grammar with one of
the engines of :mod:`abnfc.engines`; with ``--records``, each record of the files on its own
(:func:`abnfc.records.job.check_records`)."""
from __future__ import annotations

import argparse
import sys

from ..i18n import N_, _
from .support import options

NAME = "check"
HELP = N_("validate input files against a grammar")
EXAMPLE = ("examples:\n  abnfc check grammars/utf8.abnf README.md\n"
           "  printf 'caf\\xc3\\xa9' | abnfc check grammars/utf8.abnf -\n"
           "  abnfc check grammars/email.abnf --engine interpreter addresses.txt\n"
           "  abnfc check grammars/datetime.abnf --records csv:created_at events.csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    # default=[]: argparse marks a '*' positional without a default as required, and named it missing
    parser.add_argument("inputs", nargs="*", default=[], metavar="FILE", help=N_("files to check; - for standard input "
                        "(the default when it is not a terminal)"))
    parser.add_argument("--engine", choices=("auto", "dfa", "interpreter"), default="auto",
                        help=N_("auto (default): the DFA when the grammar is regular, the pushdown validator "
                                "when it is self-embedding and has one, else the interpreter; dfa: the "
                                "compiled validator only"))
    parser.add_argument("-q", "--quiet", action="store_true", help=N_("print only invalid inputs"))
    parser.add_argument("--records", type=_record_format, metavar="lines|csv:COLUMN|jsonl:FIELD|parquet:COLUMN",
                        help=N_("check each record of the files on its own: each line (without its line "
                                "ending), a CSV column (by header name or number from 1), a string field "
                                "of JSON Lines, or a Parquet column (needs pyarrow); prints the invalid "
                                "records and a summary"))
    parser.add_argument("--delimiter", type=_delimiter, metavar="CHAR",
                        help=N_("with --records csv:COLUMN: the character between fields (default ','); "
                                "\\t or tab for TSV"))
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help=N_("with --records: text (default), or one JSON object per invalid record and a "
                                "last one with the totals"))
    parser.add_argument("--count", action="store_true", help=N_("with --records: print no invalid record, only "
                        "how many there are (per file and in all), as grep -c does"))
    parser.add_argument("--max-depth", type=options.positive, metavar="N",
                        help=N_("recursive grammars: the nested parts an input may open at once (the pushdown "
                                "validator's default: 100000; the interpreter's: no limit); deeper is exit 2"))
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    if not args.inputs and sys.stdin is not None and sys.stdin.isatty():
        print(_("abnfc check: no input files, and standard input is a terminal; give files, or "
                "'-' to read standard input (run 'abnfc check --help')"), file=sys.stderr)
        return 2
    if args.records is not None:
        from ..records.job import RecordsRequest, check_records

        return check_records(RecordsRequest(
            args.grammar, tuple(args.inputs), args.records, args.max_nfa_states, args.max_dfa_states, args.max_work,
            args.format, args.quiet, args.count, tuple(args.imports), args.encoding, args.start, args.engine,
            args.delimiter))
    if args.format != "text" or args.count or args.delimiter:
        option = "--count" if args.count else "--delimiter" if args.delimiter else "--format json"
        print(_("abnfc check: {option} needs --records").format(option=option), file=sys.stderr)
        return 2
    from ..engines import choose_engine

    engine = choose_engine(options.compilation(args), args.engine, args.max_depth)
    status = 0
    for name in args.inputs or ["-"]:
        status = max(status, _check_one(engine, name, args.quiet))
    return status


def _record_format(text: str):
    from ..records import record_format

    return record_format(text)


def _delimiter(text: str):
    from ..records import delimiter

    return delimiter(text)


def _check_one(engine, name: str, quiet: bool) -> int:
    """Check one input: 0 valid, 1 invalid, 2 unreadable, beyond the interpreter's work limit or
    nesting deeper than the pushdown validator's depth limit."""
    from ..engines import NestingLimitError, check_stream
    from ..errors import AbnfError, printable
    from ..interpret import WorkLimitError

    shown = "<stdin>" if name == "-" else printable(name)  # a newline or ESC in a name cannot forge a line
    try:
        if name == "-":
            if sys.stdin is None:
                raise AbnfError.at(None, _("cannot read <stdin>: it is closed"))
            outcome = check_stream(engine, sys.stdin.buffer, shown)
        else:
            with open(name, "rb") as stream:
                outcome = check_stream(engine, stream, shown)
    except OSError as error:
        print(_("abnfc: cannot read {name}: {reason}").format(name=shown, reason=error.strerror), file=sys.stderr)
        return 2
    except (WorkLimitError, NestingLimitError) as error:  # too much for the engine; go on with the next
        print(f"{shown}: {error.diagnostics[0].format()}", file=sys.stderr)
        return 2
    if not (outcome.matched and quiet):
        print(outcome.report())
    return 0 if outcome.matched else 1
