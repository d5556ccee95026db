"""Command line: compile (atomic, only changed files, --check), check, dfa, lint, --help."""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, UTF8_GRAMMAR

from abnfc.cli import main


def run(*args: str) -> int:
    return main(list(args))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder laid out like the repository: grammars/utf8.abnf, run from its root."""
    (tmp_path / "grammars").mkdir()
    shutil.copy(UTF8_GRAMMAR, tmp_path / "grammars" / "utf8.abnf")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_generated_folder_is_up_to_date(workdir):
    """generated/ must be exactly what `abnfc compile grammars/utf8.abnf --out generated` writes."""
    assert run("compile", "grammars/utf8.abnf", "--out", "generated") == 0
    fresh = sorted(p.name for p in (workdir / "generated").iterdir())
    # __pycache__: left by Python where a test imported generated/utf8.py (not in git)
    committed = sorted(p.name for p in (ROOT / "generated").iterdir() if p.name != "__pycache__")
    assert fresh == committed == ["utf8.c", "utf8.h", "utf8.html", "utf8.mjs", "utf8.py"]
    for name in fresh:
        assert (workdir / "generated" / name).read_bytes() == (ROOT / "generated" / name).read_bytes(), \
            f"generated/{name} is stale: run abnfc compile grammars/utf8.abnf --out generated"


def test_compile_writes_only_changed_files_and_check_reports_stale_ones(workdir, capsys):
    assert run("compile", "grammars/utf8.abnf", "--out", "out") == 0
    assert "wrote out/utf8.py" in capsys.readouterr().out
    assert run("compile", "grammars/utf8.abnf", "--out", "out") == 0
    assert capsys.readouterr().out == "out: up to date, nothing written (5 files)\n"
    assert run("compile", "grammars/utf8.abnf", "--out", "out", "--check") == 0
    assert capsys.readouterr().out == "out: up to date (5 files)\n"
    (workdir / "out" / "utf8.h").write_text("edited by hand\n")
    (workdir / "out" / "utf8.py").unlink()
    before = sorted(p.name for p in (workdir / "out").iterdir())
    assert run("compile", "grammars/utf8.abnf", "--out", "out", "--check") == 1
    err = capsys.readouterr().err
    assert "stale or missing: out/utf8.h" in err and "stale or missing: out/utf8.py" in err
    assert "utf8.c" not in err
    assert sorted(p.name for p in (workdir / "out").iterdir()) == before  # check wrote nothing
    assert not any(p.name.endswith(".tmp") for p in (workdir / "out").iterdir())


def test_compile_options_prefix_lang_start(workdir, capsys):
    assert run("compile", "grammars/utf8.abnf", "--out", "o", "--lang", "python", "--prefix", "u8",
               "--start", "UTF8-char") == 0
    text = (workdir / "o" / "u8.py").read_text()
    assert "abnfc compile ../grammars/utf8.abnf --start UTF8-char --prefix u8 --lang python --out ." in text
    assert "start rule UTF8-char" in text
    assert sorted(p.name for p in (workdir / "o").iterdir()) == ["u8.py"]
    with pytest.raises(SystemExit):
        run("compile", "grammars/utf8.abnf", "--lang", "cobol")


def test_failed_compile_writes_nothing(workdir, capsys):
    (workdir / "grammars" / "rec.abnf").write_text('a = "(" a ")" / "(" "x" ")"\n')
    assert run("compile", "grammars/rec.abnf", "--out", "none") == 2
    assert "gets no pushdown validator" in capsys.readouterr().err
    assert not (workdir / "none").exists()


def test_check_reports_offset_and_context(workdir, capsys):
    (workdir / "good.txt").write_bytes("Grüße 你好 😀\n".encode())
    (workdir / "bad.bin").write_bytes(b"0123456789abc\xed\xa0\x80tail")
    assert run("check", "grammars/utf8.abnf", "good.txt") == 0
    assert "good.txt: valid" in capsys.readouterr().out
    assert run("check", "grammars/utf8.abnf", "good.txt", "bad.bin") == 1
    out = capsys.readouterr().out
    assert "bad.bin: invalid at offset 14: unexpected byte 0xA0; expected %x80-9F" in out
    assert "bytes from offset 6: 36 37 38 39 61 62 63 ed [a0] 80 74 61 69 6c\n  rule UTF8-3 expects %x80-9F\n" in out
    assert run("check", "grammars/utf8.abnf", "missing.txt") == 2


@pytest.mark.parametrize("engine", ["dfa", "interpreter"])
def test_check_names_the_rules_that_expected_something(workdir, capsys, engine):
    """The DFA engine names only the rules the input reached, as the interpreter does: "x" after
    "a" is expected by rule x alone, although minimization merges that state with y's."""
    (workdir / "grammars" / "g.abnf").write_text('r = "a" x / "b" y / 1*DIGIT\nx = "c"\ny = "c"\n')
    (workdir / "a.txt").write_bytes(b"ad")
    (workdir / "n.txt").write_bytes(b"-")
    assert run("check", "grammars/g.abnf", "--engine", engine, "a.txt", "n.txt") == 1
    out = capsys.readouterr().out.splitlines()
    # printable bytes are shown as characters beside the hex (issue 17)
    assert out[:3] == ["a.txt: invalid at offset 1: unexpected byte 0x64 'd'; expected %x43 ('C') / %x63 ('c')",
                       "  bytes from offset 0: 61 [64]", "  rule x expects %x43 ('C') / %x63 ('c')"]
    assert out[5:] == ["  rule DIGIT expects %x30-39 ('0'-'9')",
                       "  rule r expects %x41-42 ('A'-'B') / %x61-62 ('a'-'b')"]


