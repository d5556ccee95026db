"""grammars/json.abnf (RFC 8259 sections 2-7, utf-8 mode) against Python's json module.

JSON-text is recursive, so the interpreter matches it; string and number are regular and are
checked through every engine (the interpreter, the DFA, the minimal DFA, generated Python, C
and JavaScript).  The oracle is ``json.loads`` on the input decoded as UTF-8, with NaN and
Infinity refused (Python accepts them; RFC 8259 does not).  Where the two are known to differ
on purpose, the test says so: a lone surrogate escape ``"\\ud800"`` is accepted by both (RFC 8259
section 8.2 allows it, with unpredictable results), and nesting deeper than Python's recursion
limit is JSON all the same.
"""
from __future__ import annotations

import json
import random
import sys

import pytest
from conftest import LANGUAGES, ROOT, compile_text, validators

import abnfc
from abnfc import backends
from abnfc.interpret import Recognizer, recognize
from abnfc.pipeline import resolve_grammar

GRAMMAR_FILE = ROOT / "grammars" / "json.abnf"
TEXT = GRAMMAR_FILE.read_text(encoding="utf-8")


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def python_value(data: bytes):
    """What json.loads makes of ``data`` (decoded as UTF-8), or ValueError when it refuses it."""
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError: ValueErrors
        return ValueError(str(error))


def python_accepts(data: bytes) -> bool:
    return not isinstance(python_value(data), ValueError)


def python_accepts_as(start: str, data: bytes) -> bool:
    """Whether Python reads ``data`` as one bare string or number (no white space around it)."""
    kinds = {"string": (str,), "number": (int, float)}[start]
    value = python_value(data)
    return isinstance(value, kinds) and not isinstance(value, bool) and data == data.strip(b" \t\r\n")


@pytest.fixture(scope="module")
def json_text():
    return resolve_grammar(abnfc.load_grammar(GRAMMAR_FILE))


VALID = [
    "0", "-0", "1", "-1.5e+10", "1E-2", "0.0", "123456789012345678901234567890", "1.5e999", '""', '"a"',
    "true", "false", "null", "[]", "{}", " [ ] ", '\t\r\n{ "a" : [ 1 , { } ] }\n',
    '{"a":1,"a":2}', '"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\u00e9\\u00E9"', '"\\ud83d\\ude00"',
    '"\\ud800"', '"\\udc00x"', '"é€😀"', '"\x7f"', '"\u2028\u2029"', '"\ufeff"', "[1,[2,[3,[4]]]]",
    '{"k":{"k":{"k":null}}}', '[true,false,null,"s",1e5,{"x":[]}]', '"\U0010ffff"', '"\ue000\ufffd\uffff"',
]
INVALID = [
    "", " ", "NaN", "Infinity", "-Infinity", "+1", "01", "-", "1.", ".5", "1e", "1e+", "0x10", "1 2",
    "tru", "True", "NULL", "'a'", '"a', '"\\x"', '"\\u12"', '"\\u12G4"', '"\\U0041"', '"\x01"', '"\t"',
    '"\n"', "[1,]", "[,1]", "{,}", '{"a"}', '{"a":}', '{"a" 1}', "{1:2}", '{"a":1,}', "[1 2]",
    "[", "]", "[[]", "{}}", "/* c */ 1", "// c\n1", "\ufeff1", "\u00a01", "[1]\x00", "\x0c1",
]
INVALID_BYTES = [b'"\xff"', b'"\xc0\xaf"', b'"\xed\xa0\x80"', b'"\xf4\x90\x80\x80"', b'"\xe2\x82"',
                 b'"\x80"', b"[\xc3\xa9]"]


@pytest.mark.parametrize("text", VALID)
def test_valid_json_matches(json_text, text):
    data = text.encode("utf-8", "surrogatepass")
    assert python_accepts(data), "the oracle disagrees with this list"
    assert recognize(json_text, data).matched


@pytest.mark.parametrize("data", [t.encode() for t in INVALID] + INVALID_BYTES)
def test_invalid_json_does_not_match(json_text, data):
    assert not python_accepts(data), "the oracle disagrees with this list"
    assert not recognize(json_text, data).matched


def test_errors_say_where_and_what(json_text):
    verdict = recognize(json_text, b'{"a": [1, 2,, 3]}')
    assert verdict.offset == 12
    assert "(value)" not in verdict.describe() and "%x22 (quotation-mark)" in verdict.describe()


