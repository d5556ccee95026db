"""The lexical layer :func:`abnfc.automata.lexical.find_layer` finds in pushdown automata: JSON's
and an S-expression grammar's strings, whitespace and structural bytes; none where a quote also
means something else (comments holding quotes, doubled quotes) or where the grammar has no
string; and, on random nested grammars, a layer only where runs of the automaton bear it out."""
from __future__ import annotations

import random

import pytest
from grammar_gen import nested_grammar, sample
from helpers.paths import ROOT

from abnfc.automata.lexical import find_layer, nibble_rectangles
from abnfc.automata.pushdown import Pushdown
from abnfc.charset import from_bytes, members
from abnfc.errors import AbnfError
from abnfc.frontend.source import from_text, load
from abnfc.pipeline import Compilation


def _pushdown(text: str | None = None, path: str | None = None) -> Pushdown:
    compilation = Compilation(load(path) if path else from_text(text or ""))
    automaton = compilation.pushdown
    assert isinstance(automaton, Pushdown)
    return automaton


def test_json_has_strings_whitespace_and_six_structural_bytes():
    layer = find_layer(_pushdown(path=str(ROOT / "grammars" / "json.abnf")))
    assert layer is not None
    assert (layer.strings.quote, layer.strings.escape) == (ord('"'), ord("\\"))
    assert layer.whitespace == from_bytes(b" \t\r\n")
    assert layer.pushes == from_bytes(b"[{") and layer.pops == from_bytes(b"]}")
    assert layer.separators == from_bytes(b",:")
    assert layer.token_starts == from_bytes(b"-0123456789ftn")
    loops = {tuple(members(skip.loops)) for skip in layer.skip_classes}
    assert (0x09, 0x0A, 0x0D, 0x20) in loops
    assert tuple(b"0123456789") in loops
    assert tuple(sorted(set(range(0x20, 0x80)) - {0x22, 0x5C})) in loops  # ASCII inside strings


def test_s_expressions_have_strings_and_parentheses():
    layer = find_layer(_pushdown(path=str(ROOT / "grammars" / "sexpr.abnf")))
    assert layer is not None
    assert (layer.strings.quote, layer.strings.escape) == (ord('"'), ord("\\"))
    assert layer.structural == from_bytes(b"()") and layer.separators == ()


NO_LAYER = {
    "comments hold quotes": 'text = ws list ws\nlist = "(" ws *( item ws ) ")"\nitem = list / %x61 / '
                            'DQUOTE *%x61 DQUOTE\nws = *( SP / comment )\ncomment = ";" *( %x20-7E ) LF\n',
    "doubled quotes": 'text = list\nlist = "(" *( item ) ")"\nitem = list / DQUOTE *( %x61 / 2DQUOTE ) DQUOTE\n',
    "no strings": 'text = list\nlist = "[" *( list / %x61 ) "]"\n',
}


@pytest.mark.parametrize("name", list(NO_LAYER))
def test_no_two_stage_path_where_a_condition_fails(name):
    assert find_layer(_pushdown(NO_LAYER[name])) is None


def test_random_nested_grammars_get_a_layer_only_where_runs_bear_it_out():
    """Where a layer is found, every sampled input of the language enters the string states
    only on the quote byte and leaves them only on it; some grammars get none."""
    nones = layers = 0
    for seed in range(40):
        text = nested_grammar(random.Random(seed).randrange)
        compilation = Compilation(from_text(text))
        try:
            automaton = compilation.pushdown
        except AbnfError:  # limits of random grammars are not under test
            continue
        if not isinstance(automaton, Pushdown):
            continue
        layer = find_layer(automaton)
        if layer is None:
            nones += 1
            continue
        layers += 1
        rng = random.Random(seed)
        for _ in range(30):
            data = sample(compilation.grammar, rng)
            if data is None:
                continue
            states, _depths, _moves = automaton.trace(data)
            inside = [s in layer.strings.states for s in states]
            for offset, byte in enumerate(data):
                if inside[offset] != inside[offset + 1]:
                    assert byte == layer.strings.quote, (text, data)
    assert nones > 0


def test_nibble_rectangles_cover_exactly_their_bytes():
    rng = random.Random(2)
    for _ in range(50):
        byte_set = {rng.randrange(256) for _ in range(rng.randrange(1, 40))}
        covered = {(high << 4) | low for lows, highs in nibble_rectangles(byte_set) for low in lows for high in highs}
        assert covered == byte_set
