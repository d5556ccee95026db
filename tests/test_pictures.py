"""Pictures: the DFA as DOT and SVG (abnfc dfa --format dot|svg) and railroad diagrams of rules
(abnfc railroad), on utf8, uri, datetime and the recursive email grammar."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ROOT, compile_text

from abnfc import api
from abnfc.automata.notes import note_text, state_notes
from abnfc.cli import main
from abnfc.frontend.resolve import resolve
from abnfc.pictures import dot
from abnfc.pictures.railroad import diagram_svg

GRAMMARS = ["utf8", "uri", "datetime"]
ABNFC = [sys.executable, "-m", "abnfc"]
HAS_DOT = shutil.which("dot") is not None


def grammar(name: str) -> str:
    return str(ROOT / "grammars" / f"{name}.abnf")


def compiled(name: str):
    """Compiled once per test run (conftest's cache, shared with the other test modules)."""
    return compile_text((ROOT / "grammars" / f"{name}.abnf").read_text(encoding="utf-8"))


def dot_edges(text: str) -> list[tuple[int, int, str]]:
    found = re.findall(r'^  (\d+) -> (\d+) \[label="([^"]*)"\];$', text, re.M)
    return [(int(a), int(b), label) for a, b, label in found]


@pytest.mark.parametrize("name", GRAMMARS)
def test_dot_has_one_edge_per_pair_of_states_and_covers_every_live_transition(name, capsys):
    assert main(["dfa", grammar(name), "--format", "dot"]) == 0
    text = capsys.readouterr().out
    minimal = compiled(name).minimal
    edges = dot_edges(text)
    pairs = [(a, b) for a, b, _ in edges]
    assert len(pairs) == len(set(pairs))
    for state, row in enumerate(minimal.transitions):
        for cls, target in enumerate(row):
            if state == minimal.dead or target == minimal.dead:
                assert (state, target) not in pairs
                continue
            label = next(lab for a, b, lab in edges if (a, b) == (state, target))
            covered = [tuple(int(x, 16) for x in part.split("-")) for part in label.replace("\\n", " ").split()]
            for lo, hi in minimal.classes[cls]:
                assert any(c[0] <= lo and hi <= c[-1] for c in covered), (state, target, label)
    for state in minimal.accepting:
        assert re.search(rf"^  {state} \[peripheries=2,", text, re.M)
    assert f"  start -> {minimal.start};" in text
    assert f"  {minimal.dead} [" not in text


def test_dot_for_utf8_names_grammar_positions_and_merges_ranges():
    utf8 = compiled("utf8")
    text = dot.to_dot(utf8.minimal, _notes_of(utf8.minimal, utf8.dfa), "UTF8-octets")
    assert '  3 [peripheries=1, label="3\\nUTF8-3/1.2", tooltip="after %xE0: expects %xA0-BF (UTF8-3 ' \
           'alternative 1, element 2)"];' in text
    assert '  1 -> 4 [label="E1-EC EE-EF"];' in text  # two classes' ranges on one edge
    assert len(dot_edges(text)) == 15


def test_the_dead_state_is_drawn_when_asked(capsys):
    assert main(["dfa", grammar("utf8"), "--format", "dot", "--show-dead"]) == 0
    text = capsys.readouterr().out
    assert '  0 [peripheries=1, label="0\\ndead", tooltip="dead"];' in text
    assert '  0 -> 0 [label="00-FF"];' in text
    assert '  1 -> 0 [label="80-C1 F5-FF"];' in text


def test_dot_for_a_recursive_grammar_without_a_pushdown_validator_is_refused_with_a_message(tmp_path, capsys):
    """email.abnf draws its pushdown validator now (tests/test_dfa_pushdown.py); a grammar with
    a conflict has none to draw."""
    path = tmp_path / "conflict.abnf"
    path.write_text('s = "(" s ")" / "(" "x" ")"\n')
    assert main(["dfa", str(path), "--format", "dot"]) == 2
    assert "gets no pushdown validator" in capsys.readouterr().err


def test_large_graphs_ask_graphviz_for_a_bounded_layout_effort():
    for name, bounded in (("uri", True), ("utf8", False)):
        minimal = compiled(name).minimal
        text = dot.to_dot(minimal, [""] * minimal.num_states, name)
        assert (len(dot_edges(text)) >= dot.MANY_EDGES) == bounded
        assert (dot.BOUNDED_EFFORT in text.splitlines()) == bounded


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz (dot) is not installed")
@pytest.mark.parametrize("name", ["utf8", "datetime"])  # uri's 600 edges take dot 15 s or more
def test_svg_is_drawn_by_graphviz(name):
    result = subprocess.run([*ABNFC, "dfa", grammar(name), "--format", "svg"], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    root = ET.fromstring(result.stdout.split("?>", 1)[-1].split("-->", 1)[-1].lstrip()
                         if result.stdout.startswith("<?xml") else result.stdout)
    titles = {t.text for t in root.iter("{http://www.w3.org/2000/svg}title")}
    minimal = compiled(name).minimal
    assert {str(s) for s in range(1, minimal.num_states)} <= titles  # every live state is a node


def test_svg_without_graphviz_says_how_to_install_it(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    result = subprocess.run([*ABNFC, "dfa", grammar("utf8"), "--format", "svg"], capture_output=True, text=True,
                            env={"PATH": str(bin_dir)}, check=False)
    assert result.returncode == 2
    assert "the 'dot' program of Graphviz is not installed" in result.stderr
    assert "apt-get install graphviz" in result.stderr and "Traceback" not in result.stderr


def test_svg_with_a_failing_graphviz_is_the_users_problem(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"
    fake.write_text("#!/bin/sh\necho 'Error: broken install' >&2\nexit 3\n")
    fake.chmod(0o755)
    result = subprocess.run([*ABNFC, "dfa", grammar("utf8"), "--format", "svg"], capture_output=True, text=True,
                            env={"PATH": str(bin_dir)}, check=False)
    assert result.returncode == 2
    assert "Graphviz's dot failed (exit status 3): Error: broken install" in result.stderr


# -- railroad diagrams --------------------------------------------------------------------------

def diagram(text: str, rule: str = "r", **options) -> str:
    resolved = resolve(api.load_grammar(text=text).ast)
    return diagram_svg(rule, resolved.rule(rule.lower()).definition, lambda key: f"#rule-{key}", **options)


def svg_texts(svg: str) -> list[str]:
    """The texts of an SVG, inline (no namespace) or standalone (the SVG namespace)."""
    return [t.text or "" for t in ET.fromstring(svg).iter() if t.tag.rsplit("}", 1)[-1] == "text"]


@pytest.mark.parametrize("text, shown", [
    ('r = 3"a"\n', ['"a"', "3 times"]),
    ('r = 2*5"a"\n', ['"a"', "2 to 5 times"]),
    ('r = 2*"a"\n', ['"a"', "2 or more times"]),
    ('r = *4"a"\n', ['"a"', "at most 4 times"]),
    ("r = %x41-5A\n", ['%x41-5A "A"-"Z"']),
    ("r = %x0D.0A\n", ["%x0D.0A"]),
    ("r = %d97.98\n", ['%d97.98 "ab"']),
    ('r = %s"Ab" / %i"cd"\n', ['%s"Ab"', '%i"cd"']),
    ('r = "x"\nq = <some prose>\n', ["<some prose>"]),  # prose is an error only where r reaches it
])
def test_railroad_draws_bounds_strings_and_ranges_legibly(text, shown):
    rule = text.splitlines()[-1].split()[0]
    texts = svg_texts(diagram(text, rule=rule))
    assert texts[0] == rule  # the rule's name at the start
    assert texts[1:] == shown


def test_case_sensitive_strings_look_different_and_say_so():
    svg = diagram('r = %s"Ab" / "cd"\n')
    root = ET.fromstring(svg)
    groups = {g.findtext("text"): g for g in root.iter("g") if g.findtext("text")}
    assert "case-sensitive" in groups['%s"Ab"'].get("class", "")
    assert (groups['%s"Ab"'].findtext("title") or "").startswith("case-sensitive")
    assert (groups['"cd"'].findtext("title") or "").startswith("case-insensitive")


def test_rule_references_link_to_their_diagram():
    grammar = "r = a [b]\na = %x61\nb = DIGIT\n"
    inline = diagram(grammar)  # for a page: HTML binds the xlink prefix itself
    assert {a.get("href") for a in ET.fromstring(inline.replace("xlink:href", "href")).iter("a")} == {
        "#rule-a", "#rule-b"}
    standalone = diagram(grammar, standalone=True)  # a file of its own: the namespaced attribute
    anchors = [element for element in ET.fromstring(standalone).iter() if element.tag.rsplit("}", 1)[-1] == "a"]
    links = [anchor.get("{http://www.w3.org/1999/xlink}href") for anchor in anchors]
    assert sorted(link or "" for link in links) == ["#rule-a", "#rule-b"]


def test_railroad_labels_are_translated():
    assert "3-mal" in svg_texts(diagram('r = 3"a"\n', _=lambda m: {"{count} times": "{count}-mal"}.get(m, m)))


def test_very_deep_nesting_is_a_note_not_a_crash():
    svg = diagram("r = " + "*(" * 99 + '"a"' + ")" * 99 + "\n")  # the parser allows 100 groups
    assert any("not drawn" in t for t in svg_texts(svg))


@pytest.mark.parametrize("name", [*GRAMMARS, "email"])
def test_railroad_command_writes_one_linked_svg_per_rule(name, tmp_path, capsys):
    out = tmp_path / "diagrams"
    assert main(["railroad", grammar(name), "--out", str(out), "--locale", "en"]) == 0
    written = sorted(p.name for p in out.iterdir())
    loaded = api.load_grammar(grammar(name))
    own = {rule.name for rule in loaded.ast.rules}
    assert own <= {n.removesuffix(".svg") for n in written}
    for path in out.iterdir():
        root = ET.fromstring(path.read_text("utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        for link in root.iter("{http://www.w3.org/2000/svg}a"):
            target = link.get("{http://www.w3.org/1999/xlink}href")
            assert (out / target).exists(), (path.name, target)
    assert main(["railroad", grammar(name), "--out", str(out), "--locale", "en"]) == 0
    assert "up to date, nothing written" in capsys.readouterr().out


def test_railroad_command_prints_one_rule_and_refuses_unclear_requests(capsys):
    assert main(["railroad", grammar("uri"), "--rule", "IPv4address"]) == 0
    assert capsys.readouterr().out.startswith('<svg class="railroad-diagram"')
    assert main(["railroad", grammar("uri")]) == 2
    assert "give --out DIR" in capsys.readouterr().err
    assert main(["railroad", grammar("uri"), "--rule", "nope"]) == 2
    assert "has no rule 'nope'" in capsys.readouterr().err
    assert main(["railroad", grammar("uri"), "--rule", "IPv4address", "--locale", "xx"]) == 2
    assert "no translation for locale 'xx'" in capsys.readouterr().err


def test_railroad_command_takes_the_language_from_the_environment():
    env = {"PATH": str(Path(sys.executable).parent), "LANG": "ja_JP.UTF-8"}
    result = subprocess.run([*ABNFC, "railroad", grammar("utf8"), "--rule", "UTF8-3"], capture_output=True,
                            text=True, env=env, check=True)
    assert "2 回" in svg_texts(result.stdout)


def _notes_of(dfa, exact=None) -> tuple[str, ...]:
    """Each state's note in English, as the pipeline renders them."""
    return tuple(note_text(note) for note in state_notes(dfa, exact))


def test_standalone_railroad_svg_is_well_formed_xml_whatever_the_grammar_writes(tmp_path, capsys):
    """A label holding ``]]>`` used to be written with ``>`` unescaped (issue 23, F10)."""
    grammar = tmp_path / "esc.abnf"
    grammar.write_text('r = "]]>" / "<&>" / %s"a\'b"\n')
    assert main(["railroad", str(grammar), "--rule", "r"]) == 0
    svg = capsys.readouterr().out
    texts = [t.text for t in ET.fromstring(svg).iter() if t.tag.rsplit("}", 1)[-1] == "text"]
    assert texts == ["r", '"]]>"', '"<&>"', '%s"a\'b"']


def test_railroad_draws_prose_that_no_import_defines(tmp_path, capsys):
    """An RFC grammar is drawn as written: a prose value is a box in the diagram and a warning,
    where compiling it is an error (issue 17)."""
    grammar = tmp_path / "prose.abnf"
    grammar.write_text('r = "a" x\nx = <any text the RFC describes>\n')
    assert main(["railroad", str(grammar), "--rule", "x"]) == 0
    captured = capsys.readouterr()
    svg = ET.fromstring(captured.out)
    assert "<any text the RFC describes>" in [t.text for t in svg.iter() if t.tag.rsplit("}", 1)[-1] == "text"]
    assert "warning: rule 'x' is written as prose" in captured.err and "drawn as prose" in captured.err
    assert main(["compile", str(grammar), "--out", str(tmp_path / "out")]) == 2
    assert "which cannot be matched" in capsys.readouterr().err


def test_the_dfa_picture_has_a_legend_and_speaks_the_readers_language():
    """The node labels (UTF8-3/1.2) had no legend, and "(4 positions)" stayed English (issue 17)."""
    from abnfc.i18n import translator

    compiled = api.compile_grammar(ROOT / "grammars" / "uri.abnf")
    english = dot.to_dot(compiled.minimal, _notes_of(compiled.minimal, compiled.dfa))
    german = dot.to_dot(compiled.minimal, _notes_of(compiled.minimal, compiled.dfa), _=translator("de"))
    assert "legend [shape=note" in english and "RULE/A.E: the state reads element E of alternative A" in english
    assert " positions)" in english and " Positionen)" in german and " positions)" not in german
    assert "REGEL/A.E: der Zustand liest" in german
