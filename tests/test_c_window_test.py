"""The C window test of is_valid (AVX-512 VBMI; abnfc.automata.window_test, backends/c/window_test.py):
built with the shortest window input at its least, so every input past k bytes takes it, and
checked by the records harness (is_valid against the scalar first_error, also at odd addresses
under the sanitizers) and against the DFA's own first errors."""
from __future__ import annotations

import itertools
import random
import subprocess

import pytest
from helpers.c_build import (
    CLANG,
    GCC,
    HARNESS_DIR,
    SANITIZE,
    build,
    generate,
    needs_gcc,
    run_records,
    tool,
    write_records,
)
from helpers.cpu import cpu_has
from helpers.paths import ROOT
from helpers.walks import class_edges, mutated_walks
from test_c import UTF8_TEXT, utf8_first_error, utf8_inputs
from test_c_strategies import TARGETS

from abnfc.automata.dfa import Dfa

pytestmark = needs_gcc


VBMI = ("avx512f", "avx512bw", "avx512vbmi")
needs_vbmi = pytest.mark.skipif(not cpu_has(*VBMI), reason="this CPU has no AVX-512 VBMI: the window test is not run")
INSTANCES = [pytest.param([], marks=needs_vbmi, id="avx512"),
             pytest.param(["AVX2"], marks=pytest.mark.skipif(not cpu_has("avx2"), reason="this CPU has no AVX2"),
                          id="avx2"),
             pytest.param(["SSE41"], marks=pytest.mark.skipif(not cpu_has("sse4_1"), reason="this CPU has no SSE4.1"),
                          id="sse41")]
VARIANTS = ["java-modified-utf8.abnf", "wtf8.abnf", "cesu8.abnf", "generalized-utf8.abnf", "rfc2279-utf8.abnf"]


def edge_windows(dfa: Dfa) -> list[bytes]:
    """Every word of 1 to 3 class-edge bytes (each class's lowest and highest byte) after a few
    prefixes, so that windows past the first k bytes see every pair and triple of classes; the
    pairs also followed by 1 to 3 bytes 80, which complete many of them (a wrong window is only
    seen by is_valid in an input that is complete)."""
    edges = class_edges(dfa)
    pairs = [bytes(w) for n in (1, 2) for w in itertools.product(edges, repeat=n)]
    words = [bytes(w) for w in itertools.product(edges, repeat=3)]
    words += [pair + b"\x80" * n for pair in pairs for n in range(4)]
    prefixes = [b"abcd", "aé".encode(), "a€".encode(), "a😀".encode()]
    return [prefix + word for prefix in prefixes for word in words]


