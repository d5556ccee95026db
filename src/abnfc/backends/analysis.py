"""Properties of an automaton that make generated code fast, computed from the neutral tables.

Nothing here knows which language the automaton decides; every number comes from the DFA:

- *Pair functions* (for stepping two bytes at a time): the transition function of every pair
  of byte classes, ``s -> next(next(s, c1), c2)``, numbered in first-seen order.  A DFA of at
  most 10 states whose pairs have at most 256 distinct functions gets a pair table.
- *Synchronizing classes* (for splitting a buffer into segments, after Mytkowicz, Musuvathi and
  Schulte, "Data-parallel finite-state machines", ASPLOS 2014): a class after which every live
  state is in one and the same state (or dead).  A segment that starts right after such a byte
  starts in a known state; elsewhere it starts from a guess that is checked afterwards.
- *Self-loop sets* (Hyperscan's acceleration): a state whose self-loop covers many bytes can skip
  a block of such bytes at once.  Each set gets the cheapest exact-or-conservative SIMD test:
  ``high`` when it holds every byte 00-7F (a block with no high bit set stays), else Hyperscan's
  *shufti* (two nibble lookups; at most 8 distinct nibble rows) or *truffle* (any set).
- *Accelerated states*: self-loop states that few bytes leave for another live state; the byte
  loop finds the end of their runs with SIMD at any position, not only at block starts.
- *Longest life*: when no cycle passes through live states the language is finite, and every
  input reaches the dead state (or its end) within the longest path from the start; none of the
  above can pay off then, and a plain loop is the whole validator.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import graph
from ..charset import Ranges, normalize
from ..errors import AbnfError, InvariantError
from ..i18n import _
from .tables import Tables

MAX_PAIR_STATES = 10  # the pair rows are shift-DFA rows: 6 bits per state in 64 bits
STRATEGIES = ("auto", "pairs", "shift", "table")  # what the C, Rust and Go backends choose from
MAX_PAIR_FUNCTIONS = 256  # pair numbers are bytes
MIN_SKIP_BYTES = 16  # a smaller self-loop rarely covers a whole block
MAX_SKIP_SETS = 8
MAX_ACCEL_ESCAPE = 8  # bytes that leave an accelerated state for another live state
SHUFTI_BUCKETS = 8


@dataclass(frozen=True)
class Pairs:
    rows: tuple[tuple[int, ...], ...]  # per pair function: the state reached from each state
    of_classes: tuple[tuple[int, ...], ...]  # [first class][second class] -> pair function


@dataclass(frozen=True)
class SkipSet:
    """A state's self-loop set with the SIMD test that checks a block against it."""

    state: int
    ranges: Ranges
    kind: str  # "high", "shufti" or "truffle"
    low: tuple[int, ...]  # 16 entries: shufti's low-nibble masks, truffle's table for 00-7F
    high: tuple[int, ...]  # 16 entries: shufti's high-nibble masks, truffle's table for 80-FF
    accelerated: bool  # few bytes leave it: runs are sought at every position


@dataclass(frozen=True)
class Speed:
    pairs: Pairs | None
    sync: tuple[int | None, ...]  # per class: the state every live state reaches, if one
    guess: int  # the state a segment starts in when no synchronizing byte is near
    skip_sets: tuple[SkipSet, ...]
    life: int | None  # the most bytes an input stays alive, when the language is finite


def analyse(tables: Tables) -> Speed:
    return Speed(pair_functions(tables), sync_targets(tables), default_guess(tables), skip_sets(tables),
                 longest_life(tables))


def _live(tables: Tables) -> list[int]:
    return [s.index for s in tables.states if s.index != tables.dead]


