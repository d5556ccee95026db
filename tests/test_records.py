"""``abnfc check --records``: every record format, bad inputs, the text and JSON reports, exit
statuses, the cache of the batch kernel, the fallbacks (no C compiler, grammars without a DFA),
and the batch kernel against the generated Python module's first_error on random records."""
from __future__ import annotations

import io
import random
import sys
from array import array
from pathlib import Path
from typing import Any

import pytest
from helpers.cache import kernel_cache
from helpers.paths import GRAMMARS
from helpers.records import check, check_json, write

import abnfc
from abnfc import native
from abnfc.native import batch
from abnfc.records import report

DATETIME = str(GRAMMARS / "datetime.abnf")
GOOD = "2020-01-01T00:00:00Z"


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory):
    yield from kernel_cache(tmp_path_factory)


def test_lines_crlf_last_line_and_nul(capsys, tmp_path: Path) -> None:
    data = f"{GOOD}\r\nbad\n{GOOD[:18]}\x00Z\n\n{GOOD}".encode()
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", write(tmp_path, "t.txt", data))
    assert status == 1
    assert objects == [
        {"file": str(tmp_path / "t.txt"), "record": 2, "offset": 0, "expected": [[48, 57]]},
        {"file": str(tmp_path / "t.txt"), "record": 3, "offset": 18, "expected": [[48, 57]]},
        {"file": str(tmp_path / "t.txt"), "record": 4, "offset": 0, "expected": [[48, 57]]},
        {"records": 5, "invalid": 3, "seconds": objects[-1]["seconds"]},
    ]


