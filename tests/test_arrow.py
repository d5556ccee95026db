"""``load_validator(grammar, lang="c").validate_arrow(array)``: every string and binary type
(offsets and views), nulls, slices at every offset, chunked arrays, empty and all-null arrays,
wrong types, a malformed view, agreement with the generated Python module on random values and
on records of every length the kernel sorts, and the error without a C compiler."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from helpers.cache import kernel_cache
from helpers.paths import GRAMMARS

import abnfc
from abnfc.errors import AbnfError

pa = pytest.importorskip("pyarrow")

TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.string_view(), pa.binary_view()]
BINARY = (pa.binary(), pa.large_binary(), pa.binary_view())
GOOD = "2020-01-01T00:00:00Z"


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory):
    yield from kernel_cache(tmp_path_factory)


@pytest.fixture(scope="module")
def datetime_c():
    return abnfc.load_validator(GRAMMARS / "datetime.abnf", lang="c")


@pytest.fixture(scope="module")
def datetime_python():
    return abnfc.load_validator(GRAMMARS / "datetime.abnf", lang="python")


VALUES = [GOOD, None, "bad", "2020-01-01T00:00:00.5+01:00", "", None, GOOD + "x", "1999-12-31t23:59:60z",
          "2020-01-01T00:00:00", GOOD, None, "2020"]


def wanted(values: list) -> list:
    python = abnfc.load_validator(GRAMMARS / "datetime.abnf", lang="python")
    return [None if value is None else python.is_valid(value.encode() if isinstance(value, str) else value)
            for value in values]


@pytest.mark.parametrize("kind", TYPES, ids=str)
def test_types_nulls_and_slices(datetime_c, kind) -> None:
    binary = kind in BINARY
    values = [v.encode() if binary and v is not None else v for v in VALUES]
    array = pa.array(values, type=kind)
    expected = wanted(values)
    result = datetime_c.validate_arrow(array)
    assert result.type == pa.bool_() and result.to_pylist() == expected
    assert result.null_count == 3
    for start in range(len(values)):
        for stop in (start, start + 1, len(values)):
            sliced = datetime_c.validate_arrow(array.slice(start, stop - start))
            assert sliced.to_pylist() == expected[start:stop], (start, stop)


def test_chunked_empty_and_all_null(datetime_c) -> None:
    chunked = pa.chunked_array([pa.array(VALUES[:5]), pa.array(VALUES[5:])])
    result = datetime_c.validate_arrow(chunked)
    assert isinstance(result, pa.ChunkedArray) and result.to_pylist() == wanted(VALUES)
    assert datetime_c.validate_arrow(pa.array([], pa.string())).to_pylist() == []
    assert datetime_c.validate_arrow(pa.array([None, None], pa.large_string())).to_pylist() == [None, None]
    assert datetime_c.validate_arrow(pa.array(["", ""], pa.binary())).to_pylist() == [False, False]


def test_wrong_type(datetime_c) -> None:
    with pytest.raises(AbnfError, match="string, large_string, binary, large_binary, string_view or binary_view"):
        datetime_c.validate_arrow(pa.array([1, 2]))


def test_malformed_view(datetime_c) -> None:
    """A view that points past its data buffer is refused before anything is read from it."""
    good = pa.array([GOOD + "0123456789"], pa.string_view())  # longer than 12 bytes: in the data buffer
    _validity, views, data = good.buffers()
    view = bytearray(views.to_pybytes())
    view[12:16] = (data.size - 3).to_bytes(4, "little")  # its offset, now 3 bytes before the end
    broken = pa.Array.from_buffers(pa.string_view(), 1, [None, pa.py_buffer(bytes(view)), data])
    with pytest.raises(AbnfError, match="outside its data buffers"):
        datetime_c.validate_arrow(broken)
    assert datetime_c.validate_arrow(good).to_pylist() == [False]


def test_every_length_the_kernel_sorts() -> None:
    """Records of 0 to 600 bytes, valid and not, in shuffled order over several chunks of 1,024:
    the kernel sorts short ones by length into groups of four and sends long ones to first_error."""
    c: Any = abnfc.load_validator(GRAMMARS / "uri.abnf", lang="c")
    python = abnfc.load_validator(GRAMMARS / "uri.abnf", lang="python")
    rng = random.Random(7)
    values = [b"http://e/" + b"a" * rng.randrange(600) for _ in range(3000)]
    values = [value if rng.random() < 0.5 else value[: rng.randrange(len(value) + 1)] + b" " for value in values]
    values += [b"", b"a" * 247, b"a" * 248, b"a" * 256, b"a" * 257]
    rng.shuffle(values)
    expected = [python.is_valid(value) for value in values]
    assert 0 < sum(expected) < len(values)
    for kind in (pa.binary(), pa.large_binary(), pa.binary_view()):
        assert c.validate_arrow(pa.array(values, type=kind)).to_pylist() == expected


def random_value(rng: random.Random) -> bytes:
    value = bytearray(rng.choice([GOOD.encode(), b"1999-12-31t23:59:60.123+05:30", b"2000-02-29T00:00:00z"]))
    for _edit in range(rng.randrange(3)):
        at = rng.randrange(len(value) + 1)
        value[at: at + 1] = bytes([rng.choice(b"0123456789:-.TZtz+x\x00\xff")])
    return bytes(value[: rng.randrange(len(value) + 1)] if rng.random() < 0.2 else value)


@pytest.mark.parametrize("grammar", ["datetime.abnf", "uri.abnf", "utf8.abnf"])
def test_agrees_with_python_on_random_values(grammar: str) -> None:
    c: Any = abnfc.load_validator(GRAMMARS / grammar, lang="c")  # validate_arrow: the C validator's own
    python = abnfc.load_validator(GRAMMARS / grammar, lang="python")
    rng = random.Random(grammar)
    values: list[bytes | None] = [
        random_value(rng) if rng.random() < 0.7 else bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
        for _ in range(5000)]
    values += [None, b""]
    expected = [None if value is None else python.is_valid(value) for value in values]
    for kind in BINARY:
        array = pa.array(values, type=kind)
        assert c.validate_arrow(array).to_pylist() == expected
        assert c.validate_arrow(array.slice(13)).to_pylist() == expected[13:]


def test_kernel_compiled_once(datetime_c, cache: Path) -> None:
    datetime_c.validate_arrow(pa.array([GOOD]))
    built = sorted(cache.glob("*.so"))
    again: Any = abnfc.load_validator(GRAMMARS / "datetime.abnf", lang="c")
    assert again.validate_arrow(pa.array(["x"])).to_pylist() == [False]
    assert sorted(cache.glob("*.so")) == built  # the same key: loaded from the cache


def test_python_validator_fallback(datetime_python) -> None:
    array = pa.array(VALUES, pa.large_string())
    assert datetime_python.validate_arrow(array.slice(1)).to_pylist() == wanted(VALUES)[1:]
    chunked = pa.chunked_array([pa.array([b"x"], pa.binary()), pa.array([GOOD.encode(), None], pa.binary())])
    assert datetime_python.validate_arrow(chunked).to_pylist() == [False, True, None]
    with pytest.raises(AbnfError, match="large_binary"):
        datetime_python.validate_arrow(pa.array([1.5]))


def test_no_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(AbnfError, match=r"lang='python'"):
        abnfc.load_validator(GRAMMARS / "datetime.abnf", lang="c")


def test_beyond_the_table() -> None:
    """More than 4,096 states: the kernel leaves the table out and calls first_error a record at a time."""
    grammar = abnfc.load_grammar(text='r = 4200"a" / "b"\n')
    c: Any = abnfc.load_validator(grammar, lang="c")
    array = pa.array(["a" * 4200, "a" * 4199, "b", None, "a" * 4201, ""])
    assert c.validate_arrow(array).to_pylist() == [True, False, True, None, False, False]


def test_recursive_grammar_a_value_at_a_time() -> None:
    """A pushdown validator (JSON) has validate_arrow too: in C through the batch kernel built
    from its pushdown C (one call a value), in Python a value at a time; a value nested past the
    depth limit raises NestingError, as is_valid does."""
    values = ["[1,2]", "{", None, "[[[]]]", '{"a": [true]}', "", "[" * 99_999 + "]" * 99_999]
    for lang in ("c", "python"):
        validator: Any = abnfc.load_validator(GRAMMARS / "json.abnf", lang=lang)
        assert validator.validate_arrow(pa.array(values, pa.string_view())).to_pylist() == [
            True, False, None, True, True, False, True]
        assert validator.validate_arrow(pa.chunked_array([pa.array(values[:3]), pa.array(values[3:])])).to_pylist() \
            == [True, False, None, True, True, False, True]
        with pytest.raises(validator.NestingError):
            validator.validate_arrow(pa.array(["[1]", "[" * 100_001]))


@pytest.mark.parametrize("kind", [pa.string(), pa.string_view()], ids=str)
def test_large_arrays_in_pieces_on_threads(datetime_c, kind, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 2 x PIECE values the kernel splits the array on whole bitmap bytes between threads:
    the same verdicts as in one piece, at a slice offset that is not a multiple of 8."""
    from abnfc.native import kernel

    rng = random.Random(3)
    pattern = [rng.choice([GOOD, None, "bad", GOOD + "x", "1999-12-31t23:59:60z"]) for _ in range(997)]
    array = pa.array(pattern * (2 * kernel.PIECE // 997 + 50), kind).slice(3)
    split = datetime_c.validate_arrow(array)
    monkeypatch.setattr(kernel, "PIECE", 1 << 40)
    whole = datetime_c.validate_arrow(array)
    assert split.equals(whole) and split.null_count == array.null_count
    assert split.slice(0, 997).to_pylist() == wanted((pattern * 2)[3:1000])
