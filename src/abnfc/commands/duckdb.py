"""``abnfc duckdb``: build a DuckDB extension file whose SQL function ``NAME(VARCHAR) -> BOOLEAN``
is the grammar's validator, for DuckDB without Python (its command line, or any client that can
``LOAD`` a file) (:mod:`abnfc.duckdb.extension`: the C extension ``abnfc.duckdb.register``
builds, written where ``--out`` says instead of the cache).

DuckDB finds an extension's entry point by the file's name, so the file must keep the name it is
built for (``is_uri.duckdb_extension``: ``is_uri_init_c_api``), and loads it only where unsigned
extensions are allowed (``duckdb -unsigned``).  The footer names a platform: this machine's, or
``--platform``.
"""
from __future__ import annotations

import argparse
import re

from ..i18n import N_, _
from .support import options

NAME = "duckdb"
HELP = N_("build a DuckDB extension whose SQL function is the grammar's validator")
EXAMPLE = ("examples:\n  abnfc duckdb grammars/uri.abnf --name is_uri      # writes is_uri.duckdb_extension\n"
           "  abnfc duckdb grammars/json.abnf --name is_json --out lib/is_json.duckdb_extension\n"
           "then, in DuckDB started with -unsigned:  load 'is_uri.duckdb_extension';")
SUFFIX = ".duckdb_extension"
STEM = re.compile(r"[a-z][a-z0-9_]*")  # what DuckDB takes as an extension's name, from its file's


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)
    parser.add_argument("--name", required=True, help=N_("the SQL function's name"))
    parser.add_argument("--out", metavar="FILE", help=N_("the extension file, NAME.duckdb_extension by default; "
                        "DuckDB finds the function by the file's name, so keep it"))
    parser.add_argument("--platform", help=N_("DuckDB's name of the platform it is for (default: this machine's, "
                        "such as linux_amd64)"))
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    import os

    from ..duckdb.extension import compile_extension, this_platform
    from ..errors import AbnfError
    from ..native import find_compiler
    from .support.writing import write_file_and_say

    if args.out is None and not STEM.fullmatch(args.name):
        raise AbnfError.at(None, _("--name {name}: without --out the file is called NAME.duckdb_extension, and "
                                   "DuckDB takes only a NAME of lowercase letters, digits and underscores that "
                                   "starts with a letter; give --out FILE.duckdb_extension with such a name (the "
                                   "function keeps its own)").format(name=args.name))
    out = args.out or f"{args.name}{SUFFIX}"
    stem = os.path.basename(out)[: -len(SUFFIX)] if out.endswith(SUFFIX) else ""
    if not STEM.fullmatch(stem):
        raise AbnfError.at(None, _("--out {path}: an extension file is called NAME.duckdb_extension, NAME made of "
                                   "lowercase letters, digits and underscores and starting with a letter (DuckDB "
                                   "finds the function by it)").format(path=out))
    platform = args.platform or this_platform()
    if platform is None:
        raise AbnfError.at(None, _("DuckDB has no name for this machine's platform; give one with --platform"))
    cc = find_compiler()
    if cc is None:
        raise AbnfError.at(None, _("no C compiler found (looked for $CC, cc, gcc and clang), so the native DuckDB "
                                   "function cannot be built"))
    files = options.compilation(args).files(["c"], "validator", "abnfc duckdb")
    write_file_and_say(out, compile_extension(cc, stem, files, args.name, platform))
    return 0
