"""The nibble window test (abnfc.automata.window_test.nibble; the AVX2, SSE4.1 and NEON instances
of the C window test): its derivation against the DFA in Python, and the generated C against the
DFA loop, exhaustively over representative bytes (every cell of row and column groups, every
class edge) up to 4 bytes after prefixes that put the windows across block boundaries, and on
class-edge words, mutated walks and random inputs; x86 instances under
-fsanitize=address,undefined, NEON under qemu-aarch64 (built with Debian's
gcc-aarch64-linux-gnu)."""
from __future__ import annotations

import itertools
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from helpers.c_build import SANITIZE, build, generate, needs_gcc, run_records, write_records
from helpers.cpu import cpu_has
from helpers.paths import ROOT
from helpers.walks import class_edges, mutated_walks
from test_c import UTF8_TEXT
from test_c_window_test import VARIANTS, edge_windows

from abnfc.automata.dfa import Dfa
from abnfc.automata.window_test import WindowTest, window_test
from abnfc.automata.window_test.nibble import _groups, nibble_accepts, nibble_test

pytestmark = needs_gcc

GRAMMARS = ["utf8.abnf", *(f"variants/{name}" for name in VARIANTS)]
X86 = [pytest.param("AVX2", marks=pytest.mark.skipif(not cpu_has("avx2"), reason="this CPU has no AVX2")),
       pytest.param("SSE41", marks=pytest.mark.skipif(not cpu_has("sse4_1"), reason="this CPU has no SSE4.1"))]
CROSS = shutil.which("aarch64-linux-gnu-gcc")
QEMU = shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static")
needs_qemu = pytest.mark.skipif(
    CROSS is None or QEMU is None,
    reason="no aarch64-linux-gnu-gcc or qemu-aarch64 (Debian: gcc-aarch64-linux-gnu, qemu-user, "
           "libc6-dev-arm64-cross): NEON not checked")


def grammar(name: str) -> str:
    return (ROOT / "grammars" / name).read_text(encoding="utf-8")


def representatives(dfa: Dfa, every_row: bool = False) -> bytes:
    """Class edges and a byte of each cell (row group x column group; every high nibble with
    each column group's lowest and highest byte when ``every_row``)."""
    rows, cols = _groups(dfa)
    found = set(class_edges(dfa))
    for high in range(16) if every_row else [(row & -row).bit_length() - 1 for row in rows]:
        for col in cols:
            found |= {16 * high + (col & -col).bit_length() - 1, 16 * high + col.bit_length() - 1} if every_row \
                else {16 * high + (col & -col).bit_length() - 1}
    return bytes(sorted(found))


def prefixes(dfa: Dfa) -> list[bytes]:
    """Valid prefixes that start the strings at block offsets 0, 13, 29 and 61 (across the
    16-, 32- and 64-byte steps), the last of 2-byte characters."""
    found = [b"", b"a" * 13, b"a" * 29, "é".encode() * 30 + b"a"]
    assert all(dfa.matches(prefix) for prefix in found)
    return found


def write_prefixes(path: Path, found: list[bytes]) -> Path:
    path.write_bytes(b"".join(struct.pack("<I", len(p)) + p for p in found))
    return path


