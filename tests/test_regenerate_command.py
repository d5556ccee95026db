"""The command in a generated file's header regenerates it, copied as it is into a shell in the
file's folder, whatever the grammar's path holds (issue 23, F11): a ``*/`` that would end a C or
JavaScript block comment, a newline that would end a Python comment.  Each header's command is
run by bash and must find every file up to date; the C still compiles.  And the headers do not
depend on the folder compile ran in nor on the other languages it wrote, so ``--check`` agrees
from anywhere and with any subset of --lang (issue 17)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from abnfc.commands.compile import shell_word

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ["ev*", "new\nline", "it's $(here)", "tab\there"]


def command_in(text: str, comment: str) -> str:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "regenerate with" in line)
    return lines[at + 1].removeprefix(comment).strip()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash runs the command")
@pytest.mark.parametrize("folder", FOLDERS)
def test_the_header_command_regenerates_the_files(tmp_path, folder):
    (tmp_path / folder).mkdir()
    shutil.copy(ROOT / "grammars" / "utf8.abnf", tmp_path / folder / "g.abnf")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    first = subprocess.run(["abnfc", "compile", f"{folder}/g.abnf", "--out", "out", "--lang", "python,c,js"],
                           cwd=tmp_path, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    out = tmp_path / "out"
    for name, comment in (("g.py", "#"), ("g.c", " *"), ("g.h", " *"), ("g.mjs", "//")):
        text = (out / name).read_text()
        if name.endswith((".c", ".h")):  # the first comment ends where the header ends, not inside it
            assert "regenerate with" in text.split("*/")[0]
        command = command_in(text, comment)
        again = subprocess.run(["bash", "-c", command], cwd=out, env=env, capture_output=True, text=True)
        assert again.returncode == 0 and "up to date, nothing written" in again.stdout, (name, command, again)
    assert subprocess.run(["gcc", "-std=c99", "-fsyntax-only", str(out / "g.c")], cwd=out).returncode == 0


def test_shell_words_carry_no_comment_end_and_no_control_character():
    for word in ["a*/b", "x\ny*/z", "plain", "it's", "back\\slash\n"]:
        quoted = shell_word(word)
        assert "*/" not in quoted and all(ch.isprintable() for ch in quoted)
        echoed = subprocess.run(["bash", "-c", f"printf %s {quoted}"], capture_output=True, text=True)
        assert echoed.stdout == word, (word, quoted)


def test_check_agrees_from_any_folder_and_with_any_subset_of_languages(tmp_path):
    shutil.copytree(ROOT / "grammars", tmp_path / "grammars")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def abnfc(cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["abnfc", *arguments], cwd=cwd, env=env, capture_output=True, text=True)

    assert abnfc(tmp_path, "compile", "grammars/utf8.abnf", "--out", "gen").returncode == 0
    for cwd, grammar, out, langs in ((tmp_path / "gen", "../grammars/utf8.abnf", ".", "python"),
                                     (tmp_path / "grammars", "utf8.abnf", "../gen", "c,js"),
                                     (tmp_path, "grammars/utf8.abnf", "gen", "html,python")):
        checked = abnfc(cwd, "compile", grammar, "--out", out, "--lang", langs, "--check")
        assert checked.returncode == 0 and "up to date" in checked.stdout, (cwd, langs, checked.stderr)
