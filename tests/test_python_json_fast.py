"""The fast verdict of generated Python pushdown validators (:mod:`abnfc.backends.python.reductions`)
against the same module without it.

Each grammar's module is rendered as generated, without its reductions, and with its reductions
(tried from the first byte on, not after the loop's first bytes) but neither run patterns nor
loop skips.  On every input all three agree on ``first_error`` or
the NestingError offset (with the default depth limit and small ones), and with the reference
``Pushdown.run``; and wherever ``_proved_valid`` says valid, the byte loop alone accepts the
input within that depth limit (the soundness the module docstring argues).  Inputs:
JSONTestSuite, generated documents and mutations of them, placeholder bytes, brackets inside
strings, deep nesting around the depth limit, and random bytes of other grammars' alphabets.
"""
from __future__ import annotations

import importlib.util
import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import nested
from helpers.paths import ROOT
from helpers.walks import one_byte_edits

from abnfc.automata.pushdown import NestingError, Pushdown
from abnfc.backends.python import BACKEND
from abnfc.backends.python.plan import lower
from abnfc.backends.python.render import render
from abnfc.backends.python.runner import runners
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation

SUITE = ROOT / "tests" / "data" / "jsontestsuite"
LIMITS = (None, 0, 1, 2, 3, 4, 5)  # None: the module's MAX_DEPTH
# Before Python 3.11.5 re's possessive quantifiers match wrongly (CPython gh-106052), so the
# modules leave the fast verdict out there: it proves nothing and the loop decides everything.
FAST_IN_USE = sys.version_info >= (3, 11, 5)


