"""The generated Python module generated/utf8.py: examples, exhaustive agreement, incremental API."""
from __future__ import annotations

import multiprocessing
import random

import pytest

from abnfc.backends import tables as neutral
from abnfc.backends.python import plan

from conftest import ROOT, compile_text, decodes, import_file, python_module, utf8_vectors

VALID = ["41", "C2 A9", "E4 BD A0", "F0 9F 98 80", "79", "C3 A4", "C2 AE", "E2 82 AC", "F0 9D 84 9E", ""]
INVALID = {"C0 80": 0, "ED A0 80": 1, "F5 80 80 80": 0, "E4 BD": 2, "C0 AF": 0, "ED A1 8C ED BE B4": 1}


@pytest.mark.parametrize("hex_text", VALID)
def test_seed_examples_that_are_valid(utf8_module, hex_text):
    data = bytes.fromhex(hex_text)
    assert utf8_module.is_valid(data) and utf8_module.first_error(data) is None


@pytest.mark.parametrize("hex_text, offset", INVALID.items())
def test_seed_examples_that_are_invalid(utf8_module, hex_text, offset):
    data = bytes.fromhex(hex_text)
    assert not utf8_module.is_valid(data)
    assert utf8_module.first_error(data) == offset


def test_accepts_bytes_like_objects_and_refuses_str(utf8_module):
    data = "Grüße, 你好 😀".encode()
    assert utf8_module.is_valid(bytearray(data)) and utf8_module.is_valid(memoryview(data))
    assert utf8_module.first_error(memoryview(data)[3:]) == 0  # byte 3 is the tail of 'ü'
    import array

    assert utf8_module.is_valid(array.array("B", data))
    with pytest.raises(TypeError, match="pass bytes"):
        utf8_module.is_valid("text")


def test_conformance_vectors(utf8_module):
    vectors = utf8_vectors()
    assert len(vectors) > 1000
    for data, valid, note in vectors:
        assert decodes(data) == valid, note  # the shared file agrees with Python's codec
        assert utf8_module.is_valid(data) == valid, note


def _agreement_for_first_byte(first: int) -> list[bytes]:
    module = import_file(ROOT / "generated" / "utf8.py")
    wrong = []
    for second in range(256):
        prefix = bytes((first, second))
        for third in range(256):
            data = prefix + bytes((third,))
            if module.is_valid(data) != decodes(data):
                wrong.append(data)
    return wrong


@pytest.mark.slow
def test_exhaustive_agreement_with_python_decode_up_to_three_bytes(utf8_module):
    short = [b""] + [bytes((a,)) for a in range(256)] + [bytes((a, b)) for a in range(256) for b in range(256)]
    assert [s for s in short if utf8_module.is_valid(s) != decodes(s)] == []
    with multiprocessing.get_context("fork").Pool(2) as pool:
        wrong = [w for part in pool.map(_agreement_for_first_byte, range(256)) for w in part]
    assert wrong == []


def _random_inputs(count: int, seed: int = 7) -> list[bytes]:
    rng = random.Random(seed)
    alphabet = [b"a", "ü".encode(), "你".encode(), "😀".encode(), b"\x80", b"\xed\xa0", b"\xf4\x90", b"\xc0"]
    return [b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(count)]


def test_incremental_validator_agrees_with_whole_buffer_at_every_split(utf8_module):
    inputs = [bytes.fromhex(h) for h in VALID + list(INVALID)] + _random_inputs(150)
    for data in inputs:
        whole = utf8_module.first_error(data)
        for cut in range(len(data) + 1):
            validator = utf8_module.Validator()
            validator.feed(data[:cut])
            validator.feed(data[cut:])
            assert validator.first_error() == whole, (data, cut)
            assert validator.complete == (whole is None)
            assert validator.offset == len(data)


def test_incremental_validator_in_single_bytes_and_expected_bytes(utf8_module):
    validator = utf8_module.Validator()
    assert validator.complete  # the empty input is valid UTF-8
    for byte in b"a\xed":
        assert validator.feed(bytes((byte,)))
    assert not validator.complete and validator.first_error() == 2
    assert validator.expected() == [(0x80, 0x9F)]
    after_ed = validator.state
    assert utf8_module._ROWS[utf8_module.START][0xED] == after_ed
    assert validator.feed(b"\xa0") is False and validator.first_error() == 2
    assert validator.feed(b"more") is False and validator.offset == 7
    assert validator.state == after_ed  # the state before the byte that failed


def test_generated_module_for_a_grammar_with_many_states_and_no_skip_pattern():
    module = python_module('r = 1*300("ab" / %x30-39) "!"')
    assert len(module.TRANSITIONS) > 256  # rows become tuples instead of bytes
    assert module.is_valid(b"ab12AB!") and module.first_error(b"ab1x") == 3
    assert module.first_error(b"01" * 151 + b"!") == 300


def test_skip_patterns_are_bounded_for_large_automata_and_keep_results_exact():
    """A 2049-state DFA: skip patterns are sought for a bounded number of states only, and the
    module still gives the table loop's answers."""
    text = "r = *(%x61 / %x62) %x61 10(%x61 / %x62)"  # the 11th byte from the end is 'a'
    module = python_module(text)
    assert len(module.TRANSITIONS) == 2049
    assert 0 < len(module._SKIP) <= plan.MAX_SKIP_HUBS
    rng = random.Random(7)
    for _ in range(200):
        data = bytes(rng.choice(b"ab") for _ in range(rng.randrange(11, 60)))
        assert module.is_valid(data) == (data[-11] == ord("a"))
    assert module.first_error(b"abc") == 2


def _tables(text: str) -> neutral.Tables:
    return neutral.make_tables(compile_text(text).minimal, neutral.Header("g.abnf", text, "0" * 64, "r", "test"))


def test_skip_hubs_prefer_self_loops_and_respect_the_work_budget():
    small = _tables('r = *("ab") *%x30-39 "!"')
    hubs = plan._skip_hubs(small)
    looping = [s for s in hubs if s in small.states[s].targets]
    assert looping and hubs[:len(looping)] == looping and len(hubs) > len(looping)
    big = _tables("r = *(%x61 / %x62) %x61 12(%x61 / %x62)")
    assert len(plan._skip_hubs(big)) * big.num_states * big.num_classes <= plan.MAX_SKIP_WORK
