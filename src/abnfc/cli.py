"""Command line: ``abnfc compile | check | dfa | lint``, and the tools registered in ``TOOLS``.

Exit status: 0 success; 1 an input does not match, or ``compile --check`` found stale files;
2 a usage error, an error in the grammar, or a problem with a file the user named; 3 an internal
error (a bug in abnfc); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM), 129 hung up (SIGHUP),
each after cleaning up; 141 the reader of the output went away (``abnfc dfa ... | head``), as for
programs killed by SIGPIPE.  Errors are printed as
``file:line:col: message`` with the source line and a caret; Python tracebacks only with
``--debug``.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import shlex
import signal
import sys
import threading

from . import backends
from .automata import dump
from .build import (
    Grammar,
    Limits,
    compile_grammar,
    generate,
    load,
    prefix_problem,
    resolve_grammar,
    stale_files,
    write_files,
)
from .check import ENGINES, check_stream, choose_engine
from .errors import AbnfError, Diagnostic, summarize
from .frontend.encoding import ENCODINGS, UTF8
from .interpret import WorkLimitError
from .version import __version__

EXIT_OK, EXIT_MISMATCH, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141

# Further commands: modules with HELP, EXAMPLE, add_arguments(parser) and run(args) -> int.
TOOLS: tuple[str, ...] = ("abnfc.tools.vectors", "abnfc.tools.crosscheck", "abnfc.tools.diff",
                           "abnfc.tools.explain")

EXAMPLES = {
    "compile": "example:\n  abnfc compile grammars/utf8.abnf --out generated\n"
               "  abnfc compile grammars/utf8.abnf --out generated --check   # exit 1 if stale",
    "check": "examples:\n  abnfc check grammars/utf8.abnf README.md\n"
             "  printf 'caf\\xc3\\xa9' | abnfc check grammars/utf8.abnf -\n"
             "  abnfc check grammars/email.abnf --engine interpreter addresses.txt",
    "dfa": "example:\n  abnfc dfa grammars/utf8.abnf --format json",
    "lint": "examples:\n  abnfc lint grammars/uri.abnf\n  printf 'r = \"a\" r / \"b\"\\n' | abnfc lint -",
}


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # before the command started (building the parser imports backends)
        return EXIT_INTERRUPTED


def _main(argv: list[str] | None) -> int:
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
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    with _terminate_as_interrupt():
        return _run(args)


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (and SIGHUP) stop the command as Ctrl-C does, so that it cleans up after itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    def interrupt(signum, frame):
        raise _Terminated(signum)
    previous = {number: signal.signal(number, interrupt) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class _Terminated(BaseException):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.status = 128 + signum


def _run(args) -> int:
    try:
        return args.run(args)
    except AbnfError as error:
        if args.debug:
            raise
        print_diagnostics(error.diagnostics)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except _Terminated as terminated:
        return terminated.status
    except BrokenPipeError:
        # The reader went away (abnfc dfa ... | head): stop quietly, as cat and grep do, and
        # keep Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as error:  # a bug in abnfc: say so briefly unless debugging
        if args.debug:
            raise
        print(f"abnfc: internal error: {type(error).__name__}: {error} (a bug in abnfc; rerun "
              "with --debug for a traceback)", file=sys.stderr)
        return EXIT_INTERNAL


def print_diagnostics(diagnostics) -> None:
    for text in summarize(diagnostics):
        print(text, file=sys.stderr)


def plural(count: int, noun: str) -> str:
    """``1 rule``, ``2 rules``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def limits(args) -> Limits:
    return Limits(args.max_nfa_states, args.max_dfa_states, args.max_work)


def _languages(text: str) -> list[str]:
    languages = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [lang for lang in languages if lang not in backends.names()]
    if unknown or not languages:
        raise argparse.ArgumentTypeError(f"unknown language {', '.join(unknown) or text!r}; "
                                         f"choose from {', '.join(backends.names())}")
    return languages


def _prefix(text: str) -> str:
    problem = prefix_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text!r} cannot name the generated files: {problem}")
    return text


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def _backend_options(args) -> dict[str, dict[str, str]]:
    chosen: dict[str, dict[str, str]] = {}
    for language in backends.names():
        for option in backends.get(language).options:
            chosen.setdefault(language, {})[option.name] = getattr(args, _option_dest(language, option.name))
    return chosen


def _option_dest(language: str, name: str) -> str:
    return f"{language}_{name}".replace("-", "_")


def load_grammar(args) -> Grammar:
    """The grammar named on the command line, with its --import files and --encoding."""
    return load(args.grammar, args.imports, args.encoding)


