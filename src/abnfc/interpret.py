"""Interpreter: decide whether bytes match an ABNF grammar, working straight from the AST.

This is the reference engine that the compiled DFAs are checked against, so it shares no code
with ``nfa.py``, ``dfa.py`` or ``minimize.py``; it accepts every grammar, recursive ones included,
and reads its input incrementally (:class:`Recognizer`) or all at once (:func:`recognize`).

Semantics
    Terminals are bytes.  A quoted string matches byte by byte, folding only the ASCII letters
    unless it is ``%s``; alternation is a true choice, not PEG's first match (``*"a" "a"`` matches
    ``aaa``); the start rule must match the whole input.

Algorithm
    A position-set simulation over the AST.  Before each byte the recogniser holds *threads*: a
    single-byte terminal (a *leaf*: one character of a string, one value of ``%x0D.0A``, one
    range) and a *continuation* saying what happens once that leaf matched.  A continuation is a
    chain of frames ("go on with item k of this concatenation", "iteration k of this repetition
    finished"), so the threads are the positions of a Glushkov/Antimirov position automaton, with
    repetition counts kept in the frames rather than unrolled: ``100000000"a"`` costs one node.
    Continuations are interned as small integers, keyed by (frame, parent id), so comparing and
    hashing them never walks a chain.  Consuming a byte keeps the threads whose leaf accepts it
    and follows their continuations (the *closure*) to the next leaves.

    Rules are expanded in place, except for a few recursive ones, enough to cut every cycle of
    references (the targets of back edges of a depth-first search from the start rule).  Calls
    of those go through a graph-structured stack as in GLL parsing (Scott and Johnstone 2010,
    "GLL parsing", LDTA 2009, ENTCS 253(7)): a call of rule R at position i is the GSS node
    (R, i), whose edges hold the continuations of its callers; when R's body completes at
    position j > i the node *pops* and each caller continues at j.  Threads are partitioned into
    *groups*, one per GSS node whose body they belong to (the start rule's group is the root),
    and a group's threads form its *local state*.  Local states are interned too, and stepping a
    local state by a byte is memoised in a lazily filled table, so for a grammar without
    recursive rules (one group) the inner loop is one list lookup per byte:
    ``sid = table[sid][byte_class]``.  Bytes that no terminal tells apart share a class, so the
    table rows are as short as the grammar allows.

    A call is made only once the next byte is known and is one that can start the rule (its
    FIRST set), so text between calls costs little.  If the rule can match the empty string, the
    caller's closure takes that empty match at once, so a node never pops where it was created:
    every edge of a node exists before its first pop, and the replaying of pops that GLL needs
    for nullable rules is unnecessary.  Nodes are only created for the current position, so the
    node table and pop records are dropped as the input advances; what remains is the live
    stack.  Rules that can match nothing at all (``s = s "c"``) are recognised beforehand and
    never entered, so every thread kept can still lead to a match.

    Repetitions of an element that can match the empty string are treated as ``0*max``; empty
    iterations are never worth taking then, so within one closure only the lowest iteration count
    of each repetition is entered, which keeps ``1*100000000( "" / "a" )`` from looping.

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
    The memo tables (continuations, local states, transitions) are bounded by
    ``max_cache_states``: when exceeded they are rebuilt holding only what the live threads and
    the GSS refer to, so correctness never depends on the cache.  Apart from those, memory is
    proportional to the live part of the GSS (for nesting, the nesting depth of the input), and
    independent of the input length for grammars without recursive rules.  No Python recursion
    is used anywhere, so neither deeply nested grammars nor deeply nested input can hit the
    recursion limit.  Recognisers of one grammar share its memo tables (their updates are
    locked); a single recogniser must not be fed from two threads at once.
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from . import ast
from .errors import AbnfError
from .resolve import ResolvedGrammar, RuleDef, references

__all__ = ["Expectation", "Verdict", "Recognizer", "recognize"]

# Kinds of compiled nodes.
LEAF, SEQ, ALT, REP, REF, CALL = range(6)
# Kinds of continuation frames: (kind, node, count, parent continuation).
SEQ_FRAME, REP_FRAME = 0, 1
END = 0  # continuation id: the group's body is complete (pop its GSS node, or accept at the root)
DONE = (-1, END)  # local-state item: the group's body completed here
DEAD = 0  # id of the empty local state
UNKNOWN = -1  # transition table entry not computed yet


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, order=True)
class Expectation:
    """Bytes some parse could have consumed, and the rule whose body holds that terminal."""

    ranges: tuple[tuple[int, int], ...]
    rule: str

    def __str__(self) -> str:
        parts = (f"%x{lo:02X}" if lo == hi else f"%x{lo:02X}-{hi:02X}" for lo, hi in self.ranges)
        return f"{' / '.join(parts)} ({self.rule})"


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


def _ranges(mask: int) -> tuple[tuple[int, int], ...]:
    """The runs of set bits in ``mask``, lowest first."""
    ranges = []
    while mask:
        low = (mask & -mask).bit_length() - 1
        run = mask >> low
        length = (run ^ (run + 1)).bit_length() - 1  # trailing ones
        ranges.append((low, low + length - 1))
        mask &= ~(((1 << length) - 1) << low)
    return tuple(ranges)


# --------------------------------------------------------------------------------------------
# The grammar compiled to flat arrays


class _Program:
    """Everything about the grammar that does not change while recognising.

    Nodes are integers indexing ``kind`` and ``arg``: LEAF -> byte mask, SEQ/ALT -> child tuple,
    REP -> (min, max, element, element is nullable), REF -> root node of an inlined rule,
    CALL -> index of a recursive rule.
    """

    def __init__(self, grammar: ResolvedGrammar):
        self.kind: list[int] = []
        self.arg: list = []
        self.leaf_rule: dict[int, str] = {}
        self.calls = _cut_rules(grammar)
        self.call_index = {key: i for i, key in enumerate(self.calls)}
        self.root = {key: self._compile_rule(grammar.rules[key]) for key in grammar.reachable}
        for node, kind in enumerate(self.kind):
            if kind == REF:
                self.arg[node] = self.root[self.arg[node]]
        self.call_root = [self.root[key] for key in self.calls]
        start_call = self.call_index.get(grammar.start)
        if start_call is None:
            self.start = self._add(REF, self.root[grammar.start])
        else:
            self.start = self._add(CALL, start_call)
        self.regular = not self.calls
        order = self._postorder()
        self.productive = self._productive(order)
        self.nullable = self._nullable(order)
        self._normalise_repetitions()
        self._analyse_calls(order)
        self._classify_bytes()
        self.cache = _Cache(self)  # shared by this grammar's recognisers; replaced when compacted

    def _add(self, kind: int, arg) -> int:
        self.kind.append(kind)
        self.arg.append(arg)
        return len(self.kind) - 1

    def _compile_rule(self, rule: RuleDef) -> int:
        """Post-order over the rule's AST with an explicit stack."""
        built: list[int] = []
        stack = [(rule.definition, False)]
        while stack:
            node, ready = stack.pop()
            kids = ast.children(node)
            if kids and not ready:
                stack.append((node, True))
                stack.extend((kid, False) for kid in reversed(kids))
                continue
            args = built[len(built) - len(kids):]
            del built[len(built) - len(kids):]
            built.append(self._build(node, args, rule.name))
        return built[0]

    def _build(self, node: ast.Node, args: list[int], rule: str) -> int:
        if isinstance(node, (ast.Alternation, ast.Concatenation)):
            if len(args) == 1:
                return args[0]
            return self._add(ALT if isinstance(node, ast.Alternation) else SEQ, tuple(args))
        if isinstance(node, ast.Group):
            return args[0]
        if isinstance(node, ast.Option):
            return self._add(REP, [0, 1, args[0], False])
        if isinstance(node, ast.Repetition):
            if node.max == 0:
                return self._add(SEQ, ())
            if node.min == node.max == 1:
                return args[0]
            return self._add(REP, [node.min, node.max, args[0], False])
        if isinstance(node, ast.RuleRef):
            index = self.call_index.get(node.key)
            return self._add(REF, node.key) if index is None else self._add(CALL, index)
        if isinstance(node, ast.CharVal):
            return self._string([_char_mask(ch, node.case_sensitive) for ch in node.text], rule)
        if isinstance(node, ast.NumVal):
            return self._string([1 << value for value in node.values], rule)
        if isinstance(node, ast.NumRange):
            return self._leaf((1 << (node.high + 1)) - (1 << node.low), rule)
        raise AbnfError.at(node.span, f"prose value {node} cannot be interpreted; "
                                      "replace it with rules")

    def _leaf(self, mask: int, rule: str) -> int:
        node = self._add(LEAF, mask)
        self.leaf_rule[node] = rule
        return node

    def _string(self, masks: list[int], rule: str) -> int:
        leaves = tuple(self._leaf(mask, rule) for mask in masks)
        return leaves[0] if len(leaves) == 1 else self._add(SEQ, leaves)

    def _successors(self, node: int):
        kind, arg = self.kind[node], self.arg[node]
        if kind in (SEQ, ALT):
            return arg
        if kind == REP:
            return (arg[2],)
        if kind == REF:
            return (arg,)
        return (self.call_root[arg],) if kind == CALL else ()

    def _postorder(self) -> list[int]:
        """Nodes with what they depend on first (as far as cycles allow), for fast fixpoints."""
        order: list[int] = []
        seen = [False] * len(self.kind)
        for top in range(len(self.kind)):
            if seen[top]:
                continue
            seen[top] = True
            stack = [(top, iter(self._successors(top)))]
            while stack:
                node, successors = stack[-1]
                for succ in successors:
                    if not seen[succ]:
                        seen[succ] = True
                        stack.append((succ, iter(self._successors(succ))))
                        break
                else:
                    stack.pop()
                    order.append(node)
        return order

    def _fixpoint(self, order: list[int], values: list, combine) -> list:
        """Iterate ``values[node] = combine(node, values)`` over ``order`` until nothing changes."""
        changed = True
        while changed:
            changed = False
            for node in order:
                value = combine(node, values)
                if value != values[node]:
                    values[node] = value
                    changed = True
        return values

    def _productive(self, order: list[int]) -> list[bool]:
        """Whether a node matches anything at all: closures skip the nodes that do not, so that
        no thread is ever kept that could not lead to a match."""
        def combine(node, productive):
            kind, arg = self.kind[node], self.arg[node]
            if kind == LEAF:
                return arg != 0
            if kind == SEQ:
                return all(productive[item] for item in arg)
            if kind == ALT:
                return any(productive[item] for item in arg)
            if kind == REP:
                return arg[0] == 0 or productive[arg[2]]
            return productive[arg] if kind == REF else productive[self.call_root[arg]]
        return self._fixpoint(order, [False] * len(self.kind), combine)

    def _nullable(self, order: list[int]) -> list[bool]:
        def combine(node, nullable):
            kind, arg = self.kind[node], self.arg[node]
            if kind == LEAF:
                return False
            if kind == SEQ:
                return all(nullable[item] for item in arg)
            if kind == ALT:
                return any(nullable[item] for item in arg)
            if kind == REP:
                return arg[0] == 0 or nullable[arg[2]]
            return nullable[arg] if kind == REF else nullable[self.call_root[arg]]
        return self._fixpoint(order, [False] * len(self.kind), combine)

    def _normalise_repetitions(self) -> None:
        for node, kind in enumerate(self.kind):
            if kind == REP:
                low, high, element, _ = self.arg[node]
                nullable = self.nullable[element]
                self.arg[node] = (0 if nullable else low, high, element, nullable)

    def _first(self, order: list[int]) -> list[int]:
        """Per node, the leaves that can consume its first byte, as a bit set of node ids."""
        def combine(node, first):
            kind, arg = self.kind[node], self.arg[node]
            if not self.productive[node]:
                return 0
            if kind == LEAF:
                return 1 << node
            if kind in (SEQ, ALT):
                bits = 0
                for item in arg:
                    bits |= first[item]
                    if kind == SEQ and not self.nullable[item]:
                        break
                return bits
            if kind == REP:
                return first[arg[2]]
            return first[arg] if kind == REF else first[self.call_root[arg]]
        return self._fixpoint(order, [0] * len(self.kind), combine)

    def _analyse_calls(self, order: list[int]) -> None:
        first = self._first(order) if self.calls else []
        self.call_nullable = [self.nullable[root] for root in self.call_root]
        self.call_first = [_bits(first[root]) for root in self.call_root]  # leaf nodes

    def _classify_bytes(self) -> None:
        """Bytes no leaf tells apart share a class, so transition rows stay short."""
        classes = [0] * 256
        for mask in {self.arg[leaf] for leaf in self.leaf_rule}:
            renumber: dict[tuple[int, int], int] = {}
            for value in range(256):
                key = (classes[value], mask >> value & 1)
                classes[value] = renumber.setdefault(key, len(renumber))
        self.class_of = bytes(classes)
        self.classes = max(classes) + 1
        self.leaf_classes = {leaf: self._class_mask(self.arg[leaf]) for leaf in self.leaf_rule}
        self.call_first_classes = [self._class_mask(self._mask_of(leaves))
                                   for leaves in self.call_first]

    def _class_mask(self, mask: int) -> int:
        bits = 0
        for value in range(256):
            if mask >> value & 1:
                bits |= 1 << self.class_of[value]
        return bits

    def _mask_of(self, leaves) -> int:
        mask = 0
        for leaf in leaves:
            mask |= self.arg[leaf]
        return mask


