"""The token-bigram prototype's pass C tables, derived from a pushdown automaton (src/abnfc/automata/bigrams.py)
instead of written by hand: the kinds of positions, the pairs of kinds each context allows, and the refinement of a
kind the kind before it decides (JSON's key strings).  See position_kinds.py for the analysis.

Contexts are the machines (the start rule's and each nested part's), numbered as the automaton
lists them; a bracket byte that opens a nested part must enter the same machine from every state.
The prototype's pass B keeps a stack of contexts; pass C, 64 positions at a time:

    refined = kind, or REFINED[kind] where bit ctx of PAIR_TAG[before * KINDS + kind] is set
    allowed = bit ctx of PAIR_OK[refined before * KINDS + kind]

where ``before`` is the kind of the position before (START before the first) and ``ctx`` the
context of the position (for a closing bracket, the part it closes).  At the end the last
position's refined kind must be one after which the start machine accepts.

    python bench/prototypes/derive_position_pairs.py grammars/json.abnf > position_pairs.h
"""
from __future__ import annotations

import sys

from abnfc.automata.bigrams import Bigrams, derive_bigrams
from abnfc.automata.pushdown import Pushdown
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation


def header(tables: Bigrams, grammar: str) -> str:
    def array(name: str, values: tuple[int, ...]) -> str:
        return f"static const uint8_t {name}[{len(values)}] = {{ {', '.join(map(str, values))} }};"

    return "\n".join([
        f"/* derived from {grammar} by bench/prototypes/derive_position_pairs.py */",
        f"#define PAIR_KINDS {tables.kinds}",
        f"#define PAIR_START {tables.start}",
        f"#define PAIR_CONTEXTS {tables.contexts}",
        f"#define PAIR_QUOTE {tables.quote:#04x}",
        array("pair_ok", tables.ok), array("pair_tag", tables.tag), array("pair_refined", tables.refined),
        array("pair_ends", tables.ends), array("pair_classes", tables.classes),
        array("pair_brackets", tables.brackets), ""])


def main() -> None:
    pushdown = Compilation(load(sys.argv[1])).pushdown
    if not isinstance(pushdown, Pushdown):
        sys.exit("not a pushdown grammar")
    print(header(derive_bigrams(pushdown), sys.argv[1]), end="")


if __name__ == "__main__":
    main()
