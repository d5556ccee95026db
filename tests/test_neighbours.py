"""Neighbour grammars: every dialect beside a shipped grammar says which one it varies, compiles
and differs from it; their witnesses are real differences, asked first by crosscheck, which names
the dialect a black box built from it speaks (RFC 2279's five-byte forms, json.loads's NaN)."""
from __future__ import annotations

import json
import os
from glob import glob

import pytest
from conftest import ROOT
from helpers.cli import run_cli_text

from abnfc.crosscheck.language import Language, load_language
from abnfc.crosscheck.neighbours import Neighbour, dialect_of, discover, expand, for_grammar, witnesses
from abnfc.crosscheck.session import Amounts, Progress, crosscheck
from abnfc.errors import AbnfError
from abnfc.frontend.source import from_text, load
from abnfc.pipeline import Compilation

pytestmark = pytest.mark.usefixtures("at_root")

VARIANTS = sorted(glob(str(ROOT / "grammars" / "variants" / "*.abnf")))
NOTHING_ELSE = Amounts(0, 0, 0, every_byte=False)  # the neighbours' witnesses and the vectors only


def language(path: str) -> Language:
    return load_language(Compilation(load(path)), max_nesting=1)


class Box:
    """A black box that accepts what a language accepts (a runner of crosscheck, in process)."""

    def __init__(self, accepts):
        self.accepts = accepts
        self.asked = 0

    def verdicts(self, inputs):
        self.asked += len(inputs)
        return [bool(self.accepts(data)) for data in inputs]


def run(grammar: str, box: Box, neighbours: list[Neighbour]):
    return crosscheck(language(grammar), [], box, "python", NOTHING_ELSE, Progress(False, False), "box",
                      neighbours=neighbours)


def neighbours_of(grammar: str) -> list[Neighbour]:
    return for_grammar(grammar, [], language, pytest.fail)


@pytest.mark.parametrize("path", VARIANTS, ids=os.path.basename)
def test_every_variant_names_its_grammar_compiles_and_differs_from_it(path):
    bases = dialect_of(path)
    assert bases, f"{path} has no '; Dialect of:' line"
    for base in bases:
        grammar = f"grammars/{base}"
        assert os.path.relpath(path, ROOT) in discover(grammar)
        found = witnesses(language(grammar), Neighbour(path, language(path)))
        assert found, f"{path} accepts what {grammar} accepts"


def test_the_dialects_of_the_shipped_grammars_are_found():
    names = {grammar: [os.path.basename(p) for p in discover(f"grammars/{grammar}")]
             for grammar in ("utf8.abnf", "json.abnf", "datetime.abnf", "uri.abnf")}
    assert {"rfc2279-utf8.abnf", "rfc2279-utf8-no-surrogates.abnf", "utf8-no-noncharacters.abnf",
            "cesu8.abnf", "wtf8.abnf"} <= set(names["utf8.abnf"])
    assert {"json-nan-infinity.abnf", "json-trailing-commas.abnf", "json-single-quotes.abnf",
            "json-leading-zeros.abnf"} <= set(names["json.abnf"])
    assert "json-comments.abnf" in names["json.abnf"]
    assert {"datetime-space.abnf", "datetime-upper-case.abnf", "datetime-no-seconds.abnf"} <= set(
        names["datetime.abnf"])
    assert {"uri-zone-id.abnf", "uri-lenient-percent.abnf", "uri-excluded-characters.abnf", "rfc2396-uri.abnf"} <= set(
        names["uri.abnf"])
    assert not set(names["uri.abnf"]) & set(names["utf8.abnf"])


@pytest.mark.parametrize(("dialect", "inputs"), [
    ("uri-zone-id", [b"http://[fe80::1%25eth0]/", b"//[::1%25en0]:80"]),
    ("uri-lenient-percent", [b"http://a/%zz?%1", b"100%"]),
    ("uri-excluded-characters", [b'http://a/b c"<>{}|\\^`?q= <>#f', b"a b"]),
])
def test_each_uri_dialect_accepts_what_its_header_says_and_the_grammar_does_not(dialect, inputs):
    from urllib.parse import urlsplit

    uri, variant = language("grammars/uri.abnf"), language(f"grammars/variants/{dialect}.abnf")
    for data in inputs:
        assert variant.accepts(data) and not uri.accepts(data), data
        urlsplit(data.decode())  # the header says Python's urlsplit takes them: it does not raise


