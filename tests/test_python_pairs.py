"""The generated Python module's is_valid on short inputs, two bytes a step (python/plan.py's
pair functions and the word table the module builds at import): the same verdicts as
first_error, for both byte orders."""
from __future__ import annotations

import random
import types

from conftest import ROOT, compile_text, python_module
from grammar_gen import mutations, random_bytes, random_regular_grammar, sample

URI = (ROOT / "grammars" / "uri.abnf").read_text(encoding="utf-8")


def inputs(text: str, rng: random.Random) -> list[bytes]:
    """Samples of the grammar, their mutations, random bytes; odd and even lengths, some past
    the 1024 bytes the pair loop takes."""
    resolved = compile_text(text).resolved
    found: list[bytes] = [b"", b"a"]
    for repeat in (2, 5, 40, 400):
        data = sample(resolved, rng, max_repeat=repeat)
        if data is not None:
            found += [data, data[:-1], *mutations(data, rng, 4)]
    return found + [random_bytes(rng, 30) for _ in range(30)]


def test_is_valid_agrees_with_first_error_on_random_grammars():
    paired = 0
    for seed in range(40):
        rng = random.Random(seed)
        text = random_regular_grammar(rng)
        module = python_module(text)
        paired += hasattr(module, "_PAIR_ROWS")
        for data in inputs(text, rng):
            want = module.first_error(data) is None
            assert module.is_valid(data) == want, (seed, data)
            assert module.is_valid(bytearray(data)) == want and module.is_valid(memoryview(data)) == want
    assert paired >= 30


def test_uri_short_records_take_the_pair_loop():
    module = python_module(URI, name="uri")
    assert module._PAIR_ROWS and len(module._PAIR_WORDS) == 65536
    rng = random.Random(3986)
    for data in [*inputs(URI, rng), b"http://example.com/a?b#c", b"http://example.com/a?b#c "]:
        assert module.is_valid(data) == (module.first_error(data) is None), data


def test_the_word_table_in_both_byte_orders():
    """Each word's pair function, whichever byte the machine puts first."""
    module = python_module(URI, name="uri")
    class_of = [0] * 256
    for index, ranges in enumerate(module.CLASSES):
        for lo, hi in ranges:
            class_of[lo:hi + 1] = [index] * (hi - lo + 1)
    for order in ("little", "big"):
        vars(module)["_sys"] = types.SimpleNamespace(byteorder=order)  # read when the tables are built
        _rows, words = module._pair_tables()
        for word in range(0, 65536, 7):
            first, second = (word & 255, word >> 8) if order == "little" else (word >> 8, word & 255)
            assert words[word] == module._PAIR_IDS[class_of[first]][class_of[second]], (order, word)