def random_value(rng: random.Random, depth: int = 0):
    if depth > 4 or rng.random() < 0.35:
        return rng.choice([
            rng.randint(-10**20, 10**20), rng.uniform(-1e6, 1e6), rng.choice([1e-300, 1e300, -0.0]),
            "".join(rng.choice("aé€😀\"\\/\b\f\n\r\t\x00\x1f\u2028 ") for _ in range(rng.randint(0, 8))),
            True, False, None])
    if rng.random() < 0.5:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{rng.randint(0, 9)}é": random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def random_texts(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        text = json.dumps(random_value(rng), ensure_ascii=rng.random() < 0.5,
                          indent=rng.choice([None, 0, 2, "\t"]),
                          separators=rng.choice([None, (",", ":"), (" , ", " : ")]))
        texts.append((rng.choice(["", " ", "\n\t "]) + text + rng.choice(["", "\r\n"])).encode())
    return texts


def mutate(rng: random.Random, data: bytes) -> bytes:
    position = rng.randrange(len(data) + 1)
    choice = rng.randrange(3)
    noise = bytes([rng.choice(b'{}[]":,\\u0123456789.eE+- \t\ntruefalsnl\x00\x7f\xc3\xa9\xed\xa0\x80\xff')])
    if choice == 0:
        return data[:position] + noise + data[position:]
    if choice == 1:
        return data[:position] + data[position + 1:]
    return data[:position] + noise + data[position + 1:]


def test_agrees_with_python_on_random_and_mutated_texts(json_text):
    rng = random.Random(8259)
    texts = random_texts(8259, 150)
    mutated = [mutate(rng, mutate(rng, text)) if rng.random() < 0.3 else mutate(rng, text) for text in texts * 3]
    wrong = [data for data in texts + mutated if recognize(json_text, data).matched != python_accepts(data)]
    assert not wrong, wrong[:5]
    assert sum(python_accepts(data) for data in mutated) > 20  # mutations that stay JSON occur too


# -- string and number: regular, on every engine ------------------------------------------------

STRINGS = [t.encode("utf-8", "surrogatepass") for t in VALID if t.startswith('"')] + [
    t.encode() for t in INVALID if t.startswith(('"', "'"))] + INVALID_BYTES[:6] + [
    b'"abc', b'"a"b"', b"", b'"\\u00e9', b'"\\ud800\\udc00"']
NUMBERS = [t.encode() for t in ["0", "-0", "1", "-1.5e+10", "1E-2", "0.0", "1.5e999", "01", "-", "1.", ".5",
                                "1e", "1e+", "0x10", "+1", "1 ", "12345678901234567890e-0005", "--1", "0e0"]]


def test_string_and_number_compile_and_agree_on_every_engine():
    starts = {"string": STRINGS, "number": NUMBERS}
    loaded = {language: dict(zip(starts, validators([TEXT] * len(starts), language, starts=list(starts)), strict=True))
              for language in LANGUAGES}  # one build per language for both start rules
    for start, inputs in starts.items():
        compiled = compile_text(TEXT, start)
        # The encoding follows what the start rule reaches: number is ASCII, so octets is as good.
        assert compiled.resolved.encoding == {"string": "utf-8", "number": "octets"}[start]
        for data in inputs:
            expected = python_accepts_as(start, data)
            offsets = {"interpreter": recognize(compiled.resolved, data).offset,
                       "dfa": compiled.dfa.first_error(data), "minimal dfa": compiled.minimal.first_error(data)}
            offsets.update((language, backends.first_errors(validators_of[start], [data])[0])
                           for language, validators_of in loaded.items())
            assert {offset is None for offset in offsets.values()} == {expected}, (start, data, offsets)
            assert len(set(offsets.values())) == 1, (start, data, offsets)


def test_generated_python_checks_str_as_utf8():
    [module] = validators([TEXT], "python", starts=["string"])
    assert module.is_valid('"grüße 😀"') and not module.is_valid('"\ud800"')
    assert module.is_valid('"\\ud800"')  # the escape, six ASCII characters, is fine


# -- large inputs ---------------------------------------------------------------------------------

def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_deep_nesting_is_json_though_python_gives_up(json_text):
    data = nested(20_000)
    assert not python_accepts(data) or sys.getrecursionlimit() > 20_000  # RecursionError
    assert recognize(json_text, data).matched
    assert recognize(json_text, data[:-1]).offset == len(data) - 1


@pytest.mark.slow
def test_one_megabyte_inputs(json_text):
    deep = nested(1 << 19)  # 1 MiB of brackets, nested half a million deep
    recognizer = Recognizer(json_text)
    for start in range(0, len(deep), 1 << 16):
        recognizer.feed(deep[start:start + (1 << 16)])
    assert recognizer.verdict().matched
    texts, size = [], 0
    for text in random_texts(1, 10_000):
        texts.append(text)
        size += len(text) + 1
        if size > 1 << 20:
            break
    document = b"[" + b",".join(texts) + b"]"
    assert len(document) > 1 << 20 and python_accepts(document)
    assert recognize(json_text, document).matched
