"""Rules taken from imported grammars, prose values, and ``=/`` on core and imported rules."""
from __future__ import annotations

import pytest
from conftest import DATA, ROOT
from helpers.cli import run_cli

import abnfc
from abnfc.cli import main
from abnfc.errors import AbnfError
from abnfc.frontend.source import display_path
from abnfc.pipeline import resolve_grammar

RFC_DATA = DATA / "rfc-abnf"


def grammar(text: str, *imports: str, name: str = "main.abnf", encoding: str | None = None) -> abnfc.Grammar:
    """A grammar with imported grammars given as text, named lib1.abnf, lib2.abnf, ..."""
    libraries = [abnfc.load_grammar(text=lib, name=f"lib{index}.abnf") for index, lib in enumerate(imports, 1)]
    return abnfc.load_grammar(text=text, name=name, imports=libraries, encoding=encoding)


def matches(loaded: abnfc.Grammar, data: str | bytes, start: str | None = None) -> bool:
    """The interpreter's verdict, checked against the minimal DFA's when the grammar is regular."""
    raw = data.encode() if isinstance(data, str) else data
    verdict = abnfc.recognize(loaded, raw, start).matched
    if resolve_grammar(loaded, start).is_regular:
        assert abnfc.compile_grammar(loaded, start).minimal.matches(raw) == verdict
    return verdict


def test_undefined_rules_come_from_the_imports():
    loaded = grammar('r = x "-" y\n', 'x = 1*DIGIT\ny = "b" z\nz = "c"\nunused = w\n')
    assert matches(loaded, "12-bc") and not matches(loaded, "12-b")
    resolved = resolve_grammar(loaded)
    assert resolved.supplied == (("x", "lib1.abnf"), ("y", "lib1.abnf"), ("z", "lib1.abnf"))
    assert not resolved.warnings  # lib1's unused rule and its undefined w are not ours to report
    with pytest.raises(AbnfError, match="undefined rule 'x'"):
        resolve_grammar(grammar('r = x "-" y\n'))


def test_the_grammar_wins_but_imported_rules_keep_their_own_references():
    """RFC 9116 defines its own comment; RFC 5322's CFWS, taken from there, keeps RFC 5322's."""
    loaded = grammar('r = comment "/" cfws\ncomment = "#"\n', 'comment = "(" *ALPHA ")"\ncfws = comment\n')
    assert matches(loaded, "#/(ab)") and not matches(loaded, "#/#") and not matches(loaded, "(a)/(a)")
    resolved = resolve_grammar(loaded)
    assert [name for name, _ in resolved.supplied] == ["cfws", "comment"]
    assert {rule.name for rule in resolved.rules.values() if rule.source} == {"cfws", "comment"}


def test_imports_are_searched_in_order_and_chain():
    loaded = grammar("r = x y\n", 'x = "1"\n', 'x = "2"\ny = "y" q\n', 'q = "q"\n')
    assert matches(loaded, "1yq") and not matches(loaded, "2yq")
    assert resolve_grammar(loaded).supplied == (("x", "lib1.abnf"), ("y", "lib2.abnf"), ("q", "lib3.abnf"))


def test_the_start_rule_may_be_an_imported_rule():
    loaded = grammar('r = "x"\n', 'word = 1*ALPHA\n')
    assert matches(loaded, "abc", start="word") and not matches(loaded, "x1", start="word")


def test_a_rule_written_as_prose_is_replaced_by_an_imported_definition():
    text = 'r = "<" URI-reference ">"\nURI-reference = <URI-reference, see [URI], Section 4.1>\n'
    loaded = grammar(text, 'URI-reference = 1*ALPHA ":" 1*ALPHA\n')
    assert matches(loaded, "<a:b>") and not matches(loaded, "<a>")
    [note] = resolve_grammar(loaded).notes
    assert note.message == ("rule 'URI-reference' is written as prose <URI-reference, see [URI], "
                            "Section 4.1>; using its definition in lib1.abnf")
    with pytest.raises(AbnfError) as caught:
        resolve_grammar(grammar(text))
    assert str(caught.value).startswith(
        "main.abnf:2:17: error: rule 'URI-reference' is written as prose <URI-reference, see [URI], "
        "Section 4.1>, which cannot be matched; give a grammar that defines 'URI-reference' with "
        "--import FILE, or define it here in ABNF")


def test_prose_that_names_a_rule_refers_to_it():
    loaded = grammar("r = <label> *( %x2E <label> ) <DIGIT>\n", "label = 1*ALPHA\n")
    assert matches(loaded, "ab.cd7") and not matches(loaded, "ab.7")
    notes = [n.message for n in resolve_grammar(loaded).notes]
    assert notes == ["prose value <label> in rule 'r' refers to rule 'label' (defined in lib1.abnf)",
                     "prose value <label> in rule 'r' refers to rule 'label' (defined in lib1.abnf)",
                     "prose value <DIGIT> in rule 'r' refers to rule 'DIGIT' (a core rule)"]


def test_zero_repetitions_of_prose_are_the_empty_string():
    loaded = grammar('r = "a" 0<anything at all, even "quotes"> "b"\n')
    assert matches(loaded, "ab") and not matches(loaded, "a")
    assert not resolve_grammar(loaded).notes


def test_other_prose_is_an_error_saying_how_to_supply_a_definition():
    with pytest.raises(AbnfError) as caught:
        resolve_grammar(grammar("r = x\nx = ALPHA / <any CHAR except CTLs>\n"))
    message = caught.value.diagnostics[0].message
    assert message.startswith("prose value <any CHAR except CTLs> in rule 'x' cannot be matched")
    assert "--import FILE" in message and "<name>" in message
    resolve_grammar(grammar('r = "x"\nunused = <prose>\n'))  # unreachable prose is fine


