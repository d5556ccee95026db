"""Code points above %xFF: UTF-8 range splitting, the encoding choice, and what every stage
after lowering makes of it (DFAs, the interpreter, generated Python, check's reports, lint).

The splitting is checked exhaustively against Python's encoder: the byte sequences produced for
a range, enumerated in full, must be exactly the UTF-8 encodings of the scalar values in the
range, in order -- so every scalar value U+0000..U+10FFFF is matched when it is in the range and
not otherwise, and no other byte string is matched at all.
"""
from __future__ import annotations

import itertools
import random

import pytest
from conftest import ROOT, UTF8_GRAMMAR, compile_text, grammar_from_text, python_module
from helpers.cli import run_cli

import abnfc
from abnfc import interpret
from abnfc.automata import product
from abnfc.charset import intersect, normalize
from abnfc.engines import InterpreterEngine, check_bytes, choose_engine
from abnfc.errors import AbnfError
from abnfc.frontend.encoding import MAX_CODE_POINT, format_code_points, led_by, sequences
from abnfc.frontend.parse import parse
from abnfc.frontend.resolve import resolve
from abnfc.pipeline import Compilation

SURROGATES = range(0xD800, 0xE000)
# RFC 3987 section 2.2: ucschar and iprivate.
RFC3987_RANGES = [
    (0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF), (0x10000, 0x1FFFD), (0x20000, 0x2FFFD),
    (0x30000, 0x3FFFD), (0x40000, 0x4FFFD), (0x50000, 0x5FFFD), (0x60000, 0x6FFFD),
    (0x70000, 0x7FFFD), (0x80000, 0x8FFFD), (0x90000, 0x9FFFD), (0xA0000, 0xAFFFD),
    (0xB0000, 0xBFFFD), (0xC0000, 0xCFFFD), (0xD0000, 0xDFFFD), (0xE1000, 0xEFFFD),
    (0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD),
]
# Where encodings change length or a continuation byte wraps: the cases the splitting must get right.
EDGES = sorted({0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFF,
                0x10000, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000, MAX_CODE_POINT, 0x83F, 0x840, 0x103FF})


def language(low: int, high: int) -> list[bytes]:
    """Every byte string the sequences for ``low..high`` match, sequence by sequence."""
    return [bytes(combo) for sequence in sequences(low, high)
            for combo in itertools.product(*(range(lo, hi + 1) for lo, hi in sequence))]


def encodings(low: int, high: int) -> list[bytes]:
    return [chr(c).encode("utf-8") for c in range(low, high + 1) if c not in SURROGATES]


def assert_exact(low: int, high: int) -> None:
    assert language(low, high) == encodings(low, high), f"{low:#x}-{high:#x}"


def random_ranges(rng: random.Random, count: int, widest: int) -> list[tuple[int, int]]:
    found = []
    for _ in range(count):
        low = rng.choice([rng.randrange(MAX_CODE_POINT + 1), rng.choice(EDGES)])
        found.append((low, min(MAX_CODE_POINT, low + rng.randrange(widest))))
    return found


# -- the splitting ------------------------------------------------------------------------------

def test_the_full_range_gives_the_nine_classic_sequences():
    shown = [" ".join(f"{lo:02X}-{hi:02X}" for lo, hi in seq) for seq in sequences(0, MAX_CODE_POINT)]
    assert shown == ["00-7F", "C2-DF 80-BF", "E0-E0 A0-BF 80-BF", "E1-EC 80-BF 80-BF", "ED-ED 80-9F 80-BF",
                     "EE-EF 80-BF 80-BF", "F0-F0 90-BF 80-BF 80-BF", "F1-F3 80-BF 80-BF 80-BF",
                     "F4-F4 80-8F 80-BF 80-BF"]


def test_surrogates_are_left_out_and_a_range_of_only_surrogates_is_empty():
    assert sequences(0xD800, 0xDFFF) == []
    assert sequences(0xD7FF, 0xE000) == [((0xED, 0xED), (0x9F, 0x9F), (0xBF, 0xBF)),
                                         ((0xEE, 0xEE), (0x80, 0x80), (0x80, 0x80))]


