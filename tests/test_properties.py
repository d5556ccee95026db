"""Property-based cross-engine tests on random grammars (see grammar_gen.py).

1. Regular grammars (hypothesis, shrinking), without recursion and with right- and left-linear
   recursion: the interpreter (at once, and byte by byte with a tiny memo cache), the DFA
   before minimization, the minimal DFA, the generated Python module (at once, in pieces, on a
   memoryview) and, on short inputs, the reference matcher give the same verdict and
   first-error offset on random bytes, strings sampled from the grammar and their mutations;
   where matching fails the interpreter expects exactly the bytes the DFA can continue with;
   both engines of ``abnfc check`` report the same outcome, read whole or in trickles.
2. The generated C and JavaScript for a seeded batch of such grammars, a third of them
   recursive (each language loaded in one go through its backend's runner) against the minimal
   DFA, through first_error, is_valid and the incremental validator fed in pieces.
3. Recursive grammars (hypothesis): the interpreter against tests/reference_matcher.py on short
   inputs over a small alphabet, plus consistency of its first-error offsets, and on longer
   sampled strings (which must match, with every prefix viable).
4. Determinism: generated files are identical in processes with different PYTHONHASHSEED values.

ABNFC_PROPERTY_EXAMPLES (default 300) sets the number of hypothesis examples and scales the C and
JavaScript batch (two grammars for every three examples).  All of these are in the slow tier.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from abnfc import backends, interpret
from abnfc import engines as check_engines
from abnfc.automata import minimize, product
from abnfc.errors import LimitError
from abnfc.frontend.parse import parse
from abnfc.frontend.resolve import ResolvedGrammar, resolve
from abnfc.frontend.source import Grammar
from abnfc.pipeline import Compiled

sys.path.insert(0, os.path.dirname(__file__))
from conftest import PLAIN, ROOT, compilation_of_text, compile_text, grammar_from_text, python_module, validators
from grammar_gen import (
    SMALL,
    linear_grammar,
    mutations,
    random_bytes,
    random_regular_grammar,
    recursive_grammar,
    regular_grammar,
    sample,
)
from helpers.batches import LIMITS, Batched, grammar_batch, in_pieces
from reference_matcher import matches as reference_matches

EXAMPLES = int(os.environ.get("ABNFC_PROPERTY_EXAMPLES", "300"))
# Small limits: a random grammar whose automaton blows up is skipped, not waited for.
REFERENCE_MAX_LEN = 8  # inputs the reference matcher checks in test 1
TINY_CACHE_MAX_LEN = 24  # inputs fed byte by byte to an interpreter with a tiny memo cache
pytestmark = pytest.mark.slow
# CI draws the same examples every run, so its time does not depend on luck (one random run drew
# a recursive grammar that took the interpreter 6 minutes); ABNFC_PROPERTY_RANDOM=1 explores anew.
RANDOM = os.environ.get("ABNFC_PROPERTY_RANDOM") == "1"
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, print_blob=True, derandomize=not RANDOM,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


class DrawRandom:
    """``randrange`` from hypothesis draws, so sampled inputs shrink with the grammar."""

    def __init__(self, draw):
        self.draw = draw

    def randrange(self, n: int) -> int:
        return self.draw(st.integers(0, n - 1)) if n > 1 else 0


def _chooser(draw):
    return lambda n: draw(st.integers(0, n - 1)) if n > 1 else 0


def _show(data: bytes) -> str:
    return f"{data!r} (hex {data.hex() or '-'})"


def _shrink_input(data: bytes, failing) -> bytes:
    """A shorter input on which ``failing`` still holds: greedy chunk and byte deletion."""
    size = max(1, len(data) // 2)
    while size >= 1:
        at = 0
        while at < len(data):
            shorter = data[:at] + data[at + size:]
            if failing(shorter):
                data = shorter
            else:
                at += size
        size //= 2
    return data


# --------------------------------------------------------------------------------------------
# 1. Regular grammars: every Python-side engine agrees


@dataclass
class RegularCase:
    text: str
    inputs: list[bytes]
    samples: list[bytes]
    grammar: Grammar = field(repr=False, compare=False)
    compiled: Compiled = field(repr=False, compare=False)

    @property
    def resolved(self) -> ResolvedGrammar:
        return self.compiled.resolved


@st.composite
def regular_cases(draw, writer=regular_grammar) -> RegularCase:
    text = writer(_chooser(draw))
    try:
        compiled = compile_text(text, limits=LIMITS)
    except LimitError:
        assume(False)
    rng = DrawRandom(draw)
    inputs = [b""] + [random_bytes(rng, 10) for _ in range(6)]
    # None: the start rule matches nothing (a recursion without a way out)
    samples = [data for data in (sample(compiled.resolved, rng) for _ in range(8)) if data is not None]
    for data in samples:
        inputs += [data, *mutations(data, rng, 2)]
    long_rng = random.Random(draw(st.integers(0, 2**32 - 1)))  # long inputs: not worth shrinking
    for _ in range(2 if samples else 0):
        long = sample(compiled.resolved, long_rng, max_repeat=40)
        assert long is not None  # the start rule matched the shorter samples
        data = long
        samples.append(data)
        inputs += [data, *mutations(data, long_rng, 1), data * 3]
    inputs.append(random_bytes(long_rng, 150))
    return RegularCase(text, list(dict.fromkeys(inputs)), samples, grammar_from_text(text), compiled)


class _Engines:
    """first_error of every Python-side engine for one compiled grammar."""

    def __init__(self, text: str, compiled: Compiled):
        self.compiled = compiled
        self.module = python_module(text)

    def offsets(self, data: bytes) -> dict[str, int | None]:
        resolved, compiled, module = self.compiled.resolved, self.compiled, self.module
        found = {
            "interpreter": interpret.recognize(resolved, data).offset,
            "dfa": compiled.dfa.first_error(data),
            "minimal dfa": compiled.minimal.first_error(data),
            "python": module.first_error(data),
            "python, in pieces": in_pieces(module.Validator(), data),
            "python, memoryview": module.first_error(memoryview(bytearray(data))),
        }
        if len(data) <= TINY_CACHE_MAX_LEN:  # slow: the cache is rebuilt at almost every byte
            found["interpreter, byte by byte, tiny cache"] = _byte_by_byte(resolved, data)
        if len(data) <= REFERENCE_MAX_LEN:
            matched = reference_matches(resolved, data)
            if matched != (found["interpreter"] is None):
                found["reference matcher"] = "match" if matched else "no match"
        return found


def _byte_by_byte(resolved: ResolvedGrammar, data: bytes) -> int | None:
    recognizer = interpret.Recognizer(resolved, max_cache_states=2)
    for byte in data:
        recognizer.feed(bytes([byte]))
    return recognizer.verdict().offset


def _disagreement(engines: _Engines, data: bytes) -> dict | None:
    found = engines.offsets(data)
    return found if len(set(found.values())) > 1 else None


@SETTINGS
@given(regular_cases())
def test_regular_grammar_engines_agree(case: RegularCase):
    _check_engines_agree(case)


@settings(SETTINGS, max_examples=max(10, EXAMPLES // 2))
@given(regular_cases(linear_grammar))
def test_linear_recursive_grammar_engines_agree(case: RegularCase):
    """Grammars with right- and left-linear recursion compile to DFAs that agree with the
    interpreter, which runs them as loops and on its stack."""
    _check_engines_agree(case)


def _check_engines_agree(case: RegularCase) -> None:
    compiled = case.compiled
    assert case.resolved.is_regular
    assert product.distinguishing_input(compiled.dfa, compiled.minimal) is None
    assert compiled.minimal.num_states <= compiled.dfa.num_states
    assert minimize.minimize(compiled.minimal) == compiled.minimal, "minimizing is not idempotent"
    engines = _Engines(case.text, compiled)
    for data in case.inputs:
        found = _disagreement(engines, data)
        if found:
            small = _shrink_input(data, lambda d: _disagreement(engines, d) is not None)
            raise AssertionError(f"engines disagree\ngrammar:\n{case.text}input: {_show(small)}\n"
                                 + "".join(f"  {name}: {offset}\n"
                                           for name, offset in engines.offsets(small).items()))
        _check_expectations(case, engines, data)
    for data in case.samples:
        assert compiled.minimal.first_error(data) is None, \
            f"a string sampled from the grammar does not match\ngrammar:\n{case.text}input: {_show(data)}"
    _check_command_engines(case, engines)


class _Trickle:
    """A binary stream whose reads return at most ``most`` bytes (legal for raw streams)."""

    def __init__(self, data: bytes, most: int):
        self.data, self.at, self.most = data, 0, most

    def read(self, size: int = -1) -> bytes:
        size = self.most if size < 0 else min(size, self.most)
        chunk = self.data[self.at:self.at + size]
        self.at += len(chunk)
        return chunk


def _check_command_engines(case: RegularCase, engines: _Engines) -> None:
    """``abnfc check``: both engines, whole or trickled, report the same outcome."""
    dfa = check_engines.DfaEngine(compilation_of_text(case.text, None, LIMITS, PLAIN))
    interpreter = check_engines.InterpreterEngine(case.resolved)
    for n, data in enumerate(case.inputs[::4]):
        outcomes = {}
        for engine in (dfa, interpreter):
            outcomes[engine.name] = check_engines.check_bytes(engine, data)
            trickle = _Trickle(data, 1 + n % 5)
            outcomes[engine.name + ", trickled"] = check_engines.check_stream(engine, trickle, "<data>")
        reports = {name: outcome.report() for name, outcome in outcomes.items()}
        want = engines.compiled.minimal.first_error(data)
        summary = {name: (o.offset, o.expected) for name, o in outcomes.items()}
        assert set(summary.values()) == {(want, summary["dfa"][1])}, \
            f"abnfc check engines disagree\ngrammar:\n{case.text}input: {_show(data)}\n{summary}"
        assert reports["dfa"] == reports["interpreter"], (case.text, data, reports)
        assert reports["dfa, trickled"] == reports["interpreter, trickled"], (case.text, data, reports)


def _check_expectations(case: RegularCase, engines: _Engines, data: bytes) -> None:
    """Where matching fails, the interpreter expects exactly the bytes the DFA could go on with."""
    verdict = interpret.recognize(case.resolved, data)
    if verdict.matched:
        return
    validator = engines.module.Validator()
    validator.feed(data)
    expected = {b for e in verdict.expected for lo, hi in e.ranges for b in range(lo, hi + 1)}
    dfa_expected = {b for lo, hi in validator.expected() for b in range(lo, hi + 1)}
    assert verdict.end_of_input == (verdict.offset == len(data))
    assert expected == dfa_expected, (
        f"grammar:\n{case.text}input: {_show(data)}\nfirst error {verdict.offset}\n"
        f"interpreter expects {_ranges(expected)} ({verdict.describe()})\n"
        f"the DFA expects {_ranges(dfa_expected)}")


def _ranges(values: set[int]) -> str:
    out: list[list[int]] = []
    ordered = sorted(values)
    for value in ordered:
        if out and value == out[-1][1] + 1:
            out[-1][1] = value
        else:
            out.append([value, value])
    return " ".join(f"{lo:02X}" if lo == hi else f"{lo:02X}-{hi:02X}" for lo, hi in out) or "nothing"


# --------------------------------------------------------------------------------------------
# 2. The generated C and JavaScript, for a seeded batch of grammars




@pytest.mark.parametrize("language", [name for name in backends.names() if backends.get(name).needs_automaton])
def test_generated_code_agrees_with_the_minimal_dfa(language):
    batch = grammar_batch()
    loaded = validators([grammar.text for grammar in batch], language, limits=LIMITS)
    reports = []
    for index, (grammar, validator) in enumerate(zip(batch, loaded, strict=True)):
        want = [grammar.compiled.minimal.first_error(data) for data in grammar.inputs]
        got = backends.first_errors(validator, grammar.inputs)
        wrong = [data for data, g, w in zip(grammar.inputs, got, want, strict=True) if g != w]
        for _n, data in enumerate(grammar.inputs[::9]):
            verdict = grammar.compiled.minimal.first_error(data)
            if validator.is_valid(data) != (verdict is None) or in_pieces(validator.Validator(), data) != verdict:
                wrong.append(data)
        if wrong:
            def fails(candidate: bytes, grammar: Batched = grammar, validator: backends.Validator = validator) -> bool:
                expected = grammar.compiled.minimal.first_error(candidate)
                return (validator.first_error(candidate) != expected
                        or in_pieces(validator.Validator(), candidate) != expected)
            small = _shrink_input(wrong[0], fails)
            reports.append(f"grammar g{index}:\n{grammar.text}input: {_show(small)}\n"
                           f"  {language}: {validator.first_error(small)}, in pieces "
                           f"{in_pieces(validator.Validator(), small)}\n"
                           f"  minimal dfa: {grammar.compiled.minimal.first_error(small)}\n")
    assert not reports, f"{len(reports)} grammars disagree; shrunk:\n" + "\n".join(reports[:3])


# --------------------------------------------------------------------------------------------
# 3. Recursive grammars: the interpreter against the reference matcher


def _all_strings(alphabet: bytes, max_len: int) -> list[bytes]:
    out, layer = [b""], [b""]
    for _ in range(max_len):
        layer = [s + bytes([b]) for s in layer for b in alphabet]
        out += layer
    return out


SHORT_INPUTS = _all_strings(SMALL, 2) + _all_strings(b"ab", 3)[7:]  # all of length 3 over "ab"


@dataclass
class RecursiveCase:
    text: str
    inputs: list[bytes]
    samples: list[bytes]
    long_samples: list[bytes]  # too long for the reference matcher
    resolved: ResolvedGrammar = field(repr=False, compare=False)


@st.composite
def recursive_cases(draw) -> RecursiveCase:
    text = recursive_grammar(_chooser(draw))
    resolved = resolve(parse(text, "g.abnf"))
    rng = DrawRandom(draw)
    samples = [s for s in (sample(resolved, rng, max_depth=5, max_repeat=2) for _ in range(6))
               if s is not None and len(s) <= 8]
    inputs = list(SHORT_INPUTS) + [random_bytes(rng, 6, SMALL) for _ in range(8)]
    for data in samples:
        inputs += [data, *mutations(data, rng, 2, SMALL)]
    long_rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    # Up to 100 bytes: highly ambiguous grammars take cubic time in the interpreter.
    long_samples = [s for s in (sample(resolved, long_rng, max_depth=14, max_repeat=4, max_len=80)
                                for _ in range(2)) if s is not None and 8 < len(s) <= 100]
    return RecursiveCase(text, list(dict.fromkeys(inputs)), samples, long_samples, resolved)


@SETTINGS
@given(recursive_cases())
def test_interpreter_agrees_with_the_reference_on_recursive_grammars(case: RecursiveCase):
    grammar = case.resolved

    def report(what: str, data: bytes) -> str:
        return f"{what}\ngrammar:\n{case.text}input: {_show(data)}\n" \
               f"interpreter: {interpret.recognize(grammar, data)}\n" \
               f"reference matcher: {reference_matches(grammar, data)}"

    def wrong(data: bytes) -> bool:
        return interpret.recognize(grammar, data).matched != reference_matches(grammar, data)

    for n, data in enumerate(case.inputs):
        verdict = interpret.recognize(grammar, data)
        if verdict.matched != reference_matches(grammar, data):
            raise AssertionError(report("the interpreter and the reference matcher disagree",
                                        _shrink_input(data, wrong)))
        assert verdict.matched == (verdict.offset is None)
        if n % 4 == 0:
            assert _byte_by_byte(grammar, data) == verdict.offset, report("byte by byte differs", data)
        if verdict.offset is not None and verdict.offset < len(data):
            # The first error is the first byte no parse can consume: everything before it is a
            # viable prefix, and cutting the input right after that byte fails at the same place.
            k = verdict.offset
            assert interpret.recognize(grammar, data[:k + 1]).offset == k, report("cut after the error", data)
            assert interpret.recognize(grammar, data[:k]).offset in (None, k), report("cut at the error", data)
    for data in case.samples:
        assert interpret.recognize(grammar, data).matched, report("a sampled string does not match", data)
        for cut in range(len(data)):
            assert interpret.recognize(grammar, data[:cut]).offset in (None, cut), \
                report("a prefix of a sampled string fails early", data[:cut])
    rng = random.Random(len(case.text))
    for data in case.long_samples:
        # Strings derived from the grammar match, and so can every prefix of them be continued.
        assert interpret.recognize(grammar, data).matched, report("a sampled string does not match", data)
        assert _byte_by_byte(grammar, data) is None, report("a sampled string does not match, byte by byte", data)
        for cut in sorted(rng.randrange(len(data)) for _ in range(4)):
            assert interpret.recognize(grammar, data[:cut]).offset in (None, cut), \
                report("a prefix of a sampled string fails early", data[:cut])
        for mutant in mutations(data, rng, 1, SMALL):
            assert _byte_by_byte(grammar, mutant) == interpret.recognize(grammar, mutant).offset, \
                report("byte by byte differs", mutant)


# --------------------------------------------------------------------------------------------
# 4. Determinism


def _determinism_grammars(count: int) -> list[str]:
    rng = random.Random(1)
    texts = ['r = *( "ab" / %x80-FF ) 2DIGIT [ r1 ]\nr1 = "x" / "y" / HEXDIG\n']
    while len(texts) < count:
        text = random_regular_grammar(rng)
        try:
            compiled = compile_text(text, limits=LIMITS)
        except LimitError:
            continue
        if compiled.minimal.num_states >= 4:
            texts.append(text)
    return texts


def test_generation_does_not_depend_on_the_hash_seed(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    for index, text in enumerate(_determinism_grammars(3)):
        outputs = []
        for seed in ("1", "2"):  # the same command in two folders (the command is in the headers)
            folder = tmp_path / f"seed{seed}"
            folder.mkdir(exist_ok=True)
            (folder / f"g{index}.abnf").write_text(text)
            subprocess.run([sys.executable, "-m", "abnfc", "compile", f"g{index}.abnf", "--out", "out"],
                           cwd=folder, env={**env, "PYTHONHASHSEED": seed}, check=True,
                           capture_output=True)
            outputs.append({p.name: p.read_bytes() for p in (folder / "out").iterdir()
                            if p.name.startswith(f"g{index}.")})
        assert sorted(outputs[0]) == [f"g{index}.c", f"g{index}.h", f"g{index}.html", f"g{index}.mjs", f"g{index}.py"]
        assert outputs[0] == outputs[1], f"output depends on PYTHONHASHSEED for:\n{text}"
