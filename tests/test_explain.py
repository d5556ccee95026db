"""abnfc explain: derivation trees (rules, alternatives, spans), ambiguity, elision, the
two-sided diagnostics with carets in the grammar (tabs and wide characters included), the
expected positions against the DFA's provenance, --steps against the DFA, the JSON schema, and
errors, on utf8, uri, datetime and recursive grammars."""
from __future__ import annotations

import functools
import json
import random

import pytest
from conftest import ROOT, utf8_vectors
from helpers.cli import run_cli_text

import abnfc
from abnfc.cli import main
from abnfc.explain.explainer import _in_deep_stack, explain
from abnfc.explain.search import Derivation, Leaf, Search
from abnfc.explain.trees import tree as build_tree
from abnfc.i18n import ENGLISH, translator
from abnfc.pipeline import Compilation, Limits, resolve_grammar

UTF8 = "grammars/utf8.abnf"
UTF8_TEXT = (ROOT / UTF8).read_text()
SAMPLE = "aä€😀".encode()


pytestmark = pytest.mark.usefixtures("at_root")


def run(capsys, tmp_path, grammar: str, data: bytes, *options: str) -> tuple[int, str]:
    path = tmp_path / "input.bin"
    path.write_bytes(data)
    return run_cli_text(capsys, "explain", grammar, str(path), *options)


ENGLISH_TEXT = translator(ENGLISH)


@functools.cache
def compilation_of(grammar: str) -> Compilation:
    return Compilation(abnfc.load_grammar(ROOT / grammar))


def explained(grammar: str, data: bytes, steps: bool = False):
    return explain(compilation_of(grammar), "input", data, ENGLISH_TEXT, steps=steps)


def explained_text(text: str, data: bytes, max_work: int):
    """The explanation of ``data`` by the grammar ``text``, with a work limit."""
    return explain(Compilation(abnfc.load_grammar(text=text), None, Limits(max_work=max_work)), "input", data,
                   ENGLISH_TEXT)


def rules(tree: Derivation, depth: int) -> list[tuple[str, int, int, int]]:
    """(rule, alternative, start, end) of the rule nodes ``depth`` levels below ``tree``."""
    level = [tree]
    for _ in range(depth):
        level = [child for node in level for child in node.children if isinstance(child, Derivation)]
    return [(node.rule, node.alternative, node.start, node.end) for node in level]


# -- accepted inputs: trees ------------------------------------------------------------------

def test_utf8_tree_names_each_character_rule_and_alternative():
    tree = explained(UTF8, SAMPLE).tree
    assert (tree.rule, tree.start, tree.end) == ("UTF8-octets", 0, 10)
    assert rules(tree, 1) == [("UTF8-char", 1, 0, 1), ("UTF8-char", 2, 1, 3), ("UTF8-char", 3, 3, 6),
                              ("UTF8-char", 4, 6, 10)]
    # UTF8-3 alternative 2 is %xE1-EC 2( UTF8-tail ); UTF8-4 alternative 1 is %xF0 %x90-BF 2( UTF8-tail )
    assert rules(tree, 2) == [("UTF8-1", 1, 0, 1), ("UTF8-2", 1, 1, 3), ("UTF8-3", 2, 3, 6), ("UTF8-4", 1, 6, 10)]
    leaves = [node for node in tree.walk() if isinstance(node, Leaf)]
    assert [leaf.offset for leaf in leaves] == list(range(10))  # every byte read by one terminal
    assert [(leaf.origin.rule, leaf.origin.element) for leaf in leaves[6:8]] == [("UTF8-4", 0), ("UTF8-4", 1)]


