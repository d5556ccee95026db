"""Sizes and times of the cross-checking tools: ``abnfc vectors`` per grammar, and crosscheck on
one million inputs through hex-lines programs.

1. For every grammar in grammars/ and grammars/variants/: the number of vectors (``--extra-states``
   0 and 1) and the time ``abnfc vectors`` takes to make them (load, compile, suite, notes).
2. Fault detection: of 1,000 random one-fault DFAs of the UTF-8 grammar (one transition
   redirected or one accepting flag flipped), how many pass all of tests/data/utf8-vectors.tsv
   (1,405 hand-collected vectors) and how many pass all of the generated vectors.
3. One million distinct inputs (the vectors, every string up to 2 bytes, sampled 3-byte strings
   and random strings with near-misses), timed phase by phase: generating them, the grammar's
   verdicts, and each program answering them in the hex-lines protocol (the generated C
   validator, glibc's mbrtowc, CPython's bytes.decode, Node's TextDecoder).  Then the whole
   ``abnfc crosscheck`` command on the generated C validator, end to end.

Usage: .venv/bin/python bench/bench_tools.py [--inputs N]
"""
from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

import abnfc  # noqa: E402
from abnfc.crosscheck.inputs import InputStream, Part, all_strings, random_strings, sampled  # noqa: E402
from abnfc.crosscheck.language import load_language as load_compiled  # noqa: E402
from abnfc.crosscheck.programs import HexLines  # noqa: E402
from abnfc.crosscheck.provenance import NoProvenance  # noqa: E402
from abnfc.crosscheck.suite import build_suite  # noqa: E402
from abnfc.pipeline import Compilation  # noqa: E402
from mutants import wrong_mutants  # noqa: E402


def load_language(path: str):
    return load_compiled(Compilation(abnfc.load_grammar(path)))


def vectors_table() -> None:
    print("| grammar | minimal DFA | vectors (K=0) | time | vectors (K=1) | time |")
    print("|---|---|---|---|---|---|")
    paths = sorted((ROOT / "grammars").glob("*.abnf")) + sorted((ROOT / "grammars" / "variants").glob("*.abnf"))
    for path in paths:
        shown = path.relative_to(ROOT).as_posix()
        cells = []
        for extra in (0, 1):
            start = time.perf_counter()
            language = load_language(shown)
            try:
                count = len(build_suite(language.minimal, language.provenance, language.accepts, extra))
            except Exception as error:  # a suite over the limit: say so in the table
                cells += [f"refused ({type(error).__name__})", "—"]
                continue
            cells += [f"{count:,}", f"{time.perf_counter() - start:.2f} s"]
        states = f"{language.minimal.num_states} states, {language.minimal.num_classes} classes"
        if not language.exact and language.bounded is not None:
            states = f"bounded to {language.bounded.bound} bytes: {states}"
        print(f"| `{shown}` | {states} | " + " | ".join(cells) + " |")


def detection() -> None:
    language = load_language(str(ROOT / "grammars" / "utf8.abnf"))
    ours = build_suite(language.minimal, language.provenance, language.accepts)
    collected = []
    for line in (ROOT / "tests" / "data" / "utf8-vectors.tsv").read_text("utf-8").splitlines()[1:]:
        hex_text, valid, *_ = line.split("\t")
        collected.append((bytes.fromhex(hex_text), valid == "1"))
    dfa, taken = language.minimal, set()
    for data, _ in collected:
        state = dfa.start
        for byte in data:
            taken.add((state, dfa.byte_class[byte]))
            state = dfa.transitions[state][dfa.byte_class[byte]]
            if state == dfa.dead:
                break
    print(f"\ntests/data/utf8-vectors.tsv takes {len(taken)} of the {(dfa.num_states - 1) * dfa.num_classes} "
          "transitions of the live states")
    faulty = wrong_mutants(language.minimal, 1000, seed=11)
    missed_collected = sum(all(m.matches(d) == v for d, v in collected) for m in faulty)
    missed_ours = sum(all(m.matches(v.data) == v.valid for v in ours) for m in faulty)
    print(f"one-fault DFAs passing every vector: tests/data/utf8-vectors.tsv ({len(collected):,} vectors) "
          f"{missed_collected} of {len(faulty)}; abnfc vectors ({len(ours):,} vectors) {missed_ours} of {len(faulty)}")


def build(folder: Path, name: str, *sources: str) -> str | None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    output = folder / name
    subprocess.run([compiler, "-std=c99", "-O2", "-I", "generated", "-o", str(output), *sources], check=True, cwd=ROOT)
    return str(output)


def million(count: int) -> None:
    language = load_language(str(ROOT / "grammars" / "utf8.abnf"))
    start = time.perf_counter()
    vectors = [v.data for v in build_suite(language.minimal, NoProvenance(), language.accepts)]
    parts = [Part("vectors", vectors), Part("up to 2 bytes", all_strings(2), exhaustive=True),
             Part("3 bytes", sampled(3, 450_000, random.Random(1))),
             Part("random", random_strings(language.minimal, count, random.Random(2)))]
    inputs = [data for batch in InputStream(parts, 2).batches() for data in batch][:count]
    generated = time.perf_counter() - start
    start = time.perf_counter()
    expected = language.verdicts(inputs)
    verdicts = time.perf_counter() - start
    size = sum(len(d) for d in inputs)
    print(f"\n{len(inputs):,} distinct inputs ({size / len(inputs):.1f} bytes on average): generating them "
          f"{generated:.1f} s, the grammar's verdicts {verdicts:.1f} s")
    print("| program (hex-lines) | answers for 1 M inputs | disagreements |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        programs = [
            ("generated C validator (`examples/utf8_hexlines.c`)",
             build(Path(folder), "utf8_hexlines", "examples/utf8_hexlines.c", "generated/utf8.c")),
            ("glibc `mbrtowc` (`examples/glibc_mbrtowc.c`)",
             build(Path(folder), "mbrtowc", "examples/glibc_mbrtowc.c")),
            ("CPython `bytes.decode` (`examples/cpython_decode.py`)", f"{sys.executable} examples/cpython_decode.py"),
            ("Node `TextDecoder` (`examples/node_textdecoder.mjs`)",
             "node examples/node_textdecoder.mjs" if shutil.which("node") else None),
        ]
        for name, command in programs:
            if command is None:
                print(f"| {name} | not available | — |")
                continue
            start = time.perf_counter()
            answers = HexLines(command.split(), 60).verdicts(inputs)
            took = time.perf_counter() - start
            wrong = sum(a != b for a, b in zip(answers, expected, strict=True))
            print(f"| {name} | {took:.1f} s | {wrong:,} |")
        binary = build(Path(folder), "utf8_hexlines", "examples/utf8_hexlines.c", "generated/utf8.c")
        if binary is not None:
            command = [sys.executable, "-m", "abnfc", "crosscheck", "grammars/utf8.abnf", "--cmd", binary,
                       "--sample", "450000", "--random", str(count)]
            start = time.perf_counter()
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            took = time.perf_counter() - start
            summary = result.stdout.splitlines()[1] if result.stdout else result.stderr
            print(f"\nabnfc crosscheck end to end (generated C validator): {took:.1f} s, exit {result.returncode}; "
                  f"{summary}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--parts", default="vectors,detection,million", help="which tables to print")
    args = parser.parse_args()
    parts = args.parts.split(",")
    if "vectors" in parts:
        vectors_table()
    if "detection" in parts:
        detection()
    if "million" in parts:
        million(args.inputs)


if __name__ == "__main__":
    main()
