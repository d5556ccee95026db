"""How a grammar reads an input, in the grammar's own terms: the :class:`~.model.Explanation`
that ``abnfc explain`` prints.

For an accepted input, its derivation tree (each rule with the alternative it took, its bytes
and their offsets), and a second derivation where the grammar is ambiguous for the input.  For a
rejected input, the tree of the part before the error, and each grammar position that could
have read the next byte.  With a compilation, the automaton's steps too, one per byte.

The verdict comes from the interpreter (any grammar, recursive ones included, in linear time on
the grammars of practice); the trees come from a separate top-down search (:mod:`.search`,
:mod:`.trees`) that only runs when asked, so the interpreter keeps its speed.  The steps come
from the DFA: state numbers and byte classes of the minimal DFA (as ``abnfc dfa`` prints them),
and grammar positions from the DFA before minimization, whose states are exactly the sets of
positions.  :mod:`.text` and :mod:`.json_output` render the result.
"""
from __future__ import annotations

import sys
import threading
from array import array
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar, overload

from ..automata.dfa import Dfa
from ..charset import Ranges
from ..engines import InterpreterEngine, Outcome, check_bytes
from ..errors import AbnfError, InvariantError, Meter
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar
from ..i18n import Translate
from ..interpret.reports import WORK_PER_BYTE
from ..pipeline import Compilation, Limits
from . import trees, trellis
from .model import Expected, Explanation, Step
from .search import Ambiguity, Derivation, Leaf, Search, SearchLimitError, SearchMemoryError, rule_alternatives
from .trellis import NotRegular

STACK_BYTES = 512 << 20  # the search recurses once per nesting level of the derivation
RECURSION_LIMIT = 1_000_000
T = TypeVar("T")


def explain(compilation: Compilation, name: str, data: bytes, translate: Translate,
            steps: bool = False) -> Explanation:
    """Everything explain shows about ``data``; with ``steps``, the automaton's steps too.
    ``translate`` gives the messages of errors in the reader's language."""
    resolved, max_work = compilation.resolved, compilation.limits.max_work
    outcome = check_bytes(InterpreterEngine(resolved, max_work), data, name)
    explanation = _in_deep_stack(
        lambda: _derive(compilation.grammar.path, resolved, name, data, outcome, compilation.limits), translate)
    if not steps:
        return explanation
    found, final = automaton_steps(compilation, data)
    return replace(explanation, steps=found, final_state=final, pushdown=not resolved.is_regular)


def _derive(grammar_path: str, resolved: ResolvedGrammar, name: str, data: bytes, outcome: Outcome,
            limits: Limits) -> Explanation:
    budget = limits.max_work + WORK_PER_BYTE * len(data)  # as the interpreter's
    try:
        nfa = trellis.build(resolved, limits.max_nfa_states)
        tree, more = _on_paths(nfa, resolved, data, outcome, limits, budget)
    except NotRegular:  # recursion, or more states than the limits allow: the tree search
        tree, more = _by_search(resolved, data, outcome, budget)
    return Explanation(grammar_path, resolved.start_name, name, data, outcome, tree, **more)


def _on_paths(nfa: trellis.TreeNfa, resolved: ResolvedGrammar, data: bytes, outcome: Outcome,
              limits: Limits, budget: int) -> tuple[Derivation | None, dict]:
    meter = Meter(budget, SearchLimitError)

    def paths(prefix: bytes, open_: bool) -> trellis.Paths:
        return trellis.Paths(nfa, resolved, prefix, open_, meter, limits.max_dfa_states)

    if outcome.offset is None:
        found = paths(data, False)
        _agrees(found.total > 0)
        tree = found.derivation()
        others = (found.derivation(rank) for rank in range(1, found.total))
        return tree, {"ambiguity": next(filter(None, (_divergence(tree, other) for other in others)), None)}
    prefix = data[: outcome.offset]
    found = paths(prefix, True)
    if not found.total:  # the prefix is complete, and nothing can follow it
        complete = paths(prefix, False)
        if not complete.total:
            _agrees(not prefix)  # the start rule derives nothing at all
            return None, {}
        return complete.derivation(), {}
    tree = found.derivation()
    return _shown(tree), {"expected": _expected(resolved, found.ends(), tree)}


def _by_search(resolved: ResolvedGrammar, data: bytes, outcome: Outcome,
               budget: int) -> tuple[Derivation | None, dict]:
    if outcome.offset is None:
        search = Search(resolved, data, budget)
        tree = trees.tree(search)
        _agrees(tree is not None)
        return tree, {"ambiguity": _ambiguity(search, tree)}
    search = Search(resolved, data[: outcome.offset], budget)
    tree = trees.open_tree(search)
    if tree is None:  # the prefix is complete, and nothing can follow it
        tree = trees.tree(search)
        _agrees(tree is not None or not search.data)  # or the start rule derives nothing at all
        return tree, {}
    return _shown(tree), {"expected": _expected(resolved, [t.origin for t in search.expected()], tree)}


