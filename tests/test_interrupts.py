"""Ctrl-C at any moment of any command: no traceback, a documented exit status, and no temporary
file or folder left behind.

Each command runs once to completion to learn how long it takes, then is started again (through
the ``abnfc`` script, as users run it) and interrupted (SIGINT) at moments spread over its run:
from the moment the script has imported ``abnfc.__main__`` (before that, a Ctrl-C interrupts
Python's own start-up, which prints its own traceback whatever the program; the import is seen
through ``PYTHONPROFILEIMPORTTIME``) to a little after the end.
Temporary files go to a fresh TMPDIR, which must be empty afterwards; output folders must hold
no ``*.tmp`` file.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.signals import as_in_a_terminal

ROOT = Path(__file__).resolve().parents[1]
MOMENTS = (0.0, 0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.05)  # fractions of a run after start-up
SCRIPT = Path(sys.executable).parent / "abnfc"
# A command's arguments; OUT is replaced by an output folder, INPUT by a small input file.
COMMANDS = {
    "compile": ["compile", "grammars/utf8.abnf", "--out", "OUT"],
    "check": ["check", "grammars/uri.abnf", "README.md", "--engine", "dfa"],
    "dfa": ["dfa", "grammars/uri.abnf", "--format", "json"],
    "lint": ["lint", "grammars/uri.abnf"],
    "explain": ["explain", "grammars/utf8.abnf", "INPUT", "--steps"],
    "railroad": ["railroad", "grammars/uri.abnf", "--out", "OUT"],
    "vectors": ["vectors", "grammars/datetime.abnf"],
    "crosscheck": ["crosscheck", "grammars/utf8.abnf", "--cmd", f"{sys.executable} examples/cpython_decode.py",
                   "--sample", "2000", "--random", "200"],
    "diff": ["diff", "grammars/utf8.abnf", "grammars/variants/wtf8.abnf"],
}
# 130: abnfc stopped; -2: killed by the signal (a shell shows 130 too), which Python does when
# it arrives while the interpreter is shutting down, after abnfc has finished.
STATUSES = (0, 1, 130, -signal.SIGINT)
RETRIES = 6


def _argv(words: list[str], tmp: Path) -> list[str]:
    (tmp / "input.txt").write_bytes("aä€😀 grüße".encode() * 20)
    replaced = {"OUT": str(tmp / "out"), "INPUT": str(tmp / "input.txt")}
    return [str(SCRIPT), *(replaced.get(word, word) for word in words)]


def _start(argv: list[str], temporary: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONPROFILEIMPORTTIME": "1"}
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=as_in_a_terminal)


def _wait_for_abnfc(process: subprocess.Popen[str]) -> list[str]:
    """Read standard error up to the line saying ``abnfc.__main__`` was imported; those lines."""
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line)
        if line.rstrip().endswith("| abnfc.__main__"):
            break
    return lines


def _duration(argv: list[str], temporary: Path) -> float:
    """The longest of three uninterrupted runs (a safe start-up bound on a loaded machine)."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        process = _start(argv, temporary)
        _, err = process.communicate(timeout=300)
        times.append(time.perf_counter() - started)
        assert process.returncode in (0, 1), err
    return max(times)


@pytest.mark.slow
@pytest.mark.skipif(not SCRIPT.exists(), reason="the abnfc script is not installed beside this Python")
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_ctrl_c_at_any_moment(name: str, tmp_path: Path) -> None:
    argv = _argv(COMMANDS[name], tmp_path)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    duration = _duration(argv, temporary)
    statuses = [_interrupt(argv, temporary, tmp_path / "out", duration * moment) for moment in MOMENTS]
    # On a loaded machine this process can be descheduled while the command runs to its end, so
    # a run the signal did not reach is tried again at once after start-up, a few times.
    for _ in range(RETRIES):
        if any(status in (130, -signal.SIGINT) for status in statuses):
            break
        statuses.append(_interrupt(argv, temporary, tmp_path / "out", 0.0))
    assert any(status in (130, -signal.SIGINT) for status in statuses), statuses  # some really interrupted


def _interrupt(argv: list[str], temporary: Path, out: Path, delay: float) -> int:
    """Run once, send SIGINT ``delay`` seconds after start-up; check what it left; its status."""
    process = _start(argv, temporary)
    started = _wait_for_abnfc(process)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=300)
    err = "".join(started) + rest
    assert process.returncode in STATUSES, (delay, err)
    assert "Traceback" not in err, (delay, err)
    assert sorted(temporary.iterdir()) == [], (delay, "temporary files left")
    assert not [path for path in (out.iterdir() if out.exists() else ()) if path.suffix == ".tmp"]
    return process.returncode


def test_a_ctrl_c_python_cannot_raise_is_delivered_again():
    """A Ctrl-C that lands in a callback Python cannot raise from (an import's module-lock
    callback, or here a __del__) used to print 'Exception ignored ... Traceback' and be lost:
    a CI run saw it.  It is raised again where the command line catches it: exit 130, quietly."""
    program = textwrap.dedent("""\
        import sys, time
        import abnfc.__main__ as entry, abnfc.cli

        class Interrupted:
            def __del__(self):
                raise KeyboardInterrupt

        def main(argv=None):
            Interrupted()  # dropped at once: its __del__ raises where Python cannot
            time.sleep(30)
            print("slept")  # the Ctrl-C came too late: after the sleep, not at once
            return 0

        abnfc.cli.main = main
        sys.exit(entry.run())
        """)
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                            preexec_fn=as_in_a_terminal)
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    assert "slept" not in result.stdout


def test_a_ctrl_c_python_wrapped_is_still_an_interrupt(monkeypatch, capsys):
    """A Ctrl-C that lands in a class's creation while a module is imported reaches the command
    line as a RuntimeError ('Error calling __set_name__ ...'), with the KeyboardInterrupt as its
    cause; a full run saw abnfc call it an internal error.  It exits 130, quietly."""
    import abnfc.commands.lint as lint
    from abnfc.cli import main

    def interrupted(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as cause:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance 'span'") from cause

    monkeypatch.setattr(lint, "run", interrupted)
    assert main(["lint", str(Path(__file__).parents[1] / "grammars" / "utf8.abnf")]) == 130
    assert "internal error" not in capsys.readouterr().err
