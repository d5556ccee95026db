"""Railroad (syntax) diagrams of rules as written, drawn by the ``railroad-diagrams`` package.

Each construct of RFC 5234 maps to a piece of track: an alternation to a choice, a
concatenation to a sequence, ``[x]`` and ``*1x`` to an optional branch, ``*x`` and ``1*x`` to
loops, and other bounds to a loop whose return track is labelled with the bounds (``2 times``,
``2 to 5 times``), in the reader's language.  Terminals keep their ABNF spelling; a value or
range of printable ASCII adds the characters (``%x41-5A "A"-"Z"``), a case-sensitive string
(RFC 7405 ``%s"..."``) is drawn in its own style with a title saying so, and a rule reference
links to that rule's own diagram.  The layout is the package's, so the SVG depends only on the
grammar and the locale (numbers are computed, not measured from fonts).

Nesting deeper than :data:`MAX_DEPTH` is drawn as a note: the package lays out recursively.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import assert_never

import railroad as rr  # type: ignore[import-untyped]  # the package ships no type information

from ..frontend import ast
from ..i18n import Translate

MAX_DEPTH = 100
LinkTo = Callable[[str], str]  # rule key -> link target (an anchor or a file name)

CSS = """\
svg.railroad-diagram path { stroke-width: 2; stroke: #333; fill: none; }
svg.railroad-diagram text { font: 13px monospace; text-anchor: middle; }
svg.railroad-diagram text.label { text-anchor: start; }
svg.railroad-diagram text.comment { font: italic 11px sans-serif; }
svg.railroad-diagram rect { stroke-width: 2; stroke: #333; fill: #eef6ee; }
svg.railroad-diagram g.non-terminal rect { fill: #e8eefa; }
svg.railroad-diagram g.case-sensitive rect { fill: #fbeede; stroke-dasharray: 4 2; }
svg.railroad-diagram g.prose rect { fill: #f3f3f3; }
svg.railroad-diagram a text { fill: #1a4fb0; text-decoration: underline; }
svg.railroad-diagram rect.group-box { stroke: gray; stroke-dasharray: 10 5; fill: none; }
"""


def _english(message: str) -> str:
    return message


def diagram_svg(name: str, definition: ast.Node, link_to: LinkTo, _: Translate = _english,
                standalone: bool = False) -> str:
    """The diagram of rule ``name``; ``standalone`` adds the XML namespaces and the style, for an
    ``.svg`` file of its own (inline in HTML, the page holds the style)."""
    if _depth(definition) > MAX_DEPTH:
        body = rr.Comment(_("(nested more than {depth} levels deep: not drawn)").format(depth=MAX_DEPTH))
    else:
        body = _Drawing(link_to, _).draw(definition)
    diagram = rr.Diagram(rr.Start(label=name), body)
    out = io.StringIO()
    if standalone:
        diagram.writeStandalone(out.write, CSS)
    else:
        diagram.writeSvg(out.write)
    return _escape_text(out.getvalue())


_TEXT = re.compile(r"(<(text|title)\b[^>]*>)([^<]*)(</\2>)")


def _escape_text(svg: str) -> str:
    """``>`` escaped in the text of labels and titles: the drawing library escapes ``<`` and
    ``&`` only, and a label holding ``]]>`` (``r = "]]>"``) is not well-formed XML."""
    return _TEXT.sub(lambda m: m.group(1) + m.group(3).replace(">", "&gt;") + m.group(4), svg)


def _depth(root: ast.Node) -> int:
    deepest, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.children(node))
    return deepest


class _Drawing:
    def __init__(self, link_to: LinkTo, translate: Translate):
        self.link_to = link_to
        self._ = translate

    def draw(self, node: ast.Node) -> rr.DiagramItem:
        match node:
            case ast.Alternation():
                return rr.Choice(0, *(self.draw(alternative) for alternative in node.alternatives))
            case ast.Concatenation():
                return rr.Sequence(*(self.draw(item) for item in node.items)) if node.items else rr.Skip()
            case ast.Repetition():
                return self.repetition(node)
            case ast.Group():
                return self.draw(node.element)
            case ast.Option():
                return rr.Optional(self.draw(node.element))
            case ast.RuleRef():
                return rr.NonTerminal(node.name, href=self.link_to(node.key), title=self._("rule {name}").format(
                    name=node.name))
            case ast.CharVal():
                return self.string(node)
            case ast.NumVal():
                return rr.Terminal(str(node) + _characters(node.values), title=_hex_title(node.values))
            case ast.NumRange():
                return rr.Terminal(str(node) + _characters((node.low, node.high), "-"),
                                   title=self._("one byte from {low} to {high}").format(
                                       low=f"0x{node.low:02X}", high=f"0x{node.high:02X}"))
            case ast.ProseVal():
                return rr.Terminal(str(node), cls="prose", title=self._("prose: a description, not a definition"))
            case _:
                assert_never(node)

    def string(self, node: ast.CharVal) -> rr.DiagramItem:
        if node.case_sensitive:
            return rr.Terminal(str(node), cls="case-sensitive",
                               title=self._("case-sensitive: matches exactly these characters"))
        has_letters = any(ch.isascii() and ch.isalpha() for ch in node.text)
        title = self._("case-insensitive: any mix of upper and lower case") if has_letters else None
        return rr.Terminal(str(node), title=title)

    def repetition(self, node: ast.Repetition) -> rr.DiagramItem:
        item, low, high, _ = self.draw(node.element), node.min, node.max, self._
        if high == 0:
            return rr.Skip()
        if (low, high) == (0, 1):
            return rr.Optional(item)
        if (low, high) == (1, 1):
            return item
        if (low, high) == (0, None):
            return rr.ZeroOrMore(item)
        if (low, high) == (1, None):
            return rr.OneOrMore(item)
        if low == high:
            label = _("{count} times").format(count=low)
        elif high is None:
            label = _("{low} or more times").format(low=low)
        elif low == 0:
            label = _("at most {high} times").format(high=high)
        else:
            label = _("{low} to {high} times").format(low=low, high=high)
        loop = rr.OneOrMore(item, rr.Comment(label))
        return rr.Optional(loop) if low == 0 else loop


def _printable(value: int) -> bool:
    return 0x21 <= value <= 0x7E


def _characters(values, separator: str = "") -> str:
    """`` "A"-"Z"`` after a range of printable ASCII, `` "ab"`` after values, so they read at a
    glance; nothing for other bytes, or where a double quote would make the text ambiguous."""
    if not values or not all(_printable(v) for v in values):
        return ""
    if separator:
        return " " + separator.join(f"'{chr(v)}'" if v == 0x22 else f'"{chr(v)}"' for v in values)
    if len(values) == 1 and values[0] == 0x22:
        return " '\"'"
    return "" if 0x22 in values else ' "' + "".join(chr(v) for v in values) + '"'


def _hex_title(values) -> str:
    return " ".join(f"0x{v:02X}" for v in values)
