"""The compiler core: IR -> Thompson NFA -> subset DFA -> minimal DFA, plus products and dumps."""
