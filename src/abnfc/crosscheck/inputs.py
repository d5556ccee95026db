"""The inputs crosscheck tries: vectors, every short string, sampled strings, random strings from
the grammar and near-misses of them.  Everything is seeded, so a run can be repeated exactly, and streamed in batches.

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
from ..automata.product import access_words, completions
from ..errors import AbnfError
from ..i18n import _

MAX_EXHAUSTIVE = 3  # 16.8 M strings; 4 bytes would be 4.3 G (crosscheck --spark goes to 4)
MEAN_LENGTH = 8
STOP_CHANCE = 0.1


@dataclass(frozen=True)
class Part:
    what: str  # its name in the JSON report (English, for tools)
    inputs: Iterable[bytes]
    exhaustive: bool = False  # every string of up to ``InputStream.exhaustive`` bytes
    label: str = ""  # its name in the text report, in the reader's language (default: ``what``)


@dataclass(frozen=True)
class Elsewhere:
    """The exhaustive part when the caller runs it elsewhere (``crosscheck --spark``): every
    string of up to ``length`` bytes except ``seen``, the earlier parts' inputs that short."""

    length: int
    seen: frozenset[bytes]

    @property
    def count(self) -> int:
        return _count_upto(self.length) - len(self.seen)


class InputStream:
    """The union of the parts, each input once, in batches, so that millions of inputs (every
    3-byte string is 16.8 M) never sit in memory at once.  The exhaustive part is not stored:
    later parts skip inputs short enough to be in it, and it skips the earlier parts' inputs.
    With ``elsewhere``, the exhaustive part (whose ``inputs`` are then not read) comes as one
    :class:`Elsewhere`, after a batch that ends with the input before it, so that the caller
    sees every input in order."""

    def __init__(self, parts: list[Part], exhaustive: int, batch_size: int = 1 << 20, elsewhere: bool = False):
        self.parts = parts
        self.exhaustive = exhaustive
        self.batch_size = batch_size
        self.elsewhere = elsewhere
        self.counts: list[tuple[str, int]] = []  # (what, new inputs), filled in as it streams
        self.labels: list[str] = []  # the parts' labels, in the same order
        self.total = 0

    def batches(self) -> Iterator[list[bytes] | Elsewhere]:
        seen: set[bytes] = set()
        batch: list[bytes] = []
        covered = -1  # inputs up to this length came with the exhaustive part
        for part in self.parts:
            count = 0
            if part.exhaustive and self.elsewhere:
                if batch:
                    self.total += len(batch)
                    yield batch
                    batch = []
                piece = Elsewhere(self.exhaustive, frozenset(data for data in seen if len(data) <= self.exhaustive))
                self.total += piece.count
                self.counts.append((part.what, piece.count))  # before, so that a fault's report counts it
                self.labels.append(part.label or part.what)
                covered = self.exhaustive
                yield piece
                continue
            for data in part.inputs:
                if part.exhaustive:
                    if data in seen:
                        continue
                elif len(data) <= covered or data in seen:
                    continue
                else:
                    seen.add(data)
                count += 1
                batch.append(data)
                if len(batch) == self.batch_size:
                    self.total += len(batch)
                    yield batch
                    batch = []
            self.counts.append((part.what, count))
            self.labels.append(part.label or part.what)
            if part.exhaustive:
                covered = self.exhaustive
        self.total += len(batch)
        if batch:
            yield batch


def all_strings(max_length: int) -> Iterator[bytes]:
    """Every byte string of 0..max_length bytes, shortest first, then in byte order (AbnfError at
    once, not when iterated, when there would be too many)."""
    if max_length > MAX_EXHAUSTIVE:
        raise AbnfError.at(None, _("--exhaustive {length} would try {count:,} strings; at most {limit} bytes "
                                   "are supported").format(length=max_length, count=_count_upto(max_length),
                                                           limit=MAX_EXHAUSTIVE))
    return _all_strings(max_length)


def _all_strings(max_length: int) -> Iterator[bytes]:
    for length in range(max_length + 1):
        for word in cartesian(range(256), repeat=length):
            yield bytes(word)


def _count_upto(length: int) -> int:
    return sum(256 ** n for n in range(length + 1))


MAX_EVERY_BYTE = 200_000  # inputs of the every-byte part; beyond it, only the small classes whole
SMALL_CLASS = 16  # bytes


def every_byte(dfa: Dfa) -> list[bytes]:
    """After the shortest way into each live state, every byte followed by the shortest way to
    accept from where it leads: a fault inside a byte class (a validator that refuses only E5 of
    %xE1-EC) is found, where the vectors try only a class's boundaries.  Above
    :data:`MAX_EVERY_BYTE` inputs, every byte of the classes of at most :data:`SMALL_CLASS`
    bytes only."""
    access, completion = access_words(dfa), completions(dfa)
    live = sorted((state for state in access if state in completion), key=lambda s: (len(access[s]), access[s]))
    small = [byte for ranges in dfa.classes if sum(hi - lo + 1 for lo, hi in ranges) <= SMALL_CLASS
             for lo, hi in ranges for byte in range(lo, hi + 1)]
    tried = range(256) if len(live) * 256 <= MAX_EVERY_BYTE else sorted(small)
    found = []
    for state in live:
        row = dfa.transitions[state]
        for byte in tried:
            found.append(access[state] + bytes([byte]) + completion.get(row[dfa.byte_class[byte]], b""))
    return found


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
