"""The tables of the C mutator (``templates/mutator.c.j2``), from a grammar's minimal DFA.

Three tables beside the DFA's own (byte classes, transitions, accepting states):

- the *moves* of each state: every byte range the state takes to a live state, and the byte
  just outside such a range where the state refuses it.  The mutator writes a range's boundary
  bytes three times in four: they are where implementations of a range go wrong (the boundary-value
  analysis of Myers, "The Art of Software Testing", 1979, ch. 4), and the bytes just outside are
  the near misses a grammar-aware fuzzer should try; otherwise any byte of the range,
  since an implementation may treat bytes apart that the grammar does not (a leap second 60
  among the DIGITs).
- the shortest *completion* of each state: one byte towards an accepting state and the steps
  left, from a breadth-first search backwards from the accepting states.

The mutator's edits that keep the DFA's state sequence (a class move to a byte with the same
next state, repeating or dropping a loop of the run, splicing at a common state, completing)
keep a valid input valid; the C file says which edit does what.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from ..automata.dfa import Dfa
from ..backends.templating import render_template

NO_COMPLETION = 0xFFFFFFFF


def moves(dfa: Dfa, state: int) -> list[tuple[int, int]]:
    """The byte ranges a class move may write from in ``state``, in byte order: each range the
    state takes to a live state, and each byte just outside one that the state refuses."""
    row, dead, byte_class = dfa.transitions[state], dfa.dead, dfa.byte_class
    found: set[tuple[int, int]] = set()
    for cls, ranges in enumerate(dfa.classes):
        if row[cls] == dead:
            continue
        for lo, hi in ranges:
            found.add((lo, hi))
            found |= {(b, b) for b in (lo - 1, hi + 1) if 0 <= b <= 0xFF and row[byte_class[b]] == dead}
    return sorted(found)


def completions(dfa: Dfa) -> tuple[list[int], list[int]]:
    """``(toward, distance)``: for each state, the least byte one step nearer to an accepting
    state and the length of its shortest completion (:data:`NO_COMPLETION` where there is none)."""
    distance = [NO_COMPLETION] * dfa.num_states
    toward = [0] * dfa.num_states
    incoming: list[list[tuple[int, int]]] = [[] for _ in range(dfa.num_states)]
    for state, row in enumerate(dfa.transitions):
        for cls, target in enumerate(row):
            incoming[target].append((state, min(lo for lo, _hi in dfa.classes[cls])))
    queue = deque(sorted(dfa.accepting))
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
                                if distance[dfa.transitions[state][cls]] == distance[state] - 1)
    return toward, distance


def render(dfa: Dfa, banner: str, prefix: str, start: str) -> str:
    """The mutator's C source."""
    move_lists = [moves(dfa, state) for state in range(dfa.num_states)]
    offsets = [0]
    for found in move_lists:
        offsets.append(offsets[-1] + len(found))
    toward, distance = completions(dfa)
    flat = [move for found in move_lists for move in found] or [(0, 0)]
    return render_template(
        "abnfc.fuzzkit", "mutator.c.j2", banner=banner, prefix=prefix, start=start, states=dfa.num_states,
        classes=dfa.num_classes, start_state=dfa.start, dead=dfa.dead,
        state_type="uint16_t" if dfa.num_states <= 0xFFFF else "uint32_t",
        byte_class=_numbers(dfa.byte_class), next=",\n".join("    {" + _numbers(row, 0).strip() + "}"
                                                             for row in dfa.transitions),
        moves_at=_numbers(offsets), move_lo=_numbers([lo for lo, _hi in flat], hex_bytes=True),
        move_hi=_numbers([hi for _lo, hi in flat], hex_bytes=True), toward=_numbers(toward, hex_bytes=True),
        distance=_numbers(distance))


def _numbers(values: Sequence[int], indent: int = 4, hex_bytes: bool = False) -> str:
    """``values`` as a C initializer list, 16 to a line."""
    words = [f"0x{v:02X}" if hex_bytes else ("0xFFFFFFFFu" if v == NO_COMPLETION else str(v)) for v in values]
    lines = [", ".join(words[i:i + 16]) for i in range(0, len(words), 16)]
    return ",\n".join(" " * indent + line for line in lines)
