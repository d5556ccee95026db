"""The Rust backend: generated modules built with rustc (one program for the whole file, through
the backend's runner) against the generated Python module, and the generated code checked by the
Rust tools users run: ``rustc -D warnings``, ``cargo clippy -- -D warnings``, ``rustfmt --check``.

UTF-8 (grammars/utf8.abnf) is checked on every string of up to 3 bytes in each strategy: the
driver enumerates them and, for each, compares first_error with is_valid and with a stream fed
one byte at a time; the answers must be the Python module's.  Strings whose first two bytes
already failed take the answer of those two bytes (a dead automaton stays dead: checked on a
sample), so the Python module is asked only about the 26,048 live two-byte prefixes' extensions.

A missing toolchain skips these tests with a message; it never fails them.
"""
from __future__ import annotations

import math
import os
import random
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, files_for, grammar_from_text, python_module, utf8_vectors
from helpers.batches import LIMITS, grammar_batch, in_pieces
from helpers.cli import run_cli_text

from abnfc.backends.naming import prefix_problem
from abnfc.backends.rust import plan as rust_plan
from abnfc.backends.rust.runner import RustValidator, find_tool, runners, rustc
from abnfc.errors import AbnfError
from abnfc.pipeline import Compilation

UTF8_TEXT = (ROOT / "grammars" / "utf8.abnf").read_text(encoding="utf-8")
URI_TEXT = (ROOT / "grammars" / "uri.abnf").read_text(encoding="utf-8")
JSON_TEXT = (ROOT / "grammars" / "json.abnf").read_text(encoding="utf-8")
FINITE = 'r = "ab" / "cd" 2DIGIT\n'
EMPTY_ONLY = 'r = 0"a"\n'  # the empty string alone
# Over 256 states: the one-byte table, with runs of a self-loop skipped and ASCII blocks skipped.
LARGE = 'r = 300"a" *( %x61-7A / "-" ) [ "!" *%x00-7F ]\n'
# Backticks, a comment closer and a tab: the doc comments' fences and text must survive them.
AWKWARD = 'r = "```" / "*/" / %x09 1*( %x80-FF / "a" ) ; a ```` run of backticks,\ta tab\n'
STRATEGIES = ("pairs", "shift", "table")
STRATEGY_GRAMMARS = 40  # of the property tests' batch, in the strategies auto does not choose


def _files(text: str, prefix: str, strategy: str = "auto") -> dict[str, str]:
    return files_for(text, "rust", prefix, options={"strategy": strategy})


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, RustValidator]:
    """UTF-8 in each strategy, URI, a finite language, the empty string alone and JSON (a pushdown
    validator), built in one program."""
    _tool("rustc")
    wanted = {f"utf8_{s}": (UTF8_TEXT, s) for s in STRATEGIES}
    wanted |= {"uri": (URI_TEXT, "auto"), "finite": (FINITE, "auto"), "empty": (EMPTY_ONLY, "auto"),
               "json": (JSON_TEXT, "auto"), "large": (LARGE, "auto")}
    file_sets = [_files(text, name, strategy) for name, (text, strategy) in wanted.items()]
    return dict(zip(wanted, runners(file_sets, tmp_path_factory.mktemp("rust")), strict=True))


def test_the_strategies_follow_the_automaton():
    def chosen(text: str) -> tuple[str, bool]:
        plan = rust_plan.lower(Compilation(grammar_from_text(text)).tables(), {"prefix": "g"})
        return plan.strategy, plan.plain

    assert chosen(UTF8_TEXT) == ("pairs", False)
    assert chosen(URI_TEXT) == ("table", False)
    assert chosen(FINITE) == ("shift", True)
    large = rust_plan.lower(Compilation(grammar_from_text(LARGE)).tables(), {"prefix": "g"})
    assert large.table is not None and large.table.pairs is None and large.table.loops and large.table.any_skip
    uri = rust_plan.lower(Compilation(grammar_from_text(URI_TEXT)).tables(), {"prefix": "g"})
    assert uri.table is not None and uri.table.pairs is not None  # 183 states: two bytes a step


def test_a_rust_keyword_is_refused_as_prefix():
    for word in ("type", "match", "self", "async"):
        problem = prefix_problem(word, ["rust"])
        assert problem is not None and "Rust keyword" in problem and f"mod {word};" in problem
    assert prefix_problem("utf8", ["rust"]) is None
    assert prefix_problem("Type", ["rust"]) is None  # keywords are case-sensitive


