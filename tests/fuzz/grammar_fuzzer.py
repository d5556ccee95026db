"""Grammars for fuzzing the command line: structure-aware random ABNF, and byte mutations of the
grammars in the repository.

``random_grammar`` writes ABNF text rule by rule from a small generative model of RFC 5234's
syntax that favours the corners: empty and huge repeat counts, values above %xFF and with
thousands of digits, reversed ranges, prose values, deep and unbalanced nesting, undefined,
duplicate and recursive rules, ``=/`` without ``=``, comments, blank lines, CRLF, tabs,
indentation, control and non-ASCII characters.  ``mutate`` applies random byte edits (insert,
delete, replace, duplicate or drop a line, truncate) to a seed grammar (grammars/ and the RFC
corpus), as byte-level fuzzers do.  Both take a ``random.Random``, so a seed reproduces a case exactly.
"""
from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The repository's grammars and the RFC corpus in tests/data (32 real RFC grammars).
SEEDS = sorted((ROOT / "grammars").glob("**/*.abnf")) + sorted((ROOT / "tests" / "data" / "rfc-abnf").glob("*.abnf"))

NAMES = ["a", "b", "rule", "Rule", "x-y", "ALPHA", "DIGIT", "CRLF", "OCTET", "r1", "r2", "r3", "token",
         "UTF8-tail", "comment", "undefined-one", "r2"]
ODD_TEXT = ["", "a", "ab\tc", "A", "\x00", "é", "😀", "*/", '"""', "\\", "??/", "<", "%x41"]


def random_grammar(rng: random.Random) -> str:
    rules = [_rule(rng, index) for index in range(rng.choice([1, 1, 2, 3, 4, 6, 10]))]
    text = "".join(rules)
    if rng.random() < 0.2:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.15:
        text = "".join("   " + line for line in text.splitlines(keepends=True))
    if rng.random() < 0.1:
        text = text.rstrip("\r\n")
    return text


class _Budget:
    """Elements a rule may still have, so nested choices and sequences cannot multiply without
    bound (the wide ones come at the top level only)."""

    def __init__(self, elements: int):
        self.left = elements

    def take(self) -> bool:
        self.left -= 1
        return self.left > 0


def _rule(rng: random.Random, index: int) -> str:
    name = f"r{index}" if index == 0 or rng.random() < 0.7 else rng.choice(NAMES)
    defined = "=/" if rng.random() < 0.08 else "="
    budget = _Budget(rng.choice([20, 60, 2000]))
    body = _alternation(rng, rng.choice([0, 1, 2, 3, 4, 6]), budget)
    lines = [f"{name} {defined} {body}"]
    if rng.random() < 0.2:
        lines[0] += " ; " + rng.choice(ODD_TEXT)
    if rng.random() < 0.15:
        lines.insert(0, "; " + "".join(rng.choice(ODD_TEXT) for _ in range(3)))
    if rng.random() < 0.15:
        lines.append("")
    if rng.random() < 0.1:  # a continuation line, possibly after a comment line
        lines.append(("; between\n" if rng.random() < 0.5 else "") + "    / " + _element(rng, 1, _Budget(5)))
    return "\n".join(lines) + "\n"


def _alternation(rng: random.Random, depth: int, budget: _Budget) -> str:
    # Wide choices and long sequences only where nothing nests inside: sizes would multiply.
    wide = depth == 0 and rng.random() < 0.03
    width = rng.randrange(50, 400) if wide else rng.choice([1, 1, 1, 2, 3, 5])
    return " / ".join(_concatenation(rng, depth, budget) for _ in range(width) if budget.take()) or '""'


def _concatenation(rng: random.Random, depth: int, budget: _Budget) -> str:
    long = depth == 0 and rng.random() < 0.03
    length = rng.randrange(50, 400) if long else rng.choice([1, 1, 2, 3, 4])
    separator = "" if rng.random() < 0.05 else " "
    return separator.join(_repetition(rng, depth, budget) for _ in range(length) if budget.take()) or '""'


