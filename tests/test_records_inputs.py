"""What ``abnfc check --records`` and ``validate_arrow`` make of unusual inputs: misspelt fields,
CSV line numbers, blank lines, byte order marks, long fields and unclosed quotes, compressed files
and TSV, JSON Lines with huge integers or deep nesting, non-UTF-8 strings and damaged Parquet,
malformed Arrow arrays, file names with control characters, the totals of files that fail, and
errors that survive pickling (as Polars needs)."""
from __future__ import annotations

import copy
import gzip
import io
import pickle
import struct
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from helpers.cache import kernel_cache
from helpers.paths import GRAMMARS
from helpers.records import check, check_json, write

from abnfc.errors import AbnfError, LimitError

DATETIME = str(GRAMMARS / "datetime.abnf")
UTF8 = str(GRAMMARS / "utf8.abnf")
JSON = str(GRAMMARS / "json.abnf")
GOOD = "2020-01-01T00:00:00Z"


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory):
    yield from kernel_cache(tmp_path_factory)


def found(objects: list[dict], *keys: str) -> list[tuple]:
    """The invalid records' ``keys``, the totals left out."""
    return [tuple(o.get(key) for key in keys) for o in objects[:-1]]


# JSON Lines

def test_a_misspelt_field_is_one_error(capsys, tmp_path: Path) -> None:
    lines = "".join(f'{{"id": {n}, "ts": "{GOOD}"}}\n' for n in range(1500))
    path = write(tmp_path, "t.jsonl", lines)
    status, out, err = check(capsys, DATETIME, "--records", "jsonl:tz", path)
    assert status == 2 and out == ""
    assert err.strip() == f"{path}: none of the first 1,000 records has a field tz; the fields seen: id, ts"
    # a field that fewer records lack is missing from those alone
    some = write(tmp_path, "s.jsonl", '{"id": 1}\n' * 999 + f'{{"ts": "{GOOD}"}}\n' + '{"id": 1}\n' * 600)
    status, objects, _err = check_json(capsys, DATETIME, "--records", "jsonl:ts", some)
    assert status == 1 and objects[-1] == {**objects[-1], "records": 1600, "invalid": 1599}


def test_huge_integers_are_json(capsys, tmp_path: Path) -> None:
    digits = "9" * 5000
    path = write(tmp_path, "t.jsonl", f'{{"n": {digits}, "ts": "{GOOD}"}}\n{{"n": -{digits}, "ts": "bad"}}\n')
    status, objects, err = check_json(capsys, DATETIME, "--records", "jsonl:ts", path)
    assert status == 1 and found(objects, "record", "offset") == [(2, 0)] and err == ""
    path = write(tmp_path, "n.jsonl", f'{{"ts": {digits}}}\n')
    status, _out, err = check(capsys, DATETIME, "--records", "jsonl:ts", path)
    assert status == 2 and "record 1: field ts is int, not a string" in err


@pytest.mark.parametrize("blank", [b"\x0b", b"\x0c", b" \x0c \r"])
def test_only_json_whitespace_is_blank(capsys, tmp_path: Path, blank: bytes) -> None:
    path = write(tmp_path, "t.jsonl", b'{"ts": "' + GOOD.encode() + b'"}\n' + blank + b"\n \t\r\n")
    status, _out, err = check(capsys, DATETIME, "--records", "jsonl:ts", path)
    assert status == 2 and "record 2: not JSON" in err


def test_a_duplicate_key_takes_the_last_value(capsys, tmp_path: Path) -> None:
    """The rule the docstring of abnfc.records.formats states (as Python's json and JavaScript's)."""
    from abnfc.records import formats

    assert "the last value counts" in " ".join((formats.__doc__ or "").split())
    path = write(tmp_path, "t.jsonl", f'{{"ts": "bad", "ts": "{GOOD}"}}\n{{"ts": "{GOOD}", "ts": "bad"}}\n')
    status, objects, _err = check_json(capsys, DATETIME, "--records", "jsonl:ts", path)
    assert status == 1 and found(objects, "record", "offset") == [(2, 0)]


