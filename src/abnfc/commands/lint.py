"""``abnfc lint``: parse and check a grammar without compiling it, and say whether it is regular."""
from __future__ import annotations

import argparse

from ..i18n import plural
from . import options

NAME = "lint"
HELP = "parse and check a grammar without compiling it"
EXAMPLE = "examples:\n  abnfc lint grammars/uri.abnf\n  printf 'r = \"a\" r / \"b\"\\n' | abnfc lint -"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)


def run(args: argparse.Namespace) -> int:
    from ..errors import Diagnostic, print_diagnostics

    compilation = options.compilation(args)
    resolved = compilation.resolved
    print_diagnostics(resolved.warnings)
    imports = tuple(Diagnostic(text, None, "note") for text in _import_notes(resolved.supplied))
    print_diagnostics(resolved.notes + imports)
    imported = f" (and {len(resolved.supplied)} imported)" if resolved.supplied else ""
    print(f"{compilation.grammar.path}: {plural(len(compilation.grammar.ast.rules), 'rule')}{imported}, start rule "
          f"{resolved.start_name}, encoding {resolved.encoding}, "
          f"{plural(len(resolved.warnings), 'warning')}; {_recursion_kind(resolved)}")
    return 0


def _import_notes(supplied: tuple[tuple[str, str], ...]) -> list[str]:
    """One note per imported file, naming the rules it supplied."""
    by_file: dict[str, list[str]] = {}
    for rule, source in supplied:
        by_file.setdefault(source, []).append(rule)
    return [f"rules taken from {source}: {', '.join(rules)}" for source, rules in by_file.items()]


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
