"""The C backend: generated utf8.c/utf8.h compiled with gcc and driven by the harness in tests/c.

UTF-8 answers come from Python's strict ``bytes.decode`` (a string is the start of some valid
input when it decodes with one of a few completions appended), and for the 2^32 four-byte strings
from an oracle in C written from RFC 3629 section 3.  For the other
grammars the answers come from the minimal DFA the C was generated from (``Dfa.first_error``).
"""
from __future__ import annotations

import csv
import itertools
import os
import random
import re
import subprocess
import time
from pathlib import Path

import pytest
from conftest import DATA
from helpers.c_build import (
    CLANG,
    GCC,
    GXX,
    HARNESS_DIR,
    SANITIZE,
    STRICT,
    api_defines,
    build,
    generate,
    make_plan,
    needs_gcc,
    run_records,
    tool,
    write_records,
)
from helpers.cpu import cpu_has

from abnfc.backends.c import plan as c_plan
from abnfc.backends.c.render import render

ROOT = Path(__file__).resolve().parents[1]
UTF8_TEXT = (ROOT / "grammars" / "utf8.abnf").read_text(encoding="utf-8")
VECTORS = DATA / "utf8-vectors.tsv"
HARNESS_FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]

pytestmark = needs_gcc

# Worked examples (RFC 3629 and the encyclopedia article): bytes, expected first error.
EXAMPLES = [
    ("41", None), ("C2 A9", None), ("E4 BD A0", None), ("F0 9F 98 80", None), ("79", None),
    ("C3 A4", None), ("C2 AE", None), ("E2 82 AC", None), ("F0 9D 84 9E", None),
    ("41 E2 89 A2 CE 91 2E", None), ("ED 95 9C EA B5 AD EC 96 B4", None), ("EF BB BF F0 A3 8E B4", None),
    ("C0 80", 0), ("ED A0 80", 1), ("F5 80 80 80", 0), ("E4 BD", 2), ("C0 AF", 0),
    ("ED A1 8C ED BE B4", 1), ("", None), ("80", 0), ("41 FF", 1), ("F4 90 80 80", 1),
    ("E0 80 80", 1), ("F0 80 80 80", 1), ("F0 9F 98", 3), ("C2", 1),
]


# --- answers from Python's decoder -------------------------------------------------------------

# Whatever a string leaves open at its end, one of these completes it if anything does (after E0
# the next byte must be A0-BF, after F0 90-BF, after ED 80-9F, after F4 80-8F; 80 serves elsewhere).
COMPLETIONS = (b"", b"\x80", b"\x80\x80", b"\x80\x80\x80", b"\xa0\x80", b"\x90\x80\x80")


def decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def viable(data: bytes) -> bool:
    """Whether some valid UTF-8 starts with ``data``: Python decodes it with a completion.

    (Not ``codecs.utf_8_decode(data, "strict", False)``: CPython's incremental decoder keeps
    ED A0..ED BF pending as if a surrogate could still follow, though no valid input starts so.)
    """
    return any(decodes(data + tail) for tail in COMPLETIONS)


def utf8_first_error(data: bytes) -> int | None:
    """None if ``data`` decodes; else the first byte after which no valid input can continue,
    or ``len(data)`` when it ends inside a character (binary search: viability is prefix-closed)."""
    if decodes(data):
        return None
    lo, hi = 0, len(data)  # data[:lo] is viable; find the longest viable prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if viable(data[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def load_vectors() -> list[tuple[bytes, bool, str]]:
    with VECTORS.open(encoding="utf-8", newline="") as stream:
        return [(bytes.fromhex(row["hex"]), row["valid"] == "1", row["note"])
                for row in csv.DictReader(stream, delimiter="\t")]


_SEPARATOR = "\U0010FFFF".encode("utf-8")  # F4 8F BF BF; no test string below can decode to it


def decode_verdicts(length: int, suffix: bytes = b"") -> bytes:
    """One byte per string s of ``length`` bytes (first byte most significant): 1 when
    ``s + suffix`` decodes strictly, else 0.

    Vectorised: the strings of each first byte go into one buffer, each followed by U+10FFFF.
    That character starts with F4, which is no continuation byte, so it ends whatever the string
    before it left open, and no test string can produce it, so splitting the decoded-and-
    re-encoded buffer at it gives each string back with its undecodable bytes dropped ("ignore");
    a string decodes when none were dropped.
    """
    width = length + len(suffix)
    stride = width + len(_SEPARATOR)
    rest = [bytes(t) for t in itertools.product(range(256), repeat=length - 1)]
    template = bytearray(b"".join(b"\0" + t + suffix + _SEPARATOR for t in rest))
    keep = bytes(1 if n == width else 0 for n in range(256))
    out = bytearray()
    for first in range(256):
        template[0::stride] = bytes([first]) * len(rest)
        pieces = bytes(template).decode("utf-8", "ignore").encode("utf-8").split(_SEPARATOR)
        assert len(pieces) == len(rest) + 1 and pieces[-1] == b""
        out += bytes(map(len, pieces[:-1])).translate(keep)
    return bytes(out)


