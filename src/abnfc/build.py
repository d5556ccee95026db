"""The driver: load -> parse -> resolve -> NFA -> DFA -> minimize -> tables -> backends -> write.

A loaded grammar carries the grammars it imports and the encoding asked for, so every stage
(and the header of generated files) sees the same choices.

Each stage is one call returning frozen data.  Files are written atomically (temporary file in
the target folder, then rename) and only when their content changed; check mode writes nothing
and reports what is stale.  Every backend renders before anything is written, so a failure in
any stage writes nothing.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import keyword
import os
import re
import signal
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import backends
from .automata import dfa, minimize, nfa
from .automata.dfa import Dfa
from .automata.nfa import Nfa
from .errors import AbnfError, LimitError, Source, Span
from .frontend import ast
from .frontend.encoding import ENCODINGS
from .frontend.parse import parse
from .frontend.resolve import ResolvedGrammar, resolve

MAX_GRAMMAR_BYTES = 16 << 20  # a grammar file larger than this is surely not a grammar


@dataclass(frozen=True)
class Limits:
    max_nfa_states: int = nfa.DEFAULT_MAX_NFA_STATES
    max_dfa_states: int = dfa.DEFAULT_MAX_DFA_STATES
    max_work: int = dfa.DEFAULT_MAX_WORK


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Grammar:
    """A parsed grammar file (or text) and the facts generated files record about it."""

    path: str  # as reported in messages and headers
    text: str
    sha256: str
    ast: ast.Grammar = field(repr=False)
    imports: tuple[Grammar, ...] = ()  # grammars that supply the rules it lacks, searched in order
    encoding: str | None = None  # "octets" or "utf-8"; None: chosen from the grammar


@dataclass(frozen=True)
class Compiled:
    resolved: ResolvedGrammar
    nfa: Nfa
    dfa: Dfa  # before minimization
    minimal: Dfa


def load(path: str, imports: Sequence[str] = (), encoding: str | None = None) -> Grammar:
    """Read and parse a grammar file (UTF-8; a BOM is ignored); ``-`` reads standard input.
    ``imports`` are grammar files that supply the rules it lacks; ``encoding`` is what its
    terminal values mean (default: chosen from the grammar)."""
    return with_options(_load(path), [_load(name) for name in imports], encoding)


def with_options(grammar: Grammar, imports: Sequence[Grammar] = (), encoding: str | None = None) -> Grammar:
    """``grammar`` with imported grammars and an encoding."""
    if encoding is not None and encoding not in ENCODINGS:
        raise AbnfError.at(None, f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
    return replace(grammar, imports=tuple(imports), encoding=encoding)


def _load(path: str) -> Grammar:
    if path == "-":
        shown, raw = "<stdin>", _read_limited(sys.stdin.buffer if sys.stdin else None, "<stdin>")
    else:
        shown = display_path(path)
        try:
            with open(path, "rb") as stream:
                raw = _read_limited(stream, shown)
        except OSError as error:
            raise AbnfError.at(None, f"cannot read grammar file {shown}: {error.strerror}") from None
    text = _decode(raw, shown)
    return Grammar(shown, text, hashlib.sha256(raw).hexdigest(), parse(text, shown))


def from_text(text: str, name: str = "<grammar>") -> Grammar:
    """A grammar given as text; ``name`` is used in messages and headers."""
    return Grammar(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest(), parse(text, name))


def _read_limited(stream, shown: str) -> bytes:
    if stream is None:
        raise AbnfError.at(None, f"cannot read {shown}: it is closed")
    try:
        raw = stream.read(MAX_GRAMMAR_BYTES + 1)
    except (OSError, ValueError) as error:
        raise AbnfError.at(None, f"cannot read {shown}: {getattr(error, 'strerror', None) or error}") from None
    if len(raw) > MAX_GRAMMAR_BYTES:
        raise AbnfError.at(None, f"{shown} is larger than {MAX_GRAMMAR_BYTES >> 20} MiB; that is "
                                 "not a grammar abnfc reads")
    return raw


def _decode(raw: bytes, shown: str) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(raw) >= 2 and raw.count(0) * 3 > len(raw)):
        raise AbnfError.at(None, f"{shown} looks like UTF-16 (or another encoding with NUL bytes); "
                                 "save the grammar as UTF-8")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        source = Source(shown, raw.decode("utf-8", "replace"))
        raise AbnfError.at(Span(source, line, column, line, column + 1),
                           f"the grammar file is not UTF-8 (byte 0x{raw[error.start]:02X})") from None


def display_path(path: str) -> str:
    """A relative POSIX path when the file is under the current folder, so headers are stable."""
    relative = os.path.relpath(os.path.abspath(path))
    return Path(path if relative.startswith("..") else relative).as_posix()


def resolve_grammar(grammar: Grammar, start: str | None = None) -> ResolvedGrammar:
    """The rule table and IR of ``grammar`` from ``start``, with its imports and encoding."""
    return resolve(grammar.ast, start, imports=[g.ast for g in grammar.imports], encoding=grammar.encoding)


def compile_grammar(grammar: Grammar, start: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Compiled:
    resolved = resolve_grammar(grammar, start)
    thompson = nfa.build(resolved, limits.max_nfa_states)
    try:
        subsets = dfa.determinize(thompson, limits.max_dfa_states, limits.max_work)
        minimal = minimize.minimize(subsets, limits.max_work)
    except LimitError as error:  # say which grammar and start rule the automaton was for
        raise error.located(resolved.rule(resolved.start).span) from None
    return Compiled(resolved, thompson, subsets, minimal)


# -- names of generated files and identifiers ---------------------------------------------------

PREFIX_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# Headers of the C and C++ standard libraries: <prefix>.h must not shadow one of them.
C_HEADERS = frozenset("""assert complex ctype errno fenv float inttypes iso646 limits locale math
    setjmp signal stdalign stdarg stdatomic stdbit stdbool stdckdint stddef stdint stdio stdlib
    stdnoreturn string tgmath threads time uchar wchar wctype algorithm any array atomic bitset
    cassert cctype cerrno cfloat chrono climits cmath complex cstddef cstdint cstdio cstdlib
    cstring ctime deque exception filesystem functional iomanip ios iosfwd iostream istream
    iterator limits list locale map memory mutex new numeric optional ostream queue random ratio
    regex set sstream stack stdexcept streambuf string thread tuple typeinfo utility valarray
    variant vector version unistd fcntl pthread""".split())
# Keywords of C (up to C23) and C++: <prefix> must not be one.
C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
    float for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while bool true false nullptr alignas alignof
    constexpr static_assert thread_local typeof typeof_unqual asm catch class const_cast delete
    dynamic_cast explicit export friend mutable namespace new noexcept operator private protected
    public reinterpret_cast static_cast template this throw try typeid typename using virtual
    wchar_t char8_t char16_t char32_t concept consteval constinit co_await co_return co_yield
    decltype requires and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq""".split())