def test_the_command_line_refuses_a_keyword_prefix_and_writes_the_module(capsys, tmp_path):
    grammar = str(ROOT / "grammars" / "utf8.abnf")
    status, text = run_cli_text(capsys, "compile", grammar, "--lang", "rust", "--prefix", "match",
                                "--out", str(tmp_path))
    assert status != 0 and "Rust keyword" in text and not list(tmp_path.iterdir())
    status, text = run_cli_text(capsys, "compile", grammar, "--lang", "rust", "--rust-strategy", "shift",
                                "--out", str(tmp_path))
    assert status == 0, text
    assert [p.name for p in tmp_path.iterdir()] == ["utf8.rs"]
    assert "pub fn first_error(data: &[u8]) -> Option<usize>" in (tmp_path / "utf8.rs").read_text()


def test_a_missing_compiler_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CARGO_HOME", str(tmp_path))
    monkeypatch.delenv("RUSTC", raising=False)
    with pytest.raises(AbnfError, match=r"rustc.*was not found"):
        rustc()


def test_an_old_compiler_is_reported_and_a_new_one_preferred(monkeypatch, tmp_path):
    """A distribution's rustc older than the modules need, first on PATH, is passed over for a
    recent one in ~/.cargo/bin; where it is the only one, the error names its version."""
    old, home = tmp_path / "old", tmp_path / "cargo"
    for folder, version in ((old, "1.63.0"), (home / "bin", "1.95.0")):
        folder.mkdir(parents=True)
        (folder / "rustc").write_text(f"#!/bin/sh\necho 'rustc {version} (made up)'\n")
        (folder / "rustc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{old}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("RUSTC", raising=False)
    monkeypatch.setenv("CARGO_HOME", str(home))
    assert find_tool("rustc") == str(home / "bin" / "rustc")
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "none"))
    assert find_tool("rustc") == str(old / "rustc")
    with pytest.raises(AbnfError, match=r"rustc is Rust 1\.63, older than Rust 1\.88"):
        rustc()


def test_utf8_vectors_whole_and_in_one_byte_pieces(built):
    reference = python_module(UTF8_TEXT)
    inputs = [data for data, _valid, _note in utf8_vectors()]
    want = [reference.first_error(data) for data in inputs]
    for strategy in STRATEGIES:
        validator = built[f"utf8_{strategy}"]
        assert validator.first_errors(inputs) == want, strategy
        for data, error in list(zip(inputs, want, strict=True))[::7]:
            stream = validator.Validator()
            for byte in data:
                stream.feed(bytes([byte]))
            assert (stream.first_error(), stream.complete, stream.offset) == (error, error is None, len(data))
            assert validator.is_valid(data) == (error is None)


def test_long_inputs_cross_blocks(built):
    """Inputs longer than a block of 64 bytes, failing at every position of a block, and ASCII
    blocks skipped: the offsets are exact."""
    reference = python_module(UTF8_TEXT)
    rng = random.Random(7)
    inputs = []
    for length in (63, 64, 65, 127, 128, 129, 500):
        text = "".join(rng.choice("aé中😀") for _ in range(length)).encode()
        inputs += [text, b"a" * length + text, text + b"\xff", text[:-1]]
        inputs += [text[:cut] + b"\xc0" + text[cut:] for cut in range(0, len(text), 5)]
    want = [reference.first_error(data) for data in inputs]
    for strategy in STRATEGIES:
        assert built[f"utf8_{strategy}"].first_errors(inputs) == want, strategy


def test_expected_ranges_match_the_python_module(built):
    reference = python_module(UTF8_TEXT)
    for strategy in STRATEGIES:
        validator = built[f"utf8_{strategy}"]
        for state in range(len(reference.TRANSITIONS)):
            assert validator.expected_bytes(state) == reference.expected_bytes(state), (strategy, state)
        assert validator.expected_bytes(10 ** 6) == []
        for data in (b"", b"\xe4", b"\xe4\xbd", b"\xf0\x9f\x98", b"a\xff", b"\xed"):
            stream, mine = reference.Validator(), validator.Validator()
            stream.feed(data)
            mine.feed(data)
            assert (mine.expected(), mine.state) == (stream.expected(), stream.state), (strategy, data)


def test_other_grammars(built):
    uri = python_module(URI_TEXT)
    lines = [b"http://example.com/a/b?c=d#e", b"mailto:x@y.z", b"//host:80", b"a b", b"http://[::1]/",
             b"http://example.com/" + b"p" * 300 + b"%zz", b"", b"%", b"?" * 70 + b"#" + b"f" * 70]
    assert built["uri"].first_errors(lines) == [uri.first_error(line) for line in lines]
    finite = python_module(FINITE)
    inputs = [b"", b"ab", b"cd12", b"cd1", b"cd123", b"abx", b"x"]
    assert built["finite"].first_errors(inputs) == [finite.first_error(data) for data in inputs]
    empty = built["empty"]
    assert empty.first_errors([b"", b"a", b"ab"]) == [None, 0, 0]
    stream = empty.Validator()
    assert stream.feed(b"") and stream.complete and not stream.feed(b"a") and stream.first_error() == 0


