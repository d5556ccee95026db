"""AST -> IR: lower ABNF's shorthand once, for the NFA builder and the interpreter alike.

A post-order walk with an explicit stack (so nesting depth never meets the recursion limit)
that rebuilds each node from its already lowered children; see :mod:`abnfc.frontend.ir` for
what the result looks like.  Each terminal is tagged with its :class:`~abnfc.frontend.ir.Origin`:
the index of the rule's top-level alternative and of the element within it.

In ``utf-8`` mode (:mod:`.encoding`) a numeric value is a code point: it becomes the terminals
of its UTF-8 encoding, and a range becomes the alternatives :func:`.encoding.sequences`
gives, so everything after lowering still reads bytes.
"""
from __future__ import annotations

from typing import assert_never

from ..charset import Ranges, case_variants, normalize
from ..errors import AbnfError, InvariantError
from ..i18n import _
from . import ast, ir
from .encoding import OCTETS, encode, sequences


def lower_rule(name: str, definition: ast.Node, encoding: str = OCTETS, prose: bool = False) -> ir.Node:
    """The IR of rule ``name`` defined as ``definition``, with terminal values in ``encoding``;
    with ``prose``, a prose value matches nothing (a grammar drawn as written), else it is an error."""
    utf8 = encoding != OCTETS
    alternatives = definition.alternatives if isinstance(definition, ast.Alternation) else (definition,)
    lowered = []
    for alt_index, alternative in enumerate(alternatives):
        items = alternative.items if isinstance(alternative, ast.Concatenation) else (alternative,)
        lowered.append(_sequence([_lower(item, name, alt_index, index, utf8, prose)
                                  for index, item in enumerate(items)]))
    return _choice(lowered)


def _lower(node: ast.Node, rule: str, alternative: int, element: int, utf8: bool, prose: bool) -> ir.Node:
    built: list[ir.Node] = []
    stack: list[tuple[ast.Node, bool]] = [(node, False)]
    while stack:
        current, ready = stack.pop()
        kids = ast.children(current)
        if kids and not ready:
            stack.append((current, True))
            stack.extend((kid, False) for kid in reversed(kids))
            continue
        args = built[len(built) - len(kids):]
        del built[len(built) - len(kids):]
        built.append(_rebuild(current, args, ir.Origin(rule, alternative, element, current.span), utf8, prose))
    return built[0]


def _rebuild(node: ast.Node, args: list[ir.Node], where: ir.Origin, utf8: bool, prose: bool) -> ir.Node:
    match node:
        case ast.Alternation():
            return _choice(args)
        case ast.Concatenation():
            return _sequence(args)
        case ast.Group():
            return args[0]
        case ast.Option():
            return ir.Repeat(0, 1, args[0], node.span)
        case ast.Repetition():
            if node.max == 0:
                return ir.EMPTY
            if node.min == node.max == 1:
                return args[0]
            return ir.Repeat(node.min, node.max, args[0], node.span)
        case ast.RuleRef():
            return ir.Ref(node.key, node.span)
        case ast.CharVal():
            return _string([case_variants(ch, node.case_sensitive) for ch in node.text], where)
        case ast.NumVal() if utf8:
            return _string([((byte, byte),) for value in node.values for byte in encode(value)], where)
        case ast.NumVal():
            return _string([((value, value),) for value in node.values], where)
        case ast.NumRange() if utf8:
            return _code_point_range(node, where)
        case ast.NumRange():
            return _string([((node.low, node.high),)], where)
        case ast.ProseVal() if prose:
            return ir.Alt(())  # matches nothing: the text is described, not defined
        case ast.ProseVal():
            raise AbnfError.at(node.span, _("{prose} cannot be compiled: it describes its text in words, "
                                            "not in ABNF; replace it with rules").format(prose=node))
        case _:
            assert_never(node)


def _code_point_range(node: ast.NumRange, where: ir.Origin) -> ir.Node:
    found = sequences(node.low, node.high)
    if not found:
        raise InvariantError(f"{node} holds only surrogates; resolve reports that before lowering")
    return _choice([_string([(byte_range,) for byte_range in sequence], where) for sequence in found])


def _string(steps: list[Ranges], where: ir.Origin) -> ir.Node:
    terminals: list[ir.Node] = []
    for ranges in steps:
        reads = normalize(ranges)
        origin = ir.Origin(where.rule, where.alternative, where.element, where.span, reads)
        terminals.append(ir.Terminal(reads, origin))
    return _sequence(terminals)


def _sequence(items: list[ir.Node]) -> ir.Node:
    return items[0] if len(items) == 1 else ir.Seq(tuple(items))


def _choice(items: list[ir.Node]) -> ir.Node:
    return items[0] if len(items) == 1 else ir.Alt(tuple(items))