def longest_life(tables: Tables) -> int | None:
    """The most bytes an input can take from the start without reaching the dead state, or None
    when that is unbounded (a live state lies on a cycle).  Longest paths in the DAG of live
    states, taken in topological order (Kahn's algorithm, no recursion for long chains)."""
    edges = {s: sorted({t for t in tables.states[s].targets if t != tables.dead}) for s in _live(tables)}
    if graph.cyclic_nodes(edges):
        return None
    waiting = {s: 0 for s in edges}
    for targets in edges.values():
        for t in targets:
            waiting[t] += 1
    ready = [s for s, count in waiting.items() if count == 0]
    longest = {s: 0 for s in edges}
    while ready:
        state = ready.pop()
        for t in edges[state]:
            longest[t] = max(longest[t], longest[state] + 1)
            waiting[t] -= 1
            if waiting[t] == 0:
                ready.append(t)
    return max(longest.values(), default=0)  # every state is reachable: the start is the one source


def pair_functions(tables: Tables, max_states: int = MAX_PAIR_STATES,
                   max_functions: int = MAX_PAIR_FUNCTIONS) -> Pairs | None:
    """The transition functions of byte-class pairs, numbered in first-seen order, and each class
    pair's function; None past ``max_states`` states or ``max_functions`` functions (the C, Go and
    Rust shift DFAs take at most 10 states, Rust's two-byte table 256, the Python module's any)."""
    if tables.num_states > max_states:
        return None
    numbers: dict[tuple[int, ...], int] = {}
    of_classes = []
    for first in range(tables.num_classes):
        row = []
        for second in range(tables.num_classes):
            function = tuple(tables.states[s.targets[first]].targets[second] for s in tables.states)
            if function not in numbers:
                if len(numbers) == max_functions:
                    return None
                numbers[function] = len(numbers)
            row.append(numbers[function])
        of_classes.append(tuple(row))
    return Pairs(tuple(numbers), tuple(of_classes))


def sync_targets(tables: Tables) -> tuple[int | None, ...]:
    """Per class, the one live state every live state goes to, if there is one.  A class that
    kills every state synchronizes too: whatever follows it, the error comes first."""
    live = _live(tables)
    guess = default_guess(tables)
    out: list[int | None] = []
    for cls in range(tables.num_classes):
        targets = {tables.states[s].targets[cls] for s in live} - {tables.dead}
        out.append(targets.pop() if len(targets) == 1 else guess if not targets else None)
    return tuple(out)


def default_guess(tables: Tables) -> int:
    """The live state with the largest self-loop (the one long inputs dwell in), else the start."""
    looping = [(-_size(s.self_loop), s.index) for s in tables.states if s.index != tables.dead and s.self_loop]
    return min(looping)[1] if looping else tables.start


def _size(ranges: Ranges) -> int:
    return sum(hi - lo + 1 for lo, hi in ranges)


def skip_sets(tables: Tables) -> tuple[SkipSet, ...]:
    candidates = sorted((s for s in tables.states if s.index != tables.dead and _size(s.self_loop) >= MIN_SKIP_BYTES),
                        key=lambda s: (-_size(s.self_loop), s.index))[:MAX_SKIP_SETS]
    return tuple(_skip_set(tables, s.index, s.self_loop) for s in sorted(candidates, key=lambda s: s.index))


def _skip_set(tables: Tables, state: int, ranges: Ranges) -> SkipSet:
    escape = normalize(r for cls, target in enumerate(tables.states[state].targets)
                       if target not in (state, tables.dead) for r in tables.classes[cls])
    accelerated = _size(escape) <= MAX_ACCEL_ESCAPE
    members = {b for lo, hi in ranges for b in range(lo, hi + 1)}
    if set(range(0x80)) <= members:
        return SkipSet(state, ranges, "high", (0,) * 16, (0,) * 16, accelerated)
    shufti = _shufti(members)
    if shufti is not None:
        return SkipSet(state, ranges, "shufti", *shufti, accelerated)
    return SkipSet(state, ranges, "truffle", *_truffle(members), accelerated)


