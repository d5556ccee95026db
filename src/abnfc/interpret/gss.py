"""The graph-structured stack for calls of recursive rules, as in GLL parsing.

Scott and Johnstone (2010), "GLL parsing", LDTA 2009, ENTCS 253(7): a call of rule R at
position i is the GSS node (R, i), whose edges hold the continuations of its callers; when R's
body completes at position j > i the node *pops* and each caller continues at j.  Threads are
partitioned into *groups*, one per GSS node whose body they belong to (the start rule's group
is the root), and a group's threads form its local state.

A call is made only once the next byte is known and can start the rule, and a nullable rule's
empty match is taken by the caller's closure at once (:mod:`.closure`), so a node never pops
where it was created: every edge of a node exists before its first pop, and the replaying of
pops that GLL needs for nullable rules is unnecessary.  Nodes are only created for the current
position, so the node table and pop records are dropped as the input advances.

Tail calls skip the stack (:func:`skip_tail_calls`): an edge whose continuation completes the
caller's body and does nothing else says only "when this node pops, its caller pops too", so it
is replaced by the caller's own edges.  This is Leo's optimization of Earley parsing on the GSS
(Leo 1991, "A general context-free parsing algorithm running in linear time on every LR(k)
grammar without using lookahead", TCS 82(1)): a chain of tail calls, as right recursion through
the GSS builds (``r = "(" r ")" r / ""`` on ``()()()...``), pops in one step instead of one
step per link, and the skipped callers become garbage.  (A derivation tree would need what was
skipped: record the replaced edges there.)
"""
from __future__ import annotations

from collections.abc import Iterable

from .cache import Cache

ROOT_RULE = -1  # the rule number of the root node, which stands for the start rule's group


class GssNode:
    """A call of recursive rule ``rule`` at input position ``pos``; ``edges`` maps each return
    continuation to the callers' nodes that continue with it: the node itself when there is one
    (most calls have a single caller, and a set costs four times the memory), else a set."""

    __slots__ = ("depth", "edges", "pos", "returns", "rule", "steps")

    def __init__(self, rule: int, pos: int):
        self.rule = rule
        self.pos = pos
        self.depth = 0  # calls open above the root, when the run bounds them (see set_depths)
        self.edges: dict[int, Callers] = {}
        self.returns = 0  # see returns(): set once the node's edges are final
        # For a node that returns only to itself or the root (left recursion), the steps of its
        # group alone, memoised: (state, byte class) -> (state, work).  None for other nodes.
        self.steps: dict[tuple[int, int], tuple[int, int]] | None = None

    def add_edge(self, cont: int, caller: GssNode) -> None:
        callers = self.edges.get(cont)
        if callers is None:
            self.edges[cont] = caller
        elif isinstance(callers, GssNode):
            if callers is not caller:
                self.edges[cont] = {callers, caller}
        else:
            callers.add(caller)


Callers = GssNode | set[GssNode]
Config = dict[GssNode, int]  # one local state per live group
ANY_CLASS = -1  # a bit set holding every byte class


def each(callers: Callers) -> Iterable[GssNode]:
    return (callers,) if isinstance(callers, GssNode) else callers


def count(callers: Callers) -> int:
    return 1 if isinstance(callers, GssNode) else len(callers)


def set_depths(nodes: Iterable[GssNode]) -> int:
    """Give the new ``nodes`` of a position (in the order they were made, their edges final)
    their depth: one more than their deepest caller's, the root's being 0.  A skipped tail call
    holds its caller's callers, so it adds nothing: the depth counts the calls a run must
    remember, as a pushdown validator's stack does.  Returns the deepest."""
    deepest = 0
    for node in nodes:
        node.depth = 1 + max((caller.depth for callers in node.edges.values() for caller in each(callers)
                              if caller is not node), default=0)
        deepest = max(deepest, node.depth)
    return deepest


def returns(cache: Cache, node: GssNode) -> int:
    """The byte classes that what follows ``node``'s completion could read, as a bit set:
    a group whose body completes need not pop before a byte outside these
    (:class:`~.recognizer.RecursiveRun`).  Every class when a caller would complete in turn
    (a chain of pops, left uncomputed).  Edges are final once the node's position is over."""
    reads = 0
    for cont, callers in node.edges.items():
        state = cache.finish(cont)
        reads |= cache.reads[state]
        if cache.done[state] and any(caller.rule != ROOT_RULE for caller in each(callers)):
            return ANY_CLASS
    return reads


def finish_calls(cache: Cache, nodes) -> int:
    """Once every call of a position is made: skip the new ``nodes``' tail calls and record
    what their completion could read (:func:`returns`); returns the work done."""
    done, reads = cache.done, cache.reads
    if len(nodes) == 1:  # the common case: one call, from one older caller, without the loops below
        [node] = nodes
        if len(node.edges) == 1:
            [(cont, caller)] = node.edges.items()
            if isinstance(caller, GssNode) and caller is not node:
                state = cache.finish(cont)
                if caller.rule == ROOT_RULE:
                    node.returns, node.steps = reads[state], {}
                    return 0
                if state == cache.done_only:  # a tail call: see skip_tail_calls
                    node.edges, node.returns = caller.edges, caller.returns
                    _mark_closed(node)
                    return 1
                node.returns = ANY_CLASS if done[state] else reads[state]
                return 0
    work = skip_tail_calls(cache, nodes)
    for node in nodes:
        node.returns = returns(cache, node)
        _mark_closed(node)
    return work