def verdict_map(length: int) -> bytes:
    """Bit 0: the string decodes; bit 1: it is viable (some completion above makes it decode)."""
    valid = int.from_bytes(decode_verdicts(length), "big")  # every byte 0 or 1: shifts stay inside
    viable_any = valid
    for suffix in COMPLETIONS[1:]:
        viable_any |= int.from_bytes(decode_verdicts(length, suffix), "big")
    return (valid | viable_any << 1).to_bytes(256 ** length, "big")


# --- fixtures ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def utf8(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("utf8"), UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")


@pytest.fixture(scope="module")
def utf8_checker(utf8):
    return build(utf8, "check_records.c", utf8.folder / "check", HARNESS_FLAGS)


@pytest.fixture(scope="module")
def utf8_sanitized(utf8):
    return build(utf8, "check_records.c", utf8.folder / "check_asan", SANITIZE)


def utf8_inputs() -> list[bytes]:
    """Examples, vectors, random text and the 64-byte block edges, for the checkers."""
    rng = random.Random(3629)
    chars = ["a", " ", "\x00", "\x7f", "ä", "ß", "\u07ff", "\u0800", "€", "你", "\ud7ff", "\ue000", "\uffff",
             "\U00010000", "😀", "\U0010ffff"]
    inputs = [bytes.fromhex(h) for h, _ in EXAMPLES] + [v for v, _, _ in load_vectors()]
    for _ in range(400):  # random text, sometimes with a random byte in it
        text = "".join(rng.choice(chars) for _ in range(rng.randrange(0, 70))).encode()
        if text and rng.random() < 0.5:
            at = rng.randrange(len(text))
            text = text[:at] + bytes([rng.randrange(256)]) + text[at + 1:]
        inputs.append(text[:200])
    for _ in range(100):  # random bytes, random lengths up to 200
        inputs.append(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 201))))
    for run in itertools.chain(range(0, 10), range(54, 75), range(118, 140)):  # ASCII then a character
        for char in ("ä", "€", "😀"):  # that crosses a block edge
            encoded = char.encode()
            inputs.append(b"a" * run + encoded + b"b" * 5)
            inputs.append(b"a" * run + encoded[:-1])  # cut short at the end
            inputs.append(b"a" * run + encoded[:-1] + b"a" * 70)  # cut short in the middle
    base = b""
    for char in "Grüße, 你好 😀! " * 12:  # valid text of about 130 bytes
        if len(base) + len(char.encode()) > 130:
            break
        base += char.encode()
    for at in range(len(base)):  # an error at every position of a 130-byte buffer
        inputs.append(base[:at] + b"\xff" + base[at + 1:])
        inputs.append(base[:at] + b"\x80" + base[at + 1:])
        inputs.append(base[:at])
    inputs.append(("ascii " * 500).encode() + "€".encode() + b"x" * 300)  # long, block-skipping
    return inputs


# --- the generated text ------------------------------------------------------------------------