def test_check_lists_at_most_eight_rules(workdir, capsys):
    rules = "".join(f'r{i} = "{chr(0x61 + i)}"\n' for i in range(10))
    (workdir / "grammars" / "many.abnf").write_text("r = " + " / ".join(f"r{i}" for i in range(10)) + "\n" + rules)
    (workdir / "z.txt").write_bytes(b"z")
    assert run("check", "grammars/many.abnf", "z.txt") == 1
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "  rule r0 expects %x41 ('A') / %x61 ('a')" and len(out) == 2 + 8 + 1
    assert out[-1] == "  and 2 more rules"


def test_check_reads_stdin(workdir):
    result = subprocess.run([sys.executable, "-m", "abnfc", "check", "grammars/utf8.abnf", "-"],
                            input=b"abc\xe4\xbd", capture_output=True, cwd=workdir)
    assert result.returncode == 1
    assert b"<stdin>: invalid at offset 5: unexpected end of input; expected %x80-BF" in result.stdout


def test_check_streams_large_files(workdir, capsys):
    chunk = "Grüße aus Köln, 你好世界, 😀! ".encode() * 1000
    with open("big.txt", "wb") as stream:
        for _ in range(300):  # ~12 MB, read in 1 MiB pieces
            stream.write(chunk)
        stream.write(b"\xff")
    assert run("check", "grammars/utf8.abnf", "big.txt") == 1
    out = capsys.readouterr().out
    assert f"invalid at offset {len(chunk) * 300}: unexpected byte 0xFF" in out


