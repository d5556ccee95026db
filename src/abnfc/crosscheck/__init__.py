"""Checking implementations against a grammar (``abnfc vectors``, ``crosscheck`` and ``diff``).

    language.py       a grammar's language as the tools see it: a minimal DFA, verdicts, provenance
    bounded.py        recursive grammars explored up to a length bound
    provenance.py     where an input stands in the grammar, in grammar terms
    suite.py          test vectors: transition cover, lookalikes, the W-method's separating words
    inputs.py         the inputs a cross-check tries, streamed in batches
    programs.py       running another implementation: hex-lines, exit status, a Python function
    disagreements.py  grouping disagreements into classes and shrinking their witnesses
    session.py        a cross-check run from inputs to result
    report.py         the result, as text or JSON
    differences.py    comparing two grammars' languages (the product automaton)
    neighbours/       a grammar's dialects and the shortest inputs where each parts from it

Independent of :mod:`abnfc.explain` (an import-linter contract says so).
"""
