"""Backends: neutral tables -> a target language's frozen plan -> files -> a runnable validator.

Every backend follows the split of CPython's pegen: ``lower`` turns the neutral tables
(:mod:`.tables`, which hold no target-language syntax) into the backend's own frozen plan, where
every decision is made; ``render`` formats the plan through jinja2 templates that hold none;
``runners`` load rendered files so that tests and ``abnfc check`` run exactly what users get.
A failed lowering raises before anything is rendered, so nothing is written.

A backend is one package that defines ``BACKEND``, a :class:`Backend` declaring everything
about it: its name, options, naming rules (:class:`Naming`: the files it writes for a prefix
and the prefixes it cannot take), what it needs (an automaton, the grammar's facts) and its
three functions.  The built-in ones are listed in ``_BUILT_IN``; others are found through the
entry-point group ``abnfc.backends`` (``name = "package.module:BACKEND"``), so a third party can
ship a backend as a package of its own.  A built-in name always wins over an entry point's, and
an entry point that cannot be loaded is reported (naming its distribution) when its backend is
asked for, never breaking the others.  Backend options (:class:`BackendOption`) become
command-line flags named ``--<backend>-<option>``.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ..errors import AbnfError
from ..i18n import _
from .tables import Header, Tables, grammar_only, make_tables

ENTRY_POINTS = "abnfc.backends"
# name -> module defining BACKEND; the order is the default order of ``--lang``.
_BUILT_IN = {
    "python": "abnfc.backends.python",
    "c": "abnfc.backends.c",
    "js": "abnfc.backends.js",
    "rust": "abnfc.backends.rust",
    "go": "abnfc.backends.go",
    "html": "abnfc.backends.html",
}
DEFAULT_LANGUAGES = ("python", "c", "js", "html")  # what ``abnfc compile`` writes without --lang

PlanT = TypeVar("PlanT")


@dataclass(frozen=True)
class BackendOption:
    """A choice a backend offers, such as the C backend's ``strategy``."""

    name: str
    choices: tuple[str, ...]
    default: str
    help: str
    aliases: tuple[str, ...] = ()  # further command-line flags, such as --locale


@dataclass(frozen=True)
class Reserved:
    """Names a backend's output cannot take as prefix, and why (``it is a C or C++ keyword``)."""

    words: frozenset[str]
    reason: str
    ignore_case: bool = False

    def problem(self, prefix: str) -> str | None:
        return self.reason if (prefix.lower() if self.ignore_case else prefix) in self.words else None


@dataclass(frozen=True)
class Naming:
    """How a backend names what it writes after ``--prefix``: its files, and the prefixes it
    cannot take (reserved words, and rules beyond words in ``check``)."""

    file_names: Callable[[str], tuple[str, ...]]
    reserved: tuple[Reserved, ...] = ()
    check: Callable[[str], str | None] | None = None

    def problem(self, prefix: str) -> str | None:
        for words in self.reserved:
            found = words.problem(prefix)
            if found:
                return found
        return self.check(prefix) if self.check is not None else None


class Validator(Protocol):
    """A loaded validator: the interface of the generated Python module, in any language.

    Every backend's runner returns objects with all of it.  ``first_errors`` and ``validate_arrow``
    have default implementations here, which a runner's class gets by naming :class:`Validator`
    as its base (the Python backend's module gets them as functions): a value at a time through
    ``first_error``, and one ``first_errors`` call for a whole Arrow array.  A backend with a
    faster way (one round trip to its process, the C batch kernel) defines its own."""

    def is_valid(self, data: Any) -> bool:
        """Whether all of ``data`` (bytes) matches the grammar."""
        ...

    def first_error(self, data: Any) -> int | None:
        """The offset of the first byte of ``data`` that no match can go on from (``len(data)``
        when the input ends too early), or None when it matches."""
        ...

    def expected_bytes(self, state: int) -> list[tuple[int, int]]:
        """The byte ranges that can follow in ``state`` (of the incremental validator)."""
        ...

    def first_errors(self, inputs: Sequence[bytes]) -> list[int | None]:
        """``first_error`` of each input, in order."""
        return [self.first_error(data) for data in inputs]

    def validate_arrow(self, values: Any) -> Any:
        """Whether each element of a pyarrow string, large_string, binary, large_binary, string_view
        or binary_view array (or chunked array) matches, as a pyarrow BooleanArray (or chunked
        array) in which nulls stay null.  Needs pyarrow (ImportError without it); an array of
        another type raises AbnfError."""
        import pyarrow as pa

        from .arrow_input import as_bytes

        if hasattr(values, "chunks"):
            return pa.chunked_array([self.validate_arrow(chunk) for chunk in values.chunks], type=pa.bool_())
        items = as_bytes(values).to_pylist()  # its offsets checked; AbnfError for a type that holds no strings
        present = [item for item in items if item is not None]
        verdicts = iter(self.first_errors(present))
        return pa.array([None if item is None else next(verdicts) is None for item in items], type=pa.bool_())

    def Validator(self) -> Any:
        """An incremental validator with feed(chunk) -> bool, complete, first_error(),
        expected(), state and offset, as in the generated Python module."""