def _shown(tree: Derivation) -> Derivation | None:
    return tree if tree.end > tree.start else None  # rejected at offset 0: nothing was read


def _expected(resolved: ResolvedGrammar, origins: list[Origin], tree: Derivation) -> tuple[Expected, ...]:
    counts = {rule.name: len(rule_alternatives(resolved, key)) for key, rule in resolved.rules.items()
              if key in resolved.ir}
    distinct = {(o, o.span): o for o in origins}.values()  # equal positions written in two places stay two
    expected = (Expected(o, _after(o, tree), counts.get(o.rule, 1)) for o in distinct)
    return tuple(sorted(expected, key=_position))


def _agrees(found: bool) -> None:
    InvariantError.check(found, "the interpreter accepts what the tree search cannot derive")


def _ambiguity(search: Search, tree: Derivation | None) -> Ambiguity | None:
    if search.ambiguity is None or tree is None:
        return None
    (key, i, j), choice = search.ambiguity
    first = trees.rebuild(search, key, i, j, {})
    second = trees.rebuild(search, key, i, j, {choice: 1})
    if first is None or second is None or _shape(first) == _shape(second):
        return None
    return Ambiguity(first, second)


def _divergence(first: Derivation, second: Derivation) -> Ambiguity | None:
    """The two derivations from where they part: the deepest rule over the same bytes in both
    that holds every difference between them."""
    while (first.alternative == second.alternative and len(first.children) == len(second.children)):
        differing = [(a, b) for a, b in zip(first.children, second.children, strict=True)
                     if _shape(a) != _shape(b)]
        if len(differing) != 1:
            break
        a, b = differing[0]
        if not (isinstance(a, Derivation) and isinstance(b, Derivation)
                and (a.rule, a.start, a.end) == (b.rule, b.start, b.end)):
            break
        first, second = a, b
    return None if _shape(first) == _shape(second) else Ambiguity(first, second)


def _shape(tree: Derivation | Leaf) -> list:
    """What tells two derivations apart: each node with its depth and its place in the grammar
    text (origins compare without their spans, so equal terminals written apart would look alike)."""
    shape: list = []
    stack: list[tuple[Derivation | Leaf, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Leaf):
            shape.append((depth, node.offset, node.origin, node.origin.span))
        else:
            shape.append((depth, node.rule, node.alternative, node.start, node.end))
            stack.extend((child, depth + 1) for child in reversed(node.children))
    return shape


def _after(origin: Origin, tree: Derivation) -> Origin | None:
    """The position that read the last byte of the tree, if it is the element just before
    ``origin`` in the same alternative."""
    leaves = [node for node in tree.walk() if isinstance(node, Leaf)]
    if not leaves:
        return None
    last = max(leaves, key=lambda leaf: leaf.offset).origin
    if (last.rule, last.alternative) != (origin.rule, origin.alternative):
        return None
    return last if last.element == origin.element - 1 else None


def _position(expected: Expected):
    span = expected.origin.span
    where = (span.source.name, span.line, span.column) if span else ("", 0, 0)
    return (*where, expected.origin.rule, expected.origin.reads)


def automaton_steps(compilation: Compilation, data: bytes) -> tuple[Steps, tuple[int, bool] | None]:
    """The minimal DFA's steps over ``data`` (up to the byte that leads to the dead state), with
    the positions of the DFA before minimization, run alongside; for a self-embedding grammar,
    the steps of its pushdown validator (minimal machines, and machines from the subset
    construction alongside), with their calls and returns."""
    if not compilation.resolved.is_regular:
        return _pushdown_steps(compilation, data)
    minimal, exact = compilation.minimal, compilation.dfa
    states, positions = minimal.trace(data), exact.trace(data)  # both die on the same byte
    steps = Steps(data, minimal, exact, states, positions)
    last = states[-1]
    final = None if last == minimal.dead else (last, last in minimal.accepting)
    return steps, final


def _pushdown_steps(compilation: Compilation, data: bytes) -> tuple[Steps, tuple[int, bool] | None]:
    minimal, exact = compilation.pushdown_automaton(), compilation.pushdown_automaton("subset")
    states, depths, moves = minimal.trace(data)
    positions, _depths, exact_moves = exact.trace(data)  # the same calls and returns, state for state
    steps = Steps(data, minimal.dfa, exact.dfa, states, positions, depths, moves, exact_moves)
    steps.exact_returns = exact.returns
    last = states[-1]
    complete = last in minimal.dfa.accepting and (not depths or depths[-1] == 0)
    final = None if last == minimal.dfa.dead else (last, complete)
    return steps, final


class Steps(Sequence[Step]):
    """The steps of a run, each made when it is asked for: the runs through the two DFAs are
    kept (an int a byte), not a million Step objects for a 1 MiB input."""

    def __init__(self, data: bytes, minimal: Dfa, exact: Dfa, states: list[int], positions: list[int],
                 depths: list[int] | None = None, moves: list[int] | None = None, exact_moves: list[int] | None = None):
        """For a pushdown validator, ``depths`` and ``moves`` (see :meth:`Pushdown.trace`) of the
        minimal run, and ``exact_moves`` of the run alongside: the call state a return pops
        there reads the closing byte."""
        self.data, self.minimal, self.exact = data, minimal, exact
        self.states, self.positions = array("l", states), array("l", positions)
        self.depths, self.moves = array("l", depths or ()), array("l", moves or ())
        self.exact_moves = array("l", exact_moves or ())
        self.exact_returns: tuple[Ranges, ...] | None = None  # set for a pushdown validator
        self.seen: dict[tuple[int, int], tuple[tuple[Origin, ...], tuple[Origin, ...]]] = {}  # shared by alike steps

    def __len__(self) -> int:
        return len(self.states) - 1

    @overload
    def __getitem__(self, index: int) -> Step: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Step]: ...

    def __getitem__(self, index: int | slice) -> Step | Sequence[Step]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        offset = index % len(self)
        byte, position = self.data[offset], self.positions[offset]
        if self.exact_moves and self.exact_moves[offset] < 0:  # a return: the call state reads the byte
            position = -self.exact_moves[offset]
        found = self.seen.get((position, byte))
        if found is None:
            readers = _readers(self.exact, position, byte)
            expected = tuple(sorted(self._expected_at(offset, position), key=_origin_order)) if not readers else ()
            found = (readers, expected)
            if not self.exact_moves:  # what the pushdown expects depends on its stack too
                self.seen[(position, byte)] = found
        move, depth = (self.moves[offset], self.depths[offset]) if self.moves else (0, 0)
        return Step(offset, byte, self.minimal.byte_class[byte], self.states[offset], self.states[offset + 1],
                    *found, move, depth)


    def _expected_at(self, offset: int, position: int) -> set[Origin]:
        """The positions that could read the byte at ``offset`` (where the run fails): those of
        the state, and in a pushdown validator those of the call state on top of the stack, which
        wait for the byte that closes the nested part (when the state may close it)."""
        expected = set(self.exact.origins[position])
        stack: list[int] = []
        for move in self.exact_moves[:offset]:
            if move > 0:
                stack.append(move)
            elif move < 0:
                stack.pop()
        if stack and self.exact_returns is not None and self.exact_returns[position]:
            expected |= self.exact.origins[stack[-1]]
        return expected


