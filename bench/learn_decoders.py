"""Learn the UTF-8 decoders of this machine with ``abnfc learn`` and keep what it finds.

For each decoder whose tools are present (CPython, Node.js, glibc, Perl, Java), runs

    abnfc learn grammars/utf8.abnf --cmd PROGRAM --out docs/learned/NAME.abnf

from the repository's root, writes the comparison it prints (``abnfc diff``'s report of the
learned grammar against RFC 3629) to docs/learned/NAME.diff.txt, and prints a Markdown table:
the distinct inputs asked, the rounds, the time, the states learned and the exit status (0: the
same language as RFC 3629; 1: different).  The drivers are in examples/; the C and Java ones are
built into build/learn/ first.  Decoders whose tools are missing are left out, with a note.

    python bench/learn_decoders.py
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
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


DECODERS = (
    Decoder("cpython-strict", 'CPython `bytes.decode("utf-8")`',
            ("--python", "examples/cpython_decode.py:accepts"), "python3"),
    Decoder("cpython-surrogates-allowed", "`examples/surrogates_allowed.py` (`surrogatepass`)",
            ("--python", "examples/surrogates_allowed.py:accepts"), "python3"),
    Decoder("node-textdecoder", 'Node.js `TextDecoder("utf-8", {fatal: true})`',
            ("--cmd", "node examples/node_textdecoder.mjs"), "node"),
    Decoder("glibc-mbrtowc", "glibc `mbrtowc` (C.UTF-8)", ("--cmd", "build/learn/mbrtowc"), "cc",
            ("cc", "-O2", "-o", "build/learn/mbrtowc", "examples/glibc_mbrtowc.c")),
    Decoder("glibc-iconv", "glibc `iconv` UTF-8 to UTF-32LE", ("--cmd", "build/learn/iconv_decode"), "cc",
            ("cc", "-O2", "-o", "build/learn/iconv_decode", "examples/iconv_decode.c")),
    Decoder("perl-lax", "Perl `utf8::decode`", ("--cmd", "perl examples/perl_decode.pl lax"), "perl"),
    Decoder("perl-strict", 'Perl `Encode::decode("UTF-8", …, FB_CROAK)`',
            ("--cmd", "perl examples/perl_decode.pl strict"), "perl"),
    Decoder("java-readutf", "Java `DataInputStream.readUTF`", ("--cmd", "java -cp build/learn ReadUtf"), "javac",
            ("javac", "-d", "build/learn", "examples/ReadUtf.java")),
)


def learn(decoder: Decoder) -> str:
    """The decoder's row of the table; its grammar and comparison written under docs/learned."""
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
    inputs, rounds, seconds, states = found.groups()
    verdict = "the same language" if done.returncode == 0 else "differs (see the .diff.txt)"
    return f"| {decoder.title} | {int(inputs):,} | {rounds} | {seconds} s | {states} | {verdict} |"


def main() -> int:
    BUILD.mkdir(parents=True, exist_ok=True)
    print("| implementation | inputs asked | rounds | time | states | against RFC 3629 |")
    print("|---|---|---|---|---|---|")
    for decoder in DECODERS:
        if shutil.which(decoder.needs) is None:
            print(f"(left out: {decoder.name}, {decoder.needs} not found)", file=sys.stderr)
            continue
        print(learn(decoder), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
