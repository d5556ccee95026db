"""Learn the UTF-8 decoders of this machine with ``abnfc learn`` and keep what it finds.

For each decoder whose tools are present (CPython, Node.js, glibc, Perl, Java), runs

    abnfc learn grammars/utf8.abnf --cmd PROGRAM --out docs/learned/NAME.abnf

from the repository's root, writes the comparison it prints (``abnfc diff``'s report of the
learned grammar against RFC 3629) to docs/learned/NAME.diff.txt, and prints a Markdown table:
the distinct inputs asked, the rounds, the time, the states learned, the exit status (0: the
same language as RFC 3629; 1: different) and the disagreements found when verifying.

Before a learned grammar is kept, it is verified against its decoder, independently of the
learner: every string of up to 3 bytes where the driver is fast (the C ones; 2 bytes for the
others), the shortest inputs through every place where each dialect of grammars/variants/
parts from the learned grammar, and 1,000,000 random strings of 4 to 12 bytes (seeded).  The
count of disagreements goes into the grammar's header and the table; a grammar with any is
still written, marked so, and the script exits 1.  The drivers are in examples/; the C and Java
ones are built into build/learn/ first.  Decoders whose tools are missing are left out, with a
note.

    python bench/learn_decoders.py [--random N] [NAME...]
"""
from __future__ import annotations

import argparse
import random
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, islice, product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "learned"
BUILD = ROOT / "build" / "learn"


@dataclass(frozen=True)
class Decoder:
    name: str  # the file name under docs/learned
    title: str  # for the table
    target: tuple[str, ...]  # abnfc learn's --cmd or --python arguments
    needs: str  # the tool it runs with
    build: tuple[str, ...] = ()  # a command that builds it first
    fast: bool = False  # its driver takes every string of up to 3 bytes (16.8 M) in a minute or so


DECODERS = (
    Decoder("cpython-strict", 'CPython `bytes.decode("utf-8")`',
            ("--python", "examples/cpython_decode.py:accepts"), "python3"),
    Decoder("cpython-surrogates-allowed", "`examples/surrogates_allowed.py` (`surrogatepass`)",
            ("--python", "examples/surrogates_allowed.py:accepts"), "python3"),
    Decoder("node-textdecoder", 'Node.js `TextDecoder("utf-8", {fatal: true})`',
            ("--cmd", "node examples/node_textdecoder.mjs"), "node"),
    Decoder("glibc-mbrtowc", "glibc `mbrtowc` (C.UTF-8)", ("--cmd", "build/learn/mbrtowc"), "cc",
            ("cc", "-O2", "-o", "build/learn/mbrtowc", "examples/glibc_mbrtowc.c"), fast=True),
    Decoder("glibc-iconv", "glibc `iconv` UTF-8 to UTF-32LE", ("--cmd", "build/learn/iconv_decode"), "cc",
            ("cc", "-O2", "-o", "build/learn/iconv_decode", "examples/iconv_decode.c"), fast=True),
    Decoder("perl-lax", "Perl `utf8::decode`", ("--cmd", "perl examples/perl_decode.pl lax"), "perl"),
    Decoder("perl-strict", 'Perl `Encode::decode("UTF-8", …, FB_CROAK)`',
            ("--cmd", "perl examples/perl_decode.pl strict"), "perl"),
    Decoder("java-readutf", "Java `DataInputStream.readUTF`", ("--cmd", "java -cp build/learn ReadUtf"), "javac",
            ("javac", "-d", "build/learn", "examples/ReadUtf.java")),
)


