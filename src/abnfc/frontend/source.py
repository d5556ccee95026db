"""Grammar sources: reading a grammar file (or standard input, or text) and decoding it.

A file is read up to :data:`MAX_GRAMMAR_BYTES`, decoded as UTF-8 (a BOM is ignored; UTF-16 and
undecodable bytes are located errors) and parsed (:mod:`.parse`).  The result, a
:class:`Grammar`, carries the grammars it imports and the encoding asked for, so every later
stage (and the header of generated files) sees the same choices.
"""
from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from ..errors import AbnfError, Source, Span
from ..i18n import _
from . import ast
from .encoding import ENCODINGS
from .parse import parse

MAX_GRAMMAR_BYTES = 16 << 20  # a grammar file larger than this is surely not a grammar


@dataclass(frozen=True)
class Grammar:
    """A parsed grammar file (or text) and the facts generated files record about it."""

    path: str  # as reported in messages and headers
    text: str
    sha256: str
    ast: ast.Grammar = field(repr=False)
    imports: tuple[Grammar, ...] = ()  # grammars that supply the rules it lacks, searched in order
    encoding: str | None = None  # "octets" or "utf-8"; None: chosen from the grammar


def load(path: str, imports: Sequence[str] = (), encoding: str | None = None) -> Grammar:
    """Read and parse a grammar file (UTF-8; a BOM is ignored); ``-`` reads standard input.
    ``imports`` are grammar files that supply the rules it lacks; ``encoding`` is what its
    terminal values mean (default: chosen from the grammar)."""
    return with_options(_load(path), [_load(name) for name in imports], encoding)


def with_options(grammar: Grammar, imports: Sequence[Grammar] = (), encoding: str | None = None) -> Grammar:
    """``grammar`` with imported grammars and an encoding."""
    if encoding is not None and encoding not in ENCODINGS:
        raise AbnfError.at(None, _("unknown encoding {encoding!r}; choose from {names}").format(
            encoding=encoding, names=", ".join(ENCODINGS)))
    return replace(grammar, imports=tuple(imports), encoding=encoding)


def from_text(text: str, name: str = "<grammar>") -> Grammar:
    """A grammar given as text; ``name`` is used in messages and headers."""
    return Grammar(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest(), parse(text, name))


def _load(path: str) -> Grammar:
    if path == "-":
        shown, raw = "<stdin>", _read_limited(sys.stdin.buffer if sys.stdin else None, "<stdin>")
    else:
        shown = display_path(path)
        try:
            with open(path, "rb") as stream:
                raw = _read_limited(stream, shown)
        except OSError as error:
            raise AbnfError.at(None, _("cannot read grammar file {path}: {reason}").format(
                path=shown, reason=error.strerror)) from None
    return from_bytes(raw, shown)


def from_bytes(raw: bytes, shown: str) -> Grammar:
    """A grammar file's bytes, read already (``shown``: its name in messages and headers),
    decoded and parsed as :func:`load` does: the caller compiles exactly the bytes it read."""
    text = _decode(raw, shown)
    return Grammar(shown, text, hashlib.sha256(raw).hexdigest(), parse(text, shown))


def _read_limited(stream: BinaryIO | None, shown: str) -> bytes:
    if stream is None:
        raise AbnfError.at(None, _("cannot read {path}: it is closed").format(path=shown))
    try:
        raw = stream.read(MAX_GRAMMAR_BYTES + 1)
    except (OSError, ValueError) as error:
        raise AbnfError.at(None, _("cannot read {path}: {reason}").format(
            path=shown, reason=getattr(error, "strerror", None) or error)) from None
    if len(raw) > MAX_GRAMMAR_BYTES:
        raise AbnfError.at(None, _("{path} is larger than {size} MiB; that is not a grammar abnfc reads").format(
            path=shown, size=MAX_GRAMMAR_BYTES >> 20))
    return raw


def _decode(raw: bytes, shown: str) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(raw) >= 2 and raw.count(0) * 3 > len(raw)):
        raise AbnfError.at(None, _("{path} looks like UTF-16 (or another encoding with NUL bytes); "
                                   "save the grammar as UTF-8").format(path=shown))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        source = Source(shown, raw.decode("utf-8", "replace"))
        raise AbnfError.at(Span(source, line, column, line, column + 1),
                           _("the grammar file is not UTF-8 (byte 0x{byte:02X})").format(
                               byte=raw[error.start])) from None


def display_path(path: str) -> str:
    """A relative POSIX path when the file is under the current folder, so headers are stable."""
    relative = os.path.relpath(os.path.abspath(path))
    return Path(path if relative.startswith("..") else relative).as_posix()
