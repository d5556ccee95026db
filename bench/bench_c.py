"""Speed of the generated C validator for UTF-8 (grammars/utf8.abnf), against other validators.

Builds the generated ``utf8.c`` (gcc -O2, portable: no -march) into a small harness and times, on
16 MiB buffers, in one run and interleaved round by round so machine noise hits all alike:

- ``utf8_is_valid`` and ``utf8_first_error`` (the generated code),
- a plain table DFA in the harness (class map + transition table, taken from the same plan),
- glibc's iconv (UTF-8 to UTF-8, through 64 KiB output chunks),
- Python's ``bytes.decode("utf-8")``.

Each implementation gets an untimed pass and then three timed passes back to back over the same
buffer, in every round, so each is measured with the buffer as warm as its own previous pass left
it (on the shared virtual machines here, a buffer left alone for a slow neighbour's pass comes
back measurably colder).

Prints GB/s (1e9 bytes a second, best round) and each one's ratio to ``utf8_is_valid``.
Usage: .venv/bin/python bench/bench_c.py [--size MiB] [--rounds N]
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

import abnfc  # noqa: E402
from abnfc.automata.dfa import Dfa  # noqa: E402

GRAMMAR = ROOT / "grammars" / "utf8.abnf"
DATASETS = ("ascii", "mixed", "chinese", "emoji")
IMPLEMENTATIONS = ("utf8_is_valid", "utf8_first_error", "table DFA", "glibc iconv", "bytes.decode")

HARNESS = r"""
#define _POSIX_C_SOURCE 199309L
#include "utf8.h"
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Plain table DFA from the same plan: byte -> class, then [state][class] -> state. */
static const uint8_t tclass[256] = { %(classes)s };
static const uint8_t tnext[%(states)d][%(nclasses)d] = { %(next)s };
static const uint8_t taccept[%(states)d] = { %(accept)s };

static int table_valid(const uint8_t *p, size_t n)
{
    unsigned s = %(start)d;
    for (size_t i = 0; i < n; i++)
        s = tnext[s][tclass[p[i]]];
    return taccept[s];
}

static iconv_t cd;
static char obuf[1 << 16];

