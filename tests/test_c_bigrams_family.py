"""Token bigrams on a family of JSON-like grammars, drawn at random: brackets of one to three
kinds (some of them holding members ``key : value``), separators or none, trailing separators,
strings with another quote, escapes of one byte or of a letter and hex digits or none, ASCII or
UTF-8 inside, tokens of digits, letters or fixed words.  For each grammar whose tables derive
(src/abnfc/automata/bigrams), the generated C's ``is_valid`` with the token bigrams on every
length gives the byte loop's verdict and the reference loop's, under ASan and UBSan, on samples
of the grammar, long documents made of them (across blocks and chunks) and their mutations.
Only on processors with AVX-512 VBMI2."""
from __future__ import annotations

import random

import pytest
from grammar_gen import mutations, sample
from helpers.c_build import SANITIZE, needs_gcc
from helpers.cpu import cpu_has
from test_c_pushdown import _answers, _generate, _harness, _reference

from abnfc.automata.bigrams import find_bigrams
from abnfc.automata.pushdown import Pushdown
from abnfc.frontend.source import from_text
from abnfc.pipeline import Compilation

pytestmark = [needs_gcc, pytest.mark.skipif(not cpu_has("avx512_vbmi2", "bmi2"), reason="needs AVX-512 VBMI2")]

BRACKETS = [("%x28", "%x29"), ("%x5B", "%x5D"), ("%x7B", "%x7D")]
SEPARATORS = ["%x2C", "%x3B", "%x7C"]
GRAMMARS = 24


def family_grammar(rng: random.Random) -> tuple[str, bytes, bytes, bytes]:
    """ABNF text starting at ``doc``, and a list's opening, separator and closing bytes (a
    value-only list, so that long documents can be built from samples of ``value``)."""
    kinds = rng.randint(1, 3)
    quote = rng.choice(["%x22", "%x27"])
    separator = rng.choice([*SEPARATORS, ""])
    escape = rng.choice(["none", "simple", "hex"])
    utf8 = rng.random() < 0.5
    quote_byte = int(quote[2:], 16)
    plain = [f"%x20-{quote_byte - 1:02X}", f"%x{quote_byte + 1:02X}-5B", "%x5D-7E"]
    if utf8:
        plain.append("%x80-10FFFF")
    escapes = {"none": "", "simple": f" / %x5C ( {quote} / %x5C / %x6E / %x74 )",
               "hex": f" / %x5C ( {quote} / %x5C / %x75 4HEXDIG )"}[escape]
    token = rng.choice(["1*DIGIT", "1*DIGIT [ %x2E 1*DIGIT ]", "1*ALPHA", '%s"true" / %s"nil" / 1*DIGIT'])
    lines = ["doc = ws value ws", "ws = *( %x20 / %x09 / %x0A )"]
    alternatives = ["string", "token"]
    list_open = list_close = b""
    for number in range(kinds):
        open_, close = BRACKETS[number]
        members = rng.random() < 0.4 and number > 0 and separator != ""
        item = "member" if members else "value"
        joint = f"ws {separator} ws" if separator else "ws"
        trailing = f" [ ws {separator} ]" if separator and rng.random() < 0.3 else ""
        lines.append(f"part{number} = {open_} ws [ {item} *( {joint} {item} ){trailing} ] ws {close}")
        alternatives.append(f"part{number}")
        if not members and not list_open:
            list_open, list_close = bytes([int(open_[2:], 16)]), bytes([int(close[2:], 16)])
    if any("member" in line for line in lines):
        lines.append("member = string ws %x3A ws value")
    lines.append("value = " + " / ".join(alternatives))
    lines.append(f"string = {quote} *( {' / '.join(plain)}{escapes} ) {quote}")
    lines.append(f"token = {token}")
    glue = bytes([int(separator[2:], 16)]) if separator else b" "
    return "\n".join(lines) + "\n", list_open, glue, list_close


# The sampler writes bytes: in the samples' grammar, three UTF-8 characters stand for the range
# beyond ASCII (with no value above 255 left, its values are bytes).
UTF8_SAMPLES = "%xC3 %xA9 / %xE6 %x9D %xB1 / %xF0 %x9F %x98 %x80"


def _inputs(text: str, list_open: bytes, glue: bytes, list_close: bytes, rng: random.Random) -> list[bytes]:
    text = text.replace("%x80-10FFFF", UTF8_SAMPLES)
    values_first = text.replace("doc = ws value ws\n", "") + "doc = ws value ws\n"
    inputs = []
    for _ in range(60):
        one = sample(text, rng, max_depth=6, max_repeat=4)
        if one is not None:
            inputs += [one, *mutations(one, rng, 2)]
    if list_open:
        for length in (20, 200, 900):
            values = [sample(values_first, rng, max_depth=5, max_repeat=3) or b"" for _ in range(length)]
            long = list_open + (glue + b" ").join(values) + list_close
            inputs += [long, *mutations(long, rng, 8)]
    return inputs


@pytest.mark.parametrize("seed", range(GRAMMARS))
def test_token_bigrams_of_a_random_json_like_grammar_agree_with_the_byte_loop(tmp_path, seed):
    rng = random.Random(seed)
    text, list_open, glue, list_close = family_grammar(rng)
    compilation = Compilation(from_text(text), None)
    automaton = compilation.pushdown
    assert isinstance(automaton, Pushdown), text
    if find_bigrams(automaton) is None:
        pytest.skip("the tables do not derive for this grammar: its is_valid keeps the two stages")
    _generate(tmp_path, compilation, "fam")
    binary = _harness(tmp_path, "fam", [*SANITIZE, "-DFAM_TWO_STAGE_MIN=0", "-DFAM_BIGRAMS_MIN=1"])
    inputs = _inputs(text, list_open, glue, list_close, rng)
    answers = _answers(binary, tmp_path, inputs, 3)
    for data, ((status, at, _state, _depth), _limited) in zip(inputs, answers, strict=True):
        assert (status, at) == _reference(automaton, data, 100_000), (text, data[:300])
    valid = sum(status == "valid" for (status, *_rest), _limited in answers)
    assert valid >= 20 and len(inputs) - valid >= 20, text


def test_a_third_of_the_family_derives():
    """The family is drawn so that the token bigrams often apply: at least a third of it derives tables."""
    derived = 0
    for seed in range(GRAMMARS):
        automaton = Compilation(from_text(family_grammar(random.Random(seed))[0]), None).pushdown
        assert isinstance(automaton, Pushdown)
        derived += find_bigrams(automaton) is not None
    assert derived >= GRAMMARS // 3
