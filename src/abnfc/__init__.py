"""abnfc: ABNF grammars compiled to minimal DFAs and emitted as validators; see :mod:`abnfc.api`."""
__version__ = "0.1.0"

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
