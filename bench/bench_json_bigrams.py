"""Benchmark and cross-check: the token-bigram prototype of JSON's is_valid
(bench/prototypes/json_token_bigrams.c) and the generated validator's token bigrams, against the
byte loop and simdjson.

The prototype is JSON's is_valid in the design the generator emits on processors with AVX-512
VBMI2 (see docs/benchmarks.md, "Token bigrams"): no pass walks the positions one by one.  It
comes in two versions: with JSON's rules written by hand, and with the tables that
bench/prototypes/derive_position_pairs.py and derive_token_automaton.py derive from the grammar
(``-DDERIVED_PAIRS -DTOKEN_AUTOMATON``).  This script builds both beside ``abnfc compile
grammars/json.abnf --lang c``, then

1. checks that each, and the generated is_valid (built with ``-DJSON_VALIDATOR_BIGRAMS_MIN=1``,
   so that its token bigrams take every input), gives the byte loop's verdict on every document
   of a corpus:
   JSONTestSuite's files, documents generated at random (every kind of value, whitespace,
   escapes with ``\\u``, non-ASCII text, numbers of every shape, nesting past the depth limit, and
   sizes that cross blocks and chunks) and each of them mutated (bytes changed, inserted or
   deleted, the end cut); each document is copied to a buffer of its exact size, so a sanitizer
   build (``--sanitize``) sees any read past the end;
2. times the generated is_valid, the prototype and simdjson in one process, called in turn (the
   median of the rounds' times, and of the rounds' ratios; a process per version), on
   simdjson's three files where ``--examples DIR`` names a folder holding them and on
   bench_json_stages's generated documents.

It needs a processor with AVX-512 VBMI2 (``vpcompressb``); simdjson from libsimdjson-dev.

    python bench/bench_json_bigrams.py [--examples DIR] [--check-only] [--sanitize] [--documents N]
"""
from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_json_stages import DOCUMENTS, EXAMPLES  # noqa: E402

PROTOTYPE = ROOT / "bench" / "prototypes" / "json_token_bigrams.c"
DERIVE_TOKENS = ROOT / "bench" / "prototypes" / "derive_token_automaton.py"
DERIVE_PAIRS = ROOT / "bench" / "prototypes" / "derive_position_pairs.py"
JSON = ROOT / "grammars" / "json.abnf"
SUITE = ROOT / "tests" / "data" / "jsontestsuite"
ROUNDS = 101
WARM = 0.3  # seconds of calls before the timed rounds

# Reads records (a 4-byte little-endian length, then the document) and prints
# "documents valid disagreements", then the index of each disagreement (at most 20).
CHECK_HARNESS = r"""
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_validator.h"
bool bigrams_is_valid(const uint8_t *data, size_t len);
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    long documents = 0, valid = 0, differ = 0, differ_prototype = 0, shown = 0;
    unsigned char size[4];
    while (fread(size, 1, 4, f) == 4) {
        size_t len = (size_t)size[0] | (size_t)size[1] << 8 | (size_t)size[2] << 16 | (size_t)size[3] << 24;
        unsigned char *doc = malloc(len ? len : 1);
        if (fread(doc, 1, len, f) != len) return 2;
        bool loop = json_validator_validate(doc, len, JSON_VALIDATOR_MAX_DEPTH, NULL) == JSON_VALIDATOR_VALID;
        bool ours = json_validator_is_valid(doc, len), theirs = bigrams_is_valid(doc, len);
        valid += loop;
        if ((ours != loop || theirs != loop) && shown++ < 20)
            fprintf(stderr, "document %ld: byte loop %d, generated is_valid %d, prototype %d\n", documents, loop,
                    ours, theirs);
        differ += ours != loop;
        differ_prototype += theirs != loop;
        documents++;
        free(doc);
    }
    printf("%ld %ld %ld %ld\n", documents, valid, differ, differ_prototype);
    return 0;
}
"""

# Times the generated is_valid, the prototype and simdjson's DOM parse in one process, called in
# turn; prints "ok generated prototype simdjson simdjson/prototype generated/prototype" (medians).
TIMING_HARNESS = r"""
#include <simdjson.h>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>
extern "C" {
#include "json_validator.h"
bool bigrams_is_valid(const uint8_t *data, size_t len);
}
static double now() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char **argv) {
    simdjson::padded_string doc = simdjson::padded_string::load(argv[1]);
    const uint8_t *data = (const uint8_t *)doc.data();
    size_t n = doc.size();
    simdjson::dom::parser parser;
    int ok = 1;
    auto generated = [&] { ok &= json_validator_is_valid(data, n); };
    auto prototype = [&] { ok &= bigrams_is_valid(data, n); };
    auto theirs = [&] { ok &= parser.parse(doc).error() == simdjson::SUCCESS; };
    for (double start = now(); now() - start < WARM;) { generated(); prototype(); theirs(); }
    std::vector<double> a, b, c, vs_simdjson, vs_generated;
    for (int round = 0; round < ROUNDS; round++) {
        double t0 = now(); generated(); double t1 = now(); prototype(); double t2 = now(); theirs(); double t3 = now();
        a.push_back(t1 - t0); b.push_back(t2 - t1); c.push_back(t3 - t2);
        vs_simdjson.push_back((t3 - t2) / (t2 - t1)); vs_generated.push_back((t1 - t0) / (t2 - t1));
    }
    std::printf("%d %.9f %.9f %.9f %.4f %.4f\n", ok, median(a), median(b), median(c), median(vs_simdjson),
                median(vs_generated));
    return 0;
}
"""