def test_deep_nesting_in_another_field(capsys, tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    path = write(tmp_path, "t.jsonl", f'{{"ts": "{GOOD}"}}\n{{"x": {deep}, "ts": "{GOOD}"}}\n{{"ts": "bad"}}\n')
    status, objects, err = check_json(capsys, DATETIME, "--records", "jsonl:ts", path)
    assert status == 1 and err == ""
    assert found(objects, "record", "offset", "reason") == [
        (2, None, "the line nests too deep for Python's JSON reader"), (3, 0, None)]


# CSV

def test_csv_records_are_named_by_their_line(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f'id,ts\n1,bad\n2,"x\ny"\n\n3,{GOOD}\n4,nope\n')
    status, out, _err = check(capsys, DATETIME, "--records", "csv:ts", path)
    assert status == 1
    assert [line.split(": invalid")[0] for line in out.splitlines() if "invalid at" in line] == [
        f"{path}:2", f"{path}:3", f"{path}:7 (record 4)"]
    status, objects, _err = check_json(capsys, DATETIME, "--records", "csv:ts", path)
    assert found(objects, "record", "line") == [(1, 2), (2, 3), (4, 7)]
    assert objects[-1]["records"] == 4  # the blank line is no record


def test_csv_blank_lines_are_no_records(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f"ts\n{GOOD}\n\n\r\n{GOOD}\n\n")
    status, objects, _err = check_json(capsys, DATETIME, "--records", "csv:ts", path)
    assert status == 0 and objects == [{**objects[0], "records": 2, "invalid": 0}]


def test_csv_byte_order_mark(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f"\ufeffts,id\n{GOOD},1\nbad,2\n".encode())
    status, objects, _err = check_json(capsys, DATETIME, "--records", "csv:ts", path)
    assert status == 1 and found(objects, "record", "line", "offset") == [(2, 3, 0)]


def test_csv_long_fields(capsys, tmp_path: Path) -> None:
    long = "x" * (200 << 10)
    path = write(tmp_path, "t.csv", f'ts,note\n{GOOD},"{long}"\n{long},\n')
    status, objects, err = check_json(capsys, DATETIME, "--records", "csv:ts", path)
    assert status == 1 and err == "" and found(objects, "record", "offset") == [(2, 0)]


def test_csv_a_quote_never_closed(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f'id,ts\n1,{GOOD}\n2,"{GOOD}\n3,{GOOD}\n4,{GOOD}\n')
    status, _out, err = check(capsys, DATETIME, "--records", "csv:ts", path)
    assert status == 2
    assert err.strip() == f"{path}: line 5: not CSV: a quote in the record that starts on line 3 is never closed"


def test_tsv_with_delimiter(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.tsv", f"id\tts\n1\t{GOOD}\n2\t{GOOD[:10]}, x\n")
    for delimiter in ("\t", "\\t", "tab"):
        status, objects, _err = check_json(capsys, DATETIME, "--records", "csv:ts", "--delimiter", delimiter, path)
        assert status == 1 and found(objects, "record", "offset") == [(2, 10)]
    status, _out, err = check(capsys, DATETIME, "--records", "csv:ts", path)
    assert status == 2 and "no column ts; the header has id\tts" in err
    status, _out, err = check(capsys, DATETIME, "--records", "lines", "--delimiter", "tab", path)
    assert status == 2 and "--delimiter needs --records csv:COLUMN" in err
    status, _out, err = check(capsys, DATETIME, "--delimiter", "tab", path)
    assert status == 2 and "--delimiter needs --records" in err
    with pytest.raises(SystemExit) as exit_:
        check(capsys, DATETIME, "--records", "csv:ts", "--delimiter", "ab", path)
    assert exit_.value.code == 2 and "not one character" in capsys.readouterr().err


# Compressed files

def test_gzip_is_read_as_what_it_holds(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = f"{GOOD}\nbad\n{GOOD}\n"
    plain = check_json(capsys, DATETIME, "--records", "lines", write(tmp_path, "t.txt", text))[1][:-1]
    path = write(tmp_path, "t.txt.gz", gzip.compress(text[:10].encode()) + gzip.compress(text[10:].encode()))
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", path)
    assert status == 1 and [{**o, "file": ""} for o in objects[:-1]] == [{**o, "file": ""} for o in plain]
    csv_gz = write(tmp_path, "t.csv.gz", gzip.compress(f"ts\n{GOOD}\nbad\n".encode()))
    status, objects, _err = check_json(capsys, DATETIME, "--records", "csv:ts", csv_gz)
    assert status == 1 and found(objects, "record", "line") == [(2, 3)]
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(gzip.compress(text.encode()))))
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", "-")
    assert status == 1 and found(objects, "record") == [(2,)]


def test_damaged_gzip(capsys, tmp_path: Path) -> None:
    whole = gzip.compress((f"{GOOD}\n" * 1000).encode())
    for data in (whole[: len(whole) // 2], whole[:20] + bytes(len(whole) - 20)):
        status, _out, err = check(capsys, DATETIME, "--records", "lines", write(tmp_path, "t.gz", data))
        assert status == 2 and "cannot read" in err and "internal error" not in err


def test_zstd(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zstd = b"\x28\xb5\x2f\xfd" + b"\x00" * 16
    path = write(tmp_path, "t.zst", zstd)
    monkeypatch.setitem(sys.modules, "zstandard", None)
    status, out, err = check(capsys, DATETIME, "--records", "lines", path)
    assert status == 2 and out == ""
    assert err.strip() == (f"{path} is compressed with zstd, and reading it needs the zstandard package: "
                           "pip install zstandard (or decompress it first: zstd -d)")

    class Decompressor:  # the zstandard package as far as abnfc uses it
        def stream_reader(self, stream, read_across_frames, closefd):
            assert stream.read() == zstd and read_across_frames and not closefd
            return io.BytesIO(f"{GOOD}\nbad\n".encode())

    monkeypatch.setitem(sys.modules, "zstandard", types.SimpleNamespace(ZstdDecompressor=Decompressor,
                                                                        ZstdError=ValueError))
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", path)
    assert status == 1 and found(objects, "record") == [(2,)]


# The report and the totals

def test_no_summary_when_no_file_could_be_read(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f"id\n{GOOD}\n")
    status, out, err = check(capsys, DATETIME, "--records", "csv:ts", path)
    assert status == 2 and out == "" and "no column ts" in err
    status, out, err = check(capsys, DATETIME, "--records", "csv:ts", "--format", "json", path)
    assert status == 2 and out == ""


def test_totals_keep_the_records_of_a_file_that_fails_later(capsys, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from abnfc.records import formats

    monkeypatch.setattr(formats, "BLOCK_RECORDS", 2)
    good = write(tmp_path, "good.jsonl", f'{{"ts": "{GOOD}"}}\n')
    failing = write(tmp_path, "f.jsonl", '{"ts": "bad"}\n' * 40 + "not json\n")
    status, objects, err = check_json(capsys, DATETIME, "--records", "jsonl:ts", good, failing)
    assert status == 2 and "f.jsonl: record 41: not JSON" in err
    shown = len(objects) - 1
    assert shown >= 2 and objects[-1]["records"] == 1 + shown and objects[-1]["invalid"] == shown


def test_file_names_are_escaped_in_text(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "a\nb\x1b[31m.txt", "bad\n")
    status, out, _err = check(capsys, DATETIME, "--records", "lines", path)
    shown = path.replace("\n", "\\n").replace("\x1b", "\\x1b")
    assert status == 1 and "\x1b" not in out
    assert out.splitlines()[0].startswith(f"{shown}:1: invalid at offset 0")
    assert out.splitlines()[2] == f"{shown}: 1 record, 1 invalid"
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", path)
    assert objects[0]["file"] == path  # JSON escapes it itself


# Parquet

def _pyarrow():
    return pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")


def _strings(pa, values: list[bytes]):
    """A string array holding ``values`` as they are, UTF-8 or not (pyarrow checks nothing here)."""
    offsets = [0]
    for value in values:
        offsets.append(offsets[-1] + len(value))
    return pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(struct.pack(f"<{len(offsets)}i",
                                                                                          *offsets)),
                                                              pa.py_buffer(b"".join(values))])


@pytest.mark.parametrize(("grammar", "values", "invalid"), [
    (UTF8, [b"ok", b"a\xffb", b"caf\xc3\xa9"], [(2, 1)]),
    (JSON, [b'"ok"', b'"a\xff"', b"[1]"], [(2, 2)]),  # a pushdown validator's
])
def test_parquet_strings_that_are_not_utf8(capsys, tmp_path: Path, grammar: str, values: list[bytes],
                                           invalid: list[tuple[int, int]]) -> None:
    pa, pq = _pyarrow()
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"v": _strings(pa, values)}), path)
    for options in ([], ["--engine", "interpreter"]):
        status, objects, err = check_json(capsys, grammar, *options, "--records", "parquet:v", path)
        assert status == 1 and err == "" and found(objects, "record", "offset") == invalid
        status, objects, err = check_json(capsys, grammar, *options, "--records", "parquet:v", "--count", path)
        assert status == 1 and objects[-1]["invalid"] == len(invalid)


