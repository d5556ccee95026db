"""Byte ranges and byte classes.

A byte set is a sorted tuple of disjoint, non-adjacent inclusive ranges ``(lo, hi)``.  Byte
classes are the partition of 0..255 cut at every range boundary of an automaton, so that every
byte of a class behaves the same (the technique of regex-automata's ``util/alphabet.rs``).
"""
from __future__ import annotations

from collections.abc import Iterable

Range = tuple[int, int]
Ranges = tuple[Range, ...]

ALPHABET_SIZE = 256


def normalize(ranges: Iterable[Range]) -> Ranges:
    """Sort and merge overlapping or adjacent ranges."""
    merged: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return tuple((lo, hi) for lo, hi in merged)


def intersect(left: Ranges, right: Ranges) -> Ranges:
    """The values in both sorted range lists."""
    found = []
    for lo, hi in left:
        for other_lo, other_hi in right:
            if other_lo <= hi and lo <= other_hi:
                found.append((max(lo, other_lo), min(hi, other_hi)))
    return normalize(found)


def from_bytes(values: Iterable[int]) -> Ranges:
    return normalize((v, v) for v in values)


def members(ranges: Ranges) -> list[int]:
    return [b for lo, hi in ranges for b in range(lo, hi + 1)]


def case_variants(char: str, case_sensitive: bool) -> Ranges:
    """The bytes one character of a quoted string matches (RFC 5234 folds ASCII letters only)."""
    code = ord(char)
    if case_sensitive or not char.isascii() or not char.isalpha():
        return ((code, code),)
    return from_bytes({ord(char.lower()), ord(char.upper())})


def boundaries(range_sets: Iterable[Iterable[Range]]) -> list[int]:
    """Starts of the contiguous byte classes that split no range in ``range_sets``."""
    cuts = {0}
    for ranges in range_sets:
        for lo, hi in ranges:
            cuts.add(lo)
            if hi + 1 < ALPHABET_SIZE:
                cuts.add(hi + 1)
    return sorted(cuts)


def contiguous_classes(range_sets: Iterable[Iterable[Range]]) -> tuple[Ranges, ...]:
    starts = boundaries(range_sets)
    ends = [s - 1 for s in starts[1:]] + [ALPHABET_SIZE - 1]
    return tuple(((lo, hi),) for lo, hi in zip(starts, ends, strict=True))


def class_map(classes: Iterable[Ranges]) -> bytes:
    """``class_map(classes)[b]`` is the index of the class holding byte ``b``."""
    table = bytearray(ALPHABET_SIZE)
    for index, ranges in enumerate(classes):
        for lo, hi in ranges:
            table[lo: hi + 1] = bytes([index]) * (hi - lo + 1)
    return bytes(table)


def is_partition(classes: Iterable[Ranges]) -> bool:
    seen = sorted(b for ranges in classes for b in members(ranges))
    return seen == list(range(ALPHABET_SIZE))


def format_hex(ranges: Ranges, separator: str = " ") -> str:
    """``80-8F A0`` — byte ranges in hex, for tables."""
    return separator.join(f"{lo:02X}" if lo == hi else f"{lo:02X}-{hi:02X}" for lo, hi in ranges)


def format_abnf(ranges: Ranges) -> str:
    """``%x80-8F / %xA0`` — byte ranges as ABNF alternatives."""
    return " / ".join(f"%x{part}" for part in format_hex(ranges).split())


def format_readable(ranges: Ranges) -> str:
    """``%x30-39 ('0'-'9') / %x80-BF``: byte ranges as ABNF alternatives, each with the
    characters it stands for where both ends are printable ASCII, for readers of text grammars."""
    return " / ".join(f"%x{part}{_characters(lo, hi)}" for part, (lo, hi) in zip(format_hex(ranges).split(),
                                                                             ranges, strict=True))


def byte_text(byte: int) -> str:
    """``0x78 'x'``, or ``0xA0``: a byte, with its character where it is printable ASCII."""
    return f"0x{byte:02X} {chr(byte)!r}" if 0x20 <= byte <= 0x7E else f"0x{byte:02X}"


def _characters(lo: int, hi: int) -> str:
    if not (0x20 <= lo and hi <= 0x7E):
        return ""
    return f" ({chr(lo)!r})" if lo == hi else f" ({chr(lo)!r}-{chr(hi)!r})"
