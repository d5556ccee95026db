"""``abnfc dfa`` for self-embedding grammars: the pushdown validator as a table (machines, call
states, returns), as JSON (the DFA's keys and ``pushdown``) and as DOT/SVG (a cluster per
machine, dashed call edges, dotted return edges); a grammar with a conflict is still refused."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from functools import cache

import pytest
from helpers.cli import run_cli
from helpers.paths import ROOT

import abnfc
from abnfc.automata.dump import machine_of
from abnfc.automata.pushdown import Pushdown
from abnfc.charset import format_hex
from abnfc.pipeline import Compilation

ABNFC = [sys.executable, "-m", "abnfc"]
HAS_DOT = shutil.which("dot") is not None
JSON = str(ROOT / "grammars" / "json.abnf")
EMAIL = str(ROOT / "grammars" / "email.abnf")
CASES = [(JSON, ()), (EMAIL, ("--start", "comment")), (EMAIL, ())]
CONFLICT = 's = "(" s ")" / "(" "x" ")"\n'


@cache
def pushdown(path: str, start: str | None = None, which: str = "minimal") -> Pushdown:
    compilation = Compilation(abnfc.load_grammar(path), start)
    return compilation.pushdown_automaton("minimal" if which == "minimal" else "subset")


def start_of(arguments: tuple[str, ...]) -> str | None:
    return arguments[1] if arguments else None


def dfa(capsys, *arguments: str) -> str:
    status, out, err = run_cli(capsys, "dfa", *arguments)
    assert (status, err) == (0, ""), err
    return out


# -- text ------------------------------------------------------------------------------------------

def test_json_text_shows_the_table_the_machines_the_calls_and_the_returns(capsys):
    out = dfa(capsys, JSON)
    found = pushdown(JSON)
    lines = out.splitlines()
    assert lines[0] == (f"pushdown validator: 3 machines, {found.num_states} states (dead state 0 included, call "
                        f"states from {found.first_call}), {found.dfa.num_classes} byte classes, start 1, "
                        f"accepting {sorted(found.dfa.accepting)}")
    for index, ranges in enumerate(found.dfa.classes):
        assert f"class {index:>3}: {format_hex(ranges)}" in lines
    rows = {int(m.group(2)): (m.group(1), [int(t) for t in m.group(3).split()])
            for m in re.finditer(r"^([ *>^]) *(\d+): ([\d ]+?)   ; ", out, re.M)}
    assert len(rows) == found.num_states
    for state, (mark, row) in rows.items():
        assert row == list(found.dfa.transitions[state])
        wanted = "*" if state in found.dfa.accepting else ">" if state in found.calls else \
            "^" if found.returns[state] else " "
        assert mark == wanted, state
    assert "  JSON-text                  states 1-32      start 1" in lines
    assert "  <nested part 1 of object>  states 33-80     start 33, closed by %x7D ('}')" in lines
    assert "  <nested part 2 of array>   states 81-113    start 81, closed by %x5D (']')" in lines
    starts = {m.start: m.name for m in found.machines}
    for state, entry in found.calls.items():
        assert any(line.startswith(f"  {state} -> {entry}: enters {starts[entry]}, from ") for line in lines)
    closing = {"<nested part 1 of object>": "%x7D ('}')", "<nested part 2 of array>": "%x5D (']')"}
    returning = [state for state, ranges in enumerate(found.returns) if ranges]
    assert len(returning) == 12
    for state in returning:
        machine = next(m for m in found.machines if m.first <= state < m.end)
        assert f"  {state}: {closing[machine.name]}, closes {machine.name}" in lines


def test_json_calls_enter_the_start_of_the_right_machine_and_returns_close_on_brackets():
    found = pushdown(JSON)
    objects, arrays = found.machines[1], found.machines[2]
    assert (objects.returns, arrays.returns) == (((0x7D, 0x7D),), ((0x5D, 0x5D),))
    dfa, byte_class = found.dfa, found.dfa.byte_class
    for state in range(1, found.first_call):
        for byte, machine in ((0x7B, objects), (0x5B, arrays)):  # { and [ open their machine's part
            target = dfa.transitions[state][byte_class[byte]]
            if target in found.calls:  # (a { or [ inside a string is read as a character)
                assert found.calls[target] == machine.start
    owner = machine_of(found)
    assert sorted(owner[k] for k in found.calls) == [0, 0, 1, 1, 2, 2]  # each machine calls both parts


def test_notes_say_what_a_call_state_waits_for_and_that_a_returning_state_expects_the_closing_byte(capsys):
    out = dfa(capsys, EMAIL, "--start", "comment")
    found = pushdown(EMAIL, "comment")
    notes = {int(m.group(1)): m.group(2) for m in re.finditer(r"^[ *>^] *(\d+): [\d ]+?   ; (.*)$", out, re.M)}
    for state in found.calls:
        assert notes[state] == "after %x28 ('('): expects %x29 (')') (comment alternative 1, element 4)"
    for state, ranges in enumerate(found.returns):
        if ranges:
            assert "%x29 (')') (comment alternative 1" in notes[state].split("expects", 1)[1]
    assert notes[0] == "dead" and notes[found.start].startswith("start; expects %x28 ('(')")


def test_email_comment_text_lists_its_two_machines(capsys):
    out = dfa(capsys, EMAIL, "--start", "comment")
    assert out.splitlines()[0].startswith("pushdown validator: 2 machines, 10 states (dead state 0 included, "
                                          "call states from 8), 8 byte classes, start 1, accepting [2]")
    assert "  comment                     states 1-2       start 1\n" in out
    assert "  <nested part 1 of comment>  states 3-7       start 3, closed by %x29 (')')\n" in out
    assert "  8 -> 3: enters <nested part 1 of comment>, from comment\n" in out
    assert "  9 -> 3: enters <nested part 1 of comment>, from <nested part 1 of comment>\n" in out
    assert "  3: %x29 (')'), closes <nested part 1 of comment>\n" in out


def test_no_minimize_shows_the_machines_of_the_subset_construction(capsys):
    minimal, subset = pushdown(JSON), pushdown(JSON, None, "subset")
    out = dfa(capsys, JSON, "--no-minimize")
    assert out.startswith(f"pushdown validator: 3 machines, {subset.num_states} states (dead state 0 included, "
                          f"call states from {subset.first_call}),")
    assert subset.num_states > minimal.num_states
    for machine in subset.machines:
        assert f"states {machine.first}-{machine.end - 1}" in out
    data = json.loads(dfa(capsys, JSON, "--no-minimize", "--format", "json"))
    assert data["transitions"] == [list(row) for row in subset.dfa.transitions]
    assert data["pushdown"]["calls"] == {str(k): e for k, e in subset.calls.items()}


def test_the_table_speaks_the_environments_language():
    env = {"PATH": str(ROOT), "LANG": "de_DE.UTF-8"}
    result = subprocess.run([*ABNFC, "dfa", EMAIL, "--start", "comment"], capture_output=True, text=True,
                            env=env, check=True)
    assert result.stdout.startswith("Kellervalidator: 2 Maschinen, 10 Zustände")
    assert "  8 -> 3: betritt <nested part 1 of comment>, aus comment\n" in result.stdout


# -- JSON ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path, arguments", CASES)
def test_json_output_holds_the_table_and_the_pushdown_facts(path, arguments, capsys):
    data = json.loads(dfa(capsys, path, "--format", "json", *arguments))
    found = pushdown(path, start_of(arguments))
    dfa_ = found.dfa
    assert (data["num_states"], data["num_classes"], data["start"], data["dead"]) == (
        dfa_.num_states, dfa_.num_classes, dfa_.start, dfa_.dead)
    assert data["accepting"] == sorted(dfa_.accepting)
    assert data["classes"] == [[list(r) for r in ranges] for ranges in dfa_.classes]
    assert data["transitions"] == [list(row) for row in dfa_.transitions]
    assert len(data["origins"]) == dfa_.num_states
    facts = data["pushdown"]
    assert facts["first_call"] == found.first_call
    assert {int(k): v for k, v in facts["calls"].items()} == dict(found.calls)
    assert {int(k): [tuple(r) for r in v] for k, v in facts["returns"].items()} == {
        state: list(ranges) for state, ranges in enumerate(found.returns) if ranges}
    assert facts["machines"] == [{"name": m.name, "first": m.first, "end": m.end, "start": m.start,
                                  "returns": [list(r) for r in m.returns]} for m in found.machines]


# -- DOT and SVG -----------------------------------------------------------------------------------

def clusters(text: str) -> list[tuple[str, list[int]]]:
    """(label, states) of each machine's cluster."""
    found = []
    for block in re.findall(r'^  subgraph "cluster_\d+" \{\n(.*?)^  \}$', text, re.M | re.S):
        label = re.search(r'label="([^"]*)";', block)
        assert label is not None
        found.append((label.group(1), [int(s) for s in re.findall(r"^    (\d+) \[", block, re.M)]))
    return found


