"""Benchmark: recursive grammars at 100 KB and 1 MB, to show which engine runs in linear time.

The grammars: right recursion (an RFC-style list, ``r = "a" r / "a"``), left recursion, a highly
ambiguous grammar, and nesting (parentheses, parentheses nested as deep as the input allows, a
chain of tail calls through the stack, RFC 5322 comments).  The interpreter matches an input of
100 KB and one of 1 MB; the ratio ``t(1 MB) / (10 x t(100 KB))`` is 1.0 for linear time and 10
for quadratic.  Grammars whose recursion is right- or left-linear also run through the DFA they
compile to (the generated Python module).  Each measurement runs in a fresh process, which
reports the processor time of the match (the best of three runs; on a shared machine processor
time varies less than wall time) and its peak resident set size.  The highly ambiguous ``r = *( r / "a" )`` stops at the
interpreter's work limit (``--max-work``), and the row says where.

    python bench/bench_recursion.py                # every row
    python bench/bench_recursion.py list parens    # the rows whose name contains a word
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

KB, MB = 100_000, 1_000_000

EMAIL = (Path(__file__).resolve().parents[1] / "grammars" / "email.abnf").read_text()
ROWS = {  # name: (grammar, input, whether it compiles to a DFA)
    "list": ('list = item [ "," list ]\nitem = 1*ALPHA\n', "items", True),
    "right": ('r = "a" r / "a"\n', "a", True),
    "ambiguous": ('r = *( r / "a" )\n', "a", False),
    "left": ('r = r "a" / "a"\n', "a", True),
    "parens": ('r = *( "(" r ")" / "x" )\n', "parens", False),
    "deep": ('r = *( "(" r ")" / "x" )\n', "deep", False),
    "siblings": ('r = "(" r ")" r / ""\n', "siblings", False),
    "email": (EMAIL, "comments", False),
}


def make_input(kind: str, size: int) -> bytes:
    if kind == "deep":  # one nesting as deep as the input allows
        return b"(" * (size // 2 - 1) + b"xx" + b")" * (size // 2 - 1)
    if kind == "comments":
        unit = b"(a comment (nested (deeper) here) text) "
        return b"local" + unit * ((size - 17) // len(unit)) + b"@example.com"
    units = {"items": b"abc,de,fghi,", "a": b"a", "parens": b"(x(xx)((x)))", "siblings": b"()(())(()())"}
    unit = units[kind]
    if kind == "items":
        return (unit * (size // len(unit) + 1))[:size].rstrip(b",")
    return unit * (size // len(unit))


def child(name: str, size: int, engine: str) -> None:
    """Runs in its own process: time one match, print the outcome as JSON."""
    import abnfc
    from abnfc.errors import LimitError

    text, kind, _ = ROWS[name]
    grammar = abnfc.load_grammar(text=text)
    data = make_input(kind, size)
    if engine == "dfa":
        validator = abnfc.load_validator(grammar, lang="python")
        match = lambda: validator.first_error(data)  # noqa: E731
    else:
        match = lambda: abnfc.recognize(grammar, data).offset  # noqa: E731
    seconds = float("inf")
    for _ in range(3):  # the best of three runs, whatever the size, so the ratio compares alike
        begun = time.process_time()
        try:
            offset, outcome = match(), "match"
            if offset is not None:
                outcome = f"no match at {offset}"
        except LimitError as error:
            outcome = "work limit: " + str(error).split("error: ", 1)[-1].split(":")[0]
        seconds = min(seconds, time.process_time() - begun)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "outcome": outcome, "rss_mb": rss}))


def measure(name: str, size: int, engine: str) -> dict:
    result = subprocess.run([sys.executable, __file__, "--child", name, str(size), engine],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def main(words: list[str]) -> None:
    print(f"{'grammar':<42} {'engine':<12} {'100 KB s':>9} {'1 MB s':>8} {'ratio':>6} {'peak RSS':>9}  outcome at 1 MB")
    for name, (text, _, regular) in ROWS.items():
        if words and not any(word in name for word in words):
            continue
        for engine in ("interpreter", "dfa") if regular else ("interpreter",):
            small, large = measure(name, KB, engine), measure(name, MB, engine)
            ratio = large["seconds"] / (10 * small["seconds"])
            shown = "grammars/email.abnf" if text == EMAIL else " ".join(text.split())
            print(f"{shown:<42} {engine:<12} {small['seconds']:>9.3f} {large['seconds']:>8.3f} "
                  f"{ratio:>6.2f} {large['rss_mb']:>6.0f} MB  {large['outcome']}")
            sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        main(sys.argv[1:])
