"""The C Sheng loop of is_valid (backends/c/sheng.py, c_sheng.c.j2): built to take every input
(``P_SHENG_MIN`` 1) with 1, 3 and 8 chunks, in each of its instances (16 lanes with SSSE3, 32 and 64
with AVX-512 VBMI), under the sanitizers; the records harness checks is_valid, also at odd
addresses in buffers of exactly the input's size, against the scalar first_error, and the
answers are checked against the minimal DFA's."""
from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from helpers.batches import grammar_batch
from helpers.c_build import CLANG, GCC, SANITIZE, build, generate, needs_gcc, run_records, tool, write_records
from helpers.cpu import cpu_has
from helpers.paths import ROOT
from helpers.walks import class_edges, mutated_walks
from test_c_strategies import TARGETS

import abnfc.backends.c.sheng as c_sheng
from abnfc.automata.dfa import Dfa
from abnfc.native import batch

pytestmark = needs_gcc

DATETIME = (ROOT / "grammars" / "datetime.abnf").read_text(encoding="utf-8")
DATETIME_LINES = "lines = *( date-time %x0A )\n" + DATETIME
# HTTP list field values with quoted strings, one a line: not definite (inside or outside quotes)
HTTP = r"""lines = *( value %x0A )
value = [ element ] *( OWS "," OWS [ element ] )
element = token [ "=" ( token / quoted ) ]
token = 1*( "!" / "#" / "-" / "." / "^" / "_" / "|" / "~" / DIGIT / ALPHA )
quoted = DQUOTE *( HTAB / SP / %x21 / %x23-5B / %x5D-7E / %x80-FF / "\" ( HTAB / SP / VCHAR / %x80-FF ) ) DQUOTE
OWS = *( SP / HTAB )
"""


VBMI = ("avx512f", "avx512bw", "avx512vbmi", "avx512vl")
INSTANCES = {16: ("ssse3",), 32: VBMI, 64: VBMI}


def exact_walks(dfa: Dfa, rng: random.Random, longest: int) -> list[bytes]:
    """For every length 0 .. longest: a walk that stays alive that long where it can, and a copy
    with one byte changed; and every length again in class-edge bytes."""
    edges = class_edges(dfa)
    found = []
    for length in range(longest + 1):
        state, word = dfa.start, bytearray()
        while len(word) < length:
            live = [b for b in range(256) if dfa.transitions[state][dfa.byte_class[b]] != dfa.dead]
            if not live:
                break
            word.append(rng.choice(live))
            state = dfa.transitions[state][dfa.byte_class[word[-1]]]
        found.append(bytes(word))
        if word:
            word[rng.randrange(len(word))] = rng.randrange(256)
            found.append(bytes(word))
        found.append(bytes(rng.choice(edges) for _ in range(length)))
    return found


def inputs_for(dfa: Dfa, seed: str, longest: int = 300) -> list[bytes]:
    rng = random.Random(seed)
    long_walks = mutated_walks(dfa, rng, 40, 3000, cut_share=0.2)  # several 64-byte blocks per chunk
    return exact_walks(dfa, rng, longest) + mutated_walks(dfa, rng, 300, longest, cut_share=0.2) + long_walks


def check(gen, tmp_path: Path, inputs: list[bytes], flags: list[str]) -> None:
    macro = gen.plan.macro
    for chunks in (1, 3, 8):
        binary = build(gen, "check_records.c", tmp_path / f"check{chunks}",
                       [*flags, f"-D{macro}_SHENG", f"-D{macro}_SHENG_MIN=1", f"-D{macro}_SHENG_CHUNKS={chunks}"])
        assert run_records(binary, write_records(tmp_path / "records", inputs)) == [
            gen.minimal.first_error(d) for d in inputs], chunks


