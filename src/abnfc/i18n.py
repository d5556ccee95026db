"""Translations of what abnfc tells people: GNU gettext catalogs, managed with Babel.

The English text in the source is the message id (marked ``_("...")`` or ``N_("...")``); the
catalogs ``abnfc/locale/<locale>/LC_MESSAGES/abnfc.po`` translate it, and their compiled
``abnfc.mo`` files are committed next to them, so a fresh clone needs no build step and the
running program needs nothing beyond the standard library's :mod:`gettext`.  Babel (the test
extra) extracts the messages and compiles the catalogs; a test checks that every message has a
translation in every catalog and that each ``.mo`` holds exactly its ``.po``.

The locale comes from an explicit choice (``--locale``) or, for text printed to a terminal, from
the environment in gettext's order: ``LANGUAGE`` (a colon-separated list), ``LC_ALL``,
``LC_MESSAGES``, ``LANG``.  Generated files never look at the environment, so they are the same
on every machine.  Grammar text, rule names and byte values are never translated.

The command line's own words (its help, argparse's messages, errors in the grammar and about
the files named) go through :func:`_` and :func:`ngettext`, which speak the locale the command
line chose with :func:`use` for the run, and English to every other caller of the library.
argparse's messages are in the catalogs too (:data:`ARGPARSE_MESSAGES`): argparse translates
them through a ``_`` of its own, which the command line points at :func:`_`.
"""
from __future__ import annotations

import contextlib
import gettext
import os
import string
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path

DOMAIN = "abnfc"
ENGLISH = "en"
LOCALES = (ENGLISH, "de", "zh_CN", "ja")  # English is the source text; the others have catalogs
LOCALE_NAMES = {ENGLISH: "English", "de": "Deutsch", "zh_CN": "中文", "ja": "日本語"}
LOCALE_DIR = Path(__file__).parent / "locale"
ENVIRONMENT_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
TRADITIONAL = {"TW", "HK", "MO", "HANT"}  # Chinese regions and script written in traditional characters

Translate = Callable[[str], str]


def N_(message: str) -> str:  # the conventional name, which Babel extracts
    """Marks ``message`` for translation where it is defined; it is translated where shown."""
    return message


def supported(name: str) -> str | None:
    """The catalog for a locale name such as ``de``, ``de_AT.UTF-8``, ``zh-Hans`` or ``ja_JP``;
    None when abnfc has none.  Chinese gets the simplified-script ``zh_CN`` catalog, except where
    the name asks for the traditional script (``zh_TW``, ``zh_HK``, ``zh_MO``, ``zh-Hant``), which
    abnfc does not have: those are refused, not answered in another script."""
    base = name.split(".")[0].split("@")[0].replace("-", "_")
    if not base or base in ("C", "POSIX"):
        return ENGLISH if base else None
    language, *rest = base.split("_")
    if language.lower() == "zh":
        return None if {part.upper() for part in rest} & TRADITIONAL else "zh_CN"
    return language.lower() if language.lower() in LOCALES else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The locale the environment asks for, in gettext's order; English when none is supported."""
    environ = os.environ if environ is None else environ
    for variable in ENVIRONMENT_VARIABLES:
        value = environ.get(variable, "")
        if not value:
            continue
        for name in value.split(":") if variable == "LANGUAGE" else [value]:
            found = supported(name)
            if found:
                return found
        if variable != "LANGUAGE":
            return ENGLISH  # the first variable that is set decides, as in gettext
    return ENGLISH


def choose(explicit: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``--locale`` when given (ValueError when abnfc has no such catalog), else the environment."""
    if explicit:
        found = supported(explicit)
        if found is None:
            raise ValueError(f"no translation for locale {explicit!r}; choose from {', '.join(LOCALES)}")
        return found
    return from_environment(environ)


GROUPING = {"de": "."}  # thousands separators other than English's comma (2.642 Eingaben; 0,5 s)


class Message(str):
    """A translated message whose ``format`` writes the numbers of ``{count:,}`` with the
    locale's thousands separator, and fractions with its decimal mark (German reads ``2,642``
    as a fraction and writes ``0,5 s``)."""

    separator = ","

    def format(self, /, *args: object, **kwargs: object) -> str:
        if self.separator == ",":
            return str.format(self, *args, **kwargs)
        return _GroupingFormatter(self.separator).vformat(self, args, kwargs)


class _GroupingFormatter(string.Formatter):
    def __init__(self, separator: str):
        self.separator = separator

    def format_field(self, value: object, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        if isinstance(value, float):  # where the point groups thousands, the comma marks decimals
            return text.replace(".", "\0").replace(",", self.separator).replace("\0", ",")
        return text.replace(",", self.separator) if "," in format_spec and isinstance(value, int) else text


class _Translations(gettext.GNUTranslations):
    """A catalog whose messages are :class:`Message` objects of its locale."""

    separator = ","

    def gettext(self, message: str) -> str:
        return self._message(super().gettext(message))

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self._message(super().ngettext(msgid1, msgid2, n))

    def _message(self, text: str) -> Message:
        found = Message(text)
        found.separator = self.separator
        return found


@cache
def translation(locale: str) -> gettext.NullTranslations:
    """The catalog of ``locale`` (one of :data:`LOCALES`); English is the messages themselves."""
    if locale == ENGLISH:
        return gettext.NullTranslations()
    found = gettext.translation(DOMAIN, str(LOCALE_DIR), languages=[locale], class_=_Translations)
    found.separator = GROUPING.get(locale, ",")
    return found


def number(count: int) -> str:
    """``2,642``, in the thousands separator of the locale :func:`use` chose."""
    return f"{count:,}".replace(",", getattr(_current, "separator", ","))


def translator(locale: str) -> Translate:
    return translation(locale).gettext


def translate_all(locale: str, messages: Iterable[str]) -> dict[str, str]:
    """Message -> translation, for pages that translate at run time (the book's tester)."""
    _ = translator(locale)
    return {message: _(message) for message in messages}




_current: gettext.NullTranslations = gettext.NullTranslations()  # English until the command line chooses
_current_locale = ENGLISH


def use(locale: str) -> None:
    """The locale of :func:`_` and :func:`ngettext` from here on (the command line's choice)."""
    global _current, _current_locale
    _current, _current_locale = translation(locale), locale


def current() -> str:
    """The locale :func:`use` chose (for a child process that is to speak it too)."""
    return _current_locale


@contextlib.contextmanager
def speaking(locale: str) -> Iterator[None]:
    """:func:`use` ``locale`` for the messages made inside the block, then the locale before
    (for a generated file, whose language is its own option, never the command line's)."""
    global _current, _current_locale
    previous = _current, _current_locale
    _current, _current_locale = translation(locale), locale
    try:
        yield
    finally:
        _current, _current_locale = previous


def _(message: str) -> str:
    """``message`` in the locale :func:`use` chose (English by default)."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``singular``/``plural`` for ``count`` in the chosen locale's plural rules."""
    return _current.ngettext(singular, plural, count)



# argparse's messages that a user of abnfc can see, as argparse writes them (Python 3.11-3.13),
# so that the catalogs translate them too.
ARGPARSE_MESSAGES = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("show program's version number and exit"), N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"), N_("not allowed with argument %s"), N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"), N_("one of the arguments %s is required"),
    N_("expected one argument"), N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("%(prog)s: error: %(message)s\n"),
    N_("can't open '%(filename)s': %(error)s"),
)
