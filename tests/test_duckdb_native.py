"""abnfc.duckdb's native function (a DuckDB extension in C) against the generated Python module:
values inlined in DuckDB's string_t (12 bytes at most) and behind a pointer, short and long,
NULLs, across vectors and row groups, on one thread and two; the Arrow function on a connection
that loads no unsigned extension, and the errors of native=True."""
from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import compile_text, python_module
from grammar_gen import mutations, sample
from helpers.cache import kernel_cache
from helpers.paths import GRAMMARS

from abnfc.errors import AbnfError
from abnfc.native import find_compiler

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("numpy")  # the Arrow function's
pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

DATETIME = GRAMMARS / "datetime.abnf"
NUMBER = 'number = 1*DIGIT ["." 1*DIGIT]\n'  # short values match too: inlined ones are checked
REPEAT = 60  # copies of the values in one table: more than one row group (122,880 rows), for threads


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from kernel_cache(tmp_path_factory)


def unsigned() -> Any:
    return duckdb.connect(config={"allow_unsigned_extensions": "true"})


def sampled(text: str, start: str | None, count: int, seed: int) -> list[str | None]:
    """Strings of the grammar, each with two mutations, and NULLs (as DuckDB holds them: UTF-8)."""
    rng = random.Random(seed)
    resolved = compile_text(text, start).resolved
    found: list[str | None] = []
    while len(found) < count:
        data = sample(resolved, rng)
        assert data is not None
        found.extend(item.decode("utf-8", "replace") for item in [data, *mutations(data, rng, 2)])
        if rng.random() < 0.05:
            found.append(None)
    return found[:count]


def edges() -> list[str | None]:
    """Numbers of 12 and 13 bytes (the last inlined, the first not), beyond the 512 bytes the
    extension copies (checked in place), the empty string, a bad byte at either end."""
    long = "7" * 100_000
    return ["", "1", "1.5", "123456789012", "1234567890123", "12345678901.", "x23456789012", "123456789012x",
            "1" * 512, "1" * 513, long, long + "x", "x" + long, "1." + long, "1.5.", None, "١٢"]


def expected(text: str, start: str | None, items: list[str | None]) -> list[bool | None]:
    module = python_module(text, start)
    return [None if item is None else module.is_valid(item.encode()) for item in items]


def table(connection: Any, items: list[str | None]) -> None:
    connection.execute("create table t (i integer, s varchar)")
    connection.executemany("insert into t values (?, ?)", list(enumerate(items)))


def answers(connection: Any, function: str) -> list[bool | None]:
    return [row[0] for row in connection.sql(f"select {function}(s) from t order by i").fetchall()]


def is_native(connection: Any) -> bool:
    return bool(connection.sql("select count(*) from duckdb_extensions() where loaded and "
                               "extension_name like 'abnfc_%'").fetchall()[0][0])


@pytest.mark.parametrize("threads", [1, 2])
def test_native_timestamps_agree_with_python(threads: int) -> None:
    import abnfc.duckdb

    items = sampled(DATETIME.read_text(encoding="utf-8"), "date-time", 6000, 3339) + edges()
    connection = unsigned()
    connection.execute(f"set threads = {threads}")
    abnfc.duckdb.register(connection, "is_timestamp", DATETIME, start="date-time")
    assert is_native(connection)
    table(connection, items)
    assert answers(connection, "is_timestamp") == expected(DATETIME.read_text(encoding="utf-8"), "date-time", items)


@pytest.mark.parametrize("threads", [1, 2])
def test_native_inline_long_and_null_values(threads: int) -> None:
    import abnfc.duckdb

    items = sampled(NUMBER, None, 5000, 5234) + edges()
    connection = unsigned()
    connection.execute(f"set threads = {threads}")
    grammar = abnfc.load_grammar(text=NUMBER)
    abnfc.duckdb.register(connection, "is_number", grammar, native=True)
    table(connection, items)
    wanted = expected(NUMBER, None, items)
    assert answers(connection, "is_number") == wanted
    # many row groups, so that both threads run the function
    counts = connection.sql("select count(*) filter (where is_number(s)), count(*) filter (where not is_number(s)), "
                            f"count(*) filter (where is_number(s) is null) from t, range({REPEAT})").fetchall()[0]
    assert counts == tuple(REPEAT * wanted.count(value) for value in (True, False, None))


