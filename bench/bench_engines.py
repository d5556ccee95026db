"""Benchmark: abnfc's engines against Python ABNF peers, on the same inputs in the same run.

Times, in seconds per input and MB/s:
  - UTF-8 (grammars/utf8.abnf) on 1 MiB of mixed text (ASCII, German, Chinese, emoji):
    the generated Python module (generated/utf8.py), the interpreter, the plain DFA table loop
    (abnfc.automata.dfa.Dfa.first_error), Python's own bytes.decode for scale, and the peers `apg-py`
    (1 MiB) and `abnf` (quadratic, so only 16 KiB and 32 KiB) when they are installed;
  - a recursive grammar (RFC 5322 addr-spec with nested comments, grammars/email.abnf) and a
    balanced-parentheses grammar on 1 MiB each: the interpreter, and apg-py where it applies.

    pip install -r bench/requirements.txt   # the peers; optional
    python bench/bench_engines.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import abnfc
from abnfc.interpret import recognize

ROOT = Path(__file__).resolve().parents[1]
MIB = 1 << 20


def mixed_utf8(size: int) -> bytes:
    sample = ("The quick brown fox jumps over the lazy dog. Grüße aus Köln, Straße. "
              "你好，世界。自由软件。 😀🎉🚀 ").encode()
    data = (sample * (size // len(sample) + 1))[:size]
    while True:  # cut back to a character boundary
        try:
            data.decode()
            return data
        except UnicodeDecodeError:
            data = data[:-1]


def nested_comments(size: int) -> bytes:
    unit = b"(a comment (nested (deeper) here) text) "
    return b"local" + unit * (size // len(unit)) + b"@example.com"


def balanced(size: int) -> bytes:
    unit = b"(x(xx)((x)))"
    return unit * (size // len(unit))


def timed(function, *args, repeat: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        begun = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - begun)
    return best, result


def apg_matcher(grammar_text: str):
    try:
        from apg_py.api.api import Api
        from apg_py.lib.parser import Parser
    except ImportError:
        return None
    api = Api()
    grammar = api.generate(grammar_text)
    if api.errors:
        return None
    parser = Parser(grammar)
    return lambda data: parser.parse(tuple(data)).success


def abnf_matcher(grammar_text: str, start: str):
    try:
        from abnf import Rule
    except ImportError:
        return None

    class Grammar(Rule):
        pass

    Grammar.load_grammar(grammar_text)

    def match(data: bytes) -> bool:
        try:
            Grammar(start).parse_all(data.decode("latin-1"))  # bytes as code points 0-255
            return True
        except Exception:
            return False

    return match


def main() -> None:
    rows: list[tuple[str, str, int, float, object]] = []
    utf8_text = (ROOT / "grammars" / "utf8.abnf").read_text()
    utf8 = abnfc.compile_grammar(ROOT / "grammars" / "utf8.abnf")
    generated = abnfc.load_validator(ROOT / "grammars" / "utf8.abnf", lang="python")
    data = mixed_utf8(MIB)
    contenders = [
        ("abnfc generated Python (utf8.py)", generated.is_valid, 5),
        ("abnfc interpreter", lambda d: recognize(utf8.resolved, d).matched, 3),
        ("abnfc DFA table loop (Dfa.first_error)", utf8.minimal.matches, 1),
        ("Python bytes.decode (C, for scale)", lambda d: bool(d.decode()), 5),
    ]
    apg = apg_matcher(utf8_text)
    if apg:
        contenders.append(("apg-py 1.0 (peer)", apg, 1))
    for name, function, repeat in contenders:
        seconds, verdict = timed(function, data, repeat=repeat)
        rows.append(("UTF-8 mixed", name, len(data), seconds, verdict))
    peer = abnf_matcher(utf8_text, "UTF8-octets")
    if peer:
        for size in (8 * 1024, 16 * 1024):
            small = mixed_utf8(size)
            seconds, verdict = timed(peer, small, repeat=1)
            rows.append(("UTF-8 mixed", "abnf 2.x (peer, quadratic)", len(small), seconds, verdict))

    email = abnfc.load_grammar(ROOT / "grammars" / "email.abnf")
    comments = nested_comments(MIB)
    seconds, verdict = timed(lambda d: abnfc.recognize(email, d).matched, comments, repeat=1)
    rows.append(("RFC 5322 addr-spec, nested comments", "abnfc interpreter", len(comments), seconds, verdict))
    parens_text = 'r = *( "(" r ")" / "x" )\n'
    parens = abnfc.load_grammar(text=parens_text)
    nested = balanced(MIB)
    seconds, verdict = timed(lambda d: abnfc.recognize(parens, d).matched, nested, repeat=1)
    rows.append(("balanced parentheses", "abnfc interpreter", len(nested), seconds, verdict))
    apg = apg_matcher(parens_text)
    if apg:
        seconds, verdict = timed(apg, nested, repeat=1)
        rows.append(("balanced parentheses", "apg-py 1.0 (peer)", len(nested), seconds, verdict))
    print_table(rows)


def print_table(rows) -> None:
    print(f"{'input':<38} {'engine':<40} {'bytes':>9} {'seconds':>9} {'MB/s':>9} {'s/MB':>8}  match")
    for workload, name, size, seconds, verdict in rows:
        mb = size / 1e6
        print(f"{workload:<38} {name:<40} {size:>9} {seconds:>9.4f} {mb / seconds:>9.2f} "
              f"{seconds / mb:>8.3f}  {verdict}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
