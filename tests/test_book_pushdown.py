"""The grammar book of a self-embedding grammar (``abnfc compile --lang html`` of json.abnf): the
pushdown validator's table, machines, call states and returns in the page; the tester's
validator (the JavaScript backend's pushdown module, inlined) against the reference loop on
JSONTestSuite through runner.py; the tester's script stepping nested inputs with the stack, run
in Node.js with a small stand-in for the DOM (and, in the slow tier, in Chromium); the German
book; and the book of a grammar whose nesting gets no pushdown validator, which says why."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT
from markupsafe import escape

from abnfc import api, backends, i18n
from abnfc.automata.pushdown import Pushdown
from abnfc.backends.html import labels
from abnfc.backends.html.runner import validator_source
from abnfc.charset import format_readable
from abnfc.cli import main
from abnfc.frontend.source import load
from abnfc.i18n import translator
from abnfc.pipeline import Compilation, load_validators

JSON = ROOT / "grammars" / "json.abnf"
SUITE = ROOT / "tests" / "data" / "jsontestsuite"
NODE = shutil.which("node")
CHROMIUM = os.environ.get("ABNFC_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
CONFLICT = 's = "(" s ")" / "(" "x" ")"\n'
# Nested inputs the tester steps: valid, invalid inside a nesting, ending with parts open.
INPUTS = [b'[1,{"a":[true,{}]}]', b' {"a" : [ [ ] , -0.5 ] } ', b'[1,{"a":[]}', b"[1,}", b"[[", b'{"a" 1}', b"",
          b'["\xc3\xa9", {"b": null}]']


@pytest.fixture(scope="module")
def compilation() -> Compilation:
    return Compilation(load(str(JSON)))


@pytest.fixture(scope="module")
def automaton(compilation) -> Pushdown:
    found = compilation.pushdown
    assert isinstance(found, Pushdown)
    return found


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, str]:
    """The JSON book in English and in German, and the English one written a second time."""
    found = {}
    for name, locale in (("en", "en"), ("de", "de"), ("again", "en")):
        [(_, page)] = api.generate_files(JSON, "html", prefix="json", options={"locale": locale}).items()
        found[name] = page
    return found


def search(pattern: str, text: str, flags: int = 0) -> str:
    """The first group of ``pattern``'s first match in ``text`` (which must hold one)."""
    match = re.search(pattern, text, flags)
    assert match is not None, pattern
    return match.group(1)


def cells(row: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]


def table(page: str, css: str) -> list[list[str]]:
    found = re.search(rf'<table class="{css}">\n<tr><th>.*?</tr>\n(.*?)</table>', page, re.S)
    assert found is not None, css
    return [cells(row) for row in found.group(1).splitlines()]


def test_the_json_book_holds_the_pushdown_table_and_its_machines(books, automaton):
    page = books["en"]
    assert page == books["again"], "the book is the same on every run"
    text = html.unescape(page)
    assert "This grammar is self-embedding (value -> object -> member -> value), so no finite automaton" in text
    assert "at most 100000 nested parts may be open at once" in text
    machines = table(page, "machines")
    assert [row[:3] for row in machines] == [[m.name, f"{m.first}-{m.end - 1}", str(m.start)]
                                             for m in automaton.machines]
    assert machines[0][3] == "nothing: the start rule's machine"
    assert [row[3] for row in machines[1:]] == ["%x7D ('}')", "%x5D (']')"]
    calls = table(page, "calls")
    assert [int(row[0]) for row in calls] == list(range(automaton.first_call, automaton.num_states))
    names = {m.start: m.name for m in automaton.machines[1:]}
    for row in calls:
        call = int(row[0])
        entry = automaton.calls[call]
        callers = [s for s in range(automaton.num_states) if call in automaton.dfa.transitions[s]]
        assert row[1] == ", ".join(map(str, callers)) and row[3:] == [names[entry], str(entry)]
        assert row[2] in ("%x5B ('[')", "%x7B ('{')")
    returns = table(page, "returns")
    assert returns == [[m.name, ", ".join(str(s) for s in range(m.first, m.end) if automaton.returns[s]),
                        format_readable(m.returns)] for m in automaton.machines[1:]]
    for state in range(automaton.num_states):  # every state has its row in the transitions table
        assert f'<tr id="state-{state}"><th>' in page
    assert (f"states {automaton.first_call}-{automaton.num_states - 1} are call states; state 0 is the dead "
            "state: a byte that leads there fails, unless the state closes a nested part on it.") in text
    assert "Left out: the book draws no picture of a pushdown validator." in text
    assert "the JavaScript pushdown validator generated from the same tables" in text
    assert "No tester" not in page and text.count('<script type="module">') == 1
    book = json.loads(search(r"^const BOOK = (.*);$", page, re.M))
    assert book["parts"] == [[m.name, m.first, m.end] for m in automaton.machines]
    assert len(book["positions"]) == len(book["notes"]) == automaton.num_states


