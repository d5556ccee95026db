"""Sheng as C: the tables of a shuffle-based DFA loop for is_valid, for automata of at most 64
states that have no window test.

Sheng is Hyperscan's shuffle DFA (Geoff Langdale's design; Wang et al., "Hyperscan: a fast
multi-pattern regex matcher for modern CPUs", NSDI 2019): the states are the lanes of a vector,
and each byte's transition function is a vector of next states, so a step is one shuffle
(``pshufb`` over 16 lanes with SSSE3, ``vpermb`` over 64 with AVX-512 VBMI) whose latency, one
to two cycles, is the loop's whole chain, where the table loop waits for a load each byte.

Started from the identity vector (lane s holds s), the vector after some bytes maps every start
state to its end state, so the input runs as several chunks side by side, each from every state
at once, and the chunks' maps are composed at the end (Mytkowicz, Musuvathi and Schulte,
"Data-parallel finite-state machines", ASPLOS 2014): no guess, no re-run, and the chunks' chains
overlap.  A chunk whose every lane is dead, or the first chunk's start lane, ends the run early.

Only ``is_valid`` takes this path (first_error and streams keep the strategy's loop, which finds
the byte), on inputs of at least :data:`MIN_LENGTH` bytes where the CPU has the instructions.
Emitted under ``--c-strategy auto`` for regular grammars that are not given a window test and
are not finite; what was measured is at :data:`CHUNKS`.  It is on by default only where the
strategy's loop skips no runs: a state that keeps to a set of bytes is skipped 64 bytes at a time,
and in accelerated states to the end of the run, which Sheng steps byte by byte (HTTP field values
with quoted strings of 200 to 3,000 bytes: the loop 24 GB/s, Sheng 4.1); there ``P_SHENG`` turns
it on.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..tables import Tables
from .literals import ByteLine, byte_lines, chunks, hex_cells

MAX_STATES = 64  # a state is a vpermb index
# A state is a pshufb index (16 lanes), or a vpermb index over 32 lanes (AVX-512 VL) or 64: the
# fewest lanes that hold the states.  vpermb over 32 lanes ran 1.4x as fast as over 64 (RFC 3339
# lines, 29 states, 4 chunks: 3.5 against 2.5 GB/s) and needs half the table.
LANES = (16, 32, 64)
MAX_CHUNKS = 8
# Per number of lanes, measured (bench/bench_sheng.py, 1 MiB, and the same cut into pieces of about
# N bytes, against the strategy's loop): chunks side by side, and the shortest input to take it.
#  - 32 lanes (RFC 3339 lines, table strategy): 8 chunks 4.6 GB/s, 1.7x its loop of four segments
#    and 6.4x that loop in one piece (4 chunks: 5.1x); 0.95x at 128 bytes, 1.04x at 256 (8 chunks),
#    2.9x at 512;
#  - 64 lanes (the same, held in 64 lanes, --lanes 64): 4 chunks 2.9 GB/s (8: 3.0), 4.1x the loop
#    in one piece, 1.1x its four segments; 0.67x at 128 bytes, 1.38x at 256, 1.8x at 512;
#  - 16 lanes (HTTP list field values, pairs strategy, 3.3 GB/s): 4 chunks 4.1 GB/s, 1.2x; below
#    its loop up to 1 KiB (0.93x), 1.1x at 4 KiB.
#  - 12 chunks were no faster than 8, 16 slower (the vectors no longer fit in registers).
CHUNKS = {16: 4, 32: 8, 64: 4}
MIN_LENGTH = {16: 4096, 32: 512, 64: 512}

@dataclass(frozen=True)
class ShengC:
    lanes: int  # 16 (SSSE3 pshufb), 32 or 64 (AVX-512 VBMI vpermb)
    classes: tuple[ByteLine, ...]  # the class of each byte
    rows: tuple[tuple[str, ...], ...]  # per class: the next state of each lane, lines of 16 cells
    accepting: str  # per lane: 1 when it is an accepting state
    identity: str  # lane s holds s
    start: int
    dead: int
    chunks: int  # default chunks side by side
    chunk_list: tuple[int, ...]  # 0 .. MAX_CHUNKS - 1
    min_length: int
    default_on: bool  # else only with P_SHENG defined


def plan_sheng(tables: Tables, skips: bool) -> ShengC | None:
    """The Sheng tables of an automaton of at most 64 states, else None; on by default unless the
    strategy's loop skips runs of bytes that keep a state (``skips``)."""
    if tables.num_states > MAX_STATES:
        return None
    lanes = next(n for n in LANES if tables.num_states <= n)
    # lanes past the last state start dead in every chunk but the first, whose start lane is real
    rows = tuple(chunks([f"0x{s.targets[cls]:02X}" for s in tables.states]
                        + [f"0x{tables.dead:02X}"] * (lanes - tables.num_states), 16)
                 for cls in range(tables.num_classes))
    return ShengC(
        lanes=lanes,
        classes=byte_lines([str(c) for c in tables.byte_class]),
        rows=rows,
        accepting=", ".join("1" if s.accepting else "0" for s in tables.states)
        + ", 0" * (lanes - tables.num_states),
        identity=hex_cells(list(range(lanes))),
        start=tables.start,
        dead=tables.dead,
        chunks=CHUNKS[lanes],
        chunk_list=tuple(range(MAX_CHUNKS)),
        min_length=MIN_LENGTH[lanes],
        default_on=not skips,
    )