def _repetition(rng: random.Random, depth: int, budget: _Budget) -> str:
    roll = rng.random()
    if roll < 0.55:
        prefix = ""
    elif roll < 0.95:
        prefix = rng.choice(["*", "1*", "0*1", "2", "3*5", "*3", "0", "5*2", "1*1", "0*0"])
    else:
        prefix = rng.choice(["100", "1000", "65536*", "4294967296", "1" * 30, "9" * 5000, "999999999"])
    return prefix + _element(rng, depth, budget)


def _element(rng: random.Random, depth: int, budget: _Budget) -> str:
    roll = rng.random()
    if depth > 0 and roll < 0.25 and budget.take():
        inner = _alternation(rng, depth - 1, budget)
        return f"( {inner} )" if rng.random() < 0.7 else f"[ {inner} ]"
    if roll < 0.40:
        return rng.choice(NAMES + [f"r{rng.randrange(6)}"] * 4)
    if roll < 0.60:
        text = rng.choice(["abc", "a", "", "AbC", "0", " ", "hello world", "\\", "<>"])
        return rng.choice(["", "", "%s", "%i", "%S"]) + f'"{text}"'
    if roll < 0.85:
        return _number(rng)
    if roll < 0.90:
        return "<" + rng.choice(["prose", "", "subdomain", "r1", "any CHAR"]) + ">"
    if roll < 0.93:  # nesting far deeper than usual, sometimes past the parser's limit
        levels = rng.choice([20, 60, 99, 100, 101, 150])
        return "(" * levels + '"a"' + ")" * levels
    return rng.choice(['"unterminated', "%x", "%xZZ", "(", ")", "[ ]", "%d12-", "<open", "=", "/"])


def _number(rng: random.Random) -> str:
    base = rng.choice("xxxdb")
    top = rng.choice([0xFF, 0xFF, 0x7F, 0x10FFFF, 0x100])
    low, high = sorted(rng.randrange(top + 1) for _ in range(2))
    if rng.random() < 0.1:
        low, high = high, low  # reversed: an empty range
    if rng.random() < 0.03:
        return f"%{base}" + "1" * rng.choice([30, 5000])
    form = rng.random()
    if form < 0.4:
        return f"%{base}{_digits(low, base)}"
    if form < 0.8:
        return f"%{base}{_digits(low, base)}-{_digits(high, base)}"
    return f"%{base}" + ".".join(_digits(rng.randrange(top + 1), base) for _ in range(rng.randrange(2, 5)))


def _digits(value: int, base: str) -> str:
    return {"x": f"{value:X}", "d": str(value), "b": f"{value:b}"}[base]


def mutate(rng: random.Random, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(rng.choice([1, 1, 2, 3, 8])):
        if not data:
            break
        at = rng.randrange(len(data))
        roll = rng.random()
        if roll < 0.25:
            data[at:at] = bytes([rng.choice(b'"%()[]<>/=*;\n\r\t 0123456789xX-.ab\x00\xff')])
        elif roll < 0.45:
            del data[at:at + rng.randrange(1, 8)]
        elif roll < 0.65:
            data[at] = rng.randrange(256)
        elif roll < 0.80:
            lines = data.split(b"\n")
            pick = rng.randrange(len(lines))
            lines.insert(pick, lines[pick])
            data = bytearray(b"\n".join(lines))
        elif roll < 0.90:
            lines = data.split(b"\n")
            del lines[rng.randrange(len(lines))]
            data = bytearray(b"\n".join(lines))
        else:
            del data[at:]
    return bytes(data)


def case(rng: random.Random) -> tuple[str, bytes]:
    """A name saying how the grammar was made, and its bytes: generated here, nested (recursion
    between bracket bytes, so that many get pushdown validators and some have conflicts) or
    mutated from a grammar file."""
    if rng.random() < 0.15:
        from grammar_gen import nested_grammar  # here: the workers, which only mutate, run without tests/

        return "nested", nested_grammar(rng.randrange).encode("utf-8")
    if rng.random() < 0.5 or not SEEDS:
        return "generated", random_grammar(rng).encode("utf-8")
    seed = rng.choice(SEEDS)
    return f"mutated {seed.name}", mutate(rng, seed.read_bytes())
