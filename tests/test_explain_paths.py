"""explain's two ways of finding derivations agree: the linear path through the tree NFA
(explain/trellis.py, for grammars without recursion) and the memoised tree search
(explain/search.py, for every grammar).  Both answer the same questions on random grammars and
inputs: is there a derivation, is there a second (an ambiguity either reports is two different
trees; with one path there is none), and which positions could read the byte after a rejected
input's prefix.  And the linear one is what makes the cliffs of issue 23 go away."""
from __future__ import annotations

import random

import pytest
from grammar_gen import mutations, random_regular_grammar, sample

import abnfc
from abnfc.engines import InterpreterEngine, check_bytes
from abnfc.errors import LimitError, Meter
from abnfc.explain import explainer, trellis
from abnfc.explain.search import Derivation, Leaf
from abnfc.pipeline import Compilation, Limits

LIMITS = Limits(max_work=3_000_000)


def _both(text: str, data: bytes):
    resolved = Compilation(abnfc.load_grammar(text=text), None, LIMITS).resolved
    outcome = check_bytes(InterpreterEngine(resolved, LIMITS.max_work), data, "input")
    nfa = trellis.build(resolved, LIMITS.max_nfa_states)
    on_paths = explainer._in_deep_stack(
        lambda: explainer._on_paths(nfa, resolved, data, outcome, LIMITS, LIMITS.max_work), str)
    by_search = explainer._in_deep_stack(
        lambda: explainer._by_search(resolved, data, outcome, LIMITS.max_work), str)
    return outcome, on_paths, by_search


def _paths(text: str, data: bytes) -> int:
    resolved = Compilation(abnfc.load_grammar(text=text), None, LIMITS).resolved
    nfa = trellis.build(resolved, LIMITS.max_nfa_states)
    meter = Meter(LIMITS.max_work, lambda spent, limit: LimitError([]))
    return trellis.Paths(nfa, resolved, data, False, meter, 10_000).total


def _real(ambiguity, data: bytes) -> None:
    """A reported ambiguity shows two different trees of one rule over the same bytes."""
    if ambiguity is None:
        return
    first, second = ambiguity.first, ambiguity.second
    assert (first.rule, first.start, first.end) == (second.rule, second.start, second.end)
    assert explainer._shape(first) != explainer._shape(second)
    for tree in (first, second):
        assert all(any(lo <= data[leaf.offset] <= hi for lo, hi in leaf.origin.reads)
                   for leaf in tree.walk() if isinstance(leaf, Leaf))


def _positions(found: dict) -> list:
    return [(e.origin, e.origin.span) for e in found.get("expected", ())]


def _well_formed(tree: Derivation, data: bytes, end: int) -> None:
    """Each rule's children cover its bytes one after another, and each leaf's terminal reads
    its byte."""
    assert tree.start == 0 and tree.end == end
    for node in tree.walk():
        if isinstance(node, Leaf):
            assert any(lo <= data[node.offset] <= hi for lo, hi in node.origin.reads)
            continue
        at = node.start
        for child in node.children:
            start, stop = (child.offset, child.offset + 1) if isinstance(child, Leaf) else (child.start, child.end)
            assert start == at
            at = stop
        assert at == node.end or not node.complete


@pytest.mark.parametrize("seed", [*range(4), *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(4, 60))])
def test_paths_and_search_agree_on_random_grammars(seed):
    rng = random.Random(seed)
    tried = 0
    while tried < 3:
        text = random_regular_grammar(rng)
        try:
            abnfc.load_grammar(text=text)
        except abnfc.AbnfError:
            continue
        tried += 1
        cases = [b""]
        for _ in range(3):
            data = sample(text, rng)
            if data is not None:
                cases += [data, *mutations(data, rng, count=3)]
        for data in dict.fromkeys(cases):
            try:
                outcome, (tree, more), (searched, found) = _both(text, data)
            except abnfc.AbnfError as error:  # the search's work limit, on a highly ambiguous grammar
                assert "gave up" in str(error), (text, data)
                continue
            if outcome.offset is None:
                _well_formed(tree, data, len(data))
                _real(more["ambiguity"], data)
                if found["ambiguity"] is not None:  # a second tree exists, so there is a second path
                    assert _paths(text, data) > 1, (text, data)
                if _paths(text, data) == 1:
                    assert more["ambiguity"] is None and found["ambiguity"] is None, (text, data)
                continue
            assert _positions(more) == _positions(found), (text, data)
            if tree is not None:
                _well_formed(tree, data, outcome.offset)
            assert (tree is None) == (searched is None), (text, data)


@pytest.mark.parametrize(("grammar", "data"), [
    ('r = *( *"a" )', b"a" * 10_000),  # F1: the search took 13.7 s at 2 KB
    ('r = *( 1*"a" )', b"a" * 10_000),
    ('r = *"a" *"a"', b"a" * 10_000),  # F2: quadratic in the search
    ('r = *"a" *"a" *"a"', b"a" * 10_000),
    ('r = *( *"a" ) "b"', b"a" * 10_000),  # rejected at the end: the open tree of the prefix
])
def test_the_cliffs_of_nested_and_adjacent_repetitions_are_gone(grammar, data):
    """Under a work limit that the search passed by far on these inputs (its work grew with the
    square of the input), the path through the tree NFA explains them: linear work."""
    explanation = explainer.explain(Compilation(abnfc.load_grammar(text=grammar), None, Limits(max_work=400_000)),
                                    "input", data, lambda text: text)
    assert explanation.tree is not None and explanation.tree.end == len(data)
    leaves = [node for node in explanation.tree.walk() if isinstance(node, Leaf)]
    assert len(leaves) == len(data)
    assert (explanation.ambiguity is not None) == ("*\"a\" *" in grammar)
