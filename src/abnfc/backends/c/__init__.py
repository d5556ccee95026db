"""The C backend: ``<prefix>.h`` and ``<prefix>.c``, C99, usable from C++; no allocation except the
stack of a pushdown validator (a recursive grammar's), which grows on the heap past 64 entries."""
from ...i18n import N_
from .. import Backend, BackendOption
from ..analysis import STRATEGIES
from .naming import NAMING
from .pushdown import lower_any
from .render import render
from .runner import runners

BACKEND = Backend(
    "c", "C99 source and header", lower_any, render, runners, NAMING, pushdown=True,
    options=(BackendOption("strategy", STRATEGIES, "auto",
                           N_("pairs: a shift DFA stepping two bytes at a time through a 64 KiB pair "
                              "table (up to 10 states); shift: the same one byte at a time, 2 KiB of "
                              "tables; table: a byte-class map and transition table, for any size and "
                              "for 32-bit targets; auto (default): the first of these that fits")),))
