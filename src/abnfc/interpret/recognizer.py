"""The recogniser: feed bytes, ask whether they match the grammar's start rule, and why not.

Semantics
    Terminals are bytes.  A quoted string matches byte by byte, folding only the ASCII letters
    unless it is ``%s``; alternation is a true choice, not PEG's first match (``*"a" "a"``
    matches ``aaa``); the start rule must match the whole input.

Algorithm
    A position-set simulation over the program (:mod:`.program`).  Before each byte the
    recogniser holds *threads*: a single-byte terminal and a continuation saying what happens
    once it matched, so the threads are the positions of a Glushkov/Antimirov position
    automaton, with repetition counts kept in continuation frames rather than unrolled.
    Consuming a byte keeps the threads whose leaf accepts it and follows their continuations
    (:mod:`.closure`) to the next leaves; the resulting local states and transitions are
    memoised (:mod:`.cache`).  A grammar without recursive rules runs as :class:`RegularRun`:
    one table lookup per byte.  Otherwise :class:`RecursiveRun` keeps one local state per group
    of the graph-structured stack (:mod:`.gss`).

Failure reports
    The verdict's offset is that of the first byte no thread could consume (or the input length
    if the input ended first); the expected bytes are the leaves of every thread alive just
    before it, and the FIRST sets of the calls waiting there, each named by the rule whose
    definition holds the leaf.

Complexity
    Linear time for grammars without recursive rules once the memo tables are warm, with a
    constant that depends only on the grammar.  For recursive grammars no worse than cubic in the
    input length, as for GLL: per position, each node pops at most once, over edges from earlier
    positions.  Linear when only a bounded number of nodes is live per position, as for the
    nesting found in practice (parentheses, RFC 5322 comments).

Memory
    The memo tables are bounded by ``max_cache_states``: when exceeded they are rebuilt holding
    only what the live threads and the GSS refer to.  Apart from those, memory is proportional to
    the live part of the GSS (for nesting, the nesting depth of the input), and independent of the
    input length for grammars without recursive rules.  No Python recursion is used anywhere.
    Recognisers of one grammar share its memo tables (their updates are locked); a single
    recogniser must not be fed from two threads at once.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..charset import Ranges, format_abnf
from ..frontend.resolve import ResolvedGrammar
from .cache import Cache, Shared, shared_for
from .gss import ROOT_RULE, Config, GssNode, group, reachable_nodes, settle
from .nodes import DEAD, UNKNOWN, Leaf, PendingCall, Thread

__all__ = ["Expectation", "Recognizer", "Verdict", "recognize"]


@dataclass(frozen=True, order=True)
class Expectation:
    """Bytes some parse could have consumed, and the rule whose body holds that terminal."""

    ranges: Ranges
    rule: str

    def __str__(self) -> str:
        return f"{format_abnf(self.ranges)} ({self.rule})"


@dataclass(frozen=True)
class Verdict:
    """Whether the input matched; if not, where and why not.

    ``offset`` is None when matched; otherwise the offset of the first byte no parse could
    consume, or the input length when the input ended while parses were incomplete
    (``end_of_input`` is then True).  ``expected`` lists what some parse could have consumed at
    ``offset``.
    """

    matched: bool
    offset: int | None
    expected: tuple[Expectation, ...] = ()
    end_of_input: bool = False

    def describe(self) -> str:
        if self.matched:
            return "matched"
        wanted = _join_or([str(e) for e in self.expected])
        if not self.end_of_input:
            return f"offset {self.offset}: expected {wanted or 'end of input'}"
        ending = f"offset {self.offset}: unexpected end of input"
        return f"{ending}; expected {wanted}" if wanted else ending


def _join_or(words: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


class Recognizer:
    """Feed input in chunks; ask for a :class:`Verdict` at any time."""

    def __init__(self, grammar: ResolvedGrammar, *, max_cache_states: int = 100_000):
        if max_cache_states < 1:
            raise ValueError("max_cache_states must be at least 1")
        shared = shared_for(grammar)
        run = RegularRun if shared.program.regular else RecursiveRun
        self._run: _Run = run(shared, max_cache_states)

    def feed(self, chunk) -> bool:
        """Consume ``chunk``; False once no parse can continue (later chunks are then ignored)."""
        return self._run.feed(chunk)

    def verdict(self) -> Verdict:
        """The verdict for everything fed so far, as if the input ended here."""
        return self._run.verdict()


def recognize(grammar: ResolvedGrammar, data) -> Verdict:
    """Match all of ``data`` (bytes-like) against ``grammar``'s start rule."""
    recognizer = Recognizer(grammar)
    recognizer.feed(data)
    return recognizer.verdict()