def _cut_rules(grammar: ResolvedGrammar) -> list[str]:
    """Recursive rules to call through the GSS; every other rule is expanded in place.

    Only the targets of back edges in a depth-first search from the start rule: every cycle of
    references contains a back edge, and the remaining edges (tree, forward, cross) cannot form
    a cycle.  So in ``comment = "(" *ccontent ")"`` with ``ccontent = ctext / comment`` only
    ``comment`` is called, and ordinary text inside a comment needs no GSS operation at all.
    """
    recursive = grammar.recursive
    edges = {key: [ref.key for ref in references(grammar.rules[key]) if ref.key in recursive]
             for key in recursive}
    state: dict[str, int] = {}  # 1 on the DFS stack, 2 finished
    cut: set[str] = set()
    for top in grammar.reachable:
        if top not in recursive or top in state:
            continue
        state[top] = 1
        stack = [(top, iter(edges[top]))]
        while stack:
            key, successors = stack[-1]
            for succ in successors:
                if succ not in state:
                    state[succ] = 1
                    stack.append((succ, iter(edges[succ])))
                    break
                if state[succ] == 1:
                    cut.add(succ)
            else:
                state[key] = 2
                stack.pop()
    return [key for key in grammar.reachable if key in cut]


def _char_mask(char: str, case_sensitive: bool) -> int:
    mask = 1 << ord(char)
    if not case_sensitive and char.isascii() and char.isalpha():
        mask |= 1 << ord(char.swapcase())
    return mask