def test_dfa_json_and_text(workdir, capsys):
    assert run("dfa", "grammars/utf8.abnf", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["num_states"], data["num_classes"], data["start"], data["dead"]) == (9, 12, 1, 0)
    assert data["accepting"] == [1] and data["classes"][4] == [[0xC0, 0xC1], [0xF5, 0xFF]]
    assert len(data["transitions"]) == 9 and all(len(row) == 12 for row in data["transitions"])
    assert run("dfa", "grammars/utf8.abnf") == 0
    text = capsys.readouterr().out
    assert "class   4: C0-C1 F5-FF" in text and "* 1:  1  0  0  0  0  2  3  4  5  6  7  8" in text
    assert run("dfa", "grammars/utf8.abnf", "--no-minimize", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["num_states"] > 9


def test_lint(workdir, capsys):
    (workdir / "grammars" / "w.abnf").write_text('r = "a"\nunused = "b"\n')
    assert run("lint", "grammars/w.abnf") == 0
    captured = capsys.readouterr()
    assert "grammars/w.abnf:2:1: warning: rule 'unused' is never used" in captured.err
    assert "2 rules, start rule r, encoding octets, 1 warning; regular" in captured.out
    assert run("lint", "grammars/w.abnf", "--start", "nosuch") == 2
    assert "error: start rule 'nosuch' is not defined" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["compile", "check", "dfa", "lint"])
def test_every_command_has_help_with_an_example(command, capsys):
    with pytest.raises(SystemExit) as caught:
        run(command, "--help")
    assert caught.value.code == 0
    assert "example" in capsys.readouterr().out


def test_console_script_and_module_entry_points():
    from pathlib import Path

    script = Path(sys.executable).parent / "abnfc"  # installed by pip next to this interpreter
    for argv in ([str(script)], [sys.executable, "-m", "abnfc"]):
        result = subprocess.run([*argv, "--version"], capture_output=True, text=True)
        assert result.returncode == 0 and result.stdout.startswith("abnfc ")


def test_check_output_is_the_same_for_every_engine(workdir, capsys):
    inputs = {"ok.txt": "Grüße 😀".encode(), "bad.bin": b"abc\xed\xa0\x80", "cut.bin": b"x\xf0\x9f\x98",
              "lone.bin": b"\x80", "empty.txt": b""}
    for name, data in inputs.items():
        (workdir / name).write_bytes(data)
    outputs = {}
    for engine in ("auto", "dfa", "interpreter"):
        status = run("check", "grammars/utf8.abnf", "--engine", engine, *inputs)
        outputs[engine] = (status, capsys.readouterr().out)
    assert outputs["auto"] == outputs["dfa"] == outputs["interpreter"]
    assert outputs["auto"][0] == 1 and "cut.bin: invalid at offset 4: unexpected end of input" in outputs["auto"][1]


def test_check_uses_the_pushdown_validator_or_the_interpreter_for_recursive_grammars(workdir, capsys):
    (workdir / "grammars" / "parens.abnf").write_text('r = *( "(" r ")" / "x" )\n')
    (workdir / "deep.txt").write_bytes(b"(" * 5000 + b"x" + b")" * 5000)
    (workdir / "open.txt").write_bytes(b"((x)")
    assert run("check", "grammars/parens.abnf", "deep.txt", "open.txt") == 1
    out = capsys.readouterr().out
    assert "deep.txt: valid (10001 bytes)" in out
    assert "open.txt: invalid at offset 4: unexpected end of input; expected %x28-29 ('('-')') / %x58 ('X') / " \
        "%x78 ('x')" in out
    assert run("check", "grammars/parens.abnf", "--engine", "interpreter", "deep.txt", "open.txt") == 1
    assert capsys.readouterr().out == out  # the same verdicts, the same rules expected
    (workdir / "grammars" / "conflict.abnf").write_text('r = "(" r ")" / "(" "x" ")"\n')
    assert run("check", "grammars/conflict.abnf", "--engine", "dfa", "deep.txt") == 2
    assert "gets no pushdown validator" in capsys.readouterr().err
    assert run("check", "grammars/conflict.abnf", "deep.txt", "open.txt") == 1  # auto: the interpreter
    assert "deep.txt: valid (10001 bytes)" in capsys.readouterr().out


AWKWARD_NAMES = ['we"""ird\\.abnf', "new\nline*/.abnf".replace("/", "_"), "caf\u00e9 \u2014 x.abnf"]