def test_the_books_validator_agrees_with_the_reference_on_json_test_suite(compilation, automaton):
    """runner.py loads the book's inlined module, as tests/test_pushdown.py does for every backend."""
    assert backends.get("html").pushdown
    [validator] = load_validators([compilation.files(["html"], "json", "test")], "html")
    cases = [path.read_bytes() for path in sorted(SUITE.glob("*.json"))]
    assert len(cases) > 300
    inputs = [*cases, b"[" * 3000 + b"]" * 3000, b"[" * 3000]
    assert backends.first_errors(validator, inputs) == [automaton.first_error(data) for data in inputs]
    incremental = validator.Validator()
    incremental.feed(b'[1, {"a": [')
    assert incremental.depth == 3


STUB = """
// A stand-in for the few DOM calls the tester makes, so that Node.js runs the page's script.
import { readFileSync } from "node:fs";
class Element {
  constructor(tag) {
    Object.assign(this, { tag, children: [], text: "", className: "", dataset: {}, title: "", listeners: {} });
    Object.assign(this, { value: "", checked: false });
  }
  get textContent() {
    return this.children.length ? this.children.map((c) => (typeof c === "string" ? c : c.textContent)).join("")
      : this.text;
  }
  set textContent(value) { this.children = []; this.text = value; }
  append(...nodes) { this.children.push(...nodes); }
  replaceChildren() { this.children = []; this.text = ""; }
  addEventListener(type, listener) { (this.listeners[type] ??= []).push(listener); }
}
const ids = {};
for (const id of ["input", "mode-text", "mode-hex", "verdict", "bytes", "expected", "steps"]) {
  ids[id] = new Element("div");
}
globalThis.document = { getElementById: (id) => ids[id], createElement: (tag) => new Element(tag),
                        body: new Element("body") };
globalThis.window = globalThis;
await import("./page.mjs");
const shown = [];
for (const hex of JSON.parse(readFileSync("inputs.json", "utf-8"))) {
  ids["mode-hex"].checked = true;
  ids.input.value = hex;
  ids.input.listeners.input[0]();
  const verdict = ids.verdict;
  const steps = ids.steps.children.find((node) => node.tag === "table");
  const rows = steps ? steps.children.filter((node) => node.tag === "tr").slice(1) : [];
  shown.push({
    verdict: verdict.textContent, css: verdict.className, ...verdict.dataset,
    expected: ids.expected.children.filter((node) => node.tag === "ul")
      .flatMap((list) => list.children.map((item) => item.textContent)),
    steps: rows.map((row) => row.children.map((cell) => cell.textContent)),
  });
}
console.log(JSON.stringify(shown));
"""