def _bits(bits: int) -> tuple[int, ...]:
    found = []
    while bits:
        low = bits & -bits
        found.append(low.bit_length() - 1)
        bits ^= low
    return tuple(found)


_programs: dict[int, tuple[weakref.ref, _Program]] = {}
_programs_lock = threading.Lock()


def _program_for(grammar: ResolvedGrammar) -> _Program:
    """Compile once per grammar object, so its recognisers share the memo tables."""
    key = id(grammar)
    with _programs_lock:
        entry = _programs.get(key)
        if entry is not None and entry[0]() is grammar:
            return entry[1]
    program = _Program(grammar)

    def forget(ref, key=key):
        with _programs_lock:
            if _programs.get(key, (None,))[0] is ref:
                del _programs[key]
    try:
        ref = weakref.ref(grammar, forget)
    except TypeError:  # not weak-referenceable: just do not share
        return program
    with _programs_lock:
        _programs[key] = (ref, program)
    return program


# --------------------------------------------------------------------------------------------
# Memo tables: continuations, local states, transitions


class _Cache:
    """Interned continuations and local states with their memoised transitions.

    A local state is a frozenset of items: ``(leaf, cont)`` threads, ``(-2 - rule, cont)`` calls
    of recursive rules, and ``DONE``.  Per state the items are also kept pre-digested for
    stepping.  The slow paths hold a lock, since recognisers of one grammar share the cache.
    """

    def __init__(self, program: _Program):
        self.program = program
        self.lock = threading.RLock()
        self.conts: list[tuple | None] = [None]  # END has no frame
        self.cont_ids: dict[tuple, int] = {}
        self.states: list[frozenset] = []
        self.state_ids: dict[frozenset, int] = {}
        self.threads: list[tuple[tuple[int, int], ...]] = []  # (class mask, cont) per cont
        self.calls: list[tuple[tuple[int, int], ...]] = []  # deferred calls: (rule, cont)
        self.done: list[bool] = []
        self.live: list[bool] = []  # could still consume a byte
        self.call_starts: list[int] = []  # byte classes that can start one of the deferred calls
        self.table: list[list[int]] = []
        self.union_memo: dict[tuple[int, int], int] = {}
        self.finish_memo: dict[int, int] = {}
        self.call_memo: dict[int, int] = {}
        self.live_calls_memo: dict[tuple[int, int], tuple] = {}
        self.expected_memo: dict[frozenset, tuple] = {}
        self.intern(frozenset())  # DEAD

    def full(self, limit: int) -> bool:
        memos = (len(self.conts) + len(self.union_memo) + len(self.live_calls_memo)
                 + len(self.expected_memo))
        return len(self.states) > limit or memos > 4 * limit

    def cont(self, kind: int, node: int, count: int, parent: int) -> int:
        key = (kind, node, count, parent)
        cont = self.cont_ids.get(key)
        if cont is None:
            cont = self.cont_ids[key] = len(self.conts)
            self.conts.append(key)
        return cont

    def intern(self, items: frozenset) -> int:
        sid = self.state_ids.get(items)
        if sid is None:
            sid = self.state_ids[items] = len(self.states)
            self.states.append(items)
            self._digest(items)
            self.table.append([UNKNOWN] * self.program.classes)
        return sid

    def _digest(self, items: frozenset) -> None:
        program = self.program
        by_cont: dict[int, int] = {}
        calls = []
        starts = 0
        for head, cont in items:
            if head >= 0:
                by_cont[cont] = by_cont.get(cont, 0) | program.leaf_classes[head]
            elif head != -1:
                calls.append((-2 - head, cont))
                starts |= program.call_first_classes[-2 - head]
        self.threads.append(tuple((mask, cont) for cont, mask in by_cont.items()))
        self.calls.append(tuple(calls))
        self.done.append(DONE in items)
        self.live.append(bool(by_cont or calls))
        self.call_starts.append(starts)

    def union(self, first: int, second: int) -> int:
        key = (first, second)
        sid = self.union_memo.get(key)
        if sid is None:
            with self.lock:
                sid = self.union_memo[key] = self.intern(self.states[first] | self.states[second])
        return sid

    def step(self, sid: int, byte_class: int) -> int:
        """The local state after ``sid`` consumed a byte of ``byte_class`` (memoised)."""
        with self.lock:
            parts = [self.finish(cont) for mask, cont in self.threads[sid]
                     if mask >> byte_class & 1]
            if not parts:
                result = DEAD
            elif len(parts) == 1:
                result = parts[0]
            else:
                result = self.intern(frozenset().union(*(self.states[p] for p in parts)))
            self.table[sid][byte_class] = result
            return result

    def finish(self, cont: int) -> int:
        """The local state reached by completing whatever ``cont`` continues."""
        sid = self.finish_memo.get(cont)
        if sid is None:
            with self.lock:
                sid = self.finish_memo[cont] = self.intern(_Closure(self).finish(cont).run())
        return sid

    def call(self, rule: int) -> int:
        """The local state of a fresh call of recursive rule ``rule``."""
        sid = self.call_memo.get(rule)
        if sid is None:
            with self.lock:
                root = self.program.call_root[rule]
                sid = self.call_memo[rule] = self.intern(_Closure(self).enter(root, END).run())
        return sid

    def start(self) -> int:
        """The local state before any input."""
        sid = self.call_memo.get(-1)
        if sid is None:
            with self.lock:
                items = _Closure(self).enter(self.program.start, END).run()
                sid = self.call_memo[-1] = self.intern(items)
        return sid

    def live_calls(self, sid: int, byte_class: int) -> tuple[tuple[int, int], ...]:
        """The deferred calls in ``sid`` whose rule can start with a byte of ``byte_class``."""
        key = (sid, byte_class)
        calls = self.live_calls_memo.get(key)
        if calls is None:
            first = self.program.call_first_classes
            calls = tuple(call for call in self.calls[sid] if first[call[0]] >> byte_class & 1)
            self.live_calls_memo[key] = calls
        return calls


