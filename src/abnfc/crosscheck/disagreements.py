"""Disagreements grouped by where the two languages part, each shrunk to its smallest input.

Where the implementation *accepts* what the grammar rejects, the grammar alone says where they
part: the minimal DFA state in which the input dies and the range (of that state's byte class)
holding the byte it dies on, or the state where the input ends too early.  Where the
implementation *rejects* what the grammar accepts, the implementation is asked: for every
non-empty prefix of the input, the prefix followed by a completion (valid for the grammar: the
shortest ending of a valid input the implementation accepted that passes through the same state,
else the grammar's shortest completion) is tried, and the first prefix the implementation refuses
names the transition it gets wrong.

One grammar position can hide several faults (a validator that rejects U+FDD0-FDEF and U+FFFE
parts from UTF-8 at one state and byte range for both), so the members of each position's class
are grouped by the fault they show, by a Myhill-Nerode test on what was tried: two inputs show
the same fault when each one's beginning, up to the byte where it parts, followed by the other's
rest is still a disagreement the same way.

Shrinking (as in QuickCheck and Hypothesis, but in the order "shortest, then lexicographically
least"): each round tries every deletion of a run of bytes, smaller values of every byte (zero
and the bounds of the grammar's byte classes, which are where a grammar's behaviour changes),
and the shortest input reaching the parting state followed by such a byte of the parting range
and a few endings (the input's own, the grammar's completion, the completion of a lookalike).
Candidates are asked in increasing order, a chunk at a time, and the round keeps the first one
that is still a disagreement of the same class, until none is smaller or a budget of questions
is spent.  The result is minimal for these moves, not necessarily the least of the class; the
exhaustive part of the inputs makes it so for classes with an input of up to two bytes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..automata.product import access_words, completions, nearest_live_byte
from ..frontend.resolve import ResolvedGrammar
from ..interpret import recognize
from .bounded import grammar_classes

MAX_ROUNDS = 64
MAX_PROBED = 20_000  # rejected valid inputs classified by asking the implementation
MAX_SPLIT = 2_000  # members of one grammar position's class grouped by the fault they show
MAX_FAULTS = 16  # groups made at one grammar position


@dataclass(frozen=True, order=True)
class Parting:
    """Where the languages part: in minimal-DFA ``state``, on a byte in ``lo..hi`` (both None
    when the input ends there).  ``implementation_accepts`` says which side is more lenient."""

    implementation_accepts: bool
    state: int
    lo: int | None = None
    hi: int | None = None
    variant: int = 0  # which of the faults the implementation shows at this grammar position

    def covers(self, other: Parting) -> bool:
        """Whether ``other`` (the parting of one input) falls in this grammar position's class."""
        if (self.implementation_accepts, self.state) != (other.implementation_accepts, other.state):
            return False
        if self.lo is None or self.hi is None or other.lo is None or other.hi is None:
            return self.lo is None and other.lo is None
        return self.lo <= other.lo and other.hi <= self.hi

    def joins(self, other: Parting) -> bool:
        """Whether ``other`` continues this parting's byte range in the same state."""
        return (self.implementation_accepts, self.state) == (other.implementation_accepts, other.state) \
            and self.hi is not None and other.lo is not None and self.hi + 1 == other.lo


Query = Callable[[Sequence[bytes]], list[bool]]  # the implementation's verdicts


