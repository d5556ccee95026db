"""abnfc diff and the variant grammars: each variant's documented differences from RFC 3629 come
out as the shortest witnesses, equal languages are equal, counts by length are right, recursive
grammars are compared up to a bound and said to be; product helpers under it."""
from __future__ import annotations

import itertools

import pytest
from conftest import ROOT
from helpers.cli import run_cli_text

import abnfc
from abnfc.automata.product import bounded, count_by_length

VARIANTS = ROOT / "grammars" / "variants"


pytestmark = pytest.mark.usefixtures("at_root")


def diff(capsys, *args: str) -> tuple[int, str]:
    return run_cli_text(capsys, "diff", *args)


def first_examples(out: str, side: str) -> list[str]:
    """The first example of each difference listed under ``only in <side>``."""
    lines = out.splitlines()
    found, inside = [], False
    for line in lines:
        if line.startswith("only in "):
            inside = line.startswith(f"only in {side}:")
        elif inside and line.startswith("  ") and ": " in line:
            found.append(line.strip().split(":")[0].split(",")[0])
        elif not line.startswith("  "):
            inside = False
    return found


@pytest.mark.parametrize(("variant", "only_in_utf8", "only_in_variant"), [
    ("generalized-utf8", [], ["ED A0 80"]),
    ("wtf8", [], ["ED A0 80", "ED B0 80"]),
    ("cesu8", ["F0 90 80 80", "F1 80 80 80", "F4 80 80 80"], ["ED A0 80 ED B0 80"]),
    ("java-modified-utf8", ["00", "F0 90 80 80", "F1 80 80 80", "F4 80 80 80"], ["C0 80", "ED A0 80"]),
    ("rfc2279-utf8", [], ["ED A0 80", "F4 90 80 80", "F5 80 80 80", "F8 88 80 80 80", "F9 80 80 80 80",
                          "FC 84 80 80 80 80", "FD 80 80 80 80 80"]),
])
def test_variants_differ_from_rfc_3629_by_their_documented_differences(capsys, variant, only_in_utf8,
                                                                       only_in_variant):
    status, out = diff(capsys, "grammars/utf8.abnf", f"grammars/variants/{variant}.abnf")
    assert status == 1
    assert first_examples(out, "A") == only_in_utf8
    assert first_examples(out, "B") == only_in_variant


def test_wtf8_shows_the_rules_on_both_sides(capsys):
    _status, out = diff(capsys, "grammars/utf8.abnf", "grammars/variants/wtf8.abnf", "--count-to", "3")
    assert "  ED A0 80, ED AF 80: A requires %x80-9F after %xED (UTF8-3, alt 3); B: after %xED" in out
    assert "0xA0 read by %xA0-AF (lead-surrogate, alt 1)" in out
    assert out.splitlines()[-1].split() == ["3", "0", "2,048"]


def test_a_lead_and_a_trail_surrogate_separate_wtf8_from_generalized_utf8(capsys):
    status, out = diff(capsys, "grammars/variants/wtf8.abnf", "grammars/variants/generalized-utf8.abnf")
    assert status == 1
    assert first_examples(out, "B") == ["ED A0 80 ED B0 80"] and first_examples(out, "A") == []


def test_equal_languages(capsys, tmp_path):
    other = tmp_path / "utf8-again.abnf"
    other.write_text("text = *( %x00-7F / %xC2-DF tail / %xE0 %xA0-BF tail / %xE1-EC 2tail / %xED %x80-9F tail\n"
                     "       / %xEE-EF 2tail / %xF0 %x90-BF 2tail / %xF1-F3 3tail / %xF4 %x80-8F 2tail )\n"
                     "tail = %x80-BF\n")
    status, out = diff(capsys, "grammars/utf8.abnf", str(other))
    assert status == 0
    assert out.endswith("A and B accept the same inputs\n")


def test_counts_by_length_match_enumeration():
    a = abnfc.compile_grammar("grammars/utf8.abnf").minimal
    b = abnfc.compile_grammar(VARIANTS / "java-modified-utf8.abnf").minimal
    for length in range(3):
        words = [bytes(w) for w in itertools.product(range(256), repeat=length)]
        only_a = sum(a.matches(w) and not b.matches(w) for w in words)
        assert count_by_length(a, 2)[length] == sum(a.matches(w) for w in words)
        from abnfc.automata.product import difference
        assert count_by_length(difference(a, b), 2)[length] == only_a
    short = bounded(a, 2)
    assert all(short.matches(w) == (len(w) <= 2 and a.matches(w)) for w in (b"", b"a", b"ab", b"abc", b"\xc2\x80"))


def test_recursive_grammars_are_compared_up_to_a_bound(capsys, tmp_path):
    recursive = tmp_path / "nest.abnf"
    recursive.write_text('nest = *group\ngroup = "(" nest ")"\n')
    flat = tmp_path / "flat.abnf"
    flat.write_text('nest = *( "(" ")" )\n')
    status, out = diff(capsys, str(recursive), str(flat), "--max-length", "3")
    assert status == 0
    assert "is recursive (nest -> group -> nest)" in out
    assert out.endswith("A and B accept the same inputs on inputs of up to 3 bytes\n")
    status, out = diff(capsys, str(recursive), str(flat), "--max-length", "4")
    assert status == 1 and first_examples(out, "A") == ["28 28 29 29"]
    assert "  28 28 29 29: B: offset 1: after %x28 ('(') (nest, alt 1) 0x28 is outside %x29 (')') (nest, alt 1)" in out


def test_right_linear_grammars_are_compared_exactly(capsys, tmp_path):
    recursive = tmp_path / "list.abnf"
    recursive.write_text('list = item [ "," list ]\nitem = 1*ALPHA\n')
    regular = tmp_path / "flat.abnf"
    regular.write_text('list = 1*ALPHA *( "," 1*ALPHA )\n')
    status, out = diff(capsys, str(recursive), str(regular))
    assert status == 0 and "bounded" not in out
    assert out.endswith("A and B accept the same inputs\n")


def test_a_bad_grammar_is_a_usage_error(capsys, tmp_path):
    status, out = diff(capsys, "grammars/utf8.abnf", str(tmp_path / "missing.abnf"))
    assert status == 2 and "cannot read grammar file" in out
