"""The 32 RFC grammars of the abnf package (tests/data/rfc-abnf), every rule a start rule, with
the imports each declares: abnfc compiles or interprets every rule, refusing only those that
reach a prose value no rule stands for (see tests/rfc_corpus.py).

Tighter limits than the defaults keep the run short: a rule whose DFA would be larger goes to
the interpreter, as ``abnfc check`` does when a grammar exceeds the limits.  Without its imports
the same corpus still has undefined rules, so the test can fail.
"""
from __future__ import annotations

from collections import Counter

import pytest
import rfc_corpus

from abnfc.pipeline import Limits, resolve_grammar

LIMITS = Limits(max_nfa_states=20_000, max_dfa_states=2_000, max_work=2_000_000)


@pytest.mark.slow
def test_every_rule_compiles_interprets_or_is_refused_for_prose():
    outcomes, _ = rfc_corpus.run(limits=LIMITS, workers=2)
    failures = [f"{o.file} {o.rule}: {o.detail}" for o in outcomes if o.kind == "error"]
    assert not failures, "\n".join(failures[:20])
    counts = Counter(o.kind for o in outcomes)
    assert len(outcomes) == 1009
    assert counts["compiles"] > 700 and counts["interpreter"] > 200, counts


def test_without_imports_rules_are_undefined():
    outcomes = rfc_corpus.classify_file("rfc3987", None)
    undefined = [o for o in outcomes if o.kind == "error" and "undefined rule" in o.detail]
    assert len(undefined) >= 15, outcomes
    grammar = rfc_corpus.load("rfc3987", rfc_corpus.grammar_files()["rfc3987"])
    encodings = {rule.name: resolve_grammar(grammar, rule.name).encoding  # the slow test compiles
                 for rule in grammar.ast.rules}
    assert encodings["IRI-reference"] == encodings["ucschar"] == "utf-8"
    assert encodings["ipath-empty"] == "octets"  # 0<ipchar> is the empty string: it reaches no rule


def test_prose_without_a_definition_is_refused():
    """RFC 6265's path-value is prose; without the abnf package's local definitions it stays so."""
    imports = [f for f in rfc_corpus.grammar_files()["rfc6265"] if f != "rfc6265-local.abnf"]
    outcomes = {o.rule: o for o in rfc_corpus.classify_file("rfc6265", imports, LIMITS)}
    assert outcomes["path-value"].kind == "prose", outcomes["path-value"]
    assert "<any CHAR except CTLs or \";\">" in outcomes["path-value"].detail
    assert outcomes["set-cookie-header"].kind == "prose"
    assert outcomes["cookie-pair"].kind in ("compiles", "interpreter")
