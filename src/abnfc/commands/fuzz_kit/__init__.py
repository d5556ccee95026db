"""``abnfc fuzz-kit``: write a fuzzing kit for a grammar (:mod:`abnfc.fuzzkit`).

``--lang c``: a libFuzzer and AFL++ custom mutator that edits inputs along the grammar's minimal
DFA (a recursive grammar's: its pushdown validator), a dictionary, a seed corpus, the generated
C validator as the oracle and a fuzz target that aborts where the implementation under test
disagrees with it.  ``--lang go``: the seed corpus in
Go's format and a ``FuzzValid`` test; ``--lang rust``: a ``cargo fuzz`` target and its corpus.
The output folder is checked before anything is compiled; files are written atomically and only
when changed.  The kit lists what it wrote, with each file's SHA-1, in :data:`MANIFEST`; a later
run into the same folder removes the files of that list it no longer writes (a corpus drawn with
another seed) when they are as the kit wrote them, so the folder holds just this run's kit and
whatever else was put there: the inputs a fuzzer added, the files a user changed.  (A package
rather than a module only to keep the commands' folder at twelve modules.)
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shlex
from pathlib import Path

from ...i18n import N_, _
from ..support import options

NAME = "fuzz-kit"
HELP = N_("write a fuzzing kit: a grammar-aware mutator, dictionary, seed corpus and fuzz target")
EXAMPLE = ("example:\n  abnfc fuzz-kit grammars/utf8.abnf --lang c --out fuzz\n"
           "  abnfc fuzz-kit grammars/uri.abnf --start URI --lang go --out uri")

LANGUAGES = ("c", "go", "rust")  # as abnfc.fuzzkit.LANGUAGES (repeated: the parser imports no automata)
DEFAULT_MAX_SEEDS = 1000  # as abnfc.fuzzkit.DEFAULT_MAX_SEEDS
MANIFEST = ".fuzz-kit-files"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    parser.add_argument("--lang", required=True, choices=LANGUAGES,
                        help=N_("c (libFuzzer and AFL++), go (go test -fuzz) or rust (cargo fuzz)"))
    parser.add_argument("--out", required=True, metavar="DIR", help=N_("output folder"))
    parser.add_argument("--seed", type=int, default=0, help=N_("seed of the random inputs (default 0)"))
    parser.add_argument("--max-seeds", type=options.positive, default=DEFAULT_MAX_SEEDS, metavar="N",
                        help=N_("at most N inputs in the seed corpus (default %(default)s)"))
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ...backends.naming import default_prefix
    from ...errors import print_diagnostics
    from ...fuzzkit import kit
    from ..support.writing import check_writable, write_and_say

    compilation = options.parsed(args)
    check_writable(args.out)  # before compiling, which may take long
    print_diagnostics(compilation.resolved.warnings)
    prefix = default_prefix(compilation.grammar.path, [args.lang])
    files = kit(compilation, args.lang, prefix, args.seed, args.max_seeds, _command(args, "fuzz-kit"),
                _command(args, "compile"), args.out)
    before = _listed(args.out)
    files[MANIFEST] = _manifest(files)
    write_and_say(files, args.out)
    _remove_left_over(before, files, args.out)
    return 0


def _sha1(content: str | bytes) -> str:
    return hashlib.sha1(content if isinstance(content, bytes) else content.encode("utf-8")).hexdigest()


def _manifest(files: dict[str, str | bytes]) -> str:
    lines = ["# The files abnfc fuzz-kit wrote in this folder (SHA-1, name). The next run removes those it",
             "# no longer writes that are unchanged; it leaves every other file alone."]
    return "\n".join(lines + [f"{_sha1(content)}  {name}" for name, content in sorted(files.items())]) + "\n"


def _listed(folder: str) -> dict[str, str]:
    """Name -> SHA-1 of the files the manifest of an earlier run in ``folder`` lists."""
    try:
        text = Path(folder, MANIFEST).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    pairs = (line.split("  ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return {name: digest for digest, name, *_rest in (pair for pair in pairs if len(pair) == 2)}


def _remove_left_over(before: dict[str, str], files: dict[str, str | bytes], folder: str) -> None:
    """Remove the files an earlier run wrote that this one does not, where they are unchanged."""
    from ...errors import AbnfError

    root = Path(os.path.realpath(folder))
    for name, digest in sorted(before.items()):
        path = Path(os.path.join(folder, name))
        inside = Path(os.path.realpath(path)).is_relative_to(root) and ".." not in Path(name).parts
        if name in files or not inside or not path.is_file() or path.is_symlink():
            continue
        try:
            if _sha1(path.read_bytes()) != digest:
                continue  # changed since: the user's now
            path.unlink()
        except OSError as error:
            raise AbnfError.at(None, _("cannot remove {path}: {reason}").format(
                path=path, reason=error.strerror or str(error))) from None
        print(_("removed {path}").format(path=path))


def _command(args: argparse.Namespace, name: str) -> str:
    """The command that writes the kit (or its validator) again, run in the output folder."""
    def here(path: str) -> str:
        return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(args.out))).as_posix()

    words = ["abnfc", name, "<stdin>" if args.grammar == "-" else here(args.grammar)]
    for imported in args.imports:
        words += ["--import", here(imported)]
    if args.encoding:
        words += ["--encoding", args.encoding]
    if args.start:
        words += ["--start", args.start]
    words += ["--lang", args.lang]
    if name == "fuzz-kit":
        words += ["--seed", str(args.seed)] + (["--max-seeds", str(args.max_seeds)]
                                               if args.max_seeds != DEFAULT_MAX_SEEDS else [])
    words += ["--out", "."]
    return " ".join(shlex.quote(word).replace("*/", "*'/'") for word in words)
