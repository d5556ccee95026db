"""``abnfc learn``: the language a black box really accepts, learned with the grammar as prior.

:mod:`.learner` runs L* over byte classes (membership queries in batches, cached);
:mod:`.oracle` stands in for equivalence queries with conformance tests; :mod:`.abnf` prints
the learned DFA as a grammar.  :func:`learn` alternates the two until the tests find no
counterexample or a limit is reached (then the hypothesis so far is returned, marked partial).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..automata.dfa import Dfa
from .learner import Inconsistent, Learner, TooLarge
from .neighbours import first_tests
from .oracle import counterexample

Ask = Callable[[Sequence[bytes]], list[bool]]


@dataclass(frozen=True)
class Learned:
    dfa: Dfa  # minimal: the learned language (the last hypothesis when a limit stopped the run)
    queries: int  # distinct inputs the black box was asked about
    rounds: int  # hypotheses made
    seconds: float
    stopped: str = ""  # which limit stopped the run ("" when the tests found no counterexample)


class QueryLimit(Exception):
    """The learner needs more queries than it may ask."""


class TimeLimit(Exception):
    """The learner ran longer than it may."""


def learn(prior: Dfa, prior_tests: Sequence[bytes], ask: Ask, extra_states: int = 0, max_states: int = 2_000,
          max_queries: int = 2_000_000, seed: int = 0,
          progress: Callable[[int, int, int], None] | None = None, max_seconds: float | None = None,
          neighbours: Sequence[Dfa] = ()) -> Learned:
    """Learn the black box ``ask`` from the grammar's minimal DFA ``prior`` and its test inputs;
    each round asks first the ``neighbours``' witnesses and long runs (:mod:`.neighbours`).
    Stops with the last hypothesis (``Learned.stopped``) past ``max_queries`` distinct inputs
    ("queries"), ``max_states`` states ("states"), ``max_seconds`` ("time", checked before each
    batch of queries), or when the answers fit no finite automaton ("irregular": a language
    that is not regular, or a program that answers at random)."""
    began = time.monotonic()
    asked = [0]

    def limited(words: Sequence[bytes]) -> list[bool]:
        if asked[0] + len(words) > max_queries:
            raise QueryLimit()
        if max_seconds is not None and time.monotonic() - began > max_seconds:
            raise TimeLimit()
        asked[0] += len(words)
        return ask(words)

    learner = Learner(limited, prior, max_states)
    hypothesis, rounds = prior, 0
    try:
        while True:
            hypothesis = learner.hypothesis()
            rounds += 1
            if progress is not None:
                progress(rounds, hypothesis.num_states, learner.queries)
            found = counterexample(learner.query, hypothesis,
                                   [*first_tests(hypothesis, neighbours, extra_states), *prior_tests],
                                   extra_states, seed=seed + rounds)
            if found is None:
                return Learned(hypothesis, learner.queries, rounds, time.monotonic() - began)
            learner.refine(found, hypothesis)
    except QueryLimit:
        stopped = "queries"
    except TooLarge:
        stopped = "states"
    except TimeLimit:
        stopped = "time"
    except Inconsistent:
        stopped = "irregular"
    return Learned(hypothesis, learner.queries, rounds, time.monotonic() - began, stopped)
