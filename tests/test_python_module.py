"""The generated Python module generated/utf8.py: examples, exhaustive agreement, incremental API."""
from __future__ import annotations

import itertools
import multiprocessing
import random
import sys
from pathlib import Path

import pytest
from conftest import ROOT, compile_text, decodes, files_for, import_file, python_module, utf8_vectors

from abnfc.backends import tables as neutral
from abnfc.backends.python import idioms, plan, skip
from abnfc.pipeline import load_validators

VALID = ["41", "C2 A9", "E4 BD A0", "F0 9F 98 80", "79", "C3 A4", "C2 AE", "E2 82 AC", "F0 9D 84 9E", ""]
INVALID = {"C0 80": 0, "ED A0 80": 1, "F5 80 80 80": 0, "E4 BD": 2, "C0 AF": 0, "ED A1 8C ED BE B4": 1}

# The generated modules leave their skip patterns out where re's possessive quantifiers match
# wrongly (before Python 3.11.5, CPython gh-106052), so the tests of those patterns skip there.
SKIPS_IN_USE = pytest.mark.skipif(sys.version_info < (3, 11, 5), reason="re before Python 3.11.5 matches "
                                  "possessive quantifiers wrongly: the generated modules use no skip patterns")


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


def _agreement_for_first_byte(job: tuple[str, int]) -> list[bytes]:
    path, first = job
    module = import_file(Path(path))
    wrong = []
    for second in range(256):
        prefix = bytes((first, second))
        for third in range(256):
            data = prefix + bytes((third,))
            if module.is_valid(data) != decodes(data):
                wrong.append(data)
    return wrong


@pytest.mark.slow
def test_exhaustive_agreement_with_python_decode_up_to_three_bytes(tmp_path):
    """The automaton of the generated module (built without the codec, --python-idioms off)
    against Python's codec on every string of up to 3 bytes."""
    [(name, text)] = files_for((ROOT / "grammars" / "utf8.abnf").read_text(), "python", "utf8_plain",
                               options={"idioms": "off"}).items()
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    plain = import_file(path)
    assert "_utf_8_decode" not in text
    short = [b""] + [bytes((a,)) for a in range(256)] + [bytes((a, b)) for a in range(256) for b in range(256)]
    assert [s for s in short if plain.is_valid(s) != decodes(s)] == []
    with multiprocessing.get_context("fork").Pool(2) as pool:
        wrong = [w for part in pool.map(_agreement_for_first_byte, [(str(path), b) for b in range(256)]) for w in part]
    assert wrong == []


def test_first_errors_with_the_codec_on_every_string_up_to_two_bytes(utf8_module, tmp_path):
    """generated/utf8.py asks the codec, then its automaton for the offset: the same first
    errors as the automaton alone."""
    [(name, text)] = files_for((ROOT / "grammars" / "utf8.abnf").read_text(), "python", "utf8_plain",
                               options={"idioms": "off"}).items()
    (tmp_path / name).write_text(text, encoding="utf-8")
    plain = import_file(tmp_path / name)
    short = [b""] + [bytes((a,)) for a in range(256)] + [bytes((a, b)) for a in range(256) for b in range(256)]
    short += [b"ab" + s + b"\xe4\xbd" for s in short[:300]]
    assert [s for s in short if utf8_module.first_error(s) != plain.first_error(s)] == []


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


@SKIPS_IN_USE
def test_skip_patterns_are_bounded_for_large_automata_and_keep_results_exact():
    """A 2049-state DFA: skip patterns are sought for a bounded number of states only, and the
    module still gives the table loop's answers."""
    text = "r = *(%x61 / %x62) %x61 10(%x61 / %x62)"  # the 11th byte from the end is 'a'
    module = python_module(text)
    assert len(module.TRANSITIONS) == 2049
    assert 0 < len(module._SKIP) <= skip.MAX_HUBS
    rng = random.Random(7)
    for _ in range(200):
        data = bytes(rng.choice(b"ab") for _ in range(rng.randrange(11, 60)))
        assert module.is_valid(data) == (data[-11] == ord("a"))
    assert module.first_error(b"abc") == 2


def _tables(text: str) -> neutral.Tables:
    return neutral.make_tables(compile_text(text).minimal, neutral.Header("g.abnf", text, "0" * 64, "r", "test"))


def test_skip_hubs_prefer_self_loops_and_respect_the_work_budget():
    small = _tables('r = *("ab") *%x30-39 "!"')
    hubs = skip._hubs(small)
    looping = [s for s in hubs if s in small.states[s].targets]
    assert looping and hubs[:len(looping)] == looping and len(hubs) > len(looping)
    big = _tables("r = *(%x61 / %x62) %x61 12(%x61 / %x62)")
    assert len(skip._hubs(big)) * big.num_states * big.num_classes <= skip.MAX_WORK