def _shufti(members: set[int]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Masks with ``x in members`` iff ``low[x & 15] & high[x >> 4] != 0``: one bucket (bit) per
    distinct row of low nibbles, so at most 8 distinct rows."""
    rows = [sum(1 << low for low in range(16) if (high << 4 | low) in members) for high in range(16)]
    buckets = sorted({row for row in rows if row})
    if len(buckets) > SHUFTI_BUCKETS:
        return None
    low_masks = tuple(sum(1 << b for b, row in enumerate(buckets) if row >> low & 1) for low in range(16))
    high_masks = tuple(1 << buckets.index(row) if row else 0 for row in rows)
    return low_masks, high_masks


def _truffle(members: set[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Tables with ``x in members`` iff bit ``(x >> 4) & 7`` of ``(low if x < 0x80 else
    high)[x & 15]`` is set: any set of bytes."""
    low = tuple(sum(1 << h for h in range(8) if (h << 4 | n) in members) for n in range(16))
    high = tuple(sum(1 << (h - 8) for h in range(8, 16) if (h << 4 | n) in members) for n in range(16))
    return low, high


def choose_strategy(tables: Tables, speed: Speed, wanted: str, language: str, option: str) -> str:
    """The strategy ``wanted`` (``auto``: pairs, else shift, else table, the first that fits), or
    an AbnfError that names the backend's ``language`` and its ``option`` (``--c-strategy``)."""
    if wanted not in STRATEGIES:
        raise AbnfError.at(None, _("unknown {language} strategy {wanted!r}; choose from {names}").format(
            language=language, wanted=wanted, names=", ".join(STRATEGIES)))
    fits = tables.num_states <= MAX_PAIR_STATES
    if wanted in ("shift", "pairs") and not fits:
        raise AbnfError.at(None, _("the {strategy} strategy holds at most {limit} states, and this DFA has "
                                   "{count}; use {option} table or auto").format(
                                       strategy=wanted, limit=MAX_PAIR_STATES, count=tables.num_states,
                                       option=option))
    if wanted == "pairs" and speed.pairs is None:
        raise AbnfError.at(None, _("the pairs strategy needs at most 256 distinct transition functions "
                                   "of byte pairs; use {option} shift, table or auto").format(option=option))
    if wanted == "auto":
        return "pairs" if speed.pairs is not None else "shift" if fits else "table"
    return wanted


def plan_strategy(tables: Tables, speed: Speed, wanted: str, language: str, option: str) -> tuple[str, bool]:
    """(the strategy, whether the loop is plain): as :func:`choose_strategy`, except that under
    ``auto`` a finite language gets the plain byte loop of ``shift`` (or ``table`` past 10 states),
    since every input stops within a few bytes and nothing would pay off."""
    strategy = choose_strategy(tables, speed, wanted, language, option)
    plain = wanted == "auto" and speed.life is not None
    if plain:
        strategy = "shift" if tables.num_states <= MAX_PAIR_STATES else "table"
    return strategy, plain


def check_pushdown_strategy(wanted: str, language: str, option: str) -> None:
    """A pushdown validator has one loop: ``auto`` or ``table``, else an AbnfError."""
    if wanted not in ("auto", "table"):
        raise AbnfError.at(None, _("the grammar is recursive: its {language} validator is a pushdown validator, "
                                   "with one strategy; use {option} auto or table, not {wanted!r}").format(
                                       language=language, option=option, wanted=wanted))


def check_pushdown_layout(tables: Tables) -> None:
    """What the generated pushdown loops rely on to index their tables in bounds: call states are
    the highest states and return on no byte (so popping one never reads RETURN), every entry is
    a plain state, and the dead state is 0 (so ``t - 1`` wraps it to the top)."""
    found = tables.pushdown
    check = InvariantError.check
    check(found is not None, "the pushdown plan was asked for the tables of a DFA")
    assert found is not None
    check(tables.dead == 0, "a pushdown validator's dead state is not 0")
    check(0 < found.first_call <= tables.num_states, "call states are out of range")
    check(len(found.entries) == tables.num_states - found.first_call, "a call state has no entry")
    check(all(0 < e < found.first_call for e in found.entries), "a nested part starts in a call state")
    check(all(not found.returns[k] for k in range(found.first_call, tables.num_states)), "a call state returns")
    check(found.return_code >= tables.num_states, "RETURN is a state")
