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
3. every byte of every class after every access word, followed by the empty word and the words
   separating the state the hypothesis reaches from the states the other classes reach from
   there: where the black box reads a byte like another class of the same state (a range bound
   moved, a range widened), this shows it.  (A byte that leads somewhere no class of that state
   leads, such as a lead byte the grammar refuses, is the boundary words' and the long runs' to
   find.)

4. random walks (as AALpy's random-walk oracle takes): words of up to twice as many bytes as
   the hypothesis has states, a byte of a random class at each step, seeded;
5. boundary words: every word of up to :data:`BOUNDARY_DEPTH` bytes that follows the hypothesis'
   live transitions through the ends of their ranges, its last byte an end of a live range, one
   step inside it or one step outside it, alone and followed by the shortest completion of the
   hypothesis state it reaches.  Implementations refuse things at the edges of ranges (U+FFFE is
   EF BF BE, the last two bytes of their ranges but one) or take a range one byte too far, and
   these words reach both without trying every string of that length.  What lies beyond a byte
   the hypothesis refuses is the W-method's and the long runs' (:mod:`.neighbours`) to test.

So the learned DFA is exact for every black box whose minimal DFA has at most (hypothesis states
+ K) states and whose byte classes are refinements of the classes the probes can split; the
random walks and boundary words find larger differences often, with no guarantee.

The tests are asked in batches that start small and double (:data:`FIRST_BATCH` to
:data:`BATCH`): a round whose hypothesis is wrong usually stops in its first batch, and a
small one asks fewer inputs there.
"""
from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import product as cartesian

from ..automata.dfa import Dfa
from ..automata.identify import identifiers, separating_words
from ..automata.product import access_words, class_order, completions

BATCH = 4096  # inputs a batch of queries holds at most
FIRST_BATCH = 256
WALKS = 2_000
BOUNDARY_DEPTH = 3


def counterexample(ask, hypothesis: Dfa, prior: Sequence[bytes], extra_states: int, walks: int = WALKS,
                   seed: int = 0) -> bytes | None:
    """The shortest input of the first batch in which the black box (``ask``: a batch of inputs
    -> verdicts) and ``hypothesis`` disagree, or None when they agree on every test."""
    batch: list[bytes] = []
    seen: set[bytes] = set()
    size = FIRST_BATCH
    for word in _tests(hypothesis, prior, extra_states, walks, seed):
        if word in seen:
            continue
        seen.add(word)
        batch.append(word)
        if len(batch) >= size:
            found = _disagreement(ask, hypothesis, batch)
            if found is not None:
                return found
            batch, size = [], min(2 * size, BATCH)
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
    separating = separating_words(hypothesis)
    for state in states:
        if state == hypothesis.dead:
            continue
        row = hypothesis.transitions[state]
        for byte in range(256):
            target = row[hypothesis.byte_class[byte]]
            for suffix in _local_identifier(separating, target, set(row)):
                yield access[state] + bytes([byte]) + suffix
    rng = random.Random(seed)
    longest = 2 * (hypothesis.num_states + extra_states) + 2
    for _ in range(walks):
        length = rng.randint(1, longest)
        picks = [rng.choice(hypothesis.classes[rng.randrange(hypothesis.num_classes)]) for _ in range(length)]
        yield bytes(rng.randint(lo, hi) for lo, hi in picks)
    yield from _boundary_words(hypothesis)


def _local_identifier(separating: dict[tuple[int, int], bytes], target: int, neighbours: set[int]) -> list[bytes]:
    """The empty word and the words separating ``target`` from each of ``neighbours``."""
    words = {separating[(min(target, other), max(target, other))] for other in neighbours if other != target}
    return sorted({b"", *words}, key=lambda w: (len(w), w))


def _boundary_words(hypothesis: Dfa) -> Iterator[bytes]:
    """Words along the live transitions through range ends, the last byte an end of a live range,
    one step inside or outside it (EF BF BE), each also completed: see the module's docstring."""
    finish = completions(hypothesis)
    heads = [b""]
    for _length in range(BOUNDARY_DEPTH):
        longer = []
        for head in heads:
            ranges = _live_ranges(hypothesis, hypothesis.trace(head)[-1])
            lasts = sorted({b for lo, hi in ranges for b in (lo - 1, lo, lo + 1, hi - 1, hi, hi + 1) if 0 <= b <= 0xFF})
            for last in lasts:
                word = head + bytes([last])
                yield word
                rest = finish.get(hypothesis.trace(word)[-1])
                if rest:
                    yield word + rest
            longer += [head + bytes([end]) for end in sorted({b for lo, hi in ranges for b in (lo, hi)})]
        heads = longer


def _live_ranges(hypothesis: Dfa, state: int) -> list[tuple[int, int]]:
    """The byte ranges of the classes that do not lead ``state`` to the dead state."""
    row = hypothesis.transitions[state]
    return sorted(r for cls, ranges in enumerate(hypothesis.classes) if row[cls] != hypothesis.dead for r in ranges)
