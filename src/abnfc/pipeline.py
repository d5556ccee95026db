"""The pipeline: one grammar's way through the stages, each run at most once and only when asked.

    Grammar (read and parsed: frontend.source)
      --resolve-->     ResolvedGrammar (rule table, IR, recursion kinds)
      --Thompson-->    Nfa
      --subsets-->     Dfa (exact provenance: each state is a set of grammar positions)
      --Hopcroft-->    minimal Dfa
      --tables-->      neutral Tables (with the state notes as data)
      --lower-->       a backend's frozen plan  --render-->  files

A :class:`Compilation` is the lazily evaluated, memoising chain of these stages (as a build
system's targets are: asked for the files, it runs what they need and nothing twice), shared by
the command line, ``abnfc check``, the tools and the public API.  Every stage returns frozen
data; a failure in any stage raises before anything is rendered, so nothing is written.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Literal

from . import backends, i18n
from .automata.dfa import DEFAULT_MAX_DFA_STATES, DEFAULT_MAX_WORK, Dfa, determinize
from .automata.minimize import minimize
from .automata.nfa import DEFAULT_MAX_NFA_STATES, Nfa
from .automata.nfa import build as build_nfa
from .automata.notes import StateNote, note_text, state_notes
from .automata.pushdown import Conflict, Pushdown
from .automata.pushdown import Limits as PushdownLimits
from .automata.pushdown import build as build_pushdown
from .backends.facts import GrammarFacts
from .backends.naming import default_prefix
from .backends.tables import Header, Tables, grammar_only, make_pushdown_tables, make_tables
from .errors import InvariantError, LimitError
from .frontend.resolve import ResolvedGrammar, resolve
from .frontend.source import Grammar
from .grammar_facts import exact_run, grammar_facts, pushdown_facts

Automaton = Literal["minimal", "subset"]  # the minimal DFA, or the DFA from subset construction


@dataclass(frozen=True)
class Limits:
    """How far the automaton stages and the interpreter may go (each has a command-line option)."""

    max_nfa_states: int = DEFAULT_MAX_NFA_STATES
    max_dfa_states: int = DEFAULT_MAX_DFA_STATES
    max_work: int = DEFAULT_MAX_WORK


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Compiled:
    """A regular grammar's automata, as the public API returns them."""

    resolved: ResolvedGrammar
    nfa: Nfa
    dfa: Dfa  # before minimization
    minimal: Dfa


