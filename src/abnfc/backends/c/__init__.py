"""The C backend: ``<prefix>.h`` and ``<prefix>.c``, C99 with no allocation, usable from C++."""
from .. import Backend, BackendOption
from .plan import STRATEGIES, lower
from .render import render
from .runner import runners

BACKEND = Backend(
    "c", "C99 source and header", lower, render, runners,
    options=(BackendOption("strategy", STRATEGIES, "auto",
                           "shift: a 64-bit shift DFA (up to 10 states); table: a byte-class map "
                           "and transition table, for any size and for 32-bit targets; auto "
                           "(default): shift when it fits"),))
