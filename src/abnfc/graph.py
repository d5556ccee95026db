"""Graph algorithms shared by the stages: reachability, post-order, strongly connected components.

A graph is a mapping from a node to the sequence of its successors; nodes are any hashable
values.  Everything is iterative (explicit stacks), so chains of tens of thousands of rules or
automaton states cannot exhaust Python's recursion limit.

- :func:`breadth_first` -- nodes reachable from some roots, in breadth-first order.
- :func:`postorder` -- depth-first post-order: each node after the nodes it leads to (as far as
  cycles allow), the order that makes fixed-point computations settle in one pass;
  :func:`postorder_from` the same from one node, successors asked of a function as they are
  needed (automata whose edges are not a mapping, or not worth building one).
- :func:`strongly_connected` -- Tarjan's algorithm (Tarjan 1972, "Depth-first search and linear
  graph algorithms", SIAM J. Computing 1(2)); components come out in reverse topological order.
- :func:`cyclic_nodes` -- nodes on some cycle (a component of several nodes, or a self-loop).
- :func:`shortest_cycle` -- a shortest cycle through a node, by breadth-first search.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

Node = TypeVar("Node", bound=Hashable)


T = TypeVar("T")


def preorder(root: T, children: Callable[[T], Sequence[T]]) -> Iterator[T]:
    """Every node of the tree under ``root`` (itself included), depth first and in order,
    without recursion (trees here may nest as deep as an input is long)."""
    stack = [root]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def breadth_first(graph: Mapping[Node, Sequence[Node]], roots: Iterable[Node]) -> list[Node]:
    """The nodes reachable from ``roots`` (roots first), each once, in breadth-first order."""
    order: list[Node] = []
    seen: set[Node] = set()
    for root in roots:
        if root not in seen:
            seen.add(root)
            order.append(root)
    for node in order:  # grows while iterating
        for successor in graph.get(node, ()):
            if successor not in seen:
                seen.add(successor)
                order.append(successor)
    return order


def postorder(graph: Mapping[Node, Sequence[Node]], roots: Iterable[Node]) -> list[Node]:
    """Depth-first post-order of the nodes reachable from ``roots``."""
    order: list[Node] = []
    seen: set[Node] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(graph.get(root, ())))]
        while stack:
            node, successors = stack[-1]
            for successor in successors:
                if successor not in seen:
                    seen.add(successor)
                    stack.append((successor, iter(graph.get(successor, ()))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def postorder_from(root: Node, successors: Callable[[Node], Iterable[Node]], done: Iterable[Node] = ()) -> list[Node]:
    """Depth-first post-order of the nodes reachable from ``root`` without passing through those
    ``done``, each node's successors explored in the order ``successors`` gives them."""
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    seen = set(done)
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((successor, False) for successor in reversed(list(successors(node))) if successor not in seen)
    return order


def strongly_connected(graph: Mapping[Node, Sequence[Node]]) -> list[list[Node]]:
    """Tarjan's strongly connected components of ``graph`` (every key is a node)."""
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    stack: list[Node] = []
    on_stack: set[Node] = set()
    components: list[list[Node]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, edge = work.pop()
            if edge == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            successors = graph.get(node, ())
            if edge < len(successors):
                work.append((node, edge + 1))
                child = successors[edge]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                component: list[Node] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def cyclic_nodes(graph: Mapping[Node, Sequence[Node]]) -> set[Node]:
    """Nodes that lie on a cycle: members of a component with several nodes, or a self-loop."""
    found: set[Node] = set()
    for component in strongly_connected(graph):
        if len(component) > 1 or component[0] in graph.get(component[0], ()):
            found.update(component)
    return found


def shortest_cycle(graph: Mapping[Node, Sequence[Node]], start: Node, allowed: Callable[[Node], bool] = lambda _: True
                   ) -> list[Node] | None:
    """A shortest cycle ``[start, ..., last]`` (last leads back to start) through nodes that
    ``allowed`` accepts, or None."""
    parents: dict[Node, Node] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in graph.get(node, ()):
                if successor == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return list(reversed(path))
                if successor not in parents and allowed(successor):
                    parents[successor] = node
                    following.append(successor)
        frontier = following
    return None