def test_parquet_strings_that_are_not_utf8_without_a_compiler(capsys, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pa, pq = _pyarrow()
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"v": _strings(pa, [b"ok", b"a\xffb"])}), path)
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setenv("PATH", str(tmp_path))
    status, objects, _err = check_json(capsys, UTF8, "--records", "parquet:v", path)
    assert status == 1 and found(objects, "record", "offset") == [(2, 1)]


def test_parquet_duplicate_column_names(capsys, tmp_path: Path) -> None:
    pa, pq = _pyarrow()
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.Table.from_arrays([pa.array([GOOD]), pa.array(["bad"])], names=["ts", "ts"]), path)
    for column in ("ts", "2"):
        status, out, err = check(capsys, DATETIME, "--records", f"parquet:{column}", path)
        assert status == 2 and out == ""
        assert err.strip() == f"{path}: 2 columns are named ts, and they cannot be told apart"


def test_parquet_damaged_pages(capsys, tmp_path: Path) -> None:
    """Bytes of the pages changed one at a time: where pyarrow cannot read the column, abnfc says
    so, exit 2, and never has an internal error (ArrowInvalid, OSError)."""
    pa, pq = _pyarrow()
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"ts": [GOOD] * 100, "n": list(range(100))}), whole)
    data = whole.read_bytes()
    kinds = set()
    for position in range(4, 64):
        damaged = bytearray(data)
        damaged[position] = 0 if data[position] else 0xFF
        try:
            for _batch in pq.ParquetFile(io.BytesIO(damaged)).iter_batches(columns=["ts"]):
                pass
            continue
        except Exception as error:  # what pyarrow raises for this damage
            kinds.add(type(error).__name__)
        path = write(tmp_path, "d.parquet", bytes(damaged))
        status, _out, err = check(capsys, DATETIME, "--records", "parquet:ts", path)
        assert status == 2 and "cannot read" in err and "internal error" not in err, (position, err)
    assert kinds  # some damage was seen by pyarrow


