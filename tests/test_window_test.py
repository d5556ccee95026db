"""Window tests (abnfc.automata.window_test): the derived test decides exactly what the DFA decides."""
from __future__ import annotations

import random
from itertools import product

import pytest
from helpers.paths import ROOT
from helpers.walks import class_edges, mutated_walks
from test_learn import random_dfa

from abnfc.automata.dfa import Dfa
from abnfc.automata.window_test import NoWindowTest, WindowTest, accepts, window_test
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation

GRAMMARS = {"utf8.abnf": (3, 7), "variants/java-modified-utf8.abnf": (2, 5),
            "variants/generalized-utf8.abnf": (3, 6), "variants/wtf8.abnf": (4, 7), "variants/cesu8.abnf": (4, 8),
            "variants/rfc2279-utf8.abnf": (5, 10)}


def inputs(dfa: Dfa, rng: random.Random, length: int, count: int) -> list[bytes]:
    """Every word of up to ``length`` class-edge bytes, and mutated walks that stay alive."""
    found = [bytes(w) for n in range(length + 1) for w in product(class_edges(dfa), repeat=n)]
    return found + mutated_walks(dfa, rng, count, 40)


@pytest.mark.parametrize("grammar", sorted(GRAMMARS))
def test_the_grammars_windows_decide_as_their_dfa(grammar):
    dfa = Compilation(load(str(ROOT / "grammars" / grammar))).minimal
    test = window_test(dfa)
    assert isinstance(test, WindowTest) and (test.k, len(test.boxes)) == GRAMMARS[grammar]
    rng = random.Random(1)
    for data in inputs(dfa, rng, 3, 3000):
        assert accepts(test, dfa, data) == dfa.matches(data), data.hex()


@pytest.mark.slow
def test_utf8_windows_on_every_word_of_five_class_edges():
    dfa = Compilation(load(str(ROOT / "grammars" / "utf8.abnf"))).minimal
    test = window_test(dfa)
    assert isinstance(test, WindowTest)
    for data in inputs(dfa, random.Random(2), 5, 0):
        assert accepts(test, dfa, data) == dfa.matches(data), data.hex()


def test_random_dfas_windows_decide_as_their_dfa():
    tested = 0
    for seed in range(300):
        rng = random.Random(seed)
        dfa = random_dfa(rng, rng.randint(2, 8))
        test = window_test(dfa)
        if isinstance(test, NoWindowTest):
            continue
        tested += 1
        for data in inputs(dfa, rng, 4, 300):
            assert accepts(test, dfa, data) == dfa.matches(data), (seed, data.hex())
    assert tested >= 20


def test_languages_without_windows_say_why():
    uri = Compilation(load(str(ROOT / "grammars" / "uri.abnf"))).minimal
    assert window_test(uri) == NoWindowTest("not definite")
    datetime = Compilation(load(str(ROOT / "grammars" / "datetime.abnf"))).minimal
    assert window_test(datetime) == NoWindowTest("8-definite: windows longer than 7 bytes")



def test_a_cover_past_the_box_limit_gives_up_and_says_so(monkeypatch):
    import abnfc.automata.window_test.cover as module

    monkeypatch.setattr(module, "MAX_BOXES", 4)
    utf8 = Compilation(load(str(ROOT / "grammars" / "utf8.abnf"))).minimal
    assert window_test(utf8) == NoWindowTest("its forbidden windows need more than 4 boxes")
