"""A fuzzing kit's data: the seed corpus, the dictionary and the dialects' witnesses, from a
grammar's minimal DFA (a recursive grammar's: its pushdown validator unfolded to a small depth,
:func:`abnfc.hypothesis.sampling.automaton`).

The corpus gathers inputs at the edge of the language, each group sorted shortest first:

- the transition vectors (:func:`abnfc.crosscheck.suite.transition_vectors`: every transition
  of the minimal DFA with the boundary bytes of its class, lookalikes and truncations), the
  valid ones and the invalid ones;
- for each of the grammar's dialects (the ``; Dialect of:`` grammars beside it), the inputs
  that tell the two apart (:func:`abnfc.crosscheck.neighbours.parting_inputs`);
- the near misses next to the valid inputs in byte order: for each state, reached by its
  shortest input, each byte it refuses just outside a range it takes, followed by the greatest
  (byte below the range) or least (above it) shortest rest (:meth:`abnfc.hypothesis.sampling.
  Sampler.adjacent`), such as the overlong F0 8F BF BF next to F0 90 80 80: where an
  implementation's bound is off by one, it takes this input;
- valid inputs drawn uniformly for the seed (:class:`abnfc.hypothesis.sampling.Sampler`).

Past ``max_seeds`` the groups take turns, so that each keeps its share.  The dictionary holds
the grammar's literals (runs of single-byte terminals of one element: a quoted string or
``%x0D.0A``) and the boundary bytes of each byte class, in libFuzzer's ``-dict=`` format
(which AFL++'s ``-x`` reads too).  The witnesses are the dialects' inputs again, shortest first,
the dialects taking turns, for the C mutator to splice into inputs (:mod:`.mutator`).

Making them is bounded by ``--max-work`` (:func:`meter`): a step per byte of each vector
considered, per transition of the product of the grammar's automaton and a dialect's, and per
count of the uniform sampler; past it, a LimitError names the limit.
"""
from __future__ import annotations

import hashlib
import random
from itertools import zip_longest

from ..automata.dfa import Dfa
from ..automata.product import access_words
from ..crosscheck.neighbours import MAX_PAIRS, discover, parting_inputs
from ..crosscheck.suite import Unexplained, boundary_bytes, transition_vectors
from ..errors import AbnfError, Meter, limit_error
from ..frontend import ir
from ..frontend.source import load
from ..hypothesis.sampling import Sampler, automaton
from ..i18n import N_
from ..pipeline import Compilation

SAMPLES = 32  # uniform valid inputs in the corpus
SAMPLE_SIZE = 64  # their longest
MAX_SEED_SIZE = 4096  # libFuzzer's default -max_len
MAX_WITNESSES = 512  # witnesses the mutator holds (and mutator.MAX_WITNESS_BYTES of them)
MAX_WITNESS_SIZE = 64
MAX_ADJACENT_STATES = 4096  # near misses for automata of at most this many states (one per refused edge)
EXCEEDED = limit_error(N_("making the fuzzing kit's seed corpus took more than {limit:,} steps (--max-work: "
                          "one step per byte of each input considered, per transition paired with a "
                          "dialect's transition and per input counted); raise the limit if this is intended"))


def meter(compilation: Compilation) -> Meter:
    """The work meter of one kit's corpus, dialect inputs and witnesses: ``--max-work`` steps."""
    return Meter(compilation.limits.max_work, EXCEEDED)


def corpus(compilation: Compilation, seed: int, max_seeds: int,
           dialects: list[set[bytes]] | None = None, work: Meter | None = None) -> list[bytes]:
    """The seed corpus of the grammar's start rule: distinct inputs, at most ``max_seeds``
    (``dialects``: :func:`dialect_inputs`, when already at hand; ``work``: the meter charged,
    by default a new :func:`meter`)."""
    work = meter(compilation) if work is None else work
    dfa = automaton(compilation)
    vectors = transition_vectors(dfa, Unexplained(), dfa.matches, work.spend)
    found = dialect_inputs(compilation, work) if dialects is None else dialects
    groups = [_ordered(v.data for v in vectors if v.valid), _ordered(v.data for v in vectors if not v.valid),
              *(_ordered(inputs) for inputs in found), _adjacent_misses(dfa, work), _samples(dfa, seed, work)]
    return _turns(groups, max_seeds, MAX_SEED_SIZE)


def witnesses(dialects: list[set[bytes]]) -> list[bytes]:
    """The dialects' inputs (:func:`dialect_inputs`) of at most :data:`MAX_WITNESS_SIZE` bytes,
    each dialect's shortest first, the dialects taking turns."""
    return _turns([_ordered(inputs) for inputs in dialects], MAX_WITNESSES, MAX_WITNESS_SIZE)