class Compilation:
    """The stages of one grammar from one start rule, each computed on first use and kept."""

    def __init__(self, grammar: Grammar, start: str | None = None, limits: Limits = DEFAULT_LIMITS,
                 prose: bool = False):
        """``prose``: prose values no import defines are drawn, not refused (see ``resolve``)."""
        self.grammar = grammar
        self.start = start
        self.limits = limits
        self.prose = prose
        self._notes: dict[Automaton, tuple[StateNote, ...]] = {}
        self._tables: dict[str, Tables] = {}
        self._facts: dict[tuple[str, str], GrammarFacts] = {}
        self._files: dict[tuple[str, tuple[tuple[str, str], ...], Header, Automaton], dict[str, str]] = {}

    @cached_property
    def resolved(self) -> ResolvedGrammar:
        """The rule table and IR from the start rule, with the imports and encoding."""
        return resolve(self.grammar.ast, self.start, imports=[g.ast for g in self.grammar.imports],
                       encoding=self.grammar.encoding, prose=self.prose)

    @cached_property
    def nfa(self) -> Nfa:
        return build_nfa(self.resolved, self.limits.max_nfa_states)

    @cached_property
    def dfa(self) -> Dfa:
        """The DFA from subset construction, whose states are sets of grammar positions."""
        with self._located():
            return determinize(self.nfa, self.limits.max_dfa_states, self.limits.max_work)

    @cached_property
    def minimal(self) -> Dfa:
        with self._located():
            return minimize(self.dfa, self.limits.max_work)

    @property
    def compiled(self) -> Compiled:
        return Compiled(self.resolved, self.nfa, self.dfa, self.minimal)

    def automaton(self, which: Automaton = "minimal") -> Dfa:
        return self.minimal if which == "minimal" else self.dfa

    def notes(self, which: Automaton = "minimal") -> tuple[StateNote, ...]:
        """What each state stands for in grammar terms, as data, from the exact provenance of the
        subset DFA; every backend and locale renders these."""
        if which not in self._notes:
            self._notes[which] = state_notes(self.automaton(which), self.dfa)
        return self._notes[which]

    def note_texts(self, which: Automaton = "minimal") -> tuple[str, ...]:
        """The notes in English, as ``abnfc dfa`` and generated comments show them."""
        return tuple(note_text(note) for note in self.notes(which))

    @cached_property
    def pushdown(self) -> Pushdown | Conflict:
        """A self-embedding grammar's pushdown validator (its machines minimal), or the conflict
        that prevents one."""
        return self._build_pushdown(minimal=True)

    @cached_property
    def pushdown_subset(self) -> Pushdown | Conflict:
        """The same with each machine's DFA from the subset construction (exact provenance)."""
        return self._build_pushdown(minimal=False)

    def _build_pushdown(self, minimal: bool) -> Pushdown | Conflict:
        limits = PushdownLimits(self.limits.max_nfa_states, self.limits.max_dfa_states, self.limits.max_work)
        with self._located():
            return build_pushdown(self.resolved, limits, minimal)

    def pushdown_automaton(self, which: Automaton = "minimal") -> Pushdown:
        """The pushdown validator; raises the conflict's error when there is none."""
        found = self.pushdown if which == "minimal" else self.pushdown_subset
        if isinstance(found, Conflict):
            raise found.error()
        return found

    def tables(self, which: Automaton = "minimal") -> Tables:
        """The neutral tables of the minimal DFA (or the subset DFA), with its notes; their header
        names no command (each backend's files get theirs, see :meth:`files`).  A self-embedding
        grammar's are those of its pushdown validator."""
        if not self.resolved.is_regular:
            key = f"pushdown {which}"
            if key not in self._tables:
                self._tables[key] = make_pushdown_tables(self.pushdown_automaton(which), self.header(""))
            return self._tables[key]
        if which not in self._tables:
            self._tables[which] = make_tables(self.automaton(which), self.header(""), self.notes(which))
        return self._tables[which]

    def facts(self, locale: str, picture: str) -> GrammarFacts:
        """What a teaching backend needs about the grammar, in ``locale``."""
        key = (locale, picture)
        if key not in self._facts:
            regular = self.resolved.is_regular
            facts = grammar_facts(self.grammar.ast, self.grammar.text, self.resolved,
                                  self.minimal if regular else None, self.notes() if regular else (), locale, picture)
            self._facts[key] = replace(facts, exact=exact_run(self.dfa)) if regular else facts
        return self._facts[key]

    def header(self, command: str, folder: str | None = None) -> Header:
        """What generated files say of their origin; with ``folder``, the grammar files' paths
        are given relative to it (the folder the files are written to), so that the header does
        not depend on where abnfc ran."""
        grammar, resolved = self.grammar, self.resolved
        return Header(_relative(grammar.path, folder), grammar.text, grammar.sha256, resolved.start_name, command,
                      encoding=resolved.encoding,
                      imports=tuple((_relative(g.path, folder), g.sha256) for g in grammar.imports))

    def files(self, languages: Sequence[str], prefix: str | None, command: str | Callable[[str], str],
              options: Mapping[str, Mapping[str, str]] | None = None, which: Automaton = "minimal",
              folder: str | None = None) -> dict[str, str]:
        """File name -> content for every language in ``languages``, from the minimal DFA (or
        the subset DFA).  ``command`` is what the files' headers say regenerates them (or, given
        a language, what regenerates that language's files).  ``options`` holds each backend's
        options by language; ``folder`` is where the files go (their headers give paths relative
        to it).  A recursive grammar has no automaton: only backends that need none accept it."""
        name = prefix or default_prefix(self.grammar.path)
        files: dict[str, str] = {}
        for language in languages:
            backend = backends.get(language)
            header = self.header(command(language) if callable(command) else command, folder)
            chosen = {**backend.defaults(), "prefix": name, **(options or {}).get(language, {})}
            key = (language, tuple(sorted(chosen.items())), header, which)
            if key not in self._files:
                self._files[key] = backend.generate(self._tables_for(backend, header, which, chosen), chosen)
            files.update(self._files[key])
        return files

    def _tables_for(self, backend: backends.Backend, header: Header, which: Automaton,
                    options: Mapping[str, str]) -> Tables:
        regular = self.resolved.is_regular
        if not regular and backend.needs_automaton and not backend.pushdown:
            self.dfa  # noqa: B018 -- raises the error that says why this grammar has no DFA
            raise InvariantError("a recursive grammar was compiled to a DFA")
        # a backend that needs no automaton but takes a pushdown validator gets one where it exists
        pushdown = not regular and backend.pushdown and isinstance(self.pushdown, Pushdown)
        wanted = regular or backend.needs_automaton or pushdown
        tables = replace(self.tables(which), header=header) if wanted else None
        if not backend.wants_facts:
            if tables is None:
                raise InvariantError(f"--lang {backend.name} needs an automaton, and none was compiled")
            return tables
        locale = options["locale"]
        facts = self.facts(locale, options["picture"])
        if pushdown and tables is not None:
            subset = self.pushdown_automaton("subset")
            facts = replace(pushdown_facts(facts, tables.notes), exact=exact_run(subset.dfa, subset))
        elif not regular and backend.pushdown and isinstance(self.pushdown, Conflict):
            facts = replace(facts, conflict=self._conflict_message(locale))
        return replace(tables, facts=facts) if tables is not None else grammar_only(header, facts)

    def _conflict_message(self, locale: str) -> str:
        """Why the grammar gets no pushdown validator, in ``locale`` (a generated file's language,
        never the environment's): the conflict found again with that locale's messages."""
        with i18n.speaking(locale):
            found = self._build_pushdown(minimal=True)
        return found.message if isinstance(found, Conflict) else ""

    @contextlib.contextmanager
    def _located(self) -> Iterator[None]:
        """Say which grammar and start rule an automaton limit was hit for."""
        try:
            yield
        except LimitError as error:
            raise error.located(self.resolved.rule(self.resolved.start).span) from None


def _relative(path: str, folder: str | None) -> str:
    """``path`` (a grammar file, or ``<stdin>``) relative to ``folder``, in POSIX form."""
    if folder is None or path.startswith("<"):
        return path
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(folder))).as_posix()


def load_validators(file_sets: Sequence[Mapping[str, str]], language: str) -> list[backends.Validator]:
    """Run rendered files of one language: the backend builds and loads them in a temporary
    folder, which is gone once they are loaded."""
    with tempfile.TemporaryDirectory(prefix="abnfc-") as folder:
        return list(backends.get(language).runners(file_sets, Path(folder)))


def resolve_grammar(grammar: Grammar, start: str | None = None) -> ResolvedGrammar:
    """The resolved grammar alone (for scripts and tests that need no other stage)."""
    return Compilation(grammar, start).resolved
