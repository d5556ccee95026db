"""The engine-independent case suite (tests/cases/*.toml), run against every engine.

Each case names a grammar, inputs that must match and inputs that must not, or the error the
grammar must give.  Every input gets a verdict from the interpreter, the DFA before
minimization, the minimal DFA and every backend's generated validator (Python, C, JavaScript,
each loaded through its runner, all grammars of the suite at once); all must agree with the
case and with each other on the first-error offset.  The C and JavaScript validators, which take
a compiler run and a Node.js process, are checked in the slow tier.

A case may say what its terminal values mean (``encoding = "octets"`` or ``"utf-8"``) and name
grammar files it imports (``imports = ["grammars/uri.abnf"]``); ``error_at`` may name the file
too (``grammars/uri.abnf:3:5``) for an error inside an imported grammar.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass

import pytest
from conftest import LANGUAGES, PLAIN, ROOT, Setup, compile_text, grammar_from_text, validators

from abnfc import backends, interpret
from abnfc.automata.pushdown import Pushdown
from abnfc.errors import AbnfError
from abnfc.pipeline import Compilation, resolve_grammar

CASES_DIR = ROOT / "tests" / "cases"


@dataclass(frozen=True)
class Case:
    id: str
    grammar: str
    start: str | None
    regular: bool | None
    accept: tuple[bytes, ...]
    reject: tuple[bytes, ...]
    error: str | None
    error_at: str | None
    setup: Setup = PLAIN  # encoding and imports, when the case names them


def _load_cases() -> list[Case]:
    cases = []
    for path in sorted(CASES_DIR.glob("*.toml")):
        for raw in tomllib.loads(path.read_text(encoding="utf-8"))["case"]:
            text = raw["grammar"] if "grammar" in raw else (ROOT / raw["grammar_file"]).read_text()
            cases.append(Case(
                f"{path.stem}::{raw['name']}", text, raw.get("start"), raw.get("regular"),
                tuple(_inputs(raw, "match")), tuple(_inputs(raw, "reject")),
                raw.get("error"), raw.get("error_at"),
                (raw.get("encoding"), tuple(raw.get("imports", ())))))
    return cases


def _inputs(raw: dict, key: str):
    yield from (text.encode("utf-8") for text in raw.get(key, []))
    yield from (bytes.fromhex(text) for text in raw.get(f"{key}_hex", []))


CASES = _load_cases()
ERROR_CASES = [c for c in CASES if c.error]
MATCH_CASES = [c for c in CASES if not c.error]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.id)
def test_error_case(case: Case):
    with pytest.raises(AbnfError) as caught:
        compile_text(case.grammar, case.start, setup=case.setup)
    assert case.error is not None
    located = [d for d in caught.value.diagnostics if case.error in d.message]
    assert located, f"expected {case.error!r}, got:\n{caught.value}"
    if case.error_at:
        span = located[0].span
        assert span is not None, "the error is located"
        where = span.location() if case.error_at.count(":") == 2 else f"{span.line}:{span.column}"
        assert where.endswith(case.error_at), str(caught.value)  # a file's path may be absolute


def _resolved(case: Case):
    return resolve_grammar(grammar_from_text(case.grammar, setup=case.setup), case.start)


def _regular(case: Case) -> bool:
    return _resolved(case).is_regular


def _pushdown(case: Case) -> Pushdown | None:
    """The pushdown validator of a self-embedding case's grammar, if it has one."""
    if _regular(case):
        return None
    found = Compilation(grammar_from_text(case.grammar, setup=case.setup), case.start).pushdown
    return found if isinstance(found, Pushdown) else None


def _generated(case: Case, language: str) -> bool:
    """Whether ``language`` generates a validator for the case's grammar (a DFA or a pushdown one)."""
    return _regular(case) or (backends.get(language).pushdown and _pushdown(case) is not None)


def _generated_offsets(languages) -> dict[tuple[str, str, bytes], int | None]:
    """(language, case id, input) -> first error, from each language's generated validator."""
    found = {}
    for language in languages:
        regular = [case for case in MATCH_CASES if _generated(case, language)]
        # Cases that share a grammar (the grammar files' cases) share one validator per language.
        grammars = list(dict.fromkeys((case.grammar, case.start, case.setup) for case in regular))
        loaded = dict(zip(grammars, validators([g[0] for g in grammars], language, starts=[g[1] for g in grammars],
                                               setups=[g[2] for g in grammars]), strict=True))
        for case in regular:
            validator = loaded[case.grammar, case.start, case.setup]
            inputs = list(case.accept + case.reject)
            for data, offset in zip(inputs, backends.first_errors(validator, inputs), strict=True):
                found[language, case.id, data] = offset
    return found


@pytest.fixture(scope="module")
def python_offsets() -> dict[tuple[str, str, bytes], int | None]:
    """The generated Python's answers; the compiled languages are checked in the slow tier."""
    return _generated_offsets(["python"])


@pytest.mark.parametrize("case", MATCH_CASES, ids=lambda c: c.id)
def test_case_on_every_engine(case: Case, python_offsets):
    resolved = _resolved(case)
    if case.regular is not None:
        assert resolved.is_regular == case.regular
    compiled = None
    pushdown = _pushdown(case)
    if resolved.is_regular:
        compiled = compile_text(case.grammar, case.start, setup=case.setup)
    else:
        with pytest.raises(AbnfError, match="cannot be compiled to a DFA"):
            compile_text(case.grammar, case.start, setup=case.setup)
    for data, should_match in [(d, True) for d in case.accept] + [(d, False) for d in case.reject]:
        offsets = {"interpreter": interpret.recognize(resolved, data).offset}
        if compiled:
            offsets["dfa"] = compiled.dfa.first_error(data)
            offsets["minimal dfa"] = compiled.minimal.first_error(data)
        if pushdown is not None:
            offsets["pushdown"] = pushdown.first_error(data)
        if compiled or pushdown is not None:
            offsets["python"] = python_offsets["python", case.id, data]
        verdicts = {name: offset is None for name, offset in offsets.items()}
        assert set(verdicts.values()) == {should_match}, (data, offsets)
        assert len(set(offsets.values())) == 1, (data, offsets)


@pytest.mark.slow
@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != "python"])
def test_every_case_on_a_compiled_backend(language):
    """The C and JavaScript validators of every case they are generated for (a DFA's or a pushdown
    validator's; all built at once) give the interpreter's first-error offset on every input,
    matches and failures both."""
    found = _generated_offsets([language])
    answers = []
    for case in MATCH_CASES:
        if _generated(case, language):
            resolved = _resolved(case)
            for data in case.accept + case.reject:
                answers.append(found[language, case.id, data])
                assert answers[-1] == interpret.recognize(resolved, data).offset, (case.id, data)
    assert None in answers and any(v is not None for v in answers)


def test_the_suite_reaches_the_python_backend(python_offsets):
    """The generated Python answered for every input of every case it is generated for, matches
    and failures both, pushdown validators included."""
    assert {case_id for _language, case_id, _data in python_offsets} >= {
        case.id for case in MATCH_CASES if _pushdown(case) is not None} != set()
    answers = list(python_offsets.values())
    assert None in answers and any(v is not None for v in answers)
    assert len(python_offsets) == len({key[1:] for key in python_offsets})
