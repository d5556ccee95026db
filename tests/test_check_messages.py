"""What ``abnfc check`` and ``abnfc explain`` say about a rejected input: the line of bytes
around the error in the reader's language (it was English in every language), and "the end of
the input" among what was expected where the input before the error is a match (trailing bytes),
with every engine."""
from __future__ import annotations

import pytest
from conftest import ROOT

from abnfc.cli import main
from abnfc.i18n import translator

DATETIME = str(ROOT / "grammars" / "datetime.abnf")
JSON = str(ROOT / "grammars" / "json.abnf")
UTF8 = str(ROOT / "grammars" / "utf8.abnf")
BYTES_LINE = {"de": "Bytes ab Position 0:", "zh_CN": "从偏移量 0 起的字节：", "ja": "オフセット 0 からのバイト："}


@pytest.mark.parametrize("locale", sorted(BYTES_LINE))
def test_explains_line_of_bytes_is_translated(locale, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\xed\xa0\x80")
    assert main(["explain", UTF8, str(bad), "--locale", locale]) == 1
    out = capsys.readouterr().out
    assert f"  {BYTES_LINE[locale]} 6f 6b ed [a0] 80" in out
    assert "bytes from offset" not in out


@pytest.mark.parametrize("locale", sorted(BYTES_LINE))
def test_checks_line_of_bytes_is_translated(locale, tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\xed\xa0\x80")
    monkeypatch.setenv("LANGUAGE", locale)
    assert main(["check", UTF8, str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"  {BYTES_LINE[locale]} 6f 6b ed [a0] 80" in out
    assert translator(locale)("bytes from offset {offset}:") != "bytes from offset {offset}:"


@pytest.mark.parametrize("engine", ["auto", "dfa", "interpreter"])
def test_trailing_bytes_after_a_complete_input_expect_the_end(engine, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    data = tmp_path / "dt.txt"
    data.write_bytes(b"2024-01-01T00:00:00Zx")
    assert main(["check", "--engine", engine, DATETIME, str(data)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"{data}: invalid at offset 20: unexpected byte 0x78 'x'; expected the end of the input"


@pytest.mark.parametrize("engine", ["auto", "interpreter"])
def test_bytes_that_may_follow_a_complete_input_come_with_the_end(engine, tmp_path, capsys, monkeypatch):
    """JSON after ``[1]`` takes white space or the end; after ``[1`` not the end (a pushdown
    validator and the interpreter alike)."""
    monkeypatch.setenv("LANGUAGE", "en")
    (tmp_path / "a.json").write_bytes(b"[1]x")
    (tmp_path / "b.json").write_bytes(b"[1x")
    assert main(["check", "--engine", engine, JSON, str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("expected %x09-0A / %x0D / %x20 (' ') or the end of the input")
    [second] = [line for line in lines if line.startswith(str(tmp_path / "b.json"))]
    assert "end of the input" not in second


def test_the_end_of_the_input_is_translated(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "de")
    data = tmp_path / "dt.txt"
    data.write_bytes(b"2024-01-01T00:00:00Zx")
    assert main(["check", DATETIME, str(data)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(translator("de")("; expected the end of the input"))
    assert "expected" not in first


def test_explain_says_the_input_could_also_have_ended(tmp_path, capsys):
    (tmp_path / "a.json").write_bytes(b"[1]x")
    (tmp_path / "b.json").write_bytes(b"[1x")
    assert main(["explain", JSON, str(tmp_path / "a.json"), "--locale", "en"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "or the end of the input: JSON-text is complete after 3 bytes"
    assert main(["explain", JSON, str(tmp_path / "b.json"), "--locale", "en"]) == 1
    assert "or the end of the input" not in capsys.readouterr().out
