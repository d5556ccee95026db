"""Why an input is accepted or rejected, in grammar terms: the rule, alternative and element.

Two explainers with one interface.  :class:`DfaProvenance` runs the DFA *before* minimization,
whose states are exactly the sets of grammar positions (terminals about to be read) the input
can be at, as recorded by the Thompson construction; minimization merges states reached through
different rules, so its provenance would name rules the input never reached.  The terminal that
read a byte is the one in the state before it whose byte ranges hold the byte.
:class:`InterpreterProvenance` serves recursive grammars from the interpreter's verdicts, which
name the rules whose terminals expected the next byte (not the alternative).

Notes read ``after %xED (UTF8-3, alt 3) 0xA0 is outside %x80-9F (UTF8-3, alt 3)``.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ..automata.dfa import Dfa
from ..charset import Ranges, format_readable, normalize
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar
from ..i18n import _
from ..interpret import Recognizer, recognize

MAX_LISTED = 2  # origins listed one by one; beyond this, the union of their bytes and the rules


class Provenance(Protocol):
    def explain(self, data: bytes) -> str:
        """``valid``, or where and why ``data`` is rejected."""

    def step(self, data: bytes, index: int) -> str:
        """What the grammar does with ``data[index]`` after ``data[:index]``."""

    def requirement(self, data: bytes, index: int) -> str:
        """What the grammar requires at ``index`` (the input is rejected there)."""


def byte_text(byte: int) -> str:
    return f"0x{byte:02X}"


def hex_text(data: bytes) -> str:
    """``ED A0 80``, or ``(empty)``."""
    return " ".join(f"{b:02X}" for b in data) if data else _("(empty)")


def origin_text(origin: Origin) -> str:
    return _("{bytes} ({rule}, alt {alternative})").format(bytes=format_readable(origin.reads), rule=origin.rule,
                                                           alternative=origin.alternative + 1)


def origins_text(origins: Iterable[Origin]) -> str:
    """One origin as ``%x80-9F (UTF8-3, alt 3)``; several as their bytes and rules."""
    found = sorted(set(origins), key=lambda o: (o.reads, o.rule, o.alternative, o.element))
    if len(found) <= MAX_LISTED:
        return _(" or ").join(origin_text(o) for o in found)
    rules = sorted({o.rule for o in found})
    shown = ", ".join(rules[:3]) + (_(" and {count} more").format(count=len(rules) - 3) if len(rules) > 3 else "")
    return f"{format_readable(normalize(r for o in found for r in o.reads))} ({shown})"


class DfaProvenance:
    """Explanations from the DFA before minimization (``Compiled.dfa``)."""

    def __init__(self, dfa: Dfa, start_rule: str):
        self.dfa = dfa
        self.start_rule = start_rule

    def _states(self, data: bytes) -> list[int]:
        return self.dfa.trace(data)

    def _readers(self, state: int, byte: int) -> list[Origin]:
        return [o for o in self.dfa.origins[state] if any(lo <= byte <= hi for lo, hi in o.reads)]

    def _after(self, data: bytes, states: list[int], index: int) -> str:
        if index == 0:
            return ""
        readers = self._readers(states[index - 1], data[index - 1])
        return _("after {positions}").format(positions=origins_text(readers)) + " " if readers else ""

    def step(self, data: bytes, index: int) -> str:
        states = self._states(data[: index + 1])
        state, byte = states[index], data[index]
        readers = self._readers(state, byte)
        after = self._after(data, states, index)
        if readers:
            return after + _("{byte} read by {positions}").format(byte=byte_text(byte), positions=origins_text(readers))
        if not self.dfa.origins[state]:  # nothing more can be read: the input is complete here
            return after + _("{byte} comes after a complete {rule}").format(byte=byte_text(byte), rule=self.start_rule)
        return after + _("{byte} is outside {expected}").format(byte=byte_text(byte), expected=self._expected(state))

    def requirement(self, data: bytes, index: int) -> str:
        states = self._states(data[:index])
        expected = sorted(self.dfa.origins[states[index]], key=str)
        before = self._readers(states[index - 1], data[index - 1]) if index else []
        if len(expected) == 1 and len(before) == 1 and \
                (expected[0].rule, expected[0].alternative) == (before[0].rule, before[0].alternative):
            return _("{bytes} after {position}").format(bytes=format_readable(expected[0].reads),
                                                        position=origin_text(before[0]))
        if before:
            return _("{expected} after {positions}").format(expected=self._expected(states[index]),
                                                            positions=origins_text(before))
        return self._expected(states[index])

    def _expected(self, state: int) -> str:
        origins = self.dfa.origins[state]
        return origins_text(origins) if origins else _("the end of the input")

    def explain(self, data: bytes) -> str:
        states = self._states(data)
        if states[0] == self.dfa.dead:  # the start state: the language is empty
            return _("{rule} matches no input at all").format(rule=self.start_rule)
        if states[-1] == self.dfa.dead:
            index = len(states) - 2
            return _("offset {offset}: {step}").format(offset=index, step=self.step(data, index))
        if states[-1] in self.dfa.accepting:
            return _("valid")
        if not data:
            return _("empty; {rule} expects {expected}").format(rule=self.start_rule,
                                                                expected=self._expected(states[-1]))
        return _("ends {after}; expected {expected}").format(after=self._after(data, states, len(data)).strip(),
                                                             expected=self._expected(states[-1]))


class InterpreterProvenance:
    """Explanations from the interpreter's verdicts (recursive grammars)."""

    def __init__(self, grammar: ResolvedGrammar):
        self.grammar = grammar

    def _expected(self, data: bytes) -> list[tuple[Ranges, str]]:
        recognizer = Recognizer(self.grammar)
        recognizer.feed(data)
        return [(e.ranges, e.rule) for e in recognizer.expected()]

    def step(self, data: bytes, index: int) -> str:
        byte = data[index]
        expected = self._expected(data[:index])
        readers = sorted({rule for ranges, rule in expected if any(lo <= byte <= hi for lo, hi in ranges)})
        where = _("offset {offset}: ").format(offset=index) if index else ""
        if readers:
            return where + _("{byte} read by {positions}").format(byte=byte_text(byte), positions=", ".join(readers))
        return where + _("{byte} is outside {expected}").format(byte=byte_text(byte), expected=_expected_text(expected))

    def requirement(self, data: bytes, index: int) -> str:
        return _("{expected} at offset {offset}").format(expected=_expected_text(self._expected(data[:index])),
                                                         offset=index)

    def explain(self, data: bytes) -> str:
        verdict = recognize(self.grammar, data)
        return _("valid") if verdict.matched else verdict.describe()


def _expected_text(expected: list[tuple[Ranges, str]]) -> str:
    if not expected:
        return _("the end of the input")
    rules = sorted({rule for _ranges, rule in expected})
    shown = ", ".join(rules[:3]) + (_(" and {count} more").format(count=len(rules) - 3) if len(rules) > 3 else "")
    return f"{format_readable(normalize(r for ranges, _rule in expected for r in ranges))} ({shown})"


class NoProvenance:
    """No explanations, for tools that only need the inputs (notes cost time on large DFAs)."""

    def step(self, data: bytes, index: int) -> str:
        return ""

    def requirement(self, data: bytes, index: int) -> str:
        return ""

    def explain(self, data: bytes) -> str:
        return ""
