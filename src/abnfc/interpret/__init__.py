"""The interpreter: decide whether bytes match any ABNF grammar, recursive ones included.

It is the reference engine that the compiled DFAs are checked against, so it works from the
resolved grammar's IR with algorithms of its own and shares no code with :mod:`abnfc.automata`.

    nodes.py       the records the other modules share (program nodes, frames, items)
    program.py     the grammar compiled to flat node records, with its analyses
    closure.py     following nodes and continuations without consuming input
    cache.py       interned continuations and local states, memoised transitions
    gss.py         the graph-structured stack for recursive rules
    reports.py     verdicts, expected bytes and rules, the work limit
    recognizer.py  the recogniser
"""
from .recognizer import DEFAULT_MAX_WORK, DepthLimitError, Expectation, Recognizer, Verdict, WorkLimitError, recognize

__all__ = ["DEFAULT_MAX_WORK", "DepthLimitError", "Expectation", "Recognizer", "Verdict", "WorkLimitError", "recognize"]
