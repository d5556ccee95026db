"""A grammar's language as the tools see it: a minimal DFA, a verdict per input, explanations.

A regular grammar is compiled (:class:`abnfc.pipeline.Compilation`): its minimal DFA is the
exact language, verdicts come from it, and explanations from the DFA before minimization.  A
recursive grammar has no DFA: verdicts come from the interpreter, which is exact on any input,
while the automaton the tools derive inputs from is that of its inputs up to a length bound
(:mod:`.bounded`), and every tool says so.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..frontend.resolve import ResolvedGrammar
from ..interpret import recognize
from ..pipeline import Compilation
from .bounded import DEFAULT_BUDGET, DEFAULT_MAX_LENGTH, BoundedLanguage, explore
from .provenance import DfaProvenance, InterpreterProvenance, Provenance


@dataclass(frozen=True)
class Language:
    path: str  # the grammar file, as shown to the user
    resolved: ResolvedGrammar
    minimal: Dfa  # exact, or the language up to ``bounded.bound`` bytes when ``bounded`` is set
    provenance: Provenance
    bounded: BoundedLanguage | None = None

    @property
    def start_name(self) -> str:
        return self.resolved.start_name

    @property
    def exact(self) -> bool:
        return self.bounded is None

    def accepts(self, data: bytes) -> bool:
        if self.bounded is None:
            return self.minimal.first_error(data) is None
        return recognize(self.resolved, data).matched

    def verdicts(self, inputs: Sequence[bytes]) -> list[bool]:
        if self.bounded is not None:
            return [self.accepts(data) for data in inputs]
        dfa = self.minimal  # the loop of Dfa.first_error, inlined: this runs on millions of inputs
        rows, byte_class, dead, accepting = dfa.transitions, dfa.byte_class, dfa.dead, dfa.accepting
        found = []
        for data in inputs:
            state = dfa.start
            for cls in data.translate(byte_class):
                state = rows[state][cls]
                if state == dead:
                    break
            found.append(state in accepting)
        return found

    def describe_bound(self) -> str:
        """For recursive grammars: why and how far the tools' automaton is bounded."""
        if self.bounded is None:
            return ""
        cycle = self.resolved.cycle
        return (f"{self.path} is recursive ({cycle}); its automaton covers inputs "
                f"{self.bounded.statement()}, explored through the interpreter")


def load_language(compilation: Compilation, max_length: int = DEFAULT_MAX_LENGTH,
                  budget: int = DEFAULT_BUDGET) -> Language:
    """The language of ``compilation``'s grammar: exact when it is regular, else explored up to
    ``max_length`` bytes with at most ``budget`` interpreter runs."""
    resolved = compilation.resolved
    if resolved.is_regular:
        return Language(compilation.grammar.path, resolved, compilation.minimal,
                        DfaProvenance(compilation.dfa, resolved.start_name))
    found = explore(resolved, max_length, budget)
    return Language(compilation.grammar.path, resolved, found.dfa, InterpreterProvenance(resolved), found)