def test_the_plan_has_sheng_only_where_it_applies(tmp_path):
    dt = generate(tmp_path / "dt", DATETIME, "dt")
    assert dt.plan.sheng is not None and dt.plan.sheng.lanes == 32 and dt.plan.sheng.default_on  # 29 states
    assert "dt_sheng_valid_" in dt.source.read_text(encoding="utf-8")
    http = generate(tmp_path / "http", HTTP, "http")
    # its loop skips quoted strings and tokens, faster than Sheng: Sheng only with HTTP_SHENG
    assert http.plan.sheng is not None and http.plan.sheng.lanes == 16 and not http.plan.sheng.default_on
    assert generate(tmp_path / "t", DATETIME, "t", strategy="table").plan.sheng is None  # asked for by name
    uri = (ROOT / "grammars" / "uri.abnf").read_text(encoding="utf-8")
    assert generate(tmp_path / "uri", uri, "uri").plan.sheng is None  # 183 states
    utf8 = (ROOT / "grammars" / "utf8.abnf").read_text(encoding="utf-8")
    assert generate(tmp_path / "u", utf8, "u").plan.sheng is None  # its window test runs instead
    assert generate(tmp_path / "f", 'r = "ab" / "c"\n', "f").plan.sheng is None  # finite: the plain loop


def test_the_settings(tmp_path):
    """The preprocessed is_valid: the default shortest input, a shorter one, and none; off by
    default where the loop skips runs, on with P_SHENG."""
    gen = generate(tmp_path, DATETIME, "dt")
    assert gen.plan.sheng is not None

    def preprocessed(*defines: str) -> str:
        command = [GCC, "-std=c99", "-E", "-P", *defines, f"-I{gen.folder}", str(gen.source)]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    assert f"len >= {gen.plan.sheng.min_length}u && len != 0 && dt_have_sheng_()" in preprocessed()
    assert "len >= 7 && len != 0" in preprocessed("-DDT_SHENG_MIN=7")
    assert "dt_sheng_valid_" not in preprocessed("-DDT_NO_SHENG")
    assert "dt_sheng_valid_" not in preprocessed("-DDT_NO_SIMD")
    http = generate(tmp_path / "http", HTTP, "http")
    command = [GCC, "-std=c99", "-E", "-P", f"-I{http.folder}", str(http.source)]
    assert "http_sheng_valid_" not in subprocess.run(command, capture_output=True, text=True, check=True).stdout
    command.insert(3, "-DHTTP_SHENG")
    assert "http_sheng_valid_" in subprocess.run(command, capture_output=True, text=True, check=True).stdout
    failed = subprocess.run([GCC, "-std=c99", "-fsyntax-only", "-DDT_SHENG_CHUNKS=9", f"-I{gen.folder}",
                             str(gen.source)], capture_output=True, text=True)
    assert failed.returncode != 0 and "DT_SHENG_CHUNKS must be 1 to 8" in failed.stderr


@pytest.mark.parametrize("lanes", [16, 32, 64])
@pytest.mark.parametrize("name", ["datetime", "datetime-lines", "http"])
def test_grammars_under_sanitizers(name, lanes, tmp_path, monkeypatch):
    text = {"datetime": DATETIME, "datetime-lines": DATETIME_LINES, "http": HTTP}[name]
    if not cpu_has(*INSTANCES[lanes]):
        pytest.skip(f"this CPU lacks {', '.join(INSTANCES[lanes])}")
    monkeypatch.setattr(c_sheng, "LANES", tuple(n for n in c_sheng.LANES if n >= lanes))
    gen = generate(tmp_path, text, "g")
    if gen.minimal.num_states > lanes:
        pytest.skip(f"{name} has more than {lanes} states")
    assert gen.plan.sheng is not None and gen.plan.sheng.lanes == lanes
    check(gen, tmp_path, inputs_for(gen.minimal, name), SANITIZE)


@pytest.mark.slow
def test_random_grammars_under_sanitizers(tmp_path):
    """The property tests' batch of random grammars (the first 24), those that get Sheng."""
    tested = 0
    for index, grammar in enumerate(grammar_batch()[:24]):
        gen = generate(tmp_path / str(index), grammar.text, "g")
        if gen.plan.sheng is None:
            continue
        inputs = list(grammar.inputs) + inputs_for(gen.minimal, grammar.text, 150)
        check(gen, tmp_path / str(index), inputs, SANITIZE)
        tested += 1
    assert tested >= 6


