"""Why a self-embedding grammar gets no pushdown validator, shown with inputs of its language.

:mod:`.pushdown` needs two things of the machines' DFAs (from the subset construction, so that
each state is exactly the set of grammar positions the input so far can be at):

- a *call state* (the state after a byte that opens a nested part) holds nothing but positions
  waiting for the byte that closes one nested part, and does not accept;
- an accepting state of a nested part reads none of the bytes that close it.

Where one fails, a :class:`Conflict` reports it as a parser generator reports a conflict: the
byte, a shortest input after which it is read two ways, the grammar positions of both readings,
and, like the counterexamples of LR parser generators (Isradisaikul and Myers, "Finding
counterexamples from parsing conflicts", PLDI 2015), two complete inputs of the language that
share that prefix, one for each reading.  The inputs are built from shortest paths: Dijkstra
over each machine's DFA (to reach a state) and over its Thompson NFA (to finish from the
positions of one reading), a nested part being passed with a shortest string of its machine
(a least fixpoint over the machines, as for the shortest strings of a grammar's rules), and the
enclosing nested parts closed one by one on the way out.
"""
from __future__ import annotations

import functools
import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from ..charset import byte_text, members
from ..errors import AbnfError, Span
from ..frontend.ir import Origin
from ..i18n import _
from .brackets import Bracketing, CallSite
from .dfa import Dfa
from .nfa import Nfa

SHOWN = 60  # bytes of a witness input shown in messages


@dataclass(frozen=True)
class Conflict:
    """Why a grammar gets no pushdown validator: where one byte can be read two ways."""

    message: str
    span: Span | None
    prefix: bytes = b""  # a shortest input after which the byte is read two ways (the byte included)
    examples: tuple[bytes, ...] = ()  # two inputs of the language with that prefix, one per reading

    def error(self) -> AbnfError:
        return AbnfError.at(self.span, self.message)


def no_brackets(cut: Bracketing) -> Conflict:
    """The conflict of a grammar whose recursion no bracket bytes enclose."""
    embedding = cut.failure
    assert embedding is not None
    ref, names = embedding.reference, embedding.names
    message = _("rule '{rule}' gets no pushdown validator: its reference to '{target}' has no single-byte "
                "terminal before it and after it in its sequence ({path}), so no byte opens and closes "
                "the nesting; use the interpreter (abnfc check --engine interpreter)").format(
                    rule=names.get(cut.start, cut.start), target=names.get(ref.target, ref.target),
                    path=embedding.path)
    return Conflict(message, ref.span)


def first_conflict(cut: Bracketing, nfas: Mapping[str, Nfa], subsets: Mapping[str, Dfa]) -> Conflict | None:
    """The conflict with the shortest witness input, or None when both checks hold."""
    found = _conflicts(cut, subsets)
    if not found:
        return None
    blocked: dict[str, set[int]] = {}
    for key, state, _byte in found:
        blocked.setdefault(key, set()).add(state)
    witnesses = _Witnesses(cut, nfas, subsets, blocked)
    order = {key: index for index, key in enumerate(subsets)}

    def rank(conflict: tuple[str, int, int | None]):
        key, state, _byte = conflict
        prefix = witnesses.reaching(key, state)
        return (prefix is None, len(prefix or b""), prefix or b"", order[key], state)

    key, state, byte = min(found, key=rank)
    if byte is None:
        dfa = subsets[key]
        sites = {o for o in dfa.origins[state] if isinstance(o, CallSite)}
        return _call_conflict(cut, witnesses, key, state, sites, dfa.origins[state] - sites)
    return _return_conflict(cut, witnesses, key, state, byte)


def _conflicts(cut: Bracketing, subsets: Mapping[str, Dfa]) -> list[tuple[str, int, int | None]]:
    """(machine, state, None) for each call state that fails the first check; (machine, state,
    byte) for each accepting state of a nested part that reads ``byte``, one that closes it."""
    bodies = {body.key: body for body in cut.bodies}
    found: list[tuple[str, int, int | None]] = []
    for key, dfa in subsets.items():
        for state, origins in enumerate(dfa.origins):
            sites = {o for o in origins if isinstance(o, CallSite)}
            if sites and (len({s.body for s in sites}) > 1 or len(sites) < len(origins) or state in dfa.accepting):
                found.append((key, state, None))
        body = bodies.get(key)
        if body is None:
            continue
        for state in sorted(dfa.accepting):
            row = dfa.transitions[state]
            going_on = [b for b in members(body.returns) if row[dfa.byte_class[b]] != dfa.dead]
            if going_on:
                found.append((key, state, going_on[0]))
    return found


