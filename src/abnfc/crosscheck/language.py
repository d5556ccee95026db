"""A grammar's language as the tools see it: a minimal DFA, a verdict per input, explanations.

A regular grammar is compiled (:class:`abnfc.pipeline.Compilation`): its minimal DFA is the
exact language, verdicts come from it, and explanations from the DFA before minimization.  A
recursive grammar has no DFA.  When it has a pushdown validator, verdicts come from it (exact on
any input, nesting up to its depth limit) and the automaton the tools derive inputs from is the
validator unfolded to a few open nested parts (:meth:`abnfc.automata.pushdown.Pushdown.unfold`),
which covers every transition of every machine; otherwise verdicts come from the interpreter,
also exact, and the automaton is that of its inputs up to a length bound (:mod:`.bounded`).
Every tool says which bound applies.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..automata.pushdown import NestingError, Pushdown
from ..frontend.resolve import ResolvedGrammar
from ..i18n import _
from ..interpret import recognize
from ..pipeline import Compilation
from .bounded import DEFAULT_BUDGET, DEFAULT_MAX_LENGTH, BoundedLanguage, explore, unfolded
from .provenance import DfaProvenance, InterpreterProvenance, Provenance


@dataclass(frozen=True)
class Language:
    path: str  # the grammar file, as shown to the user
    resolved: ResolvedGrammar
    minimal: Dfa  # exact, or the language up to ``bounded.bound`` bytes when ``bounded`` is set
    provenance: Provenance
    bounded: BoundedLanguage | None = None
    pushdown: Pushdown | None = None  # decides verdicts of a self-embedding grammar that has one

    @property
    def start_name(self) -> str:
        return self.resolved.start_name

    @property
    def exact(self) -> bool:
        return self.bounded is None

    def accepts(self, data: bytes) -> bool:
        if self.bounded is None:
            return self.minimal.first_error(data) is None
        if self.pushdown is not None:
            try:
                return self.pushdown.matches(data)
            except NestingError:  # deeper than the validator goes: the interpreter has no limit
                pass
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
        if self.bounded.nesting:
            return _("{path} is recursive ({cycle}); its automaton covers inputs {bound}, unfolded from its "
                     "pushdown validator, which decides every verdict").format(
                         path=self.path, cycle=cycle, bound=self.bounded.statement())
        if self.bounded.decider == "pushdown":
            return _("{path} is recursive ({cycle}); its automaton covers inputs {bound}, explored through its "
                     "pushdown validator").format(path=self.path, cycle=cycle, bound=self.bounded.statement())
        return (f"{self.path} is recursive ({cycle}); its automaton covers inputs "
                f"{self.bounded.statement()}, explored through the interpreter")


def load_language(compilation: Compilation, max_length: int = DEFAULT_MAX_LENGTH,
                  budget: int = DEFAULT_BUDGET, max_nesting: int | None = None) -> Language:
    """The language of ``compilation``'s grammar: exact when it is regular; else, with
    ``max_nesting`` and a pushdown validator, that validator unfolded to ``max_nesting`` open
    nested parts; else explored up to ``max_length`` bytes with at most ``budget`` interpreter
    runs."""
    resolved = compilation.resolved
    if resolved.is_regular:
        return Language(compilation.grammar.path, resolved, compilation.minimal,
                        DfaProvenance(compilation.dfa, resolved.start_name))
    if max_nesting is not None and isinstance(compilation.pushdown, Pushdown):
        found = unfolded(compilation.pushdown, max_nesting, compilation.limits.max_dfa_states,
                         compilation.limits.max_work)
        return Language(compilation.grammar.path, resolved, found.dfa, InterpreterProvenance(resolved), found,
                        compilation.pushdown)
    found = explore(resolved, max_length, budget,
                    compilation.pushdown if isinstance(compilation.pushdown, Pushdown) else None)
    return Language(compilation.grammar.path, resolved, found.dfa, InterpreterProvenance(resolved), found)
