"""Run patterns of generated Python pushdown validators (:mod:`abnfc.backends.python.runs`)
against the byte loop of the same module and the reference loop.

Each grammar's module is rendered twice: as generated (run patterns and loop skips) and with
neither (the plain byte loop).  On every input the two agree on ``first_error`` or the
NestingError offset (with the default depth limit and a small one), and the ``Validator`` fed
in random pieces reaches the same state, depth, verdict and offset; ``first_error`` also equals
``Pushdown.run``'s.  Inputs: JSONTestSuite, mutated generated documents, strings, escapes and
numbers cut at every point, random bytes of each grammar's alphabet, and deep nesting.
"""
from __future__ import annotations

import importlib.util
import random
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import nested
from helpers.paths import ROOT
from helpers.walks import one_byte_edits

from abnfc.automata.pushdown import Pushdown
from abnfc.backends.python import BACKEND
from abnfc.backends.python.plan import lower
from abnfc.backends.python.render import render
from abnfc.backends.python.runner import runners
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation

SUITE = ROOT / "tests" / "data" / "jsontestsuite"
SMALL_LIMIT = 3


def _bench_document(size: int) -> bytes:
    spec = importlib.util.spec_from_file_location("bench_json", ROOT / "bench" / "bench_json.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.document(size, seed=3)


def _modules(compilation: Compilation, folder: Path):
    """(generated module, the same without run patterns and loop skips, reference automaton)."""
    tables = replace(compilation.tables(), header=compilation.header("test"))
    plan = lower(tables, {**BACKEND.defaults(), "prefix": "validator"})
    assert plan.runs, "no run patterns were derived"
    fast_folder, slow_folder = folder / "fast", folder / "slow"
    fast_folder.mkdir()
    slow_folder.mkdir()
    [fast] = runners([render(plan)], fast_folder)
    [slow] = runners([render(replace(plan, runs=(), loops=()))], slow_folder)
    assert "_RUNS" in vars(fast) and "_RUNS" not in vars(slow)
    return fast, slow, compilation.pushdown_automaton()


def _one_shot(module, data: bytes | memoryview, limit: int):
    try:
        return "error", module.first_error(data, limit)
    except module.NestingError as error:
        return "too deep", error.offset


def _fed(module, data: bytes, cuts: list[int]):
    validator = module.Validator()
    answers = []
    try:
        for start, stop in zip([0, *cuts], [*cuts, len(data)], strict=True):
            answers.append(validator.feed(data[start:stop]))
    except module.NestingError as error:
        return "too deep", error.offset
    return answers, validator.state, validator.depth, validator.complete, validator.first_error()


def _reference(automaton: Pushdown, data: bytes, limit: int):
    from abnfc.automata.pushdown import NestingError
    try:
        return "error", automaton.run(data, limit)[0]
    except NestingError as error:
        return "too deep", error.offset


def _check(modules, inputs: list[bytes], seed: int) -> int:
    fast, slow, automaton = modules
    rng = random.Random(seed)
    valid = 0
    for data in inputs:
        for limit in (fast.MAX_DEPTH, 1, SMALL_LIMIT):
            answer = _one_shot(fast, data, limit)
            assert answer == _one_shot(slow, data, limit), (data[:200], limit)
            assert answer == _reference(automaton, data, limit), (data[:200], limit)
            valid += answer == ("error", None)
        assert _one_shot(fast, memoryview(bytearray(data)), fast.MAX_DEPTH) == \
            _one_shot(slow, memoryview(bytearray(data)), fast.MAX_DEPTH), data[:200]
        cuts = sorted(rng.sample(range(len(data) + 1), min(len(data) + 1, rng.randrange(4))))
        assert _fed(fast, data, cuts) == _fed(slow, data, cuts), (data[:200], cuts)
    return valid


@pytest.fixture(scope="module")
def json_modules(tmp_path_factory):
    return _modules(Compilation(load(str(ROOT / "grammars" / "json.abnf"))), tmp_path_factory.mktemp("json"))


def test_json_suite(json_modules):
    inputs = [path.read_bytes() for path in sorted(SUITE.glob("*.json"))]
    assert len(inputs) > 300
    assert _check(json_modules, inputs, 1) > 100


def test_json_mutated_documents(json_modules):
    rng = random.Random(7)
    documents = [_bench_document(size) for size in (300, 2000, 9000)]
    inputs = documents + [m for d in documents for m in one_byte_edits(d, rng, 60, b'"\\{}[]:,0 -.eE\x01\x80\xe6tnu')]
    assert _check(json_modules, inputs, 2) >= 3 * len(documents)
    # past the 64 KiB pieces a memoryview is read in, which a run pattern does not see across
    large = _bench_document(70_000)
    assert _check(json_modules, [large, *one_byte_edits(large, rng, 4, b'"\\{}[]:,0 \x80')], 8) >= 1


def test_json_tokens_cut_everywhere(json_modules):
    """Strings, escapes, UTF-8 and numbers, whole and cut at every byte, in each context."""
    tokens = [b'"a\\"b\\\\\\u00e9\xc3\xa9\xf0\x9f\x98\x80 x"', b"-12.5e+30", b"0", b"1E-7", b"true", b"null",
              b'"\\', b'"\xed\xa0\x80"', b'"\x1f"', b"01", b"-", b"1.", b"[]", b"{}"]
    inputs = []
    for token in tokens:
        for cut in range(len(token) + 1):
            piece = token[:cut]
            inputs += [piece, b"[" + piece + b"]", b"[1, " + piece + b" , 2]", b'{"k":' + piece + b"}",
                       b'{"k" : [' + piece + b'], "' + piece + b'": 0}', b" \n" + piece + b"\t"]
    _check(json_modules, inputs, 3)


def test_json_deep_nesting(json_modules):
    inputs = [b"[" * depth + b"]" * depth for depth in (1, 2, 3, 4, 5, 1100)]
    inputs += [b'{"a":' * 4 + b"[1]" + b"}" * 4, b'{"a":' * 4 + b"[1]" + b"}" * 3, b"[" * 5 + b"]" * 6]
    _check(json_modules, inputs, 4)


@pytest.mark.parametrize("source", nested.SOURCES)
def test_other_grammars_random(source, tmp_path):
    modules = _modules(Compilation(nested.nested_grammar(source)), tmp_path)
    inputs = nested.random_inputs(source, b'()[]{}"\\ab1-+:,/*\n\t \x80', 600)
    _check(modules, inputs, 5)
