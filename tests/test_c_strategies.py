"""The C backend's strategies, segments and SIMD paths, each forced: exact on every input.

Every strategy (pairs, shift, table) with segments forced on short inputs (``P_MIN_SEGMENT`` 1, so
segment boundaries fall everywhere, inside characters included, and inputs shorter than a
segment run in one piece), every segment count from 1 to 8, with and without SIMD
(``P_NO_SIMD``), against Python's codec for UTF-8 and the minimal DFA for other grammars; the
analysis behind them (pair functions, synchronizing bytes, shufti and truffle tables) checked on
its own; the generated source compiled for other architectures; the byte-order-neutral path of
the pairs strategy run on this machine.
"""
from __future__ import annotations

import functools
import itertools
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import compile_text, files_for
from helpers.batches import LIMITS, grammar_batch, in_pieces
from helpers.c_build import (
    CLANG,
    HARNESS_DIR,
    SANITIZE,
    build,
    generate,
    needs_gcc,
    run_records,
    tool,
    write_records,
)
from test_c import GRAMMARS, UTF8_TEXT, load_vectors, utf8_first_error

from abnfc.backends import Header, analysis, make_tables
from abnfc.backends.analysis import STRATEGIES
from abnfc.backends.c import runner
from abnfc.pipeline import load_validators

pytestmark = needs_gcc
FORCED = ["pairs", "shift", "table"]
assert set(FORCED) == set(STRATEGIES) - {"auto"}

# Automata whose segments must start from guesses: no byte synchronizes them.
SPECULATIVE = {
    # runs from different states meet after "xx": re-runs stop at a checkpoint
    "converge": ('r = "" / %x79 / %x78 %x79 / *( %x78 / %x79 ) ( %x79 %x79 / %x79 %x78 %x79 )\n', b"xy", b"xyz"),
    # the parity of a's: runs from the wrong parity never meet, re-runs go to the end
    "parity": ('r = *( %x78 / %x61 *%x78 %x61 )\n', b"xa", b"xab"),
    # pairs: a run started in the middle of one may die where the true run does not
    "phase": ('r = *( %x61 %x62 / %x62 %x61 )\n', b"ab", b"abc"),
}


def tables_of(text: str):
    compiled = compile_text(text)
    return compiled.minimal, make_tables(compiled.minimal, Header("g.abnf", text, "0" * 64, "r", "test"))


# --- the analysis ---------------------------------------------------------------------------

def shufti_member(low, high, byte: int) -> bool:
    return low[byte & 15] & high[byte >> 4] != 0


def truffle_member(low, high, byte: int) -> bool:
    table = low if byte < 0x80 else high
    return bool(table[byte & 15] >> ((byte >> 4) & 7) & 1)


def test_shufti_and_truffle_tables_hold_exactly_their_set():
    rng = random.Random(4)
    shufti_seen = truffle_seen = 0
    for _ in range(400):
        members = {b for b in range(256) if rng.random() < rng.choice([0.05, 0.3, 0.7])}
        if rng.random() < 0.3:  # few distinct rows: shufti can hold it
            rows = [rng.randrange(1 << 16) for _ in range(rng.randrange(1, 9))]
            row_of = [rng.choice([*rows, 0]) for _ in range(16)]
            members = {h << 4 | n for h in range(16) for n in range(16) if row_of[h] >> n & 1}
        truffle = analysis._truffle(members)
        assert {b for b in range(256) if truffle_member(*truffle, b)} == members
        shufti = analysis._shufti(members)
        nibble_rows = {frozenset(n for n in range(16) if h << 4 | n in members) for h in range(16)}
        distinct_rows = len(nibble_rows - {frozenset()})
        assert (shufti is None) == (distinct_rows > 8)
        if shufti:
            shufti_seen += 1
            assert {b for b in range(256) if shufti_member(*shufti, b)} == members
        else:
            truffle_seen += 1
    assert shufti_seen > 50 and truffle_seen > 50


def test_pair_functions_compose_the_transitions():
    dfa, tables = tables_of(UTF8_TEXT)
    pairs = analysis.pair_functions(tables)
    assert pairs is not None and len(pairs.rows) == 20  # of 144 class pairs
    for first, second in itertools.product(range(dfa.num_classes), repeat=2):
        row = pairs.rows[pairs.of_classes[first][second]]
        assert row == tuple(dfa.transitions[dfa.transitions[s][first]][second] for s in range(dfa.num_states))
    assert analysis.pair_functions(tables_of('r = 11"a"\n')[1]) is None  # 13 states: more than 10


