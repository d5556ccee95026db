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
are not finite.  Measured (bench/bench_sheng.py, RFC 3339 timestamps one a line, 29 states, the
table strategy with four segments): see :data:`CHUNKS` and :data:`MIN_LENGTH`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..tables import Tables
from .literals import ByteLine, byte_lines, chunks, hex_cells

MAX_STATES = 64  # a state is a vpermb index
SSSE3_STATES = 16  # a state is a pshufb index
CHUNKS = 4  # default chunks side by side (measured: see bench/bench_sheng.py)
MAX_CHUNKS = 8
MIN_LENGTH = 512  # shorter inputs: the strategy's loop, which needs no table set up per call


@dataclass(frozen=True)
class ShengC:
    lanes: int  # 16 (SSSE3 pshufb) or 64 (AVX-512 VBMI vpermb)
    classes: tuple[ByteLine, ...]  # the class of each byte
    rows: tuple[tuple[str, ...], ...]  # per class: the next state of each lane, lines of 16 cells
    accepting: str  # per lane: 1 when it is an accepting state
    identity: str  # lane s holds s
    start: int
    dead: int
    chunks: int  # default chunks side by side
    chunk_list: tuple[int, ...]  # 0 .. MAX_CHUNKS - 1
    min_length: int


def plan_sheng(tables: Tables) -> ShengC | None:
    """The Sheng tables of an automaton of at most 64 states, else None."""
    if tables.num_states > MAX_STATES:
        return None
    lanes = SSSE3_STATES if tables.num_states <= SSSE3_STATES else MAX_STATES
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
        chunks=CHUNKS,
        chunk_list=tuple(range(MAX_CHUNKS)),
        min_length=MIN_LENGTH,
    )