@pytest.mark.parametrize("name", AWKWARD_NAMES)
def test_awkward_file_names_and_comments_give_valid_python_c_and_js(workdir, name):
    """File names and comments are echoed into comments and docstrings; they must not break them."""
    grammar = workdir / "grammars" / name
    grammar.write_bytes(b'r = "a" ; nul \x00, escape \x1b[31m, quotes """ \'\'\' */ /* ??/ \\\n'
                        b"; a comment ending in a backslash \\\n")
    assert run("compile", f"grammars/{name}", "--out", "out") == 0
    module = next((workdir / "out").glob("*.py"))
    assert module.stem.isidentifier() and module.stem.isascii()
    result = subprocess.run([sys.executable, "-c", f"import {module.stem} as m; "
                             "print(m.is_valid(b'a'), m.is_valid(b'b'), m.__doc__.splitlines()[0])"],
                            cwd=workdir / "out", capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("True False Validator for r of ../grammars/")  # relative to out/
    text = module.read_text()
    assert "\x00" not in text and "\x1b" not in text and "\\\\x00" in text
    source = module.with_suffix(".c")
    built = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-c",
                            str(source), "-o", str(source.with_suffix(".o"))], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    script = (f"import('./{module.stem}.mjs').then(m => console.log(m.isValid(Uint8Array.of(0x61)), "
              "m.isValid(Uint8Array.of(0x62))))")
    ran = subprocess.run(["node", "--input-type=module", "-e", script], cwd=workdir / "out",
                         capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stdout == "true false\n", ran.stderr


@pytest.mark.parametrize("prefix, problem", [("my-g", "ASCII letters, digits and underscores"),
                                             ("9x", "starting with a letter"), ("_x", "starting with a letter"),
                                             ("caf\u00e9", "ASCII"), ("while", "Python keyword"),
                                             ("string", "shadow Python's standard module string"),
                                             ("json", "json.py would shadow Python's standard module json"),
                                             ("cstring", "shadow the standard header <cstring.h>"),
                                             ("stdint", "shadow the standard header"),
                                             ("vector", "<vector>"), ("int", "C or C++ keyword"),
                                             ("switch", "C or C++ keyword"),
                                             ("tomato", "reserves function names that start with to"),
                                             ("strict", "reserves function names that start with str")])
def test_prefix_must_name_a_module_and_c_identifiers(workdir, capsys, prefix, problem):
    assert run("compile", "grammars/utf8.abnf", "--out", "out", "--prefix", prefix) == 2
    assert problem in capsys.readouterr().err
    assert not (workdir / "out").exists()


def test_a_prefix_is_checked_against_the_languages_asked_for(workdir, capsys):
    assert run("compile", "grammars/utf8.abnf", "--out", "out", "--prefix", "json", "--lang", "js,html") == 0
    assert sorted(path.name for path in (workdir / "out").iterdir()) == ["json.html", "json.mjs"]
    assert run("compile", "grammars/utf8.abnf", "--out", "out", "--prefix", "json", "--lang", "python") == 2


def test_a_grammar_from_standard_input_needs_a_prefix(workdir, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'r = "a"\n')))
    assert run("compile", "-", "--out", "out") == 2
    assert "give --prefix NAME" in capsys.readouterr().err
    assert not (workdir / "out").exists()


@pytest.mark.parametrize("stem, prefix", [("utf8", "utf8"), ("URI-reference", "uri_reference"),
                                          ("9lives", "g_9lives"), ("if", "g_if"), ("caf\u00e9", "caf_"),
                                          ("json", "g_json"), ("email", "g_email"),
                                          ("string", "g_string"), ("token", "g_token")])