def test_rfc_2396_parts_from_rfc_3986_where_its_header_says():
    uri, old = language("grammars/uri.abnf"), language("grammars/variants/rfc2396-uri.abnf")
    for data in (b"//:!", b"//@@"):
        assert old.accepts(data) and not uri.accepts(data), data
    for data in (b"//[::]", b"http://[::1]/", b"A:", b"?"):
        assert uri.accepts(data) and not old.accepts(data), data
    for data in (b"//a.1", b"//1.2.3.4444", b"http://a-b.c/x;p?q#f", b"a:b:c", b""):  # a reg_name or both alike
        assert uri.accepts(data) and old.accepts(data), data


def test_json_with_comments_ends_a_line_comment_only_at_the_end_of_its_line():
    jsonc, json_ = language("grammars/variants/json-comments.abnf"), language("grammars/json.abnf")
    for data in (b"[1 //x\n]", b'/* a */ {"a": 1} // end', b'{"a"/**/:/***/1}', b"// a\r// b\n1"):
        assert jsonc.accepts(data) and not json_.accepts(data), data
    for data in (b"[1 //x]", b"[1 /* x */", b"1/**", b"/*/ 1", b"1 /* */ */"):
        assert not jsonc.accepts(data), data


def test_neighbours_given_as_folder_or_file_and_a_missing_one_is_a_usage_error(tmp_path):
    assert expand(["grammars/variants"]) == sorted(os.path.join("grammars/variants", p)
                                                   for p in os.listdir("grammars/variants"))
    assert expand(["grammars/variants/wtf8.abnf"]) == ["grammars/variants/wtf8.abnf"]
    with pytest.raises(AbnfError, match="no such file or folder"):
        expand([str(tmp_path / "missing")])


def test_the_witnesses_reach_the_five_and_six_byte_forms_and_are_real_differences():
    utf8 = language("grammars/utf8.abnf")
    glibc = Neighbour("glibc", language("grammars/variants/rfc2279-utf8-no-surrogates.abnf"))
    found = witnesses(utf8, glibc)
    data = [w.data for w in found]
    assert bytes.fromhex("f8 88 80 80 80") in data and bytes.fromhex("fc 84 80 80 80 80") in data
    assert all(w.neighbour_accepts and not utf8.accepts(w.data) and glibc.language.accepts(w.data)
               for w in found)
    assert data == sorted(data, key=lambda d: (len(d), d))


@pytest.mark.parametrize("dialect", ["rfc2279-utf8-no-surrogates", "utf8-no-noncharacters", "cesu8"])
def test_crosscheck_names_the_dialect_a_black_box_speaks(dialect):
    path = f"grammars/variants/{dialect}.abnf"
    box = Box(language(path).accepts)
    result = run("grammars/utf8.abnf", box, neighbours_of("grammars/utf8.abnf"))
    assert result.disagreements and result.classes
    assert all(any(path in d.paths for d in found.dialects) for found in result.classes), result
    assert result.sources[0] == ("witnesses of the neighbour grammars", result.sources[0][1])


def test_crosscheck_shows_the_five_byte_forms_of_a_glibc_like_decoder():
    box = Box(language("grammars/variants/rfc2279-utf8-no-surrogates.abnf").accepts)
    with_them = run("grammars/utf8.abnf", box, neighbours_of("grammars/utf8.abnf"))
    shown = {data for found in with_them.classes for d in found.dialects for data in d.inputs}
    assert bytes.fromhex("f8 88 80 80 80") in shown
    # RFC 2279 with surrogates and Perl's forms also accept these, but the box refuses their other witnesses
    assert {d.paths for found in with_them.classes for d in found.dialects} == {
        ("grammars/variants/rfc2279-utf8-no-surrogates.abnf",)}
    without = run("grammars/utf8.abnf", box, [])
    assert without.disagreements < with_them.disagreements
    assert all(not found.dialects for found in without.classes)


