"""A fuzzing kit's data: the seed corpus and the dictionary, from a grammar's minimal DFA.

The corpus gathers inputs at the edge of the language, each group sorted shortest first:

- the transition vectors (:func:`abnfc.crosscheck.suite.transition_vectors`: every transition
  of the minimal DFA with the boundary bytes of its class, lookalikes and truncations), the
  valid ones and the invalid ones;
- for each of the grammar's dialects (the ``; Dialect of:`` grammars beside it), the inputs
  that tell the two apart (:func:`abnfc.crosscheck.neighbours.parting_inputs`);
- valid inputs drawn uniformly for the seed (:class:`abnfc.hypothesis.sampling.Sampler`).

Past ``max_seeds`` the groups take turns, so that each keeps its share.  The dictionary holds
the grammar's literals (runs of single-byte terminals of one element: a quoted string or
``%x0D.0A``) and the boundary bytes of each byte class, in libFuzzer's ``-dict=`` format
(which AFL++'s ``-x`` reads too).
"""
from __future__ import annotations

import hashlib
import random
from itertools import zip_longest

from ..automata.dfa import Dfa
from ..crosscheck.neighbours import MAX_PAIRS, discover, parting_inputs
from ..crosscheck.suite import Unexplained, boundary_bytes, transition_vectors
from ..errors import AbnfError
from ..frontend import ir
from ..frontend.source import load
from ..hypothesis.sampling import Sampler
from ..pipeline import Compilation

SAMPLES = 32  # uniform valid inputs in the corpus
SAMPLE_SIZE = 64  # their longest
MAX_SEED_SIZE = 4096  # libFuzzer's default -max_len


def corpus(compilation: Compilation, seed: int, max_seeds: int) -> list[bytes]:
    """The seed corpus of the grammar's start rule: distinct inputs, at most ``max_seeds``."""
    dfa = compilation.minimal
    vectors = transition_vectors(dfa, Unexplained(), dfa.matches)
    groups = [_ordered(v.data for v in vectors if v.valid), _ordered(v.data for v in vectors if not v.valid),
              *(_ordered(found) for found in _dialect_inputs(compilation)), _samples(dfa, seed)]
    chosen: dict[bytes, None] = {}
    for turn in zip_longest(*groups):
        for data in turn:
            if data is not None and len(data) <= MAX_SEED_SIZE and len(chosen) < max_seeds:
                chosen.setdefault(data)
    return list(chosen)


def file_name(data: bytes) -> str:
    """A corpus file's name: the SHA-1 of its bytes, as libFuzzer names the inputs it saves."""
    return hashlib.sha1(data).hexdigest()


def _ordered(inputs) -> list[bytes]:
    return sorted(set(inputs), key=lambda data: (len(data), data))


def _dialect_inputs(compilation: Compilation) -> list[set[bytes]]:
    """For each dialect, the inputs that tell it from the grammar."""
    found: list[set[bytes]] = []
    for path in discover(compilation.grammar.path):
        try:
            other = Compilation(load(path), compilation.start, compilation.limits)
            if other.resolved.is_regular:
                found.append(parting_inputs(compilation.minimal, other.minimal, MAX_PAIRS))
        except AbnfError:  # a dialect that does not compile only leaves its inputs out
            continue
    return found


def _samples(dfa: Dfa, seed: int) -> list[bytes]:
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
    dfa = compilation.minimal
    lines = ["# The literals of the grammar, then the boundary bytes of each byte class of its minimal DFA."]
    lines += [f'literal_{index}="{_escaped(data)}"' for index, data in enumerate(literals(compilation), 1)]
    edges = sorted({byte for ranges in dfa.classes for byte in boundary_bytes(ranges)})
    lines += [f'byte_{byte:02x}="{_escaped(bytes([byte]))}"' for byte in edges]
    return "\n".join(lines) + "\n"


def _escaped(data: bytes) -> str:
    """``data`` inside a dictionary entry's quotes: printable ASCII as is, the rest as ``\\xNN``."""
    return "".join(chr(b) if 0x20 <= b < 0x7F and b not in b'"\\' else f"\\x{b:02X}" for b in data)
