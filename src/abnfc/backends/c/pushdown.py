"""Neutral tables of a pushdown validator -> the C plan of its stack machine.

A self-embedding grammar (``Tables.pushdown``) gets one loop, not the strategies of
:mod:`.plan`: every byte is one load from a byte-indexed table (no byte class map stands between
the byte and the load), and one unsigned comparison tells the common case (a plain step) from
the three rare ones, which share one unlikely branch:

- the dead state 0 (``t - 1`` wraps around to the largest value),
- a call state (``t >= FIRST_CALL``): push it and go on in the start of its nested part,
- ``RETURN`` (the number of states, higher than any state): the byte closes a nested part; pop
  the call state and read the byte from it, as :meth:`abnfc.automata.pushdown.Pushdown.run` does.

The stack holds call states in the narrowest type that fits them.  It starts in a small array
inside the stream struct (on the C stack for the one-shot functions) and grows on the heap by
doubling, up to the caller's depth limit, so memory follows the nesting depth of the input only.
Segments side by side and block skipping (the regular strategies' speed-ups) need to know the
state at a segment's start, which a stack makes unknowable, so none of them applies here.

The table is byte-major (``next[byte * NUM_STATES + state]``): the column of a byte is found
while the previous load is still under way, so the chain from one state to the next is one
load and nothing else (row-major ``next[state * 256 + byte]`` puts a shift and an or before it).
The loop's step is written as "take the next byte; go on while it leads back to the same state":
while the state stays (the unescaped bytes of a JSON string, digits, indentation), the next
load's address needs only the position, so the processor overlaps the loads on the predicted
branch instead of waiting for each.  Measured on 16 MiB of JSON (gcc and clang, -O2 and -O3,
best of several runs on one machine): row-major 0.45-0.7 GB/s, byte-major 0.67-0.85, and this
loop 0.93-1.02; an inner loop only for states with large self-loops (a per-state flag) gained
nothing over byte-major alone.

All C syntax is decided here; the templates only place it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...automata.lexical import MAX_NIBBLE_BITS, nibble_rectangles
from ...charset import format_hex, from_bytes, members
from ...errors import printable
from ..analysis import check_pushdown_layout, check_pushdown_strategy
from ..tables import Tables
from .bigrams import BigramsC, lower_bigrams
from .literals import chunks, comment_safe, uint_type
from .plan import Comments, CPlan, comments, expected_tables, lower

INLINE_DEPTH = 64  # stack entries inside the stream struct before the heap is used
CHUNK = 4096  # bytes per pass of the two-stage is_valid's stage 1 (its masks stay in the L1 cache)
CELLS_PER_LINE = 32  # of a table row of 256

__all__ = ["CPushdownPlan", "lower_any", "lower_pushdown"]


@dataclass(frozen=True)
class ByteRow:
    """One byte's next state from each state, as C text."""

    note: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class PartC:
    """A machine of the pushdown validator, for comments."""

    name: str
    first: int
    last: int
    start: int
    returns: str  # the bytes that end it, or "" for the start rule's machine


@dataclass(frozen=True)
class CPushdownPlan:
    """Every decision about a pushdown validator's C."""

    prefix: str
    macro: str
    comments: Comments
    num_states: int
    num_classes: int
    start_state: int
    dead_state: int
    first_call: int
    calls: bool  # some state is a call state (a nested part that can never close may leave none)
    # Whether every step is a rare one: a grammar whose language is empty has only the dead state
    # (first_call is 1), and the one-comparison test would compare an unsigned value with >= 0.
    all_rare: bool
    return_code: int
    max_depth: int  # the default depth limit
    inline_depth: int  # stack entries in the stream struct
    next_type: str  # a table entry: a state number or RETURN
    call_type: str  # a stack entry: a call state
    next_rows: tuple[ByteRow, ...]
    entries: str  # per call state, the start of its nested part
    accepting_cells: tuple[str, ...]
    accepting_list: str
    parts: tuple[PartC, ...]
    initial_status: str  # the stream's status and error before any input
    initial_error: str
    expect_lo: str
    expect_hi: str
    expect_first: str
    max_ranges: int
    private_macros: tuple[str, ...]
    stage1: Stage1C | None = None  # the two-stage is_valid, where the grammar has a lexical layer


