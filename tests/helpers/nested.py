"""Recursive grammars other than JSON for the Python pushdown modules' differential tests, and
random inputs for them: short strings of the bytes that matter, and one-byte edits of a valid
text."""
from __future__ import annotations

import random

from abnfc.frontend.source import Grammar, from_text, load
from helpers.paths import ROOT
from helpers.walks import one_byte_edits

NESTED_COMMENTS = """\
doc = *( word / SP / comment )
word = 1*%x61-7A
comment = "{" *( %x20-7A / %x7C / %x7E / comment ) "}"
"""
SOURCES = ["sexpr.abnf", "variants/json-comments.abnf", "variants/json-trailing-commas.abnf", NESTED_COMMENTS]
VALID_TEXTS = {"sexpr.abnf": b'(define (f x) "a \\" b" (+ x 1) ())', NESTED_COMMENTS: b"ab {c {d} e} f {}"}
JSON_TEXT = b'[1, {"a": [true, "x\\n"]}, -2.5e3 ] '


def nested_grammar(source: str) -> Grammar:
    """A grammar of SOURCES: a file under grammars/, or the text itself."""
    return from_text(source, "nested.abnf") if "\n" in source else load(str(ROOT / "grammars" / source))


def random_inputs(source: str, alphabet: bytes, count: int) -> list[bytes]:
    """``count`` random strings of ``alphabet`` under 30 bytes, a valid text of the grammar, and
    300 one-byte edits of it three times over; the same for the same arguments."""
    rng = random.Random(len(source))
    inputs = [bytes(rng.choice(alphabet) for _ in range(rng.randrange(30))) for _ in range(count)]
    seed = VALID_TEXTS.get(source, JSON_TEXT)
    return [*inputs, seed, *one_byte_edits(seed * 3, rng, 300, alphabet)]
