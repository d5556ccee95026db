"""Benchmark: the generated pushdown validators of RFC 8259 JSON against JSON parsers, one run.

A 16 MiB document of realistic objects (nested objects and arrays, strings with non-ASCII
characters and escapes, integers, decimals and exponents, pretty-printed and compact) is checked
by the validators ``abnfc compile grammars/json.abnf`` writes, and parsed by:

  - Python: ``json.loads``, ``orjson.loads`` and pysimdjson's ``Parser.parse`` (PyPI; skipped when
    not installed), against the generated Python module's ``first_error`` and ``is_valid`` (whose
    fast verdict rewrites nested parts in ``re``), that module rendered without its fast verdict
    (run patterns read the input in ``re`` between nested parts) and without either (the byte
    loop); the module's import time (it compiles its patterns) is printed too; then, on other
    documents (numbers, long strings, deep nesting, an invalid one), ``json.loads`` against
    ``first_error`` with and without the fast verdict;
  - C: the generated ``json_validator_is_valid`` built with ``cc -O3 -march=native``, timed in C,
    against pysimdjson's parse (simdjson's validating parse, called from Python);
  - JavaScript: the generated module's ``isValid`` on a Buffer, against Node's ``JSON.parse`` on
    the same text as a string (decoding included and not).

Each Python time is the median CPU time (``time.process_time``) of five runs, each C and
JavaScript time the best of seven; ratios are to the peer in the same run (the machines are
shared and noisy, so the ratios hold better than the MB/s).

    pip install orjson pysimdjson   # optional peers
    python bench/bench_json.py
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = 16 << 20
OTHER_SIZE = 4 << 20
REPEAT = 5

WORDS = ["alpha", "beta", "gamma", "délta", "東京", "emoji 😀", "line\nbreak", 'quote "x"', "tab\t", "x" * 40]

C_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "json_validator.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc(n); if (fread(d, 1, n, f) != (size_t)n) return 2; fclose(f);
    double best = 1e9; int ok = 0;
    for (int i = 0; i < 7; i++) {
        double t = now(); ok = json_validator_is_valid(d, n); t = now() - t; if (t < best) best = t;
    }
    printf("%d %.6f\n", ok, best);
    return 0;
}
"""

JS_HARNESS = r"""
import { readFileSync } from "node:fs";
import { isValid } from "./json_validator.mjs";
const buffer = readFileSync(process.argv[2]);
const text = buffer.toString("utf8");
function best(f) {
    let b = Infinity, r;
    for (let i = 0; i < 7; i++) {
        const t = process.hrtime.bigint(); r = f(); const s = Number(process.hrtime.bigint() - t) / 1e9;
        if (s < b) b = s;
    }
    return [b, r];
}
const [validator, ok] = best(() => isValid(buffer));
const [parse] = best(() => JSON.parse(text));
const [decodeParse] = best(() => JSON.parse(buffer.toString("utf8")));
console.log(JSON.stringify({ ok, validator, parse, decodeParse }));
"""


def document(size: int, seed: int = 1) -> bytes:
    """Objects like a web API's records until ``size`` bytes, in one array."""
    rng = random.Random(seed)
    items, total, index = [], 0, 0
    while total < size:
        record = {"id": index, "name": rng.choice(WORDS) + str(rng.random()), "price": round(rng.uniform(0, 1000), 2),
                  "tags": [rng.choice(WORDS) for _ in range(rng.randrange(4))], "active": rng.random() < 0.5,
                  "owner": {"first": rng.choice(WORDS), "last": None, "score": rng.randrange(-10**6, 10**6),
                            "ratio": rng.random() * 1e-5},
                  "matrix": [[rng.randrange(100) for _ in range(3)] for _ in range(2)]}
        text = json.dumps(record, ensure_ascii=rng.random() < 0.2, indent=rng.choice([None, 2]))
        items.append(text)
        total += len(text.encode()) + 2
        index += 1
    return ("[\n" + ",\n".join(items) + "\n]\n").encode()


def _variant_modules(folder: Path):
    """The generated Python module rendered without its fast verdict (its reductions), and
    without that, its run patterns and loop skips (the byte loop only)."""
    from dataclasses import replace

    from abnfc.backends.python import BACKEND
    from abnfc.backends.python.plan import lower
    from abnfc.backends.python.render import render
    from abnfc.backends.python.runner import runners
    from abnfc.frontend.source import load
    from abnfc.pipeline import Compilation

    compilation = Compilation(load(str(ROOT / "grammars" / "json.abnf")))
    tables = replace(compilation.tables(), header=compilation.header("bench"))
    modules = []
    variants = [("runs_only", {"reductions": None}), ("byte_loop", {"reductions": None, "runs": (), "loops": ()})]
    for name, change in variants:
        plan = lower(tables, {**BACKEND.defaults(), "prefix": f"json_{name}"})
        (folder / name).mkdir()
        [module] = runners([render(replace(plan, **change))], folder / name)
        modules.append(module)
    return modules


