"""The C record readers (``native/static/readers.c``) against Python's csv and json modules:
every CSV and JSON Lines file, tricky or random, must give the same blocks (records, missing ones
with their reasons, record and line numbers) and the same error, with the same blocks before it,
whether the C readers split it or Python's modules alone (``read_blocks`` without readers).
Small blocks and small pieces put block and piece boundaries everywhere."""
from __future__ import annotations

import io
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cache import kernel_cache

from abnfc.native import readers as native_readers
from abnfc.records import formats
from abnfc.records.formats import RecordError, RecordFormat, read_blocks


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory):
    yield from kernel_cache(tmp_path_factory)


@pytest.fixture(scope="module")
def readers() -> native_readers.Readers:
    found = native_readers.readers()
    if found is None:
        pytest.skip("no C compiler")
    return found


def outcome(data: bytes, form: RecordFormat, readers: native_readers.Readers | None) -> tuple[list, str | None]:
    """The blocks read from ``data`` (each as plain values) and the error that stopped them."""
    blocks, error = [], None
    try:
        for block in read_blocks(io.BytesIO(data), form, "f", readers):
            blocks.append((block.count, block.records(), list(block.missing),
                           [block.number(i, 0) for i in range(block.count or 0)],
                           [block.line(i) for i in range(block.count or 0)], block.lead))
    except RecordError as failure:
        error = failure.diagnostics[0].message
    return blocks, error


def same(data: bytes, form: RecordFormat, readers: native_readers.Readers) -> tuple[list, str | None]:
    """The outcome of ``data``, asserted the same with and without the C readers."""
    python = outcome(data, form, None)
    fast = outcome(data, form, readers)
    assert fast == python, data
    return fast


