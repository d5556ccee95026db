"""Golden files: what abnfc prints for a few fixed commands, compared byte for byte with
tests/golden/.  They hold the notes, trees and steps as a reader sees them, so any change to
that text shows up in review.  After a deliberate change, regenerate them with
``ABNFC_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and read the diff."""
from __future__ import annotations

import os
import shutil

import pytest
from helpers.cli import run_cli
from helpers.paths import ROOT

GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("ABNFC_UPDATE_GOLDEN") == "1"
CASES = {  # file -> the command's arguments (INPUT: a copy of the case's input, named input.bin)
    "utf8-dfa.txt": ("dfa", "grammars/utf8.abnf"),
    "datetime-dfa.txt": ("dfa", "grammars/datetime.abnf"),
    "utf8-explain-steps.txt": ("explain", "grammars/utf8.abnf", "INPUT", "--steps"),
}
INPUTS = {"utf8-explain-steps.txt": b"abc\xed\xa0\x80"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_matches_its_golden_file(name, capsys, monkeypatch, tmp_path):
    shutil.copytree(ROOT / "grammars", tmp_path / "grammars")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "input.bin").write_bytes(INPUTS.get(name, b""))
    arguments = ["input.bin" if word == "INPUT" else word for word in CASES[name]]
    _, out, err = run_cli(capsys, *arguments)
    assert err == ""
    if UPDATE:
        (GOLDEN / name).write_text(out, encoding="utf-8")
    assert out == (GOLDEN / name).read_text(encoding="utf-8"), f"{name} differs (see the module's docstring)"