def test_text_report(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.txt", f"{GOOD}\n2020-01-01T00:00:0x0Z\n2020-01\n")
    status, out, _err = check(capsys, DATETIME, "--records", "lines", path)
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == (f"{path}:2: invalid at offset 18: unexpected byte 0x78 'x'; expected %x30-39 ('0'-'9')")
    assert lines[1] == "  ...20-01-01T00:00:0[x]0Z"
    assert lines[2].startswith(f"{path}:3: invalid at offset 7: unexpected end of input; expected %x2D ('-')")
    assert lines[3] == "  2020-01[end]"
    assert lines[4] == f"{path}: 3 records, 2 invalid"
    assert lines[5].startswith("3 records, 2 invalid, ")
    status, quiet, _err = check(capsys, DATETIME, "--records", "lines", "-q", path)
    assert quiet.splitlines() == [*lines[:4], quiet.splitlines()[-1]]


def test_excerpt_escapes_and_cuts() -> None:
    assert report.excerpt(b"\x00\xff" + b"a" * 40, 20) == "...aaaaaaaaaaaaaaaa[a]aaaaaaaaaaaaaaaa..."
    assert report.excerpt(b"\x00\xff\n'", 1) == "\\x00[\\xff]\\n'"


def test_valid_empty_and_several_files(capsys, tmp_path: Path) -> None:
    good = write(tmp_path, "good.txt", f"{GOOD}\n{GOOD}\n")
    empty = write(tmp_path, "empty.txt", b"")
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", good, empty)
    assert status == 0
    assert objects[-1]["records"] == 2 and objects[-1]["invalid"] == 0


def test_missing_file_and_bad_options(capsys, tmp_path: Path) -> None:
    status, out, err = check(capsys, DATETIME, "--records", "lines", str(tmp_path / "nothing.txt"))
    assert status == 2 and "cannot read" in err and "nothing.txt" in err and "Traceback" not in err
    assert out == ""  # no summary after nothing could be read
    with pytest.raises(SystemExit) as exit_:
        check(capsys, DATETIME, "--records", "csv", str(tmp_path / "x.csv"))
    assert exit_.value.code == 2 and "csv:COLUMN" in capsys.readouterr().err
    status, _out, err = check(capsys, DATETIME, "--format", "json", write(tmp_path, "t.txt", GOOD))
    assert status == 2 and "--records" in err


def test_csv_by_name_and_number(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f'id,ts\n1,{GOOD}\n2,"2020-01-01T00:00:00\nZ"\n3\n4,\n')
    for column in ("ts", "2"):
        status, objects, _err = check_json(capsys, DATETIME, "--records", f"csv:{column}", path)
        assert status == 1
        assert [(o.get("record"), o.get("offset"), o.get("reason")) for o in objects[:-1]] == [
            (2, 19, None), (3, None, f"the row has no column {column}"), (4, 0, None)]
        assert objects[-1]["records"] == 4 and objects[-1]["invalid"] == 3


def test_csv_missing_column(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f"id,ts\n1,{GOOD}\n")
    status, _out, err = check(capsys, DATETIME, "--records", "csv:when", path)
    assert status == 2 and "no column when" in err and "id, ts" in err
    status, _out, err = check(capsys, DATETIME, "--records", "csv:3", path)
    assert status == 2 and "no column 3" in err


def test_jsonl(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", f'{{"ts": "{GOOD}"}}\n{{"ts": null}}\n\n{{"other": 1}}\n{{"ts": "x\\u0000"}}\n')
    status, objects, _err = check_json(capsys, DATETIME, "--records", "jsonl:ts", path)
    assert status == 1
    assert [(o.get("record"), o.get("offset"), o.get("reason")) for o in objects[:-1]] == [
        (2, None, "null value"), (4, None, "missing field ts"), (5, 0, None)]
    assert objects[-1]["records"] == 4


@pytest.mark.parametrize(("text", "message"), [
    ('{"ts": "ok"}\n{"ts": 5}\n', "record 2: field ts is int, not a string"),
    ('{"ts": "ok"}\n[1]\n', "record 2: not a JSON object"),
    ('{"ts": "ok"}\n{"ts": \n', "record 2: not JSON"),
])
def test_jsonl_errors(capsys, tmp_path: Path, text: str, message: str) -> None:
    status, _out, err = check(capsys, DATETIME, "--records", "jsonl:ts", write(tmp_path, "t.jsonl", text))
    assert status == 2 and message in err and "Traceback" not in err


def test_parquet(capsys, tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"n": [1, 2, 3, 4], "ts": [GOOD, None, "bad", GOOD],
                             "b": pa.array([GOOD.encode(), b"\x00", None, b""], pa.large_binary())}), path)
    status, objects, _err = check_json(capsys, DATETIME, "--records", "parquet:ts", path)
    assert status == 1
    assert [(o.get("record"), o.get("offset"), o.get("reason")) for o in objects[:-1]] == [
        (2, None, "null value"), (3, 0, None)]
    status, objects, _err = check_json(capsys, DATETIME, "--records", "parquet:3", path)
    assert [(o.get("record"), o.get("offset")) for o in objects[:-1]] == [(2, 0), (3, None), (4, 0)]
    status, _out, err = check(capsys, DATETIME, "--records", "parquet:n", path)
    assert status == 2 and "column n holds int64" in err
    views = str(tmp_path / "views.parquet")  # string_view, as Polars writes it
    pq.write_table(pa.table({"ts": pa.array([GOOD, None, "bad", "x" * 30], pa.string_view())}), views)
    status, objects, _err = check_json(capsys, DATETIME, "--records", "parquet:ts", views)
    assert [(o.get("record"), o.get("offset")) for o in objects[:-1]] == [(2, None), (3, 0), (4, 0)]
    status, _out, err = check(capsys, DATETIME, "--records", "parquet:ts", write(tmp_path, "no.parquet", "text"))
    assert status == 2 and "not a Parquet file" in err


def test_parquet_without_pyarrow(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)
    status, _out, err = check(capsys, DATETIME, "--records", "parquet:ts", write(tmp_path, "t.parquet", b"PAR1"))
    assert status == 2 and "pip install pyarrow" in err


def test_kernel_is_cached(capsys, tmp_path: Path, cache: Path) -> None:
    grammar = write(tmp_path, "g.abnf", 'r = 1*"a"\n')
    path = write(tmp_path, "t.txt", "aa\nab\n")
    before = set(cache.glob("*.so"))
    assert check(capsys, grammar, "--records", "lines", path)[0] == 1
    built = set(cache.glob("*.so")) - before
    assert len(built) == 1
    assert check(capsys, grammar, "--records", "lines", path)[0] == 1
    assert set(cache.glob("*.so")) - before == built  # found again
    write(tmp_path, "g.abnf", 'r = 1*"b"\n')
    assert check(capsys, grammar, "--records", "lines", path)[0] == 1
    assert len(set(cache.glob("*.so")) - before) == 2  # another grammar text, another key


