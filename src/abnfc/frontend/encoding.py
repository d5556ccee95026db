"""What terminal values mean: octets, or Unicode code points read as their UTF-8 encoding.

RFC 5234 section 2.4 leaves the encoding of terminal values to the context.  ``octets`` reads
every value as one byte (values above ``%xFF`` are an error); ``utf-8`` reads every value as a
code point, matched by its UTF-8 encoding (see below: ranges become byte ranges), so values
up to ``%x10FFFF`` are allowed and the surrogates ``D800-DFFF``, which UTF-8 cannot
encode, match nothing.  Quoted strings are printable ASCII either way.  Without a choice, a
grammar whose start rule reaches a value above ``%xFF`` is read as ``utf-8``, any other as
``octets``.

Like undefined rules, a value the chosen encoding cannot hold is an error in a rule the start
rule reaches and a warning elsewhere.

Code-point ranges -> UTF-8 byte-range sequences, so that automata can stay over bytes.

A range of Unicode scalar values becomes a short list of sequences of byte ranges, each
sequence matching exactly the UTF-8 encodings of a sub-range of code points:
``U+0080-U+07FF`` is ``[C2-DF][80-BF]``, ``U+0800-U+FFFF`` needs four sequences (``E0`` takes
only ``A0-BF`` second bytes, and the surrogates ``D800-DFFF`` that ``ED A0-BF`` would encode are
left out).  The union of the sequences' languages is exactly the set of encodings of the range.

The algorithm is the classic range splitting of Russ Cox's RE2 and of regex-syntax's
``Utf8Sequences`` (``regex-syntax/src/utf8.rs``): take a range out of a work stack; cut it
around the surrogates, then at the boundaries where the encoded length changes (``7F``,
``7FF``, ``FFFF``), then -- for each continuation byte from the last -- where the low ``6*i``
bits of its ends do not span a full ``0..2^(6i)-1`` block; a range that survives every cut has
the same lead bytes for all its members and maps byte by byte onto a sequence.  It yields the
sequences in increasing order of code points.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..charset import Range, Ranges, normalize
from ..errors import Diagnostic, InvariantError
from ..i18n import _
from . import ast

MAX_CODE_POINT = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)
_LENGTH_LIMITS = (0x7F, 0x7FF, 0xFFFF)  # the last code point encoded in 1, 2, 3 bytes

Sequence = tuple[Range, ...]  # one byte range per byte of the encoding


def sequences(low: int, high: int) -> list[Sequence]:
    """The UTF-8 byte-range sequences that together match the code points ``low..high``
    (surrogates excluded); empty when the range holds only surrogates."""
    if not 0 <= low <= high <= MAX_CODE_POINT:
        raise InvariantError(f"not a code-point range: {low:#x}-{high:#x}")
    found: list[Sequence] = []
    stack = [(low, high)]
    while stack:
        start, end = stack.pop()
        while True:
            if start <= SURROGATES[1] and end >= SURROGATES[0]:  # cut the surrogates out
                if end > SURROGATES[1]:
                    stack.append((SURROGATES[1] + 1, end))
                end = SURROGATES[0] - 1
            if start > end:
                break
            cut = _cut(start, end)
            if cut is None:
                found.append(tuple(zip(_encode(start), _encode(end), strict=True)))
                break
            stack.append((cut + 1, end))  # the upper part waits; go on with the lower part
            end = cut
    return found


def _cut(start: int, end: int) -> int | None:
    """Where to split ``start..end`` (the last code point of the lower part), or None when the
    whole range maps onto one sequence of byte ranges."""
    for limit in _LENGTH_LIMITS:
        if start <= limit < end:
            return limit
    if end <= 0x7F:
        return None
    for shift in (6, 12, 18):
        mask = (1 << shift) - 1
        if start & ~mask != end & ~mask:  # the bytes above this continuation byte differ
            if start & mask != 0:
                return start | mask
            if end & mask != mask:
                return (end & ~mask) - 1
    return None


def _encode(code: int) -> bytes:
    return chr(code).encode("utf-8")


def encode(code: int) -> bytes:
    """The UTF-8 encoding of scalar value ``code``."""
    if not 0 <= code <= MAX_CODE_POINT or SURROGATES[0] <= code <= SURROGATES[1]:
        raise InvariantError(f"not a Unicode scalar value: {code:#x}")
    return _encode(code)


def covers_surrogates(low: int, high: int) -> bool:
    return low <= SURROGATES[1] and high >= SURROGATES[0]


# The code points whose encodings start with each lead byte range.
_LEADS: tuple[tuple[Range, Range], ...] = (
    ((0x00, 0x7F), (0x0000, 0x007F)),
    ((0xC2, 0xDF), (0x0080, 0x07FF)),
    ((0xE0, 0xEF), (0x0800, 0xFFFF)),
    ((0xF0, 0xF4), (0x10000, MAX_CODE_POINT)),
)
_LEAD_SHIFT = {0x00: 0, 0xC2: 6, 0xE0: 12, 0xF0: 18}
_LEAD_BASE = {0x00: 0x00, 0xC2: 0xC0, 0xE0: 0xE0, 0xF0: 0xF0}


def led_by(byte_ranges: Ranges) -> Ranges:
    """The code points whose UTF-8 encoding starts with a byte in ``byte_ranges`` (continuation
    bytes and bytes that start no encoding contribute nothing); surrogates included."""
    found: list[Range] = []
    for lo, hi in byte_ranges:
        for (lead_lo, lead_hi), (code_lo, code_hi) in _LEADS:
            first, last = max(lo, lead_lo), min(hi, lead_hi)
            if first > last:
                continue
            shift, base = _LEAD_SHIFT[lead_lo], _LEAD_BASE[lead_lo]
            low = max(code_lo, (first - base) << shift) if shift else first
            high = min(code_hi, ((last - base + 1) << shift) - 1) if shift else last
            found.append((low, high))
    return normalize(found)


def format_code_points(ranges: Ranges) -> str:
    """``U+0020-007E / U+00A0-D7FF``: code-point ranges in the notation of the Unicode standard."""
    return " / ".join(f"U+{lo:04X}" if lo == hi else f"U+{lo:04X}-{hi:04X}" for lo, hi in ranges)


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
                    _("encoding utf-8 chosen: terminal value {value} in rule '{rule}' is above "
                      "%xFF, so values are Unicode code points and inputs their UTF-8 encoding "
                      "(--encoding octets or utf-8 chooses)").format(value=node, rule=names[key]), node.span, "note"))
    return Choice(OCTETS, None)


def check_terminals(name: str, definition: ast.Node, encoding: str, reachable: bool,
                    errors: list[Diagnostic], warnings: list[Diagnostic], notes: list[Diagnostic]) -> None:
    """Values the encoding cannot hold: errors in reachable rules, warnings elsewhere."""
    for node in terminals(definition):
        problem = _problem(node, encoding)
        if problem and reachable:
            errors.append(Diagnostic(problem, node.span))
        elif problem:
            warnings.append(Diagnostic(problem + _(" (in a rule the start rule does not use)"), node.span,
                                       "warning"))
        elif reachable and encoding == UTF8 and isinstance(node, ast.NumRange) \
                and covers_surrogates(node.low, node.high):
            notes.append(Diagnostic(_("range {range} in rule '{rule}' spans the surrogates "
                                      "%xD800-DFFF, which UTF-8 cannot encode: they are left out").format(
                                          range=node, rule=name), node.span, "note"))


def _problem(node: ast.NumVal | ast.NumRange, encoding: str) -> str | None:
    if _high(node) > MAX_VALUE[encoding]:
        if encoding == OCTETS:
            return _("terminal value {value} is above %xFF, so it is not an octet; with "
                     "--encoding utf-8 values are Unicode code points").format(value=node)
        return _("terminal value {value} is above %x10FFFF, the last Unicode code point").format(value=node)
    if encoding != UTF8:
        return None
    low, high = SURROGATES
    if isinstance(node, ast.NumVal) and any(low <= value <= high for value in node.values):
        return _("terminal value {value} is a surrogate (%xD800-DFFF): UTF-8 cannot encode it, so "
                 "it would match nothing").format(value=node)
    if isinstance(node, ast.NumRange) and low <= node.low and node.high <= high:
        return _("range {range} holds only surrogates (%xD800-DFFF): UTF-8 cannot encode them, so "
                 "it would match nothing").format(range=node)
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