def _turns(groups: list[list[bytes]], most: int, longest: int) -> list[bytes]:
    """At most ``most`` distinct inputs of at most ``longest`` bytes, the groups taking turns."""
    chosen: dict[bytes, None] = {}
    for turn in zip_longest(*groups):
        for data in turn:
            if data is not None and len(data) <= longest and len(chosen) < most:
                chosen.setdefault(data)
    return list(chosen)


def file_name(data: bytes) -> str:
    """A corpus file's name: the SHA-1 of its bytes, as libFuzzer names the inputs it saves."""
    return hashlib.sha1(data).hexdigest()


def _ordered(inputs) -> list[bytes]:
    return sorted(set(inputs), key=lambda data: (len(data), data))


def dialect_inputs(compilation: Compilation, work: Meter | None = None) -> list[set[bytes]]:
    """For each dialect, the inputs that tell it from the grammar (a recursive grammar's and
    dialect's nesting at most a small depth); ``work`` is charged for the pairs of states."""
    work = meter(compilation) if work is None else work
    found: list[set[bytes]] = []
    mine = automaton(compilation)
    for path in discover(compilation.grammar.path):
        try:
            other = Compilation(load(path), compilation.start, compilation.limits)
            found.append(parting_inputs(mine, automaton(other), MAX_PAIRS, work.spend))
        except AbnfError:  # a dialect that does not compile only leaves its inputs out
            continue
    return found


def _adjacent_misses(dfa: Dfa, work: Meter) -> list[bytes]:
    """Each state's shortest input, a byte it refuses next to a range it takes and the nearest
    valid rest in byte order (none for an automaton of more than MAX_ADJACENT_STATES states)."""
    if dfa.num_states > MAX_ADJACENT_STATES:
        return []
    work.spend(dfa.num_states * (SAMPLE_SIZE + 1))  # the sampler's counts
    sampler = Sampler(dfa, SAMPLE_SIZE)
    found: set[bytes] = set()
    for state, prefix in access_words(dfa).items():
        if state == dfa.dead or len(prefix) >= SAMPLE_SIZE:
            continue
        for byte in sampler.refused_bytes(state):
            rest = next((r for n in range(SAMPLE_SIZE - len(prefix))
                         if (r := sampler.adjacent(state, byte, n)) is not None), None)
            if rest is not None:
                work.spend(len(prefix) + 1 + len(rest))
                found.add(prefix + bytes([byte]) + rest)
    return _ordered(found)


def _samples(dfa: Dfa, seed: int, work: Meter) -> list[bytes]:
    work.spend(dfa.num_states * (SAMPLE_SIZE + 1))  # the sampler's counts
    sampler = Sampler(dfa, SAMPLE_SIZE)
    if not sampler.lengths:
        return []
    rng = random.Random(seed)
    return [sampler.valid(rng) for _ in range(SAMPLES)]


def literals(compilation: Compilation) -> list[bytes]:
    """The grammar's literals of two bytes or more that its start rule reaches, sorted; each
    case-insensitive letter as the lower-case one (its highest byte)."""
    found: set[bytes] = set()
    for key in compilation.resolved.reachable:
        for node in ir.walk(compilation.resolved.ir[key]):
            if isinstance(node, ir.Seq):
                found |= _runs(node.items)
    return sorted(found, key=lambda data: (len(data), data))


def _runs(items: tuple[ir.Node, ...]) -> set[bytes]:
    """The runs of single-byte terminals of one grammar element in a sequence's items."""
    runs: set[bytes] = set()
    run, element = bytearray(), None
    for item in (*items, None):
        small = isinstance(item, ir.Terminal) and len(item.ranges) <= 2 and all(lo == hi for lo, hi in item.ranges)
        where = (item.origin.rule, item.origin.alternative, item.origin.element) \
            if isinstance(item, ir.Terminal) else None
        if not small or where != element:
            if len(run) >= 2:
                runs.add(bytes(run))
            run, element = bytearray(), where
        if small and isinstance(item, ir.Terminal):
            run.append(item.ranges[-1][1])
    return runs


def dictionary(compilation: Compilation) -> str:
    """The dictionary file: the literals, then each class's boundary bytes."""
    dfa = automaton(compilation)
    lines = ["# The literals of the grammar, then the boundary bytes of each byte class of its minimal DFA."]
    lines += [f'literal_{index}="{_escaped(data)}"' for index, data in enumerate(literals(compilation), 1)]
    edges = sorted({byte for ranges in dfa.classes for byte in boundary_bytes(ranges)})
    lines += [f'byte_{byte:02x}="{_escaped(bytes([byte]))}"' for byte in edges]
    return "\n".join(lines) + "\n"


def _escaped(data: bytes) -> str:
    """``data`` inside a dictionary entry's quotes: printable ASCII as is, the rest as ``\\xNN``."""
    return "".join(chr(b) if 0x20 <= b < 0x7F and b not in b'"\\' else f"\\x{b:02X}" for b in data)