def test_without_unsigned_extensions_the_arrow_function_answers_the_same() -> None:
    import abnfc.duckdb

    items = sampled(NUMBER, None, 3000, 7) + edges()
    grammar = abnfc.load_grammar(text=NUMBER)
    connection = duckdb.connect()
    abnfc.duckdb.register(connection, "is_number", grammar)
    assert not is_native(connection)
    table(connection, items)
    assert answers(connection, "is_number") == expected(NUMBER, None, items)
    with pytest.raises(AbnfError, match="allow_unsigned_extensions"):
        abnfc.duckdb.register(connection, "is_number_too", grammar, native=True)


def test_native_false_and_lang_python_take_the_arrow_function() -> None:
    import abnfc.duckdb

    grammar = abnfc.load_grammar(text=NUMBER)
    connection = unsigned()
    abnfc.duckdb.register(connection, "a", grammar, native=False)
    abnfc.duckdb.register(connection, "b", grammar, lang="python")
    assert not is_native(connection)
    assert connection.sql("select a('1.5'), b('1.5'), a('x'), b(NULL)").fetchall() == [(True, True, False, None)]
    with pytest.raises(AbnfError, match="lang='c'"):
        abnfc.duckdb.register(connection, "c", grammar, lang="python", native=True)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_recursive_grammar_through_its_pushdown_validator(threads: int) -> None:
    """JSON (RFC 8259) natively: the C pushdown validator agrees with the Python one over many
    vectors, and a value nested past the depth limit gets NULL (no verdict), not false."""
    import abnfc.duckdb

    connection = unsigned()
    connection.execute(f"set threads={threads}")
    abnfc.duckdb.register(connection, "is_json", GRAMMARS / "json.abnf", native=True)
    assert is_native(connection)
    python = abnfc.load_validator(GRAMMARS / "json.abnf", "python")
    rng = random.Random(threads)
    pieces = ['{"a": [1, 2]}', "[", "]", "{}", '"x\\u00e9"', "true", ",", ":", " ", "1e5", "nul", '{"k": ']
    values: list[str | None] = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))
                                for _ in range(20_000)]
    values += ["[" * 100_001 + "]" * 100_001, "[" * 99_999 + "]" * 99_999, None]
    connection.execute("create table docs as select unnest($1::varchar[]) as doc", [values])
    got = connection.sql("select is_json(doc) from docs").fetchall()
    wanted = [value is not None and python.is_valid(value.encode()) for value in values[:-3]]
    assert [row[0] for row in got] == [*wanted, None, True, None]
    assert 0 < sum(wanted) < len(wanted)


def test_built_once_per_grammar_and_name_and_shared_by_databases(cache: Path) -> None:
    import abnfc.duckdb

    grammar = abnfc.load_grammar(text=NUMBER)
    first = unsigned()
    abnfc.duckdb.register(first, "is_number", grammar)
    built = sorted(cache.glob("*.duckdb_extension"))
    second = unsigned()
    abnfc.duckdb.register(second, "is_number", grammar)  # another database: loaded from the cache
    abnfc.duckdb.register(second, "is_number", grammar)  # again on the same one
    assert sorted(cache.glob("*.duckdb_extension")) == built
    assert second.sql("select is_number('12'), is_number('1x')").fetchall() == [(True, False)]
    abnfc.duckdb.register(second, 'odd "name"', grammar)  # any name: it reaches C as escaped bytes
    assert len(sorted(cache.glob("*.duckdb_extension"))) == len(built) + 1
    assert second.sql('select "odd ""name"""(\'3.25\')').fetchall() == [(True,)]