def _readers(dfa: Dfa, state: int, byte: int) -> tuple[Origin, ...]:
    found = (o for o in dfa.origins[state] if any(lo <= byte <= hi for lo, hi in o.reads))
    return tuple(sorted(found, key=_origin_order))


def _origin_order(origin: Origin):
    return (origin.rule, origin.alternative, origin.element, origin.reads)


def _in_deep_stack(function: Callable[[], T], _: Translate) -> T:
    """``function()`` in a thread with a large stack and recursion limit: the tree search
    recurses once per nesting level of the derivation, and a long right-recursive list nests as
    deep as it is long."""
    result: dict[str, object] = {}

    def target() -> None:
        try:
            result["value"] = function()
        except BaseException as error:  # handed to the caller's thread
            result["error"] = error

    previous_stack, previous_limit = threading.stack_size(), sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
    try:
        for stack in (STACK_BYTES, previous_stack):  # the second where address space is limited
            threading.stack_size(stack)
            worker = threading.Thread(target=target, name="abnfc-explain", daemon=True)
            try:
                worker.start()
            except RuntimeError:
                continue
            worker.join()
            break
        else:
            raise AbnfError.at(None, _("cannot start a thread for the tree search"))
    finally:
        threading.stack_size(previous_stack)
        sys.setrecursionlimit(previous_limit)
    error = result.get("error")
    if isinstance(error, SearchLimitError):
        raise AbnfError.at(None, _("the tree search gave up after {steps:,} steps, more than its limit "
                                   "of {limit:,} (--max-work plus {per_byte} a byte of input): explain "
                                   "is meant for inputs of modest size; raise the limit with --max-work "
                                   "if this is intended").format(
                                       steps=error.steps, limit=error.limit, per_byte=WORK_PER_BYTE))
    if isinstance(error, SearchMemoryError):
        raise AbnfError.at(None, _("the tree search would keep more than {limit:,} answers in memory (about "
                                   "{size} MB): explain is meant for inputs of modest size; try a shorter "
                                   "input").format(limit=error.limit, size=error.limit * 300 >> 20))
    if isinstance(error, RecursionError):
        raise AbnfError.at(None, _("the input's derivation nests too deeply for explain"))
    if isinstance(error, BaseException):
        raise error
    return result["value"]  # type: ignore[return-value]


__all__ = ["explain"]
