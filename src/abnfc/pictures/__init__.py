"""Pictures of a grammar: its minimal DFA as Graphviz DOT (and SVG through Graphviz's ``dot``
program), and a railroad diagram of every rule as SVG.

    dot.py       DFA -> DOT text: one edge per (state, target), states labelled with positions
    graphviz.py  DOT -> SVG by running Graphviz, with a clear error when it is not installed
    railroad.py  a rule as written -> a railroad (syntax) diagram, with the railroad-diagrams package
"""
