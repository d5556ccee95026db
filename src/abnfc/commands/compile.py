"""``abnfc compile``: write the validators of a grammar, or say which ones are stale (``--check``).

The grammar, ``--prefix`` and the output folder are checked before anything is compiled.  The
files of every language are rendered before any is written (:meth:`Compilation.files`), then
written atomically and only when changed (:mod:`.writing`).  Each file's header records the
command that regenerates it.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from .. import backends
from ..i18n import N_, _, ngettext
from .support import options

NAME = "compile"
HELP = N_("generate validators from a grammar")
EXAMPLE = ("example:\n  abnfc compile grammars/utf8.abnf --out generated\n"
           "  abnfc compile grammars/utf8.abnf --out generated --check   # exit 1 if stale")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    parser.add_argument("--out", default=".", metavar="DIR", help=N_("output folder (default: .)"))
    parser.add_argument("--lang", type=_languages, default=list(backends.DEFAULT_LANGUAGES), metavar="LANGS",
                        help=_("comma-separated languages, from {names} (default: {default})").format(
                            names=", ".join(backends.names()), default=",".join(backends.DEFAULT_LANGUAGES)))
    parser.add_argument("--prefix", metavar="NAME", help=N_("name of the generated files and C "
                        "identifiers (default: the grammar file's stem, with g_ in front where a "
                        "language cannot take it)"))
    parser.add_argument("--check", action="store_true", help=N_("write nothing; exit 1 listing every "
                        "stale or missing file"))
    for language in backends.loadable():  # one that cannot load says why when --lang names it
        for option in backends.get(language).options:
            parser.add_argument(f"--{language}-{option.name}", *option.aliases,
                                dest=_option_dest(language, option.name), choices=option.choices,
                                default=option.default, help=option.help)
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ..errors import print_diagnostics
    from .support.writing import check_writable, stale_files, write_and_say

    _check_prefix(args)
    compilation = options.parsed(args)
    if not args.check:
        check_writable(args.out)  # before compiling, which may take long
    print_diagnostics(compilation.resolved.warnings)
    encoding = compilation.resolved.encoding
    files = compilation.files(args.lang, args.prefix, lambda language: _regenerate_command(args, encoding, language),
                              _backend_options(args), folder=args.out)
    if args.check:
        stale = stale_files(files, args.out)
        for name in stale:
            print(_("stale or missing: {path}").format(path=os.path.join(args.out, name)), file=sys.stderr)
        if not stale:
            print(ngettext("{folder}: up to date ({count} file)", "{folder}: up to date ({count} files)",
                           len(files)).format(folder=args.out, count=len(files)))
        return 1 if stale else 0
    write_and_say(files, args.out)
    return 0


def _languages(text: str) -> list[str]:
    """The backends named, in any case (``Rust``, ``HTML``), by their own names."""
    known = {name.lower(): name for name in backends.names()}
    languages = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [lang for lang in languages if lang.lower() not in known]
    if unknown or not languages:
        raise argparse.ArgumentTypeError(_("unknown language {language}; choose from {names}").format(
            language=", ".join(unknown) or repr(text), names=", ".join(backends.names())))
    return [known[lang.lower()] for lang in languages]


def _check_prefix(args: argparse.Namespace) -> None:
    """``--prefix`` must suit every language asked for; without it, a grammar from standard
    input has no name to give the files."""
    from ..backends.naming import prefix_problem
    from ..errors import AbnfError

    if args.prefix is None:
        if args.grammar == "-":
            raise AbnfError.at(None, _("give --prefix NAME: a grammar read from standard input has no file "
                                       "name to name the generated files after"))
        return
    problem = prefix_problem(args.prefix, args.lang)
    if problem:
        raise AbnfError.at(None, _("--prefix {prefix!r} cannot name the generated files: {problem}").format(
            prefix=args.prefix, problem=problem))


def _option_dest(language: str, name: str) -> str:
    return f"{language}_{name}".replace("-", "_")


def _backend_options(args: argparse.Namespace) -> dict[str, dict[str, str]]:
    chosen: dict[str, dict[str, str]] = {}
    for language in backends.loadable():
        for option in backends.get(language).options:
            chosen.setdefault(language, {})[option.name] = getattr(args, _option_dest(language, option.name))
    return chosen


def _regenerate_command(args: argparse.Namespace, encoding: str, language: str) -> str:
    """The command that writes one language's files again, run in their folder: paths are
    relative to it, and only that language and its options are named, so the header is the same
    whichever folder compile ran in and whichever other languages it wrote (``--check`` agrees)."""
    def here(path: str) -> str:
        return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(args.out))).as_posix()

    words = ["abnfc", "compile", "<stdin>" if args.grammar == "-" else here(args.grammar)]
    for imported in args.imports:
        words += ["--import", here(imported)]
    if args.encoding or encoding == "utf-8":  # the choice, even when made from the grammar
        words += ["--encoding", encoding]
    if args.start:
        words += ["--start", args.start]
    if args.prefix:
        words += ["--prefix", args.prefix]
    words += ["--lang", language]
    chosen = _backend_options(args).get(language, {})
    for option in backends.get(language).options:
        if chosen.get(option.name, option.default) != option.default:
            words += [f"--{language}-{option.name}", chosen[option.name]]
    words += ["--out", "."]
    return " ".join(shell_word(word) for word in words)


def shell_word(word: str) -> str:
    """``word`` quoted for a POSIX shell (bash's ``$'...'`` where it holds a control character,
    such as a newline), so that the command survives every comment it is written into: all of it
    printable, with no ``*/`` (which would end a C or JavaScript block comment) -- quoting is
    closed and reopened around the slash."""
    if all(ch.isprintable() for ch in word):
        return shlex.quote(word).replace("*/", "*'/'")
    escaped = "".join(_ESCAPES.get(ch) or (ch if ch.isprintable() else f"\\U{ord(ch):08x}") for ch in word)
    return f"$'{escaped}'".replace("*/", "*'/$'")


_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
