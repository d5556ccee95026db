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
"""
from __future__ import annotations

from .cache import Cache

ROOT_RULE = -1  # the rule number of the root node, which stands for the start rule's group


class GssNode:
    """A call of recursive rule ``rule`` at input position ``pos``; ``edges`` holds
    (return continuation, caller's node) pairs."""

    __slots__ = ("edges", "pos", "rule")

    def __init__(self, rule: int, pos: int):
        self.rule = rule
        self.pos = pos
        self.edges: set[tuple[int, GssNode]] = set()

    @property
    def is_root(self) -> bool:
        return self.rule == ROOT_RULE


Config = dict[GssNode, int]  # one local state per live group


def settle(cache: Cache, pending: list[tuple[GssNode, int]]) -> tuple[list[tuple[GssNode, int]], bool]:
    """Pop the groups that completed, transitively; return the live (group, state) pairs and
    whether the root completed."""
    done, live = cache.done, cache.live
    if len(pending) == 1 and not done[pending[0][1]]:  # the common case: nothing to pop
        return pending if live[pending[0][1]] else [], False
    seen: set[tuple[GssNode, int]] = set()
    popped: set[GssNode] = set()
    fresh = []
    accepted = False
    while pending:
        item = pending.pop()
        if item in seen:
            continue
        seen.add(item)
        node, sid = item
        if done[sid]:
            if node.is_root:
                accepted = True
            elif node not in popped:
                popped.add(node)
                for cont, parent in node.edges:
                    pending.append((parent, cache.finish(cont)))
        if live[sid]:
            fresh.append(item)
    return fresh, accepted


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
        for _, parent in stack.pop().edges:
            if id(parent) not in found:
                found[id(parent)] = parent
                stack.append(parent)
    return list(found.values())
