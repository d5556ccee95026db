"""abnfc.hypothesis and its sampler: valid draws are valid, uniform for each length, invalid
draws are refused, Hypothesis shrinks a failure to a short input, limits hold."""
from __future__ import annotations

import math
import operator
import random
from collections import Counter
from itertools import product

import pytest
from hypothesis import HealthCheck, find, given, settings

from abnfc.api import recognize
from abnfc.errors import AbnfError, LimitError
from abnfc.frontend.source import from_text, load
from abnfc.hypothesis import _dialects, _parts, strategy
from abnfc.hypothesis.sampling import MAX_CELLS, Sampler, automaton, splits_branches, sub_language
from abnfc.pipeline import Compilation

GRAMMARS = [("grammars/utf8.abnf", None), ("grammars/datetime.abnf", "date-time"),
            ("grammars/uri.abnf", "URI-reference"), ("grammars/json.abnf", None), ("grammars/email.abnf", None)]
SMALL = "r = 1*4( %x61-63 / %x64 %x65 / %x66 [ %x67 ] )\n"
SETTINGS = settings(max_examples=300, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def sampler_of(text: str, longest: int) -> Sampler:
    return Sampler(Compilation(from_text(text)).minimal, longest)


def test_unranking_lists_every_word_of_each_length_once_in_byte_order():
    sampler = sampler_of(SMALL, 6)
    dfa = sampler.dfa
    for length in range(7):
        words = [sampler.unrank(length, rank) for rank in range(sampler.words_of_length(length))]
        every = [bytes(w) for w in product(b"abcdefgh", repeat=length) if dfa.matches(bytes(w))]
        assert words == sorted(every), length


def _chi_square_critical(freedom: int) -> float:
    """The 0.1% upper quantile of chi-square (Wilson and Hilferty's approximation)."""
    z = 3.0902  # the standard normal's 99.9% quantile
    return freedom * (1 - 2 / (9 * freedom) + z * math.sqrt(2 / (9 * freedom))) ** 3


def test_valid_draws_are_uniform_for_each_length():
    sampler = sampler_of(SMALL, 4)
    rng = random.Random(7)
    drawn = Counter(sampler.valid(rng) for _ in range(60_000))
    for length in sampler.lengths:
        words = [sampler.unrank(length, rank) for rank in range(sampler.words_of_length(length))]
        if len(words) < 2:
            continue
        seen = [drawn[w] for w in words]
        expected = sum(seen) / len(words)
        statistic = sum((count - expected) ** 2 / expected for count in seen)
        assert statistic < _chi_square_critical(len(words) - 1), (length, statistic)
    lengths = Counter(len(w) for w in drawn.elements())
    assert set(lengths) == set(sampler.lengths)  # every length that has words is drawn


@pytest.mark.parametrize(("path", "start"), GRAMMARS)
def test_valid_draws_are_accepted_by_the_automaton_and_the_interpreter(path, start):
    compilation = Compilation(load(path), start)
    dfa = automaton(compilation)
    sampler = Sampler(dfa, 48)
    rng = random.Random(3)
    words = [sampler.valid(rng) for _ in range(2_000)]
    assert all(dfa.matches(w) for w in words)
    for word in words[:150]:  # the interpreter reads the grammar, not the automaton
        assert recognize(path, word, start=start).matched, word


@pytest.mark.slow
@pytest.mark.parametrize(("path", "start"), GRAMMARS)
def test_a_hundred_thousand_valid_draws_are_valid(path, start):
    compilation = Compilation(load(path), start)
    dfa = automaton(compilation)
    sampler = Sampler(dfa, 64)
    rng = random.Random(11)
    assert all(dfa.matches(sampler.valid(rng)) for _ in range(100_000))
    if not compilation.resolved.is_regular:
        pushdown = compilation.pushdown_automaton()
        assert all(pushdown.matches(sampler.valid(rng)) for _ in range(10_000))


@pytest.mark.parametrize(("path", "start"), GRAMMARS[:3])
def test_the_strategy_draws_what_it_says(path, start):
    dfa = Compilation(load(path), start).minimal

    @SETTINGS
    @given(strategy(path, start, valid=True), strategy(path, start, valid=False))
    def check(good, bad):
        assert dfa.matches(good), good
        assert not dfa.matches(bad), bad
    check()


def test_walks_take_each_branch_alike_and_favour_the_edges_of_ranges():
    """Most valid draws are walks that choose among the states a state's bytes lead to, each as
    likely, so UTF-8's 4-byte lead F4 (one of the start state's eight branches) starts more
    than 1 draw in 50 (1 in 7 here), where a path-uniform draw of up to 4 bytes starts 1 in
    29,000 with it; and a byte of a range is its lowest or its highest more often than the
    others, so more than a quarter of the continuation bytes (80-BF) are 80 or BF (a third
    here), where uniform bytes would give 1 in 32."""
    dfa = Compilation(load("grammars/utf8.abnf")).minimal
    drawn: list[bytes] = []

    @settings(max_examples=2_000, derandomize=True, database=None, deadline=None)
    @given(strategy("grammars/utf8.abnf", max_size=4))
    def collect(good):
        assert dfa.matches(good)
        drawn.append(good)
    collect()
    assert sum(w[:1] == b"\xf4" for w in drawn) > len(drawn) / 50
    tails = [b for w in drawn for b in w if 0x80 <= b <= 0xBF]
    assert sum(b in (0x80, 0xBF) for b in tails) > len(tails) / 4


def test_dialect_walks_reach_the_edges_of_a_dialects_ranges():
    """datetime.abnf's second is 2DIGIT, so "60" is one value in a hundred, but the part of the
    grammar that datetime-ranges (second 00-60) also accepts splits its first digit into 0-5 and
    6, and nearly half the valid draws are walks over it (five in eight are dialect walks, three
    in four of those over a part a dialect accepts, and it is the only one): a leap second with
    an offset other than Z, the input a planted bug in bench/bench_hypothesis.py refuses, comes
    in more than 1 valid draw in 12 (about 1 in 7 here, with the dialects found beside the
    grammar); without dialects, in fewer than 1 in 50 (1 in 1,000).  Every draw stays valid."""
    dfa = Compilation(load("grammars/datetime.abnf")).minimal

    def leap_seconds(neighbours):
        drawn: list[bytes] = []

        @settings(max_examples=2_000, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy("grammars/datetime.abnf", neighbours=neighbours))
        def collect(good):
            assert dfa.matches(good)
            drawn.append(good)
        collect()
        return sum(w[17:19] == b"60" and w[-6:-5] in (b"+", b"-") for w in drawn) / len(drawn)

    assert leap_seconds(None) > 1 / 12 > 1 / 50 > leap_seconds([])


def test_a_part_is_walked_only_where_it_splits_a_branch_of_the_grammar():
    """The part of datetime.abnf that datetime-ranges accepts takes the second's first digit 0-5
    to one state and 6 to another, where the grammar has one branch 0-9: a range edge of its
    own.  The part datetime-upper-case accepts only leaves "t" and "z" out, so its walks would
    be the grammar's; the part it refuses (a "t" or a "z" somewhere) sets "T" apart from "t"."""
    compilation = Compilation(load("grammars/datetime.abnf"))
    dfa = automaton(compilation)

    def part(dialect, keep):
        other = Compilation(load(f"grammars/variants/{dialect}.abnf")).minimal
        return sub_language(dfa, other, keep, 100_000, 10_000_000)

    def refused(ours, theirs):
        return ours and not theirs

    assert splits_branches(part("datetime-ranges", operator.and_), dfa)
    assert splits_branches(part("datetime-ranges", refused), dfa)
    assert not splits_branches(part("datetime-upper-case", operator.and_), dfa)
    assert splits_branches(part("datetime-upper-case", refused), dfa)
    assert not splits_branches(dfa, dfa)
    inside, outside = _parts(compilation, dfa, _dialects(compilation, None), 64, strict=False)
    assert [p.dfa for p in inside] == [part("datetime-ranges", operator.and_)]
    assert [p.dfa for p in outside] == [part("datetime-ranges", refused), part("datetime-upper-case", refused)]


def test_the_invalid_draws_include_the_dialects_witnesses():
    dfa = Compilation(load("grammars/utf8.abnf")).minimal
    seen: set[bytes] = set()

    @settings(max_examples=400, derandomize=True, database=None, deadline=None)
    @given(strategy("grammars/utf8.abnf", valid=False))
    def collect(bad):
        assert not dfa.matches(bad)
        seen.add(bad)
    collect()
    # ED A0 80, a surrogate: what generalized UTF-8, WTF-8 and CESU-8 accept and RFC 3629 refuses
    assert any(w.startswith(b"\xed\xa0") or w[:1] in (b"\xc0", b"\xc1", b"\xf8") for w in seen)


@pytest.mark.parametrize(("path", "start", "condition", "longest"), [
    ("grammars/utf8.abnf", None, lambda data: b"\xf4" in data, 4),  # F4 80 80 80 is the least
    ("grammars/utf8.abnf", None, lambda data: b"\xed" in data, 3),
    ("grammars/datetime.abnf", "date-time", lambda data: data[17:19] == b"60", 25),  # 20 with Z
    ("grammars/json.abnf", None, lambda data: data.count(b"[") >= 2, 12)])  # [[]] is 4
def test_a_failure_shrinks_to_a_short_valid_input(path, start, condition, longest):
    found = find(strategy(path, start), condition,
                 settings=settings(derandomize=True, database=None, max_examples=2_000))
    compilation = Compilation(load(path), start)
    assert automaton(compilation).matches(found) and condition(found) and len(found) <= longest, found


def test_text_gives_decoded_strings():
    @SETTINGS
    @given(strategy("grammars/datetime.abnf", "date-time", text=True))
    def check(value):
        assert isinstance(value, str) and value[4] == "-"
    check()


def test_recursive_grammars_draw_nested_inputs_up_to_the_depth():
    compilation = Compilation(load("grammars/json.abnf"))
    sampler = Sampler(automaton(compilation, depth=3), 40)
    words = [sampler.unrank(length, rank) for length in (8, 12) for rank in range(0, sampler.words_of_length(length),
                                                                               sampler.words_of_length(length) // 500)]
    assert all(compilation.pushdown_automaton().matches(w) for w in words)
    assert any(w.count(b"[") + w.count(b"{") >= 2 for w in words)


def test_too_many_counts_is_a_limit_error_naming_the_limit():
    dfa = Compilation(load("grammars/uri.abnf"), "URI-reference").minimal
    with pytest.raises(LimitError, match=f"{MAX_CELLS:,} counts"):
        Sampler(dfa, MAX_CELLS)


def test_a_grammar_without_short_inputs_is_an_error():
    grammar = from_text('r = 10%x61\n')
    with pytest.raises(AbnfError, match="no input of at most 4 bytes"):
        strategy(grammar, max_size=4)


def test_a_near_miss_keeps_the_rest_or_makes_it_the_nearest_in_byte_order():
    """After F0 the state takes 90-BF: 8F and C0 are refused; the second way, 8F is followed by
    the greatest valid rest (the overlong F0 8F BF BF, just below F0 90 80 80) and C0 by the
    least; past those, the word is cut (F0 is incomplete)."""
    sampler = Sampler(Compilation(load("grammars/utf8.abnf")).minimal, 8)
    word = b"a\xf0\x9f\x98\x80"
    misses = [sampler.near_miss(word, 2, choice) for choice in range(5)]
    assert misses == [b"a\xf0\x8f\x98\x80", b"a\xf0\xc0\x98\x80", b"a\xf0\x8f\xbf\xbf", b"a\xf0\xc0\x80\x80", b"a\xf0"]
    assert None not in misses
    assert not any(sampler.dfa.matches(miss) for miss in misses if miss is not None)