@pytest.fixture(params=[(65536, 8 << 20), (3, 7)], ids=["default", "small"])
def sizes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default block and piece sizes, and tiny ones: three records a block, seven bytes a piece."""
    records, piece = request.param
    monkeypatch.setattr(formats, "BLOCK_RECORDS", records)
    monkeypatch.setattr(formats, "LINES_PIECE", piece)


TS = b"2020-01-01T00:00:00Z"
JSONL = {
    "plain": b'{"ts": "a"}\n{"ts":"b"}\n',
    "escapes": b'{"ts": "\\u00e9\\n\\t\\"\\\\\\/\\b\\f\\r"}\n{"ts": "\\ud83d\\ude00 \\uD83D\\uDE00"}\n',
    "raw UTF-8": '{"ts": "caf\u00e9 \u6f22 \U0001f600"}\n'.encode(),
    "lone surrogates": b'{"ts": "\\ud800"}\n{"ts": "\\udc00x"}\n{"ts": "\\ud800\\u0041"}\n{"ts": "a\\ud800"}\n',
    "surrogates elsewhere": b'{"x": "\\ud800", "ts": "ok"}\n',
    "encoded surrogate": b'{"ts": "\xed\xa0\x80"}\n{"ts": "ok", "x": "\xed\xb0\x80"}\n',
    "invalid UTF-8": b'{"ts": "ok"}\n{"ts": "\xff"}\n',
    "invalid UTF-8 elsewhere": b'{"ts": "ok", "x": "\xc0\xaf"}\n',
    "overlong": b'{"ts": "\xe0\x80\xaf"}\n',
    "nulls and missing": b'{"ts": null}\n{"x": 1}\n{}\n{"ts": "a"}\n',
    "blank lines": b'\n   \n{"ts": "a"}\n\t\r\n\n{"ts": "b"}',
    "not JSON whitespace": b'{"ts": "a"}\n\x0c\n',
    "CRLF": b'{"ts": "a"}\r\n{"ts": "b"}\r\n',
    "bare CR": b'{"ts": "a"}\r{"ts": "b"}\n',
    "duplicates": b'{"ts": "bad", "ts": "good"}\n{"ts": null, "ts": "x"}\n{"ts": "x", "ts": null}\n'
                  b'{"ts": 1, "ts": "x"}\n{"ts": "x", "ts": 1}\n',
    "numbers": b'{"n": -0.5e+10, "m": 0, "o": 1E-2, "ts": "a"}\n{"n": 01, "ts": "a"}\n',
    "bad numbers": b'{"n": 1., "ts": "a"}\n',
    "NaN": b'{"n": NaN, "ts": "a"}\n{"n": -Infinity, "ts": "b"}\n',
    "number field": b'{"ts": "a"}\n{"ts": 5}\n',
    "true field": b'{"ts": true}\n',
    "object field": b'{"ts": {"a": "b"}}\n',
    "nested": b'{"a": [1, {"b": [true, false, null, "s"]}], "ts": "x", "c": {}}\n',
    "deep": (b'{"a": ' + b"[" * 63 + b"]" * 63 + b', "ts": "x"}\n'
             b'{"a": ' + b"[" * 64 + b"]" * 64 + b', "ts": "y"}\n'),
    "too deep": b'{"ts": "a"}\n{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b', "ts": "x"}\n{"ts": "b"}\n',
    "escaped key": b'{"\\u0074s": "a"}\n{"t\\u0073": "b", "ts": "c"}\n',
    "key in nested object": b'{"a": {"ts": "x"}}\n',
    "not an object": b'{"ts": "a"}\n["ts"]\n',
    "string document": b'"ts"\n',
    "extra data": b'{"ts": "a"} {"ts": "b"}\n',
    "trailing comma": b'{"ts": "a",}\n',
    "unclosed": b'{"ts": "a"\n',
    "control character": b'{"ts": "a\tb"}\n',
    "byte order mark": b'\xef\xbb\xbf{"ts": "a"}\n{"ts": "b"}\n',
    "UTF-16": '{"ts": "\u6f22\u6f22"}\n'.encode("utf-16-le") + b"\n",
    "NUL": b'{"ts": "a\\u0000"}\n{"ts": "\x00"}\n',
    "huge integer": b'{"n": ' + b"9" * 5000 + b', "ts": "a"}\n',
    "huge field": b'{"ts": "' + b"x" * (3 << 20) + b'"}\n{"ts": "y"}\n',
    "no final newline": b'{"ts": "a"}\n{"ts": "b"}',
    "whitespace everywhere": b' \t{ "ts" \t: \r "a" , "b" : [ 1 , 2 ] } \r\n',
    "bad escape": b'{"ts": "\\x"}\n',
    "bad unicode escape": b'{"x": "\\u12G4", "ts": "a"}\n',
    "empty": b"",
}


@pytest.mark.parametrize("name", JSONL)
def test_jsonl_tricky_files(readers, sizes, name: str) -> None:
    same(JSONL[name], RecordFormat("jsonl", "ts"), readers)


def test_jsonl_the_fast_path_reads_what_it_can(readers) -> None:
    """Not every line goes to Python: these are read by C alone, and give the same."""
    output = native_readers.Output(8)
    data = JSONL["escapes"] + JSONL["nested"] + b'{"ts": null}\n'
    scan = readers.jsonl(data, 0, b"ts", 1, output)
    assert scan.records == 4 and list(output.flags[:4]) == [0, 0, 0, 1]
    assert same(data, RecordFormat("jsonl", "ts"), readers)[0][0][1][1] == "\U0001f600 \U0001f600".encode()


@pytest.mark.parametrize("key", ["\u00e9", "", "a b", 't"s', "t\\s", "\u6f22\U0001f600"])
def test_jsonl_keys(readers, key: str) -> None:
    """Keys beyond ASCII letters, as raw UTF-8 in the file and escaped by json.dumps."""
    lines = [json.dumps({key: "a", "x": 1}, ensure_ascii=ascii).encode() for ascii in (False, True)]
    same(b"\n".join([*lines, b'{"ts": "b"}', json.dumps({key: None}).encode()]) + b"\n",
         RecordFormat("jsonl", key), readers)


def test_jsonl_misspelt_field_with_python_and_c_records(readers, sizes) -> None:
    form = RecordFormat("jsonl", "ts")
    lacking = b'{"id": 1}\n' * 999
    assert same(lacking + b'{"ts": "x"}\n' + lacking, form, readers)[1] is None
    assert "none of the first 1,000" in (same(lacking + b'{"id": 2}\n{"ts": "x"}\n', form, readers)[1] or "")
    assert same(b'{"ts": null}\n' + lacking * 2, form, readers)[1] is None


CSV = {
    "plain": b"id,ts\n1,a\n2,b\n",
    "quoted newlines": b'id,ts\n1,"a\nb"\n2,"c\r\nd"\n3,"e\rf"\n4,g\n',
    "byte order mark": b"\xef\xbb\xbfts,id\na,1\n",
    "two byte order marks": b"\xef\xbb\xbf\xef\xbb\xbfts,id\na,1\n",
    "blank lines": b"ts\n\na\n\r\n\rb\n\n",
    "header after blank lines": b"\n\nts\na\n",
    "CRLF": b"id,ts\r\n1,a\r\n2,b\r\n",
    "bare CR": b"id,ts\r1,a\r2,b\r",
    "short rows": b"id,ts\n1\n2,\n3,x,y\n",
    "doubled quotes": b'id,ts\n1,"a""b"\n2,""""\n3,""\n',
    "quote inside a field": b'id,ts\n1,a"b"\n2,a""\n',
    "after a closing quote": b'id,ts\n1,a\n2,"a"b\n3,c\n',
    "after a closing quote in another column": b'id,ts\n1,a\n"2"x,b\n',
    "quote never closed": b'id,ts\n1,a\n2,"a\n3,b\n4,c\n',
    "quote never closed in the header": b'id,"ts\n1,a\n',
    "after a closing quote in the header": b'id,"ts"x\n1,a\n',
    "no final newline": b"id,ts\n1,a\n2,b",
    "final CR": b"id,ts\n1,a\r",
    "empty": b"",
    "only a byte order mark": b"\xef\xbb\xbf",
    "only a header": b"id,ts",
    "invalid UTF-8": b"id,ts\n1,\xff\xfe\n2,\xed\xa0\x80\n",
    "UTF-8": "id,ts\n1,caf\u00e9\n2,\u6f22\n".encode(),
    "NUL": b"id,ts\n1,a\x00b\n",
    "huge field": b'id,ts\n1,"' + b"x" * (3 << 20) + b'"\n2,' + b"y" * (1 << 20) + b"\n",
    "empty fields": b'id,ts\n,\n,""\n""\n',
    "delimiter at the end": b"id,ts,\n1,a,\n",
}