def test_utf8_text_output(capsys, tmp_path):
    status, out = run(capsys, tmp_path, UTF8, SAMPLE)
    assert status == 0
    assert out.splitlines()[:10] == [
        "input.bin: valid (10 bytes), derived from UTF8-octets:".replace("input.bin", str(tmp_path / "input.bin")),
        'UTF8-octets  bytes 0-9  "aä€😀"',
        '  UTF8-char (alternative 1 of 4)  byte 0  "a"',
        '    UTF8-1  byte 0  "a"',
        '      %x00-7F at 7:15  byte 0  "a"',
        '  UTF8-char (alternative 2 of 4)  bytes 1-2  "ä"',
        '    UTF8-2  bytes 1-2  "ä"',
        '      %xC2-DF at 8:15  byte 1  "\\xc3"',
        '      UTF8-tail  byte 2  "\\xa4"',
        '        %x80-BF at 13:15  byte 2  "\\xa4"',
    ]
    assert '    UTF8-4 (alternative 1 of 3)  bytes 6-9  "😀"' in out.splitlines()


def test_datetime_tree():
    tree = explained("grammars/datetime.abnf", b"1985-04-12T23:20:50.52+01:00").tree
    assert rules(tree, 1) == [("full-date", 1, 0, 10), ("full-time", 1, 11, 28)]
    assert rules(tree, 2) == [("date-fullyear", 1, 0, 4), ("date-month", 1, 5, 7), ("date-mday", 1, 8, 10),
                              ("partial-time", 1, 11, 22), ("time-offset", 2, 22, 28)]


def test_uri_tree_and_alternatives():
    tree = explained("grammars/uri.abnf", b"http://example.com/a?b#c").tree
    assert (tree.rule, tree.alternative, tree.alternatives) == ("URI-reference", 1, 2)
    uri = tree.children[0]
    assert [(node.rule, node.start, node.end) for node in uri.children if isinstance(node, Derivation)] == [
        ("scheme", 0, 4), ("hier-part", 5, 20), ("query", 21, 22), ("fragment", 23, 24)]
    hier_part = [node for node in uri.children if isinstance(node, Derivation)][1]
    assert hier_part.alternative == 1  # hier-part = "//" authority path-abempty / ...


def test_recursive_grammar_trees():
    tree = explained("grammars/email.abnf", b"(a (nested) comment) user@example.com").tree
    comments = [node for node in tree.walk() if isinstance(node, Derivation) and node.rule == "comment"]
    assert [(c.start, c.end) for c in comments] == [(0, 20), (3, 11)]  # the nested comment inside
    assert tree.rule == "addr-spec" and tree.end == 37


def work_per_byte(grammar: str, inputs: list[bytes]) -> list[float]:
    """The search's steps per byte of a derivation tree of each input (all must be accepted)."""
    resolved = resolve_grammar(abnfc.load_grammar(text=grammar), None)
    found = []
    for data in inputs:
        search = Search(resolved, data, 10_000_000)
        tree = _in_deep_stack(functools.partial(build_tree, search), ENGLISH_TEXT)
        assert tree is not None and tree.end == len(data)
        found.append(search.meter.spent / len(data))
    return found


LIST = 'list = item [ "," list ]\nitem = 1*ALPHA\n'
PARENS = 'r = *( "(" r ")" / "x" )\n'


@pytest.mark.parametrize("grammar, unit", [(LIST, b"ab,"), (UTF8_TEXT, "aä€😀".encode()),
                                           (PARENS, b"(x(xx)((x)))")])
def test_work_is_linear_in_the_input(grammar, unit):
    small, large = work_per_byte(grammar, [(unit * n).rstrip(b",") for n in (20, 200)])
    assert large < 1.2 * small  # steps per byte do not grow with the input