def test_no_compiler_falls_back_to_python(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "t.txt", f"{GOOD}\nbad\n{GOOD}x\n")
    expected = check_json(capsys, DATETIME, "--records", "lines", path)[1][:-1]
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setenv("PATH", str(tmp_path))
    status, objects, err = check_json(capsys, DATETIME, "--records", "lines", path, path)
    assert status == 1 and objects[:-1] == expected * 2
    assert err.count("no C compiler found") == 1


def test_grammars_without_a_dfa(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "t.txt", '{"a": [1, 2]}\n[1,\n"x"\n')
    for engine in ("auto", "interpreter"):
        status, objects, _err = check_json(capsys, str(GRAMMARS / "json.abnf"), "--engine", engine,
                                           "--records", "lines", path)
        assert status == 1
        assert [(o["record"], o["offset"]) for o in objects[:-1]] == [(2, 3)]
        assert objects[0]["expected"]


def test_self_embedding_grammars_through_the_c_pushdown_validator(capsys, tmp_path: Path) -> None:
    """JSON's pushdown validator in the batch kernel: the same report as the Python pushdown
    engine (offsets, expected bytes with the closing ones, too deep nesting refused with its
    reason) and the counts; a cached kernel is a pushdown one again."""
    from abnfc.engines import choose_engine
    from abnfc.pipeline import Compilation
    from abnfc.records.verify import Choice, EngineVerifier, PushdownCVerifier, choose, say_once

    grammar = str(GRAMMARS / "json.abnf")
    deep = "[" * 100_001 + "]" * 100_001
    lines = ['{"a": [1, 2]}', "[1,", '"x"', deep, "[true, {}]", "{", '"caf\u00e9"', "nul"] * 50
    path = write(tmp_path, "t.jsonl", "\n".join(lines) + "\n")
    status, objects, _err = check_json(capsys, grammar, "--records", "lines", path)
    assert status == 1
    compiled = Compilation(abnfc.load_grammar(GRAMMARS / "json.abnf"))
    python = EngineVerifier(choose_engine(compiled, "auto"))
    wanted = []
    for i, line in enumerate(lines):
        bad = python.check(i, line.encode())  # and then its expected bytes, once
        if bad is not None:
            ranges = [list(r) for r in python.expected(bad.record)] if bad.offset is not None else []
            wanted.append((i + 1, bad.offset, bad.reason, ranges))
    assert [(o["record"], o["offset"], o.get("reason"), o["expected"]) for o in objects[:-1]] == wanted
    assert [o["record"] for o in objects[:4]] == [2, 4, 6, 8]  # "[1,", the deep one, "{", "nul"
    assert "nests deeper than 100000" in str(objects[1].get("reason")) and objects[1]["offset"] is None
    status, counted, _err = check_json(capsys, grammar, "--records", "lines", "--count", path)
    assert counted[0]["invalid"] == len(wanted) == 4 * 50
    choice = Choice(grammar, (), None, None, "auto", (1 << 16, 1 << 16, 1 << 26))
    for _time in range(2):  # built, then from the cache
        verifier = choose(choice, lambda: compiled, say_once())
        assert isinstance(verifier, PushdownCVerifier)


def test_progress_bar(tmp_path: Path) -> None:
    """rich's bar on a terminal after the first second: the records, the invalid ones and the
    part read; nothing before that second or off a terminal; erased at the end."""
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    progress = report.Progress(1000, terminal)
    progress.update(10, 1, 100)
    assert progress.bar is None and terminal.getvalue() == ""  # not within the first second
    progress.started -= 2
    progress.update(1_234_567, 12, 500)
    bar: Any = progress.bar
    bar.refresh()
    shown = terminal.getvalue()
    assert "checking: 1,234,567 records, 12 invalid" in shown and "50%" in shown
    progress.next_file(write(tmp_path, "a.txt", "x" * 300))
    progress.update(1_234_568, 12, 100)
    assert bar.tasks[0].completed == 400
    progress.done()
    assert progress.bar is None and terminal.getvalue().endswith("\x1b[2K")  # its line erased
    quiet = report.Progress(None, io.StringIO())
    quiet.started -= 2
    quiet.update(1, 0)
    assert quiet.bar is None


