"""Hypothesis strategies of a grammar's inputs, for property tests that know the grammar.

    from hypothesis import given
    from abnfc.hypothesis import strategy

    @given(strategy("grammars/datetime.abnf", "date-time"))
    def test_my_parser_takes_every_timestamp(text): ...

Valid inputs are drawn four ways (:data:`VALID_MIX`), each step a Hypothesis draw:

- *branch-biased walks* over the automaton: in an accepting state, whether to go on;
  then one of the *branches*, the states the state's bytes lead to that still have a word
  short enough for what is left of ``max_size``, each as likely (a branch of one byte comes as
  often as one of a hundred); then a range of the branch and a byte of it, the range's lowest
  or highest more often than the others (:data:`BYTE_MIX`), as Hypothesis favours the bounds of
  integers.  This is the random-walk half of grammar-based test generation (Maurer, "Generating
  test data with enhanced context-free grammars", IEEE Software 7(4), 1990), with the boundary
  values of each input domain (Myers, "The Art of Software Testing", 1979, ch. 4);
- *dialect walks*, most of the valid draws when the grammar has dialects: the same walks over
  the part of the grammar that one of its dialects (the ``; Dialect of:`` grammars beside it)
  also accepts, or the part it refuses.  A part's automaton splits the grammar's branches where
  the dialect's do, so a walk reaches the edges of the dialect's ranges as often as any other
  branch: with ``datetime-ranges``, second "60" in one walk of that part in two, where the
  grammar's own ``2DIGIT`` makes it one of a hundred.  Only parts that split a branch are
  walked (a part that only leaves bytes out has no edge of its own), and three walks in four
  (:data:`SIDE_MIX`) are over a part a dialect accepts: there every field keeps the dialect's
  ranges as branches, where a walk over the part it refuses leaves the dialect at the first
  field out of its range and walks the grammar's own branches after it.  Plain walks keep one
  valid draw in eight (and the dialect walks' share where no part is walked);
- *path-uniform words*: a length, then a rank among the words of that length, unranked by
  path counting (:meth:`abnfc.hypothesis.sampling.Sampler.unrank`); uniform for each length
  as far as Hypothesis draws the rank uniformly (:meth:`Sampler.valid` draws it with
  :mod:`random`, exactly uniformly);
- the grammar's valid test vectors (every transition with the edge bytes of its class; for
  automata of up to :data:`MAX_VECTOR_STATES` states).

Every draw is valid, every valid word of up to ``max_size`` bytes can be drawn, and Hypothesis
shrinks a failing input towards a walk that stops early, takes the first branch and its lowest
byte: a shorter and smaller valid input.  Invalid inputs (:data:`INVALID_MIX`) are a valid word
with a byte the grammar refuses at one position (the rest of the word kept, or made the valid
rest nearest in byte order), or the word cut where it is incomplete
(:meth:`abnfc.hypothesis.sampling.Sampler.near_miss`); the invalid vectors; and the shortest
inputs that tell the grammar from each of its dialects
(:func:`abnfc.crosscheck.neighbours.parting_inputs`) that the grammar refuses, each dialect as
likely as the others; the near misses shrink as the valid word they come from does and stay
invalid.

Hypothesis is needed only for :func:`strategy` (``pip install hypothesis``); the uniform
sampler, :mod:`abnfc.hypothesis.sampling`, needs nothing.
"""
from __future__ import annotations

import operator
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..automata.dfa import Dfa
from ..crosscheck.neighbours import MAX_PAIRS, discover, parting_inputs
from ..crosscheck.suite import Unexplained, transition_vectors
from ..errors import AbnfError, LimitError
from ..frontend.source import Grammar, load
from ..i18n import _
from ..pipeline import DEFAULT_LIMITS, Compilation, Limits
from .sampling import DEFAULT_DEPTH, Edge, Sampler, automaton, splits_branches, sub_language

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