def learn(decoder: Decoder, count: int) -> tuple[str, int]:
    """The decoder's row of the table and its disagreements when verified; its grammar and
    comparison written under docs/learned."""
    if decoder.build:
        subprocess.run(decoder.build, cwd=ROOT, check=True)
    grammar = OUT / f"{decoder.name}.abnf"
    done = subprocess.run([sys.executable, "-m", "abnfc", "learn", "grammars/utf8.abnf", *decoder.target,
                           "--out", str(grammar.relative_to(ROOT))], cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{decoder.name}: abnfc learn exited {done.returncode}:\n{done.stderr}")
    (OUT / f"{decoder.name}.diff.txt").write_text(done.stdout, encoding="utf-8")
    header = grammar.read_text(encoding="utf-8")
    found = re.search(r"; (\d+) distinct inputs asked in (\d+) rounds?, ([\d.]+) s; (\d+) states", header)
    if found is None:
        raise SystemExit(f"{decoder.name}: no counts in the header of {grammar}")
    wrong, statement = verify(decoder, grammar, count)
    lines = header.split("\n")
    at = max(i for i, line in enumerate(lines) if line.startswith(";")) + 1
    grammar.write_text("\n".join([*lines[:at], f"; {statement}", *lines[at:]]), encoding="utf-8")
    inputs, rounds, seconds, states = found.groups()
    verdict = "the same language" if done.returncode == 0 else "differs (see the .diff.txt)"
    return f"| {decoder.title} | {int(inputs):,} | {rounds} | {seconds} s | {states} | {verdict} | {wrong:,} |", wrong


def inputs(learned, decoder: Decoder, count: int) -> tuple[Iterator[bytes], int, str]:
    """What the learned grammar is verified on (see the module's docstring, streamed: every
    3-byte string is 16.8 M), how many, and its description."""
    sys.path.insert(0, str(ROOT / "src"))
    from abnfc.crosscheck.language import load_language
    from abnfc.crosscheck.neighbours import Neighbour, discover, witnesses
    from abnfc.frontend.source import load
    from abnfc.pipeline import Compilation

    longest = 3 if decoder.fast else 2
    words = (bytes(w) for n in range(longest + 1) for w in product(range(256), repeat=n))
    found = set()
    for path in discover(str(ROOT / "grammars" / "utf8.abnf")):
        dialect = Neighbour(path, load_language(Compilation(load(path))))
        found |= {w.data for w in witnesses(learned, dialect)}
    rng = random.Random("verify 0")
    shaped = [bytes(rng.randrange(256) for _ in range(rng.randint(4, 12))) for _ in range(count)]
    described = (f"every string of up to {longest} bytes, {len(found):,} witnesses of the dialects in "
                 f"grammars/variants/ and {count:,} random strings of 4 to 12 bytes")
    total = sum(256 ** n for n in range(longest + 1)) + len(found) + count
    return chain(words, sorted(found), shaped), total, described


def verify(decoder: Decoder, grammar: Path, count: int) -> tuple[int, str]:
    """The disagreements of the learned grammar with the decoder, and the header line saying so."""
    sys.path.insert(0, str(ROOT / "src"))
    from abnfc.crosscheck.language import load_language
    from abnfc.crosscheck.programs import HexLines, PythonFunction
    from abnfc.frontend.source import load
    from abnfc.pipeline import Compilation

    learned = load_language(Compilation(load(str(grammar))))
    kind, target = decoder.target
    runner = PythonFunction(target, 600.0) if kind == "--python" else HexLines(shlex.split(target), 600.0)
    tried, total, described = inputs(learned, decoder, count)
    wrong = 0
    while batch := list(islice(tried, 1 << 20)):
        wrong += sum(a != b for a, b in zip(learned.verdicts(batch), runner.verdicts(batch), strict=True))
    return wrong, (f"Verified against the decoder on {total:,} inputs ({described}): "
                   f"{wrong:,} disagreements.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--random", type=int, default=1_000_000, help="random strings to verify on")
    parser.add_argument("names", nargs="*", help="only these decoders")
    args = parser.parse_args()
    BUILD.mkdir(parents=True, exist_ok=True)
    print("| implementation | inputs asked | rounds | time | states | against RFC 3629 | verified: disagreements |")
    print("|---|---|---|---|---|---|---|")
    status = 0
    for decoder in DECODERS:
        if args.names and decoder.name not in args.names:
            continue
        if shutil.which(decoder.needs) is None:
            print(f"(left out: {decoder.name}, {decoder.needs} not found)", file=sys.stderr)
            continue
        row, wrong = learn(decoder, args.random)
        print(row, flush=True)
        status |= wrong > 0
    return status


if __name__ == "__main__":
    sys.exit(main())