def _mark_closed(node: GssNode) -> None:
    """A node that returns only to itself or to the root gets a memo of its lone steps."""
    if all(caller is node or caller.rule == ROOT_RULE for callers in node.edges.values() for caller in each(callers)):
        node.steps = {}


def skip_tail_calls(cache: Cache, nodes) -> int:
    """Replace the tail calls of the new ``nodes`` by their callers' edges; returns the work
    done (callers skipped and edges copied).

    A node whose only caller made a tail call -- Leo's "deterministic reduction path" -- shares
    that caller's edges, an O(1) step.  With several callers the node gets the union of their
    edges and of its other ones, computed once here instead of at every position where the node
    pops; highly ambiguous grammars (``r = r r / "a"``), whose callers share most of their
    edges, gain most.  Every edge of the position exists by now, so the edges taken are final;
    a caller made at this position may not have had its own tail calls skipped yet, which only
    leaves one more link to pop through.  Edges are replaced, never changed once final, so
    sharing them is safe.
    """
    work = 0
    done_only, finish = cache.done_only, cache.finish
    for node in nodes:
        edges = node.edges
        if len(edges) == 1:  # the common case, a single caller, without building sets
            [(cont, callers)] = edges.items()
            if isinstance(callers, GssNode):
                if callers.rule != ROOT_RULE and callers is not node and finish(cont) == done_only:
                    node.edges = callers.edges
                    work += 1
                continue
        tails = {cont for cont in edges if finish(cont) == done_only}
        skipped = {caller for cont in tails for caller in each(edges[cont])
                   if caller.rule != ROOT_RULE and caller is not node}
        if not skipped:
            continue
        merged = {cont: set(each(callers)) - skipped if cont in tails else set(each(callers))
                  for cont, callers in edges.items()}
        for caller in skipped:
            for cont, callers in caller.edges.items():
                merged.setdefault(cont, set()).update(each(callers))
                work += count(callers)
        node.edges = {cont: next(iter(callers)) if len(callers) == 1 else callers
                      for cont, callers in merged.items() if callers}
        work += len(skipped)
    return work


def settle(cache: Cache, pending: list[tuple[GssNode, int]]) -> tuple[list[tuple[GssNode, int]], bool, int]:
    """Pop the groups that completed, transitively; return the live (group, state) pairs,
    whether the root completed, and the number of edges followed.

    The work list holds a state and the groups it arrives at, so that the callers of a popped
    node, which highly ambiguous grammars share between many nodes, are merged as sets.
    """
    done, live = cache.done, cache.live
    if len(pending) == 1:
        node, sid = pending[0]
        if not done[sid]:  # the common case: nothing to pop
            return (pending if live[sid] else []), False, 0
        if node.rule != ROOT_RULE and len(node.edges) == 1:  # the next most common: one caller
            [(cont, callers)] = node.edges.items()
            target = cache.finish(cont)
            if isinstance(callers, GssNode) and not done[target]:
                fresh = pending if live[sid] else []
                return ([*fresh, (callers, target)] if live[target] else fresh), False, 1
    finish, finished = cache.finish, cache.finish_memo  # the memo read inline: the hot loop
    arrived: dict[int, set[GssNode]] = {}  # state -> the groups it arrived at
    popped: set[GssNode] = set()
    accepted = False
    followed = 0
    work: list[tuple[int, Callers]] = [(sid, node) for node, sid in pending]
    while work:
        sid, nodes = work.pop()
        groups = arrived.get(sid)
        if groups is None:
            groups = arrived[sid] = set()
        if isinstance(nodes, GssNode):
            if nodes in groups:
                continue
            groups.add(nodes)
            new: Iterable[GssNode] = (nodes,)
        else:
            new = nodes - groups
            if not new:
                continue
            groups |= new
        if not done[sid]:
            continue
        for node in new:
            if node.rule == ROOT_RULE:
                accepted = True
            elif node not in popped:
                popped.add(node)
                for cont, callers in node.edges.items():
                    known = finished.get(cont)
                    work.append((finish(cont) if known is None else known, callers))
                    followed += count(callers)
    fresh = [(node, sid) for sid, groups in arrived.items() if live[sid] for node in groups]
    return fresh, accepted, followed


def group(cache: Cache, fresh: list[tuple[GssNode, int]]) -> Config:
    """One local state per group: the union of what arrived for it."""
    if len(fresh) == 1:
        return dict(fresh)
    groups: Config = {}
    for node, sid in fresh:
        earlier = groups.get(node)
        groups[node] = sid if earlier is None else cache.union(earlier, sid)
    return groups


def reachable_nodes(config: Config) -> list[GssNode]:
    """Every GSS node the configuration can still return through."""
    found = {id(node): node for node in config}
    stack = list(found.values())
    while stack:
        for callers in stack.pop().edges.values():
            for parent in each(callers):
                if id(parent) not in found:
                    found[id(parent)] = parent
                    stack.append(parent)
    return list(found.values())
