"""Definiteness (abnfc.automata.window_test.definite) against brute force, on the grammars and on random DFAs."""
from __future__ import annotations

import random
from itertools import product

import pytest
from helpers.cli import run_cli
from helpers.paths import ROOT
from test_learn import random_dfa

from abnfc.automata.dfa import Dfa
from abnfc.automata.window_test.definite import _live, definiteness
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation


def decided_by_last(dfa: Dfa, k: int) -> bool:
    """Brute force: every word of k classes, read from every live state, ends in at most one
    live state (prefixes that die on the way are not completable)."""
    live = _live(dfa)
    for word in product(range(dfa.num_classes), repeat=k):
        ends = set()
        for state in live:
            for cls in word:
                state = dfa.transitions[state][cls]
                if state not in live:
                    break
            else:
                ends.add(state)
        if len(ends) > 1:
            return False
    return True


@pytest.mark.parametrize(("grammar", "k"), [("utf8.abnf", 3), ("variants/rfc2279-utf8.abnf", 5),
                                            ("variants/java-modified-utf8.abnf", 2), ("variants/wtf8.abnf", 4),
                                            ("uri.abnf", None)])
def test_the_grammars(grammar, k):
    assert definiteness(Compilation(load(str(ROOT / "grammars" / grammar))).minimal).k == k


def test_random_dfas_agree_with_brute_force():
    definite = 0
    for seed in range(120):
        rng = random.Random(seed)
        dfa = random_dfa(rng, rng.randint(1, 6))
        if dfa.num_classes > 4:
            continue
        found = definiteness(dfa)
        if found.k is None:
            assert found.witness is not None and not decided_by_last(dfa, 7), seed
        else:
            definite += 1
            assert decided_by_last(dfa, found.k), seed
            assert found.k == 0 or not decided_by_last(dfa, found.k - 1), seed
    assert definite >= 10


def test_abnfc_dfa_says_it(capsys):
    status, out, _err = run_cli(capsys, "dfa", str(ROOT / "grammars" / "utf8.abnf"))
    assert status == 0
    assert out.splitlines()[1].startswith("3-definite: once an input that can still be completed is 3 bytes long")
    status, out, _err = run_cli(capsys, "dfa", str(ROOT / "grammars" / "uri.abnf"), "--format", "json")
    assert status == 0 and '"definite_k": null' in out
