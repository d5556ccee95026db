"""Did you mean ...?" for undefined rule names, in time that does not grow with the grammar.

Comparing an unknown name with every rule (``difflib.get_close_matches``) costs O(rules) per
name, so a grammar of thousands of rules with thousands of typos took minutes.  Instead an index
maps each character bigram to the rules containing it; the candidates for a name are the few
rules sharing the most bigrams with it (the q-gram filter of approximate string matching,
Ukkonen 1992, "Approximate string-matching with q-grams and maximal matches"), and only those
are ranked by difflib's ratio.  Answers are memoised per name, and after a fixed number of
distinct searches the rest get no suggestion, so the total work is bounded.
"""
from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping
from typing import Protocol

from ..i18n import _

CANDIDATES = 40  # rules ranked by difflib per search
MAX_SEARCHES = 200  # distinct unknown names that get a suggestion
MAX_POSTINGS = 20_000  # bigrams shared by more rules than this tell little: skip them
CUTOFF = 0.6  # difflib ratio a suggestion needs


class Named(Protocol):
    @property
    def name(self) -> str: ...


def _bigrams(text: str) -> set[str]:
    padded = f"^{text}$"
    return {padded[i:i + 2] for i in range(len(padded) - 1)}


class NameIndex:
    """The defined rules (lower-cased name -> definition) with a bigram index of their names."""

    def __init__(self, rules: Mapping[str, Named]):
        self.rules = rules
        self._postings: dict[str, list[str]] | None = None
        self._memo: dict[str, str] = {}

    def _index(self) -> dict[str, list[str]]:
        if self._postings is None:
            postings: dict[str, list[str]] = {}
            for key in self.rules:
                for gram in _bigrams(key):
                    postings.setdefault(gram, []).append(key)
            self._postings = postings
        return self._postings

    def suggest(self, key: str) -> str:
        """``; did you mean 'Name'?`` for an unknown lower-cased rule name, or ``""``."""
        if key not in self._memo:
            self._memo[key] = "" if len(self._memo) >= MAX_SEARCHES else self._search(key)
        return self._memo[key]

    def _search(self, key: str) -> str:
        postings = self._index()
        shared: Counter[str] = Counter()
        for gram in _bigrams(key):
            rules = postings.get(gram, ())
            if len(rules) <= MAX_POSTINGS:
                shared.update(rules)
        candidates = [name for name, _count in shared.most_common(CANDIDATES)]
        close = difflib.get_close_matches(key, candidates, n=1, cutoff=CUTOFF)
        return _("; did you mean '{rule}'?").format(rule=self.rules[close[0]].name) if close else ""
