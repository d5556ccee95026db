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
    Linear time for grammars without recursive calls once the memo tables are warm, with a
    constant that depends only on the grammar; right recursion is among them, as its tail calls
    are loops (:mod:`.program`).  For recursive grammars no worse than cubic in the input
    length, as for GLL: per position, each node pops at most once, over edges from earlier
    positions.  Linear when only a bounded number of nodes is live per position, as for the
    nesting found in practice (parentheses, RFC 5322 comments) and for left recursion, and for
    chains of tail calls through the stack, which pop in one step (:func:`.gss.skip_tail_calls`).

Work limit
    Highly ambiguous grammars (``r = *( r / "a" )``) do take cubic time, so the recogniser counts
    its steps on the stack -- each group stepped, each edge followed by a pop or copied by a
    skipped tail call -- and raises :class:`WorkLimitError` once they pass ``max_work`` plus
    :data:`WORK_PER_BYTE` for each byte read.  Grammars without recursive calls, and bytes a
    lone group reads on its own, count nothing; the grammars of practice take at most a few
    steps a byte, so the allowance lets them through inputs of any size, while a cubic grammar
    passes ``max_work`` soon after its work stops being linear.

Memory
    The memo tables are bounded by ``max_cache_states``: when exceeded they are rebuilt holding
    only what the live threads and the GSS refer to.  Apart from those, memory is proportional to
    the live part of the GSS (for nesting, the nesting depth of the input), and independent of the
    input length for grammars without recursive rules.  No Python recursion is used anywhere.
    Recognisers of one grammar share its memo tables (their updates are locked); a single
    recogniser must not be fed from two threads at once.
"""
from __future__ import annotations

from ..frontend.resolve import ResolvedGrammar
from .cache import Cache, Shared, shared_for
from .gss import ROOT_RULE, Config, GssNode, finish_calls, group, reachable_nodes, set_depths, settle
from .nodes import DEAD, UNKNOWN, PendingCall, Thread
from .reports import (
    DEFAULT_MAX_WORK,
    WORK_PER_BYTE,
    DepthLimitError,
    Expectation,
    Verdict,
    WorkLimitError,
    expectations,
)

__all__ = ["DEFAULT_MAX_WORK", "DepthLimitError", "Expectation", "Recognizer", "Verdict", "WorkLimitError", "recognize"]

CHECK_EVERY = 32  # a recursive run checks the size of its memo tables every so many advances

class Recognizer:
    """Feed input in chunks; ask for a :class:`Verdict` at any time."""

    def __init__(self, grammar: ResolvedGrammar, *, max_cache_states: int = 100_000,
                 max_work: int = DEFAULT_MAX_WORK, max_depth: int | None = None):
        """``max_depth``: raise :class:`DepthLimitError` once the input opens more calls of
        recursive rules at once (tail calls, which need no memory, are not counted); None: no
        limit but memory, which grows with the nesting."""
        if max_cache_states < 1 or max_work < 1 or (max_depth is not None and max_depth < 1):
            raise ValueError("max_cache_states, max_work and max_depth must be at least 1")
        shared = shared_for(grammar)
        if shared.program.regular:
            self._run: _Run = RegularRun(shared, max_cache_states, max_work)
        else:
            self._run = RecursiveRun(shared, max_cache_states, max_work, max_depth)

    def feed(self, chunk) -> bool:
        """Consume ``chunk``; False once no parse can continue (later chunks are then ignored).

        Raises :class:`WorkLimitError` once the work limit is passed, and again on every later
        call."""
        return self._run.feed(chunk)

    def verdict(self) -> Verdict:
        """The verdict for everything fed so far, as if the input ended here."""
        return self._run.verdict()

    def expected(self) -> tuple[Expectation, ...]:
        """What the next byte could be (the ranges and the rules that would read it), whether or
        not the input read so far is already a match; nothing once no parse can continue."""
        run = self._run
        if run.gave_up is not None:
            raise run.gave_up
        return () if run.dead is not None else run.expected(run.live_states())

    @property
    def work(self) -> int:
        """Steps taken on the stack so far (see "Work limit" above)."""
        return self._run.work


def recognize(grammar: ResolvedGrammar, data, *, max_work: int = DEFAULT_MAX_WORK) -> Verdict:
    """Match all of ``data`` (bytes-like) against ``grammar``'s start rule."""
    recognizer = Recognizer(grammar, max_work=max_work)
    recognizer.feed(data)
    return recognizer.verdict()


