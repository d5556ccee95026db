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
    return set(re.findall(r"\{\w+\}", text))


def read_po(path):
    with open(path, "rb") as stream:
        return {m.id: m.string for m in pofile.read_po(stream) if m.id}


def test_the_template_holds_every_message_marked_in_the_source():
    method_map = [("src/abnfc/**.py", "python")]
    found = {message for _file, _line, message, _comments, _context
             in babel_extract.extract_from_dir(str(ROOT), method_map, keywords={"_": None, "N_": None})}
    with open(LOCALE_DIR / "abnfc.pot", "rb") as stream:
        template = {m.id for m in pofile.read_po(stream) if m.id}
    assert found == template, "run the pybabel commands of README.md's Translations section"
    assert len(template) > 50


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(locale):
    catalog = read_po(LOCALE_DIR / locale / "LC_MESSAGES" / "abnfc.po")
    with open(LOCALE_DIR / "abnfc.pot", "rb") as stream:
        template = {m.id for m in pofile.read_po(stream) if m.id}
    assert set(catalog) == template
    for message, translation in catalog.items():
        assert translation, (locale, message)
        assert placeholders(translation) == placeholders(message), (locale, message)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_committed_mo_file_holds_exactly_its_po_file(locale):
    folder = LOCALE_DIR / locale / "LC_MESSAGES"
    with open(folder / "abnfc.mo", "rb") as stream:
        compiled = {m.id: m.string for m in mofile.read_mo(stream) if m.id}
    assert compiled == read_po(folder / "abnfc.po"), "run pybabel compile (README.md, Translations)"


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
