"""Fuzzing generated C with inputs: libFuzzer where clang has it, a seeded driver otherwise.

For the grammars in grammars/ and a few random regular ones, with each C strategy that applies
(and for the UTF-8 grammars with a window test, ``auto`` with every input past k bytes taken by it;
for utf8.abnf also by its AVX2 instance; a strategy that does not apply is a skipped test),
c_input_fuzz.c checks P_first_error, P_is_valid, the stream API cut at pseudo-random points and
the accessors against a reference table walk of the same DFA, under ASan and UBSan.  With
libFuzzer (clang -fsanitize=fuzzer, Debian's libclang-rt-14-dev) coverage guides the inputs for
ABNFC_FUZZ_SECONDS per target (default 3), starting from strings sampled from the grammar; the
corpus it leaves is then replayed through the generated Python module and the minimal DFA.
Without it, gcc builds a driver that replays seeded random inputs (samples, mutations, random
bytes) written by this test.  A failing input is kept in findings/ by libFuzzer's artifact
prefix, and replayed by every later run of the same target (:func:`kept_findings`).
"""
from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, compile_text, python_module
from grammar_gen import mutations, random_bytes, random_regular_grammar, sample
from helpers.c_build import generate

from abnfc.automata.dfa import Dfa
from abnfc.automata.window_test import WindowTest, window_test

