"""Pushdown validators of self-embedding grammars: the construction, its conflicts, and every
backend that generates them against the reference loop and the interpreter.

The reference is :meth:`abnfc.automata.pushdown.Pushdown.first_error`; the interpreter decides
the language independently (it never sees the cut grammar), so agreement on exact first-error
offsets checks the cut, the determinism checks and the generated code together.
"""
from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from grammar_gen import SMALL, mutations, nested_grammar, sample
from helpers.cli import run_cli
from helpers.paths import ROOT

from abnfc import backends
from abnfc.automata.pushdown import Conflict, NestingError, Pushdown
from abnfc.engines import InterpreterEngine, PushdownEngine, check_bytes, choose_engine
from abnfc.errors import AbnfError
from abnfc.explain.explainer import explain
from abnfc.frontend.source import from_text, load
from abnfc.i18n import ENGLISH, translator
from abnfc.interpret.recognizer import recognize
from abnfc.pipeline import Compilation, load_validators

SUITE = ROOT / "tests" / "data" / "jsontestsuite"
JSON = ROOT / "grammars" / "json.abnf"
EMAIL = ROOT / "grammars" / "email.abnf"
LANGUAGES = [name for name in backends.names() if backends.get(name).pushdown]
NESTED_ALPHABET = SMALL + b"()[],"


def _compilation(text_or_path: str | Path, start: str | None = None) -> Compilation:
    grammar = load(str(text_or_path)) if isinstance(text_or_path, Path) else from_text(text_or_path)
    return Compilation(grammar, start)


def _pushdown(compilation: Compilation) -> Pushdown:
    found = compilation.pushdown
    assert isinstance(found, Pushdown), found
    return found


def _interpreter_error(compilation: Compilation, data: bytes) -> int | None:
    verdict = recognize(compilation.resolved, data)
    return None if verdict.matched else verdict.offset


def _suite(prefixes: tuple[str, ...]) -> list[tuple[str, bytes]]:
    return [(path.name, path.read_bytes()) for path in sorted(SUITE.glob("*.json")) if path.name.startswith(prefixes)]


@pytest.fixture(scope="module")
def json_compilation() -> Compilation:
    return _compilation(JSON)


@pytest.fixture(scope="module")
def json_validators(json_compilation) -> dict[str, backends.Validator]:
    files = {language: json_compilation.files([language], "validator", "test") for language in LANGUAGES}
    return {language: load_validators([files[language]], language)[0] for language in LANGUAGES}


def test_json_is_cut_at_its_brackets_into_three_machines(json_compilation):
    automaton = _pushdown(json_compilation)
    assert [(m.name, m.returns, m.closes) for m in automaton.machines] == [
        ("JSON-text", (), ""),
        ("<nested part 1 of object>", ((0x7D, 0x7D),), "end-object"),
        ("<nested part 2 of array>", ((0x5D, 0x5D),), "end-array"),
    ]
    assert automaton.first_call == automaton.num_states - len(automaton.calls) == min(automaton.calls)
    starts = {m.start for m in automaton.machines[1:]}
    assert set(automaton.calls.values()) == starts


def test_the_json_suite_is_decided_as_the_rfc_grammar_says(json_compilation):
    """Every y_ case valid, every n_ case invalid; and the interpreter finds the same first
    error offset as the pushdown validator on every case, the i_ cases included."""
    automaton = _pushdown(json_compilation)
    cases = _suite(("y_", "n_", "i_"))
    assert len([name for name, _ in cases if name[0] in "yn"]) == 283
    for name, data in cases:
        found = automaton.first_error(data)
        if name.startswith("y_"):
            assert found is None, name
        elif name.startswith("n_"):
            assert found is not None, name
        assert found == _interpreter_error(json_compilation, data), name


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_backend_agrees_with_the_reference_on_the_json_suite(language, json_compilation, json_validators):
    automaton = _pushdown(json_compilation)
    cases = _suite(("y_", "n_", "i_"))
    extra = [("deep", b"[" * 5000 + b"]" * 5000), ("deep-open", b'{"a":' * 3000 + b"1" + b"}" * 2999),
             ("utf8", '["\u00e9\u6771\U0001F600"]'.encode()), ("bad-utf8", b'["\xed\xa0\x80"]'),
             ("long-string", b'"' + b"x" * 100_000 + b'"'), ("long-number", b"-" + b"9" * 100_000 + b"e+7")]
    inputs = [data for _, data in cases + extra]
    assert backends.first_errors(json_validators[language], inputs) == [automaton.first_error(d) for d in inputs]