def test_a_large_table_skips_runs(built):
    reference = python_module(LARGE)
    rng = random.Random(11)
    start = b"a" * 300
    inputs = [start, start[:-1], start + b"abc-", start + b"x" * 500 + b"!", start + b"q" * 70 + b"A",
              start + b"!" + bytes(rng.randrange(0x80) for _ in range(700)) + b"\x80",
              start + b"-" * 64 + b"!" + b"z" * 129, start + b"!" + b"\xff"]
    inputs += [data[:cut] for data in inputs[3:] for cut in (301, 363, 364, 365, 428, 500)]
    want = [reference.first_error(data) for data in inputs]
    assert built["large"].first_errors(inputs) == want
    assert [in_pieces(built["large"].Validator(), data) for data in inputs] == want


def test_a_pushdown_validator_matches_the_python_module(built):
    """JSON (recursive): offsets whole and in pieces, the stack's depth, what is expected, and
    the depth limit: NestingError at the Python module's offset, none without a limit."""
    reference = python_module(JSON_TEXT)
    rust = built["json"]
    inputs = [b"", b"{}", b'[1,2,{"a":[true,null]}]', b"[1,2", b"[1,]", b' "x" ', b"[[[[]]]]", b'{"a" 1}',
              b"[" * 40 + b"]" * 40, b"[" * 40 + b"]" * 39, rb'{"\u00e9":"\ud800"}', b"[1e5,-0.5,0]", b"]"]
    rng = random.Random(8259)
    sample = b'{"a": [1, -2.5e3, true, null, {"b": "c\\u00e9"}], "d": [[[]]], "e": "\xc3\xa9"}'
    for _ in range(300):  # mutations: a byte replaced, dropped or doubled
        at = rng.randrange(len(sample))
        inputs.append(rng.choice([sample[:at] + bytes([rng.choice(b'[]{}",:\\ 0a\x80')]) + sample[at + 1:],
                                  sample[:at] + sample[at + 1:], sample[:at + 1] + sample[at:]]))
    assert rust.first_errors(inputs) == [reference.first_error(data) for data in inputs]
    for data in inputs[:13]:
        mine, theirs = rust.Validator(), reference.Validator()
        for at in range(0, len(data), 3):
            assert mine.feed(data[at:at + 3]) == theirs.feed(data[at:at + 3])
        assert (mine.first_error(), mine.complete, mine.depth, mine.state, mine.expected()) == (
            theirs.first_error(), theirs.complete, theirs.depth, theirs.state, theirs.expected()), data
    deep = b"[" * 10 + b"]" * 10
    with pytest.raises(rust.NestingError) as caught:
        rust.first_error(deep, max_depth=3)
    assert (caught.value.offset, caught.value.limit) == (3, 3)
    assert isinstance(caught.value, ValueError) and "deeper than 3" in str(caught.value)
    assert rust.first_error(deep, max_depth=10) is None and rust.is_valid(b"[" * 300_000 + b"]" * 300_000,
                                                                          max_depth=math.inf)
    stream = rust.Validator(max_depth=2)
    assert stream.feed(b"[[")
    with pytest.raises(rust.NestingError):
        stream.feed(b"[")


@pytest.mark.slow
def test_every_string_of_up_to_3_bytes(built):
    reference = python_module(UTF8_TEXT)
    want = _short_answers(reference.first_error)
    for strategy in STRATEGIES:
        validator = built[f"utf8_{strategy}"]
        for length in range(4):
            got = validator.every_string(length)
            assert "!" not in got, (strategy, length, got.index("!"))
            assert got == want[length], (strategy, length, _first_difference(got, want[length]))


def _short_answers(first_error) -> list[str]:
    """The answers of ``first_error`` for every string of 0 to 3 bytes, as ``every_string``
    gives them; a dead two-byte prefix answers for its extensions (checked on a sample)."""
    code = {None: "-", 0: "0", 1: "1", 2: "2", 3: "3"}
    singles = [bytes([c]) for c in range(256)]
    answers = [code[first_error(b"")], "".join(code[first_error(s)] for s in singles)]
    pairs, triples = [], []
    rng = random.Random(3)
    for a in singles:
        for b in singles:
            prefix = a + b
            error = first_error(prefix)
            pairs.append(code[error])
            if error is None or error == 2:
                triples.append("".join(code[first_error(prefix + c)] for c in singles))
            else:
                triples.append(code[error] * 256)
                c = rng.choice(singles)
                assert first_error(prefix + c) == error
    return [*answers, "".join(pairs), "".join(triples)]