class _Closure:
    """Follow nodes and continuations without consuming input; collect one local state's items.

    Iterative (explicit work lists) with visited sets, so neither deep grammars nor empty loops
    can recurse or spin.
    """

    __slots__ = ("cache", "kind", "arg", "productive", "nullable", "items", "entered", "finished",
                 "lowest", "enters", "finishes")

    def __init__(self, cache: _Cache):
        self.cache = cache
        self.kind, self.arg = cache.program.kind, cache.program.arg
        self.productive = cache.program.productive
        self.nullable = cache.program.call_nullable
        self.items: set[tuple[int, int]] = set()
        self.entered: set[tuple[int, int]] = set()
        self.finished: set[int] = set()
        self.lowest: dict[tuple[int, int], int] = {}  # (repetition, parent) -> lowest count entered
        self.enters: list[tuple[int, int]] = []
        self.finishes: list[int] = []

    def enter(self, node: int, cont: int) -> "_Closure":
        self.enters.append((node, cont))
        return self

    def finish(self, cont: int) -> "_Closure":
        self.finishes.append(cont)
        return self

    def run(self) -> frozenset:
        while self.finishes or self.enters:
            if self.finishes:
                self._finish(self.finishes.pop())
            else:
                self._enter(*self.enters.pop())
        return frozenset(self.items)

    def _enter(self, node: int, cont: int) -> None:
        if (node, cont) in self.entered or not self.productive[node]:
            return
        self.entered.add((node, cont))
        kind, arg = self.kind[node], self.arg[node]
        if kind == LEAF:
            self.items.add((node, cont))
        elif kind == ALT:
            self.enters.extend((alternative, cont) for alternative in arg)
        elif kind == SEQ:
            self._enter_item(node, 0, cont)
        elif kind == REP:
            if arg[0] == 0:
                self.finishes.append(cont)
            self._iterate(node, 0, cont)
        elif kind == REF:
            self.enters.append((arg, cont))
        else:
            # The call is made only once a byte it can start with arrives; its empty match, if
            # it has one, is taken here and now, so calls never complete where they were made.
            self.items.add((-2 - arg, cont))
            if self.nullable[arg]:
                self.finishes.append(cont)

    def _enter_item(self, node: int, index: int, parent: int) -> None:
        items = self.arg[node]
        if index == len(items):
            self.finishes.append(parent)
        elif index == len(items) - 1:  # the last item finishes the concatenation: no frame needed
            self.enters.append((items[index], parent))
        else:
            self.enters.append((items[index], self.cache.cont(SEQ_FRAME, node, index + 1, parent)))

    def _finish(self, cont: int) -> None:
        if cont in self.finished:
            return
        self.finished.add(cont)
        if cont == END:
            self.items.add(DONE)
            return
        kind, node, count, parent = self.cache.conts[cont]
        if kind == SEQ_FRAME:
            self._enter_item(node, count, parent)
            return
        done = count + 1
        if done >= self.arg[node][0]:
            self.finishes.append(parent)
        self._iterate(node, done, parent)

    def _iterate(self, node: int, count: int, parent: int) -> None:
        """Enter the repetition's element after ``count`` iterations."""
        low, high, element, nullable = self.arg[node]
        if nullable:  # low is 0 then: a lower count allows everything a higher one does
            best = self.lowest.get((node, parent))
            if best is not None and best <= count:
                return
            self.lowest[(node, parent)] = count
        if high is None:  # counts above the minimum all behave alike: cap them, stay finite
            cont = self.cache.cont(REP_FRAME, node, min(count, low), parent)
        elif count == high - 1:  # the last allowed iteration finishes the repetition
            cont = parent
        else:
            cont = self.cache.cont(REP_FRAME, node, count, parent)
        self.enters.append((element, cont))


