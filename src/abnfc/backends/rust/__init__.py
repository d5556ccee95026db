"""The Rust backend: ``<prefix>.rs``, one self-contained module (``mod <prefix>;``) with
``is_valid``, ``first_error``, ``expected_bytes`` and an incremental ``Validator``; nothing beyond
``core``, no ``unsafe``, no allocation, no panic on any input.  For a self-embedding grammar, a
pushdown validator with the same interface and a depth limit, whose stack needs ``alloc``."""
from ...i18n import N_
from .. import Backend, BackendOption
from ..analysis import STRATEGIES
from .naming import NAMING
from .pushdown import lower_any
from .render import render
from .runner import runners

BACKEND = Backend(
    "rust", "a Rust module", lower_any, render, runners, NAMING, pushdown=True,
    options=(BackendOption("strategy", STRATEGIES, "auto",
                           N_("pairs: a shift DFA stepping two bytes at a time through a 64 KiB pair "
                              "table (up to 10 states); shift: the same one byte at a time; table: a "
                              "transition table for any size, two bytes a step up to 256 states; auto "
                              "(default): the first of these that fits")),))
