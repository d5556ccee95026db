"""The window test of a k-definite language as Rust: the nibble test with AVX2 through
``core::arch``, walked as the C backend's padded driver walks it.

The test and its tables are the C backend's (:mod:`abnfc.backends.c.window_test`, which takes
them from :mod:`abnfc.automata.window_test.nibble`: Keiser and Lemire's kind of test, "Validating
UTF-8 in less than one instruction per byte", 2021); so is the walk
(:mod:`abnfc.backends.c.window_driver`): the input is checked as if padded with bytes that ask
nothing more, so ``is_valid`` and ``first_error`` need no DFA run at either end.  Short inputs
(from the C driver's ``short_min``, up to :data:`DENSE_MAX` bytes) are walked 32 bytes a block,
every block checked and tested at once, as the C driver's AVX2 instance walks them.  Where the
end table's verdict on every input whose windows are allowed is "each of the last k bytes is
below a threshold of its own" (UTF-8: C0, E0 and F0, simdutf8's "incomplete" test), the end of
an input of whole blocks, or of 64 bytes or more, is one saturating subtraction from the 32 bytes
that end it
(``LIMITS``, found and checked against the end table by ``_end_limits``; UTF-8, 64-byte strings
about 10% faster than by the table): the last block, or where the input is no multiple of 32
bytes but has 64, a block of its own that overlaps the one before.  Otherwise, as in C, the last
part block is read by a masked load of its whole 4-byte words (``vpmaskmovd``, which reads no
byte of a word it leaves out) and its last 1-3 bytes one by one, and the end is decided by the
end table where the bytes after the input are 00-7F, else by a block of those bytes.  ``is_valid``
walks inputs of 64 bytes up to that length with that end alone, the first step out of the loop
and no branch a block: on 64-byte strings the per-call costs (a branch a block, registers saved
for the loop or the CPU check, the tail's cases) are what separates it from simdutf8, whose
work a block is the same.  Longer inputs
are walked 64 bytes a step, with steps of bytes 00-7F skipped where the language allows.  Only
that padded kind is taken here: a language without pads, or without a nibble test, keeps the
strategy's loop alone.

How the module finds AVX2 (``--rust-simd``): ``std``, at run time with
``std::is_x86_feature_detected!``, asked once and kept in an atomic; ``core``, when compiling
(``cfg(target_feature = "avx2")``, as with ``-C target-cpu=native``), so the module needs nothing
beyond ``core``; ``off``, never, and the module forbids ``unsafe``.  The scalar loop is always
there, for short inputs, other CPUs and other architectures.  On AArch64 the same test runs with
NEON (``rust_window_neon.rs.j2``), 16 positions a block, every block checked, the last part block
copied into a block of the bytes after the input; NEON is part of Rust's AArch64 targets, so it
is chosen when compiling under ``std`` and ``core`` alike.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..c.window_driver import plan_window_driver
from ..c.window_test import NibbleLookupC, NibbleTableC, plan_window_test
from ..tables import Tables

SIMD_CHOICES = ("std", "core", "off")
# Inputs up to this long are walked with every block checked (as the C driver's DENSE_MAX, but
# shorter: UTF-8, Zen 4, strings of 512 and 1024 bytes take as long either way unless they are
# ASCII, which the walk that skips steps of bytes 00-7F takes 3.2-4.6x faster; 256-byte strings
# with other bytes take 9% less time dense)
DENSE_MAX = 256
CELLS_PER_LINE = 16
BLOCK = 32  # bytes a vector


@dataclass(frozen=True)
class RustWindow:
    k: int
    simd: str  # "std" or "core"
    boxes: int
    lookups: int
    tables: tuple[NibbleTableC, ...]  # the nibble tables: the low-nibble mask first
    groups: tuple[tuple[NibbleLookupC, ...], ...]
    thresholds: tuple[tuple[int, int, int], ...]  # the equivalence bit's (distance, byte, table of byte - 80)
    bit7: int  # the table of 80s
    distances: tuple[int, ...]  # past 0, the distances whose bytes are read
    highs: tuple[int, ...]
    lows: tuple[int, ...]
    before: str  # the byte before the input ("0x00")
    after: str  # the byte after it
    after_ascii: bool  # ... is 00-7F
    before_low: bool
    after_low: bool
    quiet_low: bool  # blocks of bytes 00-7F after another such block are skipped
    end_lines: tuple[str, ...]  # the end table's bytes, 16 a line (empty: none)
    end_size: int
    end_limits: tuple[str, ...]  # LIMITS, 16 a line (empty: the end table decides the end)
    class_lines: tuple[str, ...]  # the class of each byte, for the end table
    num_classes: int
    deferred_lines: tuple[str, ...]  # per byte, 1 when no live state takes it (empty: none)
    min_length: int  # shorter inputs run the strategy's loop
    dense_max: int  # inputs up to this long are walked block by block with none skipped


def plan_window(tables: Tables, wanted: str, simd: str) -> RustWindow | None:
    """The window test's Rust plan, or None where the module keeps its loop alone: ``--rust-simd
    off``, a strategy chosen by hand, or a language without the padded nibble test."""
    if simd == "off" or wanted != "auto":
        return None
    window = plan_window_test(tables, 1, "auto")
    driver = plan_window_driver(tables, window)
    if window is None or driver is None or window.nibble is None or not driver.pads:
        return None
    nibble = window.nibble
    end = _cells(driver.end_table)
    return RustWindow(
        k=window.k,
        simd=simd,
        boxes=nibble.boxes,
        lookups=nibble.lookups,
        tables=nibble.tables,
        groups=nibble.groups,
        thresholds=nibble.thresholds,
        bit7=nibble.bit7,
        distances=nibble.distances,
        highs=nibble.highs,
        lows=nibble.lows,
        before=f"0x{driver.before:02X}",
        after=f"0x{driver.after:02X}",
        after_ascii=driver.after < 0x80,
        before_low=driver.before_low,
        after_low=driver.after_low,
        quiet_low=window.quiet_low,
        end_lines=_lines(end),
        end_size=len(end),
        end_limits=_lines(limits) if (limits := _end_limits(tables, window.k, end, driver.deferred)) else (),
        class_lines=_lines(_cells(driver.end_classes)),
        num_classes=tables.num_classes,
        deferred_lines=_lines(_cells(driver.deferred)),
        min_length=driver.short_min,
        dense_max=min(DENSE_MAX, driver.dense_max),
    )


def _end_limits(tables: Tables, k: int, end: list[int], deferred: str) -> list[int] | None:
    """The last block's limits (``LIMITS``): where the end table's verdict on every tuple of k
    classes the input can end in (when its windows are allowed) is "each of the last k bytes is
    less than a threshold of its own", the 32 bytes to subtract from the last block with
    saturation (the threshold less 1 at each of the last k positions, FF before them), so that a
    byte is left exactly where the input cannot end; None where the verdict has no such form.

    The tuples the input can end in: those whose first k - 1 classes some live state survives,
    and whose last one it survives too or no live state takes (such a byte is flagged only by the
    window after it, which the end decides)."""
    if not end or k > BLOCK:
        return None
    targets = [state.targets for state in tables.states]
    live = [s for s in range(tables.num_states) if s != tables.dead]
    taken_by_none = {tables.byte_class[b] for b, cell in enumerate(_cells(deferred)) if cell}
    ok: list[dict[int, bool]] = [{} for _ in range(k)]  # per position, class -> the verdict it forces
    verdicts = []
    for index, word in enumerate(itertools.product(range(tables.num_classes), repeat=k)):
        if not any(_ends_in(targets, tables.dead, state, word, taken_by_none) for state in live):
            continue  # the windows before the end flag it
        allowed = bool(end[index // 8] >> (index % 8) & 1)
        verdicts.append((word, allowed))
        for position, cls in enumerate(word):
            ok[position][cls] = ok[position].get(cls, False) or allowed
    if any(allowed != all(ok[p][c] for p, c in enumerate(word)) for word, allowed in verdicts):
        return None  # not one condition a position
    limits = [0xFF] * BLOCK
    for position in range(k):
        bad = [b for b in range(256) if ok[position].get(tables.byte_class[b]) is False]
        good = [b for b in range(256) if ok[position].get(tables.byte_class[b]) is True]
        if not bad:
            continue
        if min(bad) == 0 or (good and max(good) >= min(bad)):
            return None  # not a threshold
        limits[BLOCK - k + position] = min(bad) - 1
    return limits


def _ends_in(targets: list[tuple[int, ...]], dead: int, state: int, word: tuple[int, ...],
             taken_by_none: set[int]) -> bool:
    """Whether an input can end in classes ``word`` from ``state`` with its windows allowed."""
    for cls in word[:-1]:
        state = targets[state][cls]
        if state == dead:
            return False
    return word[-1] in taken_by_none or targets[state][word[-1]] != dead


def _cells(text: str) -> list[int]:
    """The C plan's cells ("0x0F, 0x0F, ...") as numbers."""
    return [int(cell, 16) for cell in text.split(", ")] if text else []


def _lines(values: list[int]) -> tuple[str, ...]:
    return tuple(", ".join(f"0x{v:02X}" for v in values[start:start + CELLS_PER_LINE]) + ","
                 for start in range(0, len(values), CELLS_PER_LINE))