def _first_difference(got: str, want: str) -> str:
    at = next((k for k, (g, w) in enumerate(zip(got, want, strict=True)) if g != w), None)
    if at is None:
        return f"lengths {len(got)} and {len(want)}"
    size = max(1, (len(want) - 1).bit_length() // 8 + (1 if (len(want) - 1).bit_length() % 8 else 0))
    return f"input {at.to_bytes(size, 'big').hex()}: got {got[at]}, want {want[at]}"


@pytest.mark.slow
def test_every_strategy_agrees_with_the_minimal_dfa(tmp_path):
    """The property tests' first grammars (tests/helpers/batches.py) in the strategies that
    ``auto`` leaves out for them (shift where pairs fit, the table where shift fits), built at
    once: first_error whole and in pieces, as the minimal DFA."""
    _tool("rustc")
    batch = grammar_batch()[:STRATEGY_GRAMMARS]
    chosen = [(grammar, strategy) for grammar in batch for strategy in ("shift", "table")
              if strategy == "table" or grammar.compiled.minimal.num_states <= rust_plan.MAX_SHIFT_STATES]
    file_sets = [files_for(grammar.text, "rust", f"g{index}", limits=LIMITS, options={"strategy": strategy})
                 for index, (grammar, strategy) in enumerate(chosen)]
    for (grammar, strategy), validator in zip(chosen, runners(file_sets, tmp_path), strict=True):
        want = [grammar.compiled.minimal.first_error(data) for data in grammar.inputs]
        assert validator.first_errors(grammar.inputs) == want, (strategy, grammar.text)
        assert [in_pieces(validator.Validator(), data) for data in grammar.inputs[::5]] == want[::5], strategy


# --- the Rust tools users run on generated code ---------------------------------------------------

LINTED = {f"utf8_{s}": (UTF8_TEXT, s) for s in STRATEGIES} | {
    "uri": (URI_TEXT, "auto"), "finite": (FINITE, "auto"), "awkward": (AWKWARD, "auto"),
    "empty": (EMPTY_ONLY, "auto"), "json": (JSON_TEXT, "auto"), "large": (LARGE, "auto"),
    # One state, one class: sizes and indexes that would be products with 1 (clippy's identity_op).
    "nothing": ('r = "a" r\n', "table"), "octets": ("r = *OCTET\n", "table"),
    "nothing_nested": ('r = "(" r ")" r2\nr2 = "x" r2\n', "auto")}


def _write_all(folder: Path) -> list[Path]:
    paths = []
    for name, (text, strategy) in LINTED.items():
        [(file_name, source)] = _files(text, name, strategy).items()
        paths.append(folder / file_name)
        paths[-1].write_text(source, encoding="utf-8")
    return paths


def _tool(name: str) -> str:
    found = find_tool(name)
    if found is None:
        pytest.skip(f"{name} not found (install it with rustup)")
    return found


def _run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout[-4000:]}{result.stderr[-6000:]}"


@pytest.mark.slow
def test_rustc_with_warnings_as_errors(tmp_path):
    rustc = _tool("rustc")
    for path in _write_all(tmp_path):
        _run([rustc, "--edition", "2021", "--crate-type", "lib", "-D", "warnings", "--out-dir", str(tmp_path),
              str(path)])


@pytest.mark.slow
def test_rustfmt_leaves_generated_code_alone(tmp_path):
    rustfmt = _tool("rustfmt")
    _run([rustfmt, "--edition", "2021", "--check", *map(str, _write_all(tmp_path))])


@pytest.mark.slow
def test_clippy_with_warnings_as_errors(tmp_path):
    cargo = _tool("cargo")
    if find_tool("cargo-clippy") is None:
        pytest.skip("clippy not found (rustup component add clippy)")
    source = tmp_path / "src"
    source.mkdir()
    paths = _write_all(source)
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "generated"\nversion = "0.1.0"\nedition = "2021"\n'
                                         "\n[dependencies]\n", encoding="utf-8")
    (source / "lib.rs").write_text("".join(f"pub mod {path.stem};\n" for path in paths), encoding="utf-8")
    # cargo runs rustc and clippy-driver from its own folder where PATH does not have them
    env = {**os.environ, "PATH": f"{Path(cargo).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    _run([cargo, "clippy", "--offline", "--quiet", "--all-targets", "--", "-D", "warnings"], tmp_path, env)
    _run([cargo, "test", "--offline", "--quiet", "--doc"], tmp_path, env)  # the docs hold no doctest
