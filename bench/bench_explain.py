"""Benchmark: ``abnfc explain`` on inputs of 1 KB and 10 KB, and on 1 MiB of UTF-8.

explain runs the interpreter for the verdict, then finds the tree: for a grammar without
recursion, a path through the tree NFA (:mod:`abnfc.explain.trellis`, linear in the input);
otherwise the memoised top-down search (:mod:`abnfc.explain.search`).  For each grammar the
table gives the method, the processor time of the whole explanation (verdict and tree; not the
printing) and the ratio ``t(10 KB) / (10 x t(1 KB))``: 1.0 for linear time, 10 for quadratic.
The interpreter alone is timed on the same 10 KB input for comparison.  The last table runs the
command line on 1 MiB of mixed UTF-8 (text and JSON output, wall time and peak memory).

    python bench/bench_explain.py
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import abnfc
from abnfc.i18n import ENGLISH, translator
from abnfc.pipeline import DEFAULT_LIMITS, Compilation, Limits, resolve_grammar
from abnfc.interpret import recognize
from abnfc.explain import trellis
from abnfc.explain.explainer import explain

ROOT = Path(__file__).resolve().parents[1]
EMAIL = (ROOT / "grammars" / "email.abnf").read_text()
UTF8 = (ROOT / "grammars" / "utf8.abnf").read_text()
URI = (ROOT / "grammars" / "uri.abnf").read_text()

ROWS = {  # name: (grammar, unit repeated to the size, prefix, suffix)
    "utf8 (mixed text)": (UTF8, "aä€😀 Grüße 中文 ".encode(), b"", b""),
    "uri (long path)": (URI, b"/seg%41ment", b"http://example.com", b"?q=1#f"),
    "right recursion (list)": ('list = item [ "," list ]\nitem = 1*ALPHA\n', b"abc,de,", b"", b"x"),
    "nesting (parentheses)": ('r = *( "(" r ")" / "x" )\n', b"(x(xx)((x)))", b"", b""),
    "email (nested comments)": (EMAIL, b"(a comment (nested (deeper) here) text) ", b"local", b"@example.com"),
    "left recursion": ('r = r "a" / "a"\n', b"a", b"", b""),
    'nested repetitions, r = *( *"a" )': ('r = *( *"a" )\n', b"a", b"", b""),
    'adjacent repetitions, r = *"a" *"a" *"a"': ('r = *"a" *"a" *"a"\n', b"a", b"", b""),
}


def make(unit: bytes, prefix: bytes, suffix: bytes, size: int) -> bytes:
    return prefix + unit * ((size - len(prefix) - len(suffix)) // len(unit)) + suffix


def timed(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def method(text: str) -> str:
    resolved = resolve_grammar(abnfc.load_grammar(text=text), None)
    try:
        trellis.build(resolved, DEFAULT_LIMITS.max_nfa_states)
    except trellis.NotRegular:
        return "search"
    return "paths"


def main() -> None:
    print("| grammar | method | 1 KB | 10 KB | ratio | interpreter alone, 10 KB |")
    print("|---|---|---|---|---|---|")
    for name, (text, unit, prefix, suffix) in ROWS.items():
        resolved = resolve_grammar(abnfc.load_grammar(text=text), None)
        times: list[float | None] = []
        for size in (1_000, 10_000):
            data = make(unit, prefix, suffix, size)
            try:
                compilation = Compilation(abnfc.load_grammar(text=text), None, Limits(max_work=20_000_000))
                run = lambda d=data, c=compilation: explain(c, "in", d, translator(ENGLISH))  # noqa: E731
                times.append(min(timed(run) for _ in range(2)))
            except abnfc.AbnfError:
                times.append(None)
        data = make(unit, prefix, suffix, 10_000)
        interpreter = timed(lambda d=data, g=resolved: recognize(g, d))
        if None in times:
            first = "refused" if times[0] is None else f"{times[0]:.2f} s"
            print(f"| {name} | {method(text)} | {first} | refused at the work limit (--max-work) | — | "
                  f"{interpreter:.3f} s |")
            continue
        small, large = times[0] or 0.0, times[1] or 0.0
        print(f"| {name} | {method(text)} | {small:.2f} s | {large:.2f} s | {large / (10 * small):.1f} | "
              f"{interpreter:.3f} s |")
    mebibyte()


def mebibyte() -> None:
    """The command line on 1 MiB of mixed UTF-8, in a child process: wall time and peak RSS."""
    unit = "aä€😀 Grüße 中文 ".encode()
    data = unit * ((1 << 20) // len(unit))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mixed.txt"
        path.write_bytes(data)
        print(f"\n| 1 MiB of mixed UTF-8 ({len(data):,} bytes), `abnfc explain` | seconds | peak RSS |")
        print("|---|---|---|")
        for label, options in (("text", []), ("--format json", ["--format", "json"])):
            command = [sys.executable, "-c", RUN_AND_MEASURE, "explain", str(ROOT / "grammars" / "utf8.abnf"),
                       str(path), *options]
            began = time.perf_counter()
            result = subprocess.run(command, capture_output=True, text=True)
            seconds = time.perf_counter() - began
            peak = int(result.stderr.strip().splitlines()[-1])
            print(f"| {label} | {seconds:.1f} | {peak >> 10} MB |")


# The child runs abnfc with its output discarded, then prints its own peak RSS (KiB) last on stderr.
RUN_AND_MEASURE = """
import contextlib, os, resource, sys
from abnfc.cli import main
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


if __name__ == "__main__":
    main()
