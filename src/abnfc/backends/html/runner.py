"""Load a rendered book's validator: the JavaScript module inlined in the page (a DFA's, or a
self-embedding grammar's pushdown validator), cut out between its markers and run by Node.js like
the JavaScript backend's own files, so that the tests hold the page's validator to the same
verdicts as every other validator."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ...errors import AbnfError
from ..js.runner import JsValidator
from ..js.runner import runners as js_runners
from .plan import VALIDATOR_END, VALIDATOR_START


def validator_source(page: str) -> str:
    """The validator module inside a book (AbnfError when the page has none: a self-embedding
    grammar that gets no pushdown validator)."""
    start, end = page.find(VALIDATOR_START), page.find(VALIDATOR_END)
    if start < 0 or end < start:
        raise AbnfError.at(None, "this grammar book has no validator (its grammar is self-embedding and gets "
                           "no pushdown validator)")
    return page[start + len(VALIDATOR_START): end].strip("\n") + "\n"


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[JsValidator]:
    modules = []
    for files in file_sets:
        [(name, page)] = files.items()
        modules.append({name.removesuffix(".html") + ".mjs": validator_source(page)})
    return js_runners(modules, folder)