class _Run:
    """What both modes share: the position, the verdict once dead, failure reports, compaction,
    the work count."""

    def __init__(self, shared: Shared, limit: int, max_work: int):
        self.shared = shared
        self.program = shared.program
        self.cache = shared.cache
        self.limit = limit
        self.max_work = max_work
        self.work = 0
        self.budget = max_work  # the work allowed before the limit is checked again
        self.pos = 0
        self.dead: Verdict | None = None
        self.gave_up: WorkLimitError | DepthLimitError | None = None

    def feed(self, chunk) -> bool:
        if self.gave_up is not None:
            raise self.gave_up
        if self.dead is not None:
            return False
        data = chunk if isinstance(chunk, (bytes, bytearray)) else bytes(chunk)
        return self.consume(data.translate(self.program.class_of))

    def check_budget(self) -> None:
        """Raise WorkLimitError if the work passed the limit for the bytes read so far; else
        raise the budget to that limit (it grows with every byte read)."""
        self.budget = self.max_work + WORK_PER_BYTE * self.pos
        if self.work > self.budget:
            self.gave_up = WorkLimitError(self.pos, self.work, self.max_work)
            raise self.gave_up

    def verdict(self) -> Verdict:
        if self.gave_up is not None:
            raise self.gave_up
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
        """The local states alive at the current position, for failure reports."""
        raise NotImplementedError

    def held_states(self) -> list[int]:
        """The local states the run holds, for compaction."""
        return self.live_states()

    def die(self, offset: int, sids: list[int], complete: bool) -> None:
        """No parse reads the byte at ``offset``; ``complete``: the input before it is a match."""
        self.pos = offset
        self.dead = Verdict(False, offset, self.expected(sids), could_end=complete)

    def expected(self, sids: list[int]) -> tuple[Expectation, ...]:
        """The leaves of every thread in ``sids`` (and those pending calls could start with)."""
        key, memo = frozenset(sids), self.cache.expected_memo
        if key not in memo:
            memo[key] = expectations(self.cache, key)
        return memo[key]

    def compact(self) -> None:
        """Start a new cache holding only what the live configuration refers to."""
        old, new = self.cache, Cache(self.program)
        nodes = self.gss_nodes()
        sids = set(self.held_states())
        conts = {item.cont for sid in sids for item in old.states[sid]
                 if isinstance(item, (Thread, PendingCall))}
        conts.update(cont for node in nodes for cont in node.edges)
        moved_conts = old.moved_into(new, conts)
        moved = {sid: new.intern(frozenset(_moved_item(item, moved_conts) for item in old.states[sid]))
                 for sid in sids}
        renamed: dict[int, dict] = {}  # edges shared by skipped tail calls stay shared
        for node in nodes:
            if node.steps is not None:
                node.steps = {}  # keyed by the old state numbers
            edges = renamed.get(id(node.edges))
            if edges is None:
                edges = renamed[id(node.edges)] = {moved_conts[cont]: callers for cont, callers in node.edges.items()}
            node.edges = edges
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

    def __init__(self, shared: Shared, limit: int, max_work: int):
        super().__init__(shared, limit, max_work)
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
                self.die(self.pos + index, [sid], cache.done[sid])
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
    """A grammar with recursive calls: one local state per group of the GSS.

    The configuration is settled lazily: a group whose body completed pops only when the next
    byte is one that what follows its completion could read (:func:`.gss.returns`), since
    otherwise its callers would only die there.  Verdicts, failure reports and the end of the
    input settle everything (:meth:`settled`).
    """

    def __init__(self, shared: Shared, limit: int, max_work: int, max_depth: int | None = None):
        super().__init__(shared, limit, max_work)
        self.max_depth = max_depth
        self.config: Config = {GssNode(ROOT_RULE, 0): self.cache.start()}
        self.until_check = 0  # advances until the cache's size is checked again
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
            self.until_check -= 1
            if self.until_check <= 0:
                self.until_check = CHECK_EVERY
                if self.cache.full(self.limit):
                    self.compact()
        return True

    def run_single(self, view: memoryview, index: int) -> int:
        """Steps of a lone group that neither calls nor needs to pop: as cheap as the regular
        case.  Returns the index of the first byte that needs the general :meth:`advance`."""
        [(node, sid)] = self.config.items()
        cache = self.cache
        table, done, call_starts = cache.table, cache.done, cache.call_starts
        after, memo, work = node.returns, node.steps, 0
        end = index
        for byte_class in view[index:]:
            if call_starts[sid] >> byte_class & 1 or (done[sid] and after >> byte_class & 1):
                known = memo.get((sid, byte_class)) if memo is not None else None
                if known is None:
                    break
                sid, steps = known  # a step of a node returning only to itself, as advance took it
                work += steps
            else:
                following = table[sid][byte_class]
                if following <= 0:
                    break
                sid = following
            end += 1
        if end > index:
            self.config = {node: sid}
            self.pos += end - index
            if work:
                self.work += work
                if self.work > self.budget:
                    self.check_budget()
        return end

    def advance(self, byte_class: int) -> bool:
        """Pop what this byte needs popped, step every group by it, and make the calls it
        starts."""
        cache = self.cache
        table, call_starts, done = cache.table, cache.call_starts, cache.done
        work = list(self.config.items())
        lone = None
        followed = 0
        if len(work) == 1:  # the common case, without the loops of due_pops
            node, sid = work[0]
            if node.steps is not None:
                lone = work[0]
            if done[sid] and node.returns >> byte_class & 1:
                work, _, followed = settle(cache, work)
                if len(work) > 2 or (len(work) == 2 and work[0][0] is work[1][0]):  # a group twice
                    work = list(group(cache, work).items())
        else:
            for node, sid in work:
                if done[sid] and node.returns >> byte_class & 1:
                    work, followed = self.due_pops(byte_class, work)
                    break
        called: dict[int, GssNode] = {}  # the GSS nodes of this position, by rule
        stepped = []
        for node, sid in work:  # grows while iterating: the calls this byte starts
            result = table[sid][byte_class]
            if result == UNKNOWN:
                result = cache.step(sid, byte_class)
            if result:
                stepped.append((node, result))
            if call_starts[sid] >> byte_class & 1:
                for call in cache.live_calls(sid, byte_class):
                    callee = called.get(call.rule)
                    if callee is None:
                        callee = called[call.rule] = GssNode(call.rule, self.pos)
                        callee.edges[call.cont] = node
                        work.append((callee, cache.call(call.rule)))
                    else:
                        callee.add_edge(call.cont, node)
        if called:
            followed += finish_calls(cache, called.values())
            if self.max_depth is not None and set_depths(called.values()) > self.max_depth:
                self.gave_up = DepthLimitError(self.pos, self.max_depth)  # as for the work limit: for good
                raise self.gave_up
        steps = len(work) + followed
        self.work += steps
        if self.work > self.budget:
            self.check_budget()
        if not stepped:
            fresh, complete, _ = self.settled()
            self.die(self.pos, [sid for _, sid in fresh], complete)
            return False
        self.config = {stepped[0][0]: stepped[0][1]} if len(stepped) == 1 else group(cache, stepped)
        if lone is not None and not called and len(self.config) == 1 and lone[0] in self.config:
            lone[0].steps[lone[1], byte_class] = (self.config[lone[0]], steps)  # type: ignore[index]
        self.pos += 1
        return True

    def due_pops(self, byte_class: int, groups: list[tuple[GssNode, int]]) -> tuple[list[tuple[GssNode, int]], int]:
        """The groups to step by this byte: ``groups`` (the configuration), with the groups
        whose completion could read the byte popped; and the edges followed."""
        cache, done = self.cache, self.cache.done
        due = [(node, sid) for node, sid in groups if done[sid] and node.returns >> byte_class & 1]
        fresh, _, followed = settle(cache, due)
        if len(due) < len(groups):
            popped = {node for node, _ in due}
            fresh = [(node, sid) for node, sid in groups if node not in popped] + fresh
        if len(fresh) > 2 or (len(fresh) == 2 and fresh[0][0] is fresh[1][0]):  # merge each group's
            fresh = list(group(cache, fresh).items())  # states (two for a node that called itself)
        return fresh, followed

    def settled(self) -> tuple[list[tuple[GssNode, int]], bool, int]:
        """The configuration with every pop made: its live groups, whether the root completed,
        and the edges followed."""
        return settle(self.cache, list(self.config.items()))

    def accepted(self) -> bool:
        return self.settled()[1]

    def live_states(self) -> list[int]:
        return [sid for _, sid in self.settled()[0]]

    def held_states(self) -> list[int]:
        return list(self.config.values())

    def gss_nodes(self) -> list[GssNode]:
        return reachable_nodes(self.config)

    def renumber(self, moved: dict[int, int]) -> None:
        self.config = {node: moved[sid] for node, sid in self.config.items()}


