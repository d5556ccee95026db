"""The Python backend: a standalone module (standard library only) with ``is_valid``,
``first_error``, ``expected_bytes`` and an incremental ``Validator``."""
from ...i18n import N_
from .. import Backend, BackendOption
from .naming import NAMING
from .plan import IDIOM_CHOICES, lower
from .render import render
from .runner import runners

BACKEND = Backend("python", "a standalone Python 3.11+ module", lower, render, runners, NAMING, pushdown=True,
                  options=(BackendOption("idioms", IDIOM_CHOICES, "auto",
                                         N_("auto (default): where the grammar's language is proved equal "
                                            "to all bytes, ASCII or strict UTF-8, is_valid and first_error "
                                            "call the built-in that decides it; off: the automaton only")),))