def run_exhaustive(command: list[str], folder: Path, alphabet: bytes, found: list[bytes], longest: int,
                   timeout: float = 900) -> int:
    (folder / "alphabet").write_bytes(alphabet)
    write_prefixes(folder / "prefixes", found)
    result = subprocess.run([*command, str(folder / "alphabet"), str(folder / "prefixes"), str(longest)],
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    return int(result.stdout)


def expected_count(alphabet: bytes, found: list[bytes], longest: int) -> int:
    return len(found) * sum(len(alphabet) ** n for n in range(1, longest + 1))


def test_utf8_gets_keiser_and_lemires_test():
    """Three lookups (high nibble of the byte, high and low nibble of the one before), 7 boxes,
    and the equivalence bit set by bytes E0-FF two back or F0-FF three back."""
    from conftest import compile_text
    minimal = compile_text(UTF8_TEXT).minimal
    found = window_test(minimal)
    assert isinstance(found, WindowTest)
    test = nibble_test(minimal, found)
    assert test is not None
    assert [(lookup.distance, lookup.nibble) for group in test.groups for lookup in group] == [
        (0, "high"), (1, "high"), (1, "low")]
    assert len(test.boxes) == 7 and test.must == (0, 0, 0xE0, 0xF0)


@pytest.mark.parametrize("name", GRAMMARS)
def test_the_derivation_decides_as_the_dfa(name):
    """The nibble test (as generated code decides, in Python) against the DFA: every string of up
    to 3 representative bytes after each prefix, class-edge words, mutated walks."""
    from conftest import compile_text
    minimal = compile_text(grammar(name)).minimal
    found = window_test(minimal)
    assert isinstance(found, WindowTest)
    test = nibble_test(minimal, found)
    if test is None:
        assert name.endswith("rfc2279-utf8.abnf")  # too many cell windows: the class test only
        return
    alphabet = representatives(minimal)
    words = [bytes(w) for n in range(1, 4) for w in itertools.product(alphabet, repeat=n)]
    inputs = [p + w for p in prefixes(minimal)[:2] for w in words]
    inputs += edge_windows(minimal) + mutated_walks(minimal, random.Random(name), 400, 100, ascii_share=0.3,
                                                    cut_share=0.2)
    wrong = [data for data in inputs if nibble_accepts(test, minimal, data) != minimal.matches(data)]
    assert not wrong, wrong[:5]


@pytest.mark.slow
@pytest.mark.parametrize("instance", X86)
@pytest.mark.parametrize("name", GRAMMARS)
def test_every_representative_string_up_to_4_bytes(name, instance, tmp_path):
    """is_valid (the instance, from the first byte past k) against first_error (the DFA loop), -O2."""
    gen = generate(tmp_path, grammar(name), "v")
    assert gen.plan.window_test is not None
    if gen.plan.window_test.nibble is None:
        pytest.skip(f"{name} has no nibble test")
    binary = build(gen, "exhaustive_windows.c", tmp_path / "exhaustive",
                   ["-std=c99", "-O2", "-DV_WINDOW_TEST_MIN=1", f"-DV_WINDOW_TEST_{instance}"])
    alphabet, found = representatives(gen.minimal), prefixes(gen.minimal)
    assert run_exhaustive([str(binary)], tmp_path, alphabet, found, 4) == expected_count(alphabet, found, 4)


@pytest.mark.parametrize("instance", X86)
def test_utf8_representatives_under_sanitizers(instance, tmp_path):
    """The same under -fsanitize=address,undefined: every string of up to 3 bytes over every high
    nibble with each column group's edges, up to 4 over class edges; and random bytes."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    binary = build(gen, "exhaustive_windows.c", tmp_path / "exhaustive",
                   [*SANITIZE, "-DUTF8_WINDOW_TEST_MIN=1", f"-DUTF8_WINDOW_TEST_{instance}"])
    found = prefixes(gen.minimal)
    wide = representatives(gen.minimal, every_row=True)
    assert run_exhaustive([str(binary)], tmp_path, wide, found, 3) == expected_count(wide, found, 3)
    edges = bytes(class_edges(gen.minimal))
    assert run_exhaustive([str(binary)], tmp_path, edges, found, 4) == expected_count(edges, found, 4)
    rng = random.Random(3629)
    inputs = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))) for _ in range(2000)]
    inputs += [bytes(rng.choice(wide) for _ in range(rng.randrange(1, 300))) for _ in range(2000)]
    checker = build(gen, "check_records.c", tmp_path / "check",
                    [*SANITIZE, "-DUTF8_WINDOW_TEST_MIN=1", f"-DUTF8_WINDOW_TEST_{instance}"])
    assert run_records(checker, write_records(tmp_path / "records", inputs)) == [
        gen.minimal.first_error(d) for d in inputs]


def cross_build(gen, harness: str, output: Path, flags: list[str]) -> Path:
    from helpers.c_build import HARNESS_DIR, api_defines
    assert CROSS is not None
    command = [CROSS, "-std=c99", "-O2", "-static", "-Wall", "-Wextra", "-Werror", *flags, *api_defines(gen),
               "-o", str(output), str(HARNESS_DIR / harness), str(gen.source)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return output


@pytest.mark.slow
@needs_qemu
@pytest.mark.parametrize("name", GRAMMARS)
def test_neon_against_the_dfa_under_qemu(name, tmp_path):
    """The NEON instance (AArch64) under qemu-aarch64: the preprocessed source takes it, and its
    is_valid agrees with first_error (the DFA loop) on class-edge words, mutated walks, random
    inputs (check_records.c) and every representative string up to 4 bytes after each prefix."""
    gen = generate(tmp_path, grammar(name), "v")
    assert gen.plan.window_test is not None
    if gen.plan.window_test.nibble is None:
        pytest.skip(f"{name} has no nibble test")
    assert CROSS is not None and QEMU is not None
    preprocessed = subprocess.run([CROSS, "-std=c99", "-E", "-P", f"-I{gen.folder}", str(gen.source)],
                                  capture_output=True, text=True, check=True).stdout
    assert "v_win_walk_neon_" in preprocessed and "v_win_walk2_" not in preprocessed
    rng = random.Random(name)
    inputs = edge_windows(gen.minimal) + mutated_walks(gen.minimal, rng, 1500, 300, ascii_share=0.3, cut_share=0.2)
    inputs += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))) for _ in range(500)]
    checker = cross_build(gen, "check_records.c", tmp_path / "check", ["-DV_WINDOW_TEST_MIN=1"])
    write_records(tmp_path / "records", inputs)
    result = subprocess.run([QEMU, str(checker), str(tmp_path / "records")], capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    got = [None if word == "-" else int(word) for word in result.stdout.split()]
    assert got == [gen.minimal.first_error(d) for d in inputs]
    exhaustive = cross_build(gen, "exhaustive_windows.c", tmp_path / "exhaustive", ["-DV_WINDOW_TEST_MIN=1"])
    alphabet, found = representatives(gen.minimal), prefixes(gen.minimal)
    assert run_exhaustive([QEMU, str(exhaustive)], tmp_path, alphabet, found, 4) == expected_count(
        alphabet, found, 4)


def test_the_sse41_setting_takes_the_sse41_instance(tmp_path):
    """UTF8_WINDOW_TEST_SSE41 leaves out the AVX-512 VBMI and AVX2 choices (the preprocessed CPU
    check shows it), and the settings block documents it."""
    from helpers.c_build import GCC
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")

    def preprocessed(*defines: str) -> str:
        command = [GCC, "-std=c99", "-E", "-P", *defines, f"-I{gen.folder}", str(gen.source)]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    def choice(text: str) -> str:  # the body of the window test's CPU check
        start = text.index("static int utf8_have_window_test_(void)")
        return text[start:text.index("\n}", start)]

    plain, sse41 = choice(preprocessed()), choice(preprocessed("-DUTF8_WINDOW_TEST_SSE41"))
    for check in ('__builtin_cpu_supports("avx512vbmi")', '__builtin_cpu_supports("avx2")'):
        assert check in plain and check not in sse41
    assert '__builtin_cpu_supports("sse4.1") ? 3' in sse41 and "case 3:\n        return utf8_win_error16_" in \
        preprocessed("-DUTF8_WINDOW_TEST_SSE41")
    assert "UTF8_WINDOW_TEST_SSE41 take the SSE4.1 instance" in gen.source.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("instance", X86)
def test_every_case_grammar_with_a_nibble_test(instance, tmp_path):
    """The case suites' grammars whose C has a nibble test, each instance forced and the window
    test taken from the shortest input: is_valid against the minimal DFA's first errors on the
    cases' inputs, class-edge and representative words, and mutated walks (check_records.c)."""
    from conftest import PLAIN, compile_text
    from test_cases import MATCH_CASES, _regular
    chosen: dict[tuple[str, str | None], list[bytes]] = {}
    for case in MATCH_CASES:
        if case.setup == PLAIN and _regular(case):
            chosen.setdefault((case.grammar, case.start), []).extend([*case.accept, *case.reject])
    tested = 0
    for number, ((text, start), inputs) in enumerate(chosen.items()):
        minimal = compile_text(text, start).minimal
        found = window_test(minimal)
        if not isinstance(found, WindowTest) or nibble_test(minimal, found) is None:
            continue
        gen = generate(tmp_path / str(number), text, "g", start)
        if gen.plan.window_test is None or gen.plan.window_test.nibble is None:
            continue  # a finite language's plain loop, or no window test in C
        rng = random.Random(text)
        alphabet = representatives(minimal)
        inputs = inputs + mutated_walks(minimal, rng, 300, 150, cut_share=0.2)
        inputs += [bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(300)]
        binary = build(gen, "check_records.c", tmp_path / str(number) / "check",
                       ["-std=c99", "-O1", "-DG_WINDOW_TEST_MIN=1", f"-DG_WINDOW_TEST_{instance}"])
        assert run_records(binary, write_records(tmp_path / str(number) / "records", inputs)) == [
            minimal.first_error(d) for d in inputs], text
        tested += 1
    assert tested >= 20
