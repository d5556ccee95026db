"""The language of a recursive grammar up to N bytes, explored through the interpreter.

No DFA holds a recursive grammar's language, but its inputs of at most N bytes form a finite
language, and the interpreter decides each of them.  The grammar's terminals cut the bytes into
classes whose bytes every terminal treats alike (:func:`abnfc.charset.contiguous_classes`), so
one byte per class stands for all.  The prefix tree of the viable prefixes (those after which
some parse can continue) is explored breadth first, one interpreter run per prefix and class,
up to N bytes, and then minimized (Hopcroft).  Every level costs a known number of runs, so the
exploration stops before a level that would exceed the budget and says which length it reached:
it never hangs, and the bound it gives is exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..automata.minimize import minimize
from ..automata.pushdown import Pushdown
from ..charset import Ranges, contiguous_classes
from ..frontend import ir
from ..frontend.resolve import ResolvedGrammar
from ..i18n import _, ngettext
from ..interpret import Recognizer

DEFAULT_MAX_LENGTH = 4
DEFAULT_BUDGET = 200_000  # interpreter runs; about two seconds


@dataclass(frozen=True)
class BoundedLanguage:
    dfa: Dfa  # the minimal DFA of the inputs of at most ``bound`` bytes in the language
    bound: int  # the length explored (at most the one asked for)
    asked: int
    runs: int  # interpreter runs it took
    budget: int
    nesting: bool = False  # ``bound`` is a nesting depth: a pushdown validator unfolded, exact to it
    decider: str = ""  # "pushdown" when the pushdown validator decided the prefixes, not the interpreter

    def statement(self) -> str:
        """How far the exploration went, for the user."""
        if self.nesting:
            return ngettext("nested up to {depth} part deep", "nested up to {depth} parts deep",
                            self.bound).format(depth=self.bound)
        text = ngettext("up to {count} byte", "up to {count} bytes", self.bound).format(count=self.bound)
        if self.bound < self.asked:
            runs = (ngettext("more than the budget of {budget} run of its pushdown validator",
                             "more than the budget of {budget} runs of its pushdown validator", self.budget)
                    if self.decider == "pushdown" else
                    ngettext("more than the budget of {budget} interpreter run",
                             "more than the budget of {budget} interpreter runs", self.budget))
            text += " " + _("(--max-length {asked} asked; {asked} bytes would need {runs})").format(
                asked=self.asked, runs=runs.format(budget=f"{self.budget:,}"))
        return text


def grammar_classes(grammar: ResolvedGrammar) -> tuple[Ranges, ...]:
    """Byte classes that no terminal of the grammar splits."""
    ranges = [node.ranges for key in grammar.reachable for node in ir.walk(grammar.ir[key])
              if isinstance(node, ir.Terminal)]
    return contiguous_classes(ranges)


def explore(grammar: ResolvedGrammar, max_length: int = DEFAULT_MAX_LENGTH,
            budget: int = DEFAULT_BUDGET, pushdown: Pushdown | None = None) -> BoundedLanguage:
    """The language up to ``max_length`` bytes, each prefix decided by the interpreter, or by the
    grammar's ``pushdown`` validator when it has one (the same verdicts, thousands of times
    faster: ``abnfc diff`` of a self-embedding grammar)."""
    classes = grammar_classes(grammar)
    decide = (lambda data: _pushdown_run(pushdown, data)) if pushdown is not None else (
        lambda data: _run(grammar, data))
    representatives = [ranges[0][0] for ranges in classes]
    rows: list[list[int]] = [[0] * len(classes), [0] * len(classes)]  # 0: dead, 1: the empty prefix
    accepting = {1} if decide(b"")[1] else set()
    frontier = [(1, b"")]
    runs, bound = 1, 0
    while frontier and bound < max_length:
        if runs + len(frontier) * len(classes) > budget:
            break
        following = []
        for state, prefix in frontier:
            for cls, byte in enumerate(representatives):
                data = prefix + bytes([byte])
                alive, matched = decide(data)
                runs += 1
                if alive:
                    rows.append([0] * len(classes))
                    rows[state][cls] = len(rows) - 1
                    following.append((len(rows) - 1, data))
                    if matched:
                        accepting.add(len(rows) - 1)
        frontier = following
        bound += 1
    if not frontier:  # every viable prefix ended before the bound: the language is finite
        bound = max_length
    trie = Dfa(classes, tuple(map(tuple, rows)), 1, frozenset(accepting), 0)
    return BoundedLanguage(minimize(trie), bound, max_length, runs, budget, decider="pushdown" if pushdown else "")


def unfolded(pushdown: Pushdown, depth: int, max_states: int, max_work: int) -> BoundedLanguage:
    """The inputs a pushdown validator takes with at most ``depth`` open nested parts, as a
    minimal DFA (no interpreter run: the validator decides them)."""
    return BoundedLanguage(minimize(pushdown.unfold(depth, max_states), max_work), depth, depth, 0, 0, nesting=True)


def _pushdown_run(pushdown: Pushdown, data: bytes) -> tuple[bool, bool]:
    """(some input goes on from ``data``, ``data`` matches): its machines are trimmed, so an
    input that has not failed can go on."""
    error = pushdown.first_error(data)
    return error is None or error == len(data), error is None


def _run(grammar: ResolvedGrammar, data: bytes) -> tuple[bool, bool]:
    """(some parse can continue after ``data``, ``data`` matches)."""
    recognizer = Recognizer(grammar)
    alive = recognizer.feed(data)
    return alive, alive and recognizer.verdict().matched