def entered(cut: Bracketing, subsets: Mapping[str, Dfa]) -> set[str]:
    """The machines some input enters: the start rule's, and those whose call states the machines
    entered reach (a rule repeated 0 times still has a machine, which nothing calls)."""
    entered, pending = {cut.start}, [cut.start]
    while pending:
        dfa = subsets[pending.pop()]
        for origins in dfa.origins:
            for origin in origins:
                if isinstance(origin, CallSite) and cut.bodies[origin.body].key not in entered:
                    entered.add(cut.bodies[origin.body].key)
                    pending.append(cut.bodies[origin.body].key)
    return entered


def _position(origin: Origin) -> str:
    where = f" ({origin.span.location()})" if origin.span else ""
    return f"'{origin.rule}'{where}"


def _call_conflict(cut: Bracketing, witnesses: _Witnesses, key: str, state: int, sites: set[CallSite],
                   others: Iterable[Origin]) -> Conflict:
    dfa = witnesses.subsets[key]
    prefix = witnesses.reaching(key, state) or b""
    first = sorted(sites, key=str)[0]
    readings = sorted(_position(o) for o in others)
    if state in dfa.accepting:
        readings.append(_("the end of '{rule}'").format(rule=cut.cut.rule(key).name))
    if len({s.body for s in sites}) > 1:
        readings.append(_("another nested part"))
    examples = witnesses.call_examples(key, state, first.body)
    message = _("rule '{rule}' gets no pushdown validator: after the input {prefix}, the byte {byte} can open "
                "the nested part of '{holder}' or be read by {others}{examples}; a pushdown validator decides "
                "on one byte (use the interpreter: abnfc check --engine interpreter)").format(
                    rule=cut.cut.start_name, prefix=_shown(prefix), byte=byte_text(prefix[-1]),
                    holder=cut.cut.rule(cut.bodies[first.body].holder).name, others=", ".join(readings),
                    examples=_examples(examples))
    return Conflict(message, cut.bodies[first.body].opens.span, prefix, examples)


def _return_conflict(cut: Bracketing, witnesses: _Witnesses, key: str, state: int, byte: int) -> Conflict:
    dfa = witnesses.subsets[key]
    body = next(b for b in cut.bodies if b.key == key)
    prefix = (witnesses.reaching(key, state) or b"") + bytes([byte])
    readers = sorted((o for o in dfa.origins[state] if any(lo <= byte <= hi for lo, hi in o.reads)), key=str)
    examples = witnesses.return_examples(key, state, byte)
    message = _("rule '{rule}' gets no pushdown validator: after the input {prefix}, the byte {byte} can close "
                "the nested part of '{holder}' or go on with it, read by {others}{examples}; a pushdown "
                "validator decides on one byte (use the interpreter: abnfc check --engine interpreter)").format(
                    rule=cut.cut.start_name, prefix=_shown(prefix), byte=byte_text(byte),
                    holder=cut.cut.rule(body.holder).name, others=", ".join(_position(o) for o in readers) or "?",
                    examples=_examples(examples))
    return Conflict(message, readers[0].span if readers else None, prefix, examples)


def _shown(data: bytes) -> str:
    text = repr(data[:SHOWN])
    return text + (_(" (and {count} more bytes)").format(count=len(data) - SHOWN) if len(data) > SHOWN else "")


def _examples(examples: tuple[bytes, ...]) -> str:
    if len(examples) != 2:
        return ""
    if examples[0] == examples[1]:
        return _(" (for example, {input} reads it both ways)").format(input=_shown(examples[0]))
    return _(" (for example, {first} reads it the first way and {second} the second)").format(
        first=_shown(examples[0]), second=_shown(examples[1]))


@dataclass(frozen=True)
class _Path:
    """A way to a state of one machine: the whole input (nested parts included) and the machine's
    own bytes (a nested part's call byte and closing byte only)."""

    whole: bytes
    own: bytes


@dataclass(frozen=True)
class _Entry:
    """How the input first enters a machine: through call state ``call`` of machine ``parent``."""

    prefix: bytes  # the whole input up to and including the call byte
    parent: str
    call: int


