"""Hypothesis strategies of a grammar's inputs, for property tests that know the grammar.

    from hypothesis import given
    from abnfc.hypothesis import strategy

    @given(strategy("grammars/datetime.abnf", "date-time"))
    def test_my_parser_takes_every_timestamp(text): ...

Valid inputs are walks over the automaton: in an accepting state, whether to go on; then one of
the byte ranges that lead to a state with a word short enough for what is left of ``max_size``;
then a byte of it, each a Hypothesis draw.  So every valid word of up to ``max_size`` bytes can
be drawn, every draw is valid, rare ranges come as often as common ones, and Hypothesis shrinks a
failing input towards stopping early, the first range and its lowest byte: a shorter and smaller
valid input.  (The words are not uniform: Hypothesis chooses the draws itself;
:meth:`abnfc.hypothesis.sampling.Sampler.valid` draws uniformly for each length, by path counting.)
The grammar's test vectors (every transition with the edge bytes of its class, and the inputs
next to them; for automata of up to :data:`MAX_VECTOR_STATES` states) are drawn too, the valid
ones among the valid inputs.  Invalid inputs are also the
invalid vectors, a valid word with a byte the grammar refuses at one position (the rest of the
word kept, or made the valid rest nearest in byte order), or the word cut where it is incomplete
(:meth:`abnfc.hypothesis.sampling.Sampler.near_miss`), and the shortest inputs that
tell the grammar from each of its dialects (:func:`abnfc.crosscheck.neighbours.parting_inputs`)
that the grammar refuses; they shrink as the valid word they come from does and stay invalid.

Hypothesis is needed only for :func:`strategy` (``pip install hypothesis``); the uniform
sampler, :mod:`abnfc.hypothesis.sampling`, needs nothing.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..automata.dfa import Dfa
from ..crosscheck.neighbours import MAX_PAIRS, discover, parting_inputs
from ..crosscheck.suite import Unexplained, transition_vectors
from ..errors import AbnfError
from ..frontend.source import Grammar, load
from ..i18n import _
from ..pipeline import DEFAULT_LIMITS, Compilation, Limits
from .sampling import DEFAULT_DEPTH, Sampler, automaton

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

MAX_WITNESSES = 10_000
MAX_VECTOR_STATES = 400


def strategy(grammar: str | os.PathLike | Grammar, start: str | None = None, *, valid: bool | None = True,
             max_size: int = 64, text: bool = False, depth: int = DEFAULT_DEPTH,
             neighbours: Sequence[str] | None = None, limits: Limits = DEFAULT_LIMITS) -> SearchStrategy:
    """Inputs of ``grammar`` (a path or a loaded grammar) from rule ``start`` of up to
    ``max_size`` bytes: the valid ones (``valid=True``), invalid ones next to them
    (``valid=False``) or both (``valid=None``).  ``text=True`` gives ``str``: the inputs that
    are UTF-8, decoded.  A recursive grammar's inputs nest at most ``depth`` deep.  The invalid
    ones include the witnesses of the grammar's dialects (the ``; Dialect of:`` grammars beside
    it, or the grammar files ``neighbours`` names)."""
    from hypothesis import strategies as st

    loaded = grammar if isinstance(grammar, Grammar) else load(os.fspath(grammar))
    compilation = Compilation(loaded, start, limits)
    dfa = automaton(compilation, depth)
    sampler = Sampler(dfa, max_size)
    if not sampler.lengths:
        raise AbnfError.at(None, _("the grammar has no input of at most {size} bytes").format(size=max_size))
    accepted, refused = _vectors(dfa, max_size)
    good = _valid(sampler, accepted)
    bad = _invalid(sampler, refused + _witnesses(compilation, dfa, neighbours, max_size)) if valid is not True \
        else st.nothing()
    drawn = {True: good, False: bad, None: st.one_of(good, bad)}[valid]
    return drawn.filter(_is_utf8).map(lambda data: data.decode("utf-8")) if text else drawn


def _valid(sampler: Sampler, vectors: list[bytes]) -> SearchStrategy[bytes]:
    from hypothesis import strategies as st

    @st.composite
    def valid_words(draw) -> bytes:
        state, out = sampler.dfa.start, bytearray()
        while True:
            budget = sampler.longest - len(out) - 1
            edges = [edge for edge in sampler.edges[state] if sampler.shortest[edge.target] <= budget]
            if state in sampler.dfa.accepting and (not edges or not draw(st.booleans())):
                return bytes(out)
            edge = edges[draw(st.integers(0, len(edges) - 1))]
            out.append(draw(st.integers(edge.lo, edge.hi)))
            state = edge.target
    return st.one_of(valid_words(), st.sampled_from(vectors)) if vectors else valid_words()


def _invalid(sampler: Sampler, examples: list[bytes]) -> SearchStrategy[bytes]:
    from hypothesis import assume
    from hypothesis import strategies as st

    @st.composite
    def near_misses(draw) -> bytes:
        word = draw(_valid(sampler, []))
        position = draw(st.integers(0, len(word)))
        choice = draw(st.integers(0, 255))
        for at in (*range(position, len(word) + 1), *range(position)):  # the first place one applies
            miss = sampler.near_miss(word, at, choice)
            if miss is not None:
                return miss
        assume(False)  # every byte is taken everywhere on this word's path: nothing refused near it
        raise AssertionError  # not reached: assume(False) raises
    return st.one_of(near_misses(), st.sampled_from(examples)) if examples else near_misses()


def _vectors(dfa: Dfa, max_size: int) -> tuple[list[bytes], list[bytes]]:
    """The grammar's transition vectors (:func:`abnfc.crosscheck.suite.transition_vectors`: every
    transition with the edge bytes of its class, lookalikes, truncations) of at most ``max_size``
    bytes, the accepted ones and the refused ones; none for an automaton of more than
    :data:`MAX_VECTOR_STATES` states (a pushdown validator unfolded), whose vectors would take
    seconds to make."""
    if dfa.num_states > MAX_VECTOR_STATES:
        return [], []
    suite = sorted((v for v in transition_vectors(dfa, Unexplained(), dfa.matches) if len(v.data) <= max_size),
                   key=lambda v: (len(v.data), v.data))
    return [v.data for v in suite if v.valid], [v.data for v in suite if not v.valid]


def _witnesses(compilation: Compilation, dfa: Dfa, given: Sequence[str] | None, max_size: int) -> list[bytes]:
    """The shortest inputs telling ``dfa`` from each regular dialect that it refuses."""
    if not compilation.resolved.is_regular:
        return []
    paths = list(given) if given is not None else discover(compilation.grammar.path)
    found: set[bytes] = set()
    for path in paths:
        try:
            other = Compilation(load(path), compilation.start, compilation.limits)
            if not other.resolved.is_regular:
                continue
            found |= parting_inputs(dfa, other.minimal, MAX_PAIRS)
        except AbnfError:
            if given is not None:
                raise
    refused = sorted((w for w in found if len(w) <= max_size and not dfa.matches(w)), key=lambda w: (len(w), w))
    return refused[:MAX_WITNESSES]



def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