# The batch kernel against the generated Python module, on random records.

def mutations(rng: random.Random, samples: list[bytes], count: int) -> list[bytes]:
    records = []
    for _ in range(count):
        record = bytearray(rng.choice(samples))
        for _edit in range(rng.randrange(3)):
            at = rng.randrange(len(record) + 1)
            choice = rng.randrange(3)
            if choice == 0:
                record[at:at] = bytes([rng.randrange(256)])
            elif choice == 1:
                del record[at: at + 1]
            else:
                record[at: at + 1] = bytes([rng.choice(b"09:-.TZ/%[]@\x00\xc3\xa9\x80")])
        records.append(bytes(record))
    return records


SAMPLES = {
    "datetime.abnf": [GOOD.encode(), b"1999-12-31t23:59:60.123+05:30", b"2000-02-29T00:00:00z"],
    "uri.abnf": [b"http://user@[::1]:80/a/b?q=1#f", b"mailto:a@b.c", b"../x/%20y", b"//h/", b"",
                 b"urn:isbn:0-4", b"http://[v1.x]/", b"ftp://192.168.0.255/p"],
    "utf8.abnf": ["Grüße, 日本, 😀".encode(), b"abc", b"\xed\x9f\xbf\xf4\x8f\xbf\xbf"],
}


@pytest.mark.parametrize("grammar", sorted(SAMPLES))
def test_batch_agrees_with_python(grammar: str) -> None:
    python = abnfc.load_validator(GRAMMARS / grammar, lang="python")
    files = abnfc.generate_files(GRAMMARS / grammar, "c", prefix="validator")
    cc = native.find_compiler()
    assert cc is not None
    kernel = batch.build(cc, None, files)
    rng = random.Random(grammar)
    records = [*mutations(rng, SAMPLES[grammar], 3000), b"", b"\n", b"\r"]
    wanted = [python.first_error(record) for record in records]
    offsets = array("Q", [0])
    for record in records:
        offsets.append(offsets[-1] + len(record))
    found = kernel.first_errors(b"".join(records), offsets)
    assert [None if at == native.SIZE_MAX else at for at in found] == wanted
    lines = [record for record in records if b"\n" not in record and not record.endswith(b"\r")]
    count, bad = kernel.line_errors(b"\r\n".join(lines) + b"\n")
    assert count == len(lines)
    assert [(index, at) for index, at, _start, _end, _state in bad] == [
        (i, at) for i, record in enumerate(lines) for at in [python.first_error(record)] if at is not None]
    for index, _at, _start, _end, state in bad[:200]:  # the state at the error gives the expected bytes
        stream = python.Validator()
        stream.feed(lines[index])
        assert kernel.expected_in(state) == tuple(stream.expected())
    for record in records[:200]:
        at = python.first_error(record)
        if at is not None:
            state = python.Validator()
            state.feed(record)
            assert kernel.expected(record) == tuple(state.expected())


def test_many_invalid_lines_in_one_block() -> None:
    """More invalid lines than one call of P_line_errors reports (MAX_BAD): the calls go on."""
    files = abnfc.generate_files(GRAMMARS / "datetime.abnf", "c", prefix="validator")
    cc = native.find_compiler()
    assert cc is not None
    kernel = batch.build(cc, None, files)
    data = b"".join(b"bad\n" if i % 2 else GOOD.encode() + b"\n" for i in range(3 * native.MAX_BAD))
    count, bad = kernel.line_errors(data)
    assert count == 3 * native.MAX_BAD
    assert [index for index, _at, _start, _end, _state in bad] == list(range(1, 3 * native.MAX_BAD, 2))
    assert all(data[start:end] == b"bad" for _index, _at, start, end, _state in bad)


