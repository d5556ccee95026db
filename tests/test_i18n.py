"""Translations: the catalog template holds every message marked in the source, each catalog
(de, zh_CN, ja) translates every one of them keeping its placeholders, each committed .mo holds
exactly its .po, and the locale is chosen from --locale or the environment as gettext does."""
from __future__ import annotations

import re

import pytest
from conftest import ROOT

from abnfc.i18n import ENGLISH, LOCALE_DIR, LOCALES, choose, from_environment, supported, translator

babel_extract = pytest.importorskip("babel.messages.extract", reason="Babel (the test extra) is not installed")
pofile = pytest.importorskip("babel.messages.pofile")
mofile = pytest.importorskip("babel.messages.mofile")

TRANSLATED = [locale for locale in LOCALES if locale != ENGLISH]


def placeholders(text: str) -> set[str]:
    """``{name}`` and ``{name:,}`` (str.format), ``%(name)s``, ``%s`` and ``%r`` (argparse's)."""
    return set(re.findall(r"\{\w+(?:![rs])?(?::[^}]*)?\}|%\(\w+\)[sr]|%[sr]", text))


def _key(value):
    """A message's id or translation: a string, or a tuple of plural forms."""
    return tuple(value) if isinstance(value, (list, tuple)) else value


def read_po(path):
    with open(path, "rb") as stream:
        return {_key(m.id): _key(m.string) for m in pofile.read_po(stream) if m.id}


def _template() -> set:
    with open(LOCALE_DIR / "abnfc.pot", "rb") as stream:
        return {_key(m.id) for m in pofile.read_po(stream) if m.id}


def test_the_template_holds_every_message_marked_in_the_source():
    method_map = [("src/abnfc/**.py", "python")]
    keywords = {"_": None, "N_": None, "ngettext": (1, 2)}
    found = {_key(message) for _file, _line, message, _comments, _context
             in babel_extract.extract_from_dir(str(ROOT), method_map, keywords=keywords)}
    template = _template()
    assert found == template, "run the pybabel commands of docs/translations.md"
    assert len(template) > 50


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(locale):
    catalog = read_po(LOCALE_DIR / locale / "LC_MESSAGES" / "abnfc.po")
    assert set(catalog) == _template()
    for message, translation in catalog.items():
        forms = translation if isinstance(translation, tuple) else (translation,)
        wanted = placeholders(message[-1] if isinstance(message, tuple) else message)
        assert forms and all(forms), (locale, message)
        assert all(placeholders(form) == wanted for form in forms), (locale, message)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_committed_mo_file_holds_exactly_its_po_file(locale):
    folder = LOCALE_DIR / locale / "LC_MESSAGES"
    with open(folder / "abnfc.mo", "rb") as stream:
        compiled = {_key(m.id): _key(m.string) for m in mofile.read_mo(stream) if m.id}
    assert compiled == read_po(folder / "abnfc.po"), "run pybabel compile (docs/translations.md)"


def test_the_translator_translates_and_leaves_english_as_written():
    assert translator("de")("Steps") == "Schritte"
    assert translator("ja")("{count} times").format(count=2) == "2 回"
    assert translator(ENGLISH)("Steps") == "Steps"
    assert translator("zh_CN")("a message abnfc does not have") == "a message abnfc does not have"


@pytest.mark.parametrize("name, locale", [
    ("de", "de"), ("de_AT.UTF-8", "de"), ("ja_JP", "ja"), ("zh-Hans", "zh_CN"),
    ("zh_TW.UTF-8", None), ("zh-Hant", None), ("zh_SG", "zh_CN"),
    ("C", ENGLISH), ("POSIX", ENGLISH), ("en_GB.UTF-8", ENGLISH), ("fr_FR", None), ("", None),
])
def test_locale_names_map_to_catalogs(name, locale):
    assert supported(name) == locale


