"""abnfc: ABNF grammars compiled to minimal DFAs and emitted as validators; see :mod:`abnfc.api`.

The names below are imported from :mod:`abnfc.api` on first use (PEP 562), so that starting the
command line imports only what the command needs and Ctrl-C during start-up is handled by it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .api import (
                      AbnfError,
                      Compiled,
                      Grammar,
                      Limits,
                      Verdict,
                      compile_grammar,
                      generate_files,
                      load_grammar,
                      load_validator,
                      recognize,
    )

__all__ = [
                  "AbnfError",
                  "Compiled",
                  "Grammar",
                  "Limits",
                  "Verdict",
                  "__version__",
                  "compile_grammar",
                  "generate_files",
                  "load_grammar",
                  "load_validator",
                  "recognize",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'abnfc' has no attribute {name!r}")
