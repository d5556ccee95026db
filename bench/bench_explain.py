"""Benchmark: ``abnfc explain`` on inputs of 1 KB and 10 KB, to show which sizes it handles.

explain runs the interpreter for the verdict, then a memoised top-down search for the tree
(:mod:`abnfc.explain.search`).  For each grammar the table gives the processor time of the
whole explanation (verdict, search, tree; not the printing), the search's steps per byte, and
the ratio ``t(10 KB) / (10 x t(1 KB))``: 1.0 for linear time, 10 for quadratic.  The
interpreter alone is timed on the same 10 KB input for comparison (explain does not change it:
the tree search is separate and runs only when explain asks for a tree).

    python bench/bench_explain.py
"""
from __future__ import annotations

import time
from pathlib import Path

import abnfc
from abnfc.i18n import ENGLISH, translator
from abnfc.pipeline import Compilation, Limits, resolve_grammar
from abnfc.interpret import recognize
from abnfc.explain import trees
from abnfc.explain.explainer import _in_deep_stack, explain
from abnfc.explain.search import Search

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
}


def make(unit: bytes, prefix: bytes, suffix: bytes, size: int) -> bytes:
    return prefix + unit * ((size - len(prefix) - len(suffix)) // len(unit)) + suffix


def timed(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def main() -> None:
    print("| grammar | 1 KB | 10 KB | ratio | search steps a byte | interpreter alone, 10 KB |")
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
            print(f"| {name} | {first} | refused at the work limit (--max-work) | — | — | {interpreter:.3f} s |")
            continue
        search = Search(resolved, data, 100_000_000)
        _in_deep_stack(lambda s=search: trees.tree(s), translator(ENGLISH))
        small, large = times[0] or 0.0, times[1] or 0.0
        print(f"| {name} | {small:.2f} s | {large:.2f} s | {large / (10 * small):.1f} | "
              f"{search.meter.spent / len(data):.0f} | {interpreter:.3f} s |")


if __name__ == "__main__":
    main()