static int iconv_valid(const uint8_t *p, size_t n)
{
    char *in = (char *)p;
    size_t left = n;
    iconv(cd, NULL, NULL, NULL, NULL);
    while (left > 0) {
        char *out = obuf;
        size_t room = sizeof obuf;
        if (iconv(cd, &in, &left, &out, &room) == (size_t)-1) {
            if (errno != E2BIG)
                return 0;
        }
    }
    return 1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint8_t *load(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p;
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc(*n ? *n : 1);
    if (fread(p, 1, *n, f) != *n) { perror(path); exit(2); }
    fclose(f);
    return p;
}

#define IMPLS 4
#define PASSES 3
static const char *names[IMPLS] = { "utf8_is_valid", "utf8_first_error", "table DFA", "glibc iconv" };

static int run(int impl, const uint8_t *p, size_t n)
{
    switch (impl) {
    case 0: return utf8_is_valid(p, n);
    case 1: return utf8_first_error(p, n) == SIZE_MAX;
    case 2: return table_valid(p, n);
    default: return iconv_valid(p, n);
    }
}

int main(int argc, char **argv)
{
    int rounds = atoi(argv[1]);
    cd = iconv_open("UTF-8", "UTF-8");
    if (cd == (iconv_t)-1) { perror("iconv_open"); return 2; }
    {   /* every implementation must reject a surrogate and accept the euro sign */
        static const uint8_t bad[] = { 0x41, 0xED, 0xA0, 0x80 }, good[] = { 0xE2, 0x82, 0xAC };
        for (int k = 0; k < IMPLS; k++)
            if (run(k, bad, sizeof bad) || !run(k, good, sizeof good))
                printf("note %%s disagrees with RFC 3629 on ED A0 80 or E2 82 AC\n", names[k]);
    }
    for (int a = 2; a < argc; a++) {
        size_t n;
        uint8_t *p = load(argv[a], &n);
        double best[IMPLS];
        for (int k = 0; k < IMPLS; k++)
            best[k] = 1e30;
        for (int r = 0; r < rounds; r++)
            for (int k = 0; k < IMPLS; k++) {
                int ok = run(k, p, n); /* warm-up pass, then timed passes back to back */
                for (int pass = 0; pass < PASSES; pass++) {
                    double t = now();
                    ok &= run(k, p, n);
                    t = now() - t;
                    if (t < best[k])
                        best[k] = t;
                }
                if (!ok) { printf("error %%s rejects %%s\n", names[k], argv[a]); return 1; }
            }
        for (int k = 0; k < IMPLS; k++)
            printf("%%s\t%%s\t%%.9f\t%%zu\n", argv[a], names[k], best[k], n);
        free(p);
    }
    iconv_close(cd);
    return 0;
}
"""


def harness_source(minimal: Dfa) -> str:
    """The timing harness, with a plain class-map and transition-table DFA built from ``minimal``."""
    rows = ", ".join("{" + ", ".join(map(str, row)) + "}" for row in minimal.transitions)
    return HARNESS % {
        "classes": ", ".join(map(str, minimal.byte_class)),
        "states": minimal.num_states,
        "nclasses": minimal.num_classes,
        "next": rows,
        "accept": ", ".join("1" if s in minimal.accepting else "0" for s in range(minimal.num_states)),
        "start": minimal.start,
    }


def datasets(size: int) -> dict[str, bytes]:
    rng = random.Random(3629)
    english = ("the quick brown fox jumps over the lazy dog while validators count bytes and "
               "grammars describe what a valid sequence is ").split()
    german = "Grüße Straße Bäcker Übung öffnen Käse Müller größer schön Fußgänger".split()
    chinese = [chr(rng.randrange(0x4E00, 0xA000)) for _ in range(400)]
    emoji = [chr(rng.randrange(0x1F300, 0x1F650)) for _ in range(200)]

    def fill(pick) -> bytes:
        """1 MiB of random pieces, repeated to ``size`` bytes, cut at a character boundary."""
        unit = 1 << 20
        parts, total = [], 0
        while total < unit:
            piece = pick().encode("utf-8")
            parts.append(piece)
            total += len(piece)
        data = b"".join(parts) * (size // unit + 1)
        cut = size
        while cut > 0 and (data[cut] & 0xC0) == 0x80:  # do not split a character
            cut -= 1
        return data[:cut] + b" " * (size - cut)

    def mixed() -> str:
        roll = rng.random()
        if roll < 0.55:
            return rng.choice(english) + " "
        if roll < 0.80:
            return rng.choice(german) + " "
        if roll < 0.95:
            return "".join(rng.choice(chinese) for _ in range(rng.randrange(2, 6))) + "，"
        return rng.choice(emoji) + " "

    return {
        "ascii": fill(lambda: rng.choice(english) + " "),
        "mixed": fill(mixed),
        "chinese": fill(lambda: "".join(rng.choice(chinese) for _ in range(rng.randrange(4, 20))) + "。"),
        "emoji": fill(lambda: rng.choice(emoji)),
    }


def time_decode(data: bytes, rounds: int) -> float:
    best = float("inf")
    data.decode("utf-8")
    for _ in range(rounds * 3):
        start = time.perf_counter()
        data.decode("utf-8")
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=16, help="buffer size in MiB (default 16)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the best pass counts (default 5)")
    args = parser.parse_args()
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        print("no C compiler found", file=sys.stderr)
        return 2

    minimal = abnfc.compile_grammar(GRAMMAR).minimal
    data = datasets(args.size << 20)
    with tempfile.TemporaryDirectory(prefix="abnfc-bench-") as tmp:
        out = Path(tmp)
        for name, text in abnfc.generate_files(GRAMMAR, "c", prefix="utf8").items():
            (out / name).write_text(text, encoding="utf-8")
        (out / "bench.c").write_text(harness_source(minimal), encoding="utf-8")
        for name, blob in data.items():
            (out / name).write_bytes(blob)
        subprocess.run([compiler, "-std=c99", "-O2", "-o", str(out / "bench"), str(out / "bench.c"),
                        str(out / "utf8.c")], check=True)
        result = subprocess.run([str(out / "bench"), str(args.rounds), *(str(out / n) for n in DATASETS)],
                                check=True, capture_output=True, text=True).stdout

    seconds: dict[tuple[str, str], float] = {}
    for line in result.splitlines():
        if line.startswith("note "):
            print(line)
            continue
        path, impl, secs, _ = line.split("\t")
        seconds[(Path(path).name, impl)] = float(secs)
    for name in DATASETS:
        seconds[(name, "bytes.decode")] = time_decode(data[name], args.rounds)

    size = args.size << 20
    print(f"UTF-8 validation of {args.size} MiB buffers, GB/s (best of {args.rounds} rounds x 3 passes), "
          f"and ratio to utf8_is_valid")
    print("ASCII share: " + ", ".join(
        f"{n} {sum(b < 0x80 for b in data[n][:1 << 20]) / (1 << 20):.0%}" for n in DATASETS))
    header = f"| {'implementation':<18} | " + " | ".join(f"{n:>14}" for n in DATASETS) + " |"
    print(header)
    print("|" + "-" * 20 + "|" + "|".join("-" * 16 for _ in DATASETS) + "|")
    for impl in IMPLEMENTATIONS:
        cells = []
        for name in DATASETS:
            rate = size / seconds[(name, impl)] / 1e9
            ratio = seconds[(name, "utf8_is_valid")] / seconds[(name, impl)]
            cells.append(f"{rate:6.2f} ({ratio:4.2f}x)")
        print(f"| {impl:<18} | " + " | ".join(f"{cell:>14}" for cell in cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