def run_tester(page: str, inputs: list[bytes], folder) -> list[dict]:
    script = search(r'<script type="module">\n(.*)</script>', page, re.S)
    (folder / "page.mjs").write_text(script, encoding="utf-8")
    (folder / "stub.mjs").write_text(STUB, encoding="utf-8")
    (folder / "inputs.json").write_text(json.dumps([data.hex() for data in inputs]), encoding="utf-8")
    assert NODE is not None
    done = subprocess.run([NODE, "stub.mjs"], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def expected_steps(automaton: Pushdown, data: bytes) -> list[list[str]]:
    """What the tester's table should show, from the reference's trace: offset, byte, class,
    state before and after, depth and what the byte does to the stack."""
    states, depths, moves = automaton.trace(data)
    names = {m.start: m.name for m in automaton.machines}
    rows = []
    for offset, move in enumerate(moves):
        byte = data[offset]
        shown = f"0x{byte:02X}" + (f" {chr(byte)}" if 0x21 <= byte <= 0x7E else "")
        if move > 0:
            nesting = f"opens {names[automaton.calls[move]]} (call state {move} pushed, depth {depths[offset]})"
        elif move < 0:
            part = next(m.name for m in automaton.machines if m.first <= states[offset] < m.end)
            nesting = f"closes {part} (call state {-move} popped, depth {depths[offset]})"
        else:
            nesting = ""
        rows.append([str(offset), shown, str(automaton.dfa.byte_class[byte]), str(states[offset]),
                     str(states[offset + 1]), str(depths[offset]), nesting])
    return rows


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_tester_steps_nested_inputs_with_the_stack(books, automaton, tmp_path):
    shown = run_tester(books["en"], [*INPUTS, b"[" * 100_001], tmp_path)
    for data, page in zip(INPUTS, shown[:-1], strict=True):
        error, state, stack = automaton.run(data)
        assert [row[:7] for row in page["steps"]] == expected_steps(automaton, data), data
        assert page["firstError"] == ("" if error is None else str(error)), data
        assert (page["state"], page["depth"]) == (str(state), str(len(stack))), data
        taken = page["steps"][:error] if error is not None else page["steps"]
        assert all(not row[7].startswith("no position") for row in taken), data  # each byte read by a position
        if error is None:
            assert page["css"] == "verdict valid" and page["expected"] == []
        elif error < len(data):
            assert page["verdict"].startswith(f"invalid: byte {error} ")
        elif stack:
            assert page["verdict"] == (f"incomplete: the input ends at offset {len(data)} with nested parts still "
                                       f"open (depth {len(stack)}), and JSON-text needs more")
        else:
            assert page["verdict"] == f"incomplete: the input ends at offset {len(data)}, and JSON-text needs more"
        closing = [item for item in page["expected"] if "is popped and reads the byte" in item]
        if error is not None and stack and automaton.returns[state]:
            part = next(m for m in automaton.machines if m.first <= state < m.end)
            rule = "end-array" if part.returns == ((0x5D, 0x5D),) else "end-object"
            assert closing == [f"{format_readable(part.returns)}: {rule} alternative 1, element 2 (closes "
                               f"{part.name}: call state {stack[-1]} is popped and reads the byte)"], data
        else:
            assert closing == [], data
        assert ("the end of the input" in page["expected"]) == (error is not None and not stack
                                                                and state in automaton.dfa.accepting)
    # '[[': the nested array may close with ']' (its call state 118 waits for it) or hold a value
    nested = shown[INPUTS.index(b"[[")]
    assert nested["steps"][1][6] == "opens <nested part 2 of array> (call state 118 pushed, depth 2)"
    assert "%x5B ('['): begin-array alternative 1, element 2" in nested["expected"]
    too_deep = shown[-1]
    assert too_deep["verdict"] == ("too deep: the input nests deeper than 100000 at byte offset 100000; the "
                                   "validator gives no verdict") and too_deep["steps"] == []


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_german_book_is_translated(books, tmp_path):
    page = books["de"]
    _ = translator("de")
    assert '<html lang="de">' in page
    shown = [message for message in labels.PUSHDOWN_PAGE if "{" not in message]
    for message in shown:
        assert _(message) != message, message
        assert str(escape(_(message))) in page, message
    assert "Aufrufzustand" in page and "Keller" in page
    book = json.loads(search(r"^const BOOK = (.*);$", page, re.M))
    for message in labels.TESTER_PUSHDOWN:
        assert book["messages"][message] == _(message) != message
    [step] = run_tester(page, [b"[[1]"], tmp_path)
    assert step["verdict"].startswith("unvollständig") and "(Tiefe 1)" in step["verdict"]
    assert step["steps"][0][6].startswith("öffnet <nested part 2 of array> (Aufrufzustand")


def conflict_message(path, locale: str) -> str:
    """The conflict's message as the catalog of ``locale`` words it."""
    i18n.use(locale)
    try:
        found = Compilation(load(str(path))).pushdown
    finally:
        i18n.use("en")
    assert not isinstance(found, Pushdown)
    return found.message


def test_a_grammar_whose_nesting_gets_no_pushdown_validator_gets_a_book_that_says_why(tmp_path):
    grammar = tmp_path / "conflict.abnf"
    grammar.write_text(CONFLICT, encoding="utf-8")
    english = conflict_message(grammar, "en")
    assert english.startswith("rule 's' gets no pushdown validator: after the input b'(', the byte 0x28 '(' can open "
                              "the nested part of 's' or be read by 's'")
    for locale, start in (("en", "No tester for this grammar, which is self-embedding (s -> s): "),
                          ("de", "Kein Tester für diese Grammatik, die selbsteinbettend ist (s -> s): ")):
        out = tmp_path / locale
        assert main(["compile", str(grammar), "--lang", "html", "--locale", locale, "--out", str(out)]) == 0
        page = (out / "conflict.html").read_text(encoding="utf-8")
        notice = html.unescape(search(r'<p id="no-tester" class="notice">(.*?)</p>', page))
        assert notice == start + conflict_message(grammar, locale)
        assert "<script" not in page and "<textarea" not in page and "machines" not in page
        with pytest.raises(Exception, match="no validator"):
            validator_source(page)


def test_the_conflict_is_told_in_the_books_language_whatever_the_environment(monkeypatch):
    grammar = api.load_grammar(text=CONFLICT, name="conflict.abnf")
    english = api.generate_files(grammar, "html")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    i18n.use("de")  # as the command line does for its own messages
    try:
        assert api.generate_files(api.load_grammar(text=CONFLICT, name="conflict.abnf"), "html") == english
        assert i18n._("Steps") == "Schritte"  # the messages' locale is put back
    finally:
        i18n.use("en")


# ---- in a real browser (slow tier), as tests/test_browser.py runs the other books ----

@pytest.fixture(scope="module")
def chromium_page(books, tmp_path_factory):
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    folder = tmp_path_factory.mktemp("json-book")
    (folder / "json.html").write_text(books["en"], encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("request", lambda request: problems.append(request.url)
                if not request.url.startswith("file://") else None)
        page.goto((folder / "json.html").as_uri())
        page.wait_for_selector("body[data-ready=true]")
        yield page
        assert problems == []
        browser.close()


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_json_books_tester_in_chromium(chromium_page, automaton):
    page = chromium_page
    page.check("#mode-text")
    for data in INPUTS:
        page.fill("#input", data.decode("utf-8"))
        rows = page.evaluate("""() => [...document.querySelectorAll("#steps tr")].slice(1)
            .map((row) => [...row.querySelectorAll("td")].map((cell) => cell.innerText))""")
        assert [row[:7] for row in rows] == expected_steps(automaton, data), data
        error = automaton.first_error(data)
        assert page.locator("#verdict").get_attribute("data-first-error") == ("" if error is None else str(error))
    page.fill("#input", '[1,{"a":[]}')
    assert "nested parts still open (depth 1)" in page.locator("#verdict").inner_text()
    assert page.locator("#expected li.closes").all_inner_texts() == [
        "%x5D (']'): end-array alternative 1, element 2 (closes <nested part 2 of array>: call state 114 is "
        "popped and reads the byte)"]
    answers = page.evaluate("(inputs) => inputs.map((hex) => window.abnfcBook.check(hex))",
                            [path.read_bytes().hex() for path in sorted(SUITE.glob("*.json"))])
    assert answers == [automaton.first_error(path.read_bytes()) for path in sorted(SUITE.glob("*.json"))]
