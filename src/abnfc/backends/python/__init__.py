"""The Python backend: a standalone module (standard library only) with ``is_valid``,
``first_error``, ``expected_bytes`` and an incremental ``Validator``."""
from .. import Backend
from .plan import lower
from .render import render
from .runner import runners

BACKEND = Backend("python", "a standalone Python 3.11+ module", lower, render, runners)