def test_default_prefix_comes_from_the_file_stem(stem, prefix):
    from abnfc.backends.naming import default_prefix

    assert default_prefix(f"grammars/{stem}.abnf") == prefix


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_limits_must_be_positive(workdir, capsys, value):
    with pytest.raises(SystemExit) as caught:
        run("dfa", "grammars/utf8.abnf", "--max-dfa-states", value)
    assert caught.value.code == 2 and "not a positive whole number" in capsys.readouterr().err


def test_output_cut_short_by_the_reader_ends_quietly(workdir):
    (workdir / "grammars" / "big.abnf").write_text("r = *(%x61 / %x62) %x61 10(%x61 / %x62)\n")
    result = subprocess.run(f"{sys.executable} -m abnfc dfa grammars/big.abnf | head -c 10",
                            shell=True, capture_output=True, text=True, cwd=workdir)
    assert len(result.stdout) == 10
    assert result.stderr == ""  # no "internal error", no "Exception ignored" from the flush at exit


def test_dfa_text_summary_counts_accepting_states_when_there_are_many(workdir, capsys):
    (workdir / "grammars" / "big.abnf").write_text("r = *(%x61 / %x62) %x61 10(%x61 / %x62)\n")
    assert run("dfa", "grammars/big.abnf") == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("start 1, 1024 accepting states (marked *)")
    assert sum(line.startswith("*") for line in out.splitlines()) == 1024


# --- mistakes a new user makes: clear messages, exit 2 ------------------------------------------

def _abnfc(*args: str, cwd, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "abnfc", *args], cwd=cwd, capture_output=True,
                          text=True, **options)


@pytest.mark.parametrize("out, message", [("/proc", "cannot write /proc/utf8."),
                                          ("a-file.txt", "cannot write to a-file.txt: it is a file"),
                                          ("readonly/sub", "cannot create the output folder readonly/sub"),
                                          ("readonly", "cannot write readonly/utf8.")])
def test_unwritable_out_is_the_users_error(workdir, capsys, out, message):
    (workdir / "a-file.txt").write_text("not a folder\n")
    (workdir / "readonly").mkdir()
    (workdir / "readonly").chmod(0o555)
    try:
        if out.startswith("readonly") and os.access(workdir / "readonly", os.W_OK):
            pytest.skip("running as a user who may write anywhere (root)")
        assert run("compile", "grammars/utf8.abnf", "--out", out) == 2
    finally:
        (workdir / "readonly").chmod(0o755)
    err = capsys.readouterr().err
    assert message in err and "internal error" not in err
    assert not list((workdir / "readonly").iterdir())