@dataclass(frozen=True)
class Stage1C:
    """The tables of the two-stage ``is_valid`` (:mod:`abnfc.automata.lexical`): two pairs of
    nibble tables whose AND has bit i set where a byte is in rectangle i (one pair for the skip
    classes, one for whitespace, structural, quote and escape bytes), the rectangle bits of each,
    and per state its skip class (0 for none, else the class's number)."""

    num_skips: int
    nibble_lo: str
    nibble_hi: str
    skip_bits: str
    lex_lo: str
    lex_hi: str
    ws_bits: str
    op_bits: str
    quote_bits: str
    escape_bits: str
    string_skip: int  # the skip class (from 0) of the states a string starts in, -1 for none
    utf8: bool  # stage 1 checks UTF-8 and lets non-ASCII bytes of strings pass (the SIMD ones)
    utf8_skip: int  # then the skip class that loops on them
    chunk: int
    skip_class_cells: tuple[str, ...]  # per state, its class's number times the words per class
    notes: tuple[str, ...]  # per skip class: its bytes, for comments
    quote: str
    escape: str
    whitespace: str
    structural: str
    chains: Chains | None = None  # the states that must read a fixed word next, where there are any
    through: tuple[str, ...] | None = None  # per state, its state after a whole string (see _through)
    # Per state, the byte that must follow its whole string (256: none) and the state after it
    # (see _separators_after_strings); None where no state has one.
    after_string_bytes: tuple[str, ...] | None = None
    after_string_states: tuple[str, ...] | None = None
    silent: str = ""  # the separators stage 1 does not mark, for comments
    # Escape sequences stage 1 takes out of the strings' stops (see _escape_sequences): nibble
    # tables with a bit per rectangle of each byte set, each set's bits, and per sequence the
    # sets of its bytes after the escape, in order (numbers into escape_set_bits).
    escape_lo: str = ""
    escape_hi: str = ""
    escape_set_bits: tuple[str, ...] = ()
    escape_sequences: tuple[tuple[int, ...], ...] = ()
    escape_runs: tuple[str, ...] = ()  # C statements: the masks of runs of one set (see _escape_code)
    escape_takes: tuple[str, ...] = ()  # per sequence, a C statement adding its bytes to `taken`
    escape_notes: tuple[str, ...] = ()  # per sequence, its bytes after the escape, for comments
    bigrams: BigramsC | None = None  # is_valid without a walk (see .bigrams), where the grammar allows


@dataclass(frozen=True)
class Chains:
    """Per state, the fixed word it must read next (a literal's letters) as C cells: its length
    (0: none), its bytes padded to 8, and the state after it."""

    lengths: tuple[str, ...]
    texts: tuple[str, ...]
    ends: tuple[str, ...]


def lower_any(tables: Tables, options: Mapping[str, str]) -> CPlan | CPushdownPlan:
    """The backend's ``lower``: a pushdown validator's plan, or a DFA's (:func:`.plan.lower`)."""
    return lower(tables, options) if tables.pushdown is None else lower_pushdown(tables, options)


def lower_pushdown(tables: Tables, options: Mapping[str, str]) -> CPushdownPlan:
    check_pushdown_layout(tables)
    found = tables.pushdown
    assert found is not None
    check_pushdown_strategy(options.get("strategy", "auto"), "C", "--c-strategy")
    prefix, macro = options["prefix"], options["prefix"].upper()
    lo, hi, first = expected_tables(tables)
    return CPushdownPlan(
        prefix=prefix,
        macro=macro,
        comments=comments(tables),
        num_states=tables.num_states,
        num_classes=tables.num_classes,
        start_state=tables.start,
        dead_state=tables.dead,
        first_call=found.first_call,
        calls=found.first_call < tables.num_states,
        all_rare=found.first_call == 1,
        return_code=found.return_code,
        max_depth=found.max_depth,
        inline_depth=INLINE_DEPTH,
        next_type=uint_type(found.return_code),
        call_type=uint_type(tables.num_states - 1),
        next_rows=_columns(tables),
        entries=", ".join(str(e) for e in found.entries),
        accepting_cells=chunks(["1" if s.accepting else "0" for s in tables.states], 32),
        accepting_list=", ".join(str(s) for s in tables.accepting) or "none",
        parts=tuple(PartC(comment_safe(printable(p.name)), p.first, p.end - 1, p.start,
                          comment_safe(format_hex(p.returns))) for p in found.parts),
        # An automaton that starts dead matches nothing, not even the empty input: error at 0.
        initial_status=f"{macro}_INVALID" if tables.start == tables.dead else f"{macro}_VALID",
        initial_error="0" if tables.start == tables.dead else "SIZE_MAX",
        expect_lo=", ".join(lo) or "0",
        expect_hi=", ".join(hi) or "0",
        expect_first=", ".join(first),
        max_ranges=max((len(s.expects) for s in tables.states), default=0),
        private_macros=tuple(f"{macro}_{name}" for name in _PRIVATE),
        stage1=_stage1(tables),
    )


