"""The grammar book in a real browser (slow tier): Debian's headless Chromium, driven by
Playwright for Python with the system browser (``executable_path``; Playwright's own browser
downloads are never used).

Loads books of utf8, uri, datetime and the self-embedding email grammar, types into the tester and
checks what the page shows; runs every UTF-8 conformance vector of tests/data through the page's
own validator and compares it with the generated Python validator.  One browser for the module;
skipped where Chromium or Playwright is absent (.ci/packages.txt installs chromium in CI).
"""
from __future__ import annotations

import os
import shutil

import pytest
from conftest import ROOT, python_module, utf8_vectors

from abnfc import api

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
CHROMIUM = os.environ.get("ABNFC_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    """Book files: utf8 is the committed generated/utf8.html; the others are generated here."""
    folder = tmp_path_factory.mktemp("books")
    paths = {"utf8": ROOT / "generated" / "utf8.html"}
    for name, locale in (("uri", "en"), ("datetime", "en"), ("email", "en"), ("utf8", "de")):
        files = api.generate_files(ROOT / "grammars" / f"{name}.abnf", "html", prefix=f"{name}-{locale}",
                                   options={"locale": locale})
        [(file_name, text)] = files.items()
        (folder / file_name).write_text(text, encoding="utf-8")
        paths.setdefault(name if locale == "en" else f"{name}-{locale}", folder / file_name)
    return paths


@pytest.fixture()
def open_book(browser, books):
    """Open a book; fail the test on any script error or any request that leaves the file."""
    pages = []

    def opener(name: str):
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}")
                if msg.type == "error" else None)
        page.on("request", lambda request: problems.append(f"request: {request.url}")
                if not request.url.startswith("file://") else None)
        page.goto(books[name].as_uri())
        page.problems = problems
        pages.append(page)
        return page

    yield opener
    for page in pages:
        assert page.problems == [], page.problems
        page.close()


def type_text(page, text: str, key_by_key: bool = False) -> None:
    page.check("#mode-text")
    if key_by_key:  # as a reader types: an input event per key
        page.fill("#input", "")
        page.locator("#input").press_sequentially(text)
    else:
        page.fill("#input", text)


def type_hex(page, text: str) -> None:
    page.check("#mode-hex")
    page.fill("#input", text)


def verdict(page) -> tuple[str, str, str]:
    box = page.locator("#verdict")
    return box.inner_text(), box.get_attribute("class") or "", box.get_attribute("data-first-error") or ""


def step_rows(page) -> list[list[str]]:
    return page.evaluate("""() => [...document.querySelectorAll("#steps tr")].slice(1)
        .map((row) => [...row.querySelectorAll("td")].map((cell) => cell.innerText))""")


def test_utf8_text_is_checked_as_typed(open_book):
    page = open_book("utf8")
    page.wait_for_selector("body[data-ready=true]")
    type_text(page, "aä€😀", key_by_key=True)
    assert verdict(page) == ("valid: the input matches UTF8-octets (length: 10)", "verdict valid", "")
    assert page.locator("#bytes span").all_inner_texts() == "61 C3 A4 E2 82 AC F0 9F 98 80".split()
    rows = step_rows(page)
    assert len(rows) == 10
    assert rows[0] == ["0", "0x61 a", "0", "1", "1", "%x00-7F (UTF8-1 alternative 1, element 1)"]
    assert rows[2][1:] == ["0xA4", "3", "2", "1", "%x80-BF (UTF8-tail alternative 1, element 1)"]
    assert page.locator("#expected").inner_text() == ""


def test_the_first_error_byte_is_highlighted_with_what_was_expected(open_book):
    page = open_book("utf8")
    type_hex(page, "61 E2 82 AC ED A0 80")
    assert verdict(page) == ("invalid: byte 5 (0xA0) is not allowed here", "verdict invalid", "5")
    assert page.locator("#bytes span.error").all_inner_texts() == ["A0"]
    assert page.locator("#bytes span.after").all_inner_texts() == ["80"]
    assert page.locator("#expected li").all_inner_texts() == ["%x80-9F: UTF8-3 alternative 3, element 2"]
    rows = step_rows(page)
    assert [row[:5] for row in rows[-2:]] == [["4", "0xED", "8", "1", "5"], ["5", "0xA0", "3", "5", "0"]]
    assert rows[-1][5] == "no position of state 5 reads this byte"
    assert page.locator("#steps tr.error").count() == 1


def test_expected_positions_are_listed_under_exactly_the_bytes_they_read(open_book):
    """C0 AF: at offset 0 the start state expects nine positions; each is listed under its own
    bytes (UTF8-3 alternative 1 under %xE0 alone, not under a merged %xC2-F4)."""
    page = open_book("utf8")
    type_hex(page, "C0 AF")
    items = page.locator("#expected li").all_inner_texts()
    assert "%xE0: UTF8-3 alternative 1, element 1" in items
    assert "%xC2-DF: UTF8-2 alternative 1, element 1" in items
    assert "%xF1-F3: UTF8-4 alternative 2, element 1" in items
    assert not any(item.startswith("%xC2-F4") for item in items)
    assert len(items) == 9 + 1  # the nine positions, and the end of the input (the start state accepts)


def test_an_incomplete_input_lists_the_bytes_that_may_follow(open_book):
    page = open_book("utf8")
    type_hex(page, "F0 9F")
    assert verdict(page)[:2] == ("incomplete: the input ends at offset 2, and UTF8-octets needs more",
                                 "verdict incomplete")
    assert page.locator("#expected li").all_inner_texts() == ["%x80-BF: UTF8-tail alternative 1, element 1"]
    type_hex(page, "f09")
    assert verdict(page)[:2] == ("Not hex: write bytes as pairs of hex digits, such as E2 82 AC", "verdict not-hex")
    type_hex(page, "")
    assert verdict(page)[0] == "valid: the input matches UTF8-octets (length: 0)"


def test_every_conformance_vector_gets_the_python_validators_verdict(open_book):
    page = open_book("utf8")
    vectors = utf8_vectors()
    assert len(vectors) == 1405
    answers = page.evaluate("(inputs) => inputs.map((hex) => window.abnfcBook.check(hex))",
                            [data.hex() for data, _, _ in vectors])
    python = python_module((ROOT / "grammars" / "utf8.abnf").read_text(encoding="utf-8"))
    mismatches = [(data.hex(), answer, python.first_error(data)) for (data, _, _), answer in zip(vectors, answers,
                  strict=True) if answer != python.first_error(data)]
    assert mismatches == []
    assert [answer is None for answer in answers] == [valid for _, valid, _ in vectors]


def test_the_uri_book_tests_uris(open_book):
    page = open_book("uri")
    type_text(page, "https://example.com/a?b#c")
    assert verdict(page)[1] == "verdict valid"
    type_text(page, "http://[::1/")
    _, css, offset = verdict(page)
    assert css == "verdict invalid" and offset == "11"
    assert "%x5D (']')" in page.locator("#expected").inner_text()  # the closing bracket of IP-literal


def test_the_datetime_book_tests_timestamps(open_book):
    page = open_book("datetime")
    type_text(page, "1985-04-12T23:20:50.52Z")
    assert verdict(page)[1] == "verdict valid"
    type_text(page, "1985-1x")
    assert verdict(page)[:2] == ("invalid: byte 6 (0x78 'x') is not allowed here", "verdict invalid")
    # printable ASCII beside the hex, as check and explain show it (issue 17, item 5)
    assert page.locator("#expected li").all_inner_texts() == ["%x30-39 ('0'-'9'): DIGIT alternative 1, element 1"]


def test_a_self_embedding_grammar_gets_the_pushdown_validators_tester(open_book):
    """email.abnf nests comments (the JSON book's tester: test_book_pushdown.py)."""
    page = open_book("email")
    page.wait_for_selector("body[data-ready=true]")
    type_text(page, "a(b(c))@example.com")
    assert verdict(page)[1] == "verdict valid"
    type_text(page, "a(b(c)@example.com")
    assert verdict(page)[1] == "verdict incomplete" and "nested parts still open (depth 1)" in verdict(page)[0]
    assert page.locator("article.rule").count() > 10
    page.click("#rule-addr-spec pre a.ref >> text=local-part")
    assert page.evaluate("location.hash") == "#rule-local-part"
    assert page.locator("#rule-local-part .diagram svg").count() == 1


def test_a_german_book_speaks_german_while_one_types(open_book):
    page = open_book("utf8-de")
    assert page.evaluate("document.documentElement.lang") == "de"
    type_hex(page, "C0 80")
    text, css, _ = verdict(page)
    assert css == "verdict invalid" and text.startswith("ungültig")
    assert "UTF8-octets" in page.locator("#expected").inner_text() or page.locator("#expected li").count() > 0


def test_a_long_input_shows_the_bytes_and_steps_before_its_error(open_book):
    page = open_book("utf8")
    type_hex(page, "41" * 5000 + "C0" + "41" * 100)
    assert verdict(page)[:2] == ("invalid: byte 5000 (0xC0) is not allowed here", "verdict invalid")
    shown = page.locator("#bytes span").all_inner_texts()
    assert shown[0] == shown[-1] == "…" and len(shown) == 2 + 2000 + 1 + 16
    assert page.locator("#bytes span.error").get_attribute("title") == "offset 5000"
    rows = step_rows(page)
    assert len(rows) == 500 and rows[0][0] == "4501" and rows[-1][:5] == ["5000", "0xC0", "4", "1", "0"]
    assert page.locator("#steps caption").inner_text() == "steps 4502 to 5001 of 5001 are shown"
