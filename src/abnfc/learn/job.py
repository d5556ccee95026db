"""The jobs ``abnfc learn`` and ``abnfc crosscheck --learn`` run, as functions of typed requests.

:func:`learn_grammar` learns the language an implementation accepts (:func:`abnfc.learn.learn`,
with the grammar's minimal DFA and its conformance suite as prior) and writes it as an ABNF
grammar; :func:`compare_learned` says how it differs from the grammar, as ``abnfc diff`` does.
The request holds a grammar already read and resolved and a target already checked, so a job
starts on the expensive work (compiling, running the implementation) knowing its inputs are good.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import i18n
from ..i18n import _, ngettext

if TYPE_CHECKING:
    from ..crosscheck.programs import Target
    from ..pipeline import Compilation

DEFAULT_MAX_STATES = 2000
DEFAULT_MAX_QUERIES = 5_000_000
DEFAULT_MAX_SECONDS = 600.0


@dataclass(frozen=True)
class LearnRequest:
    """What to learn: the implementation ``target``, from the grammar ``compilation`` (read and
    resolved), with the conformance tests' ``extra_states``, the limits (``max_seconds`` of
    learning), the random walks' ``seed``, whether to report ``progress`` on standard error, and
    the ``neighbours`` given besides the grammar's own dialects (:mod:`.neighbours`)."""

    compilation: Compilation
    target: Target
    extra_states: int = 0
    max_states: int = DEFAULT_MAX_STATES
    max_queries: int = DEFAULT_MAX_QUERIES
    max_seconds: float = DEFAULT_MAX_SECONDS
    seed: int = 0
    progress: bool = False
    neighbours: tuple[str, ...] = ()  # grammar files (folders expanded)


@dataclass(frozen=True)
class LearnedGrammar:
    """The learned grammar's text, and which limit stopped the run ("" when none did; then the text
    is the last hypothesis, and says so)."""

    text: str
    stopped: str


def learn_grammar(request: LearnRequest) -> LearnedGrammar:
    """Learn the language ``request.target`` accepts, as an ABNF grammar."""
    from ..crosscheck.programs import Fault
    from ..crosscheck.provenance import DfaProvenance
    from ..crosscheck.session import Progress
    from ..crosscheck.suite import build_suite
    from ..errors import AbnfError
    from . import learn
    from .mutants import mutants
    from .neighbours import compiled_like
    from .rules import rule_languages, to_abnf

    compilation = request.compilation
    if not compilation.resolved.is_regular:
        raise AbnfError.at(None, _("abnfc learn needs a grammar that compiles to a DFA, the prior it starts from; "
                                   "rule '{rule}' is recursive").format(rule=compilation.resolved.start_name))
    runner = request.target.runner(Progress(request.progress, sys.stderr.isatty(), "learn"))
    prior = compilation.minimal
    neighbours = compiled_like(compilation, request.neighbours, _warned)
    edited = mutants(compilation)
    tests = [v.data for v in build_suite(prior, DfaProvenance(compilation.dfa, compilation.resolved.start_name),
                                         prior.matches)]
    try:
        learned = learn(prior, tests, runner.verdicts, request.extra_states, request.max_states,
                        request.max_queries, request.seed, _told if request.progress else None,
                        request.max_seconds, [*(n.dfa for n in neighbours), *edited])
    except Fault as fault:  # the program crashed, hung or answered garbage: nothing can be learned
        raise AbnfError.at(None, fault.described()) from None
    with i18n.speaking(i18n.ENGLISH):  # the grammar is a file: the same words on every machine
        comments = (
            _("The language {program} accepts, learned by abnfc learn from {grammar} (start rule {rule}).").format(
                program=request.target.program, grammar=compilation.grammar.path,
                rule=compilation.resolved.start_name),
            ngettext("{queries} distinct inputs asked in {rounds} round, {seconds:.1f} s; {states} states.",
                     "{queries} distinct inputs asked in {rounds} rounds, {seconds:.1f} s; {states} states.",
                     learned.rounds).format(queries=learned.queries, rounds=learned.rounds,
                                            seconds=learned.seconds, states=learned.dfa.num_states),
            _stopped(learned.stopped, request) or _(
                "Exact for every implementation whose minimal DFA has at most {states} states (these plus "
                "--extra-states {extra}) and treats alike the bytes of each class the probes found.").format(
                    states=learned.dfa.num_states + request.extra_states, extra=request.extra_states),
        ) + ((_("Exact also for every implementation that accepts what one of these neighbour grammars "
                "accepts: {paths}.").format(paths=", ".join(n.path for n in neighbours)),)
             if neighbours and not learned.stopped else ()) + (
            (ngettext("Exact also for every implementation that accepts what one of the grammar's {count} one-edit "
                      "mutant accepts (a range bound moved, a repetition count changed, an alternative dropped, an "
                      "element made optional or required, a string's case changed).",
                      "Exact also for every implementation that accepts what one of the grammar's {count} one-edit "
                      "mutants accepts (a range bound moved, a repetition count changed, an alternative dropped, an "
                      "element made optional or required, a string's case changed).",
                      len(edited)).format(count=len(edited)),)
            if edited and not learned.stopped else ())
    text = to_abnf(learned.dfa, comments, compilation.resolved, rule_languages(compilation.resolved, compilation))
    return LearnedGrammar(text, _stopped(learned.stopped, request))


def compare_learned(text: str, name: str, compilation: Compilation) -> tuple[list[str], bool]:
    """What ``abnfc diff`` says of the learned grammar ``text`` (A, shown as ``name``) and the
    grammar (B), and whether their languages are equal."""
    from ..crosscheck.language import load_language
    from ..crosscheck.report import diff_report
    from ..frontend.source import from_text
    from ..pipeline import Compilation

    learned = load_language(Compilation(from_text(text, name)))
    limits = compilation.limits
    return diff_report(learned, load_language(compilation), 6, limits.max_dfa_states, limits.max_work, 8)


def _warned(message: str) -> None:
    print(f"abnfc learn: {message}", file=sys.stderr)


def _told(rounds: int, states: int, queries: int) -> None:
    print(_("round {rounds}: {states} states, {queries:,} inputs asked").format(
        rounds=rounds, states=states, queries=queries), file=sys.stderr)


def _stopped(limit: str, request: LearnRequest) -> str:
    """Which limit stopped the run, in the current language; "" when none did."""
    if limit == "queries":
        return _("stopped at --max-queries {limit}: this is the last hypothesis, not the implementation's "
                 "language").format(limit=request.max_queries)
    if limit == "states":
        return _("stopped at --max-states {limit}: the program needs more states than that (its language may "
                 "not be regular); this is the last hypothesis, not the implementation's language").format(
                     limit=request.max_states)
    if limit == "time":
        return _("stopped at --max-seconds {limit:g}: this is the last hypothesis, not the implementation's "
                 "language").format(limit=request.max_seconds)
    if limit == "irregular":
        return _("stopped: the program does not look regular (its answers fit no finite automaton: a language "
                 "no DFA decides, or answers that change from run to run); this is the last hypothesis, not the "
                 "implementation's language")
    return ""


__all__ = ["DEFAULT_MAX_QUERIES", "DEFAULT_MAX_SECONDS", "DEFAULT_MAX_STATES", "LearnRequest", "LearnedGrammar",
           "compare_learned", "learn_grammar"]
