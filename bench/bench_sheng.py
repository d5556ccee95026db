"""Benchmark: the generated C is_valid on long inputs, its scalar loop against Sheng (the shuffle
loop, one chain) and Sheng with chunks side by side.

Two grammars whose minimal DFAs fit Sheng and that get no window test: RFC 3339 timestamps one a
line (grammars/datetime.abnf's date-time, ``*( date-time LF )``: 29 states, so 32 lanes and
AVX-512 VBMI; the strategy chosen is ``table``) and HTTP list field values one a line, with
quoted strings (10 states, 16 lanes and SSSE3; the strategy is ``pairs``).  Each input is 1 MiB
of valid records; the HTTP grammar runs again on lines of one long quoted string each, which the
strategy's loop skips (so Sheng is off by default for that grammar).  Every contender is the same
generated source, compiled with other settings (``P_NO_SHENG``: the strategy's loop, its segments
included; ``P_SEGMENTS=1``: that loop in one piece; ``P_SHENG`` with ``P_SHENG_CHUNKS``), and all
are timed in one process, round after round, interleaved: CPU time of the process, the median of
ROUNDS rounds, each one pass over the input.  All must agree.  Then the same input is cut into
pieces of whole lines of about N bytes, to find the shortest input Sheng is worth its set-up on.

    python bench/bench_sheng.py [--rounds N] [--size BYTES] [--lanes 16|32|64]
"""
from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import abnfc  # noqa: E402
from abnfc.backends.c import sheng  # noqa: E402

HTTP = r"""lines         = *( field-value %x0A )
field-value   = [ element ] *( OWS "," OWS [ element ] )
element       = token [ "=" ( token / quoted-string ) ]
token         = 1*tchar
tchar         = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
              / DIGIT / ALPHA
quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE
qdtext        = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
obs-text      = %x80-FF
quoted-pair   = "\" ( HTAB / SP / VCHAR / obs-text )
OWS           = *( SP / HTAB )
"""

DATETIME_LINES = "lines = *( date-time %x0A )\n" + (ROOT / "grammars" / "datetime.abnf").read_text(encoding="utf-8")

CONTENDERS = [  # (label, macros)
    ("scalar loop, one segment", ["NO_SHENG", "SEGMENTS=1"]),
    ("scalar loop (the strategy's default)", ["NO_SHENG"]),
    ("Sheng, 1 chunk", ["SHENG", "SHENG_CHUNKS=1", "SHENG_MIN=1"]),
    ("Sheng, 2 chunks", ["SHENG", "SHENG_CHUNKS=2", "SHENG_MIN=1"]),
    ("Sheng, 4 chunks", ["SHENG", "SHENG_CHUNKS=4", "SHENG_MIN=1"]),
    ("Sheng, 8 chunks", ["SHENG", "SHENG_CHUNKS=8", "SHENG_MIN=1"]),
]

PIECES = [32, 64, 128, 256, 512, 1024, 4096]

