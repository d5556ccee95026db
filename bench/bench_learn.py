"""Benchmark: abnfc learn against AALpy's L* on the same UTF-8 decoders, one run.

Each black box is a Python function over bytes (in process, so that the time is the learners'
own): CPython's strict decoder, its ``surrogatepass`` error handler, a decoder that also refuses
the noncharacters U+FDD0-FDEF and U+FFFE/FFFF of every plane (as some validators do), the
RFC 2279 decoder (overlong forms and 5- and 6-byte sequences allowed), the same without the
surrogates (what glibc's ``mbrtowc`` accepts) and Perl's lax decoder (RFC 2279 and Perl's own
7- and 13-byte forms).  abnfc learns from
grammars/utf8.abnf (its prior) with the defaults of ``abnfc learn`` (--extra-states 0, the
dialects of grammars/variants/ and the grammar's one-edit mutants as neighbours); AALpy
(PyPI ``aalpy``) runs L* over the 256 bytes with its random W-method oracle, :data:`AALPY_RUNS`
times with different seeds (its counts vary from run to run: the table gives the fewest and the
most).  For each: the distinct inputs asked, the time, the states learned, and whether the model
is exactly the black box's language (checked against the black box's own grammar, not against
the other learner).

    pip install aalpy
    python bench/bench_learn.py
"""
from __future__ import annotations

import random
import time
from pathlib import Path

from abnfc.automata.dfa import Dfa
from abnfc.automata.minimize import canonical, minimize
from abnfc.crosscheck.neighbours import discover
from abnfc.crosscheck.provenance import DfaProvenance
from abnfc.crosscheck.suite import build_suite
from abnfc.frontend.source import load
from abnfc.learn import learn
from abnfc.learn.mutants import mutants
from abnfc.pipeline import Compilation

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ROOT / "grammars" / "variants"
AALPY_RUNS = 3


def minimal_of(path: Path) -> Dfa:
    return Compilation(load(str(path))).minimal


def decodes(handler: str):
    def accepts(data: bytes) -> bool:
        try:
            data.decode("utf-8", handler)
        except UnicodeDecodeError:
            return False
        return True
    return accepts


def no_noncharacters(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any(0xFDD0 <= ord(c) <= 0xFDEF or ord(c) & 0xFFFE == 0xFFFE for c in text)


def black_boxes():
    rfc2279 = minimal_of(VARIANTS / "rfc2279-utf8.abnf")
    return [("CPython strict", decodes("strict"), minimal_of(ROOT / "grammars" / "utf8.abnf")),
            ("CPython surrogatepass", decodes("surrogatepass"), minimal_of(VARIANTS / "generalized-utf8.abnf")),
            ("no noncharacters", no_noncharacters, minimal_of(VARIANTS / "utf8-no-noncharacters.abnf")),
            ("RFC 2279", rfc2279.matches, rfc2279),
            *[(name, dfa.matches, dfa) for name, dfa in (
                ("RFC 2279 without surrogates (glibc mbrtowc)",
                 minimal_of(VARIANTS / "rfc2279-utf8-no-surrogates.abnf")),
                ("Perl lax", minimal_of(VARIANTS / "perl-extended-utf8.abnf")))]]


def with_abnfc(accepts, prior: Dfa, tests: list[bytes], neighbours: list[Dfa]) -> tuple[Dfa, int, float]:
    began = time.perf_counter()
    learned = learn(prior, tests, lambda words: [accepts(w) for w in words], neighbours=neighbours)
    return learned.dfa, learned.queries, time.perf_counter() - began


def with_aalpy(accepts, seed: int) -> tuple[Dfa, int, float] | None:
    try:
        from aalpy.base import SUL
        from aalpy.learning_algs import run_Lstar
        from aalpy.oracles import RandomWMethodEqOracle
    except ImportError:
        return None

    class Bytes(SUL):
        def __init__(self):
            super().__init__()
            self.buffer = bytearray()
            self.asked: set[bytes] = set()

        def pre(self):
            self.buffer = bytearray()

        def post(self):
            pass

        def step(self, letter):
            if letter is not None:
                self.buffer.append(letter)
            word = bytes(self.buffer)
            self.asked.add(word)
            return accepts(word)

    sul = Bytes()
    alphabet = list(range(256))
    random.seed(seed)  # AALpy's oracle draws from the module's generator
    began = time.perf_counter()
    model = run_Lstar(alphabet, sul, RandomWMethodEqOracle(alphabet, sul, walks_per_state=2000, walk_len=10),
                      automaton_type="dfa", cache_and_non_det_check=True, print_level=0)
    seconds = time.perf_counter() - began
    return _as_dfa(model), len(sul.asked), seconds


def _as_dfa(model) -> Dfa:
    """AALpy's DFA (a transition per byte) as abnfc's, minimized."""
    states = list(model.states)
    number = {state: index + 1 for index, state in enumerate(states)}
    rows = [tuple([0] * 256)] + [tuple(number[state.transitions[b]] for b in range(256)) for state in states]
    accepting = frozenset(number[s] for s in states if s.is_accepting)
    classes = tuple(((b, b),) for b in range(256))
    return canonical(minimize(Dfa(classes, tuple(rows), number[model.initial_state], accepting, 0)))


def exact(model: Dfa, truth: Dfa | None, accepts, probes: list[bytes]) -> str:
    if truth is not None:
        return "yes" if model == truth else "no"
    wrong = sum(model.matches(w) != accepts(w) for w in probes)
    return "no" if wrong else f"on {len(probes):,} probes"


def main() -> None:
    compilation = Compilation(load(str(ROOT / "grammars" / "utf8.abnf")))
    prior = compilation.minimal
    tests = [v.data for v in build_suite(prior, DfaProvenance(compilation.dfa, "UTF8-octets"), prior.matches)]
    neighbours = [minimal_of(Path(path)) for path in discover(str(ROOT / "grammars" / "utf8.abnf"))]
    neighbours += mutants(compilation)
    probes = [b"\xef\xbf\xbe", b"\xef\xb7\x90", b"\xf0\x9f\xbf\xbf", b"\xef\xbf\xbd", "aé€😀".encode()]
    probes += [bytes([0xF0 + (n >> 18), 0x80 | (n >> 12 & 63), 0x80 | (n >> 6 & 63), 0x80 | (n & 63)])
               for n in range(0x10000, 0x110000, 0x101)]
    print("| black box | learner | distinct inputs asked | time | states | exact |")
    print("|---|---|---|---|---|---|")
    for name, accepts, truth in black_boxes():
        model, asked, seconds = with_abnfc(accepts, prior, tests, neighbours)
        print(f"| {name} | abnfc learn | {asked:,} | {seconds:.2f} s | {model.num_states} | "
              f"{exact(model, truth, accepts, probes)} |")
        runs = [with_aalpy(accepts, seed) for seed in range(AALPY_RUNS)]
        if runs[0] is None:
            print(f"| {name} | AALpy | not installed | | | |")
            continue
        found = [run for run in runs if run is not None]
        asked = sorted(run[1] for run in found)
        seconds = sorted(run[2] for run in found)
        states = sorted({run[0].num_states for run in found})
        verdicts = [exact(run[0], truth, accepts, probes) for run in found]
        print(f"| {name} | AALpy L*, {len(found)} seeds | {asked[0]:,}-{asked[-1]:,} | "
              f"{seconds[0]:.2f}-{seconds[-1]:.2f} s | "
              f"{'-'.join(map(str, (states[0], states[-1]))) if len(states) > 1 else states[0]} | "
              f"{verdicts.count('yes')} of {len(verdicts)} |")

if __name__ == "__main__":
    main()
