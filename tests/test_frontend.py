"""Front end: parsing every construct, printing ABNF back, and how errors are reported."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT, UTF8_GRAMMAR

from abnfc.errors import AbnfError
from abnfc.frontend import ast
from abnfc.frontend.parse import parse
from abnfc.frontend.resolve import resolve

EVERY_CONSTRUCT = """\
r = a / b c / 2d / 3*e / *4f / 1*g / *h / 0i / [ j ] / ( k / l ) ; comment
a = "quoted" / %s"Case" / %i"fold" / ""
b = %x41 / %x30-39 / %x0D.0A / %d13 / %d48-57 / %d13.10 / %b1010 / %b0-1 / %b1.0
c = <prose in an unused position>
r =/ ALPHA DIGIT
d = (("a" / "b") "c")
e = "e"
f = "f"
g = "g"
h = "h"
i = "i"
j = "j"
k = "k"
l = "l"
"""


def test_every_construct_parses_and_prints_back_as_equal_abnf():
    grammar = parse(EVERY_CONSTRUCT)
    again = parse(str(grammar))
    assert again == grammar
    rule = grammar.rules[0]
    kinds = {type(node).__name__ for node in ast.walk(rule.definition)}
    assert {"Alternation", "Concatenation", "Repetition", "Option", "Group", "RuleRef"} <= kinds
    repeats = [(n.min, n.max) for n in ast.walk(rule.definition) if isinstance(n, ast.Repetition)]
    assert repeats == [(2, 2), (3, None), (0, 4), (1, None), (0, None), (0, 0)]
    values = [n for n in ast.walk(grammar.rules[2].definition) if isinstance(n, (ast.NumVal, ast.NumRange))]
    assert [str(v) for v in values] == ["%x41", "%x30-39", "%x0D.0A", "%d13", "%d48-57", "%d13.10",
                                        "%b1010", "%b0-1", "%b1.0"]
    strings = [n for n in ast.walk(grammar.rules[1].definition) if isinstance(n, ast.CharVal)]
    assert [(s.text, s.case_sensitive) for s in strings] == [("quoted", False), ("Case", True),
                                                              ("fold", False), ("", False)]


def test_utf8_grammar_round_trips():
    grammar = parse(UTF8_GRAMMAR.read_text())
    assert parse(str(grammar)) == grammar
    assert [r.name for r in grammar.rules][:2] == ["UTF8-octets", "UTF8-char"]


@pytest.mark.parametrize("text", [
    'r = "a"\r\n  / "b"\r\ns = "c"\r\n',  # CRLF line endings and a continuation
    'r = "a"\n  / "b"\ns = "c"',  # no final newline
    '; leading comment\n\nr = "a" ; trailing\n     ; comment-only continuation\n  / "b"\ns = "c"\n',
    '   r = "a"\n     / "b"\n   s = "c"\n',  # pasted from an RFC with a uniform indent
])
def test_line_structure_variants_give_the_same_grammar(text):
    assert parse(text) == parse('r = "a" / "b"\ns = "c"\n')


def test_rule_names_are_case_insensitive_and_core_rules_are_available():
    resolved = resolve(parse('Rule = rule-Two DIGIT\nRULE-two = "x" alpha\n'))
    assert resolved.reachable == ("rule", "rule-two", "digit", "alpha")
    assert resolved.rule("alpha").core and not resolved.rule("rule-two").core


def test_a_grammar_may_redefine_a_core_rule():
    resolved = resolve(parse('r = DIGIT\nDIGIT = "0" / "1"\n'))
    assert not resolved.rule("digit").core


def test_incremental_alternatives_merge_into_the_first_definition():
    resolved = resolve(parse('r = "a"\nr =/ "b" / "c"\n'))
    assert str(resolved.rule("r").definition) == '"a" / "b" / "c"'


def test_unused_rules_and_undefined_references_in_them_are_warnings():
    resolved = resolve(parse('r = "a"\nunused = missing\n'))
    messages = [w.message for w in resolved.warnings]
    assert any("undefined rule 'missing'" in m for m in messages)
    assert any("rule 'unused' is never used" in m for m in messages)


def test_a_chosen_start_rule_leaves_rules_unused_by_choice_one_note_and_no_warning(capsys):
    """--start URI of uri.abnf: the five rules URI does not reach are no mistake of the user's;
    lint names them in one note, compile and check say nothing."""
    from abnfc.cli import main

    resolved = resolve(parse('first = "a" second\nsecond = "b"\nthird = "c"\n'), "second")
    assert [w.message for w in resolved.warnings] == []
    assert [n.message for n in resolved.notes] == [
        "2 rules are not reachable from start rule 'second': first, third"]
    uri = str(ROOT / "grammars" / "uri.abnf")
    assert main(["check", uri, "--start", "URI", "-q", str(ROOT / "grammars" / "uri.abnf")]) == 1
    assert main(["lint", uri, "--start", "URI"]) == 0
    captured = capsys.readouterr()
    assert "never used" not in captured.err + captured.out
    assert ("note: 5 rules are not reachable from start rule 'URI': URI-reference, relative-ref, relative-part, "
            "path-noscheme, segment-nz-nc") in captured.err + captured.out
    # the first rule, chosen or not, is the grammar's own start: what it leaves unused is a warning
    assert [w.kind for w in resolve(parse('r = "a"\nunused = "b"\n'), "r").warnings] == ["unused rule"]


def test_elements_without_white_space_between_them_are_a_warning():
    resolved = resolve(parse('r = "a""b" x\nx = %x41 "b"(x / "c") / ""\n', "adj.abnf"))
    located = [(d.span.location() if d.span else "", d.message) for d in resolved.warnings]
    assert [where for where, _ in located] == ["adj.abnf:1:8", "adj.abnf:2:13"]
    assert located[0][1].startswith('no white space between "a" and "b": RFC 5234 needs it')


def test_rules_whose_recursion_has_no_way_out_are_reported():
    resolved = resolve(parse('r = a / "x" s / "y"\na = b\nb = "(" b ")"\ns = s "c" / *r\n', "u.abnf"))
    messages = {d.span.line if d.span else 0: d.message for d in resolved.warnings}
    assert sorted(messages) == [2, 3]  # r and s can match ("y", and the empty string)
    assert messages[3] == ("rule 'b' can never match anything: each of its alternatives needs 'b', "
                           "and that recursion has no way out")
    assert "needs 'b'" in messages[2]
    email = resolve(parse((ROOT / "grammars" / "email.abnf").read_text()))
    assert not email.warnings


def test_errors_are_collected_and_sorted_with_caret_lines():
    with pytest.raises(AbnfError) as caught:
        resolve(parse('r = fo %x100 foo\nfoo = %x50-40\n', "bad.abnf"), encoding="octets")
    text = str(caught.value)
    lines = text.splitlines()
    assert lines[0] == "bad.abnf:1:5: error: undefined rule 'fo'; did you mean 'foo'?"
    assert lines[1:3] == ["  r = fo %x100 foo", "      ^~"]
    assert "bad.abnf:1:8: error: terminal value %x100 is above %xFF" in text
    assert "bad.abnf:2:7: error: range %x50-40 is empty" in text


def test_indented_grammar_reports_original_columns():
    with pytest.raises(AbnfError) as caught:
        parse('   r = "a" &\n', "x.abnf")
    assert str(caught.value).startswith("x.abnf:1:12: error: unexpected '&'")


def test_tabs_in_the_source_line_keep_the_caret_aligned():
    with pytest.raises(AbnfError) as caught:
        parse('r =\t"a" &\n', "t.abnf")
    assert str(caught.value).splitlines()[1:] == ['  r =\t"a" &', "     \t    ^"]


def test_wide_and_control_characters_keep_the_caret_aligned():
    with pytest.raises(AbnfError) as caught:
        parse('r = "\u4e2d\u6587" \x1b &\n', "w.abnf")
    shown, caret = str(caught.value).splitlines()[1:]
    assert shown == '  r = "\u4e2d\u6587" \\x1b &'  # the escape is shown, not sent to the terminal
    # The two CJK characters take two columns each; the caret spans the whole escape.
    assert caret == " " * (shown.index("\\x1b") + 2) + "^~~~"


def test_form_feed_in_a_comment_does_not_shift_the_reported_line():
    with pytest.raises(AbnfError) as caught:
        parse('r = "a" ; page\x0cbreak\nq = "b" &\n', "f.abnf")
    assert str(caught.value).splitlines()[:2] == [
        "f.abnf:2:9: error: unexpected '&'; expected an element (rule name, quoted string, "
        "numeric value, '(' or '['), ')', '/', ']' or end of line", '  q = "b" &']


def test_cli_prints_errors_without_traceback_and_exits_2(tmp_path):
    bad = tmp_path / "bad.abnf"
    bad.write_text('r = "a" /\n')
    result = subprocess.run([sys.executable, "-m", "abnfc", "lint", str(bad)], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 2
    assert "bad.abnf:1:10: error: expected an element" in result.stderr
    assert "Traceback" not in result.stderr
    debug = subprocess.run([sys.executable, "-m", "abnfc", "--debug", "lint", str(bad)],
                           capture_output=True, text=True, cwd=ROOT)
    assert debug.returncode != 0 and "Traceback" in debug.stderr


def test_grammar_file_that_is_not_utf8_is_an_error(tmp_path):
    from abnfc.frontend.source import load

    bad = tmp_path / "latin1.abnf"
    bad.write_bytes(b'r = "a"\n; caf\xe9\n')
    with pytest.raises(AbnfError) as caught:
        load(str(bad))
    assert ":2:6: error: the grammar file is not UTF-8 (byte 0xE9)" in str(caught.value)


def test_deep_nesting_is_refused_clearly_not_with_a_recursion_error():
    with pytest.raises(AbnfError) as caught:
        parse("r = " + "(" * 150 + '"a"' + ")" * 150 + "\n")
    assert "nested more than 100 deep" in str(caught.value)
    assert parse("r = " + "(" * 90 + '"a"' + ")" * 90 + "\n").rules[0].name == "r"


def test_long_chains_of_rules_compile_without_recursion_errors():
    from conftest import compile_text

    text = "".join(f'a{i} = "x" a{i + 1}\n' for i in range(3000)) + 'a3000 = "y"\n'
    assert compile_text(text).minimal.matches(b"x" * 3000 + b"y")


def test_parses_in_parallel_threads_keep_their_own_locations():
    """The lark parser is shared; each parse must still report its own file and columns."""
    from concurrent.futures import ThreadPoolExecutor

    def locate(index: int) -> str:
        indent = " " * (index % 7)  # the dedent shifts differ from parse to parse too
        grammar = parse(f'{indent}r{index} = "a" x{index}\n{indent}x{index} = "b"\n', f"g{index}.abnf")
        definition = grammar.rules[0].definition
        assert isinstance(definition, ast.Concatenation)
        reference = definition.items[1]
        assert isinstance(reference, ast.RuleRef) and reference.span is not None
        return f"{reference.span.location()} {reference.name}"

    def expected(index: int) -> str:
        column = index % 7 + len(f'r{index} = "a" ') + 1
        return f"g{index}.abnf:1:{column} x{index}"

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(locate, range(400)))
    assert results == [expected(i) for i in range(400)]