def test_strict_builds(tmp_path, monkeypatch):
    """-Wall -Wextra -Wpedantic -Wconversion -Werror with each instance, and clang -Weverything on
    x86-64 and on other targets (where the Sheng code is left out)."""
    for lanes, text in ((16, HTTP), (32, DATETIME), (64, DATETIME)):
        monkeypatch.setattr(c_sheng, "LANES", (lanes, 64))
        gen = generate(tmp_path / str(lanes), text, "g")
        assert gen.plan.sheng is not None and gen.plan.sheng.lanes == lanes
        command = [GCC, "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wsign-conversion",
                   "-Wshadow", "-Werror", "-O2", "-DG_SHENG", "-c", "-o", str(tmp_path / f"{lanes}.o"), str(gen.source)]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        if CLANG is None:
            continue
        for target in ["x86_64-linux-gnu", *TARGETS]:
            freestanding = [] if target.startswith("x86_64") else [
                "-ffreestanding", f"-I{ROOT / 'tests' / 'c' / 'freestanding'}"]
            command = [tool(CLANG), f"--target={target}", *freestanding, "-std=c99", "-DG_SHENG", "-Weverything",
                       "-Wno-padded", "-Werror", "-O2", "-c", "-o", str(tmp_path / f"{target}.o"), str(gen.source)]
            result = subprocess.run(command, capture_output=True, text=True)
            assert result.returncode == 0, f"{lanes} lanes, {target}:\n{result.stderr}"


# --- the batch kernel's Sheng groups (src/abnfc/native/static/batch.c) ----------------------

def kernel_errors(gen, tmp_path: Path, inputs: list[bytes], extra: list[str]) -> list[int | None]:
    """The batch kernel's first errors over ``inputs`` (tests/c/check_batch.c, under the
    sanitizers), each record also checked alone, in a buffer of exactly its size."""
    files = {path.name: path.read_text(encoding="utf-8") for path in (gen.source, gen.header)}
    binary = tmp_path / f"batch{len(extra)}"
    command = [GCC, *SANITIZE, f"-I{gen.folder}", *batch.kernel_macros(files), f"-DPFX={gen.prefix}", *extra,
               "-o", str(binary), str(batch.KERNEL), str(ROOT / "tests" / "c" / "check_batch.c")]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return run_records(binary, write_records(tmp_path / "records", inputs))


@pytest.mark.skipif(not cpu_has(*VBMI), reason="this CPU lacks AVX-512 VBMI and VL: the kernel's Sheng is not run")
@pytest.mark.parametrize("name", ["datetime", "http"])
def test_the_kernel_groups_agree_with_the_dfa(name, tmp_path):
    gen = generate(tmp_path, {"datetime": DATETIME, "http": HTTP}[name], "g")
    assert gen.minimal.num_states < 32  # the kernel's states and its dead one fit 32 lanes
    inputs = inputs_for(gen.minimal, name)
    want = [gen.minimal.first_error(d) for d in inputs]
    assert kernel_errors(gen, tmp_path, inputs, []) == want
    assert kernel_errors(gen, tmp_path, inputs, ["-DABNFC_NO_SHENG"]) == want


@pytest.mark.slow
@pytest.mark.skipif(not cpu_has(*VBMI), reason="this CPU lacks AVX-512 VBMI and VL: the kernel's Sheng is not run")
def test_the_kernel_groups_on_random_grammars(tmp_path):
    tested = 0
    for index, grammar in enumerate(grammar_batch()[:20]):
        if grammar.compiled.minimal.num_states >= 32:
            continue
        gen = generate(tmp_path / str(index), grammar.text, "g")
        inputs = list(grammar.inputs) + inputs_for(gen.minimal, grammar.text, 100)
        assert kernel_errors(gen, tmp_path / str(index), inputs, []) == [
            gen.minimal.first_error(d) for d in inputs], grammar.text
        tested += 1
    assert tested >= 10
