"""Neutral tables -> the Python plan: the tables, skip patterns for ``re`` and built-in idioms.

Skip patterns (:mod:`.skip`) let ``re`` run long stretches of input in C.  Idioms
(:mod:`.idioms`) go further where the compiler proves the grammar's language equal to one a
built-in decides: ``is_valid`` and ``first_error`` call the built-in, and the DFA still gives the
offset of an error, ``expected()`` and the incremental ``Validator``.  The ``idioms`` option turns
them off (``--python-idioms off``), for a module that checks everything with its own automaton.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...errors import AbnfError
from ...i18n import _
from ..tables import Tables
from .idioms import Idiom, recognise
from .skip import SkipPattern, skip_patterns

IDIOM_CHOICES = ("auto", "off")


COMMENT_COLUMN = 60  # alternatives up to this long get their comments aligned after them


@dataclass(frozen=True)
class VerbosePattern:
    state: int
    lines: tuple[str, ...]  # the pattern's lines in re.VERBOSE form: an alternative and its comment


@dataclass(frozen=True)
class PythonPlan:
    module: str  # the module name, also the file's stem
    tables: Tables
    skip_patterns: tuple[VerbosePattern, ...]
    idiom: Idiom | None


def lower(tables: Tables, options: Mapping[str, str]) -> PythonPlan:
    wanted = options.get("idioms", "auto")
    if wanted not in IDIOM_CHOICES:
        raise AbnfError.at(None, _("unknown --python-idioms {wanted!r}; choose from {names}").format(
            wanted=wanted, names=", ".join(IDIOM_CHOICES)))
    patterns = skip_patterns(tables) if tables.pushdown is None else ()
    idiom = recognise(tables) if wanted == "auto" and tables.pushdown is None else None
    return PythonPlan(options["prefix"], tables, tuple(_verbose(p) for p in patterns), idiom)


def _verbose(pattern: SkipPattern) -> VerbosePattern:
    """One alternative a line, ``|`` first, and the comments in a column where they fit."""
    width = max((len(a.text) for a in pattern.alternatives if len(a.text) <= COMMENT_COLUMN), default=0)
    lines = []
    for index, alternative in enumerate(pattern.alternatives):
        text = ("  " if index == 0 else "| ") + alternative.text
        if alternative.comment:
            text = f"{text:<{width + 4}}# {alternative.comment}"
        lines.append(text)
    return VerbosePattern(pattern.state, tuple(lines))