# --- skip patterns: readable, and always importable ------------------------------------------

def test_the_utf8_skip_pattern_reads_like_rfc3629():
    """One alternative of the start state a line, named after the rule and alternative that read
    its first byte, in re.VERBOSE form."""
    source = (ROOT / "generated" / "utf8.py").read_text(encoding="utf-8")
    for line in ["[\\x00-\\x7f]++                        # UTF8-1",
                 "| [\\xc2-\\xdf] [\\x80-\\xbf]              # UTF8-2",
                 "| \\xe0 [\\xa0-\\xbf] [\\x80-\\xbf]         # UTF8-3, alternative 1",
                 "| [\\xe1-\\xec\\xee-\\xef] [\\x80-\\xbf]{2}  # UTF8-3, alternatives 2 and 4",
                 "| \\xf4 [\\x80-\\x8f] [\\x80-\\xbf]{2}      # UTF8-4, alternative 3"]:
        assert f"        {line}\n" in source, line
    assert '_re.VERBOSE).match' in source


def test_verbose_and_compact_patterns_match_alike():
    """The VERBOSE pattern the module compiles matches exactly what the compact one does."""
    import re

    for text in [(ROOT / "grammars" / name).read_text() for name in ("utf8.abnf", "uri.abnf", "datetime.abnf")]:
        tables = _tables(text)
        rendered = {p.state: p for p in plan.lower(tables, {"prefix": "g"}).skip_patterns}
        rng = random.Random(text)
        for pattern in skip.skip_patterns(tables):
            compact = re.compile(pattern.pattern.encode())
            verbose = re.compile(("(?:\n" + "\n".join(rendered[pattern.state].lines) + "\n)*+").encode(), re.VERBOSE)
            alphabet = bytes(range(256)) if "UTF8" in text else b"az09:/?#[]@%.-AF"
            for _ in range(300):
                data = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
                short, long = compact.match(data), verbose.match(data)
                assert short is not None and long is not None  # *+ matches the empty string at least
                assert short.end() == long.end(), data


@SKIPS_IN_USE
def test_deep_and_long_skip_patterns_are_cut_so_the_module_imports():
    """re.compile recurses once a nested group: ``*500"a"`` inside a loop would nest 500 groups
    (and failed to import before); paths nested deeper than skip.MAX_DEPTH are left to the table
    loop, and the answers stay exact."""
    module = python_module('s = *( *500"a" "b" )')
    assert list(module._SKIP) and module.is_valid(b"a" * 500 + b"b") and module.is_valid(b"b" * 3)
    assert module.first_error(b"a" * 501 + b"b") == 500 and module.first_error(b"a" * 200) == 200
    rng = random.Random(3)
    for _ in range(100):
        data = b"".join(b"a" * rng.choice([0, 1, 63, 64, 65, 300, 500, 501]) + b"b" for _ in range(rng.randrange(1, 4)))
        runs = [len(run) for run in data.split(b"b")[:-1]]
        assert module.is_valid(data) == all(n <= 500 for n in runs), runs
    # paths that branch and meet again: written out, the pattern doubles with every step
    text = 'w = *( 16( "ab" / "c" ) "!" )'
    assert all(len(p.pattern) <= skip.MAX_LENGTH for p in skip.skip_patterns(_tables(text)))
    wide, dfa = python_module(text), compile_text(text).minimal
    for _ in range(100):
        data = b"".join(rng.choice([b"ab", b"c", b"!", b"a"]) for _ in range(rng.randrange(0, 60)))
        assert wide.first_error(data) == dfa.first_error(data), data


def _word_list(count: int) -> tuple[str, list[bytes]]:
    """A grammar of ``count`` random words, each ended by ";", repeated: one long alternation."""
    rng = random.Random(count)
    words = sorted({"".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 8))) for _ in range(count)})
    return "s = *( ( " + " / ".join(f'"{w}"' for w in words) + ' ) ";" )\n', [w.encode() for w in words]


def _check_word_list(module, dfa, words: list[bytes]):
    rng = random.Random(5)
    for _ in range(150):
        data = b"".join(rng.choice(words) + b";" for _ in range(rng.randrange(0, 30)))
        if rng.random() < 0.5 and data:  # spoil a byte
            at = rng.randrange(len(data))
            data = data[:at] + bytes([rng.choice(b"aq;")]) + data[at + 1:]
        assert module.first_error(data) == dfa.first_error(data), data