def _nested_grammars(count: int, seed: int) -> list[tuple[str, Compilation]]:
    """Random nested grammars that get a pushdown validator."""
    found: list[tuple[str, Compilation]] = []
    for index in itertools.count(seed):
        if len(found) == count:
            break
        text = nested_grammar(random.Random(index).randrange)
        try:
            compilation = _compilation(text)
            if compilation.resolved.is_regular or isinstance(compilation.pushdown, Conflict):
                continue
        except AbnfError:
            continue
        found.append((text, compilation))
    return found


def _inputs(compilation: Compilation, rng: random.Random, length: int) -> list[bytes]:
    inputs = {bytes(t) for n in range(length + 1) for t in itertools.product(NESTED_ALPHABET, repeat=n)}
    for _ in range(20):
        data = sample(compilation.resolved, rng)
        if data is not None:
            inputs.add(data)
            inputs.update(mutations(data, rng))
    return sorted(inputs)


@pytest.mark.parametrize(("count", "seed", "length"),
                         [(25, 0, 3), pytest.param(150, 1000, 4, marks=pytest.mark.slow)])
def test_random_nested_grammars_agree_with_the_interpreter_in_every_backend(count, seed, length):
    grammars = _nested_grammars(count, seed)
    rng = random.Random(seed)
    cases = []
    for text, compilation in grammars:
        automaton = _pushdown(compilation)
        inputs = _inputs(compilation, rng, length)
        expected = [automaton.first_error(data) for data in inputs]
        for data, found in zip(inputs, expected, strict=True):
            assert found == _interpreter_error(compilation, data), (text, data)
        cases.append((compilation, inputs, expected))
    for language in LANGUAGES:
        file_sets = [compilation.files([language], f"g{index}", "test")
                     for index, (compilation, _, _) in enumerate(cases)]
        for validator, (compilation, inputs, expected) in zip(load_validators(file_sets, language), cases, strict=True):
            assert backends.first_errors(validator, inputs) == expected, (language, compilation.grammar.text)


def test_a_byte_that_opens_a_nesting_two_ways_is_a_conflict_with_a_witness():
    compilation = _compilation('s = "(" s ")" / "(" "x" ")"\n')
    conflict = compilation.pushdown
    assert isinstance(conflict, Conflict)
    assert conflict.prefix == b"("
    assert "the byte 0x28 '(' can open the nested part of 's' or be read by 's'" in conflict.message
    assert conflict.span is not None and (conflict.span.line, conflict.span.column) == (1, 5)
    assert _interpreter_error(compilation, conflict.prefix) == len(conflict.prefix)  # a viable prefix
    assert conflict.examples == (b"((X))", b"(X)")  # '(' opening the nested part, and read by s's second way
    assert "(for example, b'((X))' reads it the first way and b'(X)' the second)" in conflict.message
    with pytest.raises(AbnfError, match="gets no pushdown validator"):
        compilation.tables()


def test_a_byte_that_could_close_or_continue_a_nested_part_is_a_conflict():
    compilation = _compilation('s = "(" t ")" / "x"\nt = *( s / ")" "y" )\n')
    conflict = compilation.pushdown
    assert isinstance(conflict, Conflict)
    assert "can close the nested part of 's' or go on with it" in conflict.message
    assert conflict.prefix == b"()"
    assert conflict.examples == (b"()", b"()Y)")  # ')' closing the nested part, or read by t's ")" "y"
    assert all(_interpreter_error(compilation, example) is None for example in conflict.examples)


