"""diff is bounded by the limits (issue 23, F4): the product automaton counts against
--max-dfa-states and its construction and the counting of inputs against --max-work, so two
grammars whose product is huge are refused at once with a message naming the limit; counts too
long to print come out in exponent form."""
from __future__ import annotations

import sys
from pathlib import Path

from helpers.cputime import run_measured

from abnfc.crosscheck.report import count_text as _count

ROOT = Path(__file__).resolve().parents[1]


def diff(tmp_path: Path, a: str, b: str, *options: str) -> tuple[int, str, float]:
    """``abnfc diff a b OPTIONS``: its exit status, its output and the CPU seconds it used."""
    (tmp_path / "a.abnf").write_text(a)
    (tmp_path / "b.abnf").write_text(b)
    result, cpu = run_measured([sys.executable, "-m", "abnfc", "diff", "a.abnf", "b.abnf", *options], cwd=tmp_path,
                               capture_output=True, text=True, timeout=300)
    return result.returncode, result.stdout + result.stderr, cpu


def test_a_huge_product_is_refused_naming_the_limit(tmp_path):
    """Each DFA has 8,193 states (within the limits); their product would have 3^13 pairs."""
    status, out, cpu = diff(tmp_path, 'r = *b "a" 12b\nb = %x00-FF\n', 'r = *b "b" 12b\nb = %x00-FF\n')
    assert status == 2, out
    assert "more than 20,000 pairs of states (--max-dfa-states)" in out
    # CPU seconds: 1.3 on a quiet machine; it was 24.5 s and 1.23 GB at 12 bytes, over 60 s and 3.3 GB at 13
    assert cpu < 10


def test_counting_long_inputs_is_bounded_by_the_work_limit(tmp_path):
    utf8 = (ROOT / "grammars" / "utf8.abnf").read_text()
    wtf8 = (ROOT / "grammars" / "variants" / "wtf8.abnf").read_text()
    status, out, cpu = diff(tmp_path, utf8, wtf8, "--count-to", "100000")
    assert status == 2 and "more than 20,000,000 steps (--max-work" in out, out
    assert cpu < 10  # CPU seconds: under 1.2 on a quiet machine
    status, out, _ = diff(tmp_path, utf8, wtf8, "--count-to", "2000", "--max-work", "200000000")
    assert status == 1, out
    last = out.splitlines()[-1].split()
    assert last[0] == "2000" and "e" in last[2]  # about 10^4800 inputs: in exponent form


def test_large_counts_are_printed_in_exponent_form():
    assert _count(999_999_999_999_999_999) == "999,999,999,999,999,999"
    assert _count(10**18) == "1.00e18"
    assert _count(123_456_789 * 10**30) == "1.23e38"
    assert _count(2**20000) == "3.98e6020"  # int() cannot print it: more than 4,300 digits
    assert _count(10**5000 - 1) == "9.99e4999"
