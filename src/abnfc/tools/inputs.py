"""The inputs crosscheck tries: vectors, every short string, sampled strings, random strings from
the grammar and near-misses of them.  Everything is seeded, so a run can be repeated exactly.

Random strings are random walks over the grammar's minimal DFA: from each state a range of a
byte class leading to a state that can still accept is picked uniformly (so rare classes are
walked as often as common ones), then a byte of it, half the time one of its two ends.  A
walk stops at an accepting state now and then, and past a random length it finishes with the
state's shortest completion.  Every second string is then turned into a near-miss: one byte
changed, inserted or deleted.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import product as cartesian

from ..automata.dfa import Dfa
from ..automata.product import completions
from ..errors import AbnfError

MAX_EXHAUSTIVE = 3  # 16.8 M strings; 4 bytes would be 4.3 G
MEAN_LENGTH = 8
STOP_CHANCE = 0.1


@dataclass(frozen=True)
class InputSet:
    inputs: list[bytes]
    sources: tuple[tuple[str, int], ...]  # (what, how many new inputs it added), in order

    def describe(self) -> str:
        return ", ".join(f"{count:,} {what}" for what, count in self.sources if count)


def all_strings(max_length: int) -> Iterator[bytes]:
    """Every byte string of 0..max_length bytes, shortest first, then in byte order."""
    if max_length > MAX_EXHAUSTIVE:
        raise AbnfError.at(None, f"--exhaustive {max_length} would try {_count_upto(max_length):,} "
                           f"strings; at most {MAX_EXHAUSTIVE} bytes are supported")
    for length in range(max_length + 1):
        for word in cartesian(range(256), repeat=length):
            yield bytes(word)


def _count_upto(length: int) -> int:
    return sum(256 ** n for n in range(length + 1))


def sampled(length: int, count: int, rng: random.Random) -> list[bytes]:
    """``count`` distinct random strings of ``length`` bytes (all of them if there are fewer)."""
    total = 256 ** length
    if count >= total:
        return [bytes(word) for word in cartesian(range(256), repeat=length)]
    picks = sorted(rng.sample(range(total), count))
    return [pick.to_bytes(length, "big") for pick in picks]


class Walker:
    """Random walks over a minimal DFA (see the module docstring)."""

    def __init__(self, dfa: Dfa, rng: random.Random):
        self.dfa = dfa
        self.rng = rng
        self.completion = completions(dfa)
        # per state: (lowest byte, number of bytes, next state) of each range of each class that
        # leads to a state that can still accept
        self.moves = {state: [(lo, hi - lo + 1, target) for ranges, target in zip(dfa.classes, row, strict=True)
                              if target in self.completion for lo, hi in ranges]
                      for state, row in enumerate(dfa.transitions) if state in self.completion}

    def walk(self) -> bytes:
        rng, state, out = self.rng, self.dfa.start, bytearray()
        if state not in self.completion:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(4)))  # empty language
        accepting, moves, random_ = self.dfa.accepting, self.moves, rng.random
        length = int(rng.expovariate(1 / MEAN_LENGTH))
        while len(out) < length:
            if state in accepting and random_() < STOP_CHANCE:
                return bytes(out)
            choices = moves[state]
            if not choices:  # an accepting state with no way on (a bounded language's longest inputs)
                break
            draw = random_() * len(choices)
            pick = int(draw)
            lo, size, state = choices[pick]
            rest = draw - pick  # the same draw, reused to pick the byte
            # half the time a boundary byte of the range, else any byte of it
            out.append((lo if rest < 0.25 else lo + size - 1) if rest < 0.5 else lo + int((rest - 0.5) * 2 * size))
        return bytes(out + self.completion[state])

    def near_miss(self, data: bytes) -> bytes:
        rng, kind = self.rng, self.rng.randrange(3)
        if kind == 1 or not data:  # insert
            at = rng.randrange(len(data) + 1)
            return data[:at] + bytes([rng.randrange(256)]) + data[at:]
        at = rng.randrange(len(data))
        if kind == 0:  # change
            return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
        return data[:at] + data[at + 1:]  # delete


def random_strings(dfa: Dfa, count: int, rng: random.Random) -> list[bytes]:
    walker = Walker(dfa, rng)
    found = []
    for index in range(count):
        data = walker.walk()
        found.append(walker.near_miss(data) if index % 2 else data)
    return found


def gather(parts: Iterable[tuple[str, Iterable[bytes]]]) -> InputSet:
    """The union of the parts, each input once, in order of first appearance."""
    seen: dict[bytes, None] = {}
    sources = []
    for what, inputs in parts:
        before = len(seen)
        for data in inputs:
            seen.setdefault(data)
        sources.append((what, len(seen) - before))
    return InputSet(list(seen), tuple(sources))