@pytest.mark.parametrize(("count", "seed"), [(150, 0), pytest.param(600, 150, marks=pytest.mark.slow)])
def test_every_conflict_comes_with_two_inputs_of_the_language(count, seed):
    """The witnesses of random nested grammars' conflicts: a viable prefix, and two inputs that
    the interpreter accepts, one for each reading of its last byte."""
    found = 0
    for index in range(seed, seed + count):
        text = nested_grammar(random.Random(index).randrange)
        try:
            compilation = _compilation(text)
            conflict = None if compilation.resolved.is_regular else compilation.pushdown
        except AbnfError:
            continue
        if not isinstance(conflict, Conflict) or not conflict.prefix:
            continue
        found += 1
        assert len(conflict.examples) == 2, text  # they may be equal: one input, read two ways
        for example in conflict.examples:
            assert example.startswith(conflict.prefix), (text, example)
            assert _interpreter_error(compilation, example) is None, (text, example)
    assert found >= count // 10


def test_recursion_with_no_bracket_bytes_is_named():
    conflict = _compilation('s = "a" s s / "c"\n').pushdown
    assert isinstance(conflict, Conflict)
    assert "its reference to 's' has no single-byte terminal before it and after it" in conflict.message


def test_a_nested_part_followed_by_a_tail_reference_is_cut_left_to_right():
    compilation = _compilation('s = "a" s "b" s / "c"\n')
    automaton = _pushdown(compilation)
    for data in (b"c", b"acbc", b"aacbcbc", b"acbacbc", b"ab", b"acbcc", b"aacbc"):
        assert automaton.first_error(data) == _interpreter_error(compilation, data), data


def test_a_nesting_that_can_never_close_reads_nothing_of_it():
    compilation = _compilation('r = "0" r / "(" r ")"\n')  # no way out: the language is empty
    automaton = _pushdown(compilation)
    assert [automaton.first_error(d) for d in (b"(", b"0", b"()")] == [0, 0, 0]


def test_nesting_deeper_than_the_limit_is_an_error_not_a_verdict():
    automaton = _pushdown(_compilation(EMAIL, "comment"))
    deep = b"(" * 100_000 + b")" * 100_000
    assert automaton.first_error(deep) is None
    with pytest.raises(NestingError) as raised:
        automaton.first_error(b"(" * 100_001)
    assert raised.value.offset == 100_000
    with pytest.raises(NestingError, match="nests deeper than 3 at byte offset 3"):
        automaton.first_error(b"((((x))))", max_depth=3)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_backend_takes_nesting_100000_deep_and_refuses_deeper(language):
    compilation = _compilation(EMAIL, "comment")
    [validator] = load_validators([compilation.files([language], "comment", "test")], language)
    assert validator.is_valid(b"(" * 100_000 + b")" * 100_000)
    assert validator.first_error(b"(" * 100_000 + b")" * 99_999) == 199_999
    with pytest.raises(Exception, match="nests deeper than 100000 at byte offset 100000") as raised:
        validator.first_error(b"(" * 100_001)
    assert getattr(raised.value, "offset", None) == 100_000


@pytest.mark.parametrize("language", LANGUAGES)
def test_streaming_in_pieces_gives_the_whole_input_verdict_and_depth(language, json_validators):
    validator = json_validators[language]
    rng = random.Random(7)
    for data in (b' [1, {"a": [true, {"b": null}], "c": "\\u00e9"}, -0.5e3 ] ', b'[1, {"a": }', b"[[[[", b'{"a"'):
        whole = validator.first_error(data)
        for _ in range(5):
            cuts = sorted(rng.sample(range(1, len(data)), 3))
            incremental = validator.Validator()
            for lo, hi in itertools.pairwise([0, *cuts, len(data)]):
                incremental.feed(data[lo:hi])
            assert incremental.first_error() == whole, (language, data, cuts)
            assert incremental.complete == (whole is None)
    incremental = validator.Validator()
    incremental.feed(b'[1, {"a": [')
    assert incremental.depth == 3
    assert (0x5D, 0x5D) in [tuple(r) for r in incremental.expected()]