def test_ranges_between_and_around_edges_are_exact():
    for low, high in itertools.combinations_with_replacement(EDGES, 2):
        if high - low <= 0x1100:
            assert_exact(low, high)
    for edge in EDGES:
        for low, high in [(edge - 0x41, edge), (edge, edge + 0x41), (edge - 0x1001, edge + 0x3F)]:
            assert_exact(max(0, low), min(MAX_CODE_POINT, high))


def test_small_random_ranges_are_exact():
    rng = random.Random(3987)
    for low, high in random_ranges(rng, 200, 3000):
        assert_exact(low, high)


@pytest.mark.slow
def test_every_scalar_value_in_the_full_range_and_large_random_ranges():
    assert_exact(0, MAX_CODE_POINT)
    for low, high in random_ranges(random.Random(8259), 12, 200_000):
        assert_exact(low, high)


@pytest.mark.slow
def test_the_ranges_of_rfc_3987_are_exact():
    for low, high in RFC3987_RANGES:
        assert_exact(low, high)


@pytest.mark.slow
def test_lead_bytes_give_the_code_points_they_start():
    started: dict[int, list[int]] = {}  # lead byte -> [first, last] code point it starts
    for code in range(MAX_CODE_POINT + 1):
        span = started.setdefault(chr(code).encode("utf-8", "surrogatepass")[0], [code, code])
        span[1] = code
    for lo, hi in [(0x41, 0x41), (0xC2, 0xC3), (0xE0, 0xE0), (0xED, 0xEF), (0xF0, 0xF4), (0x80, 0xBF),
                   (0xC0, 0xC1), (0xF5, 0xFF), (0x00, 0xFF)]:
        expected = normalize((a, b) for lead, (a, b) in started.items() if lo <= lead <= hi)
        assert led_by(((lo, hi),)) == expected, (lo, hi)


def test_lead_bytes_examples_and_range_helpers():
    assert led_by(((0x41, 0x41), (0xC3, 0xC3), (0xED, 0xED), (0x80, 0xBF), (0xF5, 0xFF))) == (
        (0x41, 0x41), (0xC0, 0xFF), (0xD000, 0xDFFF))
    assert led_by(((0xF4, 0xFF),)) == ((0x100000, MAX_CODE_POINT),)
    assert intersect(((0, 10), (20, 30)), ((5, 25),)) == ((5, 10), (20, 25))
    assert format_code_points(((0x20, 0x7E), (0x1F600, 0x1F600))) == "U+0020-007E / U+1F600"


# -- through the automata -----------------------------------------------------------------------

def test_any_code_point_sequence_is_rfc_3629_utf8():
    """``*%x00-10FFFF`` read as code points is exactly RFC 3629's UTF8-octets, written by hand."""
    ours = compile_text("r = *%x00-10FFFF\n", setup=("utf-8", ())).minimal
    utf8 = abnfc.compile_grammar(UTF8_GRAMMAR).minimal
    assert product.equivalent(ours, utf8)


def accepted_words(dfa, longest: int = 4) -> list[bytes]:
    """Every input of at most ``longest`` bytes the DFA accepts, in byte order."""
    words, stack = [], [(dfa.start, b"")]
    while stack:
        state, word = stack.pop()
        if state in dfa.accepting and word:
            words.append(word)
        if len(word) < longest:
            for cls in reversed(range(dfa.num_classes)):
                target = dfa.transitions[state][cls]
                if target != dfa.dead:
                    stack.extend((target, word + bytes([b])) for lo, hi in reversed(dfa.classes[cls])
                                 for b in range(hi, lo - 1, -1))
    return sorted(words)


def test_compiled_ranges_accept_exactly_the_encodings():
    rng = random.Random(5234)
    for low, high in [(0x80, 0x80), (0xA0, 0xD7FF), (0xD000, 0xE0FF), *random_ranges(rng, 6, 5000)]:
        minimal = compile_text(f"r = %x{low:X}-{high:X}\n", setup=("utf-8", ())).minimal
        assert accepted_words(minimal) == sorted(encodings(low, high)), f"{low:#x}-{high:#x}"


def test_values_are_code_points_in_utf8_mode_and_bytes_in_octets_mode():
    text = 'r = %x80 %xE9.20AC "a"\n'
    utf8 = compile_text(text, setup=("utf-8", ())).minimal
    assert utf8.matches("\x80é€A".encode()) and not utf8.matches(b"\x80\xe9\x20\xac")
    octets = compile_text('r = %x80 %xE9 "a"\n').minimal
    assert octets.matches(b"\x80\xe9a")