class Classifier:
    """Partings from the grammar's minimal DFA (regular grammars)."""

    def __init__(self, dfa: Dfa, accepts: Callable[[bytes], bool], query: Query,
                 chunk: int = 4096, budget: int = 100_000, accepted: Sequence[bytes] = ()):
        self.dfa = dfa
        self.accepts = accepts
        self.query = query
        self.chunk = chunk  # candidates asked at once while shrinking
        self.budget = budget  # candidates asked at most per class
        self.access = access_words(dfa)
        self.completion = completions(dfa)
        self.cuts = sorted({0, *(bound for ranges in dfa.classes for r in ranges for bound in r)})
        self.accepted_completion = self._accepted_completions(accepted)
        self.representatives: dict[Parting, bytes] = {}  # the first member of each split class
        self._cuts: dict[tuple[bytes, bool], tuple[bytes | None, bytes]] = {}

    def _accepted_completions(self, accepted: Sequence[bytes]) -> dict[int, bytes]:
        """For each state, the shortest ending of a valid input the implementation accepted
        that passes through it: probes end with these, not with the grammar's shortest
        completion, which an implementation may refuse for a reason of its own (a date checker
        that refuses month 00 refuses every probe that ends in the grammar's 0000-00-00)."""
        found: dict[int, bytes] = {}
        for data in accepted:
            for offset, state in enumerate(self.states(data)):
                ending = data[offset:]
                if state not in found or _size(ending) < _size(found[state]):
                    found[state] = ending
        return found

    def states(self, data: bytes) -> list[int]:
        """The state before each byte and after the last (stopping at the dead state)."""
        return self.dfa.trace(data)

    def range_of(self, byte: int) -> tuple[int, int]:
        for lo, hi in self.dfa.classes[self.dfa.byte_class[byte]]:
            if lo <= byte <= hi:
                return lo, hi
        raise ValueError(byte)

    def lenient(self, data: bytes) -> tuple[Parting, int]:
        """The parting of an input the grammar rejects, and the offset where it is."""
        states = self.states(data)
        if states[-1] == self.dfa.dead:
            index = len(states) - 2
            return Parting(True, states[index], *self.range_of(data[index])), index
        return Parting(True, states[-1]), len(data)

    def probes(self, data: bytes) -> list[bytes]:
        """Each prefix of a valid input followed by a completion: the shortest ending the
        implementation accepted after that state, else the grammar's shortest completion."""
        return [data[:end] + self.accepted_completion.get(state, self.completion[state])
                for end, state in enumerate(self.states(data))]

    def strict(self, data: bytes, answers: dict[bytes, bool]) -> tuple[Parting, int]:
        """The parting of a valid input the implementation rejects (``answers`` holds its
        verdicts on the probes), and the offset of the byte it gets wrong (-1: none)."""
        states, probes = self.states(data), self.probes(data)
        if not data:
            return Parting(False, states[0]), -1
        # The empty prefix is skipped: an implementation that refuses the grammar's shortest input
        # would otherwise put every rejection in one class.
        for end in range(1, len(probes)):
            if not answers[probes[end]]:
                return Parting(False, states[end - 1], *self.range_of(data[end - 1])), end - 1
        return Parting(False, states[-1]), len(data)  # not reached: the input itself is a probe

    def classify(self, disagreements: Sequence[bytes], grammar_accepts: Sequence[bool]
                 ) -> tuple[dict[Parting, list[bytes]], int]:
        """Disagreements by parting (inputs in their given order), and how many rejected valid
        inputs were left unclassified (beyond MAX_PROBED)."""
        classes: dict[Parting, list[bytes]] = {}
        strict = [d for d, valid in zip(disagreements, grammar_accepts, strict=True) if valid]
        for data, valid in zip(disagreements, grammar_accepts, strict=True):
            if not valid:
                classes.setdefault(self.lenient(data)[0], []).append(data)
        probed = strict[:MAX_PROBED]
        answers = self._ask({p for data in probed for p in self.probes(data)})
        for data in probed:
            classes.setdefault(self.strict(data, answers)[0], []).append(data)
        split: dict[Parting, list[bytes]] = {}
        left_out = len(strict) - len(probed)
        for parting, members in merge_adjacent(classes).items():
            faults, unsplit = self.split(parting, members)
            left_out += unsplit
            for variant, fault in enumerate(faults):
                key = Parting(parting.implementation_accepts, parting.state, parting.lo, parting.hi, variant)
                self.representatives[key] = fault[0]
                split[key] = fault
        return split, left_out

    # -- faults at one grammar position ------------------------------------------------------

    def split(self, parting: Parting, members: list[bytes]) -> tuple[list[list[bytes]], int]:
        """The members of one grammar position's class, grouped by the fault they show: two
        inputs show the same fault when each one's beginning, up to the byte where it parts,
        followed by the other's rest is still a disagreement the same way (the implementation
        cannot tell the two beginnings apart there, as in the Myhill-Nerode test).  Rejecting
        U+FDD0 (EF B7 90) and U+FFFE (EF BF BE) are two faults: EF B7 followed by BE is U+FDFE,
        which the implementation accepts.  Members beyond :data:`MAX_SPLIT` are not grouped
        (the second value counts them); at most :data:`MAX_FAULTS` groups are made, the last
        holding the rest."""
        ordered = sorted(members, key=_size)
        pending, rest = ordered[:MAX_SPLIT], len(ordered) - min(len(ordered), MAX_SPLIT)
        faults: list[list[bytes]] = []
        while pending:
            representative = pending[0]
            if len(faults) == MAX_FAULTS - 1:
                faults.append(pending)
                break
            same = self.same_fault(parting, representative, pending[1:])
            faults.append([representative, *(m for m, alike in zip(pending[1:], same, strict=True) if alike)])
            pending = [m for m, alike in zip(pending[1:], same, strict=True) if not alike]
        return faults, rest

    def same_fault(self, parting: Parting, representative: bytes, others: Sequence[bytes]) -> list[bool]:
        """For each of ``others``, whether it shows the fault ``representative`` shows."""
        if not others:
            return []
        head, tail = self.cut(representative, parting)
        if head is None:
            return [True] * len(others)
        swaps: list[tuple[bytes, bytes]] = []
        for other in others:
            other_head, other_tail = self.cut(other, parting)
            if other_head is None:
                swaps.append((other, representative))
            else:
                swaps.append((head + other_tail, other_head + tail))
        asked = sorted({data for pair in swaps for data in pair}, key=_size)
        verdicts = dict(zip(asked, self.query(asked), strict=True))

        def disagrees(data: bytes) -> bool:
            wanted = parting.implementation_accepts
            return verdicts[data] == wanted and self.accepts(data) != wanted
        return [disagrees(first) and disagrees(second) for first, second in swaps]

    def cut(self, data: bytes, parting: Parting) -> tuple[bytes | None, bytes]:
        """``data`` cut before the byte where it parts from the grammar (None: no such byte);
        each input is cut once, though every round of :meth:`split` compares it again."""
        key = (data, parting.implementation_accepts)
        found = self._cuts.get(key)
        if found is None:
            found = self._cuts[key] = self._cut(data, parting)
        return found

    def _cut(self, data: bytes, parting: Parting) -> tuple[bytes | None, bytes]:
        if parting.implementation_accepts:
            offset = self.lenient(data)[1]
        else:
            probes = self.probes(data)
            offset = self.strict(data, dict(zip(probes, self.query(probes), strict=True)))[1]
        if offset < 0 or offset >= len(data):
            return None, data
        return data[:offset], data[offset:]

    def _ask(self, inputs) -> dict[bytes, bool]:
        ordered = sorted(inputs, key=_size)
        return dict(zip(ordered, self.query(ordered), strict=True))

    # -- shrinking ---------------------------------------------------------------------------

    def shrink(self, witness: bytes, parting: Parting) -> bytes:
        best, asked = witness, 0
        for _ in range(MAX_ROUNDS):
            candidates = sorted({c for c in self._candidates(best, parting) if _size(c) < _size(best)},
                                key=_size)
            found = None
            for start in range(0, len(candidates), self.chunk):
                chunk = candidates[start: start + self.chunk]
                asked += len(chunk)
                found = self._least_in_class(chunk, parting)
                if found is not None or asked >= self.budget:
                    break
            if found is None:
                break
            best = found
        return best

    def _least_in_class(self, candidates: list[bytes], parting: Parting) -> bytes | None:
        wanted = [c for c in candidates if self.accepts(c) != parting.implementation_accepts]
        verdicts = dict(zip(wanted, self.query(wanted), strict=True)) if wanted else {}
        disagreeing = [c for c in wanted if verdicts[c] == parting.implementation_accepts]
        if parting.implementation_accepts:
            return self._first_same_fault(parting, [c for c in disagreeing if parting.covers(self.lenient(c)[0])])
        for start in range(0, len(disagreeing), 64):  # strict partings cost one probe per byte
            chunk = disagreeing[start: start + 64]
            answers = self._ask({p for c in chunk for p in self.probes(c)})
            found = self._first_same_fault(parting, [c for c in chunk if parting.covers(self.strict(c, answers)[0])])
            if found is not None:
                return found
        return None

    def _first_same_fault(self, parting: Parting, candidates: list[bytes]) -> bytes | None:
        """The first candidate that shows the fault of the class (of one grammar position)."""
        representative = self.representatives.get(parting)
        if representative is None or not candidates:
            return candidates[0] if candidates else None
        same = self.same_fault(parting, representative, candidates)
        return next((c for c, alike in zip(candidates, same, strict=True) if alike), None)

    def _candidates(self, data: bytes, parting: Parting):
        yield from _deletions(data)
        for index, byte in enumerate(data):
            for value in self.cuts:
                if value >= byte:
                    break
                yield data[:index] + bytes([value]) + data[index + 1:]
        yield from self._rebuilt(data, parting)

    def _rebuilt(self, data: bytes, parting: Parting):
        """The shortest way into the parting state, then each byte of the parting range."""
        prefix = self.access.get(parting.state)
        if prefix is None:
            return
        if parting.lo is None or parting.hi is None:
            yield prefix
            return
        offset = self.lenient(data)[1] if parting.implementation_accepts else self._offset_in(data, parting)
        own_ending = data[offset + 1:] if offset is not None else b""
        for byte in sorted({parting.lo, *(cut for cut in self.cuts if parting.lo <= cut <= parting.hi)}):
            for ending in {own_ending, b"", self.ending(parting.state, byte)}:
                yield prefix + bytes([byte]) + ending

    def ending(self, state: int, byte: int) -> bytes:
        """The grammar's completion after ``byte``, or, where ``byte`` kills the input, after
        the nearest byte that does not (what a lookalike of a valid input ends with)."""
        if self.dfa.transitions[state][self.dfa.byte_class[byte]] == self.dfa.dead:
            near = nearest_live_byte(self.dfa, state, byte)
            if near is None:
                return b""
            byte = near
        return self.completion.get(self.dfa.transitions[state][self.dfa.byte_class[byte]], b"")

    def _offset_in(self, data: bytes, parting: Parting) -> int | None:
        states = self.states(data)
        for index, byte in enumerate(data):
            if states[index] == parting.state and parting.lo is not None and parting.hi is not None \
                    and parting.lo <= byte <= parting.hi:
                return index
        return None