# Function names the C standard reserves for future library use (C11 7.31.2, 7.31.5, 7.31.13):
# the generated functions have external linkage, so <prefix>_is_valid must not start so.
_RESERVED_FUNCTIONS = re.compile(r"(str|mem|wcs|is|to)[a-z]")


def prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` cannot name a Python module and prefix C identifiers, or None."""
    if not PREFIX_PATTERN.fullmatch(prefix):
        return "use ASCII letters, digits and underscores, starting with a letter"
    if keyword.iskeyword(prefix):
        return "it is a Python keyword, so the module could not be imported"
    if prefix.lower() in C_KEYWORDS:
        return "it is a C or C++ keyword"
    if prefix.lower() in C_HEADERS:
        return f"{prefix}.h would shadow the standard header <{prefix.lower()}.h> or <{prefix.lower()}>"
    reserved = _RESERVED_FUNCTIONS.match(prefix)
    if reserved:
        return f"C reserves function names that start with {reserved.group(1)} and a lower-case letter"
    return None


def default_prefix(path: str) -> str:
    stem = Path(path).stem
    name = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in stem).lower()
    return name if prefix_problem(name) is None else f"g_{name}"


# -- generating and writing ---------------------------------------------------------------------

def generate(grammar: Grammar, compiled: Compiled, languages: Sequence[str], prefix: str | None,
             command: str, automaton: Dfa | None = None,
             options: Mapping[str, Mapping[str, str]] | None = None) -> dict[str, str]:
    """File name -> content for every requested language, from the minimal DFA unless
    ``automaton`` names another DFA of the same grammar.  ``options`` holds each backend's
    options by language."""
    header = backends.Header(grammar.path, grammar.text, grammar.sha256, compiled.resolved.start_name,
                             command, encoding=compiled.resolved.encoding,
                             imports=tuple((g.path, g.sha256) for g in grammar.imports))
    tables = backends.make_tables(automaton or compiled.minimal, header)
    name = prefix or default_prefix(grammar.path)
    files: dict[str, str] = {}
    for language in languages:
        chosen = {"prefix": name, **(options or {}).get(language, {})}
        files.update(backends.get(language).generate(tables, chosen))
    return files


def stale_files(files: Mapping[str, str], out_dir: str) -> list[str]:
    """Names of files that are missing or differ from ``files``."""
    stale = []
    for name, content in sorted(files.items()):
        try:
            current = Path(out_dir, name).read_bytes()
        except OSError:
            current = None
        if current != content.encode("utf-8"):
            stale.append(name)
    return stale


def write_files(files: Mapping[str, str], out_dir: str) -> list[str]:
    """Write what changed, each file atomically; return the names written.

    Problems of the output folder (missing permission, a file in the way, a full disk) are the
    user's to fix: they raise :class:`AbnfError` naming the path, and leave no partial file.
    """
    changed = stale_files(files, out_dir)
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise AbnfError.at(None, f"cannot write to {out_dir}: it is a file, not a folder") from None
    except OSError as error:
        raise AbnfError.at(None, f"cannot create the output folder {out_dir}: {_reason(error)}") from None
    for name in changed:
        target = folder / name
        try:
            _write_atomically(target, files[name].encode("utf-8"))
        except OSError as error:
            raise AbnfError.at(None, f"cannot write {target}: {_reason(error)}") from None
    return changed


def _reason(error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        return "no space left on the device"
    return error.strerror or str(error)


_DEFERRED_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _write_atomically(target: Path, content: bytes) -> None:
    """Write to a temporary file in the target's folder, then rename it over the target.

    Termination signals are held back meanwhile (they arrive once the file is in place), so an
    interrupted ``compile`` leaves each file either as it was or complete, and no temporary file;
    only SIGKILL, which cannot be held back, may leave a temporary ``.<name>.*.tmp`` behind.
    """
    with _signals_deferred():
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(content)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise


@contextlib.contextmanager
def _signals_deferred():
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are delivered to the main thread only
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def load_validators(file_sets: Sequence[Mapping[str, str]], language: str) -> list[backends.Validator]:
    """Run rendered files of one language: the backend builds and loads them in a temporary
    folder, which is gone once they are loaded."""
    with tempfile.TemporaryDirectory(prefix="abnfc-") as folder:
        return backends.get(language).runners(file_sets, Path(folder))
