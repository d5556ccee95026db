"""The HTML backend: a grammar book, one self-contained page (``<prefix>.html``) that teaches the
grammar: its text with every rule name linked, a railroad diagram and a "used by" list per rule,
the byte classes and the DFA with what each state expects, the DFA picture when asked for, and a
tester that validates as the reader types, with the JavaScript backend's validator.  A
self-embedding grammar's book shows its pushdown validator (the table, its machines, calls and
returns) and its tester steps the run with the stack."""
from ...i18n import ENGLISH, LOCALES, N_
from .. import Backend, BackendOption, Naming
from .plan import lower
from .render import render
from .runner import runners

BACKEND = Backend(
    "html", "a grammar book: one self-contained HTML page with a tester", lower, render, runners,
    Naming(lambda prefix: (f"{prefix}.html",)),
    options=(
        BackendOption("locale", LOCALES, ENGLISH, N_("the book's language (default: English; never taken "
                      "from the environment, so generated files are the same everywhere)"),
                      aliases=("--locale",)),
        BackendOption("picture", ("off", "auto", "graphviz"), "off", N_("the DFA picture: off (default: "
                      "generated files stay the same on every machine), auto (drawn when Graphviz is "
                      "installed) or graphviz (drawn, or an error)")),
    ),
    wants_facts=True,
    needs_automaton=False,
    pushdown=True,
)