def test_synchronizing_bytes_come_from_the_automaton():
    dfa, tables = tables_of(UTF8_TEXT)
    sync = analysis.sync_targets(tables)
    by_byte = {byte: sync[dfa.byte_class[byte]] for byte in range(256)}
    assert by_byte[ord("a")] == dfa.start and by_byte[0xE4] == dfa.transitions[dfa.start][dfa.byte_class[0xE4]]
    assert all(by_byte[b] is None for b in range(0x80, 0xC0))  # a tail byte can be any tail
    assert by_byte[0xFF] == analysis.default_guess(tables)  # kills every state: any start will do
    for name, (text, _, _) in SPECULATIVE.items():
        dfa, tables = tables_of(text)
        assert all(s is None or not any(t != dfa.dead for t in _targets(dfa, c))
                   for c, s in enumerate(analysis.sync_targets(tables))), name


def test_finite_languages_get_the_plain_loop():
    """No cycle through a live state: the longest life is the longest path, and auto gives the plain
    loop (a forced strategy keeps its blocks, segments and SIMD)."""
    from abnfc.backends.c import plan as c_plan

    for text, life in [('r = 12"a" / "b"\n', 12), ('r = "x" / "yz"\n', 2), ('r = ""\n', 0), ('r = *"a"\n', None),
                       ('r = "a" *"b" "c"\n', None), (UTF8_TEXT, None)]:
        tables = tables_of(text)[1]
        assert analysis.longest_life(tables) == life, text
        chosen = c_plan.lower(tables, {"prefix": "g"})
        assert chosen.plain == (life is not None) and (chosen.strategy == "pairs") == (life is None), text
        assert not c_plan.lower(tables, {"prefix": "g", "strategy": "table"}).plain
    source = files_for('r = 12"a" / "b"\n', "c", "g")["g.c"]
    assert "no input stays alive for more\n * than 12 bytes" in source and "G_SEGMENTS" not in source


def _targets(dfa, cls):
    return {dfa.transitions[s][cls] for s in range(dfa.num_states) if s != dfa.dead}


# --- UTF-8, every strategy, segments forced -------------------------------------------------

def segment_inputs(longest: int) -> list[bytes]:
    """UTF-8 text up to ``longest`` characters, valid and spoiled at many places, and the vectors."""
    rng = random.Random(12)
    chars = ["a", " ", "\x7f", "ä", "ß", "\u07ff", "\u0800", "€", "你", "\ud7ff", "\ue000", "\uffff", "\U00010000",
             "😀", "\U0010ffff"]
    inputs = [v for v, _, _ in load_vectors()]
    for length in [n for n in [*list(range(0, 40)), 63, 64, 65, 127, 128, 129, 200, 700, 1500, 3000] if n <= longest]:
        text = "".join(rng.choice(chars) for _ in range(length)).encode()
        inputs.append(text)
        if text:
            for _ in range(3 if length < 200 else 8):
                at = rng.randrange(len(text))
                wrong = rng.choice([0x80, 0xBF, 0xC0, 0xED, 0xF4, 0xFF, 0x61])
                inputs.append(text[:at] + bytes([wrong]) + text[at + 1:])
            inputs.append(text[:-1])
    if longest >= 3000:
        inputs.append(b"x" * 5000 + "€".encode() + b"y" * 3000)  # skipped blocks around a character
        inputs.append(b"x" * 5000 + b"\xe2\x82" + b"y" * 3000)
    else:
        inputs.append(b"x" * 300 + "€".encode() + b"y" * 200)
    return inputs


def _records(folder: Path, longest: int):
    inputs = segment_inputs(longest)
    return write_records(folder / "inputs", inputs), [utf8_first_error(data) for data in inputs]


@pytest.fixture(scope="module")
def short_records(tmp_path_factory):
    return _records(tmp_path_factory.mktemp("short"), 200)


@pytest.fixture(scope="module")
def segment_records(tmp_path_factory):
    return _records(tmp_path_factory.mktemp("long"), 3000)


def _settings(segments: int, minimum: int, simd: bool) -> list[str]:
    return [f"-DUTF8_SEGMENTS={segments}", f"-DUTF8_MIN_SEGMENT={minimum}"] + ([] if simd else ["-DUTF8_NO_SIMD"])


SANITIZED = [pytest.param("pairs", "short_records", id="pairs-short"),
             pytest.param("shift", "short_records", id="shift-short", marks=pytest.mark.slow),
             pytest.param("table", "short_records", id="table-short", marks=pytest.mark.slow)]