def test_the_interpreter_reads_code_points_as_utf8():
    resolved = resolve(parse("r = 1*( %x41 / %x1F600-1F64F / r2 )\nr2 = %x3B1-3C9\n"))
    assert resolved.encoding == "utf-8"
    assert interpret.recognize(resolved, "A😀αω".encode()).matched
    assert interpret.recognize(resolved, "A😀\ud800".encode("utf-8", "surrogatepass")).offset == 5


# -- choosing the encoding ----------------------------------------------------------------------

def test_the_encoding_is_chosen_from_the_reachable_rules():
    assert resolve(parse("r = %x100\n")).encoding == "utf-8"
    assert resolve(parse("r = %xFF\n")).encoding == "octets"
    unused = resolve(parse("r = %xFF\nunused = %x263A\n"))
    assert unused.encoding == "octets"
    [warning] = [w for w in unused.warnings if "263A" in w.message]
    assert "above %xFF" in warning.message and "does not use" in warning.message
    note = resolve(parse("r = %x41 %x263A\n")).notes[0]
    assert note.severity == "note" and "encoding utf-8 chosen: terminal value %x263A" in note.message


@pytest.mark.parametrize("text, encoding, message", [
    ("r = %x100\n", "octets", "terminal value %x100 is above %xFF"),
    ("r = %x110000\n", "utf-8", "above %x10FFFF, the last Unicode code point"),
    ("r = %x10FFFF-110000\n", None, "above %x10FFFF"),
    ("r = %xD800\n", "utf-8", "is a surrogate"),
    ("r = %x41.DC00\n", "utf-8", "is a surrogate"),
    ("r = %xD800-DBFF\n", "utf-8", "holds only surrogates"),
])
def test_values_the_encoding_cannot_hold_are_errors_where_reachable(text, encoding, message):
    with pytest.raises(AbnfError, match=message):
        resolve(parse(text), encoding=encoding)
    resolve(parse(f"s = %x41\n{text}"), encoding=encoding)  # unreachable: a warning only


def test_a_range_spanning_the_surrogates_gets_a_note():
    notes = resolve(parse("r = %xD000-E000\n"), encoding="utf-8").notes
    assert any("spans the surrogates" in n.message for n in notes)
    assert not resolve(parse("r = %xE000-F000\n"), encoding="utf-8").notes


def test_a_byte_grammar_means_something_else_read_as_code_points():
    """RFC 3629's grammar describes bytes: it needs octets, which is what abnfc chooses for it."""
    as_bytes = abnfc.compile_grammar(UTF8_GRAMMAR).minimal
    as_code_points = abnfc.compile_grammar(abnfc.load_grammar(UTF8_GRAMMAR, encoding="utf-8")).minimal
    assert as_bytes.matches("é".encode()) and not as_code_points.matches("é".encode())
    assert as_code_points.matches("\u00c3\u00a9".encode())  # U+00C3 U+00A9: C3 83 C2 A9


def test_quoted_strings_stay_ascii_and_fold_case_in_utf8_mode():
    minimal = compile_text('r = "ab" %s"C" %x263A\n').minimal
    assert minimal.matches("AbC☺".encode()) and not minimal.matches("abc☺".encode())


# -- generated code, reports and the command line -----------------------------------------------

def test_generated_python_accepts_str_in_utf8_mode_only():
    module = python_module("r = *( %x61-7A / %xA0-D7FF / %xE000-10FFFF )\n")
    assert module.ENCODING == "utf-8" and "Built in utf-8 mode" in (module.__doc__ or "")
    assert module.is_valid("grüße😀") and module.is_valid("grüße😀".encode())
    # "a\ud800b" is checked as 61 ED A0 80 62: ED may start U+D000-D7FF, A0 cannot follow it.
    assert not module.is_valid("a\ud800b") and module.first_error("a\ud800b") == 2
    assert module.first_error("ab\udfff") == 3 and not module.is_valid("A")
    validator = module.Validator()
    assert validator.feed("é") and validator.feed(b"\xf0\x9f") and not validator.complete
    octets = python_module("r = *%x61-7A\n")
    assert octets.ENCODING == "octets" and "Built in octets mode" in (octets.__doc__ or "")
    with pytest.raises(TypeError, match="pass bytes"):
        octets.is_valid("abc")