def loads(data: bytes) -> bool:
    try:
        json.loads(data.decode("utf-8"))
    except ValueError:
        return False
    return True


def test_crosscheck_finds_json_loads_nan_and_infinity_and_names_the_dialect():
    result = run("grammars/json.abnf", Box(loads), neighbours_of("grammars/json.abnf"))
    witnesses_found = {found.witness for found in result.classes}
    assert {b"NaN", b"-Infinity"} <= witnesses_found
    assert all(found.dialects[0].paths == ("grammars/variants/json-nan-infinity.abnf",)
               for found in result.classes)


def test_the_command_tries_the_neighbours_first_and_says_which_dialect(capsys):
    status, out = run_cli_text(capsys, "crosscheck", "grammars/datetime.abnf", "--python",
                               "tests/data/upper_case_datetime.py:accepts", "--exhaustive", "0", "--sample", "0",
                               "--random", "0")
    assert status == 1
    assert "witnesses of the neighbour grammars" in out
    assert "as grammars/variants/datetime-upper-case.abnf does, the implementation rejects" in out


def test_a_neighbour_the_user_names_that_does_not_load_stops_the_run(tmp_path):
    bad = tmp_path / "bad.abnf"
    bad.write_text("a = %x30-\n")
    with pytest.raises(AbnfError):
        for_grammar("grammars/utf8.abnf", [str(bad)], language, pytest.fail)
    warned: list[str] = []
    (tmp_path / "ok.abnf").write_text("a = %x30\n")
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "broken.abnf").write_text("; Dialect of: ok.abnf\n\na = %x30-\n")
    assert for_grammar(str(tmp_path / "ok.abnf"), [], language, warned.append) == []
    assert warned and "broken.abnf" in warned[0]


UTF8_DIALECTS = [p for p in VARIANTS if "utf8.abnf" in dialect_of(p)]


def minimal(path: str):
    return Compilation(load(path)).minimal


def learned(target, neighbours):
    from abnfc.crosscheck.provenance import DfaProvenance
    from abnfc.crosscheck.suite import build_suite
    from abnfc.learn import learn

    grammar = Compilation(load("grammars/utf8.abnf"))
    prior = grammar.minimal
    tests = [v.data for v in build_suite(prior, DfaProvenance(grammar.dfa, grammar.resolved.start_name),
                                         prior.matches)]
    return learn(prior, tests, lambda words: [target.matches(w) for w in words], neighbours=neighbours)


@pytest.mark.parametrize("path", UTF8_DIALECTS, ids=os.path.basename)
def test_a_black_box_that_speaks_a_neighbour_is_learned_exactly_within_the_default_limits(path):
    from abnfc.automata.product import equivalent

    target = minimal(path)
    result = learned(target, [minimal(p) for p in UTF8_DIALECTS])
    assert not result.stopped
    assert equivalent(result.dfa, target), path


def test_without_the_neighbours_the_glibc_and_noncharacter_boxes_are_learned_wrong():
    from abnfc.automata.product import equivalent

    for name in ("rfc2279-utf8-no-surrogates", "utf8-no-noncharacters"):
        target = minimal(f"grammars/variants/{name}.abnf")
        assert not equivalent(learned(target, []).dfa, target), name


def test_the_long_runs_follow_a_refused_byte_with_one_class_edge_beyond_k():
    from abnfc.learn.neighbours import runs

    hypothesis = minimal("grammars/utf8.abnf")
    words = runs(hypothesis, 1)
    assert bytes.fromhex("ff bf bf bf bf bf") in words  # the shape of a six-byte form
    for word in words:
        assert len(set(word[-3:])) == 1 and not hypothesis.matches(word)