# --------------------------------------------------------------------------------------------
# Graph-structured stack


class _Node:
    """A GSS node: a call of recursive rule ``rule`` at input position ``pos``.

    ``edges`` holds (return continuation, caller's node) pairs.  The root node (rule -1) stands
    for the start rule's group; its body completing means the input so far matches.
    """

    __slots__ = ("rule", "pos", "edges")

    def __init__(self, rule: int, pos: int):
        self.rule = rule
        self.pos = pos
        self.edges: set[tuple[int, "_Node"]] = set()


def _settle(cache: _Cache, pending: list[tuple[_Node, int]]) -> tuple[list, bool]:
    """Pop the groups that completed, transitively; return the live (group, state) pairs and
    whether the root completed.

    Call states are never settled where the call was made (the caller took the empty match), so
    a node only pops after all its edges exist: no pop ever needs replaying.
    """
    done, live, finish = cache.done, cache.live, cache.finish
    if len(pending) == 1 and not done[pending[0][1]]:  # the common case: nothing to pop
        return pending if live[pending[0][1]] else [], False
    seen: set[tuple[_Node, int]] = set()
    popped: set[_Node] = set()
    fresh = []
    accepted = False
    while pending:
        item = pending.pop()
        if item in seen:
            continue
        seen.add(item)
        node, sid = item
        if done[sid]:
            if node.rule < 0:
                accepted = True
            elif node not in popped:
                popped.add(node)
                for cont, parent in node.edges:
                    pending.append((parent, finish(cont)))
        if live[sid]:
            fresh.append(item)
    return fresh, accepted


