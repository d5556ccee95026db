"""Pushdown validators: one minimal DFA per machine, calls on bracket bytes, returns on their mates.

The grammar is cut at its brackets (:mod:`.brackets`): the start rule and every nested part become
*machines*, regular grammars over bytes in which a nested part ``<c MID r>`` is read as ``c r``.
Each machine goes through the regular pipeline (Thompson NFA, subset construction), and is then
checked for determinism, as a visibly pushdown automaton needs (Alur and Madhusudan 2004):

- a *call state*, the state after ``c``, holds nothing but positions waiting for the ``r`` of one
  nested part (a :class:`~.brackets.CallSite`) and does not accept; otherwise the byte ``c``
  could open the nested part or be read in another way, and the machine needs to see further
  ahead than one byte to tell;
- an accepting state of a nested part reads no byte that ends it (``r``): otherwise that byte
  could close the part or go on with it.

:mod:`.conflicts` checks both and, where one fails, says where with inputs that show it.  Where
both hold, each machine is minimized (Hopcroft; call states of different nested parts are never
merged) and the machines are put into one table over common byte classes.  Running it:

    state = start, stack empty
    for each byte b:
        t = table[state][b]
        t dead and state returns on b (an accepting state of a nested part, b one of its r):
            pop k (a call state), t = table[k][b]      -- continue after the nested part
        t dead otherwise: error at b
        t a call state: push t, t = start of its nested part (beyond the depth limit: error)
        state = t
    valid when the stack is empty and the state accepts

so memory grows with the nesting depth only and time is one table step a byte, plus a push or a
pop on bracket bytes.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple

from ..charset import Ranges, contiguous_classes, intersect, members, normalize
from ..errors import InvariantError, LimitError, PicklableError, Span
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar
from ..i18n import _
from .brackets import Bracketing, CallSite, bracket
from .conflicts import Conflict, entered, first_conflict, no_brackets
from .dfa import DEFAULT_MAX_DFA_STATES, DEFAULT_MAX_WORK, Dfa, determinize
from .minimize import minimize
from .nfa import DEFAULT_MAX_NFA_STATES
from .nfa import build as build_nfa

DEFAULT_MAX_DEPTH = 100_000  # nesting depth of generated validators unless the caller sets one


@dataclass(frozen=True)
class Machine:
    """One machine of a pushdown validator: the start rule's, or a nested part's."""

    key: str
    name: str  # what messages call it
    first: int  # its states are first..end-1 in the global table
    end: int
    start: int
    returns: Ranges  # the bytes that end a nested part; () for the start rule's machine
    holder: str = ""  # the rule a nested part was cut from (key)
    opens: Span | None = None  # where its call byte is written
    closes: str = ""  # the rule whose terminal reads the byte that ends it


@dataclass(frozen=True)
class Pushdown:
    """Every machine's minimal DFA in one table, with the calls and returns between them.

    ``dfa`` is an ordinary DFA whose ``accepting`` states are the start machine's; ``calls`` maps
    each call state to the start of the machine it calls; ``returns[s]`` holds the bytes on
    which state ``s`` (an accepting state of a nested part) returns."""

    dfa: Dfa
    calls: Mapping[int, int]
    returns: tuple[Ranges, ...]
    machines: tuple[Machine, ...]

    def __post_init__(self):
        check = InvariantError.check
        states = self.dfa.num_states
        check(len(self.returns) == states, "pushdown returns differ in length from the table")
        check(all(0 < k < states and 0 < e < states for k, e in self.calls.items()), "a call is out of range")
        check(all(k >= states - len(self.calls) for k in self.calls), "call states are not numbered last")
        for state, ranges in enumerate(self.returns):
            row = self.dfa.transitions[state]
            check(all(row[self.dfa.byte_class[b]] == self.dfa.dead for lo, hi in ranges for b in (lo, hi)),
                  "a state both returns on a byte and reads it")

    @property
    def start(self) -> int:
        return self.dfa.start

    @property
    def first_call(self) -> int:
        """Call states are numbered from here to the end (see :func:`_calls_last`)."""
        return self.dfa.num_states - len(self.calls)

    @property
    def num_states(self) -> int:
        return self.dfa.num_states

    @cached_property
    def return_classes(self) -> tuple[frozenset[int], ...]:
        byte_class = self.dfa.byte_class
        return tuple(frozenset(byte_class[b] for b in members(ranges)) for ranges in self.returns)

    def expected(self, state: int) -> Ranges:
        """The bytes that do not fail in ``state`` (with a call state on the stack when it returns)."""
        dfa = self.dfa
        reads = [r for cls, t in enumerate(dfa.transitions[state]) if t != dfa.dead for r in dfa.classes[cls]]
        return normalize([*reads, *self.returns[state]])

    @cached_property
    def closing(self) -> tuple[str, ...]:
        """Per state: the rule whose terminal reads the bytes it returns on ("" if none)."""
        rules = [""] * self.num_states
        for machine in self.machines:
            for state in range(machine.first, machine.end):
                if self.returns[state]:
                    rules[state] = machine.closes
        return tuple(rules)

    def expected_by_rule(self, state: int) -> list[tuple[Ranges, str]]:
        """(bytes, rule) for each rule whose terminal could read the next byte in ``state``: the
        positions it stands for, and the closing bracket where it ends a nested part."""
        dfa = self.dfa
        row = dfa.transitions[state]
        reading = normalize(r for cls, t in enumerate(row) if t != dfa.dead for r in dfa.classes[cls])
        found = [(intersect(o.reads, reading), o.rule) for o in dfa.origins[state]]
        if self.returns[state]:
            found.append((self.returns[state], self.closing[state]))
        return [(ranges, rule) for ranges, rule in found if ranges]

    def first_error(self, data: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> int | None:
        """None if ``data`` is in the language, else the offset of the first byte no valid input
        continues with, or ``len(data)``; raises :class:`NestingError` past ``max_depth``."""
        run = self.run(data, max_depth)
        return run[0]

    def run(self, data: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> tuple[int | None, int, tuple[int, ...]]:
        """(first error or None, the state reached, the stack of call states): the reference
        semantics every backend's generated validator follows."""
        dfa, calls, return_classes = self.dfa, self.calls, self.return_classes
        table, byte_class, dead = dfa.transitions, dfa.byte_class, dfa.dead
        state, stack = dfa.start, list[int]()
        for offset, byte in enumerate(data):
            cls = byte_class[byte]
            target = table[state][cls]
            if target == dead:
                if cls not in return_classes[state] or not stack:
                    return offset, state, tuple(stack)
                target = table[stack.pop()][cls]
            if target in calls:
                if len(stack) >= max_depth:
                    raise NestingError(offset, max_depth)
                stack.append(target)
                target = calls[target]
            state = target
        complete = not stack and state in dfa.accepting
        return (None if complete else len(data)), state, tuple(stack)

    def trace(self, data: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> tuple[list[int], list[int], list[int]]:
        """The run over ``data`` up to the byte it fails on: the state before each byte and after
        the last one taken, the depth after each byte, and for each byte the call state it
        pushed (positive), popped (negative) or 0.  Raises NestingError past ``max_depth``."""
        dfa, calls, return_classes = self.dfa, self.calls, self.return_classes
        table, byte_class, dead = dfa.transitions, dfa.byte_class, dfa.dead
        state, stack = dfa.start, list[int]()
        states, depths, moves = [state], [], []
        for offset, byte in enumerate(data):
            cls, move = byte_class[byte], 0
            target = table[state][cls]
            if target == dead and cls in return_classes[state] and stack:
                move = -stack[-1]
                target = table[stack.pop()][cls]
            if target in calls:
                if len(stack) >= max_depth:
                    raise NestingError(offset, max_depth)
                stack.append(target)
                move, target = target, calls[target]
            states.append(target)
            depths.append(len(stack))
            moves.append(move)
            if target == dead:
                break
            state = target
        return states, depths, moves

    def matches(self, data: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> bool:
        return self.first_error(data, max_depth) is None

    def unfold(self, depth: int, max_states: int = DEFAULT_MAX_DFA_STATES) -> Dfa:
        """A DFA (not minimal) of the inputs that nest at most ``depth`` deep: its states are the
        configurations (stack, state) the validator reaches with at most ``depth`` open nested
        parts; a call beyond that leads to the dead state.  Every transition of every machine
        that such inputs take is in it, so the tools that derive inputs from an automaton cover
        the machines down to that depth.  Raises LimitError past ``max_states``."""
        dfa, calls, return_classes = self.dfa, self.calls, self.return_classes
        table, dead = dfa.transitions, dfa.dead
        start: tuple[tuple[int, ...], int] = ((), dfa.start)
        index: dict[tuple[tuple[int, ...], int], int] = {start: 1}
        configurations = [start]
        rows: list[tuple[int, ...]] = [(0,) * dfa.num_classes]
        for stack, state in configurations:  # grows while iterating: breadth-first
            row = []
            for cls in range(dfa.num_classes):
                following = _step(table, calls, return_classes, stack, state, cls, depth)
                if following is None or following[1] == dead:
                    row.append(0)
                    continue
                if following not in index:
                    if len(index) >= max_states:
                        raise LimitError.at(None, _("unfolding the pushdown validator to nesting depth {depth} "
                                                    "needs more than {limit} states; raise the limit with "
                                                    "--max-dfa-states if this is intended").format(
                                                        depth=depth, limit=max_states))
                    index[following] = len(index) + 1
                    configurations.append(following)
                row.append(index[following])
            rows.append(tuple(row))
        accepting = frozenset(number for (stack, state), number in index.items()
                              if not stack and state in dfa.accepting)
        origins = (frozenset(), *(dfa.origins[state] for _stack, state in configurations))
        return Dfa(dfa.classes, tuple(rows), 1, accepting, 0, origins)


def _step(table, calls, return_classes, stack: tuple[int, ...], state: int, cls: int,
          depth: int) -> tuple[tuple[int, ...], int] | None:
    """One step of the reference loop on a configuration; None where it fails or nests past
    ``depth``."""
    target = table[state][cls]
    if target == 0:
        if cls not in return_classes[state] or not stack:
            return None
        target, stack = table[stack[-1]][cls], stack[:-1]
    if target in calls:
        if len(stack) >= depth:
            return None
        stack, target = (*stack, target), calls[target]
    return stack, target


class NestingError(PicklableError):
    """The input nests deeper than a pushdown validator's depth limit."""

    def __init__(self, offset: int, limit: int):
        super().__init__(_("the input nests deeper than {limit} at byte offset {offset}; raise the "
                           "depth limit if this is intended").format(limit=limit, offset=offset))
        self.offset = offset
        self.limit = limit


@dataclass(frozen=True)
class Limits:
    max_nfa_states: int = DEFAULT_MAX_NFA_STATES
    max_dfa_states: int = DEFAULT_MAX_DFA_STATES
    max_work: int = DEFAULT_MAX_WORK


def build(grammar: ResolvedGrammar, limits: Limits = Limits(), minimal: bool = True) -> Pushdown | Conflict:
    """The pushdown validator of a self-embedding grammar, or the conflict that prevents it.
    With ``minimal`` false, each machine is its DFA from the subset construction, whose states
    are exactly the grammar positions the input so far can be at (as ``abnfc check`` reports
    them); otherwise its minimal DFA."""
    cut = bracket(grammar)
    if cut.failure is not None:
        return no_brackets(cut)
    nfas = {key: build_nfa(machine, limits.max_nfa_states) for key, machine in cut.machines.items()}
    subsets = {key: determinize(nfa, limits.max_dfa_states, limits.max_work) for key, nfa in nfas.items()}
    used = entered(cut, subsets)  # a nested part nothing calls (under a repetition of 0) is left out
    nfas = {key: nfa for key, nfa in nfas.items() if key in used}
    subsets = {key: dfa for key, dfa in subsets.items() if key in used}
    total = sum(dfa.num_states for dfa in subsets.values())
    if total > limits.max_dfa_states:
        raise LimitError.at(grammar.rule(grammar.start).span,
                            _("the pushdown validator needs more than {limit} states; raise the limit with "
                              "--max-dfa-states if this is intended").format(limit=limits.max_dfa_states))
    conflict = first_conflict(cut, nfas, subsets)
    if conflict is not None:
        return conflict
    if not minimal:
        return _assemble(cut, subsets)
    return _assemble(cut, {key: minimize(dfa, limits.max_work, _call_labels(dfa)) for key, dfa in subsets.items()})


def _call_labels(dfa: Dfa) -> dict[int, int]:
    """Call state -> the nested part it calls (checked by :func:`.conflicts.first_conflict` to be one)."""
    labels = {}
    for state, origins in enumerate(dfa.origins):
        sites = [o.body for o in origins if isinstance(o, CallSite)]
        if sites:
            labels[state] = sites[0]
    return labels


def _assemble(cut: Bracketing, minimal: Mapping[str, Dfa]) -> Pushdown:
    """Every machine's states in one table over common byte classes; dead state 0."""
    bodies = {body.key: body for body in cut.bodies}
    range_sets = [ranges for dfa in minimal.values() for ranges in dfa.classes]
    range_sets += [body.returns for body in cut.bodies]
    classes = contiguous_classes(range_sets)
    offsets: dict[str, int] = {}
    next_state = 1
    for key, dfa in minimal.items():
        offsets[key] = next_state
        next_state += dfa.num_states - 1  # its dead state is the shared state 0
    rows: list[tuple[int, ...]] = [(0,) * len(classes)]
    returns: list[Ranges] = [()]
    origins: list[frozenset[Origin]] = [frozenset()]
    calls: dict[int, int] = {}
    machines = []
    numbers = {key: _numbering(dfa, offsets[key]) for key, dfa in minimal.items()}
    for key, dfa in minimal.items():
        number = numbers[key]
        own_class = [dfa.byte_class[ranges[0][0]] for ranges in classes]
        body = bodies.get(key)
        for state in range(dfa.num_states):
            if state == dfa.dead:
                continue
            rows.append(tuple(number[dfa.transitions[state][own]] for own in own_class))
            returns.append(body.returns if body is not None and state in dfa.accepting else ())
            origins.append(dfa.origins[state])
        machines.append(Machine(key, cut.cut.rule(key).name, offsets[key], offsets[key] + dfa.num_states - 1,
                                number[dfa.start], body.returns if body else (), body.holder if body else "",
                                body.opens.span if body else None, body.closes.rule if body else ""))
        for state, site in _call_labels(dfa).items():
            callee = cut.bodies[site].key
            calls[number[state]] = numbers[callee][minimal[callee].start]
    top, top_number = minimal[cut.start], numbers[cut.start]
    table = Dfa(classes, tuple(rows), top_number[top.start], frozenset(top_number[s] for s in top.accepting), 0,
                tuple(origins))
    return Pushdown(*_calls_last(_merged(_Parts(table, calls, tuple(returns), tuple(machines)))))


class _Parts(NamedTuple):
    """A pushdown validator being put together (its invariants hold once it is finished)."""

    dfa: Dfa
    calls: Mapping[int, int]
    returns: tuple[Ranges, ...]
    machines: tuple[Machine, ...]


def _calls_last(pushdown: _Parts) -> _Parts:
    """Renumbered so that the call states are the highest: generated code tells a call from a
    plain step with one comparison (``state >= FIRST_CALL``).  Machines keep their ranges of
    plain states; their call states move to the end, in order."""
    dfa = pushdown.dfa
    plain = [s for s in range(dfa.num_states) if s not in pushdown.calls]
    order = plain + sorted(pushdown.calls)
    number = {old: new for new, old in enumerate(order)}
    transitions = tuple(tuple(number[t] for t in dfa.transitions[old]) for old in order)
    origins = tuple(dfa.origins[old] for old in order)
    table = Dfa(dfa.classes, transitions, number[dfa.start], frozenset(number[s] for s in dfa.accepting), 0, origins)
    calls = {number[k]: number[entry] for k, entry in pushdown.calls.items()}
    machines = []
    for machine in pushdown.machines:
        own = [number[s] for s in range(machine.first, machine.end) if s not in pushdown.calls]
        first = min(own) if own else 0
        machines.append(replace(machine, first=first, end=first + len(own), start=number[machine.start]))
    return _Parts(table, calls, tuple(pushdown.returns[old] for old in order), tuple(machines))


def _numbering(dfa: Dfa, offset: int) -> list[int]:
    """A machine's state numbers in the global table: its dead state is 0, the others in order."""
    number, following = [], offset
    for state in range(dfa.num_states):
        if state == dfa.dead:
            number.append(0)
        else:
            number.append(following)
            following += 1
    return number


def _merged(pushdown: _Parts) -> _Parts:
    """Byte classes that every state reads and returns on alike, merged into one."""
    dfa = pushdown.dfa
    by_column: dict[tuple, list[Ranges]] = {}
    return_sets = [set(members(ranges)) for ranges in pushdown.returns]
    for cls, ranges in enumerate(dfa.classes):
        column = tuple(row[cls] for row in dfa.transitions)
        returning = tuple(ranges[0][0] in returned for returned in return_sets)
        by_column.setdefault((column, returning), []).append(ranges)
    merged = sorted(((normalize(r for ranges in group for r in ranges), key[0]) for key, group in by_column.items()),
                    key=lambda item: item[0][0][0])
    classes = tuple(ranges for ranges, _column in merged)
    transitions = tuple(tuple(column[state] for _ranges, column in merged) for state in range(dfa.num_states))
    table = Dfa(classes, transitions, dfa.start, dfa.accepting, dfa.dead, dfa.origins)
    return _Parts(table, pushdown.calls, pushdown.returns, pushdown.machines)


__all__ = ["DEFAULT_MAX_DEPTH", "Conflict", "Machine", "NestingError", "Pushdown", "build"]