def test_render_names_and_determinism():
    _, plan = make_plan(UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    first = render(plan)
    assert sorted(first) == ["utf8.c", "utf8.h"]
    for name, text in first.items():
        assert text.startswith("/*\n * Generated by abnfc "), name
        for line in plan.comments.header_lines:
            assert f" * {line}".rstrip() in text, (name, line)
        assert "DO NOT EDIT" in text.split("*/")[0]
        for line in plan.comments.grammar_lines:  # the grammar, embedded
            assert line.rstrip() in text, (name, line)
        assert "\r" not in text and "\t" not in text
    header, source = first["utf8.h"], first["utf8.c"]
    assert "#ifndef UTF8_H_INCLUDED" in header and 'extern "C"' in header
    for signature in ("bool utf8_is_valid(const void *data, size_t len);",
                      "size_t utf8_first_error(const void *data, size_t len);",
                      "void utf8_stream_init(utf8_stream *s);",
                      "bool utf8_stream_feed(utf8_stream *s, const void *data, size_t len);",
                      "size_t utf8_stream_finish(const utf8_stream *s);",
                      "bool utf8_stream_complete(const utf8_stream *s);",
                      "size_t utf8_stream_offset(const utf8_stream *s);",
                      "uint32_t utf8_stream_state(const utf8_stream *s);",
                      "size_t utf8_expected(uint32_t state, utf8_range *out, size_t cap);",
                      "size_t utf8_stream_expected(const utf8_stream *s, utf8_range *out, size_t cap);"):
        assert signature in header
    for line in plan.comments.table_lines:  # the readable table
        assert line.rstrip() in source
    includes = set(re.findall(r"#include <([^>]+)>", header + source))
    assert includes <= {"stdint.h", "stddef.h", "stdbool.h", "string.h", "immintrin.h", "arm_neon.h"}
    # the intrinsics headers (a third of a second to compile) only for the window test: x86-64's
    # and AArch64's instances
    assert "#ifdef UTF8_WINDOW_TEST_\n/*" in source and source.index("#include <immintrin.h>") > source.index(
        "#ifdef UTF8_WINDOW_TEST_X86_") > source.index("#ifdef UTF8_WINDOW_TEST_")
    assert source.index("#include <arm_neon.h>") > source.index("#ifdef UTF8_WINDOW_TEST_NEON_") > source.index(
        "#ifdef UTF8_WINDOW_TEST_")
    # SIMD only on x86 with GCC or clang, unless UTF8_NO_SIMD; the rest through builtins
    assert re.search(r"#if !defined\(UTF8_NO_SIMD\) && \(defined\(__x86_64__\) \|\| defined\(__i386__\)\) && "
                     r"\(defined\(__GNUC__\) \|\| defined\(__clang__\)\)\n#define UTF8_X86_ 1\n", source)
    assert "malloc" not in source
    # pairs strategy: a 256-entry row table written with class names, 16 to a line, and the pairs
    assert plan.strategy == "pairs" and [s.state for s in plan.skips.skip_sets] == [1]
    assert plan.pairs is not None and plan.table is None
    assert "static const uint64_t utf8_rows[256] = {" in source
    assert "    /* F0-FF */  UTF8_C9, UTF8_C10, UTF8_C10, UTF8_C10, UTF8_C11,  UTF8_C4," in source
    assert "#define UTF8_C8  UINT64_C(0x0000000000000780) /* class 8: ED */" in source
    assert "} utf8_pairs = { {" in source and "unsigned char flat[65536];" in source
    assert f"static const uint64_t utf8_pair_rows[{len(plan.pairs.pair_rows)}] = {{" in source
    # every private macro is undefined at the end, so unity builds of several grammars work
    defined = set(re.findall(r"^#define (\w+)", source, re.M))
    undefined = set(re.findall(r"^#undef (\w+)", source, re.M))
    assert defined == undefined and all(name.startswith("UTF8_") for name in defined)
    assert set(re.findall(r"^#define (\w+)", header, re.M)) == {"UTF8_H_INCLUDED", "UTF8_NUM_STATES",
                                                                  "UTF8_MAX_RANGES"}
    assert "start rule UTF8-octets" in source
    assert "utf8_low_block_" in source and "utf8_skip_simd_" in source


def test_comment_safe():
    c = c_plan
    assert c.comment_safe('r = "*/" / "/*" ; ??/ end  ') == 'r = "*\\/" / "/\\*" ; ?\\?/ end'
    assert "*/" not in c.comment_safe("**/*/") and "/*" not in c.comment_safe("/*/*")


# --- compiling ---------------------------------------------------------------------------------

COMPILERS = [pytest.param(GCC, id="gcc"),
             pytest.param(CLANG, id="clang", marks=pytest.mark.skipif(CLANG is None, reason="clang not found"))]


@pytest.mark.parametrize("compiler", COMPILERS)
def test_strict_warnings(utf8, compiler):
    command = [compiler, *STRICT, "-c", "-o", str(utf8.folder / "strict.o"), str(utf8.source)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(CLANG is None, reason="clang not found")
def test_clang_everything_and_answers(utf8, tmp_path):
    """clang's -Weverything (bar struct padding notes) is clean, and a clang build gives the same
    answers as Python's decoder on the shared inputs."""
    command = [tool(CLANG), "-std=c99", "-Weverything", "-Wno-padded", "-Werror", "-O2", "-c",
               "-o", str(tmp_path / "everything.o"), str(utf8.source)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    checker = build(utf8, "check_records.c", tmp_path / "check_clang", HARNESS_FLAGS, compiler=CLANG)
    inputs = utf8_inputs()
    assert run_records(checker, write_records(tmp_path / "inputs", inputs)) == \
        [utf8_first_error(data) for data in inputs]


@pytest.mark.skipif(GXX is None, reason="g++ not found")
def test_header_from_cplusplus(utf8):
    obj = utf8.folder / "utf8_for_cxx.o"
    subprocess.run([GCC, "-std=c99", "-O2", "-c", "-o", str(obj), str(utf8.source)], check=True)
    binary = utf8.folder / "cxx_check"
    command = [tool(GXX), "-std=c++11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", *api_defines(utf8),
               "-o", str(binary), str(HARNESS_DIR / "cxx_check.cpp"), str(obj)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert subprocess.run([str(binary)], capture_output=True, text=True).stdout == "ok\n"


# --- UTF-8 answers -----------------------------------------------------------------------------

def test_worked_examples(utf8_checker, tmp_path):
    records = write_records(tmp_path / "examples", [bytes.fromhex(h) for h, _ in EXAMPLES])
    got = run_records(utf8_checker, records)
    assert got == [want for _, want in EXAMPLES]
    assert got == [utf8_first_error(bytes.fromhex(h)) for h, _ in EXAMPLES]


def test_conformance_vectors(utf8_checker, tmp_path):
    vectors = load_vectors()
    assert len(vectors) > 1000
    disagree = [note for data, valid, note in vectors if valid != (utf8_first_error(data) is None)]
    assert disagree == [], "vectors whose 'valid' column disagrees with Python's decode"
    got = run_records(utf8_checker, write_records(tmp_path / "vectors", [v for v, _, _ in vectors]))
    assert [g is None for g in got] == [valid for _, valid, _ in vectors]
    assert got == [utf8_first_error(data) for data, _, _ in vectors]


def test_random_and_block_edges(utf8_checker, tmp_path):
    inputs = utf8_inputs()
    got = run_records(utf8_checker, write_records(tmp_path / "inputs", inputs))
    assert got == [utf8_first_error(data) for data in inputs]


def test_sanitizers(utf8_sanitized, tmp_path):
    """ASan and UBSan: examples, vectors, random text, block edges, odd addresses (the harness)."""
    inputs = utf8_inputs()
    got = run_records(utf8_sanitized, write_records(tmp_path / "inputs", inputs))
    assert got == [utf8_first_error(data) for data in inputs]


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["pairs", "table"])
def test_every_string_up_to_3_bytes(strategy, tmp_path):
    """All 16.8 M strings of 0-3 bytes against Python's decoder, first errors included, with
    every string cut into segments of one byte (3 segments, the shortest 1 byte long): the
    default strategy and table (shift, whose rows pairs shares, runs the 4-byte oracle's
    multi-byte quarter and the sanitizer records; a third run would cost 12 s more)."""
    utf8 = generate(tmp_path / strategy, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf", strategy=strategy)
    maps = [verdict_map(n) for n in (1, 2, 3)]
    for length, table in zip((1, 2), maps[:2], strict=True):  # the vectorised maps agree with one-by-one decoding
        for index, code in enumerate(table):
            data = index.to_bytes(length, "big")
            assert code == decodes(data) | viable(data) << 1, data
    verdicts = tmp_path / "verdicts"
    verdicts.write_bytes(b"".join(maps))
    binary = build(utf8, "exhaustive3.c", tmp_path / "exhaustive3",
                   [*HARNESS_FLAGS, "-DUTF8_SEGMENTS=3", "-DUTF8_MIN_SEGMENT=1"])
    result = subprocess.run([str(binary), str(verdicts)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert int(result.stdout) == 1 + 256 + 65536 + 16777216


@pytest.mark.slow
@pytest.mark.parametrize("strategy, first", [("pairs", 0x00), ("shift", 0xC0), ("table", 0xC0), ("auto", 0xC0),
                                             ("auto-AVX2", 0x00), ("auto-SSE41", 0x00)])
def test_every_4_byte_string_against_rfc3629_oracle(strategy, first, tmp_path):
    """All 2^32 four-byte strings (about 40 s on two cores) against the RFC 3629 oracle, the
    whole-buffer calls with 4 segments of one byte; for the strategies other than the default
    those with a first byte C0-FF (the lead bytes of multi-byte characters and the bytes no
    character starts with), a quarter of the time.  ``auto`` is pairs with the window test of
    is_valid, run on every 4-byte string here (UTF8_WINDOW_TEST_MIN=1) where the CPU has AVX-512 VBMI;
    ``auto-AVX2`` and ``auto-SSE41`` take those instances of it (the nibble test), on every string."""
    strategy, _, instance = strategy.partition("-")
    if instance and not cpu_has(instance.lower().replace("sse41", "sse4_1")):
        pytest.skip(f"this CPU has no {instance}")
    utf8 = generate(tmp_path / strategy, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf", strategy=strategy)
    binary = build(utf8, "exhaustive4.c", tmp_path / "exhaustive4",
                   ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-DUTF8_SEGMENTS=4", "-DUTF8_MIN_SEGMENT=1",
                    *(["-DUTF8_WINDOW_TEST_MIN=1", "-DEVERY_IS_VALID"] if strategy == "auto" else []),
                    *([f"-DUTF8_WINDOW_TEST_{instance}"] if instance else []),
                    f"-DPFX={utf8.prefix}",
                    f'-DSOURCE="{utf8.source.name}"', f"-I{utf8.folder}"], link_source=False)
    jobs = max(1, min(os.cpu_count() or 1, 8))
    span = 256 - first
    bounds = [(first + span * k // jobs, first + span * (k + 1) // jobs - 1) for k in range(jobs)]
    started = time.perf_counter()
    processes = [subprocess.Popen([str(binary), str(lo), str(hi)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for lo, hi in bounds]
    outputs = [p.communicate(timeout=900) for p in processes]
    elapsed = time.perf_counter() - started
    for process, (_out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err[-3000:]
    assert sum(int(out) for out, _ in outputs) == span << 24
    print(f"{span << 24} four-byte strings checked in {elapsed:.1f} s with {jobs} processes")


# --- other grammars ----------------------------------------------------------------------------

def all_strings(alphabet: bytes, longest: int) -> list[bytes]:
    return [bytes(t) for n in range(longest + 1) for t in itertools.product(alphabet, repeat=n)]


def mutated(rng: random.Random, pieces: list[bytes], alphabet: bytes, count: int, longest: int) -> list[bytes]:
    """Random concatenations of pieces, some with a byte replaced, cut or added."""
    out = []
    for _ in range(count):
        data = b""
        while len(data) < rng.randrange(0, longest):
            data += rng.choice(pieces)
        roll = rng.random()
        if data and roll < 0.3:
            at = rng.randrange(len(data))
            data = data[:at] + bytes([rng.choice(alphabet)]) + data[at + 1:]
        elif data and roll < 0.5:
            data = data[:rng.randrange(len(data))]
        elif roll < 0.6:
            data += bytes([rng.choice(alphabet)])
        out.append(data)
    return out


GRAMMARS = {
    # more than 10 states: table strategy; case-insensitive, so A and a both work
    "letters": ('r = "abcdefghijkl"\n', b"aAbBcdefghijklLx\x80", [b"abcdefghijkl", b"ABCDEFGHIJKL", b"abc"]),
    # table strategy, and the start is not an ASCII state
    "counted": ('r = 1*20("ab" / %x30-39)\n', b"abAB09x\xff", [b"ab", b"0", b"9", b"AB", b"a"]),
    # table strategy with an ASCII state: block skipping over a table DFA
    "long_tail": ('r = *( %x00-7F / %xF8 10%x80-BF )\n', b"a\x00\x7f\xf8\x80\xbf\xc0",
                  [b"a" * 30, b"\xf8" + b"\x80" * 10, b"x", b"\xf8\xbf"]),
    # shift strategy, and the start is not an ASCII state
    "pairs": ('r = *("ab" / %x80-FF)\n', b"abAx\x80\xff", [b"ab", b"AB", b"\x80", b"\xff" * 3, b"a"]),
    # a self-loop set shufti cannot hold (9 distinct rows of low nibbles): truffle
    "truffle": ('r = *( %x00-01 / %x11-12 / %x22-23 / %x33-34 / %x44-45 / %x55-56 / %x66-67 / %x77-78 / %x88-89 /'
                ' %x99-9A ) "!"\n', b"\x00\x01\x11\x12\x9a!\x02\x80",
                [b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99" * 4, b"\x01\x9a", b"!"]),
    # three self-loop sets, one of them tested with words as well
    "multi": ('r = *%x00-7F "|" *( %x41-5A / %x61-7A ) "|" *%x00-FF\n', b"a|Z\x80\xff",
              [b"x" * 40, b"|", b"AbC" * 25, b"\x80\xff" * 30]),
    # more than 256 states: 16-bit state numbers
    "wide": ('r = 300"a" [ "b" ]\n', b"aAb", [b"a" * 50, b"a" * 7, b"b"]),
    # grammar text that could end or nest a C comment, or splice lines, if copied as it is
    "comments": ('; tricky text: */ and /* and ??/ and a backslash at the end \\\n'
                 'r = 1*( "*/" / "/*" / "??/" / %x5C ) ; */ /* */\n'
                 '; last line ends with a star *\n',
                 b"*/?\\x", [b"*/", b"/*", b"??/", b"\\", b"*"]),
}


@pytest.fixture(scope="module", params=sorted(GRAMMARS))
def grammar_build(request, tmp_path_factory):
    name = request.param
    text, _, _ = GRAMMARS[name]
    folder = tmp_path_factory.mktemp(name)
    grammar_file = "grammars/odd*/name.abnf" if name == "comments" else f"grammars/{name}.abnf"
    gen = generate(folder, text, name, grammar_file=grammar_file)
    return name, gen, build(gen, "check_records.c", folder / "check", HARNESS_FLAGS)


def test_grammar_strategies():
    plans = {name: make_plan(text, name)[1] for name, (text, _, _) in GRAMMARS.items()}
    kinds = {name: [(s.kind, s.accelerated) for s in plan.skips.skip_sets] for name, plan in plans.items()}
    assert plans["letters"].strategy == "table" and kinds["letters"] == []
    assert plans["counted"].strategy == "table" and kinds["counted"] == []
    assert plans["long_tail"].strategy == "table" and kinds["long_tail"] == [("high", True)]
    assert plans["pairs"].strategy == "pairs" and kinds["pairs"] == [("shufti", True)]
    assert plans["truffle"].strategy == "pairs" and kinds["truffle"] == [("truffle", True)]
    assert plans["multi"].strategy == "pairs" and kinds["multi"] == [("shufti", True), ("shufti", False),
                                                                      ("high", True)]
    assert plans["multi"].skips.words_use_table and not plans["pairs"].skips.words_use_table
    wide = plans["wide"].table
    assert wide is not None and wide.state_type == "uint16_t"  # 303 states of 3 classes, premultiplied


@pytest.mark.parametrize("compiler", COMPILERS)
def test_grammar_strict_warnings(grammar_build, compiler):
    _name, gen, _ = grammar_build
    command = [compiler, *STRICT, "-c", "-o", str(gen.folder / "strict.o"), str(gen.source)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_grammar_agrees_with_dfa(grammar_build, tmp_path):
    name, gen, checker = grammar_build
    _, alphabet, pieces = GRAMMARS[name]
    rng = random.Random(name)
    inputs = all_strings(alphabet[:6], 3) + mutated(rng, pieces, alphabet, 300, 140)
    inputs += [b"a" * n for n in (62, 63, 64, 65, 127, 128, 129, 299, 300, 301)]
    inputs += [b"a" * n + p for n in (60, 61, 62, 63, 64) for p in pieces]
    got = run_records(checker, write_records(tmp_path / "inputs", inputs))
    want = [gen.minimal.first_error(data) for data in inputs]
    assert got == want
    assert any(w is None for w in want) and any(w is not None for w in want)


def test_comment_grammar_text_is_escaped(tmp_path):
    gen = generate(tmp_path, GRAMMARS["comments"][0], "comments", grammar_file="grammars/odd*/name.abnf")
    for path in (gen.source, gen.header):
        text = path.read_text(encoding="utf-8")
        assert 'r = 1*( "*\\/" / "/\\*" / "?\\?/" / %x5C ) ; *\\/ /\\* *\\/' in text
        assert "grammars/odd*\\/name.abnf" in text
        assert "??/" not in text


def test_grammar_sanitizers(tmp_path):
    """One table grammar with an ASCII state and one without, under ASan and UBSan."""
    for name in ("long_tail", "counted"):
        text, alphabet, pieces = GRAMMARS[name]
        gen = generate(tmp_path / name, text, name)
        binary = build(gen, "check_records.c", tmp_path / name / "check_asan", SANITIZE)
        inputs = mutated(random.Random(name), pieces, alphabet, 150, 150)
        assert run_records(binary, write_records(tmp_path / name / "inputs", inputs)) == \
            [gen.minimal.first_error(data) for data in inputs]