def test_generated_headers_record_the_encoding():
    files = abnfc.generate_files(grammar_from_text("r = %x263A\n"), "c")
    assert "Encoding: utf-8 (terminal values are Unicode code points" in files["g.h"]
    files = abnfc.generate_files(abnfc.load_grammar(text="r = %x41\n", name="o.abnf", encoding="octets"), "js")
    assert "Encoding: octets (each terminal value of the grammar is one byte)" in files["o.mjs"]


CHECK_GRAMMAR = "r = 1*( %x41-5A / %xA0-D7FF / %x1F600 )\n"


@pytest.mark.parametrize("engine", ["dfa", "interpreter"])
def test_check_reports_code_points_at_a_character_boundary(engine):
    chosen = choose_engine(Compilation(grammar_from_text(CHECK_GRAMMAR)), engine)
    report = check_bytes(chosen, "ABé!".encode(), "x").report()
    assert report.splitlines()[0] == ("x: invalid at offset 4: unexpected U+0021 '!'; expected "
                                      "U+0041-005A / U+00A0-D7FF / U+1F600 or the end of the input")  # 'ABé' is whole
    assert report.splitlines()[-1] == "  rule r expects U+0041-005A / U+00A0-D7FF / U+1F600"
    inside = check_bytes(chosen, b"A\xf0\x9f\x98\x81", "y").report()  # inside a character: bytes
    assert inside.splitlines()[0] == "y: invalid at offset 4: unexpected byte 0x81; expected %x80"


def test_check_keeps_bytes_for_ascii_expectations_and_octets_grammars():
    chosen = InterpreterEngine(resolve(parse("r = %x41 %x263A\n")))
    assert "expected %x41" in check_bytes(chosen, b"B", "x").report()
    octets = InterpreterEngine(resolve(parse("r = %x41 %xE9\n")))
    assert "expected %xE9" in check_bytes(octets, b"A!", "x").report()


def test_lint_and_compile_report_the_encoding(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    status, out, err = run_cli(capsys, "lint", "grammars/json.abnf")
    assert status == 0 and "encoding utf-8, 0 warnings; recursive" in out
    assert "note: encoding utf-8 chosen" in err and "spans the surrogates" in err
    status, out, err = run_cli(capsys, "lint", "grammars/utf8.abnf")
    assert status == 0 and "encoding octets" in out and not err
    status, out, err = run_cli(capsys, "lint", "grammars/json.abnf", "--encoding", "octets")
    assert status == 2 and "%x5D-10FFFF is above %xFF" in err
    status, out, err = run_cli(capsys, "compile", "grammars/json.abnf", "--start", "string", "--lang",
                               "python", "--out", str(tmp_path))
    assert status == 0, err
    text = (tmp_path / "g_json.py").read_text()  # json.py would shadow Python's own json
    assert "grammars/json.abnf --encoding utf-8 --start string --lang python --out ." in text
    status, out, err = run_cli(capsys, "compile", "grammars/json.abnf", "--start", "string", "--lang",
                               "python", "--out", str(tmp_path), "--check")
    assert status == 0 and "up to date" in out, err


def test_errors_only_in_unused_rules_are_warnings():
    resolved = resolve(parse('r = "a"\nu = %x50-40 3*2"x" %x110000 <prose> undefined\n'))
    messages = sorted(w.message for w in resolved.warnings)
    assert [m for m in messages if "does not use" in m] == [
        "range %x50-40 is empty: its low end is above its high end (in a rule the start rule does not use)",
        "repetition 3*2 has a minimum above its maximum (in a rule the start rule does not use)",
        "terminal value %x110000 is above %xFF, so it is not an octet; with --encoding utf-8 values are "
        "Unicode code points (in a rule the start rule does not use)",
        "undefined rule 'undefined' (in a rule the start rule does not use)",
    ]
    with pytest.raises(AbnfError, match="range %x50-40 is empty"):
        resolve(parse('r = "a" u\nu = %x50-40\n'))
