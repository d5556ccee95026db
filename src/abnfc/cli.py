"""Command line: ``abnfc compile | check | dfa | lint``.

Exit status: 0 success; 1 an input does not match, or ``compile --check`` found stale files;
2 a usage error or an error in the grammar.  Errors are printed as ``file:line:col: message``
with the source line and a caret; Python tracebacks only with ``--debug``.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

from . import __version__, tables
from .build import (EMITTERS, Limits, compile_grammar, generate, load, prefix_problem, stale_files,
                    write_files)
from .check import ENGINES, check_stream, choose_engine
from .errors import AbnfError, Diagnostic
from .resolve import resolve

EXIT_OK, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2

EXAMPLES = {
    "compile": "example:\n  abnfc compile grammars/utf8.abnf --out generated\n"
               "  abnfc compile grammars/utf8.abnf --out generated --check   # exit 1 if stale",
    "check": "examples:\n  abnfc check grammars/utf8.abnf README.md\n"
             "  printf 'caf\\xc3\\xa9' | abnfc check grammars/utf8.abnf -\n"
             "  abnfc check grammars/email.abnf --engine interpreter addresses.txt",
    "dfa": "example:\n  abnfc dfa grammars/utf8.abnf --format json",
    "lint": "example:\n  abnfc lint grammars/uri.abnf",
}


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    # argparse stops filling a nargs="*" positional at the first option, so input files given
    # after an option (check GRAMMAR --engine dfa a.txt b.txt) arrive here.
    if extra and getattr(args, "inputs", None) is not None and not any(
            word.startswith("-") and word != "-" for word in extra):
        args.inputs += extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if not args.command:
        parser.print_help()
        return EXIT_ERROR
    try:
        return args.run(args)
    except AbnfError as error:
        if args.debug:
            raise
        _print_diagnostics(error.diagnostics)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (abnfc dfa ... | head): stop quietly, as cat and grep do, and
        # keep Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as error:  # a bug in abnfc: say so briefly unless debugging
        if args.debug:
            raise
        print(f"abnfc: internal error: {type(error).__name__}: {error} (rerun with --debug for "
              "a traceback)", file=sys.stderr)
        return 3


def _print_diagnostics(diagnostics) -> None:
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)


def _limits(args) -> Limits:
    return Limits(args.max_nfa_states, args.max_dfa_states, args.max_work)


def _languages(text: str) -> list[str]:
    languages = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [lang for lang in languages if lang not in EMITTERS]
    if unknown or not languages:
        raise argparse.ArgumentTypeError(f"unknown language {', '.join(unknown) or text!r}; "
                                         f"choose from {', '.join(EMITTERS)}")
    return languages


def _prefix(text: str) -> str:
    problem = prefix_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text!r} cannot name the generated files: {problem}")
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def run_compile(args) -> int:
    loaded = load(args.grammar)
    compiled = compile_grammar(loaded, args.start, _limits(args))
    _print_diagnostics(compiled.resolved.warnings)
    files = generate(loaded, compiled, args.lang, args.prefix, _regenerate_command(args, loaded.path))
    if args.check:
        stale = stale_files(files, args.out)
        for name in stale:
            print(f"stale or missing: {args.out}/{name}", file=sys.stderr)
        return EXIT_MISMATCH if stale else EXIT_OK
    for name in write_files(files, args.out):
        print(f"wrote {args.out}/{name}")
    return EXIT_OK


def _regenerate_command(args, grammar_path: str) -> str:
    words = ["abnfc", "compile", grammar_path]
    if args.start:
        words += ["--start", args.start]
    if args.prefix:
        words += ["--prefix", args.prefix]
    if args.lang != list(EMITTERS):
        words += ["--lang", ",".join(args.lang)]
    words += ["--out", args.out]
    return shlex.join(words)


def run_check(args) -> int:
    loaded = load(args.grammar)
    engine = choose_engine(loaded, args.start, args.engine, _limits(args))
    status = EXIT_OK
    for name in args.inputs or ["-"]:
        try:
            if name == "-":
                outcome = check_stream(engine, sys.stdin.buffer, "<stdin>")
            else:
                with open(name, "rb") as stream:
                    outcome = check_stream(engine, stream, name)
        except OSError as error:
            print(f"abnfc: cannot read {name}: {error.strerror}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        if not outcome.matched:
            status = max(status, EXIT_MISMATCH)
        if not (outcome.matched and args.quiet):
            print(outcome.report())
    return status


def run_dfa(args) -> int:
    loaded = load(args.grammar)
    compiled = compile_grammar(loaded, args.start, _limits(args))
    dfa = compiled.minimal if args.minimal else compiled.dfa
    if args.format == "json":
        fields = tables.to_json(dfa).items()
        print("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in fields) + "\n}")
    else:
        print(tables.text(dfa), end="")
    return EXIT_OK


def run_lint(args) -> int:
    loaded = load(args.grammar)
    resolved = resolve(loaded.grammar, args.start)
    _print_diagnostics(resolved.warnings)
    kind = "regular: compiles to a DFA" if resolved.is_regular else \
        f"recursive ({resolved.cycle}): needs the interpreter"
    print(f"{loaded.path}: {len(loaded.grammar.rules)} rules, start rule {resolved.start_name}, "
          f"{len(resolved.warnings)} warnings; {kind}")
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="abnfc", description="Compile ABNF grammars (RFC 5234, RFC 7405) to minimal DFAs and "
        "validators in Python and C, or match inputs against any grammar.",
        epilog="run 'abnfc COMMAND --help' for each command's options and an example")
    parser.add_argument("--version", action="version", version=f"abnfc {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name, run, help_text):
        sub = commands.add_parser(name, help=help_text, description=help_text, epilog=EXAMPLES[name],
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.set_defaults(run=run)
        sub.add_argument("grammar", metavar="GRAMMAR", help="ABNF grammar file")
        sub.add_argument("--start", metavar="RULE", help="start rule (default: the first rule)")
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                         help="show Python tracebacks on errors")
        return sub

    def limits(sub):
        sub.add_argument("--max-nfa-states", type=_positive, default=Limits.max_nfa_states, metavar="N",
                         help="NFA size limit (default %(default)s)")
        sub.add_argument("--max-dfa-states", type=_positive, default=Limits.max_dfa_states, metavar="N",
                         help="DFA size limit before minimization (default %(default)s)")
        sub.add_argument("--max-work", type=_positive, default=Limits.max_work, metavar="N",
                         help="subset construction budget in NFA states (default %(default)s)")

    sub = command("compile", run_compile, "generate validators from a grammar")
    sub.add_argument("--out", default=".", metavar="DIR", help="output folder (default: .)")
    sub.add_argument("--lang", type=_languages, default=list(EMITTERS), metavar="LANGS",
                     help="comma-separated languages: python,c (default: both)")
    sub.add_argument("--prefix", type=_prefix, metavar="NAME", help="name of the generated files and C "
                     "identifiers (default: the grammar file's stem)")
    sub.add_argument("--check", action="store_true", help="write nothing; exit 1 listing every "
                     "stale or missing file")
    limits(sub)

    sub = command("check", run_check, "validate input files against a grammar")
    sub.add_argument("inputs", nargs="*", metavar="FILE", help="files to check; - or none for stdin")
    sub.add_argument("--engine", choices=ENGINES, default="auto", help="auto (default): the DFA "
                     "when the grammar is regular, else the interpreter")
    sub.add_argument("-q", "--quiet", action="store_true", help="print only invalid inputs")
    limits(sub)

    sub = command("dfa", run_dfa, "print a grammar's minimal DFA")
    sub.add_argument("--format", choices=("text", "json"), default="text")
    sub.add_argument("--no-minimize", dest="minimal", action="store_false",
                     help="print the DFA from subset construction, before minimization")
    limits(sub)

    command("lint", run_lint, "parse and check a grammar without compiling it")
    return parser


if __name__ == "__main__":
    sys.exit(main())
