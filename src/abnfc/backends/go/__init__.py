"""The Go backend: ``<prefix>.go``, package ``<prefix>``, with ``IsValid``, ``FirstError``,
``ExpectedBytes`` and an incremental ``Validator`` (an io.Writer); no imports, gofmt- and go
vet-clean.  For a grammar with a nibble window test, also ``<prefix>_amd64.s`` (the test with
AVX2), ``<prefix>_arm64.s`` (with NEON), a ``.go`` file beside each and ``<prefix>_other.go``
(:mod:`.window`).  For a self-embedding
grammar, a pushdown validator with the same interface, a depth limit and ``Check``."""
from ...i18n import N_
from .. import Backend, BackendOption
from ..analysis import STRATEGIES
from .naming import NAMING
from .pushdown import lower_any
from .render import render
from .runner import runners

BACKEND = Backend(
    "go", "a Go package", lower_any, render, runners, NAMING, pushdown=True,
    options=(BackendOption("strategy", STRATEGIES, "auto",
                           N_("pairs: a shift DFA stepping two bytes at a time through a 64 KiB pair "
                              "table (up to 10 states); shift: the same one byte at a time; table: a "
                              "byte-class map and transition table, for any size; auto (default): the "
                              "first of these that fits")),))