def _bench_document(size: int, seed: int) -> bytes:
    spec = importlib.util.spec_from_file_location("bench_json", ROOT / "bench" / "bench_json.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.document(size, seed=seed)


def _modules(compilation: Compilation, folder: Path):
    """(as generated, without reductions, reductions and the byte loop only and the passes from the
    first byte on, reference automaton)."""
    tables = replace(compilation.tables(), header=compilation.header("test"))
    plan = lower(tables, {**BACKEND.defaults(), "prefix": "validator"})
    assert plan.reductions is not None, "no reductions were derived"
    eager = replace(plan.reductions, loop_first=0)  # short inputs, too, take the passes
    modules = []
    for name, variant in [("full", plan), ("plain", replace(plan, reductions=None)),
                          ("reduced", replace(plan, runs=(), loops=(), reductions=eager))]:
        (folder / name).mkdir()
        [module] = runners([render(variant)], folder / name)
        modules.append(module)
    full, plain, reduced = modules
    assert "_REDUCE" in vars(full) and "_REDUCE" not in vars(plain) and "_RUNS" not in vars(reduced)
    return full, plain, reduced, compilation.pushdown_automaton()


def _answer(module, data, limit):
    try:
        return "error", module.first_error(data, limit)
    except module.NestingError as error:
        return "too deep", error.offset


def _reference(automaton: Pushdown, data: bytes, limit: int):
    try:
        return "error", automaton.run(data, limit)[0]
    except NestingError as error:
        return "too deep", error.offset


def _check(modules, inputs: list[bytes]) -> int:
    """Every answer equal; returns how many (input, limit) the fast verdict proved valid."""
    full, plain, reduced, automaton = modules
    proved = 0
    for data in inputs:
        for limit in LIMITS:
            limit = full.MAX_DEPTH if limit is None else limit
            answer = _answer(plain, data, limit)
            assert _answer(full, data, limit) == answer, (data[:200], limit)
            assert _answer(reduced, data, limit) == answer, (data[:200], limit)
            assert _reference(automaton, data, limit) == answer, (data[:200], limit)
            if answer[0] == "error":
                assert full.is_valid(data, limit) == (answer[1] is None)
            if full._proved_valid(data, limit):
                assert answer == ("error", None), (data[:200], limit)
                assert reduced._proved_valid(bytearray(data), limit)
                proved += 1
    return proved


@pytest.fixture(scope="module")
def json_modules(tmp_path_factory):
    return _modules(Compilation(load(str(ROOT / "grammars" / "json.abnf"))), tmp_path_factory.mktemp("json"))


def _expect_proofs(proved: int, least: float) -> None:
    """At least ``least`` inputs proved valid by the fast verdict, or none where it is left out."""
    if FAST_IN_USE:
        assert proved >= least, (proved, least)
    else:
        assert proved == 0, proved


def test_json_suite(json_modules):
    inputs = [path.read_bytes() for path in sorted(SUITE.glob("*.json"))]
    assert len(inputs) > 300
    valid = [data for data in inputs if json_modules[1].first_error(data) is None]
    proved = [data for data in valid if json_modules[0]._proved_valid(data, json_modules[0].MAX_DEPTH)]
    _expect_proofs(len(proved), int(0.9 * len(valid)) + 1)
    _expect_proofs(_check(json_modules, inputs), 101)


def test_json_documents_andone_byte_edits(json_modules):
    rng = random.Random(11)
    documents = [_bench_document(size, seed) for seed, size in enumerate((200, 1500, 6000, 20000))]
    for document in documents:  # the documents the benchmark times are proved, not left to the loop
        assert json_modules[0]._proved_valid(document, json_modules[0].MAX_DEPTH) == FAST_IN_USE
    alphabet = b'"\\{}[]:,0 -.eE\x01\x80\xe6tnu\xfe\xff'
    inputs = documents + [m for d in documents for m in one_byte_edits(d, rng, 80, alphabet)]
    _expect_proofs(_check(json_modules, inputs), 4 * len(documents))


def test_json_placeholders_and_strings(json_modules):
    """Placeholder bytes in the input, and strings holding what reads as a whole nested part."""
    inputs = [b"\xff", b"\xfe", b"[\xff]", b"[\xfe]", b'{"a":\xfe}', b'{"a":\xff}', b"[[]\xff]", b"[1,\xff,[]]",
              b'["[1]"]', b'["{}", "[]", "[[]]"]', b'{"a]": "{\\"b\\": []}"}', b'"[1]"', b'["]"]', b'{"}":"{"}',
              b'["\\"[]"]', b"[]", b"{}", b"[[],{}]", b" [ ] ", b"[1 2]", b"[1,]", b"{,}", b"[}", b"{]",
              b'{"a" [] }', b'{"a":[}]', b"[[[1]]]]", b"[[[1]]"]
    _check(json_modules, inputs)


def test_json_deep_nesting(json_modules):
    inputs = [b"[" * depth + b"]" * depth for depth in (1, 2, 3, 4, 5, 6, 7, 40, 1100, 3000)]
    padding = b'"' + b"x" * 5000 + b'"'  # past the bytes the loop reads before the passes
    inputs += [b"[" * depth + padding + b"]" * depth for depth in (1, 2, 3, 4, 5)]
    inputs += [b"[" * depth + padding + b"]" * (depth - 1) for depth in (2, 4)]
    inputs += [b'{"a":' * depth + b"[1]" + b"}" * depth for depth in (1, 2, 3, 4, 31, 32, 33)]
    inputs += [b'{"a":' * 4 + b"[1]" + b"}" * 3, b"[" * 5 + b"]" * 6, b"[" * 6 + b"]" * 5]
    _expect_proofs(_check(json_modules, inputs), 1)
    full = json_modules[0]
    assert not full._proved_valid(b"[" * 1100 + b"]" * 1100, full.MAX_DEPTH)  # beyond the passes: the loop decides
    assert not full._proved_valid(b"[[[]]]", 2)  # deeper than the limit lets a pass go


def test_json_other_buffers(json_modules):
    full, plain = json_modules[0], json_modules[1]
    document = _bench_document(3000, 5)
    for data in (memoryview(document), document.decode(), bytearray(document), document[:-5]):
        assert full.first_error(data) == plain.first_error(data)


@pytest.mark.parametrize("source", nested.SOURCES)
def test_other_grammars_random(source, tmp_path):
    modules = _modules(Compilation(nested.nested_grammar(source)), tmp_path)
    inputs = nested.random_inputs(source, b'()[]{}"\\ab1-+:,/*\n\t \x80\xfe\xff', 400)
    _expect_proofs(_check(modules, inputs), 1)