def _group(cache: _Cache, fresh: list[tuple[_Node, int]]) -> dict[_Node, int]:
    """One local state per group: the union of what arrived for it."""
    if len(fresh) == 1:
        return dict(fresh)
    groups: dict[_Node, int] = {}
    for node, sid in fresh:
        earlier = groups.get(node)
        groups[node] = sid if earlier is None else cache.union(earlier, sid)
    return groups


# --------------------------------------------------------------------------------------------
# Public interface


class Recognizer:
    """Feed input in chunks; ask for a :class:`Verdict` at any time."""

    def __init__(self, grammar: ResolvedGrammar, *, max_cache_states: int = 100_000):
        if max_cache_states < 1:
            raise ValueError("max_cache_states must be at least 1")
        self._program = _program_for(grammar)
        self._limit = max_cache_states
        self._cache = self._program.cache
        self._pos = 0
        self._dead: Verdict | None = None
        start = self._cache.start()
        if self._program.regular:
            self._sid = start
        else:
            fresh, self._accepted = _settle(self._cache, [(_Node(-1, 0), start)])
            self._config = _group(self._cache, fresh)
        if self._cache.full(self._limit):
            self._compact()

    def feed(self, chunk) -> bool:
        """Consume ``chunk``; False once no parse can continue (later chunks are then ignored)."""
        if self._dead is not None:
            return False
        data = chunk if isinstance(chunk, (bytes, bytearray)) else bytes(chunk)
        classes = data.translate(self._program.class_of)
        if self._program.regular:
            return self._feed_regular(classes)
        return self._feed_recursive(classes)

    def verdict(self) -> Verdict:
        """The verdict for everything fed so far, as if the input ended here."""
        if self._dead is not None:
            return self._dead
        if self._cache.done[self._sid] if self._program.regular else self._accepted:
            return Verdict(True, None, ())
        return Verdict(False, self._pos, self._expected(self._live_states()), True)

    # -- grammars without recursive rules: one group, one table lookup per byte ---------------

    def _feed_regular(self, classes: bytes) -> bool:
        cache, table, sid = self._cache, self._cache.table, self._sid
        for index, byte_class in enumerate(classes):
            following = table[sid][byte_class]
            if following > 0:
                sid = following
                continue
            if following == UNKNOWN:
                following = cache.step(sid, byte_class)
            if following == DEAD:
                self._die(self._pos + index, [sid])
                return False
            sid = following
            if cache.full(self._limit):
                self._sid = sid
                self._compact()
                cache, table, sid = self._cache, self._cache.table, self._sid
        self._sid = sid
        self._pos += len(classes)
        return True

    # -- grammars with recursive rules: groups and the GSS ------------------------------------

    def _feed_recursive(self, classes: bytes) -> bool:
        view, index = memoryview(classes), 0
        while index < len(classes):
            if len(self._config) == 1:
                index = self._run_single(view, index)
                if index == len(classes):
                    break
            if not self._advance(classes[index]):
                return False
            index += 1
            if self._cache.full(self._limit):
                self._compact()
        return True

    def _run_single(self, view: memoryview, index: int) -> int:
        """Steps of a lone group that neither calls nor completes: as cheap as the regular case.

        Returns the index of the first byte that needs the general :meth:`_advance`.
        """
        [(node, sid)] = self._config.items()
        table, done, call_starts = self._cache.table, self._cache.done, self._cache.call_starts
        end = index
        for byte_class in view[index:]:
            following = table[sid][byte_class]
            if following <= 0 or done[following] or call_starts[sid] >> byte_class & 1:
                break
            sid = following
            end += 1
        if end > index:
            self._config = {node: sid}
            self._accepted = False  # the lone group did not complete: the root did not either
            self._pos += end - index
        return end

    def _advance(self, byte_class: int) -> bool:
        """Step every group by one byte, making the calls it starts; then settle the pops."""
        cache = self._cache
        called: dict[int, _Node] = {}  # the GSS nodes of this position, by rule
        stepped = []
        work = list(self._config.items())
        for node, sid in work:  # grows while iterating: the calls this byte starts
            result = cache.table[sid][byte_class]
            if result == UNKNOWN:
                result = cache.step(sid, byte_class)
            if result:
                stepped.append((node, result))
            if cache.call_starts[sid] >> byte_class & 1:
                for rule, cont in cache.live_calls(sid, byte_class):
                    callee = called.get(rule)
                    if callee is None:
                        callee = called[rule] = _Node(rule, self._pos)
                        work.append((callee, cache.call(rule)))
                    callee.edges.add((cont, node))
        fresh, accepted = _settle(cache, stepped)
        if not fresh and not accepted:
            self._die(self._pos, list(self._config.values()))
            return False
        self._config, self._accepted = _group(cache, fresh), accepted
        self._pos += 1
        return True

    # -- failure ------------------------------------------------------------------------------

    def _live_states(self) -> list[int]:
        return [self._sid] if self._program.regular else list(self._config.values())

    def _die(self, offset: int, sids: list[int]) -> None:
        self._pos = offset
        self._dead = Verdict(False, offset, self._expected(sids))

    def _expected(self, sids: list[int]) -> tuple[Expectation, ...]:
        """The leaves of every thread in ``sids`` (and those deferred calls could start with)."""
        key, memo = frozenset(sids), self._cache.expected_memo
        if key not in memo:
            memo[key] = _expectations(self._program, self._cache, key)
        return memo[key]

    # -- bounding the memo tables -------------------------------------------------------------

    def _compact(self) -> None:
        """Start a new cache holding only what the live configuration refers to."""
        old, new = self._cache, _Cache(self._program)
        nodes = [] if self._program.regular else self._gss_nodes()
        sids = set(self._live_states())
        conts = {cont for sid in sids for _, cont in old.states[sid]}
        conts.update(cont for node in nodes for cont, _ in node.edges)
        moved_conts = _move_continuations(old, new, conts)
        moved = {sid: new.intern(frozenset((head, moved_conts[cont])
                                           for head, cont in old.states[sid]))
                 for sid in sids}
        for node in nodes:
            node.edges = {(moved_conts[cont], parent) for cont, parent in node.edges}
        if self._program.regular:
            self._sid = moved[self._sid]
        else:
            self._config = {node: moved[sid] for node, sid in self._config.items()}
        self._cache = self._program.cache = new

    def _gss_nodes(self) -> list[_Node]:
        """Every GSS node the configuration can still return through."""
        found = {id(node): node for node in self._config}
        stack = list(found.values())
        while stack:
            for _, parent in stack.pop().edges:
                if id(parent) not in found:
                    found[id(parent)] = parent
                    stack.append(parent)
        return list(found.values())


