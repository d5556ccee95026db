"""The seeded batch of random grammars that the property tests and the C strategy tests build
validators for: fixed grammars for what small random ones rarely reach, then random regular and
linear ones, each with its inputs (samples, mutations, long ASCII runs, random bytes)."""
from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Any

from conftest import compile_text
from grammar_gen import mutations, random_bytes, random_linear_grammar, random_regular_grammar, sample

from abnfc.errors import LimitError
from abnfc.pipeline import Compiled, Limits

LIMITS = Limits(max_nfa_states=3000, max_dfa_states=200, max_work=300_000)
EXAMPLES = int(os.environ.get("ABNFC_PROPERTY_EXAMPLES", "300"))
C_SEED = 5234
C_GRAMMARS = max(10, EXAMPLES * 2 // 3)
# Fixed grammars for what small random ones rarely reach: a 16-bit state table, the ASCII-block
# skip with both C strategies, a DFA whose start state is dead.
C_FIXED = [
    'r = 300"a" *"b"\n',
    'r = *%x00-7F 12( %x80-FF )\n',
    'r = *( %x00-7F / %xC2-DF %x80-BF )\n',
    'r = *( %x00-7F / 4( %x80-FF ) ) "!"\n',
    'r = *OCTET %x61 3( %x61-62 ) %x62\n',
    'r = 0"a"\n',
    'r = 1*63( "ab" ) / 64OCTET\n',
]


@dataclass(frozen=True)
class Batched:
    text: str
    compiled: Compiled
    inputs: tuple[bytes, ...]


def batch_inputs(compiled: Compiled, rng: random.Random) -> list[bytes]:
    inputs = [b""] + [random_bytes(rng, 12) for _ in range(8)]
    for max_repeat in (3, 3, 3, 3, 40, 80):
        data = sample(compiled.resolved, rng, max_repeat=max_repeat)
        if data is not None:  # None: the start rule matches nothing
            inputs += [data, *mutations(data, rng, 2), data * 5]
    inputs += [random_bytes(rng, 200) for _ in range(2)]
    inputs += [bytes(rng.randrange(0x80) for _ in range(rng.randrange(60, 260))) for _ in range(2)]
    ascii_run = b"a" * rng.randrange(60, 200)
    inputs += [ascii_run, ascii_run + b"\x80" + ascii_run, b"\xff" * 70]
    return list(dict.fromkeys(data[:4000] for data in inputs))


def grammar_batch() -> list[Batched]:
    rng = random.Random(C_SEED)
    texts = list(C_FIXED)
    batch: list[Batched] = []
    while len(batch) < C_GRAMMARS + len(C_FIXED):
        writer = random_linear_grammar if len(batch) % 3 == 2 else random_regular_grammar
        text = texts.pop() if texts else writer(rng)
        if len(batch) % 5 == 4 and not texts:
            # A start state that every ASCII byte leads back to: the C skips all-ASCII blocks.
            start = next(line for line in text.splitlines() if not line.startswith(";")).split()[0]
            text = f"wrap = *( %x00-7F / %x80-FF {start} )\n{text}"
        try:
            compiled = compile_text(text, limits=LIMITS)
        except LimitError:
            continue
        batch.append(Batched(text, compiled, tuple(batch_inputs(compiled, rng))))
    return batch


def in_pieces(validator: Any, data: bytes) -> int | None:
    """The first error an incremental validator finds, fed ``data`` in pieces of 1 to 7 bytes."""
    step = 1 + len(data) % 7
    for at in range(0, len(data), step):
        validator.feed(data[at:at + step])
    return validator.first_error()
