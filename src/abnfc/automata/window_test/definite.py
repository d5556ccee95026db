"""Definiteness: whether the last k bytes of an input decide the DFA's state, and the least such k.

A DFA is *k-definite on its live part* when, after any prefix of at least k bytes that can still
be completed to an accepted input, the state reached is a function of the prefix's last k bytes
(definite automata: Perles, Rabin and Shamir, "The theory of definite automata", 1963; here
restricted to the live states, as a validator stops at the first dead one).  UTF-8 is 3-definite
(after 80 80 80 only the start state is live); a language with a live cycle that remembers
something, such as quoted strings, is not definite for any k.  A k-definite language is checked
by looking at every window of k+1 bytes on its own (plus the first k bytes from the start and
the state the last k bytes decide at the end), with no chain of states from one byte to the next,
which is what lets such a validator check many windows at once.

The decision uses the *pair graph* (as in Kim, McNaughton and McCloskey's test for local
testability, 1991): its nodes are the pairs of distinct live states, and a class leads from
``(p, q)`` to ``(δ(p, c), δ(q, c))`` when both are live and still distinct.  Two prefixes ending
in the same k bytes reach distinct states exactly when a path of k edges starts at the pair of
states their beginnings reached, so the least k is one more than the longest path of the graph,
and there is none when the graph has a cycle.  The graph has up to n²/2 nodes, so automata with
more than :data:`MAX_LIVE_STATES` live states are not analysed.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...i18n import _, ngettext
from ..dfa import Dfa

MAX_LIVE_STATES = 300  # pairs grow with the square of the states


@dataclass(frozen=True)
class Definiteness:
    k: int | None  # the least k; None when no k will do (or not analysed)
    analysed: bool = True  # False when the automaton was too large to analyse
    # two distinct live states that inputs ending in the same bytes, however many, can reach
    witness: tuple[int, int] | None = None

    def sentence(self) -> str:
        """What ``abnfc dfa`` says of it."""
        if not self.analysed:
            return _("definiteness not analysed: more than {limit} live states").format(limit=MAX_LIVE_STATES)
        if self.k is None:
            first, second = self.witness or (0, 0)
            return _("not definite: inputs that end in the same bytes, however many, can reach different "
                     "states (such as {first} and {second}), so a validator carries the state from byte to "
                     "byte").format(first=first, second=second)
        if self.k == 0:
            return _("0-definite: one live state, so each byte is checked on its own")
        return ngettext("{k}-definite: once an input that can still be completed is {k} byte long or longer, "
                        "its last byte decides the state; so apart from its first byte and its end, an input "
                        "is checked one window of {window} bytes at a time, each on its own",
                        "{k}-definite: once an input that can still be completed is {k} bytes long or longer, "
                        "its last {k} bytes decide the state; so apart from its first {k} bytes and its end, an "
                        "input is checked one window of {window} bytes at a time, each on its own",
                        self.k).format(k=self.k, window=self.k + 1)


def definiteness(dfa: Dfa) -> Definiteness:
    live = sorted(_live(dfa))
    if len(live) > MAX_LIVE_STATES:
        return Definiteness(None, analysed=False)
    alive = set(live)
    edges: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for i, p in enumerate(live):
        for q in live[i + 1:]:
            successors = set()
            for p_next, q_next in zip(dfa.transitions[p], dfa.transitions[q], strict=True):
                if p_next != q_next and p_next in alive and q_next in alive:
                    successors.add((min(p_next, q_next), max(p_next, q_next)))
            edges[p, q] = successors
    longest = _longest_path(edges)
    if isinstance(longest, tuple):
        return Definiteness(None, witness=longest)
    return Definiteness(0 if not edges else longest + 1)


def _longest_path(edges: dict[tuple[int, int], set[tuple[int, int]]]) -> int | tuple[int, int]:
    """The number of edges of the longest path, or a node on a cycle (Kahn's topological order,
    then longest paths backwards along it)."""
    incoming = dict.fromkeys(edges, 0)
    for successors in edges.values():
        for node in successors:
            incoming[node] += 1
    ready = [node for node, count in incoming.items() if count == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for following in edges[node]:
            incoming[following] -= 1
            if incoming[following] == 0:
                ready.append(following)
    if len(order) < len(edges):
        return min(node for node, count in incoming.items() if count > 0)
    depth: dict[tuple[int, int], int] = {}
    for node in reversed(order):
        depth[node] = max((depth[following] + 1 for following in edges[node]), default=0)
    return max(depth.values(), default=0)


def _live(dfa: Dfa) -> set[int]:
    """The states from which an accepting state can be reached (the minimal DFA's are all
    reachable)."""
    useful = set(dfa.accepting)
    changed = True
    while changed:
        changed = False
        for state, row in enumerate(dfa.transitions):
            if state not in useful and any(target in useful for target in row):
                useful.add(state)
                changed = True
    return useful