def _number(rng: random.Random) -> str:
    text = rng.choice(["", "-"]) + rng.choice(["0", str(rng.randint(1, 9)) + "".join(
        rng.choice("0123456789") for _ in range(rng.randint(0, 25)))])
    if rng.random() < 0.4:
        text += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 20)))
    if rng.random() < 0.3:
        text += rng.choice("eE") + rng.choice(["", "+", "-"]) + "".join(
            rng.choice("0123456789") for _ in range(rng.randint(1, 4)))
    return text


def _string(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 12)):
        roll = rng.random()
        if roll < 0.5:
            parts.append("".join(rng.choice("abcxyz :,{}[]/") for _ in range(rng.randint(0, 40))))
        elif roll < 0.6:
            parts.append(rng.choice(['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]))
        elif roll < 0.7:
            parts.append("\\u" + "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(4)))
        elif roll < 0.8:
            parts.append(rng.choice(["é", "中文", "😀", "ü"]))
        else:
            parts.append("\\\\" * rng.randint(1, 3))
    return '"' + "".join(parts) + '"'


def _space(rng: random.Random) -> str:
    return rng.choice(["", "", " ", "\n  ", "\t", " \r\n", " " * rng.randint(0, 70)])


def _value(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice([lambda: _number(rng), lambda: _string(rng), lambda: rng.choice(["true", "false", "null"])])()
    items = [_value(rng, depth + 1) + _space(rng) for _ in range(rng.randint(0, 6))]
    if roll < 0.65:
        return "[" + _space(rng) + ("," + _space(rng)).join(items) + "]"
    members = [_string(rng) + _space(rng) + ":" + _space(rng) + item for item in items]
    return "{" + _space(rng) + ("," + _space(rng)).join(members) + "}"


MUTATIONS = b"{}[]:,\"\\ \t\n0123456789-+.eEtrufalsn\x01/u\x80\xc3\xa9"


def _mutate(rng: random.Random, doc: bytes) -> bytes:
    data = bytearray(doc)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data)) if data else 0
        change = rng.randrange(4)
        byte = rng.choice(MUTATIONS)
        if change == 0 and data:
            data[at] = byte
        elif change == 1:
            data.insert(at, byte)
        elif change == 2 and data:
            del data[at]
        elif data:
            del data[at:]
    return bytes(data)


def corpus(documents: int, mutations: int, seed: int = 5) -> list[bytes]:
    """JSONTestSuite's files, then generated documents and their mutations (deterministic)."""
    rng = random.Random(seed)
    docs = [path.read_bytes() for path in sorted(SUITE.glob("*.json"))]
    for i in range(documents):
        if i % 20 == 0:
            depth = rng.randint(1, 300)
            doc = ("[" * depth + "]" * rng.randint(depth - 1, depth + 1)).encode()
        elif i % 50 == 1:  # long enough to cross chunks (4 KiB) many times
            doc = ("[" + ",".join(_number(rng) for _ in range(rng.randint(500, 3000))) + "]").encode()
        elif i % 50 == 2:
            doc = ("[" + ",".join(_string(rng) for _ in range(rng.randint(200, 800))) + "]").encode()
        else:
            doc = (_space(rng) + _value(rng, 0) + _space(rng)).encode()
        docs.append(doc)
        docs.extend(_mutate(rng, doc) for _ in range(mutations))
    return docs


def write_records(docs: list[bytes], path: Path) -> None:
    path.write_bytes(b"".join(len(doc).to_bytes(4, "little") + doc for doc in docs))


def build(folder: Path, sanitize: bool = False, derived: bool = False) -> Path:
    """The generated validator, the prototype and the check harness in folder: the harness's path.
    With derived, passes A, B, C and N take the tables derive_position_pairs.py and
    derive_token_automaton.py derive from the grammar."""
    if not (folder / "json_validator.c").exists():
        subprocess.run([sys.executable, "-m", "abnfc", "compile", str(JSON), "--lang", "c",
                        "--prefix", "json_validator", "--out", str(folder)], check=True, capture_output=True)
    (folder / "check.c").write_text(CHECK_HARNESS)
    flags = ["-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"] if sanitize else ["-O3"]
    binary = folder / ("check_derived" if derived else "check")
    # The prototype includes json_validator.c (for stage 1's internal functions), so it is the one
    # object that holds the generated validator's functions too.
    subprocess.run(["cc", *flags, *_variant(folder, derived), "-DJSON_VALIDATOR_BIGRAMS_MIN=1", "-march=native",
                    "-I", str(folder), "-o", str(binary), str(folder / "check.c"), str(PROTOTYPE)], check=True)
    return binary


def _variant(folder: Path, derived: bool) -> list[str]:
    """The prototype's flags: with derived, its tables derived from the grammar, written into folder first."""
    if not derived:
        return []
    for script, header in ((DERIVE_TOKENS, "token_automaton.h"), (DERIVE_PAIRS, "position_pairs.h")):
        made = subprocess.run([sys.executable, str(script), str(JSON)], check=True, capture_output=True, text=True)
        (folder / header).write_text(made.stdout)
    return ["-DTOKEN_AUTOMATON", "-DDERIVED_PAIRS"]


def check(binary: Path, docs: list[bytes], folder: Path) -> tuple[int, int, int, int]:
    """(documents, valid by the byte loop, the generated is_valid's disagreements with it, the prototype's)."""
    write_records(docs, folder / "corpus.bin")
    out = subprocess.run([str(binary), str(folder / "corpus.bin")], check=True, capture_output=True, text=True)
    if out.stderr:
        print(out.stderr, end="", file=sys.stderr)
    documents, valid, differ, differ_prototype = map(int, out.stdout.split())
    return documents, valid, differ, differ_prototype


def _timing(folder: Path, examples: Path | None) -> None:
    (folder / "timing.cpp").write_text(TIMING_HARNESS.replace("ROUNDS", str(ROUNDS)).replace("WARM", str(WARM)))
    binaries = []
    for derived in (False, True):
        obj, binary = folder / f"prototype{int(derived)}.o", folder / f"timing{int(derived)}"
        subprocess.run(["cc", "-O3", *_variant(folder, derived), "-march=native", "-I", str(folder), "-c", "-o",
                        str(obj), str(PROTOTYPE)], check=True)
        subprocess.run(["c++", "-O3", "-march=native", "-I", str(folder), "-o", str(binary),
                        str(folder / "timing.cpp"), str(obj), "-lsimdjson"], check=True)
        binaries.append(binary)
    docs = {name: (examples / name).read_bytes for name in EXAMPLES} if examples is not None else {}
    docs.update(DOCUMENTS)
    print(f"\ntwo processes, one per version (JSON's rules written by hand; tables derived from the "
          f"grammar), each calling the generated is_valid, the prototype and simdjson's DOM parse in turn, "
          f"{ROUNDS} rounds: median µs (the generated and simdjson's from the first); the ratios are the "
          "medians of the rounds' ratios (above 1: the prototype faster)\n")
    print("| document | generated is_valid | prototype, JSON's rules | prototype, derived | simdjson DOM parse "
          "| JSON's rules vs simdjson | derived vs simdjson | JSON's rules vs generated | derived vs generated |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, make in docs.items():
        path = folder / "doc.json"
        path.write_bytes(make())
        runs = []
        for binary in binaries:
            ok, *numbers = subprocess.run([str(binary), str(path)], check=True, capture_output=True,
                                          text=True).stdout.split()
            assert ok == "1", label
            runs.append([float(x) for x in numbers])
        (generated, rules, theirs, rules_vs_simdjson, rules_vs_generated), derived = runs
        print(f"| {label} | {generated * 1e6:,.0f} | {rules * 1e6:,.0f} | {derived[1] * 1e6:,.0f} "
              f"| {theirs * 1e6:,.0f} | {rules_vs_simdjson:.2f}x | {derived[3]:.2f}x | {rules_vs_generated:.2f}x "
              f"| {derived[4]:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=Path, help="a folder with twitter.json, citm_catalog.json, canada.json")
    parser.add_argument("--check-only", action="store_true", help="only the cross-check, no timing")
    parser.add_argument("--sanitize", action="store_true", help="the cross-check built with ASan and UBSan")
    parser.add_argument("--documents", type=int, default=3000,
                        help="generated documents in the cross-check, each with ten mutations (3,000)")
    arguments = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="abnfc-bench-bigrams-"))
    try:
        docs = corpus(arguments.documents, 10)
        if arguments.examples is not None:
            docs += [(arguments.examples / name).read_bytes() for name in EXAMPLES]
        for derived in (False, True):
            binary = build(folder, arguments.sanitize, derived)
            documents, valid, differ, differ_prototype = check(binary, docs, folder)
            version = "tables derived from the grammar" if derived else "JSON's rules"
            print(f"cross-check against the byte loop: {documents:,} documents, {valid:,} valid; the generated "
                  f"is_valid (token bigrams on every length) {differ} disagreements, the prototype ({version}) "
                  f"{differ_prototype}")
            if differ or differ_prototype:
                sys.exit(1)
        if not arguments.check_only:
            if not Path("/usr/include/simdjson.h").exists():
                sys.exit("simdjson.h not found (apt-get install libsimdjson-dev): no timing")
            _timing(folder, arguments.examples)
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