def test_check_names_the_rules_the_interpreter_names(json_compilation):
    """abnfc check reports the same error, context and expected rules with the pushdown engine as
    with the interpreter, on every n_ case of the suite."""
    pushdown, interpreter = choose_engine(json_compilation, "auto"), InterpreterEngine(json_compilation.resolved)
    assert isinstance(pushdown, PushdownEngine)
    for name, data in _suite(("n_",)):
        assert check_bytes(pushdown, data, name).report() == check_bytes(interpreter, data, name).report(), name


def test_unfolding_keeps_exactly_the_inputs_nested_up_to_the_depth():
    for text, compilation in _nested_grammars(15, 500):
        automaton = _pushdown(compilation)
        inputs = _inputs(compilation, random.Random(3), 3)
        for depth in (1, 2):
            unfolded = automaton.unfold(depth)
            for data in inputs:
                try:
                    within = automaton.matches(data, max_depth=depth)
                except NestingError:
                    within = False
                assert unfolded.matches(data) == within, (text, depth, data)


def test_crosscheck_finds_a_checker_that_refuses_nesting(capsys, tmp_path, monkeypatch):
    """The inputs come from the pushdown validator unfolded two parts deep, the verdicts from the
    validator itself: a checker that refuses lists inside lists disagrees on the first one."""
    (tmp_path / "lists.abnf").write_text('list = "[" [ item *( "," item ) ] "]"\nitem = list / "x"\n')
    (tmp_path / "flat.py").write_text(  # exact on lists of x, but no list inside a list
        "import re\n\ndef accepts(data):\n    return re.fullmatch(rb'\\[([xX](,[xX])*)?\\]', data) is not None\n",
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, _err = run_cli(capsys, "crosscheck", "lists.abnf", "--python", "flat.py:accepts",
                                "--max-nesting", "2", "--exhaustive", "1", "--sample", "0", "--random", "0")
    assert status == 1, out
    assert "nested up to 2 parts deep, unfolded from its pushdown validator" in out
    assert "implementation rejects 5B 5B 5D 5D, which the grammar accepts" in out


def test_explain_steps_show_the_calls_and_returns():
    compilation = _compilation(JSON)
    found = explain(compilation, "<data>", b'[1, {"a": []}]', translator(ENGLISH), steps=True)
    steps = list(found.steps or ())
    assert found.pushdown and found.final_state is not None and found.final_state[1]
    assert [(s.offset, s.move > 0, s.move < 0, s.depth) for s in steps if s.move] == [
        (0, True, False, 1), (4, True, False, 2), (10, True, False, 3), (11, False, True, 2), (12, False, True, 1),
        (13, False, True, 0)]
    assert all(s.read_by for s in steps)
    assert {o.rule for s in steps if s.move < 0 for o in s.read_by} == {"end-array", "end-object"}
    failed = explain(compilation, "<data>", b"[1}", translator(ENGLISH), steps=True)
    last = list(failed.steps or ())[-1]
    assert last.after == 0 and "end-array" in {o.rule for o in last.expected}


def test_exploring_by_length_through_the_pushdown_validator_finds_what_the_interpreter_finds():
    from abnfc.crosscheck.bounded import explore

    for text, compilation in _nested_grammars(8, 300):
        fast = explore(compilation.resolved, 3, pushdown=_pushdown(compilation))
        slow = explore(compilation.resolved, 3)
        assert (fast.dfa, fast.bound, fast.runs) == (slow.dfa, slow.bound, slow.runs), text
        assert fast.decider == "pushdown" and slow.decider == ""
