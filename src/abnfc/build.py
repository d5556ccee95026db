"""The driver: load -> parse -> resolve -> NFA -> DFA -> minimize -> plan -> emit -> write.

Each stage is one call returning frozen data.  Files are written atomically (temporary file in
the target folder, then rename) and only when their content changed; check mode writes nothing
and reports what is stale.  A failure in any stage writes nothing.
"""
from __future__ import annotations

import hashlib
import importlib
import keyword
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import ast, dfa, minimize, nfa, plan
from .errors import AbnfError, Source, Span
from .parse import parse
from .resolve import ResolvedGrammar, resolve

EMITTERS = {"python": "abnfc.emit.python", "c": "abnfc.emit.c"}  # language -> module with render()


@dataclass(frozen=True)
class Limits:
    max_nfa_states: int = nfa.DEFAULT_MAX_NFA_STATES
    max_dfa_states: int = dfa.DEFAULT_MAX_DFA_STATES
    max_work: int = dfa.DEFAULT_MAX_WORK


@dataclass(frozen=True)
class Loaded:
    path: str  # as reported in messages and headers
    text: str
    sha256: str
    grammar: ast.Grammar


@dataclass(frozen=True)
class Compiled:
    resolved: ResolvedGrammar
    nfa: nfa.Nfa
    dfa: dfa.Dfa  # before minimization
    minimal: dfa.Dfa


def load(path: str) -> Loaded:
    """Read and parse a grammar file (UTF-8; a BOM is ignored)."""
    shown = display_path(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise AbnfError.at(None, f"cannot read grammar file {shown}: {error.strerror}") from None
    text = _decode(raw, shown)
    return Loaded(shown, text, hashlib.sha256(raw).hexdigest(), parse(text, shown))


def _decode(raw: bytes, shown: str) -> str:
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


def compile_grammar(loaded: Loaded, start: str | None = None, limits: Limits = Limits()) -> Compiled:
    resolved = resolve(loaded.grammar, start)
    thompson = nfa.build(resolved, limits.max_nfa_states)
    subsets = dfa.determinize(thompson, limits.max_dfa_states, limits.max_work)
    return Compiled(resolved, thompson, subsets, minimize.minimize(subsets))


PREFIX_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` cannot name a Python module and prefix C identifiers, or None."""
    if not PREFIX_PATTERN.fullmatch(prefix):
        return "use ASCII letters, digits and underscores, starting with a letter"
    if keyword.iskeyword(prefix):
        return "it is a Python keyword, so the module could not be imported"
    return None


def default_prefix(path: str) -> str:
    stem = Path(path).stem
    name = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in stem).lower()
    return name if prefix_problem(name) is None else f"g_{name}"


def generate(loaded: Loaded, compiled: Compiled, languages: list[str], prefix: str | None,
             command: str, automaton: dfa.Dfa | None = None) -> dict[str, str]:
    """File name -> content for every requested language, from the minimal DFA unless
    ``automaton`` names another DFA of the same grammar."""
    origin = plan.Origin(loaded.path, loaded.text, loaded.sha256, compiled.resolved.start_name, command)
    emission = plan.make_plan(automaton or compiled.minimal, origin, prefix or default_prefix(loaded.path))
    files: dict[str, str] = {}
    for language in languages:
        files.update(importlib.import_module(EMITTERS[language]).render(emission))
    return files


def stale_files(files: dict[str, str], out_dir: str) -> list[str]:
    """Names of files that are missing or differ from ``files``."""
    stale = []
    for name, content in sorted(files.items()):
        target = Path(out_dir, name)
        try:
            current = target.read_bytes()
        except OSError:
            current = None
        if current != content.encode("utf-8"):
            stale.append(name)
    return stale


def write_files(files: dict[str, str], out_dir: str) -> list[str]:
    """Write what changed, each file atomically; return the names written."""
    changed = stale_files(files, out_dir)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    for name in changed:
        _write_atomically(Path(out_dir, name), files[name].encode("utf-8"))
    return changed


def _write_atomically(target: Path, content: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