class InterpreterClassifier(Classifier):
    """Partings of a recursive grammar, from the interpreter: an input the grammar rejects is
    classed by what the grammar expected where it failed and the byte class found there (the
    ``state`` of its parting numbers the distinct expected sets); inputs the grammar accepts and
    the implementation rejects form one class, shrunk by deletions and smaller bytes."""

    def __init__(self, grammar: ResolvedGrammar, dfa: Dfa, query: Query, chunk: int = 4096,
                 budget: int = 100_000):
        super().__init__(dfa, lambda data: recognize(grammar, data).matched, query, chunk, budget)
        self.grammar = grammar
        self.classes = grammar_classes(grammar)
        self.expected_ids: dict[tuple, int] = {}

    def lenient(self, data: bytes) -> tuple[Parting, int]:
        verdict = recognize(self.grammar, data)
        offset = verdict.offset if verdict.offset is not None else len(data)
        state = self.expected_ids.setdefault(verdict.expected, len(self.expected_ids))
        if offset >= len(data):
            return Parting(True, state), offset
        lo, hi = next(r for ranges in self.classes for r in ranges if r[0] <= data[offset] <= r[1])
        return Parting(True, state, lo, hi), offset

    def probes(self, data: bytes) -> list[bytes]:
        return [data]

    def strict(self, data: bytes, answers: dict[bytes, bool]) -> tuple[Parting, int]:
        return Parting(False, -1), -1

    def _rebuilt(self, data: bytes, parting: Parting):
        return iter(())


def merge_adjacent(classes: dict[Parting, list[bytes]]) -> dict[Parting, list[bytes]]:
    """Classes of one state whose byte ranges touch become one: the DFA splits a state's bytes
    into classes for the sake of other states, and ``F4 90`` and ``F4 A0`` are one mistake."""
    merged: dict[Parting, list[bytes]] = {}
    last: Parting | None = None
    for parting in sorted(classes, key=lambda p: (p.implementation_accepts, p.state, -1 if p.lo is None else p.lo)):
        if last is not None and last.joins(parting):
            members = merged.pop(last) + classes[parting]
            last = Parting(last.implementation_accepts, last.state, last.lo, parting.hi)
            merged[last] = members
        else:
            last = parting
            merged[last] = list(classes[parting])
    return merged


def _size(data: bytes) -> tuple[int, bytes]:
    return len(data), data


def _deletions(data: bytes):
    n = len(data)
    for start in range(n):
        for end in range(start + 1, n + 1):
            yield data[:start] + data[end:]
