"""Black boxes built from every neighbour grammar of a regular shipped grammar (each
grammars/variants/*.abnf whose grammar compiles to a DFA) and from a few of the grammar's
one-edit mutants, drawn at random: each is learned exactly by abnfc.learn.learn from the grammar's
minimal DFA and conformance tests, with the dialects and the mutants as neighbours, as
``abnfc learn`` gives them.  Only exactness is asserted (the learned DFA accepts what the black
box's minimal DFA accepts), not how many queries it took."""
from __future__ import annotations

import os
import random
from functools import cache

import pytest

from abnfc.automata.dfa import Dfa
from abnfc.automata.product import equivalent
from abnfc.crosscheck.neighbours import discover
from abnfc.crosscheck.provenance import DfaProvenance
from abnfc.crosscheck.suite import build_suite
from abnfc.frontend.source import load
from abnfc.learn import learn
from abnfc.learn.job import DEFAULT_MAX_QUERIES
from abnfc.learn.mutants import labelled
from abnfc.pipeline import Compilation

pytestmark = pytest.mark.usefixtures("at_root")

# grammar -> whether its dialects' tests are slow: URI's 183 states take 10-20 s of CPU a box; UTF-8's
# dialects are learned in the quicker tiers by test_neighbours.py (6 s of CPU for the eight)
BASES = {"utf8": True, "datetime": False, "uri": True}
MUTANTS_PER_GRAMMAR = 4


def _regular(path: str) -> bool:
    return Compilation(load(path)).resolved.is_regular  # resolving only: cheap at collection


DIALECTS = [pytest.param(base, path, id=os.path.basename(path), marks=[pytest.mark.slow] if slow else [])
            for base, slow in BASES.items() for path in discover(f"grammars/{base}.abnf") if _regular(path)]


@cache
def setting(base: str) -> tuple[Dfa, tuple[bytes, ...], tuple[Dfa, ...], tuple[tuple[str, Dfa], ...]]:
    """The grammar's minimal DFA, its conformance tests, its neighbours (regular dialects, then
    one-edit mutants) and its mutants with their labels."""
    compilation = Compilation(load(f"grammars/{base}.abnf"))
    prior = compilation.minimal
    tests = tuple(v.data for v in build_suite(prior, DfaProvenance(compilation.dfa, compilation.resolved.start_name),
                                              prior.matches))
    mutants = tuple((m.label, m.dfa) for m in labelled(compilation))
    dialects = tuple(Compilation(load(path)).minimal for path in discover(f"grammars/{base}.abnf") if _regular(path))
    return prior, tests, dialects + tuple(dfa for _label, dfa in mutants), mutants


def learned_exactly(base: str, target: Dfa) -> bool:
    prior, tests, neighbours, _mutants = setting(base)
    result = learn(prior, list(tests), lambda words: [target.matches(w) for w in words],
                   max_queries=DEFAULT_MAX_QUERIES, neighbours=neighbours)
    return equivalent(result.dfa, target)


def test_every_regular_shipped_grammar_with_dialects_is_covered():
    assert {base for base, _path in (p.values for p in DIALECTS)} == set(BASES)
    assert len(DIALECTS) >= 15  # 8 of UTF-8, 3 of RFC 3339, 4 of URI


@pytest.mark.parametrize(("base", "path"), DIALECTS)
def test_a_black_box_speaking_a_dialect_is_learned_exactly(base, path):
    assert learned_exactly(base, Compilation(load(path)).minimal), path


@pytest.mark.parametrize("base", ["utf8", pytest.param("datetime", marks=pytest.mark.slow)])  # 1.5 s a box
@pytest.mark.parametrize("draw", range(MUTANTS_PER_GRAMMAR))
def test_a_black_box_speaking_a_random_one_edit_mutant_is_learned_exactly(base, draw):
    mutants = setting(base)[3]
    label, target = random.Random(f"{base} mutants").sample(mutants, MUTANTS_PER_GRAMMAR)[draw]
    assert learned_exactly(base, target), label