MAX_WITNESSES = 10_000
MAX_VECTOR_STATES = 400
VALID_MIX = (1, 5, 1, 1)  # shares of the valid draws: walks, dialect walks, path-uniform words, valid vectors
SIDE_MIX = (3, 1)  # shares of the dialect walks: over parts a dialect accepts, over parts it refuses
BYTE_MIX = (3, 1, 4)  # shares of a walk's byte in a range, about: its lowest, its highest, any (uniform)
INVALID_MIX = (4, 2, 2)  # shares of the invalid draws: near misses, refused vectors, dialect witnesses


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
    dialects = _dialects(compilation, neighbours)
    strict = neighbours is not None
    good = _valid(sampler, accepted, *_parts(compilation, dfa, dialects, max_size, strict))
    bad = _invalid(sampler, refused, _witnesses(dfa, dialects, max_size, strict)) if valid is not True \
        else st.nothing()
    drawn = {True: good, False: bad, None: st.one_of(good, bad)}[valid]
    return drawn.filter(_is_utf8).map(lambda data: data.decode("utf-8")) if text else drawn


def _valid(sampler: Sampler, vectors: list[bytes], inside: Sequence[Sampler] = (),
           outside: Sequence[Sampler] = ()) -> SearchStrategy[bytes]:
    """Valid words, each drawn one of four ways (:data:`VALID_MIX`): a branch-biased walk, a walk
    over a part of the grammar (:data:`SIDE_MIX`: one of ``inside``, the parts dialects accept,
    or one of ``outside``, those they refuse, each part of a side as likely), a path-uniform
    word, or one of ``vectors``; a way with nothing to draw from gives a walk (a side without
    parts, the other side), Hypothesis's simplest draw, so a failure shrinks towards a walk."""
    from hypothesis import strategies as st

    walks, uniform = _walk(sampler), _uniform(sampler)
    sides = [[_walk(part) for part in parts] for parts in (inside, outside)]
    bounds = [sum(VALID_MIX[:way + 1]) for way in range(len(VALID_MIX))]

    @st.composite
    def valid_words(draw) -> bytes:
        way = draw(st.integers(0, bounds[-1] - 1))
        if way >= bounds[2] and vectors:
            return draw(st.sampled_from(vectors))
        if bounds[1] <= way < bounds[2]:
            return draw(uniform)
        if bounds[0] <= way < bounds[1] and any(sides):
            side = sides[draw(st.integers(0, sum(SIDE_MIX) - 1)) >= SIDE_MIX[0]] or sides[0] or sides[1]
            return draw(side[draw(st.integers(0, len(side) - 1))])
        return draw(walks)
    return valid_words()


def _walk(sampler: Sampler) -> SearchStrategy[bytes]:
    """A walk over the automaton: in an accepting state, whether to stop; then one of the
    branches (the states the state's bytes lead to) that can still finish within ``max_size``,
    each as likely; then a byte of it (:func:`_byte`)."""
    from hypothesis import strategies as st

    @st.composite
    def walk(draw) -> bytes:
        state, out = sampler.dfa.start, bytearray()
        while True:
            budget = sampler.longest - len(out) - 1
            branches = [group for group in sampler.branches[state] if sampler.shortest[group[0].target] <= budget]
            if state in sampler.dfa.accepting and (not branches or not draw(st.booleans())):
                return bytes(out)
            group = branches[draw(st.integers(0, len(branches) - 1))]
            out.append(_byte(draw, group))
            state = group[0].target
    return walk()


