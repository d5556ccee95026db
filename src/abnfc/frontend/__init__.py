"""The front end: ABNF text -> AST (:mod:`.parse`) -> resolved rule table and IR (:mod:`.resolve`)."""
from .parse import parse
from .resolve import ResolvedGrammar, resolve

__all__ = ["ResolvedGrammar", "parse", "resolve"]
