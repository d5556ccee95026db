"""The lowered grammar: what the NFA builder and the interpreter both consume.

ABNF's shorthand is gone: groups are their contents, ``[x]`` is ``0*1x``, a repetition of
exactly one is its element, and a quoted string or ``%x0D.0A`` is a sequence of single-byte
terminals with the case folding already applied.  Five node kinds remain:

    Terminal(ranges)      one byte from a set of byte ranges
    Seq(items)            items one after another (``Seq(())`` matches the empty string)
    Alt(items)            any one of the items
    Repeat(min, max, x)   x between min and max times (max None: unbounded)
    Ref(key)              the rule named ``key`` (lower-cased)

Every terminal carries its :class:`Origin`: the rule, alternative and element of the grammar it
was written in, for provenance in automata, reports and generated comments.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import assert_never

from .. import graph
from ..charset import Ranges, format_abnf
from ..errors import Span


@dataclass(frozen=True)
class Origin:
    """A grammar position: element ``element`` of alternative ``alternative`` (both 0-based) of
    ``rule``, and the bytes a terminal reads there (one character of a string, one value of
    ``%x0D.0A``, one range).  The span is left out of comparisons, so equal positions merge."""

    rule: str
    alternative: int
    element: int
    span: Span | None = field(default=None, compare=False)
    reads: Ranges = ()

    def __str__(self) -> str:
        where = f" at {self.span.location()}" if self.span else ""
        return f"{self.rule}/{self.alternative + 1}.{self.element + 1}{where}"

    def describe(self) -> str:
        """``%x80-BF (UTF8-tail, alternative 1, element 1)``: what is read, and where."""
        return f"{format_abnf(self.reads)} ({self.rule}, alternative {self.alternative + 1}, " \
               f"element {self.element + 1})"


@dataclass(frozen=True, slots=True)
class Terminal:
    ranges: Ranges
    origin: Origin


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    min: int
    max: int | None
    item: Node
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Ref:
    key: str
    span: Span | None = field(default=None, compare=False)


Node = Terminal | Seq | Alt | Repeat | Ref

EMPTY = Seq(())


def children(node: Node) -> tuple[Node, ...]:
    match node:
        case Seq() | Alt():
            return node.items
        case Repeat():
            return (node.item,)
        case Terminal() | Ref():
            return ()
        case _:
            assert_never(node)


def walk(node: Node) -> Iterator[Node]:
    """Every node under ``node`` (itself included), depth first, without recursion."""
    return graph.preorder(node, children)


def references(node: Node) -> list[str]:
    """The rules ``node`` refers to, each once, in order of first appearance."""
    return list(dict.fromkeys(n.key for n in walk(node) if isinstance(n, Ref)))