@pytest.mark.parametrize("strategy, records", SANITIZED)
def test_utf8_segments_under_sanitizers(strategy, records, request, tmp_path):
    """ASan and UBSan, segments of a few bytes (3 and 8 of them), with and without SIMD: the
    default strategy in the fast tier, shift and table in the slow tier, on short inputs (up to
    200 characters, and 500 bytes around a character for the block skip); the long inputs run
    without sanitizers in test_utf8_every_segment_count."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf", strategy=strategy)
    records, want = request.getfixturevalue(records)
    configurations = [(3, 1, True), (8, 5, False)]
    with ThreadPoolExecutor(2) as pool:
        binaries = list(pool.map(lambda c: build(gen, "check_records.c", tmp_path / f"check_{c[0]}",
                                                 SANITIZE + _settings(*c)), configurations))
    for configuration, binary in zip(configurations, binaries, strict=True):
        assert run_records(binary, records) == want, configuration


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["pairs", "table"])
def test_utf8_every_segment_count(strategy, segment_records, tmp_path):
    """1 to 8 segments with boundaries everywhere (SIMD on for odd counts, off for even ones), and
    2, 5 and 8 segments of at least 64 bytes, for the strategies of two bytes and one byte a step
    (shift steps as table does; its segments run in the sanitizer test)."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf", strategy=strategy)
    records, want = segment_records
    configurations = [(k, 1, k % 2 == 1) for k in range(1, 9)]
    configurations += [(2, 64, True), (5, 64, False), (8, 64, True)]
    flags = ["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror"]

    def check(configuration):
        segments, minimum, simd = configuration
        binary = build(gen, "check_records.c", tmp_path / f"check_{segments}_{minimum}_{simd}",
                       flags + _settings(segments, minimum, simd))
        return configuration, run_records(binary, records)

    with ThreadPoolExecutor(2) as pool:
        for configuration, got in pool.map(check, configurations):
            assert got == want, configuration


def test_pairs_without_the_little_endian_load(short_records, tmp_path):
    """The pairs code for machines of other byte orders (indexes built from bytes), run here."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf", strategy="pairs")
    source = gen.source.read_text(encoding="utf-8")
    assert "#define UTF8_LITTLE_ 1" in source
    binary = build(gen, "check_records.c", tmp_path / "check_bytes",
                   ["-std=c99", "-O1", "-U__BYTE_ORDER__", *_settings(2, 1, True)])
    records, want = short_records
    assert run_records(binary, records) == want


TARGETS = ["aarch64-linux-gnu", "armv7a-none-eabi", "i686-linux-gnu", "powerpc64-linux-gnu", "riscv64-linux-gnu"]


@pytest.mark.skipif(CLANG is None, reason="clang not found")
@pytest.mark.parametrize("strategy", ["pairs", pytest.param("shift", marks=pytest.mark.slow),
                                      pytest.param("table", marks=pytest.mark.slow)])
def test_compiles_for_other_architectures(strategy, tmp_path):
    """clang -Weverything for 32- and 64-bit, little- and big-endian targets: the SIMD code is
    guarded (x86 only) and nothing assumes a word size or byte order."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf", strategy=strategy)
    for target in TARGETS:
        command = [tool(CLANG), f"--target={target}", "-ffreestanding", f"-I{HARNESS_DIR / 'freestanding'}", "-std=c99",
                   "-Weverything", "-Wno-padded", "-Werror", "-O2", "-DUTF8_SEGMENTS=4", "-c",
                   "-o", str(tmp_path / f"{target}.o"), str(gen.source)]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, f"{target}:\n{result.stderr}"


# --- other grammars: guesses that fail, several self-loop sets ------------------------------

def _grammar_inputs(name: str, alphabet: bytes, dfa, longest: int) -> list[bytes]:
    rng = random.Random(name)
    out = []
    for length in [n for n in (0, 1, 2, 3, 5, 9, 17, 40, 100, 300, 900, 2000) if n <= longest]:
        for _ in range(4):
            data = bytes(rng.choice(alphabet) for _ in range(length))
            out.append(data)
            out.append(_repair(dfa, data, alphabet, rng))
    return out


def _repair(dfa, data: bytes, alphabet: bytes, rng: random.Random) -> bytes:
    """``data`` with each byte that would kill the automaton replaced by one that does not, and a
    valid ending where one is near: mostly valid long inputs."""
    state, out = dfa.start, bytearray()
    for byte in data:
        options = [b for b in alphabet if dfa.transitions[state][dfa.byte_class[b]] != dfa.dead]
        if not options:
            break
        if dfa.transitions[state][dfa.byte_class[byte]] == dfa.dead:
            byte = rng.choice(options)
        out.append(byte)
        state = dfa.transitions[state][dfa.byte_class[byte]]
    return bytes(out)


