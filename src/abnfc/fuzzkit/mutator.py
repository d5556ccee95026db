"""The tables of the C mutator (``templates/mutator.c.j2``), from a grammar's minimal DFA or, for a
recursive grammar, its pushdown validator (:mod:`abnfc.automata.pushdown`: one table of DFAs that
call one another on bracket bytes and return on their mates).

Four tables beside the automaton's own (byte classes, transitions, and for a pushdown validator the
callee of each call state and the bytes each state returns on):

- the *moves* of each state: every byte range the state takes (reads or returns on), and the byte
  just outside such a range where the state refuses it.  The mutator writes a range's boundary
  bytes three times in four: they are where implementations of a range go wrong (the boundary-value
  analysis of Myers, "The Art of Software Testing", 1979, ch. 4), and the bytes just outside are
  the near misses a grammar-aware fuzzer should try; otherwise any byte of the range,
  since an implementation may treat bytes apart that the grammar does not (a leap second 60
  among the DIGITs).
- the shortest *completion* of each state: one byte towards a state that ends its machine (accepts,
  or returns from a nested part) and the steps left, from a breadth-first search backwards from
  those states that opens no nested part.
- the *witnesses*: inputs that tell the grammar from its dialects (the ``; Dialect of:`` grammars
  beside it, :func:`abnfc.fuzzkit.seeds.witnesses`), which the mutator splices into an input where
  the two runs are in the same state: the places where implementations of neighbouring standards
  part, put into the input at a point of the grammar where they fit.

The mutator's edits that keep the run's configurations (state, and for a pushdown validator the
stack: a class move to a byte with the same next state, repeating or dropping the bytes between two
equal configurations, splicing at a common configuration, swapping a nested part for another the
same state calls alike, completing) keep a valid input valid; the C file says which edit does what.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from ..automata.dfa import Dfa
from ..automata.pushdown import Pushdown
from ..backends.templating import render_template
from ..charset import Ranges, members

NO_COMPLETION = 0xFFFFFFFF
MAX_WITNESS_BYTES = 8192  # of all the witnesses the mutator holds


def moves(dfa: Dfa, state: int, returns: Ranges = ()) -> list[tuple[int, int]]:
    """The byte ranges a class move may write from in ``state``, in byte order: each range of one
    byte class that the state takes to a live state or returns on (``returns``), and each byte
    just outside one that the state refuses."""
    row, dead, byte_class = dfa.transitions[state], dfa.dead, dfa.byte_class
    ending = set(members(returns))
    taken = [row[byte_class[b]] != dead or b in ending for b in range(256)]
    found: set[tuple[int, int]] = set()
    lo = 0
    for b in range(1, 257):  # runs of taken bytes, cut where the class changes
        if b == 256 or taken[b] != taken[lo] or byte_class[b] != byte_class[lo] or (b in ending) != (lo in ending):
            if taken[lo]:
                found.add((lo, b - 1))
                found |= {(x, x) for x in (lo - 1, b) if 0 <= x <= 0xFF and not taken[x]}
            lo = b
    return sorted(found)


def completions(dfa: Dfa, ends: frozenset[int] = frozenset(),
                calls: frozenset[int] = frozenset()) -> tuple[list[int], list[int]]:
    """``(toward, distance)``: for each state, the least byte one step nearer to an accepting
    state or one of ``ends`` (for a pushdown validator: the states that return) and the length
    of its shortest way there that enters none of the ``calls`` states (:data:`NO_COMPLETION`
    where there is none)."""
    distance = [NO_COMPLETION] * dfa.num_states
    toward = [0] * dfa.num_states
    incoming: list[list[tuple[int, int]]] = [[] for _ in range(dfa.num_states)]
    for state, row in enumerate(dfa.transitions):
        for cls, target in enumerate(row):
            if target not in calls:
                incoming[target].append((state, min(lo for lo, _hi in dfa.classes[cls])))
    queue = deque(sorted(dfa.accepting | ends))
    for state in queue:
        distance[state] = 0
    while queue:
        target = queue.popleft()
        for state, byte in sorted(incoming[target]):
            if distance[state] == NO_COMPLETION:
                distance[state], toward[state] = distance[target] + 1, byte
                queue.append(state)
    for state in range(dfa.num_states):  # the least byte among all the shortest ways
        if distance[state] not in (0, NO_COMPLETION):
            toward[state] = min(lo for cls, ranges in enumerate(dfa.classes) for lo, _hi in ranges[:1]
                                if dfa.transitions[state][cls] not in calls
                                and distance[dfa.transitions[state][cls]] == distance[state] - 1)
    return toward, distance


def render(automaton: Dfa | Pushdown, banner: str, prefix: str, start: str, witnesses: Sequence[bytes]) -> str:
    """The mutator's C source."""
    pushdown = isinstance(automaton, Pushdown)
    dfa = automaton.dfa if isinstance(automaton, Pushdown) else automaton
    returns = automaton.returns if isinstance(automaton, Pushdown) else ((),) * dfa.num_states
    calls = frozenset(automaton.calls) if isinstance(automaton, Pushdown) else frozenset()
    ends = frozenset(state for state, ranges in enumerate(returns) if ranges)
    move_at, move_lo, move_hi = _flat([moves(dfa, state, returns[state]) for state in range(dfa.num_states)])
    return_at, return_lo, return_hi = _flat([list(ranges) for ranges in returns])
    toward, distance = completions(dfa, ends, calls)
    callee = [automaton.calls.get(state, 0) for state in range(dfa.num_states)] \
        if isinstance(automaton, Pushdown) else []
    kept = _kept(witnesses)
    witness_at = [0]
    for data in kept:
        witness_at.append(witness_at[-1] + len(data))
    state_type = "uint16_t" if dfa.num_states <= 0xFFFF else "uint32_t"
    return render_template(
        "abnfc.fuzzkit", "mutator.c.j2", banner=banner, prefix=prefix, start=start, states=dfa.num_states,
        classes=dfa.num_classes, start_state=dfa.start, dead=dfa.dead, pushdown=pushdown, state_type=state_type,
        byte_class=_numbers(dfa.byte_class), next=",\n".join("    {" + _numbers(row, 0).strip() + "}"
                                                             for row in dfa.transitions),
        moves_at=_numbers(move_at), move_lo=_numbers(move_lo, hex_bytes=True),
        move_hi=_numbers(move_hi, hex_bytes=True), toward=_numbers(toward, hex_bytes=True),
        distance=_numbers(distance), callee=_numbers(callee), returns_at=_numbers(return_at),
        return_lo=_numbers(return_lo, hex_bytes=True), return_hi=_numbers(return_hi, hex_bytes=True),
        witnesses=len(kept), witness_at=_numbers(witness_at),
        witness_bytes=_numbers([b for data in kept for b in data] or [0], hex_bytes=True))


