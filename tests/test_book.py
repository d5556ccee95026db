"""The grammar book (``abnfc compile --lang html``) as a file: self-contained, every rule linked
and drawn, used-by lists, the automaton's tables with notes, a tester only where a DFA exists,
translated labels.  What the page does in a browser is tested in test_browser.py."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from conftest import ROOT, grammar_from_text

from abnfc import api
from abnfc.backends.html.plan import comment_safe, script_safe
from abnfc.backends.html.runner import validator_source
from abnfc.cli import main
from abnfc.errors import AbnfError
from abnfc.pipeline import Compilation

GRAMMARS = ["utf8", "uri", "datetime", "email"]


class Page(HTMLParser):
    """The ids, links, external references and scripts of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.external: list[str] = []
        self.scripts: list[dict] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if "id" in found:
            self.ids.add(found["id"])
        if tag == "a" and "href" in found:
            self.links.append(found["href"])
        for name in ("src", "href", "xlink:href", "action", "data"):
            value = found.get(name) or ""
            if value and not value.startswith("#"):
                self.external.append(f"{tag} {name}={value}")
        if tag in ("link", "iframe", "img", "object", "embed"):
            self.external.append(tag)
        if tag == "script":
            self.scripts.append(found)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("books")
    for name in GRAMMARS:
        assert main(["compile", str(ROOT / "grammars" / f"{name}.abnf"), "--lang", "html", "--out", str(out),
                     "--prefix", name]) == 0
    return {name: (out / f"{name}.html").read_text(encoding="utf-8") for name in GRAMMARS}


@pytest.mark.parametrize("name", GRAMMARS)
def test_the_book_is_one_self_contained_file_with_every_rule_linked_and_drawn(name, pages):
    text = pages[name]
    page = Page(text)
    assert page.external == [], "the book needs nothing beyond itself"
    assert "url(" not in text and "@import" not in text and "http://" not in text.split("-->", 1)[1] \
        .replace("http://www.w3.org/", "")
    own = [rule.name for rule in api.load_grammar(ROOT / "grammars" / f"{name}.abnf").ast.rules]
    for rule in own:
        assert f"rule-{rule.lower()}" in page.ids, rule
    for link in page.links:
        assert link[1:] in page.ids, f"dangling link {link}"
    sections = text.split('<article class="rule"')[1:]
    assert len(sections) >= len(set(own))
    assert all(section.count('<svg class="railroad-diagram"') == 1 for section in sections)


def test_utf8_book_lists_who_uses_each_rule_and_what_each_state_expects(pages):
    text = pages["utf8"]
    tail = re.search(r'id="rule-utf8-tail".*?<span class="used-by">(.*?)</span>', text, re.S)
    assert tail is not None
    assert re.findall(r">([^<]+)</a>", tail.group(1)) == ["UTF8-2", "UTF8-3", "UTF8-4"]
    assert "after %xE0: expects %xA0-BF (UTF8-3 alternative 1, element 2)" in text
    assert '<textarea id="input"' in text and text.count('<script type="module">') == 1


@pytest.mark.parametrize("name", ["utf8", "uri", "datetime"])
def test_regular_grammars_get_a_tester_running_the_javascript_backends_validator(name, pages):
    text = (ROOT / "grammars" / f"{name}.abnf").read_text(encoding="utf-8")
    compilation = Compilation(grammar_from_text(text, f"grammars/{name}.abnf"))
    module = compilation.files(["js"], name, "test")[f"{name}.mjs"]
    inlined = validator_source(pages[name])
    command = f"abnfc compile grammars/{name}.abnf --prefix {name} --lang html --out "
    assert command in inlined  # the header says how the page was made; all else is the same module

    def body(code: str) -> list[str]:  # without the command in the header
        return [line for line in code.splitlines() if command not in line and line != "//     test"]
    assert body(inlined) == body(module)
    assert "No tester" not in pages[name]


def test_a_recursive_grammar_gets_the_book_without_the_tester_and_says_why(pages):
    text = pages["email"]
    assert "<textarea" not in text and "<script" not in text
    assert '<p id="no-tester" class="notice">No tester for this grammar: it is recursive (comment -&gt; ccontent ' \
           '-&gt; comment)' in text
    assert 'id="rule-addr-spec"' in text
    with pytest.raises(AbnfError, match="no validator"):
        validator_source(text)


def test_python_c_and_js_still_refuse_a_self_embedding_grammar(capsys):
    assert main(["compile", str(ROOT / "grammars" / "email.abnf"), "--lang", "python,html", "--out", "x"]) == 2
    assert "cannot be compiled to a DFA" in capsys.readouterr().err


def test_the_book_speaks_the_chosen_language_but_leaves_the_grammar_as_written(tmp_path):
    grammar = str(ROOT / "grammars" / "utf8.abnf")
    assert main(["compile", grammar, "--lang", "html", "--locale", "ja", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "utf8.html").read_text(encoding="utf-8")
    assert '<html lang="ja">' in text
    assert "文法" in text  # a label in Japanese
    assert "%xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail )" in re.sub(r"<[^>]+>", "", text)
    assert '"invalid: byte {offset} ({byte}) is not allowed here": "' in text  # the tester's words, translated
    with pytest.raises(SystemExit) as stopped:  # argparse: the locale is one of the choices
        main(["compile", grammar, "--lang", "html", "--locale", "xx", "--out", str(tmp_path)])
    assert stopped.value.code == 2


def test_the_book_never_takes_its_language_from_the_environment(monkeypatch):
    english = api.generate_files(ROOT / "grammars" / "datetime.abnf", "html")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    assert api.generate_files(ROOT / "grammars" / "datetime.abnf", "html") == english


def test_text_from_the_grammar_cannot_break_out_of_comments_and_scripts():
    assert "-->" not in comment_safe("a --> b --!> c <!-- d")
    assert "</script" not in script_safe('x = "</script><script>alert(1)</script>"').lower()
    text = 'r = "a" ; </script><script>alert(1)</script> -->\n'
    [(_, page)] = api.generate_files(api.load_grammar(text=text, name="evil-->.abnf"), "html").items()
    assert page.lower().count("</script") == 1 and "<!--" not in page.split("<script", 1)[1]
    assert "<script>alert" not in page.split('<script type="module">', 1)[0]  # escaped in the grammar text
    head = page.split("-->", 1)[0]
    assert "evil-- >.abnf" in head