def _byte(draw, ranges: list[Edge]) -> int:
    """A byte of ``ranges`` (in byte order): each range's lowest or highest more often than the
    others (:data:`BYTE_MIX`), as Hypothesis favours the bounds of integers.  One draw, whose
    first values are the bytes in order and the next ones the ranges' edges, so that it shrinks
    to the least byte that keeps a failure."""
    from hypothesis import strategies as st

    low, high, anywhere = BYTE_MIX
    sizes = [edge.hi - edge.lo + 1 for edge in ranges]
    extra = [(size * low // anywhere, size * high // anywhere) if size > 1 else (0, 0) for size in sizes]
    value = draw(st.integers(0, sum(sizes) + sum(a + b for a, b in extra) - 1))
    for edge, size in zip(ranges, sizes, strict=True):
        if value < size:
            return edge.lo + value
        value -= size
    for edge, (extra_low, extra_high) in zip(ranges, extra, strict=True):
        if value < extra_low:
            return edge.lo
        if value < extra_low + extra_high:
            return edge.hi
        value -= extra_low + extra_high
    raise AssertionError  # not reached: value < the sizes and extras summed


def _uniform(sampler: Sampler) -> SearchStrategy[bytes]:
    """A length among those that have words, then a word of that length by its rank: uniform for
    each length (:meth:`abnfc.hypothesis.sampling.Sampler.unrank`) as far as Hypothesis draws
    the rank uniformly; it shrinks to the shortest length and the least word."""
    from hypothesis import strategies as st

    @st.composite
    def uniform(draw) -> bytes:
        length = sampler.lengths[draw(st.integers(0, len(sampler.lengths) - 1))]
        return sampler.unrank(length, draw(st.integers(0, sampler.words_of_length(length) - 1)))
    return uniform()


def _invalid(sampler: Sampler, vectors: list[bytes], witnesses: list[list[bytes]]) -> SearchStrategy[bytes]:
    """Invalid words: near misses of valid words, or (:data:`INVALID_MIX`) one of the refused
    ``vectors``, or a witness of one of the dialects, each dialect as likely, so that the few
    witnesses of a dialect are not lost among thousands of vectors."""
    from hypothesis import assume
    from hypothesis import strategies as st

    valid = _valid(sampler, [])
    dialects = [group for group in witnesses if group]
    share = sum(INVALID_MIX)

    @st.composite
    def invalid_words(draw) -> bytes:
        way = draw(st.integers(0, share - 1))
        if way >= INVALID_MIX[0] + INVALID_MIX[1] and dialects:
            return draw(st.sampled_from(draw(st.sampled_from(dialects))))
        if way >= INVALID_MIX[0] and vectors:
            return draw(st.sampled_from(vectors))
        word = draw(valid)
        position = draw(st.integers(0, len(word)))
        choice = draw(st.integers(0, 255))
        for at in (*range(position, len(word) + 1), *range(position)):  # the first place one applies
            miss = sampler.near_miss(word, at, choice)
            if miss is not None:
                return miss
        assume(False)  # every byte is taken everywhere on this word's path: nothing refused near it
        raise AssertionError  # not reached: assume(False) raises
    return invalid_words()


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


def _dialects(compilation: Compilation, given: Sequence[str] | None) -> list[Dfa]:
    """The minimal DFAs of the regular dialects: the grammar files ``given``, or the ``; Dialect
    of:`` grammars beside the grammar (those that fail to load or compile are left out)."""
    if not compilation.resolved.is_regular:
        return []
    found = []
    for path in (list(given) if given is not None else discover(compilation.grammar.path)):
        try:
            other = Compilation(load(path), compilation.start, compilation.limits)
            if other.resolved.is_regular:
                found.append(other.minimal)
        except AbnfError:
            if given is not None:
                raise
    return found


def _parts(compilation: Compilation, dfa: Dfa, dialects: list[Dfa], max_size: int,
           strict: bool) -> tuple[list[Sampler], list[Sampler]]:
    """For each dialect, a sampler of the words of ``dfa`` it accepts and one of those it
    refuses (the two lists), where such a part has words within ``max_size`` and a branch of its
    own (:func:`abnfc.hypothesis.sampling.splits_branches`): a part that only leaves some of the
    grammar's bytes out, or is all of its words, has no range edge a walk over the grammar
    lacks.  A dialect too far from the grammar for the limits is left out, unless ``strict``."""
    found: tuple[list[Sampler], list[Sampler]] = ([], [])
    for other in dialects:
        for side, keep in enumerate((operator.and_, lambda ours, theirs: ours and not theirs)):
            try:
                part = sub_language(dfa, other, keep, MAX_PAIRS, compilation.limits.max_work)
            except LimitError:
                if strict:
                    raise
                break
            sampler = Sampler(part, max_size)
            if sampler.lengths and splits_branches(part, dfa):
                found[side].append(sampler)
    return found


def _witnesses(dfa: Dfa, dialects: list[Dfa], max_size: int, strict: bool) -> list[list[bytes]]:
    """For each dialect, the shortest inputs telling ``dfa`` from it that ``dfa`` refuses (at
    most :data:`MAX_WITNESSES` in all); as :func:`_parts` for a dialect too far away."""
    groups: list[list[bytes]] = []
    for other in dialects:
        try:
            found = parting_inputs(dfa, other, MAX_PAIRS)
        except LimitError:
            if strict:
                raise
            continue
        groups.append(sorted((w for w in found if len(w) <= max_size and not dfa.matches(w)),
                             key=lambda w: (len(w), w)))
    each = MAX_WITNESSES // max(len(groups), 1)
    return [group[:each] for group in groups if group]


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