def test_the_plan_has_windows_only_where_they_apply(tmp_path):
    auto = generate(tmp_path / "auto", UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    assert auto.plan.window_test is not None and (auto.plan.window_test.k, auto.plan.window_test.boxes) == (3, 7)
    assert "utf8_window_error_" in auto.source.read_text(encoding="utf-8")
    table = generate(tmp_path / "table", UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf", strategy="table")
    assert table.plan.window_test is None  # a strategy asked for by name runs as it is
    uri = (ROOT / "grammars" / "uri.abnf").read_text(encoding="utf-8")
    assert generate(tmp_path / "uri", uri, "uri").plan.window_test is None  # not definite



@pytest.mark.parametrize("names", [("NO_WINDOW_TEST", "WINDOW_TEST_MIN", "WINDOW_TEST_AVX2"),
                                   ("NO_WINDOWS", "WINDOWS_MIN", "WINDOWS_AVX2")], ids=["names", "former-names"])
def test_the_settings_under_their_names_and_former_names(names, tmp_path):
    """Each setting of the window test works under its name and its former name (the preprocessed
    is_valid and CPU check show it), and the names say window test, not windows."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    off, shortest, avx2 = (f"-DUTF8_{name}" for name in names)

    def preprocessed(*defines: str) -> str:
        command = [GCC, "-std=c99", "-E", "-P", *defines, f"-I{gen.folder}", str(gen.source)]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    vbmi = '__builtin_cpu_supports("avx512vbmi")'
    plain = preprocessed()
    assert "if (len >= 8u) {" in plain and vbmi in plain  # padded: short inputs too (tests/test_c_window_driver.py)
    assert "if (len >= 1) {" in preprocessed(f"{shortest}=1")
    assert "utf8_have_window_test_" not in preprocessed(off)
    assert vbmi not in preprocessed(avx2) and "utf8_win_error2_" in preprocessed(avx2)
    assert "WINDOWS" not in gen.source.read_text(encoding="utf-8").replace("_NO_WINDOWS", "").replace(
        "_WINDOWS_MIN", "").replace("_WINDOWS_AVX2", "")

@pytest.mark.parametrize("instance", INSTANCES)
def test_utf8_windows_under_sanitizers(instance, tmp_path):
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    walks = mutated_walks(gen.minimal, random.Random(8), 1500, 300, ascii_share=0.3, cut_share=0.2)
    inputs = utf8_inputs() + walks + edge_windows(gen.minimal)
    binary = build(gen, "check_records.c", tmp_path / "check",
                   [*SANITIZE, "-DUTF8_WINDOW_TEST_MIN=1", *(f"-DUTF8_WINDOW_TEST_{name}" for name in instance)])
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [utf8_first_error(d) for d in inputs]


@pytest.mark.parametrize("instance", INSTANCES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_variant_windows_agree_with_the_dfa(variant, instance, tmp_path):
    text = (ROOT / "grammars" / "variants" / variant).read_text(encoding="utf-8")
    gen = generate(tmp_path, text, "v")
    assert gen.plan.window_test is not None
    inputs = mutated_walks(gen.minimal, random.Random(variant), 1500, 300, ascii_share=0.3,
                                                          cut_share=0.2) + edge_windows(gen.minimal)
    binary = build(gen, "check_records.c", tmp_path / "check",
                   ["-std=c99", "-O2", "-DV_WINDOW_TEST_MIN=1", *(f"-DV_WINDOW_TEST_{name}" for name in instance)])
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [
        gen.minimal.first_error(d) for d in inputs]


@pytest.mark.skipif(CLANG is None, reason="clang not found")
def test_the_window_code_compiles_everywhere(tmp_path):
    """clang -Weverything on x86-64 (the AVX-512 code compiled) and on other targets (left out)."""
    gen = generate(tmp_path, UTF8_TEXT, "utf8", grammar_file="grammars/utf8.abnf")
    for target in ["x86_64-linux-gnu", *TARGETS]:
        freestanding = [] if target.startswith("x86_64") else ["-ffreestanding", f"-I{HARNESS_DIR / 'freestanding'}"]
        command = [tool(CLANG), f"--target={target}", *freestanding, "-std=c99", "-Weverything", "-Wno-padded",
                   "-Werror", "-O2", "-c", "-o", str(tmp_path / f"{target}.o"), str(gen.source)]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, f"{target}:\n{result.stderr}"


@pytest.mark.slow
@needs_vbmi
def test_every_case_grammar_with_windows_through_the_runner(monkeypatch):
    """The case suites' grammars whose C takes the window test (auto, not a finite language),
    generated with the shortest window input at its least and loaded through the C runner:
    is_valid against the minimal DFA on the cases' inputs, class-edge windows and mutated walks."""
    from conftest import PLAIN, compile_text, files_for, validators
    from test_cases import MATCH_CASES, _regular

    import abnfc.backends.c.window_driver as c_window_driver
    import abnfc.backends.c.window_test as c_window_test
    from abnfc.automata.window_test import WindowTest, window_test

    monkeypatch.setattr(c_window_test, "MIN_LENGTH", 1)
    monkeypatch.setattr(c_window_driver, "SHORT_MIN", 0)
    chosen: dict[tuple[str, str | None], list[bytes]] = {}
    for case in MATCH_CASES:
        if case.setup != PLAIN or not _regular(case):
            continue
        minimal = compile_text(case.grammar, case.start).minimal
        if not isinstance(window_test(minimal), WindowTest):
            continue
        [source] = [body for name, body in files_for(case.grammar, "c", "g", case.start).items() if name.endswith(".c")]
        if "g_window_error_" in source:  # not a finite language's plain loop
            chosen.setdefault((case.grammar, case.start), []).extend([*case.accept, *case.reject])
    loaded = validators([text for text, _ in chosen], "c", starts=[start for _, start in chosen])
    windowed = 0
    for (text, start), validator in zip(chosen, loaded, strict=True):
        minimal = compile_text(text, start).minimal
        rng = random.Random(text)
        inputs = chosen[text, start] + mutated_walks(minimal, rng, 200, 150, cut_share=0.2)
        inputs += [b"".join(rng.choice(class_edges(minimal)).to_bytes(1, "big") for _ in range(rng.randint(1, 12)))
                   for _ in range(200)]
        for data in inputs:
            assert validator.is_valid(data) == minimal.matches(data), (text, start, data)
        windowed += 1
    assert windowed >= 30


def test_a_language_with_no_forbidden_window_compiles_strictly(tmp_path):
    """After its first byte every byte may follow: no box, one group of zero masks."""
    gen = generate(tmp_path, "x = %x41 *%x00-FF\n", "anyafter")
    assert gen.plan.window_test is not None and gen.plan.window_test.boxes == 0 and gen.plan.window_test.groups == 1
    binary = build(gen, "check_records.c", tmp_path / "check", ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror",
                                                                "-DANYAFTER_WINDOW_TEST_MIN=1"])
    inputs = [b"", b"A", b"B", b"AB", b"A" + bytes(range(256)), b"BA" * 100]
    assert run_records(binary, write_records(tmp_path / "records", inputs)) == [
        gen.minimal.first_error(d) for d in inputs]