HARNESS = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
%(declarations)s
typedef bool (*validator)(const void *, size_t);
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
int main(int argc, char **argv)
{
    validator fns[] = { %(functions)s };
    size_t count = sizeof fns / sizeof fns[0], k;
    int rounds = atoi(argv[2]), r;
    size_t piece = (size_t)atol(argv[3]);
    FILE *f = fopen(argv[1], "rb");
    long n;
    unsigned char *data;
    if (f == NULL || argc < 4)
        return 2;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)n);
    if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n)
        return 2;
    /* pieces of about piece bytes, each ending after a line feed (whole records), or the whole input */
    for (r = 0; r < rounds; r++)
        for (k = 0; k < count; k++) {
            double start = now();
            size_t at = 0, end, pieces = 0, good = 0;
            while (at < (size_t)n) {
                end = piece == 0 || at + piece >= (size_t)n ? (size_t)n : at + piece;
                while (end < (size_t)n && data[end - 1] != '\n')
                    end++;
                good += fns[k](data + at, end - at) ? 1u : 0u;
                pieces++;
                at = end;
            }
            printf("%%zu %%d %%.9f\n", k, good == pieces ? 1 : 0, now() - start);
        }
    return 0;
}
"""


def datetime_lines(size: int) -> bytes:
    rng = random.Random(3339)
    out = bytearray()
    while len(out) < size:
        stamp = (f"{rng.randrange(1900, 2100):04d}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
                 f"{rng.choice('Tt')}{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}")
        if rng.random() < 0.5:
            stamp += "." + "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 10)))
        stamp += rng.choice(["Z", "z", f"+{rng.randrange(24):02d}:{rng.randrange(60):02d}",
                             f"-{rng.randrange(24):02d}:00"])
        out += stamp.encode() + b"\n"
    return bytes(out)


def http_lines(size: int) -> bytes:
    rng = random.Random(9110)
    words = ["no-cache", "max-age", "private", "gzip", "br", "en-US", "text/html", "q", "charset", "utf-8"]
    out = bytearray()
    while len(out) < size:
        elements = []
        for _ in range(rng.randrange(1, 6)):
            element = rng.choice(words).replace("/", "-")
            if rng.random() < 0.5:
                element += "=" + (rng.choice(words).replace("/", "-") if rng.random() < 0.5
                                  else '"' + rng.choice(words) + ' \\" ,x"')
            elements.append(element)
        out += (rng.choice([",", ", ", " ,\t"])).join(elements).encode() + b"\n"
    return bytes(out)


def http_long_quotes(size: int) -> bytes:
    """Lines of one element whose value is a quoted string of 200 to 3,000 bytes: runs the loop's
    accelerated state skips."""
    rng = random.Random(7230)
    out = bytearray()
    while len(out) < size:
        text = "".join(rng.choice("abcdefghij klmnop,;=/") for _ in range(rng.randrange(200, 3000)))
        out += f'name="{text}"\n'.encode()
    return bytes(out)


def build(folder: Path, text: str, name: str) -> Path:
    """One program: the grammar's generated source compiled once per contender, with its prefix."""
    sources, declarations, functions = [], [], []
    for number, (_label, macros) in enumerate(CONTENDERS):
        prefix = f"{name}{number}"
        files = abnfc.generate_files(abnfc.load_grammar(text=text, name=f"{name}.abnf"), "c", prefix=prefix)
        for file, body in files.items():
            (folder / file).write_text(body, encoding="utf-8")
        obj = folder / f"{prefix}.o"
        subprocess.run(["cc", "-std=c99", "-O2", *(f"-D{prefix.upper()}_{m}" for m in macros), "-c",
                        str(folder / f"{prefix}.c"), "-o", str(obj)], check=True)
        sources.append(str(obj))
        declarations.append(f"bool {prefix}_is_valid(const void *, size_t);")
        functions.append(f"{prefix}_is_valid")
    harness = folder / f"{name}_harness.c"
    harness.write_text(HARNESS % {"declarations": "\n".join(declarations), "functions": ", ".join(functions)})
    program = folder / name
    subprocess.run(["cc", "-std=c99", "-O2", "-o", str(program), str(harness), *sources], check=True)
    return program


def measure(program: Path, data: bytes, folder: Path, rounds: int, piece: int = 0) -> list[float]:
    path = folder / f"{program.name}.input"
    path.write_bytes(data)
    output = subprocess.run([str(program), str(path), str(rounds), str(piece)], check=True, capture_output=True,
                            text=True).stdout
    times: dict[int, list[float]] = {}
    verdicts = set()
    for line in output.splitlines():
        k, ok, seconds = line.split()
        times.setdefault(int(k), []).append(float(seconds))
        verdicts.add(ok)
    if verdicts != {"1"}:
        raise SystemExit(f"{program.name}: a contender rejected the valid input")
    return [statistics.median(times[k]) for k in range(len(CONTENDERS))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--size", type=int, default=1 << 20)
    parser.add_argument("--lanes", type=int, choices=[16, 32, 64], default=16,
                        help="the fewest lanes Sheng holds the states in (64: the 64-lane instance for both)")
    args = parser.parse_args()
    sheng.LANES = tuple(n for n in sheng.LANES if n >= args.lanes)
    cases = [("RFC 3339 timestamps, one a line (29 states: 32 lanes)", "dt", DATETIME_LINES,
              datetime_lines(args.size)),
             ("HTTP list field values, one a line (10 states: 16 lanes)", "http", HTTP, http_lines(args.size)),
             ("HTTP field values with long quoted strings, one a line", "quotes", HTTP, http_long_quotes(args.size))]
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        for title, name, text, data in cases:
            program = build(folder, text, name)
            medians = measure(program, data, folder, args.rounds)
            base = medians[0]
            print(f"\n{title}: {len(data):,} bytes, median of {args.rounds} rounds (CPU time)")
            print("| is_valid | GB/s | vs scalar loop, one segment |")
            print("|---|---:|---:|")
            for (label, _macros), seconds in zip(CONTENDERS, medians, strict=True):
                print(f"| {label} | {len(data) / seconds / 1e9:.2f} | {base / seconds:.2f}x |")
            print(f"\nThe same input cut into pieces of whole lines, about N bytes each: each contender's speed"
                  f" relative to the strategy's default loop (median of {args.rounds} rounds)")
            print("| N | " + " | ".join(label for label, _ in CONTENDERS[2:]) + " |")
            print("|---:|" + "---:|" * (len(CONTENDERS) - 2))
            for piece in PIECES:
                medians = measure(program, data, folder, args.rounds, piece)
                print(f"| {piece} | " + " | ".join(f"{medians[1] / m:.2f}x" for m in medians[2:]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