@pytest.mark.slow
@pytest.mark.parametrize("grammar, unit", [(LIST, b"ab,"), (UTF8_TEXT, "aä€😀".encode()), (PARENS, b"(x(xx)((x)))")])
def test_10_kb_inputs(grammar, unit):
    data = (unit * (10_000 // len(unit))).rstrip(b",")
    [per_byte] = work_per_byte(grammar, [data])
    assert per_byte < 100


# -- ambiguity and elision -------------------------------------------------------------------

def test_ambiguous_input_shows_two_derivations(capsys, tmp_path):
    (tmp_path / "e.abnf").write_text('e = e "+" e / "x"\n')
    status, out = run(capsys, tmp_path, str(tmp_path / "e.abnf"), b"x+x+x")
    assert status == 0
    assert "ambiguous: e derives bytes 0-4 in more than one way; two of them:" in out
    first, second = out.split("derivation 1:\n")[1].split("derivation 2:\n")
    assert '    e (alternative 1 of 2)  bytes 2-4  "x+x"' in first  # x + (x+x)
    assert '    e (alternative 1 of 2)  bytes 0-2  "x+x"' in second  # (x+x) + x


def test_unambiguous_grammars_say_nothing_about_ambiguity():
    for grammar, data in ((UTF8, SAMPLE), ("grammars/uri.abnf", b"http://a/b?c"),
                          ("grammars/email.abnf", b"(x) a@b")):
        assert explained(grammar, data).ambiguity is None


def column(leaf: Leaf) -> int:
    """Where the grammar writes the terminal that read the leaf's byte."""
    assert leaf.origin.span is not None
    return leaf.origin.span.column


def test_ambiguity_inside_a_rule_shows_which_terminals_differ():
    explanation = explained_text('r = *( "a" ) *( "a" )\n', b"aa", 1_000_000)
    ambiguity = explanation.ambiguity
    assert ambiguity is not None
    columns = [[column(leaf) for leaf in tree.walk() if isinstance(leaf, Leaf)]
               for tree in (ambiguity.first, ambiguity.second)]
    assert columns[0] != columns[1]


def test_ambiguity_between_equal_terminals_written_apart():
    ambiguity = explained_text('r = ( "a" / "a" )\n', b"a", 1_000_000).ambiguity
    assert ambiguity is not None
    [first], [second] = ([column(leaf) for leaf in tree.walk() if isinstance(leaf, Leaf)]
                         for tree in (ambiguity.first, ambiguity.second))
    assert {first, second} == {7, 13}


def test_every_byte_appears_under_the_terminal_that_read_it(capsys, tmp_path):
    """The lead byte of "€" is read by %xE1-EC in UTF8-3's second alternative; it used to vanish
    from the tree, which showed only rules."""
    status, out = run(capsys, tmp_path, UTF8, "€".encode())
    assert status == 0
    assert '      %xE1-EC at 9:40  byte 0  "\\xe2"' in out.splitlines()
    for offset in range(3):
        assert sum(f"  byte {offset}  " in line and line.lstrip().startswith("%x") for line in out.splitlines()) == 1


def test_long_trees_are_elided_with_a_count(capsys, tmp_path):
    status, out = run(capsys, tmp_path, UTF8, b"a" * 100, "--max-nodes", "10")
    lines = out.splitlines()
    assert len(lines) == 12
    assert lines[6] == "... 291 more lines of the tree left out (--max-nodes 10 sets how many are shown) ..."
    assert lines[-1] == '      %x00-7F at 7:15  byte 99  "a"'
    status, out = run(capsys, tmp_path, UTF8, b"a" * 100, "--max-nodes", "0")
    assert status == 0 and len(out.splitlines()) == 302


# -- rejected inputs: diagnostics ------------------------------------------------------------

def test_utf8_rejection_points_into_the_grammar(capsys, tmp_path):
    status, out = run(capsys, tmp_path, UTF8, b"abc\xed\xa0\x80")
    assert status == 1
    lines = out.splitlines()
    at = lines.index(f"{tmp_path / 'input.bin'}, offset 4: byte 0xA0 is not allowed here")
    assert lines[at + 1:at + 5] == [
        "  bytes from offset 0: 61 62 63 ed [a0] 80",
        "grammars/utf8.abnf:10:20: UTF8-3 (alternative 3) expects %x80-9F after %xED",
        "                %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )",
        "                     ^~~~~~~",
    ]
    assert '  UTF8-char (alternative 3 of 4)  byte 3, incomplete  "\\xed"' in lines


def test_end_of_input_and_complete_prefix(capsys, tmp_path):
    status, out = run(capsys, tmp_path, UTF8, b"\xe2\x82")
    assert status == 1 and ", offset 2: the input ends here, but the grammar needs more" in out
    assert "grammars/utf8.abnf:13:15: UTF8-tail expects %x80-BF" in out
    status, out = run(capsys, tmp_path, "grammars/datetime.abnf", b"1985-04-12T23:20:50Zx")
    assert status == 1
    assert "date-time is complete after 20 bytes, and nothing in it can follow" in out


def caret_column(lines: list[str], source_line: str) -> int:
    """The display column of the caret under ``source_line`` (tabs kept, wide characters 2)."""
    import unicodedata
    quoted = lines.index("  " + source_line)
    caret = lines[quoted + 1]
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in caret[: caret.index("^")])


def test_carets_on_lines_with_tabs_and_wide_characters(capsys, tmp_path):
    # 0<...> is the empty string: prose may hold any characters, so a wide one can come first
    line = 'r =\t0<中文 😀>\t"a"  %x80-9F / "b"'
    (tmp_path / "w.abnf").write_text(line + "\n", encoding="utf-8")
    status, out = run(capsys, tmp_path, str(tmp_path / "w.abnf"), b"a\xff")
    lines = out.splitlines()
    assert status == 1
    assert f"{tmp_path / 'w.abnf'}:1:18: r (alternative 1) expects %x80-9F after \"a\"" in lines
    caret = lines[lines.index("  " + line) + 1]
    prefix = caret[2: caret.index("^")]
    assert prefix == "   \t          \t     "  # tabs copied, 中文 and 😀 two columns each
    assert caret.endswith("^~~~~~~")


def test_expected_positions_are_the_dfa_states_provenance():
    """For every rejected input, the positions explain quotes are exactly the grammar positions of
    the state the DFA before minimization is in before the rejected byte."""
    rng = random.Random(9)
    cases = [(UTF8, data) for data, valid, _ in utf8_vectors() if not valid][::8]
    for grammar, sample in (("grammars/datetime.abnf", b"1985-04-12T23:20:50.52+01:00"),
                            ("grammars/uri.abnf", b"http://u@[v1.x]:80/p;q?r#s%41")):
        for _ in range(30):
            changed = bytearray(sample)
            changed[rng.randrange(len(changed))] = rng.choice(b"x9:/@[%.\xff")
            cases.append((grammar, bytes(changed[: rng.randrange(1, len(changed) + 1)])))
    rejected = 0
    for grammar, data in cases:
        explanation = explained(grammar, data)
        if explanation.accepted:
            continue
        rejected += 1
        dfa = compilation_of(grammar).dfa
        state = dfa.start
        for byte in data[: explanation.outcome.offset]:
            state = dfa.transitions[state][dfa.byte_class[byte]]
        assert {e.origin for e in explanation.expected} == set(dfa.origins[state]), (grammar, data)
    assert rejected > 120


# -- steps -----------------------------------------------------------------------------------

def test_steps_follow_the_dfa(capsys, tmp_path):
    data = b"a\xc3\xa4\xed\xa0\x80"
    explanation = explained(UTF8, data, steps=True)
    minimal, exact = compilation_of(UTF8).minimal, compilation_of(UTF8).dfa
    state, position = minimal.start, exact.start
    assert [step.offset for step in explanation.steps] == [0, 1, 2, 3, 4]  # up to the dead state
    for step in explanation.steps:
        byte = data[step.offset]
        assert (step.byte, step.byte_class, step.before) == (byte, minimal.byte_class[byte], state)
        state = minimal.transitions[state][step.byte_class]
        assert step.after == state
        assert set(step.read_by) == {o for o in exact.origins[position] if any(lo <= byte <= hi for lo, hi in o.reads)}
        position = exact.transitions[position][exact.byte_class[byte]]
    assert explanation.steps[-1].after == minimal.dead and explanation.final_state is None
    status, out = run(capsys, tmp_path, UTF8, data, "--steps")
    assert status == 1
    assert "  offset 1: byte 0xC3, class 5, state 1 -> 2: read by %xC2-DF (UTF8-2 alternative 1, element 1)" in out
    assert ("  offset 4: byte 0xA0, class 3, state 5 -> 0 (dead): expected %x80-9F (UTF8-3 alternative 3, "
            "element 2)") in out


def test_steps_of_an_accepted_input_end_in_an_accepting_state(capsys, tmp_path):
    status, out = run(capsys, tmp_path, "grammars/datetime.abnf", b"1985-04-12T23:20:50Z", "--steps")
    assert status == 0
    assert out.splitlines()[-1].startswith("  end: state ") and out.endswith(", accepting\n")
    assert out.count("  offset ") == 20


# -- JSON ------------------------------------------------------------------------------------

def test_json_schema(capsys, tmp_path):
    status, out = run(capsys, tmp_path, UTF8, b"ab\xed\xa0", "--format", "json", "--steps")
    document = json.loads(out)
    assert status == 1
    assert set(document) == {"grammar", "start", "input", "size", "accepted", "tree", "ambiguity", "error", "steps"}
    assert (document["start"], document["size"], document["accepted"]) == ("UTF8-octets", 4, False)
    tree = document["tree"]
    assert set(tree) == {"rule", "alternative", "alternatives", "start", "end", "complete", "text", "hex", "children"}
    assert (tree["complete"], tree["end"], tree["hex"]) == (False, 3, "61 62 ed")
    leaf = tree["children"][0]["children"][0]["children"][0]
    assert leaf == {"terminal": "%x00-7F", "rule": "UTF8-1", "alternative": 1, "element": 1, "reads": [[0, 127]],
                    "file": "grammars/utf8.abnf", "line": 7, "column": 15, "offset": 0}
    error = document["error"]
    assert (error["offset"], error["byte"], error["context"]) == (3, 0xA0, "61 62 ed a0")
    expected = [(e["rule"], e["alternative"], e["element"], e["line"], e["column"], e["after"])
                for e in error["expected"]]
    assert expected == [("UTF8-3", 3, 2, 10, 20, "%xED")]
    assert error["expected"][0]["message"] == "UTF8-3 (alternative 3) expects %x80-9F after %xED"
    steps = [(s["offset"], s["from"], s["to"]) for s in document["steps"]]
    assert steps == [(0, 1, 1), (1, 1, 1), (2, 1, 5), (3, 5, 0)]


def test_json_of_an_ambiguous_input(capsys, tmp_path):
    (tmp_path / "e.abnf").write_text('e = e "+" e / "x"\n')
    status, out = run(capsys, tmp_path, str(tmp_path / "e.abnf"), b"x+x+x", "--format", "json")
    document = json.loads(out)
    assert status == 0 and document["error"] is None and document["accepted"]
    first, second = document["ambiguity"]["derivations"]
    assert first != second and first["end"] == second["end"] == 5


# -- errors ----------------------------------------------------------------------------------

def test_errors_exit_2_with_a_message(capsys, tmp_path):
    (tmp_path / "conflict.abnf").write_text('s = "(" s ")" / "(" "x" ")"\n')
    status, out = run(capsys, tmp_path, str(tmp_path / "conflict.abnf"), b"(x)", "--steps")
    assert status == 2 and "--steps shows the automaton, and rule 's' has none" in out
    assert "gets no pushdown validator" in out
    assert "Traceback" not in out
    status, out = run(capsys, tmp_path, "grammars/email.abnf", b"a(b)@c", "--steps")  # a pushdown validator's
    assert status == 0 and "opens a nested part (call state" in out
    status = main(["explain", UTF8, str(tmp_path / "missing.txt")])
    out = capsys.readouterr().err
    assert status == 2 and "cannot read" in out and "missing.txt" in out
    status, out = run(capsys, tmp_path, "grammars/nothing.abnf", b"a")
    assert status == 2 and "cannot read grammar file" in out
    status, out = run(capsys, tmp_path, UTF8, b"a", "--start", "nope")
    assert status == 2 and "start rule 'nope' is not defined" in out
    assert main(["explain", "-", "-"]) == 2
    assert "cannot both come from standard input" in capsys.readouterr().err


def test_work_limit_is_a_clear_error(capsys, tmp_path):
    """The tree search of a recursive grammar counts every step and every end offset it stores
    (issue 23: nested repetitions made it quadratic in time and memory, unmetered)."""
    grammar = tmp_path / "nested.abnf"
    grammar.write_text('r = *( *"a" ) / "(" r ")"\n')
    status, out = run(capsys, tmp_path, str(grammar), b"a" * 500, "--max-work", "1000")
    assert status == 2
    assert "the tree search gave up after" in out and "limit of 51,000 (--max-work plus 100 a byte" in out
    assert "Traceback" not in out
    status, out = run(capsys, tmp_path, str(grammar), b"a" * 500)
    assert status == 0 and "valid (500 bytes)" in out


def test_input_size_limit(capsys, tmp_path):
    status, out = run(capsys, tmp_path, UTF8, b"a" * ((1 << 20) + 1))
    assert status == 2 and "explain is meant for inputs a reader can follow" in out


def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["explain", "--help"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "--steps" in out and "--max-nodes" in out


# -- random grammars -------------------------------------------------------------------------

def check_explanation(text: str, data: bytes, compiled=None) -> None:
    """The tree covers exactly the accepted input, leaves read each byte once with a terminal
    that reads it, and a rejection's positions are the DFA's (when there is one)."""
    explanation = explained_text(text, data, 2_000_000)
    if explanation.accepted:
        tree = explanation.tree
        assert (tree.start, tree.end, tree.complete) == (0, len(data), True)
        leaves = [node for node in tree.walk() if isinstance(node, Leaf)]
        assert [leaf.offset for leaf in leaves] == list(range(len(data)))
        assert all(any(lo <= data[leaf.offset] <= hi for lo, hi in leaf.origin.reads) for leaf in leaves)
        return
    offset = explanation.outcome.offset
    if explanation.tree is not None:
        assert explanation.tree.end == offset
    if compiled is not None:
        state = compiled.dfa.start
        for byte in data[:offset]:
            state = compiled.dfa.transitions[state][compiled.dfa.byte_class[byte]]
        assert {e.origin for e in explanation.expected} == set(compiled.dfa.origins[state])


@pytest.mark.parametrize("seed", [*range(3), *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(3, 40))])
def test_random_grammars(seed):
    from grammar_gen import mutations, random_linear_grammar, random_recursive_grammar, random_regular_grammar, sample

    rng = random.Random(seed)
    for make, regular in ((random_regular_grammar, True), (random_linear_grammar, True),
                          (random_recursive_grammar, False)):
        text = make(rng)
        try:
            grammar = abnfc.load_grammar(text=text)
            compiled = abnfc.compile_grammar(grammar) if regular else None
        except abnfc.AbnfError:
            continue
        for _ in range(4):
            data = sample(text, rng)
            if data is None:
                break
            for case in [data, *mutations(data, rng, count=2)]:
                try:
                    check_explanation(text, case, compiled)
                except abnfc.AbnfError as error:  # a work limit on a highly ambiguous grammar is fine
                    assert "gave up" in str(error), (text, case)


def test_the_explanation_speaks_the_learners_language(capsys, tmp_path, monkeypatch):
    """--locale (or the environment) translates explain's sentences; grammar text, rule names and
    bytes stay as written, and the carets still point at the grammar's columns."""
    status, out = run(capsys, tmp_path, UTF8, b"ab\xed\xa0\x80", "--locale", "de")
    assert status == 1
    assert "UTF8-3 (Alternative 3 von 4)  Byte 2, unvollständig" in out
    assert ", Position 3: Byte 0xA0 ist hier nicht erlaubt" in out
    assert "grammars/utf8.abnf:10:20: UTF8-3 (Alternative 3) erwartet %x80-9F nach %xED\n" \
           "                %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )\n" \
           "                     ^~~~~~~" in out
    monkeypatch.setenv("LANGUAGE", "ja_JP:de")
    status, out = run(capsys, tmp_path, UTF8, "aä".encode())
    assert status == 0 and "UTF8-char（選択肢 2/4）  バイト 1-2  \"ä\"" in out
    status, out = run(capsys, tmp_path, UTF8, b"a", "--locale", "tlh")
    assert status == 2 and "no translation for locale 'tlh'" in out and "Traceback" not in out


def test_printable_bytes_are_shown_as_characters_beside_the_hex(capsys, tmp_path):
    """A text grammar's reader recognises 'T', not only %x54 (issue 17)."""
    status, out = run(capsys, tmp_path, "grammars/datetime.abnf", b"1985-04-12X")
    assert status == 1
    assert f"{tmp_path / 'input.bin'}, offset 10: byte 0x58 'X' is not allowed here" in out
    assert "date-time expects %x54 ('T') / %x74 ('t')" in out


def test_counts_take_their_singular_and_plural_in_every_language(capsys, tmp_path):
    """'valid (1 byte)', not '1 bytes' (issue 17): ngettext, with each catalog's plural rules."""
    status, out = run(capsys, tmp_path, UTF8, b"a")
    assert status == 0 and "valid (1 byte), derived from UTF8-octets:" in out
    status, out = run(capsys, tmp_path, UTF8, b"a", "--locale", "de")
    assert status == 0 and "gültig (1 Byte), abgeleitet aus UTF8-octets:" in out
    status, out = run(capsys, tmp_path, UTF8, b"ab", "--locale", "de")
    assert status == 0 and "gültig (2 Bytes)" in out
    grammar = tmp_path / "one.abnf"
    grammar.write_text('r = "a"\n')
    status, out = run(capsys, tmp_path, str(grammar), b"ab")
    assert status == 1 and "r is complete after 1 byte, and nothing in it can follow" in out


def test_steps_speak_the_learners_language_and_are_elided_like_trees(capsys, tmp_path):
    """--steps: the grammar positions in German (issue 17; they were English), and a long run's
    middle left out as a tree's is, so that 1 MiB of steps is not a million lines (issue 23)."""
    status, out = run(capsys, tmp_path, UTF8, "aä".encode(), "--steps", "--locale", "de")
    assert status == 0 and "gelesen von %x00-7F (UTF8-1 Alternative 1, Element 1)" in out
    status, out = run(capsys, tmp_path, UTF8, b"a" * 500, "--steps", "--max-nodes", "10")
    steps = [line for line in out.splitlines() if line.startswith("  offset ")]
    assert status == 0 and len(steps) == 10
    assert "  ... 490 more steps left out (--max-nodes 10 sets how many are shown) ..." in out


def test_the_tree_search_is_bounded_in_memory(capsys, tmp_path, monkeypatch):
    """The tree search of a recursive grammar keeps at most MAX_ANSWERS memoised answers (about
    300 bytes each): 1 MiB of JSON used to take minutes and gigabytes; now it is refused with the
    limit named (issue 23)."""
    import abnfc.explain.search as search

    monkeypatch.setattr(search, "MAX_ANSWERS", 500)
    status, out = run(capsys, tmp_path, "grammars/json.abnf", b'{"a": [1, 2, {"b": "xyz"}], "c": true}' * 20)
    assert status == 2
    assert "the tree search would keep more than 500 answers in memory" in out and "Traceback" not in out
    monkeypatch.setattr(search, "MAX_ANSWERS", 2_000_000)
    status, out = run(capsys, tmp_path, "grammars/json.abnf", b'{"a": [1, 2, {"b": "xyz"}], "c": true}')
    assert status == 0
