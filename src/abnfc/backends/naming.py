"""Names of generated files and identifiers: the prefix rules every backend declares, checked
together.

A prefix (``--prefix``, or the grammar file's stem) must be an ASCII identifier, and no
backend that writes files may refuse it: each declares its reserved words and rules in its
:class:`~abnfc.backends.Naming` (Python keywords and standard modules for Python, C and C++
keywords, standard headers and reserved function names for C).  A default prefix that some
backend refuses gets ``g_`` in front.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from . import get, loadable

PREFIX_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def prefix_problem(prefix: str, languages: Iterable[str] | None = None) -> str | None:
    """Why ``prefix`` cannot name the files and identifiers of ``languages`` (default: every
    backend), or None."""
    if not PREFIX_PATTERN.fullmatch(prefix):
        return "use ASCII letters, digits and underscores, starting with a letter"
    for language in loadable() if languages is None else languages:
        problem = get(language).naming.problem(prefix)
        if problem:
            return problem.format(prefix=prefix, lower=prefix.lower())
    return None


def default_prefix(path: str, languages: Iterable[str] | None = None) -> str:
    """The prefix named after the grammar file's stem (``URI-reference.abnf``: ``uri_reference``),
    with ``g_`` in front where a backend refuses it (``string.abnf``: ``g_string``)."""
    stem = Path(path).stem
    name = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in stem).lower()
    return name if prefix_problem(name, languages) is None else f"g_{name}"