def test_extending_a_core_rule_changes_it_everywhere():
    """RFC 6532 section 3.2 writes VCHAR =/ UTF8-non-ascii, for RFC 5322's rules to use."""
    loaded = grammar("r = word\nVCHAR =/ %x80-10FFFF\n", "word = 1*VCHAR\n")
    assert resolve_grammar(loaded).encoding == "utf-8"
    assert matches(loaded, "héllo") and not matches(loaded, "a b")
    assert matches(grammar("r = 1*DIGIT\nDIGIT =/ %x41\n"), "1A2")


def test_extending_an_imported_rule_changes_it_for_its_users():
    loaded = grammar('r = comment\nctext =/ "x"\n', 'comment = "(" *ctext ")"\nctext = "a"\n')
    assert matches(loaded, "(axa)") and not matches(loaded, "(b)")
    with pytest.raises(AbnfError, match="has no earlier '=' definition, and no imported grammar defines it"):
        resolve_grammar(grammar('r = ctext\nctext =/ "x"\n'))


def test_rfc_6532_extends_rfc_5322_to_utf8():
    """RFC 6532 section 3.2, with RFC 5322 and RFC 3629 from the abnf package's grammars."""
    rfc6532 = ("UTF8-non-ascii = UTF8-2 / UTF8-3 / UTF8-4\nVCHAR =/ UTF8-non-ascii\n"
               "ctext =/ UTF8-non-ascii\natext =/ UTF8-non-ascii\nqtext =/ UTF8-non-ascii\n"
               "text =/ UTF8-non-ascii\ndtext =/ UTF8-non-ascii\n")
    imports = [RFC_DATA / "rfc5322.abnf", RFC_DATA / "rfc3629.abnf"]
    extended = abnfc.load_grammar(text=rfc6532, name="rfc6532.abnf", imports=imports)
    plain = abnfc.load_grammar(RFC_DATA / "rfc5322.abnf")
    address = "jöe (ein Kommentar) <jöe@bücher.example>".encode()
    assert abnfc.recognize(extended, address, "address").matched
    assert not abnfc.recognize(plain, address, "address").matched
    assert abnfc.recognize(plain, b"joe@example.com", "addr-spec").matched
    assert resolve_grammar(extended, "address").encoding == "octets"  # RFC 3629's rules are bytes


def test_errors_in_imported_grammars_name_the_imported_file(tmp_path):
    library = tmp_path / "lib.abnf"
    library.write_text('x = "a"\ny = %x50-40\n')
    with pytest.raises(AbnfError) as caught:
        resolve_grammar(abnfc.load_grammar(text="r = y\n", name="main.abnf", imports=[library]))
    assert caught.value.diagnostics[0].format().startswith(
        f"{display_path(str(library))}:2:5: error: range %x50-40 is empty")
    library.write_text('x = "a" &\n')
    with pytest.raises(AbnfError) as caught:
        abnfc.load_grammar(text="r = x\n", imports=[library])
    span = caught.value.diagnostics[0].span
    assert span is not None and span.location().endswith("lib.abnf:1:9")


# -- the command line ---------------------------------------------------------------------------

def test_every_command_takes_imports(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "greet.abnf").write_text('greeting = word 1*( " " word ) "!"\n')
    (tmp_path / "words.abnf").write_text("word = 1*letter\nletter = ALPHA / %xC0-24F\n")
    (tmp_path / "more.abnf").write_text('letter = "-"\n')
    main_grammar = ["greet.abnf", "--import", "words.abnf", "--import", "more.abnf"]
    status, out, err = run_cli(capsys, "lint", *main_grammar)
    assert status == 0, err
    assert out == ("greet.abnf: 1 rule (and 2 imported), start rule greeting, encoding utf-8, 0 warnings; "
                   "regular: compiles to a DFA\n")
    assert "note: rules taken from words.abnf: word, letter" in err
    (tmp_path / "sample.txt").write_text("Grüße aus Köln!")
    for engine in ("dfa", "interpreter"):
        status, out, err = run_cli(capsys, "check", *main_grammar, "--engine", engine, "sample.txt")
        assert status == 0 and out.startswith("sample.txt: valid"), err
    status, out, err = run_cli(capsys, "dfa", *main_grammar, "--format", "json")
    assert status == 0 and '"num_states"' in out
    status, out, err = run_cli(capsys, "compile", *main_grammar, "--lang", "python", "--out", "out")
    assert status == 0, err
    text = (tmp_path / "out" / "greet.py").read_text()
    # paths relative to the output folder, so that the header does not depend on where abnfc ran
    assert "# Imports ../words.abnf, SHA-256: " in text and "# Imports ../more.abnf, SHA-256: " in text
    assert "abnfc compile ../greet.abnf --import ../words.abnf --import ../more.abnf --encoding utf-8" in text
    status, out, err = run_cli(capsys, "lint", "greet.abnf", "--import", "no/such.abnf")
    assert status == 2 and "cannot read grammar file no/such.abnf" in err


@pytest.mark.slow
def test_the_cross_checking_tools_take_imports_too(capsys):
    """vectors, crosscheck and diff load their grammars with --import and --encoding as the
    other commands do."""

    iri, uri = str(ROOT / "grammars" / "iri.abnf"), str(ROOT / "grammars" / "uri.abnf")
    assert main(["vectors", iri, "--import", uri]) == 0
    assert "\t1\t" in capsys.readouterr().out
    assert main(["diff", uri, iri, "--import", uri]) == 1
    assert "only in B" in capsys.readouterr().out