class _Run:
    """What both modes share: the position, the verdict once dead, failure reports, compaction."""

    def __init__(self, shared: Shared, limit: int):
        self.shared = shared
        self.program = shared.program
        self.cache = shared.cache
        self.limit = limit
        self.pos = 0
        self.dead: Verdict | None = None

    def feed(self, chunk) -> bool:
        if self.dead is not None:
            return False
        data = chunk if isinstance(chunk, (bytes, bytearray)) else bytes(chunk)
        return self.consume(data.translate(self.program.class_of))

    def verdict(self) -> Verdict:
        if self.dead is not None:
            return self.dead
        if self.accepted():
            return Verdict(True, None, ())
        return Verdict(False, self.pos, self.expected(self.live_states()), True)

    def consume(self, classes: bytes | bytearray) -> bool:
        raise NotImplementedError

    def accepted(self) -> bool:
        raise NotImplementedError

    def live_states(self) -> list[int]:
        raise NotImplementedError

    def die(self, offset: int, sids: list[int]) -> None:
        self.pos = offset
        self.dead = Verdict(False, offset, self.expected(sids))

    def expected(self, sids: list[int]) -> tuple[Expectation, ...]:
        """The leaves of every thread in ``sids`` (and those pending calls could start with)."""
        key, memo = frozenset(sids), self.cache.expected_memo
        if key not in memo:
            memo[key] = _expectations(self.cache, key)
        return memo[key]

    def compact(self) -> None:
        """Start a new cache holding only what the live configuration refers to."""
        old, new = self.cache, Cache(self.program)
        nodes = self.gss_nodes()
        sids = set(self.live_states())
        conts = {item.cont for sid in sids for item in old.states[sid]
                 if isinstance(item, (Thread, PendingCall))}
        conts.update(cont for node in nodes for cont, _ in node.edges)
        moved_conts = old.moved_into(new, conts)
        moved = {sid: new.intern(frozenset(_moved_item(item, moved_conts) for item in old.states[sid]))
                 for sid in sids}
        for node in nodes:
            node.edges = {(moved_conts[cont], parent) for cont, parent in node.edges}
        self.renumber(moved)
        self.cache = self.shared.cache = new

    def gss_nodes(self) -> list[GssNode]:
        return []

    def renumber(self, moved: dict[int, int]) -> None:
        raise NotImplementedError


def _moved_item(item, moved_conts: dict[int, int]):
    if isinstance(item, Thread):
        return Thread(item.leaf, moved_conts[item.cont])
    if isinstance(item, PendingCall):
        return PendingCall(item.rule, moved_conts[item.cont])
    return item


class RegularRun(_Run):
    """A grammar without recursive rules: one local state, one table lookup per byte."""

    def __init__(self, shared: Shared, limit: int):
        super().__init__(shared, limit)
        self.sid = self.cache.start()
        if self.cache.full(self.limit):
            self.compact()

    def consume(self, classes: bytes | bytearray) -> bool:
        cache, table, sid = self.cache, self.cache.table, self.sid
        for index, byte_class in enumerate(classes):
            following = table[sid][byte_class]
            if following > 0:
                sid = following
                continue
            if following == UNKNOWN:
                following = cache.step(sid, byte_class)
            if following == DEAD:
                self.die(self.pos + index, [sid])
                return False
            sid = following
            if cache.full(self.limit):
                self.sid = sid
                self.compact()
                cache, table, sid = self.cache, self.cache.table, self.sid
        self.sid = sid
        self.pos += len(classes)
        return True

    def accepted(self) -> bool:
        return self.cache.done[self.sid]

    def live_states(self) -> list[int]:
        return [self.sid]

    def renumber(self, moved: dict[int, int]) -> None:
        self.sid = moved[self.sid]


