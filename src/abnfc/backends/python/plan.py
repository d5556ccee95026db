"""Neutral tables -> the Python plan: the tables, skip patterns for ``re`` and built-in idioms.

Skip patterns (:mod:`.skip`) let ``re`` run long stretches of input in C; for a pushdown
validator, run patterns (:mod:`.runs`) do, from one nested part's event to the next.  Short inputs, where
a call costs more than the work, are checked by ``is_valid`` two bytes a step instead: every pair
of byte classes is one of a few transition functions of pairs (as in the C backend's ``pairs``
strategy), so the Python loop runs once per two-byte word of the input, read with
``memoryview.cast("H")``; the module builds the 64 KiB word table at import from the pair
functions of class pairs written here, in the machine's byte order.  Idioms
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
from ..analysis import pair_functions
from ..tables import Tables
from .idioms import Idiom, recognise
from .reductions import ReductionPlan, reduction_plan
from .runs import LoopSkip, RunPattern, loop_skips, run_patterns
from .skip import SkipPattern, skip_patterns

IDIOM_CHOICES = ("auto", "off")
MAX_PAIR_FUNCTIONS = 256  # a function's number is a byte of the word table
MAX_PAIR_CELLS = 200_000  # states times pair functions: the rows the module builds at import
SHORT = 1024  # is_valid steps pairs up to this many bytes; longer inputs take the skip patterns


COMMENT_COLUMN = 60  # alternatives up to this long get their comments aligned after them


@dataclass(frozen=True)
class VerbosePattern:
    state: int
    lines: tuple[str, ...]  # the pattern's lines in re.VERBOSE form: an alternative and its comment


@dataclass(frozen=True)
class PairPlan:
    """Two bytes a step: the pair function of each pair of classes."""

    ids: tuple[str, ...]  # per first class, a bytes literal: the function of each second class
    count: int  # distinct functions
    short: int


@dataclass(frozen=True)
class PythonPlan:
    module: str  # the module name, also the file's stem
    tables: Tables
    skip_patterns: tuple[VerbosePattern, ...]
    idiom: Idiom | None
    pairs: PairPlan | None = None
    runs: tuple[RunPattern, ...] = ()  # a pushdown validator's flat runs (:mod:`.runs`)
    loops: tuple[LoopSkip, ...] = ()
    reductions: ReductionPlan | None = None  # a pushdown validator's fast verdict (:mod:`.reductions`)


def lower(tables: Tables, options: Mapping[str, str]) -> PythonPlan:
    wanted = options.get("idioms", "auto")
    if wanted not in IDIOM_CHOICES:
        raise AbnfError.at(None, _("unknown --python-idioms {wanted!r}; choose from {names}").format(
            wanted=wanted, names=", ".join(IDIOM_CHOICES)))
    patterns = skip_patterns(tables) if tables.pushdown is None else ()
    idiom = recognise(tables) if wanted == "auto" and tables.pushdown is None else None
    pairs = _pairs(tables) if idiom is None and tables.pushdown is None and tables.has_automaton else None
    runs, loops = (run_patterns(tables), loop_skips(tables)) if tables.pushdown is not None else ((), ())
    reductions = reduction_plan(tables) if tables.pushdown is not None else None
    return PythonPlan(options["prefix"], tables, tuple(_verbose(p) for p in patterns), idiom, pairs, runs, loops,
                      reductions)


def _pairs(tables: Tables) -> PairPlan | None:
    """The pair function of every pair of classes; None where there are too many to pay off."""
    found = pair_functions(tables, tables.num_states, MAX_PAIR_FUNCTIONS)
    if found is None or len(found.rows) * tables.num_states > MAX_PAIR_CELLS:
        return None
    return PairPlan(tuple(repr(bytes(row)) for row in found.of_classes), len(found.rows), SHORT)


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