@pytest.mark.parametrize("name", CSV)
@pytest.mark.parametrize("column", ["ts", "1", "2", "nothing"])
def test_csv_tricky_files(readers, sizes, name: str, column: str) -> None:
    same(CSV[name], RecordFormat("csv", column), readers)


@pytest.mark.parametrize("delimiter", ["\t", ";", " ", "x", "\u00e9"])
def test_csv_delimiters(readers, delimiter: str) -> None:
    text = f'id{delimiter}ts\n1{delimiter}a\n2{delimiter}"b{delimiter}c"\n3\n'.encode()
    same(text, RecordFormat("csv", "ts", delimiter), readers)


def test_csv_the_fast_path_reads_what_it_can(readers) -> None:
    output = native_readers.Output(8)
    scan = readers.csv(b'1,"a\nb"\n\n2\n3,c', 0, True, ord(","), 1, 1 << 30, 1, output)
    assert (scan.records, scan.lines, scan.python) == (3, 5, False)
    assert list(output.flags[:3]) == [0, 1, 0] and list(output.numbers[:3]) == [2, 5, 6]
    assert output.values() == b"a\nbc"


FRAGMENTS_JSON = [b'"ts"', b'"a"', b"null", b"1", b"-0.5e3", b"[", b"]", b"{", b"}", b":", b",", b" ", b"\t",
                  b"\r", b"\n", b'"\\u00e9"', b'"\\ud83d\\ude00"', b'"\\ud800"', b'"\\"', b"\xc3\xa9", b"\xff",
                  b'"x', b"true", b"NaN", b"\x0c", b"\xef\xbb\xbf", b'"\\n"', b'"t\\u0073"']


def random_jsonl(rng: random.Random) -> bytes:
    """Lines mostly of valid objects, some of them spoiled by random fragments."""
    lines = []
    for _ in range(rng.randrange(1, 12)):
        if rng.random() < 0.6:
            document = {"ts": rng.choice(["a", "\u00e9\n", None, 5, "\ud800", [1]]), "x": rng.choice([1, "y", {}])}
            if rng.random() < 0.2:
                del document["ts"]
            line = json.dumps(document, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
            if rng.random() < 0.3:
                at = rng.randrange(len(line) + 1)
                line = line[:at] + rng.choice(FRAGMENTS_JSON) + line[at:]
        else:
            line = b"".join(rng.choice(FRAGMENTS_JSON) for _ in range(rng.randrange(8)))
        lines.append(line)
    return b"\n".join(lines) + rng.choice([b"", b"\n", b"\r\n"])


def random_csv(rng: random.Random) -> bytes:
    pieces = [b"a", b"b", b",", b'"', b'""', b"\n", b"\r", b"\r\n", b";", b"\xef\xbb\xbf", b"\xff", b"\xc3\xa9", b" "]
    return b"ts,id\n" + b"".join(rng.choice(pieces) for _ in range(rng.randrange(40)))


@pytest.mark.parametrize("seed", range(40))
def test_random_files(readers, sizes, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        same(random_jsonl(rng), RecordFormat("jsonl", "ts"), readers)
        data = random_csv(rng)
        for column in ("ts", "2", "3"):
            same(data, RecordFormat("csv", column), readers)
            same(data, RecordFormat("csv", column, ";"), readers)


def test_readers_c_is_clean_under_sanitizers(tmp_path: Path) -> None:
    """readers.c compiled with AddressSanitizer and UBSan reads the tricky files of both formats
    without a report (run in a process of its own, where the sanitizer's runtime is loaded first)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    library = tmp_path / "readers.so"
    built = subprocess.run([cc, "-std=c99", "-O1", "-g", "-fPIC", "-shared", "-fsanitize=address,undefined",
                            "-fno-sanitize-recover=all", "-o", str(library), str(native_readers.READERS)],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"no sanitizers here: {built.stderr[-200:]}")
    runtime = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    files = [*JSONL.values(), *CSV.values()]
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps([data.decode("latin-1") for data in files]))
    script = f"""
import ctypes, json, sys
from abnfc.native import readers as r
lib = r.Readers(ctypes.CDLL({str(library)!r}))
for text in json.load(open({str(inputs)!r})):
    data = text.encode("latin-1")
    for start in range(0, min(len(data), 64)):
        lib.jsonl(data, start, b"ts", 1, r.Output(4))
        for final in (False, True):
            lib.csv(data, start, final, ord(","), 1, 1 << 30, 0, r.Output(4))
            lib.csv_row_end(data[start:], final, ord(","), 1 << 30)
print("clean")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "LD_PRELOAD": runtime, "ASAN_OPTIONS": "detect_leaks=0"})
    assert done.returncode == 0 and done.stdout.strip() == "clean", done.stderr[-3000:]