Runners = Callable[[Sequence[Mapping[str, str]], Path], Sequence[Validator]]


@dataclass(frozen=True)
class Backend(Generic[PlanT]):
    name: str
    summary: str  # one line for --help
    lower: Callable[[Tables, Mapping[str, str]], PlanT]  # tables, options -> frozen plan
    render: Callable[[PlanT], dict[str, str]]  # plan -> file name -> text
    # Rendered files of several grammars (each with its own prefix) -> one validator per grammar,
    # built in ``folder``.  Loading several at once lets a backend build them in one go.
    runners: Runners
    naming: Naming
    options: tuple[BackendOption, ...] = field(default=())
    # A backend that teaches the grammar is given ``Tables.facts`` (built with its options
    # ``locale`` and ``picture``) and, when it needs no automaton, recursive grammars too.
    wants_facts: bool = False
    needs_automaton: bool = True
    # Whether ``lower`` takes the tables of a pushdown validator (``Tables.pushdown``), for
    # self-embedding grammars; a backend without it is refused those grammars.
    pushdown: bool = False

    def defaults(self) -> dict[str, str]:
        return {option.name: option.default for option in self.options}

    def generate(self, tables: Tables, options: Mapping[str, str] | None = None) -> dict[str, str]:
        """Lower and render: file name -> text."""
        return self.render(self.lower(tables, {**self.defaults(), **(options or {})}))


def names() -> tuple[str, ...]:
    """Every backend's name: the built-in ones in ``--lang`` order, then the entry points'."""
    return (*_BUILT_IN, *(name for name in _entry_points() if name not in _BUILT_IN))


def get(name: str) -> Backend[Any]:
    """The backend called ``name``; AbnfError when there is none, or when its entry point cannot
    be loaded or does not hold a backend of that name."""
    if name in _BUILT_IN:
        backend: Backend[Any] = importlib.import_module(_BUILT_IN[name]).BACKEND
        return backend
    if name not in _entry_points():
        raise AbnfError.at(None, _("there is no backend {name!r}; the backends are {names}").format(
            name=name, names=", ".join(names())))
    return _plugin(name)


def loadable() -> tuple[str, ...]:
    """The names of the backends that load (for the command line's choices)."""
    found = []
    for name in names():
        try:
            get(name)
        except AbnfError:
            continue
        found.append(name)
    return tuple(found)


@cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {point.name: point for point in metadata.entry_points(group=ENTRY_POINTS)}


@cache
def _plugin(name: str) -> Backend[Any]:
    point = _entry_points()[name]
    where = _("the backend {name!r} of {package} (entry point {point})").format(
        name=name, package=_distribution(point), point=point.value)
    try:
        backend = point.load()
    except Exception as error:  # whatever a third party's import raises is reported, not a crash
        raise AbnfError.at(None, _("cannot load {backend}: {kind}: {error}").format(
            backend=where, kind=type(error).__name__, error=error)) from None
    if not isinstance(backend, Backend) or backend.name != name:
        raise AbnfError.at(None, _("{backend} is not an abnfc Backend named {name!r}").format(backend=where, name=name))
    return backend


def _distribution(point: metadata.EntryPoint) -> str:
    dist = point.dist
    return (_("the package {name} {version}").format(name=dist.name, version=dist.version) if dist is not None
            else _("an unknown package"))


def first_errors(validator: Validator, inputs: Sequence[bytes]) -> list[int | None]:
    """``first_error`` of each input, in one round trip where the backend supports it."""
    batch = getattr(validator, "first_errors", None)
    if batch is not None:
        return list(batch(inputs))
    return [validator.first_error(data) for data in inputs]


__all__ = [
    "DEFAULT_LANGUAGES",
    "ENTRY_POINTS",
    "Backend",
    "BackendOption",
    "Header",
    "Naming",
    "Reserved",
    "Tables",
    "Validator",
    "first_errors",
    "get",
    "grammar_only",
    "loadable",
    "make_tables",
    "names",
]