def _stage1(tables: Tables) -> Stage1C | None:
    """The two-stage tables, or None where the grammar has no lexical layer or its lexical bytes
    take more rectangles than a table entry has bits."""
    found = tables.pushdown
    assert found is not None
    layer = found.layer
    if layer is None:
        return None
    strings = layer.strings
    skip_class = [0] * tables.num_states
    for number, skip in enumerate(layer.skip_classes, start=1):
        for state in skip.states:
            skip_class[state] = number
    entries = {tables.states[s].targets[tables.byte_class[strings.quote]] for s in range(tables.num_states)}
    string_classes = {skip_class[s] for s in entries & strings.states}
    string_skip = next(iter(string_classes)) - 1 if len(string_classes) == 1 else -1
    through = _through(tables, skip_class, string_skip + 1)
    in_strings = set(members(layer.skip_classes[string_skip].loops)) if string_skip >= 0 else set()
    fixed, silent = _separators_after_strings(tables, through, set(members(layer.separators)) & in_strings)
    # A silent byte ends a token as whitespace does and, like it, is not visited.
    groups = [sorted({*members(layer.whitespace), *silent}), sorted(set(members(layer.structural)) - silent),
              [strings.quote], [] if strings.escape is None else [strings.escape]]
    lex_lo, lex_hi, lex_bits = _nibble_tables([nibble_rectangles(group) for group in groups])
    if lex_bits is None and silent:  # no room for the silent bytes among whitespace's rectangles
        fixed, silent = None, set()
        groups = [members(layer.whitespace), members(layer.structural), groups[2], groups[3]]
        lex_lo, lex_hi, lex_bits = _nibble_tables([nibble_rectangles(group) for group in groups])
    if lex_bits is None:
        return None
    skip_lo, skip_hi, skip_bits = _nibble_tables([skip.rectangles for skip in layer.skip_classes])
    assert skip_bits is not None  # the layer takes classes while their rectangles fit
    escape = strings.escape
    all_sequences, every_escape = _escape_sequences(tables, skip_class, string_skip + 1, escape)
    sets, sequences, (escape_lo, escape_hi, escape_bits) = _escape_tables(all_sequences)
    utf8 = layer.utf8_skip >= 0 and layer.utf8_skip == string_skip
    escape_runs, escape_takes = _escape_code(sequences)
    return Stage1C(
        num_skips=len(layer.skip_classes),
        nibble_lo=_hex_cells(skip_lo), nibble_hi=_hex_cells(skip_hi), skip_bits=_hex_cells(skip_bits),
        lex_lo=_hex_cells(lex_lo), lex_hi=_hex_cells(lex_hi),
        ws_bits=f"0x{lex_bits[0]:02X}", op_bits=f"0x{lex_bits[1]:02X}", quote_bits=f"0x{lex_bits[2]:02X}",
        escape_bits=f"0x{lex_bits[3]:02X}", string_skip=string_skip, chunk=CHUNK,
        utf8=utf8, utf8_skip=layer.utf8_skip,
        skip_class_cells=chunks([str(k * _stride()) for k in skip_class], 32),
        notes=tuple(comment_safe(format_hex(skip.loops)) for skip in layer.skip_classes),
        quote=f"{strings.quote:02X}",
        escape="none" if escape is None else f"{escape:02X}",
        whitespace=comment_safe(format_hex(layer.whitespace)) or "none",
        structural=comment_safe(format_hex(layer.structural)),
        chains=_chains(tables),
        through=None if through is None else chunks([str(after) for after in through], 32),
        after_string_bytes=None if fixed is None else chunks([str(byte) for byte, _ in fixed], 32),
        after_string_states=None if fixed is None else chunks([str(after) for _, after in fixed], 32),
        silent=comment_safe(format_hex(from_bytes(silent))),
        escape_lo=_hex_cells(escape_lo), escape_hi=_hex_cells(escape_hi),
        escape_set_bits=tuple(f"0x{bits:02X}" for bits in escape_bits),
        escape_sequences=sequences,
        escape_runs=escape_runs, escape_takes=escape_takes,
        escape_notes=tuple(" ".join(comment_safe(format_hex(from_bytes(sets[k]))) or "none" for k in sequence)
                           for sequence in sequences),
        bigrams=lower_bigrams(found.bigrams, utf8, sets, sequences)
        if every_escape and len(sequences) == len(all_sequences) else None,
    )