def test_the_footer_duckdb_reads() -> None:
    from abnfc.duckdb.extension import c_string, footer

    data = footer("linux_amd64")
    assert len(data) == 512 and data[256:] == bytes(256)
    fields = [data[k * 32:(k + 1) * 32].rstrip(b"\0") for k in range(8)][::-1]
    assert fields[:3] == [b"4", b"linux_amd64", b"v1.2.0"] and fields[4] == b"C_STRUCT"
    assert c_string('a"\\') == '"\\141\\042\\134"'


def test_without_a_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import abnfc.duckdb

    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setenv("PATH", str(tmp_path))
    grammar = abnfc.load_grammar(text=NUMBER)
    with pytest.raises(AbnfError, match="no C compiler found"):
        abnfc.duckdb.register(unsigned(), "is_number", grammar, native=True)
    with pytest.raises(AbnfError, match="lang='python'"):  # the Arrow function's C validator: the same need
        abnfc.duckdb.register(unsigned(), "is_number", grammar)


def test_abnfc_duckdb_writes_an_extension_file_to_load(capsys, tmp_path: Path) -> None:
    """``abnfc duckdb``: a file DuckDB LOADs by itself (as its command line would), with the
    function named; the file must be called NAME.duckdb_extension, and its folder must exist."""
    from helpers.cli import run_cli

    out = tmp_path / "is_uri.duckdb_extension"
    status, said, _err = run_cli(capsys, "duckdb", str(GRAMMARS / "uri.abnf"), "--name", "is_uri", "--out", str(out))
    assert status == 0 and said.strip() == f"wrote {out}"
    json_file = tmp_path / "is_json.duckdb_extension"
    assert run_cli(capsys, "duckdb", str(GRAMMARS / "json.abnf"), "--name", "is_json", "--out", str(json_file))[0] == 0
    connection = unsigned()
    connection.execute(f"load '{out}'")
    connection.execute(f"load '{json_file}'")
    answers = connection.sql("select is_uri('http://example.com/a?b#c'), is_uri('http://exa mple'), is_uri(NULL), "
                             "is_json('[1, {\"a\": null}]'), is_json('[1,]')").fetchall()
    assert answers == [(True, False, None, True, False)]
    for bad_out, message in [(tmp_path / "Is_uri.duckdb_extension", "NAME made of lowercase letters"),
                             (tmp_path / "is_uri.so", "is called NAME.duckdb_extension"),
                             (tmp_path / "missing" / "is_uri.duckdb_extension", "cannot write")]:
        status, _out, err = run_cli(capsys, "duckdb", str(GRAMMARS / "uri.abnf"), "--name", "is_uri",
                                    "--out", str(bad_out))
        assert status == 2 and message in err and "Traceback" not in err


def test_a_name_checks_the_grammar_it_was_last_registered_with(cache: Path) -> None:
    """DuckDB LOADs a file once a database: registering f with A, then B, then A again left f
    checking B.  The third registration loads A's extension under its next generation's name;
    registering the grammar a name checks already builds and loads nothing."""
    import abnfc.duckdb

    digits, letters = abnfc.load_grammar(text="r = 1*DIGIT\n"), abnfc.load_grammar(text="r = 1*ALPHA\n")
    connection = unsigned()
    for grammar, wanted in [(digits, (True, False)), (letters, (False, True)), (digits, (True, False)),
                            (letters, (False, True)), (digits, (True, False))]:
        abnfc.duckdb.register(connection, "f", grammar)
        assert connection.sql("select f('123'), f('abc')").fetchall() == [wanted]
    files = sorted(cache.glob("*.duckdb_extension"))
    loaded = connection.sql("select count(*) from duckdb_extensions() where loaded and "
                            "extension_name like 'abnfc_%'").fetchall()[0][0]
    abnfc.duckdb.register(connection, "f", digits)  # what f checks already
    assert sorted(cache.glob("*.duckdb_extension")) == files
    assert connection.sql("select count(*) from duckdb_extensions() where loaded and "
                          "extension_name like 'abnfc_%'").fetchall()[0][0] == loaded