def test_learn_names_the_neighbours_in_the_learned_grammar_header(capsys, tmp_path):
    box = tmp_path / "box.py"
    box.write_text("from abnfc.pipeline import Compilation\nfrom abnfc.frontend.source import load\n"
                   "DFA = Compilation(load('grammars/variants/utf8-no-noncharacters.abnf')).minimal\n\n"
                   "def accepts(data):\n    return DFA.matches(data)\n")
    status, out = run_cli_text(capsys, "learn", "grammars/utf8.abnf", "--python", f"{box}:accepts",
                               "--out", str(tmp_path / "learned.abnf"))
    assert status == 1, out
    text = (tmp_path / "learned.abnf").read_text()
    assert "Exact also for every implementation that accepts what one of these neighbour grammars accepts" in text
    status, out = run_cli_text(capsys, "diff", str(tmp_path / "learned.abnf"),
                               "grammars/variants/utf8-no-noncharacters.abnf")
    assert status == 0, out


def test_crosscheck_takes_the_users_neighbours_and_refuses_a_missing_one(capsys, tmp_path):
    own = tmp_path / "lower-case-only.abnf"
    own.write_text((ROOT / "grammars" / "variants" / "datetime-upper-case.abnf").read_text()
                   .replace('%s"T"', '%s"t"').replace('%s"Z"', '%s"z"'))
    status, out = run_cli_text(capsys, "crosscheck", "grammars/datetime.abnf", "--python",
                               "tests/data/upper_case_datetime.py:accepts", "--exhaustive", "0", "--sample", "0",
                               "--random", "0", "--neighbours", str(tmp_path), "--format", "json")
    assert status == 1
    named = {path for found in json.loads(out)["classes"] for d in found["dialects"] for path in d["grammars"]}
    assert named == {"grammars/variants/datetime-upper-case.abnf"}
    assert json.loads(out)["sources"]["witnesses of the neighbour grammars"] > 8  # the user's too
    status, out = run_cli_text(capsys, "crosscheck", "grammars/datetime.abnf", "--python",
                               "tests/data/upper_case_datetime.py:accepts", "--neighbours", str(tmp_path / "none"))
    assert status == 2 and "--neighbours" in out and "no such file or folder" in out


def test_learn_takes_the_users_neighbours(capsys, tmp_path):
    box = tmp_path / "box.py"
    box.write_text("from abnfc.pipeline import Compilation\nfrom abnfc.frontend.source import load\n"
                   "DFA = Compilation(load('grammars/variants/rfc2279-utf8-no-surrogates.abnf')).minimal\n\n"
                   "def accepts(data):\n    return DFA.matches(data)\n")
    grammar = tmp_path / "utf8.abnf"  # a copy, so that none of grammars/variants/ is found beside it
    grammar.write_text((ROOT / "grammars" / "utf8.abnf").read_text())
    out_file = tmp_path / "learned.abnf"
    run_cli_text(capsys, "learn", str(grammar), "--python", f"{box}:accepts", "--out", str(out_file))
    assert "neighbour" not in out_file.read_text()
    status, out = run_cli_text(capsys, "learn", str(grammar), "--python", f"{box}:accepts", "--out", str(out_file),
                               "--neighbours", "grammars/variants/rfc2279-utf8-no-surrogates.abnf")
    assert status == 1, out
    assert "rfc2279-utf8-no-surrogates.abnf" in out_file.read_text()
    status, out = run_cli_text(capsys, "diff", str(out_file), "grammars/variants/rfc2279-utf8-no-surrogates.abnf")
    assert status == 0, out


def test_the_one_edit_mutants_are_distinct_regular_languages_near_the_grammar():
    from abnfc.automata.product import equivalent
    from abnfc.learn.mutants import mutants

    grammar = Compilation(load("grammars/utf8.abnf"))
    found = mutants(grammar)
    assert 30 <= len(found) <= 200
    # %xE1-EC moved to %xE1-ED: the surrogates' lead byte, one too far
    text = grammar.grammar.text.replace("%xE1-EC 2( UTF8-tail )", "%xE1-ED 2( UTF8-tail )")
    target = Compilation(from_text(text, "x")).minimal
    assert any(equivalent(dfa, target) for dfa in found)
    assert not any(equivalent(dfa, grammar.minimal) for dfa in found)


