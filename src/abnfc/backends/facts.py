"""Neutral facts about a grammar for backends that teach it (the HTML grammar book): its rules as
written, where their names appear in the grammar text, who uses whom, their railroad diagrams,
what each DFA state expects (in the book's language) and the DFA picture.

Plain data built by :mod:`abnfc.grammar_facts` from the front end, so that backends need not
import it.  Positions are 1-based as in the grammar (alternative 1, element 2).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..charset import Ranges

PICTURE_DRAWN, PICTURE_OFF, PICTURE_NO_GRAPHVIZ = "drawn", "off", "no-graphviz"


@dataclass(frozen=True)
class Mention:
    """A rule name in the grammar text: line ``line`` (0-based, of ``GrammarFacts.lines``),
    characters ``start`` to ``end``; ``defines`` when it is the name being defined."""

    line: int
    start: int
    end: int
    rule: str  # the rule's key (its lower-cased name)
    defines: bool


@dataclass(frozen=True)
class RuleFacts:
    key: str
    name: str
    line: int  # where the rule is defined in the grammar file (1-based); 0 for a core rule
    core: bool  # a core rule of RFC 5234 appendix B the grammar does not define itself
    text: str  # the rule as written (a core rule: as abnfc knows it)
    refers_to: tuple[str, ...]  # keys, in order of first appearance
    used_by: tuple[str, ...]  # keys of the rules that refer to this one, in grammar order
    diagram: str  # the railroad diagram, SVG to inline in HTML


@dataclass(frozen=True)
class Position:
    """A terminal a state can read next: alternative ``alternative``, element ``element`` of
    ``rule`` (both 1-based), reading ``reads``."""

    rule: str
    alternative: int
    element: int
    reads: Ranges


@dataclass(frozen=True)
class ExactRun:
    """The automaton before minimization, whose states are exactly the sets of grammar positions
    an input can be at.  A minimal state merges states reached along different paths (after
    ``tru`` and after ``fals``, both expecting ``e``), so its positions name rules the input never
    took; the book's tester runs this automaton alongside to name only the positions on the path
    the input took, as ``abnfc explain`` does.  For a pushdown validator: its machines from the
    subset construction, whose calls and returns are the minimal table's, call for call."""

    byte_class: bytes  # 256 entries: the class of each byte
    transitions: tuple[tuple[int, ...], ...]
    start: int
    dead: int
    positions: tuple[tuple[Position, ...], ...]  # per state: what it reads, each with its live bytes
    first_call: int = -1  # a pushdown validator's first call state (-1: a DFA)
    entries: tuple[int, ...] = ()  # per call state, the start state of the part it opens
    returns: tuple[Ranges, ...] = ()  # per state, the bytes it closes a nested part on


@dataclass(frozen=True)
class GrammarFacts:
    locale: str  # the language of the notes and the diagrams' labels
    start: str  # the start rule's key
    rules: tuple[RuleFacts, ...]  # the grammar's rules in order, then the core rules they use
    lines: tuple[str, ...]  # the grammar text, split at line feeds only (as the parser counts)
    mentions: tuple[Mention, ...]
    recursion: str  # the self-embedding cycle ("comment -> ccontent -> comment"), "" when regular
    notes: tuple[str, ...] = ()  # per DFA state, what it expects, in ``locale``
    positions: tuple[tuple[Position, ...], ...] = ()  # per DFA state, the terminals it reads next
    picture: str = ""  # the DFA drawn by Graphviz (SVG), when ``picture_status`` is drawn
    picture_status: str = PICTURE_OFF
    diagram_style: str = ""  # CSS for the railroad diagrams
    # why a self-embedding grammar gets no pushdown validator (the conflict, in ``locale``); "" otherwise
    conflict: str = ""
    # the automaton before minimization, run alongside by the tester; None when too large to embed
    exact: ExactRun | None = None
