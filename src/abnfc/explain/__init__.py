"""Explaining an input in the grammar's own terms (``abnfc explain``).

    model.py        the Explanation, as frozen data
    explainer.py    builds it: the interpreter's verdict, the trees, the automaton's steps
    search.py       the top-down derivation search (memoised, metered by --max-work)
    fixpoint.py     the least fixpoint the search's memo tables are computed as
    trees.py        derivation trees from the search's answers
    text.py         the text rendering, in the reader's language
    json_output.py  the JSON rendering

Independent of :mod:`abnfc.crosscheck` (an import-linter contract says so).
"""