class _Witnesses:
    """Shortest inputs: of each machine, to each state, and on from any grammar position.

    Shortest strings and completions come from the machines' Thompson NFAs, where a path is one
    derivation, so every string built from them is in the language.  Ways to a state come from
    the DFAs, whose states the conflicts are found in, along paths that leave no conflicting
    state: such a path reads every nested part's bytes one way only, so all the positions of each
    state it reaches are real for the one input it spells."""

    def __init__(self, cut: Bracketing, nfas: Mapping[str, Nfa], subsets: Mapping[str, Dfa],
                 blocked: Mapping[str, set[int]]):
        self.cut = cut
        self.nfas = nfas
        self.subsets = subsets
        self.blocked = blocked  # the conflicting states, which paths reach but never leave
        self.keys = [body.key for body in cut.bodies]
        self.returns = {body.key: body.returns for body in cut.bodies}

    @cached_property
    def shortest(self) -> dict[str, bytes]:
        """A shortest string of each machine's language (a least fixpoint over the machines: each
        round runs Dijkstra over every machine's NFA with the others' best so far)."""
        best: dict[str, bytes] = {}
        for _round in range(len(self.nfas) + 1):
            changed = False
            for key, nfa in self.nfas.items():
                word = self._nfa_finish(nfa, [nfa.start], best, free=True)
                if word is not None and (key not in best or (len(word), word) < (len(best[key]), best[key])):
                    best[key] = word
                    changed = True
            if not changed:
                break
        return best

    @cached_property
    def entries(self) -> dict[str, _Entry]:
        """A shortest way into each nested part's machine."""
        entries: dict[str, _Entry] = {}
        reached = {self.cut.start: b""}
        for _round in range(len(self.subsets) + 1):
            changed = False
            for key, prefix in list(reached.items()):
                dfa = self.subsets[key]
                for state, path in self.paths(key).items():
                    if state in self.blocked.get(key, ()):
                        continue
                    for site in sorted({o.body for o in dfa.origins[state] if isinstance(o, CallSite)}):
                        callee, word = self.keys[site], prefix + path.whole
                        if callee not in reached or len(word) < len(reached[callee]):
                            reached[callee], entries[callee] = word, _Entry(word, key, state)
                            changed = True
            if not changed:
                break
        return entries

    def reaching(self, key: str, state: int) -> bytes | None:
        """A shortest whole input that leads to ``state`` of machine ``key`` (None: none that
        leaves no conflicting state)."""
        entry = self.entries.get(key)
        path = self.paths(key).get(state)
        if path is None or (entry is None and key != self.cut.start):
            return None
        return (entry.prefix if entry else b"") + path.whole

    @functools.cache  # noqa: B019 -- one per machine, for the lifetime of one conflict search
    def paths(self, key: str) -> dict[int, _Path]:
        """Dijkstra from the machine's start: a shortest way to each state, the closing byte of
        a call state taking a shortest string of its nested part first."""
        dfa = self.subsets[key]
        found: dict[int, _Path] = {}
        heap: list[tuple[int, bytes, bytes, int]] = [(0, b"", b"", dfa.start)]
        while heap:
            _length, whole, own, state = heapq.heappop(heap)
            if state in found:
                continue
            found[state] = _Path(whole, own)
            if state in self.blocked.get(key, ()):
                continue
            for byte, inner, target in self._moves(dfa, state):
                if target not in found:
                    step = whole + inner + bytes([byte])
                    heapq.heappush(heap, (len(step), step, own + bytes([byte]), target))
        return found

    def _moves(self, dfa: Dfa, state: int):
        """(byte, nested string before it, target) for each live class of a state that is not
        conflicting: a call state's positions all wait for one nested part."""
        sites = sorted({o.body for o in dfa.origins[state] if isinstance(o, CallSite)})
        inner = self.shortest.get(self.keys[sites[0]]) if sites else b""
        if inner is None:
            return
        for cls, target in enumerate(dfa.transitions[state]):
            if target != dfa.dead:
                yield dfa.classes[cls][0][0], inner, target

    def outer(self, key: str, closing: int | None = None) -> bytes | None:
        """What completes the input once machine ``key`` has accepted: its closing byte
        (``closing``, or the least one), then the rest of each enclosing machine in turn."""
        tail = b""
        while key != self.cut.start:
            entry = self.entries.get(key)
            if entry is None:
                return None
            byte = closing if closing is not None else self.returns[key][0][0]
            nfa = self.nfas[entry.parent]
            body = self.keys.index(key)
            waiting = [q for q in _run(nfa, self.paths(entry.parent)[entry.call].own)
                       if isinstance(origin := nfa.origins[q], CallSite) and origin.body == body]
            rest = self._nfa_finish(nfa, waiting, self.shortest, first_byte=byte, nested=False)
            if rest is None:
                return None
            tail, key, closing = tail + rest, entry.parent, None
        return tail

    def call_examples(self, key: str, state: int, body: int) -> tuple[bytes, ...]:
        """Two inputs through the conflicting call state: one that opens the nested part with its
        byte, one that reads the byte another way (or ends there)."""
        nfa, prefix = self.nfas[key], self.reaching(key, state)
        if prefix is None:
            return ()
        positions = _run(nfa, self.paths(key)[state].own)
        calls = [q for q in positions if isinstance(origin := nfa.origins[q], CallSite) and origin.body == body]
        others = [q for q in positions if nfa.edges[q] and q not in calls]  # other parts' calls too
        first = self._nfa_finish(nfa, calls, self.shortest)
        second = b"" if nfa.accept in positions else self._nfa_finish(nfa, others, self.shortest)
        outer = self.outer(key)
        if first is None or second is None or outer is None:
            return ()
        return prefix + first + outer, prefix + second + outer

    def return_examples(self, key: str, state: int, byte: int) -> tuple[bytes, ...]:
        """Two inputs through the accepting state: one whose next byte closes the nested part,
        one whose next byte goes on with it."""
        nfa, prefix = self.nfas[key], self.reaching(key, state)
        if prefix is None:
            return ()
        positions = _run(nfa, self.paths(key)[state].own)
        readers = [q for q in positions if any(lo <= byte <= hi for ranges, _t in nfa.edges[q] for lo, hi in ranges)]
        closed = self.outer(key, byte)
        going_on = self._nfa_finish(nfa, readers, self.shortest, first_byte=byte)
        outer = self.outer(key)
        if closed is None or going_on is None or outer is None:
            return ()
        return prefix + closed, prefix + going_on + outer

    def _nfa_finish(self, nfa: Nfa, starts: list[int], shortest: Mapping[str, bytes], first_byte: int | None = None,
                    nested: bool = True, free: bool = False) -> bytes | None:
        """Dijkstra over the NFA to its accepting state.  The first move is a byte move of one of
        ``starts`` (reading ``first_byte`` when given; for a position waiting for a nested part's
        closing byte, a shortest string of the part first unless ``nested`` is false), so that
        the input goes on the way those positions read it; with ``free``, the search starts at
        ``starts`` themselves (epsilon moves first)."""
        heap: list[tuple[int, bytes, int]] = []
        for q in starts:
            if free:
                heap.append((0, b"", q))
            else:
                heap.extend((len(word), word, target)
                            for word, target in self._nfa_moves(nfa, q, shortest, first_byte, nested))
        heapq.heapify(heap)
        seen: set[int] = set()
        while heap:
            _length, word, q = heapq.heappop(heap)
            if q in seen:
                continue
            seen.add(q)
            if q == nfa.accept:
                return word
            for target in nfa.epsilon[q]:
                heapq.heappush(heap, (len(word), word, target))
            for step, target in self._nfa_moves(nfa, q, shortest):
                heapq.heappush(heap, (len(word) + len(step), word + step, target))
        return None

    def _nfa_moves(self, nfa: Nfa, q: int, shortest: Mapping[str, bytes], byte: int | None = None,
                   nested: bool = True):
        """(bytes, target) of each byte move of NFA state ``q`` (on ``byte`` only, when given); a
        nested part's closing move reads a shortest string of the part first (with ``nested``)."""
        origin = nfa.origins[q]
        inner = b""
        if nested and isinstance(origin, CallSite):
            found = shortest.get(self.keys[origin.body])
            if found is None:
                return
            inner = found
        for ranges, target in nfa.edges[q]:
            if byte is None:
                yield inner + bytes([ranges[0][0]]), target
            elif any(lo <= byte <= hi for lo, hi in ranges):
                yield inner + bytes([byte]), target


def _run(nfa: Nfa, own: bytes) -> set[int]:
    """The NFA states (epsilon closure included) after the machine's own bytes ``own``: a nested
    part's call byte and closing byte are read as the NFA reads them, one after the other."""
    current = _closure(nfa, {nfa.start})
    for byte in own:
        following = {target for q in current for ranges, target in nfa.edges[q]
                     if any(lo <= byte <= hi for lo, hi in ranges)}
        current = _closure(nfa, following)
    return current


def _closure(nfa: Nfa, states: set[int]) -> set[int]:
    seen, stack = set(states), list(states)
    while stack:
        for target in nfa.epsilon[stack.pop()]:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen
