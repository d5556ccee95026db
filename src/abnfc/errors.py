"""Diagnostics with source spans, formatted as ``file:line:col: severity: message``.

Every user-facing problem (a malformed grammar, a limit exceeded, an input that cannot be read)
becomes a :class:`Diagnostic`.  Formatting follows the compiler convention of gcc and clang: the
location, the message, the offending source line and a caret under the span.  A long line is
quoted as a window around the span, and many diagnostics of one kind are summarised
(:func:`summarize`), so that a megabyte of generated grammar cannot flood the terminal.
"""
from __future__ import annotations

import functools
import inspect
import sys
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Self

from .i18n import N_, _

QUOTED_COLUMNS = 100  # the most of a source line a diagnostic quotes
SHOWN_PER_KIND = 10  # diagnostics of one kind shown before the rest are counted


@dataclass(frozen=True)
class Source:
    """A grammar text and the name it is reported under."""

    name: str
    text: str

    @cached_property
    def lines(self) -> list[str]:
        # Only LF (and CRLF) end a line, as for the parser; splitlines() would also split on
        # form feeds and other separators and so count lines differently.  Split once: a grammar
        # with thousands of errors would otherwise split its text for each of them.
        return self.text.split("\n")

    def line_text(self, line: int) -> str:
        lines = self.lines
        return lines[line - 1].removesuffix("\r") if 0 < line <= len(lines) else ""