def other_documents(size: int, seed: int = 2) -> list[tuple[str, bytes]]:
    """Documents of other shapes, about ``size`` bytes each: numbers, long strings, deep nesting,
    and an invalid one (the benchmark's records with the last bracket wrong)."""
    rng = random.Random(seed)
    rows = [[round(rng.uniform(-1e6, 1e6), rng.randrange(8)) for _ in range(12)] for _ in range(size // 120)]
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randrange(5, 60))) for _ in range(size // 240)]

    def deep(level: int):
        if level == 0:
            return {"x": rng.random(), "s": rng.choice(WORDS)}
        return {"k": [deep(level - 1), level], "v": rng.choice(WORDS)} if level % 2 else [deep(level - 1), level]
    nests, total = [], 0
    while total < size:
        nests.append(json.dumps(deep(20)))
        total += len(nests[-1]) + 1
    broken = document(size, seed)
    return [("numbers (arrays of 12)", json.dumps(rows).encode()),
            ("long strings", json.dumps(texts, ensure_ascii=False).encode()),
            ("nesting 21 deep", ("[" + ",".join(nests) + "]").encode()),
            ("records, last ] a }", broken[:broken.rindex(b"]")] + b"}\n")]


def _loads_or_error(data: bytes):
    try:
        return json.loads(data)
    except ValueError as error:
        return error


def best(function, *args) -> tuple[float, object]:
    """The median CPU time of REPEAT runs (CPU time: other processes on a shared machine do not
    count), and the result."""
    times, result = [], None
    for _ in range(REPEAT):
        start = time.process_time()
        result = function(*args)
        times.append(time.process_time() - start)
    return sorted(times)[REPEAT // 2], result


def rate(seconds: float) -> str:
    return f"{SIZE / seconds / 1e6:,.0f} MB/s"


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="abnfc-bench-json-"))
    data = document(SIZE)
    (folder / "doc.json").write_bytes(data)
    subprocess.run([sys.executable, "-m", "abnfc", "compile", str(ROOT / "grammars" / "json.abnf"), "--lang",
                    "python,c,js", "--prefix", "json_validator", "--out", str(folder)], check=True, capture_output=True)
    sys.path.insert(0, str(folder))
    started = time.process_time()
    import json_validator
    imported = time.process_time() - started
    runs_only, byte_loop = _variant_modules(folder)

    rows = []
    generated, verdict = best(json_validator.first_error, data)
    assert verdict is None, verdict
    checked, verdict = best(json_validator.is_valid, data)
    assert verdict is True, verdict
    without, verdict = best(runs_only.first_error, data)
    assert verdict is None, verdict
    stepped, verdict = best(byte_loop.first_error, data)
    assert verdict is None, verdict
    loads, _ = best(json.loads, data)
    rows.append(("Python", "generated module, first_error", generated, "json.loads", loads))
    rows.append(("Python", "generated module, is_valid", checked, "json.loads", loads))
    rows.append(("Python", "generated module, first_error", generated, "the same, no fast verdict", without))
    rows.append(("Python", "generated module, first_error", generated, "the same, byte loop only", stepped))
    try:
        import orjson

        rows.append(("Python", "generated module, first_error", generated, "orjson.loads", best(orjson.loads, data)[0]))
    except ImportError:
        print("orjson not installed: skipped")
    simdjson_parse = None
    try:
        import simdjson

        parser = simdjson.Parser()
        simdjson_parse = best(lambda d: parser.parse(d) and None, data)[0]
        rows.append(("Python", "generated module, first_error", generated, "pysimdjson parse", simdjson_parse))
    except ImportError:
        print("pysimdjson not installed: skipped")
    if shutil.which("cc"):
        (folder / "harness.c").write_text(C_HARNESS)
        subprocess.run(["cc", "-O3", "-march=native", "-o", str(folder / "harness"), str(folder / "harness.c"),
                        str(folder / "json_validator.c")], check=True, cwd=folder)
        ok, seconds = subprocess.run([str(folder / "harness"), str(folder / "doc.json")], check=True,
                                     capture_output=True, text=True).stdout.split()
        assert ok == "1"
        if simdjson_parse is not None:
            rows.append(("C", "json_validator_is_valid (-O3)", float(seconds), "pysimdjson parse", simdjson_parse))
        rows.append(("C", "json_validator_is_valid (-O3)", float(seconds), "json.loads", loads))
    if shutil.which("node"):
        (folder / "harness.mjs").write_text(JS_HARNESS)
        found = json.loads(subprocess.run(["node", str(folder / "harness.mjs"), str(folder / "doc.json")], check=True,
                                          capture_output=True, text=True, cwd=folder).stdout)
        assert found["ok"] is True
        rows.append(("JavaScript", "isValid(Buffer)", found["validator"], "JSON.parse(string)", found["parse"]))
        rows.append(("JavaScript", "isValid(Buffer)", found["validator"], "JSON.parse(decode)", found["decodeParse"]))
    print(f"16 MiB of JSON ({len(data):,} bytes), median CPU time of {REPEAT} (Python) or best of 7 (C, JS) runs; "
          f"the Python module imports in {imported * 1000:.0f} ms of CPU time:\n")
    print("| language | abnfc | speed | peer | speed | abnfc / peer |")
    print("|---|---|---|---|---|---|")
    for language, ours, mine, peer, theirs in rows:
        print(f"| {language} | {ours} | {rate(mine)} | {peer} | {rate(theirs)} | {theirs / mine:.2f}x |")
    print(f"\nPython, other documents of about {OTHER_SIZE >> 20} MiB: json.loads's time over the module's "
          "first_error, with and without its fast verdict (higher: the module is faster):\n")
    print("| document | first_error | json.loads / first_error | json.loads / without fast verdict |")
    print("|---|---|---|---|")
    for name, other in other_documents(OTHER_SIZE):
        mine, verdict = best(json_validator.first_error, other)
        theirs, verdict_without = best(runs_only.first_error, other)
        assert verdict == verdict_without, (name, verdict, verdict_without)
        loading, _ = best(_loads_or_error, other)
        print(f"| {name} | {'valid' if verdict is None else f'error at {verdict:,}'} | {loading / mine:.2f}x | "
              f"{loading / theirs:.2f}x |")
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