def _plain(tables: Tables, returning: list[set[int]], state: int, byte: int) -> int:
    """The state after `byte` in `state` where that is a plain step (no call, no return), else the
    dead state."""
    found = tables.pushdown
    assert found is not None
    if state == tables.dead or state >= found.first_call or byte in returning[state]:
        return tables.dead
    target = tables.states[state].targets[tables.byte_class[byte]]
    return tables.dead if target >= found.first_call else target


def _through(tables: Tables, skip_class: list[int], string_class: int) -> list[int] | None:
    """Per state, its state after a whole string (the dead state where it has none): the quote
    leads by a plain step to a state of the strings' skip class, which loops on every byte but
    its stops, and a quote read there leads by a plain step to another state.  Stage 2 takes such
    a string in one step where the first stop after its opening quote is a quote: the byte loop
    would read the quote, loop on the bytes between, then read the closing quote, and reach the
    same state.  None where no state has one (or strings have no skip class)."""
    found = tables.pushdown
    assert found is not None
    if string_class == 0:
        return None
    quote = found.layer.strings.quote if found.layer is not None else -1
    returning = [set(members(ranges)) for ranges in found.returns]
    through = []
    for state in range(tables.num_states):
        inside = _plain(tables, returning, state, quote)
        after = _plain(tables, returning, inside, quote) \
            if inside != tables.dead and skip_class[inside] == string_class else tables.dead
        through.append(after if after != inside else tables.dead)
    if all(after == tables.dead for after in through):
        return None
    return through


MAX_ESCAPE_LENGTH = 8  # bytes after an escape that stage 1 matches as one sequence
MAX_ESCAPE_PATHS = 64  # partial sequences searched before the search gives up


def _escape_sequences(tables: Tables, skip_class: list[int], string_class: int,
                      escape: int | None) -> tuple[list[tuple[frozenset[int], ...]], bool]:
    """The escape sequences that lead every state of the strings' skip class back to itself:
    per sequence, the byte sets read after the escape, in order, each set leading every state on
    the way to one state, all by plain steps (no call, no return).

    Stage 1 takes such a sequence out of the strings' stops where its escape is an escaping one
    (the scan's odd run) and its bytes are in one block, so that a string holding only these
    escapes is still taken in one step.  Stage 2 passes over the bytes only in a state of the
    class, reading from the escape on, which the byte loop would bring back to the same state.
    No set but a one-byte sequence's may hold the escape: the scan would take it for the start
    of another run, and sequences must not overlap.

    The flag says whether these are every escape the strings read: no path was cut short, and
    every byte after an escape leads all of the class's states on or none.  The token-bigram
    path (which has no walk to fall back on) needs that."""
    found = tables.pushdown
    assert found is not None
    if string_class == 0 or escape is None:
        return [], escape is None
    states = tuple(s for s in range(tables.num_states) if skip_class[s] == string_class)
    returning = [set(members(ranges)) for ranges in found.returns]
    first = tuple(_plain(tables, returning, s, escape) for s in states)
    if tables.dead in first:
        return [], False
    sequences: list[tuple[frozenset[int], ...]] = []
    complete = True
    todo: list[tuple[tuple[int, ...], tuple[frozenset[int], ...]]] = [(first, ())]
    searched = 0
    while todo and searched < MAX_ESCAPE_PATHS:
        current, path = todo.pop(0)
        searched += 1
        by_target: dict[tuple[int, ...], set[int]] = {}
        for byte in range(256):
            after = tuple(_plain(tables, returning, s, byte) for s in current)
            if tables.dead not in after:
                by_target.setdefault(after, set()).add(byte)
            elif any(target != tables.dead for target in after):
                complete = False
        for after, byte_set in sorted(by_target.items()):
            longer = (*path, frozenset(byte_set))
            if after == states:
                if len(longer) == 1 or all(escape not in part for part in longer):
                    sequences.append(longer)
                else:
                    complete = False
            elif len(longer) < MAX_ESCAPE_LENGTH and after != first and escape not in byte_set:
                todo.append((after, longer))
            else:
                complete = False
    return sorted(sequences, key=len), complete and not todo