@dataclass(frozen=True)
class Span:
    """A 1-based, end-exclusive range of characters in a source."""

    source: Source = field(compare=False, repr=False)
    line: int
    column: int
    end_line: int
    end_column: int

    def to(self, other: Span) -> Span:
        """The span from the start of this one to the end of ``other``."""
        return Span(self.source, self.line, self.column, other.end_line, other.end_column)

    def location(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"


SEVERITIES = {"error": N_("error"), "warning": N_("warning"), "note": N_("note")}


@dataclass(frozen=True)
class Diagnostic:
    message: str
    span: Span | None = None
    severity: str = "error"
    notes: tuple[str, ...] = ()
    kind: str = ""  # what sort of problem, for summaries ("undefined rule"); "" for one-offs

    def format(self) -> str:
        where = f"{self.span.location()}: " if self.span else ""
        parts = [f"{where}{_(SEVERITIES.get(self.severity, self.severity))}: {self.message}"]
        if self.span:
            parts.extend(_caret_lines(self.span))
        parts.extend(f"  {_('note')}: {note}" for note in self.notes)
        return "\n".join(parts)


def quote_span(span: Span) -> list[str]:
    """The source line of ``span`` and a caret line under it, as diagnostics show them."""
    return _caret_lines(span)


def _caret_lines(span: Span) -> list[str]:
    text = span.source.line_text(span.line)
    if not text and span.column <= 1:
        return []
    first, last = span.column - 1, span.end_column - 1 if span.end_line == span.line else len(text)
    begin, end = _window(len(text), first)
    shown = [printable(ch) for ch in text[begin:end]]
    lead, tail = ("... " if begin else ""), (" ..." if end < len(text) else "")
    prefix = " " * len(lead) + "".join(
        _blank(ch, shown_ch) for ch, shown_ch in zip(text[begin:], shown[: first - begin], strict=False))
    prefix += " " * max(0, first - len(text))
    width = max(1, sum(_width(ch) for ch in shown[first - begin: max(first, last) - begin]))
    return ["  " + lead + "".join(shown) + tail, "  " + prefix + "^" + "~" * (width - 1)]


def _window(length: int, column: int) -> tuple[int, int]:
    """The part of a line of ``length`` characters to quote for a span starting at ``column``."""
    if length <= QUOTED_COLUMNS:
        return 0, length
    begin = min(max(0, column - QUOTED_COLUMNS // 3), max(0, length - QUOTED_COLUMNS))
    return begin, begin + QUOTED_COLUMNS


def summarize(diagnostics: Iterable[Diagnostic], shown: int = SHOWN_PER_KIND) -> list[str]:
    """Formatted diagnostics, with those beyond the first ``shown`` of each kind counted in a
    closing line per kind instead of printed."""
    lines: list[str] = []
    counts: dict[tuple[str, str], int] = {}
    names: dict[tuple[str, str], str] = {}
    for diagnostic in diagnostics:
        key = (diagnostic.severity, diagnostic.kind)
        counts[key] = counts.get(key, 0) + 1
        names[key] = diagnostic.kind
        if not diagnostic.kind or counts[key] <= shown:
            lines.append(diagnostic.format())
    for (severity, kind), count in counts.items():
        if kind and count > shown:
            plural = "s" if count - shown != 1 else ""
            lines.append(f"note: and {count - shown:,} more {severity}{plural} like these ({names[severity, kind]})")
    return lines


def _blank(ch: str, shown: str) -> str:
    """White space as wide as ``shown`` on a terminal; tabs are copied so they line up anyway."""
    return "\t" if ch == "\t" else " " * _width(shown)


def _width(shown: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in shown)


def printable(text: str) -> str:
    """``text`` with unprintable characters other than tab written as escapes (``\\x1b``).

    Grammar text and file names are echoed in diagnostics and in comments and docstrings of
    generated code, where a newline, a NUL or a terminal escape would garble the output.
    """
    return "".join(ch if ch.isprintable() or ch == "\t" else ascii(ch)[1:-1] for ch in text)


def _rebuilt(cls: type[BaseException], args: tuple, state: dict) -> BaseException:
    """An exception as it was pickled, made without calling its ``__init__``."""
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


def _takes_message(init: Callable[..., None]) -> bool:
    """Whether ``init`` can be called with one positional argument (the message)."""
    try:
        inspect.signature(init).bind(None, "")
    except TypeError:
        return False
    return True


def _from_message(cls: type, init: Callable[..., None]) -> Callable[..., None]:
    """``init``, or, called with nothing but a message it cannot take, its base class's."""
    if _takes_message(init):
        return init

    @functools.wraps(init)
    def remade(self: BaseException, *args: Any, **kwargs: Any) -> None:
        if len(args) == 1 and not kwargs and isinstance(args[0], str):
            super(cls, self).__init__(args[0])  # type: ignore[arg-type]
        else:
            init(self, *args, **kwargs)
    return remade


class PicklableError(Exception):
    """An exception that survives pickling and copying, and being made again from its message,
    whatever its ``__init__`` takes.

    Exceptions pickle as ``cls(*args)``, which fails for one whose ``__init__`` takes other
    arguments than its message (``AbnfError(diagnostics)``, ``NestingError(offset, limit)``), so
    they pickle here as their class, arguments and attributes.  Polars remakes what a batch
    function raises as ``type(error)(message)``: a subclass whose ``__init__`` takes no lone
    message is then made by its base class's from the message alone (without its other
    attributes), so that the user sees the message and can catch the error by its type."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            cls.__init__ = _from_message(cls, cls.__dict__["__init__"])  # type: ignore[method-assign]

    def __reduce__(self) -> tuple:
        return _rebuilt, (type(self), self.args, dict(self.__dict__))


class AbnfError(PicklableError):
    """One or more error diagnostics; raised by every pipeline stage."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic | str):
        if isinstance(diagnostics, str):  # a message alone, as Polars remakes an error from str(error)
            diagnostics = Diagnostic(diagnostics.removeprefix(f"{_(SEVERITIES['error'])}: "))
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = tuple(diagnostics)
        super().__init__(self.diagnostics[0].message if self.diagnostics else "")

    def __str__(self) -> str:
        return "\n".join(summarize(self.diagnostics))

    @classmethod
    def at(cls, span: Span | None, message: str, *notes: str) -> Self:
        return cls(Diagnostic(message, span, "error", tuple(notes)))


class LimitError(AbnfError):
    """A grammar is too large for a configured limit."""

    def located(self, span: Span | None) -> LimitError:
        """The same error, pointing at ``span`` where it had no location."""
        return LimitError([d if d.span else Diagnostic(d.message, span, d.severity, d.notes, d.kind)
                           for d in self.diagnostics])


class Meter:
    """Counts the steps of a computation against a limit (``--max-work``) and raises the error
    ``exceeded(spent, limit)`` makes once they pass it: the steps are what the computation's time
    and memory grow with, so the limit bounds both.  One meter per stage or search."""

    def __init__(self, limit: int, exceeded: Callable[[int, int], Exception]):
        self.limit = limit
        self.spent = 0
        self.exceeded = exceeded

    def spend(self, steps: int = 1) -> None:
        self.spent += steps
        if self.spent > self.limit:
            raise self.exceeded(self.spent, self.limit)


def limit_error(message: str) -> Callable[[int, int], LimitError]:
    """``exceeded`` for a :class:`Meter` whose error is ``message`` (with ``{limit}``)."""
    return lambda spent, limit: LimitError.at(None, _(message).format(limit=limit, spent=spent))


class InvariantError(Exception):
    """An internal invariant does not hold: a bug in abnfc, never the user's doing.

    Raised instead of ``assert``, which ``python -O`` removes.
    """

    @classmethod
    def check(cls, condition: bool, message: str) -> None:
        if not condition:
            raise cls(message)


def print_diagnostics(diagnostics: Iterable[Diagnostic]) -> None:
    """Diagnostics on standard error, those beyond the first few of each kind counted."""
    for text in summarize(diagnostics):
        print(text, file=sys.stderr)
