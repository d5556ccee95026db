"""abnfc: ABNF grammars compiled to minimal DFAs and emitted as validators."""
__version__ = "0.1.0"