def _grammars():
    out = [(name, text, alphabet + extra) for name, (text, alphabet, extra) in SPECULATIVE.items()]
    out += [(name, text, alphabet) for name, (text, alphabet, _) in GRAMMARS.items()]
    out.append(("uri", (Path(__file__).parents[1] / "grammars" / "uri.abnf").read_text(),
                b"abz09:/?#[]@!$&'()*+,;=-._~%AF v"))
    return out


GRAMMAR_RUNS = [pytest.param("table", True, 300, id="table-simd-short")] + [
    pytest.param(strategy, simd, 2000, id=f"{strategy}-{'simd' if simd else 'portable'}", marks=pytest.mark.slow)
    for strategy, simd in (("pairs", True), ("shift", False), ("table", False))]


@pytest.mark.parametrize("strategy, simd, longest", GRAMMAR_RUNS)
def test_grammars_with_forced_segments(strategy, simd, longest, monkeypatch):
    """Every test grammar the strategy holds, in one build: segment counts 2 to 8 and segments of
    1 to 3 bytes, against the minimal DFA."""
    chosen = []
    for index, (name, text, alphabet) in enumerate(_grammars()):
        dfa = compile_text(text).minimal
        if (strategy != "table" and dfa.num_states > 10) or (strategy == "pairs" and analysis.pair_functions(
                tables_of(text)[1]) is None):
            continue
        chosen.append((name, text, alphabet, dfa, 2 + index % 7, 1 + index % 3))
    flags = [flag for index, (*_, segments, minimum) in enumerate(chosen)
             for flag in (f"-DG{index}_SEGMENTS={segments}", f"-DG{index}_MIN_SEGMENT={minimum}")]
    flags += [f"-DG{index}_NO_SIMD" for index in range(len(chosen)) if not simd]
    monkeypatch.setattr(runner, "CFLAGS", [*runner.CFLAGS, "-Wextra", *flags])
    file_sets = [files_for(text, "c", f"g{index}", options={"strategy": strategy})
                 for index, (_, text, *_rest) in enumerate(chosen)]
    loaded = load_validators(file_sets, "c")
    wrong = []
    for (name, _text, alphabet, dfa, *_), validator in zip(chosen, loaded, strict=True):
        for data in _grammar_inputs(name, alphabet, dfa, longest):
            want = dfa.first_error(data)
            if validator.first_error(data) != want or validator.is_valid(data) != (want is None):
                wrong.append((name, data[:60], len(data), validator.first_error(data), want))
    assert not wrong, wrong[:5]
    assert len(chosen) >= (12 if strategy == "table" else 7)


@functools.cache
def _property_batch():
    """The first 25 grammars of the property tests' batch, built once for the three strategies."""
    return grammar_batch()[:25]


@pytest.mark.slow
@pytest.mark.parametrize("strategy", FORCED)
def test_random_grammars_with_forced_segments(strategy, monkeypatch):
    """The property tests' batch of random grammars (the first 25), through each strategy that holds
    them, with 3 segments of at least 2 bytes."""
    batch = [g for g in _property_batch()
             if strategy == "table" or (g.compiled.minimal.num_states <= 10 and (
                 strategy == "shift" or analysis.pair_functions(make_tables(
                     g.compiled.minimal, Header("g.abnf", g.text, "0" * 64, "r", "t"))) is not None))]
    flags = [flag for index in range(len(batch)) for flag in (f"-DG{index}_SEGMENTS=3", f"-DG{index}_MIN_SEGMENT=2")]
    monkeypatch.setattr(runner, "CFLAGS", [*runner.CFLAGS, *flags])
    file_sets = [files_for(g.text, "c", f"g{index}", limits=LIMITS, options={"strategy": strategy})
                 for index, g in enumerate(batch)]
    loaded = load_validators(file_sets, "c")
    for grammar, validator in zip(batch, loaded, strict=True):
        for data in grammar.inputs:
            want = grammar.compiled.minimal.first_error(data)
            assert validator.first_error(data) == want, (grammar.text, data)
            assert in_pieces(validator.Validator(), data) == want, (grammar.text, data)
    assert len(batch) >= 4



# --- the peer benchmark, on small inputs ----------------------------------------------------

@pytest.mark.slow
def test_peer_benchmark_smoke():
    """bench/bench_peers.py --smoke: every contender (those whose tools are installed) is built
    and run on small valid and spoiled inputs, and all give Python's codec's verdicts; the URI
    validators agree with each other and with the DFA."""
    bench = Path(__file__).resolve().parents[1] / "bench"
    result = subprocess.run([sys.executable, str(bench / "bench_peers.py"), "--smoke"], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.rstrip().endswith("0 disagreements")
    for name in ("utf8_is_valid (auto: pairs + windows)", "utf8_is_valid (shift)", "utf8_is_valid (table)",
                 "table DFA"):
        assert name in result.stdout