# Arrow arrays handed to validate_arrow

MALFORMED = """
import struct, sys
import pyarrow as pa
import abnfc
from abnfc.errors import AbnfError

validator = abnfc.load_validator(abnfc.load_grammar(text=sys.argv[2]), sys.argv[1])
offsets = pa.py_buffer(struct.pack("<4i", 0, 100_000_000, 1, 2))
values = pa.Array.from_buffers(pa.string(), 3, [None, offsets, pa.py_buffer(b"aaaa")])
values.validate()  # pyarrow's cheap check finds nothing
try:
    validator.validate_arrow(values)
except AbnfError as error:
    print(error)
"""


@pytest.mark.parametrize(("lang", "grammar"), [("c", "r = *%x61\\n"), ("python", "r = *%x61\\n"),
                                               ("c", 'r = "(" [r] ")" / %x61\\n')])
def test_arrow_offsets_are_checked(lang: str, grammar: str) -> None:
    """An array whose offsets decrease and point past its data: refused with a message (it was
    read out of bounds, a crash, hence a process of its own)."""
    result = subprocess.run([sys.executable, "-c", MALFORMED, lang, grammar.replace("\\n", "\n")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "a string array has offsets out of order or outside its data buffer" in result.stdout


@pytest.mark.parametrize("lang", ["c", "python"])
def test_validate_arrow_takes_strings_as_bytes(lang: str) -> None:
    pa, _pq = _pyarrow()
    import abnfc

    values = _strings(pa, [b"ok", b"a\xffb", b"caf\xc3\xa9"])
    validator: Any = abnfc.load_validator(UTF8, lang)
    assert validator.validate_arrow(values).to_pylist() == [True, False, True]
    assert validator.validate_arrow(values.slice(1)).to_pylist() == [False, True]
    pushdown: Any = abnfc.load_validator(JSON, lang)
    assert pushdown.validate_arrow(_strings(pa, [b'"a\xff"', b"[1]"])).to_pylist() == [False, True]


# Errors that survive pickling, copying and Polars

def _errors() -> list[Exception]:
    from abnfc.automata.pushdown import NestingError
    from abnfc.backends.c.runner import NestingError as CNestingError
    from abnfc.interpret import WorkLimitError
    from abnfc.records.formats import RecordError

    return [AbnfError.at(None, "a message", "a note"), LimitError.at(None, "too big"), RecordError.at(None, "t.csv"),
            NestingError(3, 4), CNestingError(3, 4), WorkLimitError(1, 2, 3)]


@pytest.mark.parametrize("way", ["copy", "deepcopy", "pickle"])
def test_errors_survive_pickling(way: str) -> None:
    again = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": lambda e: pickle.loads(pickle.dumps(e))}[way]
    for error in _errors():
        copied = again(error)
        assert type(copied) is type(error) and str(copied) == str(error) and vars(copied) == vars(error)


def test_errors_made_again_from_their_message() -> None:
    """Polars remakes what a batch function raises as ``type(error)(message)``."""
    for error in _errors():
        remade = type(error)(f"{error}\n\nThis error occurred in the following expression")
        assert type(remade) is type(error) and str(remade).startswith(str(error)), (str(remade), str(error))


def test_polars_shows_the_errors_message() -> None:
    pl = pytest.importorskip("polars")
    pytest.importorskip("pyarrow")
    import abnfc.polars
    from abnfc.automata.pushdown import NestingError

    frame = pl.DataFrame({"n": [1, 2], "s": ["(" * 200_000 + "a" + ")" * 200_000, "a"]})
    grammar = abnfc.load_grammar(text='r = "(" [r] ")" / %x61\n')
    with pytest.raises(AbnfError, match="validate_arrow takes a string"):
        frame.select(abnfc.polars.is_valid(pl.col("n"), grammar))
    with pytest.raises(NestingError, match="nests deeper than 100000"):
        frame.select(abnfc.polars.is_valid(pl.col("s"), grammar))


def test_file_names_are_escaped_by_plain_check(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "a\nb\x1b.txt", "x")
    status, out, _err = check(capsys, DATETIME, path)
    assert status == 1 and out.startswith(f"{tmp_path}/a\\nb\\x1b.txt: invalid at offset 0")
    status, _out, err = check(capsys, DATETIME, str(tmp_path / "gone\n.txt"))
    assert status == 2 and err.startswith(f"abnfc: cannot read {tmp_path}/gone\\n.txt: ")