def run_compile(args) -> int:
    grammar = load_grammar(args)
    compiled = compile_grammar(grammar, args.start, limits(args))
    print_diagnostics(compiled.resolved.warnings)
    command = _regenerate_command(args, grammar, compiled.resolved.encoding)
    files = generate(grammar, compiled, args.lang, args.prefix, command, options=_backend_options(args))
    if args.check:
        stale = stale_files(files, args.out)
        for name in stale:
            print(f"stale or missing: {os.path.join(args.out, name)}", file=sys.stderr)
        if not stale:
            print(f"{args.out}: up to date ({plural(len(files), 'file')})")
        return EXIT_MISMATCH if stale else EXIT_OK
    written = write_files(files, args.out)
    for name in written:
        print(f"wrote {os.path.join(args.out, name)}")
    if not written:
        print(f"{args.out}: up to date, nothing written ({plural(len(files), 'file')})")
    return EXIT_OK


def _regenerate_command(args, grammar: Grammar, encoding: str) -> str:
    words = ["abnfc", "compile", grammar.path]
    for imported in grammar.imports:
        words += ["--import", imported.path]
    if args.encoding or encoding == UTF8:  # the choice, even when made from the grammar
        words += ["--encoding", encoding]
    if args.start:
        words += ["--start", args.start]
    if args.prefix:
        words += ["--prefix", args.prefix]
    if args.lang != list(backends.DEFAULT_LANGUAGES):
        words += ["--lang", ",".join(args.lang)]
    for language, options in _backend_options(args).items():
        for option in backends.get(language).options:
            if options[option.name] != option.default:
                words += [f"--{language}-{option.name}", options[option.name]]
    words += ["--out", args.out]
    return shlex.join(words)


