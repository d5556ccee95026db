"""The JavaScript backend: an ES module (``<prefix>.mjs``) with ``isValid``, ``firstError``,
``expectedBytes`` and an incremental ``Validator`` over Uint8Array, for browsers and Node.js; for a
self-embedding grammar, a pushdown validator with the same interface and a depth limit."""
from .. import Backend, Naming
from .plan import lower
from .render import render
from .runner import runners

BACKEND = Backend("js", "an ES module for browsers and Node.js", lower, render, runners,
                  Naming(lambda prefix: (f"{prefix}.mjs",)), pushdown=True)