class RecursiveRun(_Run):
    """A grammar with recursive rules: one local state per group of the GSS."""

    def __init__(self, shared: Shared, limit: int):
        super().__init__(shared, limit)
        fresh, self.root_done = settle(self.cache, [(GssNode(ROOT_RULE, 0), self.cache.start())])
        self.config: Config = group(self.cache, fresh)
        if self.cache.full(self.limit):
            self.compact()

    def consume(self, classes: bytes | bytearray) -> bool:
        view, index = memoryview(classes), 0
        while index < len(classes):
            if len(self.config) == 1:
                index = self.run_single(view, index)
                if index == len(classes):
                    break
            if not self.advance(classes[index]):
                return False
            index += 1
            if self.cache.full(self.limit):
                self.compact()
        return True

    def run_single(self, view: memoryview, index: int) -> int:
        """Steps of a lone group that neither calls nor completes: as cheap as the regular case.

        Returns the index of the first byte that needs the general :meth:`advance`.
        """
        [(node, sid)] = self.config.items()
        table, done, call_starts = self.cache.table, self.cache.done, self.cache.call_starts
        end = index
        for byte_class in view[index:]:
            following = table[sid][byte_class]
            if following <= 0 or done[following] or call_starts[sid] >> byte_class & 1:
                break
            sid = following
            end += 1
        if end > index:
            self.config = {node: sid}
            self.root_done = False  # the lone group did not complete: the root did not either
            self.pos += end - index
        return end

    def advance(self, byte_class: int) -> bool:
        """Step every group by one byte, making the calls it starts; then settle the pops."""
        cache = self.cache
        called: dict[int, GssNode] = {}  # the GSS nodes of this position, by rule
        stepped = []
        work = list(self.config.items())
        for node, sid in work:  # grows while iterating: the calls this byte starts
            result = cache.table[sid][byte_class]
            if result == UNKNOWN:
                result = cache.step(sid, byte_class)
            if result:
                stepped.append((node, result))
            if cache.call_starts[sid] >> byte_class & 1:
                for call in cache.live_calls(sid, byte_class):
                    callee = called.get(call.rule)
                    if callee is None:
                        callee = called[call.rule] = GssNode(call.rule, self.pos)
                        work.append((callee, cache.call(call.rule)))
                    callee.edges.add((call.cont, node))
        fresh, accepted = settle(cache, stepped)
        if not fresh and not accepted:
            self.die(self.pos, list(self.config.values()))
            return False
        self.config, self.root_done = group(cache, fresh), accepted
        self.pos += 1
        return True

    def accepted(self) -> bool:
        return self.root_done

    def live_states(self) -> list[int]:
        return list(self.config.values())

    def gss_nodes(self) -> list[GssNode]:
        return reachable_nodes(self.config)

    def renumber(self, moved: dict[int, int]) -> None:
        self.config = {node: moved[sid] for node, sid in self.config.items()}


def _expectations(cache: Cache, sids) -> tuple[Expectation, ...]:
    program = cache.program
    masks: dict[str, int] = {}
    for sid in sids:
        for item in cache.states[sid]:
            if isinstance(item, Thread):
                leaves: tuple[int, ...] = (item.leaf,)
            elif isinstance(item, PendingCall):
                leaves = program.call_first[item.rule]
            else:
                continue
            for index in leaves:
                leaf = program.typed(index, Leaf)
                masks[leaf.rule] = masks.get(leaf.rule, 0) | leaf.mask
    return tuple(sorted(Expectation(_ranges(mask), rule) for rule, mask in masks.items()))


def _ranges(mask: int) -> Ranges:
    """The runs of set bits in ``mask``, lowest first."""
    ranges = []
    while mask:
        low = (mask & -mask).bit_length() - 1
        run = mask >> low
        length = (run ^ (run + 1)).bit_length() - 1  # trailing ones
        ranges.append((low, low + length - 1))
        mask &= ~(((1 << length) - 1) << low)
    return tuple(ranges)