def test_a_built_in_name_needs_replace_and_a_nul_is_refused() -> None:
    """A native function called lower replaced DuckDB's lower for the whole database."""
    import abnfc.duckdb

    grammar = abnfc.load_grammar(text=NUMBER)
    connection = unsigned()
    with pytest.raises(AbnfError, match=r"built-in.*replace=True"):
        abnfc.duckdb.register(connection, "LOWER", grammar)
    assert connection.sql("select lower('AB')").fetchall() == [("ab",)]
    abnfc.duckdb.register(connection, "lower", grammar, replace=True)
    assert connection.sql("select lower('1.5')").fetchall() == [(True,)]
    for native in (True, False):
        with pytest.raises(AbnfError, match="NUL"):
            abnfc.duckdb.register(connection, "is_n\0umber", grammar, native=native)


def test_past_the_depth_limit_both_forms_give_null() -> None:
    """The native function gave NULL past the depth limit while the Arrow UDF failed the query."""
    import abnfc.duckdb

    deep = "[" * 100_001 + "]" * 100_001
    for native, config in [(True, {"allow_unsigned_extensions": "true"}), (False, {})]:
        connection = duckdb.connect(config=config)
        abnfc.duckdb.register(connection, "is_json", GRAMMARS / "json.abnf", native=native)
        assert is_native(connection) == native
        connection.execute("create table docs as select unnest($1::varchar[]) as doc", [["[1]", deep, "[", None]])
        assert connection.sql("select is_json(doc) from docs").fetchall() == [(True,), (None,), (False,), (None,)]


def test_a_damaged_cached_extension_is_rebuilt(cache: Path) -> None:
    import abnfc.duckdb

    text = 'r = "damaged" 1*DIGIT\n'
    grammar = abnfc.load_grammar(text=text)
    # built in another process: this one must not have the file mapped when it is cut short
    program = ("import abnfc, abnfc.duckdb, duckdb; abnfc.duckdb.register(duckdb.connect(config="
               f"{{'allow_unsigned_extensions': 'true'}}), 'is_damaged', abnfc.load_grammar(text={text!r}))")
    subprocess.run([sys.executable, "-c", program], check=True,
                   env={**os.environ, "ABNFC_CACHE": str(cache), "PYTHONPATH": os.pathsep.join(sys.path)})
    [path] = [p for p in cache.glob("*.duckdb_extension") if b"is_damaged" in p.read_bytes()]
    path.write_bytes(path.read_bytes()[:4096])
    connection = unsigned()
    abnfc.duckdb.register(connection, "is_damaged", grammar)
    assert connection.sql("select is_damaged('damaged1'), is_damaged('x')").fetchall() == [(True, False)]
    assert len(path.read_bytes()) > 4096


def test_abnfc_duckdb_name_that_is_no_file_name(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --out the file is named after --name: a name that cannot be one is blamed as
    --name (not --out), and ../x is no path to write to."""
    from helpers.cli import run_cli

    inside = tmp_path.name
    monkeypatch.chdir(tmp_path)
    for name in ["isURI", f"../{inside}x", "a/b"]:
        status, _out, err = run_cli(capsys, "duckdb", str(GRAMMARS / "uri.abnf"), "--name", name)
        assert status == 2 and f"--name {name}:" in err and "--out" in err
    assert list(tmp_path.iterdir()) == [] and not (tmp_path.parent / f"{inside}x.duckdb_extension").exists()
    status, _out, _err = run_cli(capsys, "duckdb", str(GRAMMARS / "uri.abnf"), "--name", "isURI",
                                 "--out", str(tmp_path / "is_uri.duckdb_extension"))
    assert status == 0