@pytest.mark.parametrize("path, arguments", CASES)
def test_dot_draws_a_cluster_per_machine_call_edges_and_return_edges(path, arguments, capsys):
    text = dfa(capsys, path, "--format", "dot", *arguments)
    found = pushdown(path, start_of(arguments))
    owner = machine_of(found)
    drawn = clusters(text)
    assert len(drawn) == len(found.machines)
    for index, (label, states) in enumerate(drawn):
        machine = found.machines[index]
        assert label.split("\\n")[0] == machine.name
        assert states == [s for s in range(found.num_states) if owner[s] == index]
        assert ("closed by " + format_hex(machine.returns) in label) == bool(machine.returns)
    calls = re.findall(r'^  (\d+) -> (\d+) \[style=dashed, label="call"\];$', text, re.M)
    assert {int(a): int(b) for a, b in calls} == dict(found.calls) and len(calls) == len(found.calls)
    for state in found.calls:
        assert re.search(rf'^    {state} \[shape=box, ', text, re.M)
    returns = re.findall(r'^  (\d+) -> return_(\d+) \[style=dotted, label="([^"]*)"\];$', text, re.M)
    assert sorted((int(s), int(m), label) for s, m, label in returns) == [
        (s, owner[s], format_hex(ranges)) for s, ranges in enumerate(found.returns) if ranges]
    plain = {(int(a), int(b)) for a, b in re.findall(r'^  (\d+) -> (\d+) \[label="[^"]*"\];$', text, re.M)}
    live = {(s, t) for s, row in enumerate(found.dfa.transitions) for t in row if s and t}
    assert plain == live
    assert f"  start -> {found.start};" in text and '  0 [' not in text


