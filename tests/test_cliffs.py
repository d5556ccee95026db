"""No cliffs: each grammar a fuzzing campaign found too slow or fatal now runs or is refused
cleanly, and faults of the environment (a full disk, a killed compile) lose nothing.

Speed itself is measured by bench/bench_frontend.py (linearity, with ratios); these tests check
the outcome at the sizes of the original findings, with generous timeouts that only catch hangs.
"""
from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from helpers.signals import as_in_a_terminal

from abnfc.cli import main


def lint(tmp_path: Path, text: str | bytes, capsys, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "g.abnf"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    status = main(["lint", str(path), *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_thousands_of_comment_and_blank_lines_between_rules(tmp_path, capsys):
    for filler in ("; comment\n", "\r\n", "   ; indented comment\n"):
        status, out, _ = lint(tmp_path, 'a = "x" b\n' + filler * 10_000 + 'b = "y"\n', capsys)
        assert status == 0 and "2 rules" in out
    # and inside a continued rule they are still skipped over
    status, out, _ = lint(tmp_path, 'a = "x"\n' + "; c\n" * 10_000 + '  / "y"\n', capsys)
    assert status == 0 and "1 rule," in out


def test_many_identical_warnings_are_summarised(tmp_path, capsys):
    status, out, err = lint(tmp_path, "r = " + '"a"' * 2000 + "\n", capsys)
    assert status == 0 and "1999 warnings" in out
    assert err.count("warning: no white space between") == 10
    assert "note: and 1,989 more warnings like these (elements without white space)" in err
    # the 6 KB line is quoted as a window (the file's path, whatever its length, aside)
    assert max(len(line.replace(str(tmp_path / "g.abnf"), "")) for line in err.splitlines()) < 200


def test_many_duplicate_definitions(tmp_path, capsys):
    status, _, err = lint(tmp_path, 'r = "a"\n' + 'r = "b"\n' * 10_000, capsys)
    assert status == 2
    assert err.count("is already defined at") == 10
    assert "and 9,990 more errors like these (rule defined twice)" in err


def test_many_undefined_rules_get_suggestions_from_an_index(tmp_path, capsys):
    names = [f"rule{i}" for i in range(3000)]
    text = "r = " + " / ".join(f"rul{i}e" for i in range(2000)) + "\n" + "".join(f'{n} = "x"\n' for n in names)
    status, _, err = lint(tmp_path, text, capsys)
    assert status == 2 and "and 1,990 more errors like these (undefined rule)" in err
    assert "undefined rule 'rul0e'; did you mean 'rule9'?" in err


def test_the_name_index_suggests_what_difflib_suggests():
    import difflib
    import random

    from abnfc.frontend.names import NameIndex

    class Rule:
        def __init__(self, name):
            self.name = name

    rng = random.Random(7)
    words = ["digit", "alpha", "hexdig", "uri-reference", "path-abempty", "ipv6address", "dec-octet",
             "pct-encoded", "utf8-tail", "quoted-string", "obs-text", "field-value"]
    names = sorted({f"{rng.choice(words)}{rng.choice(['', '-', '-x', '2', 's'])}" for _ in range(300)})
    index = NameIndex({name: Rule(name) for name in names})
    for name in names[:60]:
        typo = name[:2] + name[3:] if len(name) > 4 else name + "q"
        best = difflib.get_close_matches(typo, names, n=1, cutoff=0.6)
        assert index.suggest(typo) == (f"; did you mean '{best[0]}'?" if best else ""), typo


@pytest.mark.parametrize("order", ["forward", "backward"])
@pytest.mark.parametrize("length", [5_000, pytest.param(50_000, marks=pytest.mark.slow)])
def test_a_long_chain_of_rules(tmp_path, capsys, order, length):
    """Far deeper than Python's recursion limit: every stage walks rules without recursion."""
    rules = [f'r{i} = r{i + 1} "a"\n' for i in range(length)]
    if order == "backward":
        rules = rules[:1] + rules[1:][::-1]
    status, out, _ = lint(tmp_path, "".join(rules) + f'r{length} = "z"\n', capsys)
    assert status == 0 and f"{length + 1} rules" in out


@pytest.mark.slow
def test_a_hundred_thousand_alternatives(tmp_path, capsys):
    status, out, _ = lint(tmp_path, "r = " + " / ".join(f'"a{i}"' for i in range(100_000)) + "\n", capsys)
    assert status == 0 and "1 rule," in out


@pytest.mark.parametrize("text, message", [
    ("r = " + "1" * 5000 + '"a"\n', "1:5: error: repeat count too large: 11111111...1111 (5,000 digits)"),
    ("r = %d" + "1" * 5000 + "\n", "1:5: error: numeric value too large: %d11111111...1111 (5,000 digits)"),
    ("r = %x" + "F" * 5000 + "\n", "1:5: error: numeric value too large"),
    ('r = 4294967296"a"\n', "error: repeat count too large: 4294967296 (at most 1,000,000,000)"),
])
def test_numbers_of_any_length_get_a_located_error(tmp_path, capsys, text, message):
    status, _, err = lint(tmp_path, text, capsys)
    assert status == 2 and message in err and "internal error" not in err


def test_deep_nesting_with_adjacent_elements_does_not_recurse(tmp_path, capsys):
    text = '"z"'
    for _ in range(99):
        text = f'1*("a" / {text})'
    status, out, err = lint(tmp_path, f'r = {text}"b"\n', capsys)
    assert status == 0 and "1 warning" in out
    assert "no white space between 1*(\"a\" / 1*(\"a\" / 1*(\"a\" / ... and \"b\"" in err


@pytest.mark.parametrize("count, limit", [(8, ["--max-work", "2000000"]), pytest.param(13, [], marks=pytest.mark.slow)])
def test_a_dfa_too_costly_to_build_is_refused_quickly(tmp_path, capsys, count, limit):
    """256 one-byte alternatives made every subset large; the construction counts that work."""
    byte = "b = " + " / ".join(f"%x{i:02X}" for i in range(256)) + "\n"
    path = tmp_path / "g.abnf"
    path.write_text(f'r = *b "a" {count}b\n' + byte)
    assert main(["dfa", str(path), *limit]) == 2
    err = capsys.readouterr().err
    steps = "2,000,000" if limit else "20,000,000"
    assert f"{path}:1:1: error: the subset construction took more than {steps} steps" in err
    assert "--max-work" in err


def test_grammar_files_have_a_size_limit(tmp_path, capsys):
    huge = tmp_path / "huge.abnf"
    with huge.open("wb") as stream:
        stream.truncate(1 << 30)  # a sparse gigabyte
    assert main(["lint", str(huge)]) == 2
    assert "larger than 16 MiB" in capsys.readouterr().err
    assert main(["lint", "/dev/zero"]) == 2
    assert "larger than 16 MiB" in capsys.readouterr().err


def test_a_full_disk_is_the_users_error_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    real_replace = os.replace
    monkeypatch.setattr(os, "replace", no_space)
    status = main(["compile", str(ROOT / "grammars" / "utf8.abnf"), "--out", str(tmp_path / "out")])
    monkeypatch.setattr(os, "replace", real_replace)
    err = capsys.readouterr().err
    assert status == 2 and "no space left on the device" in err and "internal error" not in err
    assert list((tmp_path / "out").iterdir()) == []


def test_a_really_full_disk(tmp_path):
    """A 64 KiB tmpfs: the generated files do not fit."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        result = subprocess.run([sys.executable, "-m", "abnfc", "compile", str(ROOT / "grammars" / "uri.abnf"),
                                 "--out", str(mount)], capture_output=True, text=True)
        leftovers = sorted(path.name for path in mount.iterdir())
    finally:
        subprocess.run(["umount", str(mount)], check=True)
    assert result.returncode == 2, result.stderr
    assert "no space left on the device" in result.stderr and "Traceback" not in result.stderr
    assert not any(name.endswith(".tmp") for name in leftovers)


@pytest.mark.slow
def test_interrupting_compile_leaves_no_torn_or_temporary_file(tmp_path):
    """compile of the UTF-8 grammar (three languages) stopped at 40 different moments, by SIGTERM
    and SIGINT alternately: every file is absent or complete, and no temporary file remains."""
    out = tmp_path / "out"
    complete = {}
    started = time.perf_counter()  # the files name the command, --out included: use the same
    subprocess.run([sys.executable, "-m", "abnfc", "compile", str(ROOT / "grammars" / "utf8.abnf"), "--out",
                    str(out)], check=True, capture_output=True)
    whole = time.perf_counter() - started
    for path in out.iterdir():
        complete[path.name] = path.read_bytes()
    stopped = 0
    for attempt in range(40):
        if out.exists():
            for path in out.iterdir():
                path.unlink()
        process = subprocess.Popen([sys.executable, "-m", "abnfc", "compile", str(ROOT / "grammars" / "utf8.abnf"),
                                    "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=as_in_a_terminal)
        time.sleep(whole * (0.5 + attempt / 40))  # late in the run: the writing happens at the end
        process.send_signal(signal.SIGTERM if attempt % 2 else signal.SIGINT)
        _, err = process.communicate(timeout=120)
        stopped += process.returncode in (130, 143)
        # -2 and -15: the signal came before Python had started abnfc; nothing was written yet
        assert process.returncode in (0, 130, 143, -signal.SIGINT, -signal.SIGTERM), err
        assert "Traceback" not in err
        for path in out.iterdir() if out.exists() else ():
            assert not path.name.endswith(".tmp"), f"temporary file left: {path.name}"
            assert path.read_bytes() == complete[path.name], f"torn file: {path.name}"
    assert stopped > 0  # at least some runs were really interrupted


def test_exit_statuses_for_signals_are_documented():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for status in ("129", "130", "141", "143"):
        assert re.search(rf"`{status}`", readme), status


def test_write_is_not_split_by_a_signal(tmp_path):
    """The atomic write holds termination signals back until the file is in place.  In a fresh
    interpreter: signals reach only the main thread, and a test runner may use another one."""
    script = f"""
import os, signal
from pathlib import Path
from abnfc.commands.support import writing
target, seen = Path({str(tmp_path / "f.txt")!r}), []
signal.signal(signal.SIGTERM, lambda *a: seen.append(target.exists()))
with writing.signals_deferred():
    os.kill(os.getpid(), signal.SIGTERM)
    target.write_text("done")
    inside = list(seen)
print(inside, seen)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["[]", "[True]"], result  # delivered once the block ends, not inside
