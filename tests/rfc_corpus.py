"""Every rule of 32 RFC grammars as a start rule: does abnfc compile it, interpret it, or refuse it?

The grammars are those the PyPI package abnf 2.9.1 ships (abnf/grammars/*.py), copied into
tests/data/rfc-abnf/ by extract.py there, with the imports each one declares
(tests/data/rfc-abnf/imports.toml).  Each rule a file defines is tried as the start rule:

    compiles      regular, and compiled to a minimal DFA within the default limits
    interpreter   recursive (or too large for the limits): the interpreter runs it
    prose         refused because it reaches a prose value that names no rule
    error         anything else (an undefined rule, a value the encoding cannot hold, ...)

Run it as a script for the table (``python tests/rfc_corpus.py``; ``--no-imports`` leaves the
imports out, ``-j`` uses every processor, ``-v`` lists the rules refused);
tests/test_rfc_corpus.py holds abnfc to "nothing but prose refused".
"""
from __future__ import annotations

import os
import sys
import time
import tomllib
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import abnfc
from abnfc.automata import dfa, minimize, nfa
from abnfc.errors import AbnfError, LimitError
from abnfc.interpret import recognize
from abnfc.pipeline import DEFAULT_LIMITS, Limits, resolve_grammar

CORPUS = Path(__file__).resolve().parent / "data" / "rfc-abnf"
KINDS = ("compiles", "interpreter", "prose", "error")


@dataclass(frozen=True)
class Outcome:
    file: str
    rule: str
    kind: str
    detail: str = ""  # the first error, for "prose" and "error"


def grammar_files() -> dict[str, list[str]]:
    """Grammar name -> the files it imports, in order."""
    return tomllib.loads((CORPUS / "imports.toml").read_text(encoding="utf-8"))


def load(name: str, imports: list[str] | None) -> abnfc.Grammar:
    return abnfc.load_grammar(CORPUS / f"{name}.abnf",
                              imports=[CORPUS / file for file in (imports or [])])


def classify_file(name: str, imports: list[str] | None, limits: Limits = DEFAULT_LIMITS) -> list[Outcome]:
    grammar = load(name, imports)
    rules = list(dict.fromkeys(rule.name for rule in grammar.ast.rules))
    return [classify(grammar, name, rule, limits) for rule in rules]


def classify(grammar: abnfc.Grammar, name: str, rule: str, limits: Limits = DEFAULT_LIMITS) -> Outcome:
    try:
        resolved = resolve_grammar(grammar, rule)
    except AbnfError as error:
        first = error.diagnostics[0].format().splitlines()[0]
        prose = all("prose" in d.message and "cannot be matched" in d.message for d in error.diagnostics)
        return Outcome(name, rule, "prose" if prose else "error", first)
    if resolved.is_regular:
        try:  # the stages of abnfc.compile_grammar, without resolving again
            thompson = nfa.build(resolved, limits.max_nfa_states)
            minimize.minimize(dfa.determinize(thompson, limits.max_dfa_states, limits.max_work))
            return Outcome(name, rule, "compiles")
        except LimitError:
            pass  # abnfc check falls back to the interpreter
    recognize(resolved, b"")  # it runs (the verdict does not matter here)
    return Outcome(name, rule, "interpreter")


def run(with_imports: bool = True, limits: Limits = DEFAULT_LIMITS, workers: int = 1) -> tuple[list[Outcome], float]:
    """Every rule of every grammar, in ``workers`` processes; the outcomes and the seconds taken."""
    began = time.perf_counter()
    jobs = [(name, imports if with_imports else None, limits) for name, imports in grammar_files().items()]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_classify_job, jobs))
    else:
        results = [_classify_job(job) for job in jobs]
    return [outcome for result in results for outcome in result], time.perf_counter() - began


def _classify_job(job: tuple[str, list[str] | None, Limits]) -> list[Outcome]:
    return classify_file(*job)


def main(argv: list[str]) -> int:
    outcomes, seconds = run("--no-imports" not in argv, workers=(os.cpu_count() or 1) if "-j" in argv else 1)
    counts = Counter(outcome.kind for outcome in outcomes)
    print(f"{len(outcomes)} rules in {len({o.file for o in outcomes})} grammars, {seconds:.1f} s")
    print("| outcome | rules |\n|---|---|")
    for kind in KINDS:
        print(f"| {kind} | {counts[kind]} |")
    for outcome in outcomes:
        if outcome.kind in ("error", "prose") and "-v" in argv:
            print(f"{outcome.file} {outcome.rule}: {outcome.kind}: {outcome.detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