def test_unwritable_out_as_a_user_without_rights(workdir):
    """Where the tests run as root, chmod does not keep root out: check with an unprivileged user."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to become an unprivileged user")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*nobody, sys.executable, "-c", "import abnfc"], capture_output=True, cwd="/").returncode:
        pytest.skip("an unprivileged user cannot run this Python (its folder is private)")
    import tempfile

    parent = Path(tempfile.mkdtemp(prefix="abnfc-test-"))
    try:
        parent.chmod(0o755)
        (parent / "readonly").mkdir(mode=0o555)
        result = subprocess.run([*nobody, sys.executable, "-m", "abnfc", "compile", "-", "--prefix", "utf8", "--out",
                                 str(parent / "readonly")],
                                input=UTF8_GRAMMAR.read_text(), capture_output=True, text=True, cwd="/")
        assert not list((parent / "readonly").iterdir())
    finally:
        shutil.rmtree(parent)
    assert result.returncode == 2, result.stderr
    assert "cannot write" in result.stderr and "Permission denied" in result.stderr
    assert "internal error" not in result.stderr


def test_c_strategy_can_be_chosen(workdir, capsys):
    assert run("compile", "grammars/utf8.abnf", "--out", "t", "--lang", "c", "--c-strategy", "table") == 0
    source = (workdir / "t" / "utf8.c").read_text()
    assert "static const uint8_t utf8_next[9 * 12]" in source
    assert "uint64_t" not in source.split("#include \"utf8.h\"")[1]
    assert "--c-strategy table" in source
    (workdir / "grammars" / "big.abnf").write_text('r = "abcdefghijkl"\n')
    assert run("compile", "grammars/big.abnf", "--out", "t", "--lang", "c", "--c-strategy", "shift") == 2
    assert "at most 10 states" in capsys.readouterr().err


def test_lint_reads_standard_input(workdir):
    result = _abnfc("lint", "-", cwd=workdir, input='r = "a" r / "b"\n')
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<stdin>: 1 rule, start rule r, encoding octets, 0 warnings; recursive")


def test_check_without_files_on_a_terminal_prints_usage(workdir):
    """Under a terminal, `check GRAMMAR` does not wait silently for input that never comes."""
    import pty

    main_fd, terminal = pty.openpty()
    try:
        result = subprocess.run([sys.executable, "-m", "abnfc", "check", "grammars/utf8.abnf"], cwd=workdir,
                                stdin=terminal, capture_output=True, text=True, timeout=60)
    finally:
        os.close(main_fd)
        os.close(terminal)
    assert result.returncode == 2
    assert "standard input is a terminal" in result.stderr


def test_closed_stdin_is_an_ordinary_error(workdir):
    for args in (["check", "grammars/utf8.abnf", "-"], ["lint", "-"]):
        result = subprocess.run(" ".join([sys.executable, "-m", "abnfc", *args]) + " <&-", shell=True,
                                cwd=workdir, capture_output=True, text=True)
        assert result.returncode == 2, (args, result.stderr)
        assert "closed" in result.stderr and "internal error" not in result.stderr


def test_a_utf16_grammar_is_named_as_such(workdir, capsys):
    (workdir / "grammars" / "wide.abnf").write_bytes('r = "a"\n'.encode("utf-16"))
    assert run("lint", "grammars/wide.abnf") == 2
    assert "looks like UTF-16" in capsys.readouterr().err


def test_exit_statuses_are_documented():
    """Every exit status the command line uses is in the README and in abnfc.cli's docstring."""
    import abnfc.cli

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert abnfc.cli.__doc__ is not None
    for number in (0, 1, 2, 3, 130, 141):
        assert f"{number}" in abnfc.cli.__doc__
    section = readme.split("Exit status")[1][:1500]
    for status in ("0", "1", "2", "3", "130", "141"):
        assert f"`{status}`" in section or f" {status} " in section, status


def test_a_mistyped_option_or_command_gets_a_suggestion(workdir, capsys):
    with pytest.raises(SystemExit) as caught:
        run("compile", "grammars/utf8.abnf", "--langs", "c")
    assert caught.value.code == 2
    assert "unrecognized arguments: --langs c; did you mean --lang?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run("lnt", "grammars/utf8.abnf")
    assert "unknown command 'lnt'; did you mean lint?" in capsys.readouterr().err


def test_an_underscore_in_a_rule_name_gets_a_hint(workdir, capsys):
    (workdir / "u.abnf").write_text('my_rule = "a"\n')
    assert run("lint", "u.abnf") == 2
    err = capsys.readouterr().err
    assert "u.abnf:1:3: error: unexpected '_'" in err
    assert "note: ABNF rule names are letters, digits and hyphens (RFC 5234 section 2.1)" in err


def test_one_byte_is_singular(workdir, capsys, monkeypatch):
    (workdir / "one.txt").write_bytes(b"a")
    assert run("check", "grammars/utf8.abnf", "one.txt") == 0
    assert capsys.readouterr().out == "one.txt: valid (1 byte)\n"


def test_a_missing_grammar_is_the_only_missing_argument(capsys):
    """check's FILE arguments may be none (standard input is read): the error names GRAMMAR
    alone (argparse marked a '*' positional without a default as required, 'GRAMMAR, FILE')."""
    from abnfc.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["check"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "the following arguments are required: GRAMMAR\n" in err
