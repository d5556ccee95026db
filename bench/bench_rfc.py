"""Benchmark: the code-point grammars (JSON, IRI) and the corpus of 32 RFC grammars.

Prints three tables, all from one run:
  - compile times and minimal DFA sizes of the grammars in grammars/ that use code points or
    imports (json.abnf's string and number, iri.abnf with uri.abnf imported), beside uri.abnf;
  - the interpreter on 1 MiB JSON inputs (a realistic document, and brackets nested half a million
    deep), with Python's json module (C) on the same input for scale, and on 1 MiB of RFC 5322
    addresses with nested comments (grammars/email.abnf) for comparison;
  - the RFC corpus of tests/rfc_corpus.py with default limits: how many rules compile, run in the
    interpreter or are refused, and the total time (``--no-corpus`` skips it: it takes minutes).

    python bench/bench_rfc.py
"""
from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import abnfc
from abnfc.pipeline import resolve_grammar
from abnfc.interpret import recognize

ROOT = Path(__file__).resolve().parents[1]
GRAMMARS = ROOT / "grammars"
MIB = 1 << 20


def timed(function, *args) -> tuple[float, object]:
    begun = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - begun, result


def compile_rows() -> None:
    print("| grammar | start rule | encoding | minimal DFA | NFA, DFA states | compile time |")
    print("|---|---|---|---|---|---|")
    cases = [("uri.abnf", None, []), ("iri.abnf", None, ["uri.abnf"]), ("json.abnf", "string", []),
             ("json.abnf", "number", [])]
    for name, start, imports in cases:
        grammar = abnfc.load_grammar(GRAMMARS / name, imports=[GRAMMARS / i for i in imports])
        seconds, compiled = timed(abnfc.compile_grammar, grammar, start)
        shown = name + "".join(f" --import {i}" for i in imports)
        print(f"| {shown} | {compiled.resolved.start_name} | {compiled.resolved.encoding} | "
              f"{compiled.minimal.num_states} states, {compiled.minimal.num_classes} classes | "
              f"{compiled.nfa.num_states}, {compiled.dfa.num_states} | {seconds:.2f} s |")


def json_document(size: int) -> bytes:
    rng = random.Random(8259)

    def value(depth: int):
        if depth > 4 or rng.random() < 0.35:
            return rng.choice([rng.randint(-10**9, 10**9), rng.uniform(-1e6, 1e6), "Grüße, 世界 😀 \"q\"\n",
                               True, False, None])
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randint(0, 5))]
        return {f"key{rng.randint(0, 9)}": value(depth + 1) for _ in range(rng.randint(0, 5))}

    parts, total = [], 0
    while total < size:
        part = json.dumps(value(0), ensure_ascii=False, indent=rng.choice([None, 2])).encode()
        parts.append(part)
        total += len(part) + 1
    return b"[" + b",".join(parts) + b"]"


def json_rows() -> None:
    resolved = resolve_grammar(abnfc.load_grammar(GRAMMARS / "json.abnf"))
    inputs = [("JSON document", json_document(MIB)), ("nested arrays", b"[" * (MIB // 2) + b"]" * (MIB // 2))]
    print("| input | engine | bytes | seconds | s/MB | vs json.loads | match |")
    print("|---|---|---|---|---|---|---|")
    for label, data in inputs:
        ours, verdict = timed(lambda d: recognize(resolved, d).matched, data)
        try:
            theirs, _ = timed(lambda d: json.loads(d.decode()), data)
            ratio = f"{ours / theirs:.0f}× slower"
        except RecursionError:
            theirs, ratio = float("nan"), "json.loads: RecursionError"
        print(f"| {label} | abnfc interpreter | {len(data)} | {ours:.2f} | {ours / (len(data) / 1e6):.2f} | "
              f"{ratio} | {verdict} |")
        if theirs == theirs:
            print(f"| {label} | Python json.loads (C, for scale) | {len(data)} | {theirs:.3f} | "
                  f"{theirs / (len(data) / 1e6):.3f} | 1× | True |")
        sys.stdout.flush()
    email = abnfc.load_grammar(GRAMMARS / "email.abnf")  # a recursive grammar, for comparison
    unit = b"(a comment (nested (deeper) here) text) "
    comments = b"local" + unit * (MIB // len(unit)) + b"@example.com"
    seconds, verdict = timed(lambda d: abnfc.recognize(email, d).matched, comments)
    print(f"| RFC 5322 addr-spec, nested comments | abnfc interpreter | {len(comments)} | {seconds:.2f} | "
          f"{seconds / (len(comments) / 1e6):.2f} | | {verdict} |")


def corpus_rows() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import rfc_corpus

    outcomes, seconds = rfc_corpus.run()
    counts = Counter(outcome.kind for outcome in outcomes)
    print(f"{len(outcomes)} rules of {len({o.file for o in outcomes})} RFC grammars, every rule a start "
          f"rule, imports supplied, default limits: {seconds:.0f} s")
    print("| outcome | rules |\n|---|---|")
    for kind in rfc_corpus.KINDS:
        print(f"| {kind} | {counts[kind]} |")


def main(argv: list[str]) -> int:
    compile_rows()
    print()
    json_rows()
    if "--no-corpus" not in argv:
        print()
        corpus_rows()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
