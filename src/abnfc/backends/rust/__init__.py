"""The Rust backend: ``<prefix>.rs``, one self-contained module (``mod <prefix>;``) with
``is_valid``, ``first_error``, ``expected_bytes`` and an incremental ``Validator``; no allocation,
no panic on any input.  Nothing beyond ``core`` and no ``unsafe``, except in a k-definite
language's window test (AVX2 through ``core::arch``, found at run time with ``std``: see
:mod:`.window`).  For a self-embedding grammar, a pushdown validator with the same interface and a
depth limit, whose stack needs ``alloc``."""
from ...i18n import N_
from .. import Backend, BackendOption
from ..analysis import STRATEGIES
from .naming import NAMING
from .pushdown import lower_any
from .render import render
from .runner import runners
from .window import SIMD_CHOICES

BACKEND = Backend(
    "rust", "a Rust module", lower_any, render, runners, NAMING, pushdown=True,
    options=(BackendOption("strategy", STRATEGIES, "auto",
                           N_("pairs: a shift DFA stepping two bytes at a time through a 64 KiB pair "
                              "table (up to 10 states); shift: the same one byte at a time; table: a "
                              "transition table for any size, two bytes a step up to 256 states; auto "
                              "(default): the first of these that fits")),
             BackendOption("simd", SIMD_CHOICES, "std",
                           N_("the window test of a k-definite language (is_valid and first_error with "
                              "AVX2 or, on AArch64, NEON through core::arch): std (default): AVX2 found "
                              "at run time, which needs std, and NEON where compiled for it; core: only "
                              "where compiled for AVX2 or NEON, nothing beyond core; off: never, and the "
                              "module forbids unsafe code"))))