def test_standard_input_and_start_rule(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"2020\n1\n")))
    status, objects, _err = check_json(capsys, DATETIME, "--start", "date-fullyear", "--records", "lines", "-")
    assert status == 1
    assert objects[:-1] == [{"file": "<stdin>", "record": 2, "offset": 1, "expected": [[48, 57]]}]


def test_bytes_that_are_not_utf8_reach_the_grammar(capsys, tmp_path: Path) -> None:
    """A CSV value's bytes are checked as they are in the file (not decoded and re-encoded), and
    a JSON string's lone surrogate as the three bytes Python's surrogatepass gives it."""
    utf8 = str(GRAMMARS / "utf8.abnf")
    path = write(tmp_path, "t.csv", b"v\nok\na\xffb\n\"x\x00\xc3\xa9\"\n")
    status, objects, _err = check_json(capsys, utf8, "--records", "csv:v", path)
    assert status == 1 and [(o.get("record"), o.get("offset")) for o in objects[:-1]] == [(2, 1)]
    path = write(tmp_path, "t.jsonl", '{"v": "caf\\u00e9"}\n{"v": "a\\ud800"}\n')
    status, objects, _err = check_json(capsys, utf8, "--records", "jsonl:v", path)
    assert status == 1 and [(o.get("record"), o.get("offset")) for o in objects[:-1]] == [(2, 2)]


def test_count_prints_only_the_numbers(capsys, tmp_path: Path) -> None:
    """--count: the same numbers as the full report, per file and in all, and no record; the
    kernel counts lines itself (more than one call of P_line_errors here)."""
    rng = random.Random(5)
    lines = [GOOD if rng.random() < 0.6 else rng.choice(["bad", "", GOOD[:7], GOOD + "x"])
             for _ in range(3 * native.MAX_BAD)]
    first = write(tmp_path, "a.txt", "\r\n".join(lines))
    second = write(tmp_path, "b.txt", "x\n")
    invalid = sum(line != GOOD for line in lines)
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", first, second)
    assert status == 1 and len(objects) == invalid + 2
    assert objects[-1]["records"] == len(lines) + 1 and objects[-1]["invalid"] == invalid + 1
    status, out, _err = check(capsys, DATETIME, "--records", "lines", "--count", first, second)
    assert status == 1
    assert out.splitlines()[:2] == [f"{first}: {len(lines):,} records, {invalid:,} invalid",
                                    f"{second}: 1 record, 1 invalid"]
    assert out.splitlines()[2].startswith(f"{len(lines) + 1:,} records, {invalid + 1:,} invalid, ")
    csv_file = write(tmp_path, "c.csv", f"id,ts\n1,{GOOD}\n2,bad\n3\n")  # the short row has no column 2
    status, objects, _err = check_json(capsys, DATETIME, "--records", "csv:2", csv_file)
    status, counted, _err = check_json(capsys, DATETIME, "--records", "csv:2", "--count", csv_file)
    assert status == 1 and len(objects) == 3 and counted[0]["invalid"] == objects[-1]["invalid"] == 2
    status, _out, err = check(capsys, DATETIME, "--count", first)
    assert status == 2 and "--count needs --records" in err


def test_blocks_checked_on_threads_keep_their_order(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many small blocks through the thread pool: the records are numbered and reported in the
    file's order, and the counts agree with the full report."""
    from abnfc.records import formats

    monkeypatch.setattr(formats, "LINES_PIECE", 256)  # a block every few lines
    rng = random.Random(11)
    lines = [GOOD if rng.random() < 0.7 else GOOD[: rng.randrange(len(GOOD))] for _ in range(2000)]
    path = write(tmp_path, "many.txt", "\n".join(lines) + "\n")
    status, objects, _err = check_json(capsys, DATETIME, "--records", "lines", path)
    assert status == 1
    assert [o["record"] for o in objects[:-1]] == [i + 1 for i, line in enumerate(lines) if line != GOOD]
    status, counted, _err = check_json(capsys, DATETIME, "--records", "lines", "--count", path)
    assert counted[0]["records"] == len(lines) and counted[0]["invalid"] == len(objects) - 1