def _escape_tables(sequences: list[tuple[frozenset[int], ...]]) \
        -> tuple[list[frozenset[int]], tuple[tuple[int, ...], ...], tuple[list[int], list[int], list[int]]]:
    """The distinct byte sets of the sequences, each sequence as numbers into them, and the nibble
    tables of the sets: the shortest sequences first, while their rectangles fit a byte."""
    sets: list[frozenset[int]] = []
    kept: list[tuple[int, ...]] = []
    tables: tuple[list[int], list[int], list[int]] = ([0] * 16, [0] * 16, [])
    for sequence in sequences:
        trial = sets + [part for part in dict.fromkeys(sequence) if part not in sets]
        lo, hi, bits = _nibble_tables([nibble_rectangles(part) for part in trial])
        if bits is None:
            continue
        sets, tables = trial, (lo, hi, bits)
        kept.append(tuple(sets.index(part) for part in sequence))
    return sets, tuple(kept), tables


def _escape_code(sequences: tuple[tuple[int, ...], ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """C that marks the sequences' bytes: declarations of masks of runs, then per sequence a
    statement adding its escape and bytes to ``taken``.  A start (bit i: byte i is escaped and the
    sequence's bytes follow in their sets) times 2^n - 1 spreads over the escape and its n bytes
    (sequences never overlap, so nothing carries).  The repeats of one set in a row become one
    mask of runs, made by doubling, so that four hex digits take three operations."""
    runs: dict[tuple[int, int], str] = {}
    statements: list[str] = []

    def run(k: int, length: int) -> str:
        if length == 1:
            return f"m->esc[{k}]"
        if (k, length) not in runs:
            half = 1 << (length.bit_length() - 1)
            if half == length:
                half //= 2
            base = run(k, half)
            name = f"run{k}_{length}"
            statements.append(f"const uint64_t {name} = {base} & ({base} >> {length - half});")
            runs[(k, length)] = name
        return runs[(k, length)]

    takes = []
    for sequence in sequences:
        terms, offset = [], 0
        while offset < len(sequence):
            length = 1
            while offset + length < len(sequence) and sequence[offset + length] == sequence[offset]:
                length += 1
            mask = run(sequence[offset], length)
            terms.append(f"({mask} >> {offset})" if offset else mask)
            offset += length
        spread = (1 << (len(sequence) + 1)) - 1
        takes.append(f"taken |= ((first & {' & '.join(terms)}) >> 1) * 0x{spread:X}u;")
    return tuple(statements), tuple(takes)


NO_BYTE = 256  # in the after-string byte table: no byte must follow


def _separators_after_strings(tables: Tables, through: list[int] | None,
                              candidates: set[int]) -> tuple[list[tuple[int, int]] | None, set[int]]:
    """Per state, the byte that must follow its whole string and the state after that byte
    ((NO_BYTE, dead) where none), and the bytes stage 1 leaves unmarked (*silent*).

    A state after a string has a fixed byte where every live byte but one leads back to it (the
    whitespace before a JSON key's colon) and that one goes on by a plain step.  Such a byte is
    silent where it is a candidate (a separator the strings' skip class loops on) that no state
    outside strings takes but those: stage 1 groups it with whitespace and, as the strings do
    not stop on it, never marks it.  Stage 2, after a string whose state has a silent fixed byte,
    compares the byte right after the closing quote with it and steps it there (the table's step,
    by a compare); where whitespace comes first, it reads the byte in the gap (its state stops on
    it).  Only silent bytes are kept: one stage 1 could mark would be stepped twice."""
    found = tables.pushdown
    assert found is not None and found.layer is not None
    if through is None:
        return None, set()
    returning = [set(members(ranges)) for ranges in found.returns]
    strings = found.layer.strings.states

    def fixed_byte(state: int) -> tuple[int, int]:
        if state == tables.dead or state >= found.first_call or returning[state]:
            return NO_BYTE, tables.dead
        row = tables.states[state].targets
        others = [b for b in range(256) if row[tables.byte_class[b]] not in (tables.dead, state)]
        if len(others) != 1 or row[tables.byte_class[others[0]]] >= found.first_call:
            return NO_BYTE, tables.dead
        return others[0], row[tables.byte_class[others[0]]]

    fixed = [fixed_byte(after) for after in through]
    if all(byte == NO_BYTE for byte, _ in fixed):
        return None, set()
    takers = {after for after, (byte, _) in zip(through, fixed, strict=True) if byte != NO_BYTE}
    silent = set()
    for byte in {byte for byte, _ in fixed} & candidates:
        readers = {s for s in range(tables.num_states) if s != tables.dead and s < found.first_call
                   and s not in strings and tables.states[s].targets[tables.byte_class[byte]] not in (tables.dead, s)}
        if all(fixed_byte(s)[0] == byte and s in takers for s in readers):
            silent.add(byte)
    fixed = [(byte, after) if byte in silent else (NO_BYTE, tables.dead) for byte, after in fixed]
    if not silent:
        return None, set()
    return fixed, silent


MAX_CHAIN = 7  # bytes of a fixed word stage 2 compares at once (one 8-byte load)


def _chains(tables: Tables) -> Chains | None:
    """Per state, the longest word (2 to MAX_CHAIN bytes) it must read next: each state on the
    way takes exactly one byte (every other byte is dead) and goes on by a plain step (no call,
    no return).  Stage 2 compares such a word at once where it would step its bytes one by one
    (true, false and null in JSON); the verdict is the same, since no other byte is taken there."""
    found = tables.pushdown
    assert found is not None
    returning = [set(members(ranges)) for ranges in found.returns]

    def only_byte(state: int) -> tuple[int, int] | None:
        live = set()
        for byte in range(256):
            if byte in returning[state]:
                return None
            if tables.states[state].targets[tables.byte_class[byte]] != tables.dead:
                live.add(byte)
                if len(live) > 1:
                    return None
        if len(live) != 1:
            return None
        byte = live.pop()
        target = tables.states[state].targets[tables.byte_class[byte]]
        return None if target >= found.first_call else (byte, target)

    words: list[tuple[list[int], int]] = []
    for state in range(tables.num_states):
        word: list[int] = []
        at = state
        while state != tables.dead and state < found.first_call and len(word) < MAX_CHAIN:
            step = only_byte(at)
            if step is None:
                break
            word.append(step[0])
            at = step[1]
        words.append((word, at) if len(word) >= 2 else ([], state))
    if not any(word for word, _ in words):
        return None
    return Chains(lengths=chunks([str(len(word)) for word, _ in words], 32),
                  texts=tuple("{ " + _hex_cells(word + [0] * (8 - len(word))) + " }" for word, _ in words),
                  ends=chunks([str(end) for _, end in words], 32))


Rectangles = tuple[tuple[frozenset[int], frozenset[int]], ...]


def _nibble_tables(groups: list[Rectangles]) -> tuple[list[int], list[int], list[int] | None]:
    """Low and high nibble tables with one bit per rectangle, and each group's bits (None when
    the rectangles are more than 8)."""
    lo, hi, bits = [0] * 16, [0] * 16, []
    bit = 0
    for rectangles in groups:
        mask = 0
        for lows, highs in rectangles:
            if bit >= MAX_NIBBLE_BITS:
                return lo, hi, None
            for nibble in lows:
                lo[nibble] |= 1 << bit
            for nibble in highs:
                hi[nibble] |= 1 << bit
            mask |= 1 << bit
            bit += 1
        bits.append(mask)
    return lo, hi, bits


def _stride() -> int:
    """Words of stops per skip class in the generated C (its STRIDE_): a chunk's, and two sentinels."""
    return CHUNK // 64 + 2


def _hex_cells(values: list[int]) -> str:
    return ", ".join(f"0x{v:02X}" for v in values)


_PRIVATE = ("NEXT_", "UNLIKELY_", "HOT_", "START_", "DEAD_", "FIRST_CALL_", "RETURN_", "CHUNK_", "STRIDE_", "SKIPS_",
            "ESCAPE_SETS_", "X86_", "CTZ64_", "WS_BITS_", "OP_BITS_", "QUOTE_BITS_", "ESCAPE_BITS_", "STRING_SKIP_",
            "INLINE_",
            *(f"U8_{name}_" for name in ("TOO_SHORT", "TOO_LONG", "OVERLONG_3", "TOO_LARGE", "SURROGATE",
                                         "OVERLONG_2", "TOO_LARGE_1000", "OVERLONG_4", "TWO_CONTS", "CARRY")))


def _columns(tables: Tables) -> tuple[ByteRow, ...]:
    """Per byte, every state's next state (RETURN where the state closes a nested part on it)."""
    found = tables.pushdown
    assert found is not None
    returning = [set(members(ranges)) for ranges in found.returns]
    width = len(str(found.return_code))
    rows = []
    for byte in range(256):
        cls = tables.byte_class[byte]
        targets = [found.return_code if byte in returning[s.index] else s.targets[cls] for s in tables.states]
        rows.append(ByteRow(f"byte {byte:02X} (class {cls})", chunks([f"{t:>{width}}" for t in targets],
                                                                     CELLS_PER_LINE)))
    return tuple(rows)

