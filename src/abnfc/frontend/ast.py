"""The grammar as written: frozen dataclasses with source spans; ``str()`` prints ABNF.

One class per construct of RFC 5234 section 4 and RFC 7405.  Spans are excluded from equality,
so a grammar printed with ``str()`` and parsed again compares equal to the original.  Printing
is iterative (:func:`to_text`), so no nesting depth can exhaust Python's recursion limit.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import assert_never

from .. import graph
from ..errors import Source, Span

INFINITY = None  # the ``max`` of an unbounded repetition


@dataclass(frozen=True)
class Alternation:
    alternatives: tuple[Node, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return to_text(self)


@dataclass(frozen=True)
class Concatenation:
    items: tuple[Node, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return to_text(self)


@dataclass(frozen=True)
class Repetition:
    min: int
    max: int | None
    element: Node
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return to_text(self)

    @property
    def prefix(self) -> str:
        """``3``, ``1*``, ``*4`` or ``2*5``."""
        if self.max is not None and self.min == self.max:
            return str(self.min)
        low = str(self.min) if self.min else ""
        high = "" if self.max is None else str(self.max)
        return f"{low}*{high}"


@dataclass(frozen=True)
class Group:
    element: Node
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return to_text(self)


@dataclass(frozen=True)
class Option:
    element: Node
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return to_text(self)


@dataclass(frozen=True)
class RuleRef:
    name: str
    span: Span | None = field(default=None, compare=False, repr=False)
    # The rule-table key this reference is bound to, when it is not the lower-cased name: a
    # rule taken from an imported grammar refers to that grammar's rules (frontend.imports).
    target: str | None = field(default=None, repr=False)

    @property
    def key(self) -> str:
        return self.target or self.name.lower()

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class CharVal:
    """A quoted string; case-insensitive unless ``%s`` (RFC 7405)."""

    text: str
    case_sensitive: bool = False
    prefixed: bool = False  # written with an explicit %s or %i
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        prefix = ("%s" if self.case_sensitive else "%i") if self.prefixed or self.case_sensitive else ""
        return f'{prefix}"{self.text}"'


@dataclass(frozen=True)
class NumVal:
    """``%x41`` or a concatenation ``%x0D.0A``."""

    base: str
    values: tuple[int, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"%{self.base}" + ".".join(format_number(v, self.base) for v in self.values)


@dataclass(frozen=True)
class NumRange:
    """``%x30-39``: any one terminal from ``low`` to ``high``."""

    base: str
    low: int
    high: int
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"%{self.base}{format_number(self.low, self.base)}-{format_number(self.high, self.base)}"


@dataclass(frozen=True)
class ProseVal:
    text: str
    span: Span | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"<{self.text}>"


Node = Alternation | Concatenation | Repetition | Group | Option | RuleRef | CharVal | NumVal | NumRange | ProseVal


@dataclass(frozen=True)
class Rule:
    name: str
    definition: Node
    incremental: bool = False  # defined with ``=/``
    span: Span | None = field(default=None, compare=False, repr=False)
    name_span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.name.lower()

    def __str__(self) -> str:
        return f"{self.name} {'=/' if self.incremental else '='} {self.definition}"


@dataclass(frozen=True)
class Grammar:
    rules: tuple[Rule, ...]
    source: Source | None = field(default=None, compare=False, repr=False)  # for messages

    @property
    def name(self) -> str:
        """The file the grammar was read from, for messages."""
        return self.source.name if self.source else "<grammar>"

    def __str__(self) -> str:
        return "".join(f"{rule}\n" for rule in self.rules)


_BASES = {"x": 16, "d": 10, "b": 2}


def format_number(value: int, base: str) -> str:
    if base == "x":
        return f"{value:02X}"
    if base == "b":
        return f"{value:b}"
    return str(value)


def parse_number(digits: str, base: str) -> int:
    return int(digits, _BASES[base])


_PREC_ALT, _PREC_CONCAT, _PREC_REPEAT, _PREC_ATOM = range(4)


def _precedence(node: Node) -> int:
    while True:  # a one-item alternation or concatenation binds as its item does
        if isinstance(node, Alternation) and len(node.alternatives) == 1:
            node = node.alternatives[0]
        elif isinstance(node, Concatenation) and len(node.items) == 1:
            node = node.items[0]
        else:
            break
    if isinstance(node, Alternation):
        return _PREC_ALT
    if isinstance(node, Concatenation):
        return _PREC_CONCAT if node.items else _PREC_ATOM
    if isinstance(node, Repetition):
        return _PREC_REPEAT
    return _PREC_ATOM


def to_text(root: Node) -> str:
    """``root`` printed as ABNF, parenthesised where precedence needs it; post-order, no recursion."""
    texts: dict[int, str] = {}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        kids = children(node)
        if kids and not ready:
            stack.append((node, True))
            stack.extend((kid, False) for kid in kids)
            continue
        texts[id(node)] = _text(node, [(kid, texts[id(kid)]) for kid in kids])
    return texts[id(root)]


def _text(node: Node, kids: list[tuple[Node, str]]) -> str:
    if isinstance(node, Alternation):
        return " / ".join(_wrap(kid, text, _PREC_CONCAT) for kid, text in kids)
    if isinstance(node, Concatenation):
        return " ".join(_wrap(kid, text, _PREC_REPEAT) for kid, text in kids) if kids else '""'
    if isinstance(node, Repetition):
        return node.prefix + _wrap(*kids[0], _PREC_ATOM)
    if isinstance(node, Group):
        return f"( {kids[0][1]} )"
    if isinstance(node, Option):
        return f"[ {kids[0][1]} ]"
    return str(node)


def _wrap(node: Node, text: str, needed: int) -> str:
    """``text`` (the printed ``node``), parenthesised when it binds looser than its context needs."""
    return text if _precedence(node) >= needed else f"( {text} )"


def children(node: Node) -> tuple[Node, ...]:
    match node:
        case Alternation():
            return node.alternatives
        case Concatenation():
            return node.items
        case Repetition() | Group() | Option():
            return (node.element,)
        case RuleRef() | CharVal() | NumVal() | NumRange() | ProseVal():
            return ()
        case _:
            assert_never(node)


def walk(node: Node) -> Iterator[Node]:
    """Every node under ``node`` (itself included), depth first, without recursion."""
    return graph.preorder(node, children)


def rewrite(node: Node, change: Callable[[Node], Node]) -> Node:
    """``node`` rebuilt bottom-up, each node passed to ``change`` once its children are rebuilt;
    nodes whose children did not change are kept.  An explicit stack, as in :func:`walk`."""
    built: list[Node] = []
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        current, ready = stack.pop()
        kids = children(current)
        if kids and not ready:
            stack.append((current, True))
            stack.extend((kid, False) for kid in reversed(kids))
            continue
        new_kids = tuple(built[len(built) - len(kids):]) if kids else ()
        del built[len(built) - len(kids):]
        if any(new is not old for new, old in zip(new_kids, kids, strict=True)):
            current = with_children(current, new_kids)
        built.append(change(current))
    return built[0]


def with_children(node: Node, kids: tuple[Node, ...]) -> Node:
    """``node`` with ``kids`` in place of its children (a leaf is returned as it is)."""
    match node:
        case Alternation():
            return replace(node, alternatives=kids)
        case Concatenation():
            return replace(node, items=kids)
        case Repetition() | Group() | Option():
            return replace(node, element=kids[0])
        case RuleRef() | CharVal() | NumVal() | NumRange() | ProseVal():
            return node
        case _:
            assert_never(node)
