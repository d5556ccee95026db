"""``abnfc lint``: parse and check a grammar without compiling it, and say whether it is regular."""
from __future__ import annotations

import argparse

from ..charset import format_readable
from ..i18n import N_, _, ngettext
from .support import options

NAME = "lint"
HELP = N_("parse and check a grammar without compiling it")
EXAMPLE = "examples:\n  abnfc lint grammars/uri.abnf\n  printf 'r = \"a\" r / \"b\"\\n' | abnfc lint -"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser)


RECURSION_KINDS = (N_("right-linear"), N_("left-linear"))  # as frontend.recursion names them


def run(args: argparse.Namespace) -> int:
    from ..errors import Diagnostic, print_diagnostics

    compilation = options.compilation(args)
    resolved = compilation.resolved
    print_diagnostics(resolved.warnings)
    imports = tuple(Diagnostic(text, None, "note") for text in _import_notes(resolved.supplied))
    print_diagnostics(resolved.notes + imports)
    rules, warnings = len(compilation.grammar.ast.rules), len(resolved.warnings)
    counted = ngettext("{count} rule", "{count} rules", rules).format(count=rules)
    if resolved.supplied:
        counted += _(" (and {count} imported)").format(count=len(resolved.supplied))
    print(_("{path}: {rules}, start rule {start}, encoding {encoding}, {warnings}; {recursion}").format(
        path=compilation.grammar.path, rules=counted, start=resolved.start_name, encoding=resolved.encoding,
        warnings=ngettext("{count} warning", "{count} warnings", warnings).format(count=warnings),
        recursion=_recursion_kind(compilation)))
    return 0


def _import_notes(supplied: tuple[tuple[str, str], ...]) -> list[str]:
    """One note per imported file, naming the rules it supplied."""
    by_file: dict[str, list[str]] = {}
    for rule, source in supplied:
        by_file.setdefault(source, []).append(rule)
    return [_("rules taken from {source}: {rules}").format(source=source, rules=", ".join(rules))
            for source, rules in by_file.items()]


def _recursion_kind(compilation) -> str:
    """``regular: ...``, ``recursive, right-linear (list -> list), so regular: ...`` or
    ``recursive, self-embedding (comment -> ccontent -> comment; ...): compiles to a pushdown
    validator ...`` or ``...: needs the interpreter`` and why."""
    from ..automata.pushdown import Conflict
    from ..errors import LimitError

    resolved = compilation.resolved
    if resolved.embedding is not None:
        embedding = resolved.embedding
        kind = _("recursive, self-embedding ({path})").format(path=embedding.path)
        try:
            found = compilation.pushdown
        except LimitError as error:
            return _("{kind}: needs the interpreter ({why})").format(kind=kind, why=error.diagnostics[0].message)
        if isinstance(found, Conflict):
            return _("{kind}: needs the interpreter, because {why}").format(kind=kind, why=found.message)
        parts = [f"{format_readable(m.returns)} ({m.closes})" for m in found.machines if m.returns]
        return ngettext("{kind}: compiles to a pushdown validator ({states} state, nesting closed by {parts})",
                        "{kind}: compiles to a pushdown validator ({states} states, nesting closed by {parts})",
                        found.num_states).format(kind=kind, states=found.num_states, parts=", ".join(parts))
    if not resolved.components:
        return _("regular: compiles to a DFA")
    kinds: dict[str, list[str]] = {}
    for component in resolved.components:
        kinds.setdefault(component.kind, []).append(component.path)
    shown = _(" and ").join(f"{_(kind)} ({', '.join(paths)})" for kind, paths in sorted(kinds.items(), reverse=True))
    return _("recursive, {kinds}, so regular: compiles to a DFA").format(kinds=shown)
