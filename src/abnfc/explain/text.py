"""The text output of ``abnfc explain``: indented trees, two-sided diagnostics, the steps.

A tree prints one line per rule in pre-order, indented by depth, each with its alternative, its
offsets and its bytes; beyond ``max_nodes`` lines the middle is left out and counted.  A
grammar position is quoted with the project's diagnostic rendering (:func:`abnfc.errors.quote_span`),
so carets stay under the element on lines with tabs and wide characters.
"""
from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator
from typing import TypeVar

from ..charset import format_abnf, format_readable
from ..errors import quote_span
from ..frontend.ir import Origin
from ..i18n import Translate
from .model import Expected, Explanation, Step
from .search import Derivation, Leaf

MAX_SHOWN_BYTES = 32  # bytes shown on a tree line before the rest is left out
MAX_POSITIONS = 10  # grammar positions quoted for a rejected byte
MAX_INDENT = 40  # deeper tree lines are indented this far and show their depth
E = TypeVar("E")
Plural = Callable[[str, str, int], str]  # gettext's ngettext: singular, plural, count


def _english_plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


class TextRenderer:
    """Renders explanations in one language: ``translate`` turns each English sentence into the
    reader's (:mod:`abnfc.i18n`); grammar text, rule names and bytes stay as written."""

    def __init__(self, translate: Translate, plural: Plural | None = None):
        self._ = translate
        self.ngettext = plural or _english_plural

    def render(self, explanation: Explanation, max_nodes: int) -> str:
        lines = self._summary(explanation)
        if explanation.tree is not None:
            lines += self.tree_lines(explanation.tree, explanation.data, max_nodes)
        if explanation.ambiguity is not None:
            lines += self._ambiguity(explanation, max_nodes)
        if not explanation.accepted:
            lines += self._diagnostic(explanation)
        if explanation.steps is not None:
            lines += self._steps(explanation, max_nodes)
        return "\n".join(lines) + "\n"


    def _summary(self, explanation: Explanation) -> list[str]:
        outcome, start = explanation.outcome, explanation.start
        if outcome.offset is None:
            return [self.ngettext("{name}: valid ({size} byte), derived from {start}:",
                                  "{name}: valid ({size} bytes), derived from {start}:", outcome.size).format(
                name=explanation.name, size=outcome.size, start=start)]
        if outcome.offset == 0:
            return [self._("{name}: invalid at offset 0").format(name=explanation.name)]
        return [self._("{name}: invalid at offset {offset}; how {start} reads the bytes before it:").format(
            name=explanation.name, offset=outcome.offset, start=start)]


    def tree_lines(self, tree: Derivation, data: bytes, max_nodes: int = 0) -> list[str]:
        """One line per rule and per terminal (with the byte it read and where the grammar
        writes it), indented by depth: every byte of the input appears under the terminal that
        read it.  Beyond ``max_nodes`` lines the middle is left out (and never formatted: a tree
        of a long input has millions of nodes)."""
        return self._elide(_preorder(tree), max_nodes, lambda entry: self._tree_line(*entry, data), self._tree_note)

    def _tree_line(self, node: Derivation | Leaf, depth: int, data: bytes) -> str:
        indent = "  " * depth if depth <= MAX_INDENT else "  " * MAX_INDENT + f"[{depth}] "
        if isinstance(node, Leaf):
            return (f"{indent}{self.leaf_text(node.origin)}  {self._span(node.offset, node.offset + 1)}  "
                    f"{self.show_bytes(data[node.offset: node.offset + 1])}")
        return indent + self.node_text(node, data)


    def node_text(self, node: Derivation, data: bytes) -> str:
        """``UTF8-3 (alternative 2 of 4)  bytes 3-5  "€"``."""
        alternative = self._(" (alternative {number} of {count})").format(
            number=node.alternative, count=node.alternatives) if node.alternatives > 1 else ""
        state = "" if node.complete else self._(", incomplete")
        shown = self.show_bytes(data[node.start: node.end])
        return f"{node.rule}{alternative}  {self._span(node.start, node.end)}{state}  {shown}"


    def _span(self, start: int, end: int) -> str:
        if end == start:
            return self._("empty at {offset}").format(offset=start)
        if end == start + 1:
            return self._("byte {offset}").format(offset=start)
        return self._("bytes {first}-{last}").format(first=start, last=end - 1)


    def show_bytes(self, data: bytes) -> str:
        """The bytes in quotes: characters where they are printable UTF-8, escapes otherwise."""
        shown = data[:MAX_SHOWN_BYTES]
        parts, index = [], 0
        while index < len(shown):
            for length in range(1, 5):
                try:
                    char = shown[index: index + length].decode("utf-8")
                except UnicodeDecodeError:
                    continue
                break
            else:
                char, length = "", 1
            if len(char) == 1 and char.isprintable():
                parts.append("\\" + char if char in '"\\' else char)
                index += length
            else:
                parts.append(f"\\x{shown[index]:02x}")
                index += 1
        more = self._(" ... ({count} bytes)").format(count=len(data)) if len(data) > len(shown) else ""
        return '"' + "".join(parts) + '"' + more


    def element_text(self, origin: Origin) -> str:
        """The element as the grammar writes it (``%xED``, ``"http"``), or the bytes it reads."""
        span = origin.span
        if span is not None and span.line == span.end_line:
            text = span.source.line_text(span.line)[span.column - 1: span.end_column - 1]
            if text:
                return text
        return format_abnf(origin.reads)


    def leaf_text(self, origin: Origin) -> str:
        """``%xED at 10:15``: the terminal and where the grammar writes it."""
        span = origin.span
        where = self._(" at {line}:{column}").format(line=span.line, column=span.column) if span else ""
        return self.element_text(origin) + where


    def _elide(self, entries: Iterator[E], max_nodes: int, line: Callable[[E], str],
               note: Callable[[int], str]) -> list[str]:
        """The lines of ``entries``; beyond ``max_nodes`` the middle is counted (``note`` says
        how many), not formatted, and not kept."""
        if not max_nodes:
            return [line(entry) for entry in entries]
        head = max_nodes - max_nodes // 2
        lines = [line(entry) for entry in itertools.islice(entries, head)]
        last: deque[E] = deque(maxlen=max_nodes // 2)
        left_out = 0
        for entry in entries:
            if len(last) == last.maxlen:
                left_out += 1
            last.append(entry)
        if left_out:
            lines.append(note(left_out).format(count=left_out, limit=max_nodes))
        return lines + [line(entry) for entry in last]

    def _tree_note(self, count: int) -> str:
        return self.ngettext("... {count:,} more line of the tree left out (--max-nodes {limit} sets how many "
                             "are shown) ...",
                             "... {count:,} more lines of the tree left out (--max-nodes {limit} sets how many "
                             "are shown) ...", count)

    def _steps_note(self, count: int) -> str:
        return "  " + self.ngettext("... {count:,} more step left out (--max-nodes {limit} sets how many are "
                                    "shown) ...",
                                    "... {count:,} more steps left out (--max-nodes {limit} sets how many are "
                                    "shown) ...", count)


    def _ambiguity(self, explanation: Explanation, max_nodes: int) -> list[str]:
        ambiguity = explanation.ambiguity
        if ambiguity is None:
            return []
        first = ambiguity.first
        lines = [self._("ambiguous: {rule} derives {span} in more than one way; two of them:").format(
            rule=first.rule, span=self._span(first.start, first.end))]
        for number, tree in enumerate((ambiguity.first, ambiguity.second), 1):
            lines.append(self._("derivation {number}:").format(number=number))
            shown = self.tree_lines(tree, explanation.data, max_nodes)
            lines += ["  " + line for line in shown]
        return lines


    def _diagnostic(self, explanation: Explanation) -> list[str]:
        outcome, name = explanation.outcome, explanation.name
        offset = outcome.offset if outcome.offset is not None else 0
        if not explanation.expected and explanation.tree is None and not offset:
            return [self._("{name}: {start} derives no string at all, so no input is valid (abnfc lint "
                           "says why)").format(name=name, start=explanation.start)]
        if offset == outcome.size:
            what = self._("{name}, offset {offset}: the input ends here, but the grammar needs more").format(
                name=name, offset=offset)
        else:
            byte = explanation.data[offset]
            char = f" {chr(byte)!r}" if 0x20 <= byte <= 0x7E else ""
            what = self._("{name}, offset {offset}: byte 0x{byte:02X}{char} is not allowed here").format(
                name=name, offset=offset, byte=byte, char=char)
        lines = [what, "  " + outcome.hexdump(self._)]
        if not explanation.expected:
            lines.append(self.ngettext("{start} is complete after {count} byte, and nothing in it can follow",
                                       "{start} is complete after {count} bytes, and nothing in it can follow",
                                       offset).format(
                start=explanation.start, count=offset))
        for expected in explanation.expected[:MAX_POSITIONS]:
            lines += self.position_lines(expected)
        if len(explanation.expected) > MAX_POSITIONS:
            more = len(explanation.expected) - MAX_POSITIONS
            lines.append(self.ngettext("and {count} more grammar position", "and {count} more grammar positions",
                                       more).format(count=more))
        if explanation.expected and outcome.could_end and offset < outcome.size:  # [1]x: ws, or the end
            lines.append(self.ngettext("or the end of the input: {start} is complete after {count} byte",
                                       "or the end of the input: {start} is complete after {count} bytes",
                                       offset).format(start=explanation.start, count=offset))
        return lines


    def expectation_text(self, expected: Expected) -> str:
        """``UTF8-3 (alternative 3) expects %x80-9F after %xED``."""
        origin = expected.origin
        after = self._(" after {element}").format(element=self.element_text(expected.after)) if expected.after else ""
        if expected.alternatives == 1:
            return self._("{rule} expects {bytes}{after}").format(
                rule=origin.rule, bytes=format_readable(origin.reads), after=after)
        return self._("{rule} (alternative {number}) expects {bytes}{after}").format(
            rule=origin.rule, number=origin.alternative + 1, bytes=format_readable(origin.reads), after=after)


    def position_lines(self, expected: Expected) -> list[str]:
        span = expected.origin.span
        where = f"{span.location()}: " if span else ""
        return [where + self.expectation_text(expected), *(quote_span(span) if span else [])]


    def _steps(self, explanation: Explanation, max_nodes: int) -> list[str]:
        if explanation.pushdown:
            lines = [self._("steps (states and byte classes of the pushdown validator's table, as the generated "
                            "code numbers them; grammar positions from its machines before minimization):")]
        else:
            lines = [self._("steps (states and byte classes of the minimal DFA, as abnfc dfa prints it; grammar "
                            "positions from the DFA before minimization):")]
        lines += self._elide(iter(explanation.steps or ()), max_nodes, lambda step: "  " + self.step_text(step),
                             self._steps_note)
        if explanation.final_state is not None:
            state, accepting = explanation.final_state
            verdict = self._("accepting") if accepting else self._("not accepting")
            lines.append("  " + self._("end: state {state}, {verdict}").format(state=state, verdict=verdict))
        return lines


    def step_text(self, step: Step) -> str:
        """``offset 1: byte 0xC3, class 5, state 1 -> 2: read by %xC2-DF (UTF8-2, alternative 1, element 1)``."""
        char = chr(step.byte)
        shown = f" '{char}'" if step.byte < 0x80 and char.isprintable() else ""
        head = self._("offset {offset}: byte 0x{byte:02X}{char}, class {cls}, state {before} -> {after}").format(
            offset=step.offset, byte=step.byte, char=shown, cls=step.byte_class, before=step.before, after=step.after)
        if step.move > 0:
            head += self._(", opens a nested part (call state {call} pushed, depth {depth})").format(
                call=step.move, depth=step.depth)
        elif step.move < 0:
            head += self._(", closes a nested part (call state {call} popped, depth {depth})").format(
                call=-step.move, depth=step.depth)
        if step.read_by:
            return head + self._(": read by {positions}").format(positions=self._positions(step.read_by))
        if step.expected:
            return head + self._(" (dead): expected {positions}").format(positions=self._positions(step.expected))
        return head + self._(" (dead): the input could only end here")


    def _positions(self, origins: tuple[Origin, ...]) -> str:
        return "; ".join(self._("{bytes} ({rule} alternative {alternative}, element {element})").format(
            bytes=format_readable(origin.reads), rule=origin.rule, alternative=origin.alternative + 1,
            element=origin.element + 1) for origin in origins)


def _preorder(tree: Derivation) -> Iterator[tuple[Derivation | Leaf, int]]:
    """Each node of ``tree`` with its depth, in pre-order, without recursion."""
    stack: list[tuple[Derivation | Leaf, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        if isinstance(node, Derivation):
            stack.extend((child, depth + 1) for child in reversed(node.children))