@SKIPS_IN_USE
def test_a_long_alternation_keeps_the_alternatives_that_fit(monkeypatch):
    """When every path back to the hub would make the pattern longer than MAX_LENGTH, the pattern
    keeps the shortest alternatives that fit; the others go through the table loop (here with
    the limit lowered, so that a small grammar needs it)."""
    text, words = _word_list(200)
    [whole] = skip.skip_patterns(_tables(text))
    monkeypatch.setattr(skip, "MAX_LENGTH", 1000)
    [pattern] = skip.skip_patterns(_tables(text))
    assert len(whole.pattern) > 3000 and 500 < len(pattern.pattern) <= 1000
    assert 0 < len(pattern.alternatives) < len(whole.alternatives)
    module = python_module(text)
    assert len(module._SKIP[1].__self__.pattern) < 2 * 1000  # the VERBOSE form adds spaces and comments
    _check_word_list(module, compile_text(text).minimal, words)


@SKIPS_IN_USE
@pytest.mark.slow
def test_a_long_alternation_at_full_size_imports_and_validates():
    """2,000 words (a 2,300-state DFA): all alternatives would make a pattern over MAX_LENGTH."""
    text, words = _word_list(2000)
    module = python_module(text)
    assert list(module._SKIP)
    _check_word_list(module, compile_text(text).minimal, words)


# --- idioms: built-ins where the language is proved equal ------------------------------------

def _plan(text: str, idioms: str = "auto") -> plan.PythonPlan:
    return plan.lower(_tables(text), {"prefix": "g", "idioms": idioms})


def _idiom_name(text: str) -> str | None:
    idiom = _plan(text).idiom
    return None if idiom is None else idiom.name


def test_idioms_are_recognised_by_equivalence_only():
    utf8_text = (ROOT / "grammars" / "utf8.abnf").read_text()
    idiom = _plan(utf8_text).idiom
    assert idiom is not None and idiom.name == "utf8" and idiom.resume == 1
    assert _plan(utf8_text, "off").idiom is None
    # the same language written differently, and near misses
    assert _idiom_name("r = *( %x00-7F / %xC2-DF t / %xE0 %xA0-BF t / %xE1-EC 2t / %xED %x80-9F t / %xEE-EF 2t /"
                 " %xF0 %x90-BF 2t / %xF1-F3 3t / %xF4 %x80-8F 2t )\nt = %x80-BF\n") == "utf8"
    assert _plan("r = *( %x00-7F / %xC2-DF t / %xE0-EF 2t / %xF0-F4 3t )\nt = %x80-BF\n").idiom is None
    assert _plan("r = *( %x00-7F / %xC2-DF %x80-BF )\n").idiom is None
    assert _plan("r = 1*%x00-7F\n").idiom is None  # not the empty string
    assert _idiom_name("r = *%x00-7F\n") == "ascii"
    assert _idiom_name("r = *( %x00-3F / %x40-7F )\n") == "ascii"
    assert _idiom_name("r = *OCTET\n") == "any"
    assert _plan((ROOT / "grammars" / "uri.abnf").read_text()).idiom is None


def test_the_reference_automaton_is_python_codec_on_short_strings():
    reference = idioms.sequences_star(*idioms.WELL_FORMED_UTF8)
    strings = [b""] + [bytes(t) for n in (1, 2) for t in itertools.product(range(256), repeat=n)]
    strings += [v for v, _, _ in utf8_vectors()]
    assert [s for s in strings if reference.matches(s) != decodes(s)] == []


def _modules(text: str):
    files = {mode: files_for(text, "python", f"g_{mode}", options={"idioms": mode}) for mode in ("auto", "off")}
    return load_validators([files["auto"], files["off"]], "python")


def test_idiom_modules_give_the_automaton_answers():
    """With and without the built-ins: the same first errors, memoryviews and pieces included."""
    rng = random.Random(11)
    alphabet = [b"a", b"\x7f", "ü".encode(), "你".encode(), "😀".encode(), b"\x80", b"\xed\xa0", b"\xf4\x90",
                b"\xc0", b"\xff", b"\xe4\xbd"]
    inputs = [b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(600)]
    for text in ((ROOT / "grammars" / "utf8.abnf").read_text(), "r = *%x00-7F\n", "r = *OCTET\n"):
        fast, slow = _modules(text)
        assert fast.__doc__ == slow.__doc__
        for data in inputs:
            for form in (data, bytearray(data), memoryview(data)):
                assert fast.first_error(form) == slow.first_error(form), (text, data)
                assert fast.is_valid(form) == slow.is_valid(form), (text, data)
        with pytest.raises(TypeError, match="pass bytes"):
            fast.is_valid("text")
    assert "_utf_8_decode(data" in files_for((ROOT / "grammars" / "utf8.abnf").read_text(), "python")["g.py"]