@pytest.mark.parametrize("environ, locale", [
    ({}, ENGLISH),
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANGUAGE": "fr:ja", "LANG": "de_DE.UTF-8"}, "ja"),  # LANGUAGE is a list, tried in order
    ({"LANGUAGE": "fr", "LANG": "de_DE.UTF-8"}, "de"),
    ({"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, ENGLISH),  # the first variable set decides
    ({"LC_MESSAGES": "zh_CN.UTF-8"}, "zh_CN"),
])
def test_the_environment_is_read_in_gettexts_order(environ, locale):
    assert from_environment(environ) == locale


def test_an_explicit_locale_wins_and_an_unknown_one_is_refused():
    assert choose("ja", {"LANG": "de_DE.UTF-8"}) == "ja"
    assert choose(None, {"LANG": "de_DE.UTF-8"}) == "de"
    with pytest.raises(ValueError, match="no translation for locale 'xx'"):
        choose("xx")


def test_a_locale_without_a_catalog_is_an_error_naming_those_there_are(capsys, at_root):
    """zh_TW used to be answered in simplified Chinese, silently (issue 23)."""
    from abnfc.cli import main

    assert main(["railroad", "grammars/utf8.abnf", "--rule", "UTF8-2", "--locale", "zh_TW"]) == 2
    assert "no translation for locale 'zh_TW'; choose from en, de, zh_CN, ja" in capsys.readouterr().err
    assert from_environment({"LANG": "zh_TW.UTF-8"}) == ENGLISH  # the environment falls back to English


def test_every_help_text_of_the_command_line_is_in_the_catalogs():
    """The command line's help is translated (issue 17, item 4): every option's help, each
    command's description and its examples' heading are messages of the catalogs."""
    from abnfc.cli import DESCRIPTION, command_parser
    from abnfc.commands import COMMANDS, command

    template = _template()
    texts = {DESCRIPTION}
    for name in COMMANDS:
        parser = command_parser(name)
        texts |= {command(name).HELP, command(name).EXAMPLE.partition("\n")[0]}
        texts |= {action.help for action in parser._actions if action.help and "{" not in action.help}
    formatted = ("the language of", "comma-separated languages, from")  # filled in when the parser is built
    missing = sorted(text for text in texts if text not in template and not text.startswith(formatted))
    assert not missing


@pytest.mark.parametrize(("environ", "words"), [
    ({"LANGUAGE": "de"}, ["Aufruf: abnfc check [-h]", "Positionsargumente:", "Optionen:",
                          "Eingabedateien gegen eine Grammatik prüfen",
                          "bei Fehlern Python-Tracebacks zeigen"]),
    # argparse's intermixed parsing cut len("usage: ") characters off any prefix: "使い方: nfc check"
    ({"LANGUAGE": "ja"}, ["使い方: abnfc check [-h]", "位置引数:", "入力ファイルを文法で検証します"]),
    ({"LANGUAGE": "zh_CN"}, ["用法：abnfc check [-h]", "位置参数:", "用文法验证输入文件"]),
])
def test_help_speaks_the_environments_language(environ, words):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "abnfc", "check", "--help"], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", **environ}, cwd=ROOT)
    assert result.returncode == 0
    assert all(word in result.stdout for word in words), result.stdout


def test_errors_speak_the_chosen_language(capsys, tmp_path):
    """argparse's errors, grammar diagnostics and check's verdicts, in German."""
    from abnfc.cli import main

    grammar = tmp_path / "g.abnf"
    grammar.write_text('r = "a" b_c\n')
    (tmp_path / "in.txt").write_text("a")
    with pytest.raises(SystemExit) as stop:
        main(["explain", "--locale", "de", str(grammar), "--bogus"])
    assert stop.value.code == 2
    assert "Fehler: unbekannte Argumente: --bogus" in capsys.readouterr().err
    assert main(["explain", "--locale", "de", str(grammar), str(tmp_path / "in.txt")]) == 2
    err = capsys.readouterr().err
    assert "g.abnf:1:10: Fehler: unerwartet '_'" in err
    assert "Hinweis: ABNF-Regelnamen bestehen aus Buchstaben, Ziffern und Bindestrichen" in err
    grammar.write_text('r = "a"\n')
    assert main(["explain", "--locale", "ja", str(grammar), str(tmp_path / "in.txt")]) == 0


def _run_abnfc(*arguments: str, language: str) -> str:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "abnfc", *arguments], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "LANGUAGE": language}, cwd=ROOT)
    return result.stdout + result.stderr


def test_reports_speak_the_environments_language_and_vectors_stay_data():
    """crosscheck's and diff's reports are sentences the reader reads, so they are translated;
    the vectors' notes are data, the same on every machine, as generated files are."""
    out = _run_abnfc("crosscheck", "grammars/utf8.abnf", "--cmd", "python3 examples/surrogates_allowed.py",
                     "--exhaustive", "1", "--sample", "0", "--random", "0", language="de")
    assert "Widersprüche:" in out and "die Implementierung nimmt ED A0 80 an; die Grammatik verlangt" in out
    out = _run_abnfc("diff", "grammars/utf8.abnf", "grammars/variants/wtf8.abnf", language="ja")
    assert "A と B は異なります" in out and "B のみ: 違い 2 件" in out
    german = _run_abnfc("vectors", "grammars/utf8.abnf", language="de")
    assert german == _run_abnfc("vectors", "grammars/utf8.abnf", language="en") and "transition:" in german


def test_numbers_take_the_locales_thousands_separator():
    """German reads 2,642 as a fraction: its messages group thousands with a point and write
    fractions with a comma; Chinese, Japanese and English keep the comma and the point."""
    from abnfc.i18n import translation

    message = "no disagreement: the implementation agrees with the grammar on all {total:,} inputs"
    assert "140.426 Eingaben" in translation("de").gettext(message).format(total=140426)
    assert "140,426" in translation("ja").gettext(message).format(total=140426)
    assert "140,426 inputs" in translation(ENGLISH).gettext(message).format(total=140426)
    timeout = "the program did not exit within {seconds:g} s (--timeout)"
    assert "0,5 s" in translation("de").gettext(timeout).format(seconds=0.5)
    assert "0.5 秒" in translation("ja").gettext(timeout).format(seconds=0.5)