def test_black_boxes_made_from_one_edit_mutants_are_learned_exactly():
    import random

    from abnfc.automata.product import equivalent
    from abnfc.learn.mutants import mutants

    found = mutants(Compilation(load("grammars/utf8.abnf")))
    for target in random.Random(0).sample(found, 8):
        result = learned(target, found)
        assert not result.stopped and equivalent(result.dfa, target)


def mutants_of(grammar: str) -> list[Neighbour]:
    from abnfc.crosscheck.neighbours import mutant_neighbours
    from abnfc.learn.mutants import labelled

    return mutant_neighbours((m.label, m.dfa) for m in labelled(Compilation(load(grammar))))


def test_crosscheck_names_the_one_edit_mutant_a_black_box_speaks_when_it_speaks_no_dialect():
    from abnfc.crosscheck.report import text

    text_ = load("grammars/utf8.abnf").text.replace("%xF4 %x80-8F", "%xF4 %x80-8E")  # stops at U+10EFFF
    box = Box(Compilation(from_text(text_, "box")).minimal.matches)
    result = run("grammars/utf8.abnf", box, [*neighbours_of("grammars/utf8.abnf"), *mutants_of("grammars/utf8.abnf")])
    assert [label for label, _count in result.sources][:2] == [
        "witnesses of the neighbour grammars", "witnesses of the grammar's one-edit mutants"]
    (found,) = result.classes
    named = [d for d in found.dialects if d.mutant]
    assert [d.paths for d in named] == [("line 12: %x80-8F narrowed to %x80-8E",)]
    assert ("the implementation behaves like the grammar with one edit, line 12: %x80-8F narrowed to %x80-8E; "
            "it rejects F4 8F 80 80") in text(result)


def test_no_mutant_is_named_where_the_implementation_speaks_a_dialect():
    box = Box(language("grammars/variants/rfc2279-utf8-no-surrogates.abnf").accepts)
    result = run("grammars/utf8.abnf", box, [*neighbours_of("grammars/utf8.abnf"), *mutants_of("grammars/utf8.abnf")])
    assert result.classes and all(d.paths == ("grammars/variants/rfc2279-utf8-no-surrogates.abnf",)
                                  for found in result.classes for d in found.dialects)


@pytest.mark.parametrize(("grammar", "adapter", "dialect"), [
    ("utf8", "rfc2279_decoder.py", "rfc2279-utf8-no-surrogates"),  # glibc's five- and six-byte forms
    ("datetime", "upper_case_datetime.py", "datetime-upper-case"),
    pytest.param("json", "json_loads.py", "json-nan-infinity", marks=pytest.mark.slow),  # 6 s of CPU
])
def test_the_command_with_its_default_options_finds_each_dialect_and_names_it(capsys, grammar, adapter, dialect):
    status, out = run_cli_text(capsys, "crosscheck", f"grammars/{grammar}.abnf", "--python",
                               f"tests/data/{adapter}:accepts", "--format", "json")
    assert status == 1, out
    report = json.loads(out)
    assert report["classes"]
    for found in report["classes"]:
        assert [d["grammars"] for d in found["dialects"]] == [[f"grammars/variants/{dialect}.abnf"]], found
        assert not any(d["mutants"] for d in found["dialects"])
    if grammar == "utf8":
        shown = {data for found in report["classes"] for d in found["dialects"] for data in d["inputs"]}
        assert {"f8 88 80 80 80", "fc 84 80 80 80 80"} <= shown


def test_the_mutants_witnesses_are_bounded_together():
    from abnfc.crosscheck.neighbours import all_witnesses

    utf8, mutants = language("grammars/utf8.abnf"), mutants_of("grammars/utf8.abnf")
    every = all_witnesses(utf8, mutants)
    assert len(every) > 500 and all(w.mutant and utf8.accepts(w.data) != w.neighbour_accepts for w in every)
    assert len(all_witnesses(utf8, mutants, mutants_limit=100)) == 100
    dialect = neighbours_of("grammars/utf8.abnf")
    assert len(all_witnesses(utf8, [*dialect, *mutants], mutants_limit=0)) == len(all_witnesses(utf8, dialect))
