"""What terminal values mean: octets, or Unicode code points read as their UTF-8 encoding.

RFC 5234 section 2.4 leaves the encoding of terminal values to the context.  ``octets`` reads
every value as one byte (values above ``%xFF`` are an error); ``utf-8`` reads every value as a
code point, matched by its UTF-8 encoding (:mod:`.utf8ranges` turns ranges into byte ranges),
so values up to ``%x10FFFF`` are allowed and the surrogates ``D800-DFFF``, which UTF-8 cannot
encode, match nothing.  Quoted strings are printable ASCII either way.  Without a choice, a
grammar whose start rule reaches a value above ``%xFF`` is read as ``utf-8``, any other as
``octets``.

Like undefined rules, a value the chosen encoding cannot hold is an error in a rule the start
rule reaches and a warning elsewhere.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..charset import Ranges, normalize
from ..errors import Diagnostic
from . import ast
from .utf8ranges import MAX_CODE_POINT, SURROGATES, covers_surrogates

OCTETS = "octets"
UTF8 = "utf-8"
ENCODINGS = (OCTETS, UTF8)
MAX_VALUE = {OCTETS: 0xFF, UTF8: MAX_CODE_POINT}


@dataclass(frozen=True)
class Choice:
    encoding: str
    note: Diagnostic | None  # why it was chosen, when nobody chose it


def terminals(definition: ast.Node) -> Iterable[ast.NumVal | ast.NumRange]:
    return (n for n in ast.walk(definition) if isinstance(n, (ast.NumVal, ast.NumRange)))


def _high(node: ast.NumVal | ast.NumRange) -> int:
    return max(node.values) if isinstance(node, ast.NumVal) else node.high


def choose(requested: str | None, definitions: Mapping[str, ast.Node], reachable: Iterable[str],
           names: Mapping[str, str]) -> Choice:
    """``requested``, or the encoding the reachable rules call for (``names``: key -> rule name)."""
    if requested is not None:
        return Choice(requested, None)
    for key in reachable:
        for node in terminals(definitions[key]):
            if _high(node) > MAX_VALUE[OCTETS]:
                return Choice(UTF8, Diagnostic(
                    f"encoding utf-8 chosen: terminal value {node} in rule '{names[key]}' is above "
                    "%xFF, so values are Unicode code points and inputs their UTF-8 encoding "
                    "(--encoding octets or utf-8 chooses)", node.span, "note"))
    return Choice(OCTETS, None)


def check_terminals(name: str, definition: ast.Node, encoding: str, reachable: bool,
                    errors: list[Diagnostic], warnings: list[Diagnostic], notes: list[Diagnostic]) -> None:
    """Values the encoding cannot hold: errors in reachable rules, warnings elsewhere."""
    for node in terminals(definition):
        problem = _problem(node, encoding)
        if problem and reachable:
            errors.append(Diagnostic(problem, node.span))
        elif problem:
            warnings.append(Diagnostic(f"{problem} (in a rule the start rule does not use)", node.span,
                                       "warning"))
        elif reachable and encoding == UTF8 and isinstance(node, ast.NumRange) \
                and covers_surrogates(node.low, node.high):
            notes.append(Diagnostic(f"range {node} in rule '{name}' spans the surrogates "
                                    "%xD800-DFFF, which UTF-8 cannot encode: they are left out",
                                    node.span, "note"))


def _problem(node: ast.NumVal | ast.NumRange, encoding: str) -> str | None:
    if _high(node) > MAX_VALUE[encoding]:
        if encoding == OCTETS:
            return (f"terminal value {node} is above %xFF, so it is not an octet; with "
                    "--encoding utf-8 values are Unicode code points")
        return f"terminal value {node} is above %x10FFFF, the last Unicode code point"
    if encoding != UTF8:
        return None
    low, high = SURROGATES
    if isinstance(node, ast.NumVal) and any(low <= value <= high for value in node.values):
        return (f"terminal value {node} is a surrogate (%xD800-DFFF): UTF-8 cannot encode it, so "
                "it would match nothing")
    if isinstance(node, ast.NumRange) and low <= node.low and node.high <= high:
        return (f"range {node} holds only surrogates (%xD800-DFFF): UTF-8 cannot encode them, so "
                "it would match nothing")
    return None


def code_points(definition: ast.Node) -> Ranges:
    """Every value a rule's own terminals can read, as code points (for reports); quoted
    strings contribute their characters in both cases."""
    found: list[tuple[int, int]] = []
    for node in ast.walk(definition):
        if isinstance(node, ast.NumVal):
            found.extend((value, value) for value in node.values)
        elif isinstance(node, ast.NumRange):
            found.append((node.low, node.high))
        elif isinstance(node, ast.CharVal):
            for char in node.text:
                found.extend((ord(c), ord(c)) for c in {char, char.lower(), char.upper()})
    return normalize(found)
