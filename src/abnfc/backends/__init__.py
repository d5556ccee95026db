"""Backends: neutral tables -> a target language's frozen plan -> files -> a runnable validator.

Every backend follows the split of CPython's pegen: ``lower`` turns the neutral tables
(:mod:`.tables`, which hold no target-language syntax) into the backend's own frozen plan, where
every decision is made; ``render`` formats the plan through jinja2 templates that hold none;
``runners`` load rendered files so that tests and ``abnfc check`` run exactly what users get.
A failed lowering raises before anything is rendered, so nothing is written.

Adding a backend means adding a package here that defines ``BACKEND`` and one line in
``_REGISTRY``.  Backend options (``BackendOption``) become command-line flags named
``--<backend>-<option>``.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .tables import Header, Tables, grammar_only, make_tables

# name -> module defining BACKEND; the order is the default order of ``--lang``.
_REGISTRY = {
    "python": "abnfc.backends.python",
    "c": "abnfc.backends.c",
    "js": "abnfc.backends.js",
    "html": "abnfc.backends.html",
}
DEFAULT_LANGUAGES = ("python", "c", "js", "html")  # what ``abnfc compile`` writes without --lang


@dataclass(frozen=True)
class BackendOption:
    """A choice a backend offers, such as the C backend's ``strategy``."""

    name: str
    choices: tuple[str, ...]
    default: str
    help: str
    aliases: tuple[str, ...] = ()  # further command-line flags, such as --locale


class Validator(Protocol):
    """A loaded validator: the interface of the generated Python module, in any language."""

    def is_valid(self, data: Any) -> bool: ...
    def first_error(self, data: Any) -> int | None: ...
    def expected_bytes(self, state: int) -> list[tuple[int, int]]: ...

    # ``Validator()``: an incremental validator with feed(chunk) -> bool, complete,
    # first_error(), expected(), state and offset, as in the generated Python module.
    Validator: Callable[[], Any]


@dataclass(frozen=True)
class Backend:
    name: str
    summary: str  # one line for --help
    lower: Callable[[Tables, Mapping[str, str]], Any]  # tables, options -> frozen plan
    render: Callable[[Any], dict[str, str]]  # plan -> file name -> text
    # Rendered files of several grammars (each with its own prefix) -> one validator per grammar,
    # built in ``folder``.  Loading several at once lets a backend build them in one go.
    runners: Callable[[Sequence[Mapping[str, str]], Path], list[Any]]  # each a Validator
    options: tuple[BackendOption, ...] = field(default=())
    # A backend that teaches the grammar is given ``Tables.facts`` (built with its options
    # ``locale`` and ``picture``) and, when it needs no automaton, recursive grammars too.
    wants_facts: bool = False
    needs_automaton: bool = True

    def defaults(self) -> dict[str, str]:
        return {option.name: option.default for option in self.options}

    def generate(self, tables: Tables, options: Mapping[str, str] | None = None) -> dict[str, str]:
        """Lower and render: file name -> text."""
        return self.render(self.lower(tables, {**self.defaults(), **(options or {})}))


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def get(name: str) -> Backend:
    """The backend called ``name``; KeyError when there is none."""
    module = importlib.import_module(_REGISTRY[name])
    backend: Backend = module.BACKEND
    return backend


def first_errors(validator: Validator, inputs: Sequence[bytes]) -> list[int | None]:
    """``first_error`` of each input, in one round trip where the backend supports it."""
    batch = getattr(validator, "first_errors", None)
    if batch is not None:
        return list(batch(inputs))
    return [validator.first_error(data) for data in inputs]


__all__ = [
    "DEFAULT_LANGUAGES",
    "Backend",
    "BackendOption",
    "Header",
    "Tables",
    "Validator",
    "first_errors",
    "get",
    "grammar_only",
    "make_tables",
    "names",
]
