"""The records the interpreter's modules share: program nodes, continuation frames, items.

Program nodes (:mod:`.program` builds them from the IR; one list, nodes refer to each other by
index):

    Leaf(mask, rule)           one byte: bit b of ``mask`` is set when byte b matches
    Seq(items) / Alt(items)    node indexes
    Rep(min, max, element)     ``nullable`` says whether the element matches the empty string
    Ref(target)                a rule expanded in place: the index of its root node
    Call(rule)                 a recursive rule called through the graph-structured stack

A *continuation* says what happens after a node completes: a chain of frames, interned as
small integers (:mod:`.cache`); ``END`` means the group's body is complete.

A *local state* is a frozenset of items: ``Thread(leaf, cont)`` (a leaf waiting for its byte),
``PendingCall(rule, cont)`` (a call made only once a byte that can start the rule arrives) and
``DONE`` (the group's body completed here).
"""
from __future__ import annotations

from dataclasses import dataclass

END = 0  # continuation id: the group's body is complete
DEAD = 0  # local state id: the empty local state
UNKNOWN = -1  # transition table entry not computed yet


@dataclass(frozen=True, slots=True)
class Leaf:
    mask: int
    rule: str  # the rule whose definition holds this terminal, for failure reports


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    items: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Rep:
    min: int
    max: int | None
    element: int
    nullable: bool = False  # the element matches the empty string (min is then 0)


@dataclass(frozen=True, slots=True)
class Ref:
    target: int


@dataclass(frozen=True, slots=True)
class Call:
    rule: int


Node = Leaf | Seq | Alt | Rep | Ref | Call


@dataclass(frozen=True, slots=True)
class SeqFrame:
    """Go on with item ``index`` of concatenation ``node``, then continue with ``parent``."""

    node: int
    index: int
    parent: int


@dataclass(frozen=True, slots=True)
class RepFrame:
    """Iteration ``count`` of repetition ``node`` finished; then continue with ``parent``."""

    node: int
    count: int
    parent: int


Frame = SeqFrame | RepFrame


@dataclass(frozen=True, slots=True)
class Thread:
    leaf: int
    cont: int


@dataclass(frozen=True, slots=True)
class PendingCall:
    rule: int
    cont: int


class _Done:
    """The single item saying that the group's body completed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DONE"


DONE = _Done()

Item = Thread | PendingCall | _Done
