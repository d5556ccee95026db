"""The Python API: the pipeline as four calls, for scripts, tests and benchmarks.

    grammar = abnfc.load_grammar("grammars/utf8.abnf")      # or load_grammar(text="r = ...")
    compiled = abnfc.compile_grammar(grammar)                # .resolved .nfa .dfa .minimal
    utf8 = abnfc.load_validator(grammar, lang="c")           # python, c or js
    utf8.is_valid(b"\\xc3\\xa4"), utf8.first_error(b"\\xc0\\x80"), utf8.Validator()
    abnfc.recognize("grammars/email.abnf", b"a@b.c")          # the interpreter: any grammar
    iri = abnfc.load_grammar("grammars/iri.abnf", imports=["grammars/uri.abnf"])  # rules from uri.abnf

Wherever a grammar is expected, a path (``str`` or :class:`os.PathLike`) to an ``.abnf`` file
or a :class:`Grammar` from :func:`load_grammar` will do.  Errors in the grammar raise
:class:`AbnfError`, whose ``diagnostics`` carry file, line and column.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from . import backends
from .errors import AbnfError
from .frontend.source import Grammar, from_text, load, with_options
from .i18n import _
from .interpret import Verdict
from .interpret import recognize as _recognize
from .pipeline import DEFAULT_LIMITS, Compilation, Compiled, Limits, load_validators

GrammarLike = str | os.PathLike | Grammar


def load_grammar(path: str | os.PathLike | None = None, *, text: str | None = None,
                 name: str = "<grammar>", imports: Sequence[GrammarLike] = (),
                 encoding: str | None = None) -> Grammar:
    """Parse a grammar file, or grammar ``text`` reported under ``name``.  ``imports`` (paths or
    grammars) supply the rules it lacks, searched in order; ``encoding`` ("octets" or "utf-8")
    says what its terminal values mean (default: utf-8 when a value the start rule reaches is
    above %xFF, else octets)."""
    if (path is None) == (text is None):
        raise TypeError("give either a path or text=")
    loaded = load(os.fspath(path)) if path is not None else from_text(text or "", name)
    return with_options(loaded, [_grammar(g) for g in imports], encoding)


def _grammar(grammar: GrammarLike) -> Grammar:
    return grammar if isinstance(grammar, Grammar) else load_grammar(grammar)


def compile_grammar(grammar: GrammarLike, start: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Compiled:
    """Resolve and compile to a DFA and the minimal DFA; recursive grammars raise AbnfError."""
    return Compilation(_grammar(grammar), start, limits).compiled


def generate_files(grammar: GrammarLike, lang: str = "python", *, start: str | None = None,
                   prefix: str | None = None, options: Mapping[str, str] | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> dict[str, str]:
    """The files ``abnfc compile`` would write for one language: file name -> text."""
    compilation = Compilation(_grammar(grammar), start, limits)
    return compilation.files([lang], prefix, "abnfc (Python API)", options={lang: dict(options or {})})


def load_validator(grammar: GrammarLike, lang: str = "python", *, start: str | None = None,
                   options: Mapping[str, str] | None = None, limits: Limits = DEFAULT_LIMITS
                   ) -> backends.Validator:
    """Generate a validator in ``lang`` and load it: ``is_valid``, ``first_error``,
    ``expected_bytes`` and the incremental ``Validator()``, as in the generated Python module."""
    files = generate_files(grammar, lang, start=start, prefix="validator", options=options, limits=limits)
    if lang == "c":
        _need_compiler()
    return load_validators([files], lang)[0]


def _need_compiler() -> None:
    """An AbnfError naming the Python validator when no C compiler is found."""
    from .backends.c.runner import compiler

    try:
        compiler()
    except AbnfError:
        raise AbnfError.at(None, _("no C compiler found (looked for $CC, cc, gcc and clang), so the C validator "
                                   "(and its validate_arrow) cannot be built; abnfc.load_validator(grammar, "
                                   "lang='python') needs none, and its first_error checks one value at a "
                                   "time")) from None


def recognize(grammar: GrammarLike, data, start: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Verdict:
    """Match all of ``data`` against the grammar with the interpreter (any grammar).  Raises a
    LimitError once it takes more than ``limits.max_work`` steps beyond 100 a byte."""
    return _recognize(Compilation(_grammar(grammar), start, limits).resolved, data, max_work=limits.max_work)


__all__ = [
    "AbnfError",
    "Compiled",
    "Grammar",
    "Limits",
    "Verdict",
    "compile_grammar",
    "generate_files",
    "load_grammar",
    "load_validator",
    "recognize",
]