def _flat(lists: Sequence[Sequence[tuple[int, int]]]) -> tuple[list[int], list[int], list[int]]:
    """Per-state lists of ranges as C tables: offsets (one more than the states), lows, highs
    (one (0, 0) where all are empty, since C has no empty arrays)."""
    offsets = [0]
    for found in lists:
        offsets.append(offsets[-1] + len(found))
    flat = [pair for found in lists for pair in found] or [(0, 0)]
    return offsets, [lo for lo, _hi in flat], [hi for _lo, hi in flat]


def _kept(witnesses: Sequence[bytes]) -> list[bytes]:
    """The witnesses the mutator holds: in the order given, while they fit in
    :data:`MAX_WITNESS_BYTES`."""
    kept, total = [], 0
    for data in witnesses:
        if data and total + len(data) <= MAX_WITNESS_BYTES:
            kept.append(data)
            total += len(data)
    return kept


def _numbers(values: Sequence[int], indent: int = 4, hex_bytes: bool = False) -> str:
    """``values`` as a C initializer list, 16 to a line."""
    words = [f"0x{v:02X}" if hex_bytes else ("0xFFFFFFFFu" if v == NO_COMPLETION else str(v)) for v in values]
    lines = [", ".join(words[i:i + 16]) for i in range(0, len(words), 16)]
    return ",\n".join(" " * indent + line for line in lines)