def run_check(args) -> int:
    names = args.inputs or ["-"]
    if not args.inputs and sys.stdin is not None and sys.stdin.isatty():
        print("abnfc check: no input files, and standard input is a terminal; give files, or "
              "'-' to read standard input (run 'abnfc check --help')", file=sys.stderr)
        return EXIT_ERROR
    engine = choose_engine(load_grammar(args), args.start, args.engine, limits(args))
    status = EXIT_OK
    for name in names:
        try:
            if name == "-":
                if sys.stdin is None:
                    raise AbnfError.at(None, "cannot read <stdin>: it is closed")
                outcome = check_stream(engine, sys.stdin.buffer, "<stdin>")
            else:
                with open(name, "rb") as stream:
                    outcome = check_stream(engine, stream, name)
        except OSError as error:
            print(f"abnfc: cannot read {name}: {error.strerror}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        except WorkLimitError as error:  # this input is too much for the grammar; go on with the next
            print(f"{'<stdin>' if name == '-' else name}: {error.diagnostics[0].format()}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        if not outcome.matched:
            status = max(status, EXIT_MISMATCH)
        if not (outcome.matched and args.quiet):
            print(outcome.report())
    return status


def run_dfa(args) -> int:
    compiled = compile_grammar(load_grammar(args), args.start, limits(args))
    automaton = compiled.minimal if args.minimal else compiled.dfa
    if args.format == "json":
        fields = dump.to_json(automaton).items()
        print("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in fields) + "\n}")
    else:
        print(dump.text(automaton), end="")
    return EXIT_OK


def run_lint(args) -> int:
    grammar = load_grammar(args)
    resolved = resolve_grammar(grammar, args.start)
    print_diagnostics(resolved.warnings)
    print_diagnostics(resolved.notes + _import_notes(resolved.supplied))
    imported = f" (and {len(resolved.supplied)} imported)" if resolved.supplied else ""
    print(f"{grammar.path}: {plural(len(grammar.ast.rules), 'rule')}{imported}, start rule "
          f"{resolved.start_name}, encoding {resolved.encoding}, "
          f"{plural(len(resolved.warnings), 'warning')}; {_recursion_kind(resolved)}")
    return EXIT_OK


def _import_notes(supplied: tuple[tuple[str, str], ...]) -> tuple[Diagnostic, ...]:
    """One note per imported file, naming the rules it supplied."""
    by_file: dict[str, list[str]] = {}
    for rule, source in supplied:
        by_file.setdefault(source, []).append(rule)
    return tuple(Diagnostic(f"rules taken from {source}: {', '.join(rules)}", None, "note")
                 for source, rules in by_file.items())


def _recursion_kind(resolved) -> str:
    """``regular: ...``, ``recursive, right-linear (list -> list), so regular: ...`` or
    ``recursive, self-embedding (comment -> ccontent -> comment; ...): needs the interpreter``."""
    if resolved.embedding is not None:
        embedding = resolved.embedding
        return f"recursive, self-embedding ({embedding.path}; {embedding.explain()}): needs the interpreter"
    if not resolved.components:
        return "regular: compiles to a DFA"
    kinds: dict[str, list[str]] = {}
    for component in resolved.components:
        kinds.setdefault(component.kind, []).append(component.path)
    shown = " and ".join(f"{kind} ({', '.join(paths)})" for kind, paths in sorted(kinds.items(), reverse=True))
    return f"recursive, {shown}, so regular: compiles to a DFA"


def add_limits(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--max-nfa-states", type=positive, default=Limits.max_nfa_states, metavar="N",
                     help="NFA size limit (default %(default)s)")
    sub.add_argument("--max-dfa-states", type=positive, default=Limits.max_dfa_states, metavar="N",
                     help="DFA size limit before minimization (default %(default)s)")
    sub.add_argument("--max-work", type=positive, default=Limits.max_work, metavar="N",
                     help="the work any engine may do (default %(default)s): NFA states the subset "
                     "construction touches, or the interpreter's steps beyond 100 a byte")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="abnfc", description="Compile ABNF grammars (RFC 5234, RFC 7405) to minimal DFAs and "
        "validators in Python, C and JavaScript, or match inputs against any grammar.",
        epilog="run 'abnfc COMMAND --help' for each command's options and an example")
    parser.add_argument("--version", action="version", version=f"abnfc {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name, run, help_text, example):
        sub = commands.add_parser(name, help=help_text, description=help_text, epilog=example,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.set_defaults(run=run)
        sub.add_argument("grammar", metavar="GRAMMAR", help="ABNF grammar file ('-': standard input)")
        sub.add_argument("--start", metavar="RULE", help="start rule (default: the first rule)")
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                         help="show Python tracebacks on errors")
        sub.add_argument("--import", dest="imports", action="append", default=[], metavar="FILE",
                         help="a grammar that supplies rules GRAMMAR uses but does not define "
                              "(repeatable; searched in order)")
        sub.add_argument("--encoding", choices=ENCODINGS, help="what terminal values mean: octets "
                         "(bytes) or utf-8 (Unicode code points, matched as their UTF-8 encoding); "
                         "default: utf-8 when a value the start rule reaches is above %%xFF")
        return sub

    sub = command("compile", run_compile, "generate validators from a grammar", EXAMPLES["compile"])
    sub.add_argument("--out", default=".", metavar="DIR", help="output folder (default: .)")
    sub.add_argument("--lang", type=_languages, default=list(backends.DEFAULT_LANGUAGES), metavar="LANGS",
                     help=f"comma-separated languages, from {', '.join(backends.names())} "
                          f"(default: {','.join(backends.DEFAULT_LANGUAGES)})")
    sub.add_argument("--prefix", type=_prefix, metavar="NAME", help="name of the generated files and C "
                     "identifiers (default: the grammar file's stem)")
    sub.add_argument("--check", action="store_true", help="write nothing; exit 1 listing every "
                     "stale or missing file")
    for language in backends.names():
        for option in backends.get(language).options:
            sub.add_argument(f"--{language}-{option.name}", dest=_option_dest(language, option.name),
                             choices=option.choices, default=option.default, help=option.help)
    add_limits(sub)

    sub = command("check", run_check, "validate input files against a grammar", EXAMPLES["check"])
    sub.add_argument("inputs", nargs="*", metavar="FILE", help="files to check; - for standard input "
                     "(the default when it is not a terminal)")
    sub.add_argument("--engine", choices=ENGINES, default="auto", help="auto (default): the DFA "
                     "when the grammar is regular, else the interpreter")
    sub.add_argument("-q", "--quiet", action="store_true", help="print only invalid inputs")
    add_limits(sub)

    sub = command("dfa", run_dfa, "print a grammar's minimal DFA", EXAMPLES["dfa"])
    sub.add_argument("--format", choices=("text", "json"), default="text")
    sub.add_argument("--no-minimize", dest="minimal", action="store_false",
                     help="print the DFA from subset construction, before minimization")
    add_limits(sub)

    command("lint", run_lint, "parse and check a grammar without compiling it", EXAMPLES["lint"])

    for module_name in TOOLS:
        tool = importlib.import_module(module_name)
        sub = command(tool.NAME, tool.run, tool.HELP, tool.EXAMPLE)
        tool.add_arguments(sub)
    return parser


if __name__ == "__main__":
    sys.exit(main())
