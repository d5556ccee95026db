"""The window test of a k-definite language as Rust: the nibble test with AVX2 through
``core::arch``, walked as the C backend's padded driver walks it.

The test and its tables are the C backend's (:mod:`abnfc.backends.c.window_test`, which takes
them from :mod:`abnfc.automata.window_test.nibble`: Keiser and Lemire's kind of test, "Validating
UTF-8 in less than one instruction per byte", 2021); so is the walk
(:mod:`abnfc.backends.c.window_driver`): the input is checked as if padded with bytes that ask
nothing more, so ``is_valid`` and ``first_error`` need no DFA run at either end.  Short inputs
(from the C driver's ``short_min``, up to :data:`DENSE_MAX` bytes) are walked as its AVX2 instance
walks them: 32 bytes a block, every block checked and tested at once, the last part block read by
a masked load of its whole 4-byte words (``vpmaskmovd``, which reads no byte of a word it leaves
out) and its last 1-3 bytes one by one, and the end decided by the end table where the bytes after
the input are 00-7F.  Longer ones 64 bytes a step, with steps of bytes 00-7F skipped where the
language allows.  Only that padded kind is taken here: a language without pads, or without a
nibble test, keeps the strategy's loop alone.

How the module finds AVX2 (``--rust-simd``): ``std``, at run time with
``std::is_x86_feature_detected!``, asked once and kept in an atomic; ``core``, when compiling
(``cfg(target_feature = "avx2")``, as with ``-C target-cpu=native``), so the module needs nothing
beyond ``core``; ``off``, never, and the module forbids ``unsafe``.  The scalar loop is always
there, for short inputs, other CPUs and other architectures.  NEON is not generated: the Rust
toolchain the tests run has no AArch64 standard library to build it with.
"""
from __future__ import annotations

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
        class_lines=_lines(_cells(driver.end_classes)),
        num_classes=tables.num_classes,
        deferred_lines=_lines(_cells(driver.deferred)),
        min_length=driver.short_min,
        dense_max=min(DENSE_MAX, driver.dense_max),
    )


def _cells(text: str) -> list[int]:
    """The C plan's cells ("0x0F, 0x0F, ...") as numbers."""
    return [int(cell, 16) for cell in text.split(", ")] if text else []


def _lines(values: list[int]) -> tuple[str, ...]:
    return tuple(", ".join(f"0x{v:02X}" for v in values[start:start + CELLS_PER_LINE]) + ","
                 for start in range(0, len(values), CELLS_PER_LINE))
