"""Commands for cross-checking other implementations against a grammar, on the public pieces.

    vectors.py     ``abnfc vectors``: test vectors with verdicts and notes (suite.py)
    crosscheck.py  ``abnfc crosscheck``: run another implementation and report where it differs
    diff.py        ``abnfc diff``: compare the languages of two grammars

Shared: language.py (a grammar as a minimal DFA, verdicts and explanations), bounded.py
(recursive grammars up to a length), provenance.py (notes in grammar terms), common.py
(options).  Each command module has NAME, HELP, EXAMPLE, add_arguments(parser) and run(args).
"""