HERE = Path(__file__).resolve().parent
SECONDS = int(os.environ.get("ABNFC_FUZZ_SECONDS", "3"))
SANITIZE = ["-g", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


def _grammars() -> dict[str, str]:
    found = {path.stem: path.read_text() for path in sorted((ROOT / "grammars").glob("*.abnf"))}
    rng = random.Random(1305)
    found.update((f"random{k}", random_regular_grammar(rng)) for k in range(3))
    return found


GRAMMARS = _grammars()
VARIANTS = {path.stem: path.read_text() for path in sorted((ROOT / "grammars" / "variants").glob("*.abnf"))}
# (grammar, strategy): every grammar with the table and the shift strategy, and the UTF-8 grammars
# with auto (is_valid by a window test), utf8.abnf also by its AVX2 instance.  Which of them apply
# takes compiling the grammars, so it is found when a target runs, not when the tests are collected
# (it took seconds, paid by every run of any tier).
TARGETS = [*((name, strategy) for name in GRAMMARS for strategy in ("shift", "table")),
           *((name, "auto") for name in ("utf8", *VARIANTS)), ("utf8", "auto-avx2")]


def _text(name: str) -> str:
    return GRAMMARS[name] if name in GRAMMARS else VARIANTS[name]


def _applies(name: str, strategy: str) -> str | None:
    """Why ``strategy`` does not apply to the grammar ``name`` (the test is skipped), or None."""
    try:
        minimal = compile_text(_text(name)).minimal
    except Exception:  # a recursive grammar, or one beyond the limits, has no C
        return f"{name} has no DFA (it is self-embedding, or past the limits), so no C of this kind"
    if strategy == "shift" and minimal.num_states > 10:
        return f"the shift strategy is tried on grammars of at most 10 states ({name} has {minimal.num_states})"
    if strategy.startswith("auto") and not isinstance(window_test(minimal), WindowTest):
        return f"{name} has no window test"
    return None


def libfuzzer() -> str | None:
    clang = shutil.which("clang")
    if clang is None:
        return None
    probe = subprocess.run([clang, "-fsanitize=fuzzer", "-x", "c", "-", "-o", os.devnull],
                           input="#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput("
                                 "const uint8_t *d, size_t n) { return 0; }\n",
                           capture_output=True, text=True)
    return clang if probe.returncode == 0 else None


def reference_header(minimal: Dfa) -> str:
    rows = ",\n".join("    {" + ", ".join(map(str, row)) + "}" for row in minimal.transitions)
    return (f"#define REF_START {minimal.start}u\n#define REF_DEAD {minimal.dead}u\n"
            f"static const unsigned short ref_class[256] = {{{', '.join(map(str, minimal.byte_class))}}};\n"
            f"static const unsigned ref_next[{minimal.num_states}][{minimal.num_classes}] = {{\n{rows}\n}};\n"
            f"static const unsigned char ref_accepting[{minimal.num_states}] = "
            f"{{{', '.join('1' if s in minimal.accepting else '0' for s in range(minimal.num_states))}}};\n")


def kept_findings(name: str, strategy: str) -> list[bytes]:
    """The inputs libFuzzer kept in findings/ for this target (a crash or a disagreement once
    found stays a test)."""
    return [path.read_bytes() for path in sorted((HERE / "findings").glob(f"{name}-{strategy}-*"))]


def seeds(text: str, rng: random.Random) -> list[bytes]:
    resolved = compile_text(text).resolved
    found = [b""]
    for repeat in (2, 4, 20):
        data = sample(resolved, rng, max_repeat=repeat)
        if data is not None:  # None: the start rule matches nothing
            found += [data, *mutations(data, rng, 3)]
    found += [random_bytes(rng, 40) for _ in range(20)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("name, strategy", TARGETS, ids=[f"{name}-{strategy}" for name, strategy in TARGETS])
def test_generated_c_survives_input_fuzzing(name, strategy, tmp_path):
    if shutil.which("gcc") is None and libfuzzer() is None:
        pytest.skip("no C compiler")
    reason = _applies(name, strategy)
    if reason:
        pytest.skip(reason)
    text = _text(name)
    generated = generate(tmp_path, text, "fz", strategy=strategy.removesuffix("-avx2"))
    (tmp_path / "reference.h").write_text(reference_header(generated.minimal))
    defines = [f"-DPFX={generated.prefix}", f"-DMPFX={generated.plan.macro}", f'-DHEADER="{generated.header.name}"',
               f"-I{tmp_path}", *(["-DFZ_WINDOW_TEST_MIN=1"] if strategy.startswith("auto") else []),
               *(["-DFZ_WINDOW_TEST_AVX2"] if strategy == "auto-avx2" else [])]
    rng = random.Random(f"{name}/{strategy}")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for index, data in enumerate(seeds(text, rng)):
        (corpus / f"seed{index}").write_bytes(data)
    for index, data in enumerate(kept_findings(name, strategy)):
        (corpus / f"finding{index}").write_bytes(data)
    clang = libfuzzer()
    if clang:
        binary = tmp_path / "fuzz"
        subprocess.run([clang, *SANITIZE, "-fsanitize=fuzzer", *defines, "-o", str(binary),
                        str(HERE / "c_input_fuzz.c"), str(generated.source)], check=True)
        findings = HERE / "findings"
        result = subprocess.run([str(binary), f"-max_total_time={SECONDS}", "-seed=1", "-max_len=4096",
                                 f"-artifact_prefix={findings}/{name}-{strategy}-", str(corpus)],
                                capture_output=True, text=True, timeout=SECONDS * 20 + 120)
        assert result.returncode == 0, result.stderr[-4000:]
        inputs = [path.read_bytes() for path in sorted(corpus.iterdir())]
    else:
        inputs = [data for base in seeds(text, rng) for data in (base, *mutations(base, rng, 20))]
        inputs += kept_findings(name, strategy)
        records = tmp_path / "records"
        records.write_bytes(b"".join(struct.pack("<I", len(data)) + data for data in inputs))
        binary = tmp_path / "replay"
        subprocess.run(["gcc", "-std=c99", *SANITIZE, "-DSTANDALONE", *defines, "-o", str(binary),
                        str(HERE / "c_input_fuzz.c"), str(generated.source)], check=True)
        result = subprocess.run([str(binary), str(records)], capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-4000:]
        assert int(result.stdout) == len(inputs)
    module = python_module(text)
    wrong = [data for data in inputs if module.first_error(data) != generated.minimal.first_error(data)]
    assert not wrong, f"the Python validator disagrees with the DFA on {wrong[0]!r}"
    assert len(inputs) > 20
