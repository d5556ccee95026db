"""Test vectors from a minimal DFA: transitions, lookalikes, state identification, truncations.

Four parts, in this order, each deterministic (states by number, classes by least byte, words
shortest first then lexicographically); an input already in the suite keeps its first note.

1. Transition coverage (re2c's ``--skeleton`` idea): for every live state and every byte class,
   dead-state transitions included, the shortest input reaching the state, then the class's
   boundary bytes (the lowest and highest byte of each of its ranges, so the neighbours of every
   range are the boundary bytes of the neighbouring classes), then the shortest completion to
   acceptance where there is one.
2. Lookalikes: a byte that kills the input, followed by the completion that the nearest byte the
   state accepts would have needed (``E0 80 80``: an overlong form; ``ED A0 80``: a surrogate),
   so that an implementation that counts bytes but checks no range sees a complete sequence.
3. State identification (the HSI method, :mod:`abnfc.automata.identify`): every state's access
   word, followed by every word of up to k+1 classes (each class as its least byte), followed
   by every word of the harmonized identifier of the state reached.  This set tells the minimal
   DFA apart from every DFA with at most k more states over the same byte classes that accepts
   a different language (k = ``extra_states``).  An implementation that splits a class (treats
   two bytes of one class differently) is outside that guarantee; part 1's boundary bytes are
   what catches such faults at the edges of ranges.
4. Truncations: every proper prefix of an accepted vector that is itself rejected.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import product as cartesian

from ..automata.dfa import Dfa
from ..automata.identify import identifiers
from ..automata.product import access_words, class_order, completions, nearest_live_byte
from ..errors import AbnfError
from .provenance import Provenance, hex_text

DEFAULT_MAX_VECTORS = 2_000_000


@dataclass(frozen=True)
class Vector:
    data: bytes
    valid: bool
    note: str
    part: str  # transition, lookalike, identify or truncation


def boundary_bytes(ranges) -> list[int]:
    return sorted({byte for lo, hi in ranges for byte in (lo, hi)})


class _Suite:
    def __init__(self, accepts: Callable[[bytes], bool], spend: Callable[[int], None] | None = None):
        self.accepts = accepts
        self.vectors: dict[bytes, Vector] = {}
        self.spend = spend

    def wants(self, data: bytes) -> bool:
        """Whether ``data`` is new (notes are only worked out for new inputs); ``spend`` is
        charged its bytes, what making and checking it costs."""
        if self.spend is not None:
            self.spend(len(data) + 1)
        return data not in self.vectors

    def put(self, data: bytes, part: str, note: str) -> None:
        self.vectors[data] = Vector(data, self.accepts(data), note, part)


def build_suite(dfa: Dfa, provenance: Provenance, accepts: Callable[[bytes], bool],
                extra_states: int = 0, max_vectors: int = DEFAULT_MAX_VECTORS) -> list[Vector]:
    """The vectors of ``dfa`` (a minimal DFA), each with its verdict from ``accepts``."""
    ids = identifiers(dfa)
    _check_size(dfa, ids, extra_states, max_vectors)
    suite = _Suite(accepts)
    access, completion = access_words(dfa), completions(dfa)
    _transitions(dfa, provenance, suite, access, completion)
    _identification(dfa, provenance, suite, access, ids, extra_states)
    _truncations(provenance, suite)
    return list(suite.vectors.values())


class Unexplained:
    """A provenance that explains nothing, for callers that use only the vectors' bytes (explaining
    each, the rules it passes through, would cost most of the time)."""

    def explain(self, data: bytes) -> str:
        return ""

    def step(self, data: bytes, index: int) -> str:
        return ""

    def requirement(self, data: bytes, index: int) -> str:
        return ""


def transition_vectors(dfa: Dfa, provenance: Provenance, accepts: Callable[[bytes], bool],
                       spend: Callable[[int], None] | None = None) -> list[Vector]:
    """The vectors of ``dfa`` (minimal) without the state identification: every transition with
    the boundary bytes of its class, the lookalikes and the truncations.  Its separating words
    cost time quadratic in the states, which a large automaton (a pushdown validator unfolded)
    cannot pay for inputs wanted at once.  ``spend`` (a :class:`abnfc.errors.Meter`'s) is
    charged a step per byte of each input considered."""
    suite = _Suite(accepts, spend)
    _transitions(dfa, provenance, suite, access_words(dfa), completions(dfa))
    _truncations(provenance, suite)
    return list(suite.vectors.values())


def _transitions(dfa, provenance, suite, access, completion) -> None:
    for state in sorted(access, key=lambda s: (len(access[s]), access[s])):
        if state == dfa.dead:
            continue
        prefix = access[state]
        for cls, _ in class_order(dfa):
            target = dfa.transitions[state][cls]
            for byte in boundary_bytes(dfa.classes[cls]):
                data = prefix + bytes([byte]) + completion.get(target, b"")
                suffix = ", then the shortest completion" if completion.get(target) else ""
                if suite.wants(data):
                    suite.put(data, "transition", f"transition: {provenance.step(data, len(prefix))}{suffix}")
                if target == dfa.dead:
                    _lookalike(dfa, provenance, suite, state, prefix, byte, completion)


def _lookalike(dfa, provenance, suite, state, prefix, byte, completion) -> None:
    near = nearest_live_byte(dfa, state, byte)
    if near is None:
        return
    rest = completion.get(dfa.transitions[state][dfa.byte_class[near]], b"")
    data = prefix + bytes([byte]) + rest
    if rest and suite.wants(data):
        suite.put(data, "lookalike", f"lookalike: {provenance.step(data, len(prefix))}, then "
                  f"{hex_text(rest)}, which would complete it had it been 0x{near:02X}")


def _middles(dfa: Dfa, extra_states: int) -> Iterator[bytes]:
    """Every word of 0..k+1 classes, each class as its least byte, shortest first."""
    letters = [byte for _, byte in class_order(dfa)]
    for length in range(extra_states + 2):
        for word in cartesian(letters, repeat=length):
            yield bytes(word)


def _identification(dfa, provenance, suite, access, ids, extra_states) -> None:
    for state in sorted(access, key=lambda s: (len(access[s]), access[s])):
        for middle in _middles(dfa, extra_states):
            word = access[state] + middle
            reached = dfa.trace(word)[-1]
            for suffix in ids[reached]:
                data = word + suffix
                if suite.wants(data):
                    suite.put(data, "identify", f"identifies the state after {hex_text(word)}: "
                              f"{provenance.explain(data)}")


def _truncations(provenance, suite) -> None:
    for vector in list(suite.vectors.values()):
        if vector.valid:
            for end in range(len(vector.data)):
                prefix = vector.data[:end]
                if suite.wants(prefix) and not suite.accepts(prefix):
                    suite.put(prefix, "truncation", f"truncation: {provenance.explain(prefix)}")


def _count(dfa: Dfa, ids, extra_states: int) -> int:
    """At most how many vectors the suite holds: one identification vector per state, word and
    identifier of the state the word reaches, and a transition and a lookalike per state and
    boundary byte (truncations are left out, as in the bound)."""
    boundaries = sum(len(boundary_bytes(ranges)) for ranges in dfa.classes)
    count = 2 * dfa.num_states * boundaries
    frontier = list(range(dfa.num_states))
    for _length in range(extra_states + 2):
        count += sum(len(ids[state]) for state in frontier)
        frontier = [target for state in frontier for target in dfa.transitions[state]]
    return count


def _check_size(dfa: Dfa, ids, extra_states: int, max_vectors: int) -> None:
    """Refuse before generating a suite that may hold more than ``max_vectors`` vectors."""
    words = dfa.num_states * sum(dfa.num_classes ** k for k in range(extra_states + 2))
    bound = words * max(len(found) for found in ids)
    if bound > max_vectors and words <= max_vectors:  # the bound is loose: count what would be made
        bound = _count(dfa, ids, extra_states)
    if bound > max_vectors:
        raise AbnfError.at(None, f"--extra-states {extra_states} would make up to {bound:,} vectors for "
                           f"{dfa.num_states} states and {dfa.num_classes} byte classes, more than the "
                           f"limit of {max_vectors:,}; lower --extra-states or raise --max-vectors")