def _expectations(program: _Program, cache: _Cache, sids) -> tuple[Expectation, ...]:
    masks: dict[str, int] = {}
    for sid in sids:
        for head, _ in cache.states[sid]:
            if head >= 0:
                leaves = (head,)
            elif head != -1:
                leaves = program.call_first[-2 - head]
            else:
                continue
            for leaf in leaves:
                rule = program.leaf_rule[leaf]
                masks[rule] = masks.get(rule, 0) | program.arg[leaf]
    return tuple(sorted(Expectation(_ranges(mask), rule) for rule, mask in masks.items()))


def _move_continuations(old: _Cache, new: _Cache, conts: set[int]) -> dict[int, int]:
    """Re-intern ``conts`` and their ancestors in ``new``; parents always have smaller ids."""
    needed = set(conts)
    stack = list(conts)
    while stack:
        cont = stack.pop()
        if cont != END:
            parent = old.conts[cont][3]
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    moved = {END: END}
    for cont in sorted(needed - {END}):
        kind, node, count, parent = old.conts[cont]
        moved[cont] = new.cont(kind, node, count, moved[parent])
    return moved


def recognize(grammar: ResolvedGrammar, data) -> Verdict:
    """Match all of ``data`` (bytes-like) against ``grammar``'s start rule."""
    recognizer = Recognizer(grammar)
    recognizer.feed(data)
    return recognizer.verdict()
