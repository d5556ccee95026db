"""The equivalence oracle: does the black box accept exactly the hypothesis' language?

No black box can answer that, so it is approximated by conformance testing, with the inputs most
likely to tell the two apart first:

1. the grammar's own test vectors (:mod:`abnfc.crosscheck.suite`: every transition with its
   boundary bytes, lookalikes, truncations), where implementations that deviate from the
   grammar usually do;
2. the hypothesis' state identification (Chow's W-method as refined by the HSI method,
   :mod:`abnfc.automata.identify`): every state's access word, every word of up to K+1 classes,
   every identifier of the state reached.  If the black box's minimal DFA has at most K more
   states than the hypothesis and reads every byte of a class alike, a difference shows here;
3. every byte of every class after every access word, followed by the identifiers of the state
   the hypothesis reaches: where a byte behaves unlike its class, this shows it.

4. random walks (as AALpy's random-walk oracle takes): words of up to twice as many bytes as
   the hypothesis has states, a byte of a random class at each step, seeded;
5. boundary words: every word of up to :data:`BOUNDARY_DEPTH` bytes made of the lowest and
   highest byte of each class, the last one also one step inside the class, alone and followed
   by the shortest completion of the hypothesis state it reaches.  Implementations refuse things at the edges of ranges
   (U+FFFE is EF BF BE, the last two bytes of their class but one), and these words reach them
   without trying every string of that length.

So the learned DFA is exact for every black box whose minimal DFA has at most (hypothesis states
+ K) states and whose byte classes are refinements of the classes the probes can split; the
random walks find larger differences often, with no guarantee.
"""
from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import product as cartesian

from ..automata.dfa import Dfa
from ..automata.identify import identifiers
from ..automata.product import access_words, class_order, completions

BATCH = 4096  # inputs a batch of queries holds
BOUNDARY_DEPTH = 3


def counterexample(ask, hypothesis: Dfa, prior: Sequence[bytes], extra_states: int, walks: int = 10_000,
                   seed: int = 0) -> bytes | None:
    """The shortest input of the first batch in which the black box (``ask``: a batch of inputs
    -> verdicts) and ``hypothesis`` disagree, or None when they agree on every test."""
    batch: list[bytes] = []
    seen: set[bytes] = set()
    for word in _tests(hypothesis, prior, extra_states, walks, seed):
        if word in seen:
            continue
        seen.add(word)
        batch.append(word)
        if len(batch) >= BATCH:
            found = _disagreement(ask, hypothesis, batch)
            if found is not None:
                return found
            batch = []
    return _disagreement(ask, hypothesis, batch) if batch else None


def _disagreement(ask, hypothesis: Dfa, batch: list[bytes]) -> bytes | None:
    answers = ask(batch)
    wrong = [word for word, answer in zip(batch, answers, strict=True) if hypothesis.matches(word) != answer]
    return min(wrong, key=lambda w: (len(w), w)) if wrong else None


def _tests(hypothesis: Dfa, prior: Sequence[bytes], extra_states: int, walks: int, seed: int) -> Iterator[bytes]:
    yield from prior
    access = access_words(hypothesis)
    ids = identifiers(hypothesis)
    letters = [byte for _cls, byte in class_order(hypothesis)]
    states = sorted(access, key=lambda s: (len(access[s]), access[s]))
    for state in states:
        for length in range(extra_states + 2):
            for middle in cartesian(letters, repeat=length):
                word = access[state] + bytes(middle)
                for suffix in ids[hypothesis.trace(word)[-1]]:
                    yield word + suffix
    for state in states:
        if state == hypothesis.dead:
            continue
        for byte in range(256):
            target = hypothesis.transitions[state][hypothesis.byte_class[byte]]
            for suffix in ids[target]:
                yield access[state] + bytes([byte]) + suffix
    rng = random.Random(seed)
    longest = 2 * (hypothesis.num_states + extra_states) + 2
    for _ in range(walks):
        length = rng.randint(1, longest)
        picks = [rng.choice(hypothesis.classes[rng.randrange(hypothesis.num_classes)]) for _ in range(length)]
        yield bytes(rng.randint(lo, hi) for lo, hi in picks)
    yield from _boundary_words(hypothesis)


def _boundary_words(hypothesis: Dfa) -> Iterator[bytes]:
    """Words of the lowest and highest byte of each class, the last byte also one step inside
    (EF BF BE): the edges where implementations part from a range."""
    ends = sorted({b for ranges in hypothesis.classes for lo, hi in ranges for b in (lo, hi)})
    edges = sorted({b for ranges in hypothesis.classes for lo, hi in ranges
                    for b in (lo, min(lo + 1, hi), max(hi - 1, lo), hi)})
    finish = completions(hypothesis)
    for length in range(1, BOUNDARY_DEPTH + 1):
        for head in cartesian(ends, repeat=length - 1):
            for last in edges:
                word = bytes((*head, last))
                yield word
                rest = finish.get(hypothesis.trace(word)[-1])
                if rest:
                    yield word + rest
