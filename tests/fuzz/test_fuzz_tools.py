"""Fuzzing explain and diff with grammars that parse (issue 23): the random grammars of the
property tests (regular, linear and recursive) and shapes made to hit the cliffs found before
(nested and adjacent repetitions, inside recursion or not), each explained on a few kilobytes
and diffed against a sibling grammar.  The same worker and checks as test_fuzz_grammars: exit
status 0, 1 or 2, no traceback, a located or named error, and the time and memory the limits aim
at.  ABNFC_FUZZ_TOOL_CASES (default 120) and ABNFC_FUZZ_SEED set the run."""
from __future__ import annotations

import os
import random

import pytest
from grammar_gen import random_linear_grammar, random_recursive_grammar, random_regular_grammar
from test_fuzz_grammars import SEED, _report, problems_of, run_workers

CASES = int(os.environ.get("ABNFC_FUZZ_TOOL_CASES", "120"))
REPEATS = ["*", "1*", "2*", "*3", "0*1", "", "3"]
ATOMS = ['"a"', "%x61-62", '( "a" / "ab" )', '[ "a" ]', '*"a"', '""']


def cliff_grammar(rng: random.Random) -> str:
    """``r = R( R A ) R A``, sometimes with a recursive alternative: the shapes that made the tree
    search quadratic."""
    def part() -> str:
        return f"{rng.choice(REPEATS)}( {rng.choice(REPEATS)}{rng.choice(ATOMS)} )"
    body = " ".join(part() for _ in range(rng.randrange(1, 4)))
    if rng.random() < 0.4:
        body += ' / "(" r ")"'
    return f"r = {body}\n"


def tool_case(rng: random.Random) -> tuple[str, str, str]:
    """A name, a grammar and the grammar to diff it against."""
    roll = rng.random()
    maker = (cliff_grammar if roll < 0.4 else random_regular_grammar if roll < 0.7
             else random_linear_grammar if roll < 0.85 else random_recursive_grammar)
    grammar = maker(rng)
    other = maker(rng) if rng.random() < 0.5 else grammar.replace('"a"', '"b"', 1)
    return maker.__name__, grammar, other


@pytest.mark.slow
def test_fuzzed_explain_and_diff(tmp_path):
    rng = random.Random(SEED)
    made = [tool_case(rng) for _ in range(CASES)]
    cases = [(name, grammar.encode()) for name, grammar, _ in made]
    extra = [{"commands": ["explain", "diff"], "other": other.encode().hex()} for _, _, other in made]
    reports = run_workers(cases, tmp_path, extra=extra)
    assert len(reports) == 2 * CASES
    statuses = {(r["command"], r["status"]) for r in reports}
    assert {("explain", 0), ("explain", 1), ("diff", 0)} <= statuses  # the cases reach the tools
    failures = [(report, found) for report in reports if (found := problems_of(report))]
    slowest = max(reports, key=lambda r: r["seconds"])
    print(f"\n{CASES} grammars; slowest: abnfc {slowest['command']} on case {slowest['case']} in "
          f"{slowest['seconds']} s; peak RSS {max(r['peak_kb'] for r in reports) >> 10} MiB")
    assert not failures, _report(cases, reports, failures)