def test_dot_draws_the_dead_state_when_asked(capsys):
    text = dfa(capsys, EMAIL, "--start", "comment", "--format", "dot", "--show-dead")
    assert '  0 [peripheries=1, label="0\\ndead", tooltip="dead"];' in text
    assert '  0 -> 0 [label="00-FF"];' in text


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz (dot) is not installed")
def test_svg_draws_every_state_of_every_machine():
    result = subprocess.run([*ABNFC, "dfa", EMAIL, "--start", "comment", "--format", "svg"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    svg = result.stdout[result.stdout.index("<svg"):]
    titles = {t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}title")}
    assert {str(s) for s in range(1, 10)} | {"cluster_0", "cluster_1", "return_1"} <= titles


@pytest.mark.parametrize("form", ["text", "json", "dot"])
def test_output_is_the_same_on_every_run(form):
    runs = [subprocess.run([*ABNFC, "dfa", JSON, "--format", form], capture_output=True, text=True, check=True,
                           env={"PATH": str(ROOT), "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert runs[0] == runs[1] and runs[0]


# -- conflicts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["text", "json", "dot"])
def test_a_grammar_with_a_conflict_is_refused_with_the_conflicts_message(form, tmp_path, capsys):
    path = tmp_path / "conflict.abnf"
    path.write_text(CONFLICT)
    status, out, err = run_cli(capsys, "dfa", str(path), "--format", form)
    assert (status, out) == (2, "")
    assert err.startswith(f"{path}:1:5: error: rule 's' gets no pushdown validator: after the input b'(', the "
                          "byte 0x28 '(' can open the nested part of 's' or be read by 's'")
    assert "Traceback" not in err
