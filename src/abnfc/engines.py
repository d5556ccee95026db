"""The engines of ``abnfc check``: validate inputs of any size against a grammar, with the DFA, the
pushdown validator or the interpreter.

"Engine" means this one thing in abnfc: what ``abnfc check --engine`` chooses to run on an input.
The generated validators of the backends are *validators*; the stages that build automata are
*stages*.

Inputs are read in chunks of 1 MiB and fed to an incremental matcher, so memory does not grow
with the input.  The DFA engine runs the module the Python backend generates for the grammar,
loaded by the backend's runner (the same code users get); the interpreter engine is
:mod:`abnfc.interpret`.  Both
report the same things -- offset, the bytes around it, the bytes that could have continued and
the rules whose terminals wanted them -- so the output does not depend on the engine.

The DFA engine runs the automaton from the subset construction, not the minimal one: each of
its states is exactly the set of grammar positions the input so far can be at, as the
interpreter's threads are, so both engines name the same rules.  Minimization merges states
reached through different rules and would name rules the input never reached.

For a grammar in utf-8 mode, an error at a character boundary where a code point above U+007F
could follow is reported in code points (``expected U+0020-007E / U+00A0-D7FF``): the lead
bytes each rule expected, narrowed to the code points that rule's own terminals can read.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Protocol

from .automata.pushdown import Pushdown
from .charset import Ranges, byte_text, format_readable, intersect, normalize
from .errors import AbnfError, LimitError, printable
from .frontend.encoding import UTF8, code_points, format_code_points, led_by
from .frontend.resolve import ResolvedGrammar
from .i18n import N_, Translate, _, ngettext
from .interpret import DEFAULT_MAX_WORK, DepthLimitError, Recognizer
from .pipeline import Compilation, load_validators

CHUNK_SIZE = 1 << 20
CONTEXT = 8  # bytes shown on each side of an error
ENGINES = ("auto", "dfa", "interpreter")


Expected = tuple[tuple[Ranges, str], ...]  # (byte ranges, rule whose terminal reads them), sorted
MAX_RULES_SHOWN = 8
# Marked here: called through ``(translate or _)``, which pybabel extract does not recognize.
BYTES_FROM = N_("bytes from offset {offset}:")


def expected_by_rule(pairs) -> Expected:
    """(ranges, rule) pairs merged per rule, in a fixed order: by lowest byte, then rule name."""
    by_rule: dict[str, list] = {}
    for ranges, rule in pairs:
        by_rule.setdefault(rule, []).extend(ranges)
    return tuple(sorted((normalize(ranges), rule) for rule, ranges in by_rule.items()))


@dataclass(frozen=True)
class Outcome:
    name: str
    size: int
    offset: int | None  # None when the input matches
    expected: Expected
    context_start: int
    context: bytes
    code_points: Expected = ()  # ``expected`` as code points per rule, when that is clearer
    could_end: bool = False  # the input before ``offset`` is a match: it could have ended there

    @property
    def expected_bytes(self) -> Ranges:
        return normalize(r for ranges, _ in self.expected for r in ranges)

    @property
    def matched(self) -> bool:
        return self.offset is None

    def report(self) -> str:
        """The verdict as ``abnfc check`` prints it, in the command line's language."""
        if self.offset is None:
            return ngettext("{name}: valid ({count} byte)", "{name}: valid ({count} bytes)", self.size).format(
                name=self.name, count=self.size)
        if self.offset == self.size:
            what = _("unexpected end of input")
        else:
            what = self._unexpected()
        if self.code_points:
            shown, describe = self.code_points, format_code_points
        else:
            shown, describe = self.expected, format_readable
        everything = normalize(r for ranges, _unused in shown for r in ranges)
        expected = _("; expected {ranges}").format(ranges=describe(everything)) if shown else ""
        if self.could_end and self.offset < self.size:
            expected = (_("; expected {ranges} or the end of the input").format(ranges=describe(everything))
                        if shown else _("; expected the end of the input"))
        return "\n".join([_("{name}: invalid at offset {offset}: {what}").format(
            name=self.name, offset=self.offset, what=what) + expected,
                          f"  {self.hexdump()}", *self._rule_lines(shown, describe)])

    def _unexpected(self) -> str:
        at = self.offset - self.context_start if self.offset is not None else 0
        if self.code_points:
            for length in range(1, 5):
                try:
                    char = self.context[at: at + length].decode("utf-8")
                except UnicodeDecodeError:
                    continue
                if len(char) == 1:
                    shown = f" {printable(repr(char))}" if char.isprintable() else ""
                    return _("unexpected {character}").format(character=f"U+{ord(char):04X}{shown}")
        return _("unexpected byte {byte}").format(byte=byte_text(self.context[at]))

    @staticmethod
    def _rule_lines(shown: Expected, describe) -> list[str]:
        lines = ["  " + _("rule {rule} expects {ranges}").format(rule=rule, ranges=describe(ranges))
                 for ranges, rule in shown[:MAX_RULES_SHOWN]]
        if len(shown) > MAX_RULES_SHOWN:
            more = len(shown) - MAX_RULES_SHOWN
            lines.append("  " + ngettext("and {count} more rule", "and {count} more rules", more).format(count=more))
        return lines

    def hexdump(self, translate: Translate | None = None) -> str:
        """``bytes from offset 0: 61 62 63 ed [a0] 80``: the bytes around the error, in the
        language of ``translate`` (default: the command line's)."""
        cells = []
        for index, byte in enumerate(self.context):
            cell = f"{byte:02x}"
            cells.append(f"[{cell}]" if self.context_start + index == self.offset else cell)
        if self.offset == self.size:
            cells.append("[end]")
        words = (translate or _)(BYTES_FROM).format(offset=self.context_start)
        return words + " " + " ".join(cells)


class Session(Protocol):
    def feed(self, chunk: bytes) -> bool: ...
    def result(self) -> tuple[int | None, Expected]: ...
    def could_end(self) -> bool: ...  # after result(): the input before the error is a match


class Engine(Protocol):
    name: str
    resolved: ResolvedGrammar

    def session(self) -> Session: ...


class DfaEngine:
    """Runs the generated Python validator of the DFA before minimization (see above)."""

    name = "dfa"

    def __init__(self, compilation: Compilation):
        files = compilation.files(["python"], "validator", "abnfc check", which="subset")
        [self.module] = load_validators([files], "python")
        self.origins = compilation.dfa.origins
        self.accepting = compilation.dfa.accepting
        self.resolved = compilation.resolved

    def session(self) -> Session:
        return _DfaSession(self.module.Validator(), self.origins, self.accepting)


class _DfaSession:
    def __init__(self, validator, origins, accepting: frozenset[int]):
        self.validator = validator
        self.origins = origins
        self.accepting = accepting

    def could_end(self) -> bool:
        return self.validator.state in self.accepting

    def feed(self, chunk: bytes) -> bool:
        return self.validator.feed(chunk)

    def result(self) -> tuple[int | None, Expected]:
        offset = self.validator.first_error()
        if offset is None:
            return None, ()
        return offset, expected_by_rule((o.reads, o.rule) for o in self.origins[self.validator.state])


class PushdownEngine:
    """Runs the generated Python pushdown validator of a self-embedding grammar, its machines
    from the subset construction (as the DFA engine, so that it names the rules the input
    reached)."""

    name = "pushdown"

    def __init__(self, compilation: Compilation, max_depth: int | None = None):
        """``max_depth``: the nested parts an input may open at once (default: the generated
        validators' own default)."""
        files = compilation.files(["python"], "validator", "abnfc check", which="subset")
        [self.module] = load_validators([files], "python")
        self.automaton = compilation.pushdown_automaton("subset")
        self.resolved = compilation.resolved
        self.max_depth = max_depth

    def session(self) -> Session:
        too_deep: type[Exception] = self.module.NestingError  # type: ignore[attr-defined]
        make: Any = self.module.Validator  # a pushdown validator's takes the depth limit
        validator = make() if self.max_depth is None else make(self.max_depth)
        return _PushdownSession(validator, self.automaton, too_deep, self.max_depth is not None)


class _PushdownSession:
    def __init__(self, validator, automaton: Pushdown, too_deep: type[Exception], chosen: bool = False):
        self.validator = validator
        self.automaton = automaton
        self.too_deep = too_deep  # the generated module's NestingError
        self.chosen = chosen  # the limit is --max-depth's, not the default

    def could_end(self) -> bool:
        return self.validator.depth == 0 and self.validator.state in self.automaton.dfa.accepting

    def feed(self, chunk: bytes) -> bool:
        try:
            return self.validator.feed(chunk)
        except self.too_deep as error:
            limit, offset = getattr(error, "limit", "?"), getattr(error, "offset", "?")
            if self.chosen:
                raise nesting_error(limit, offset) from None
            # the words of check --records' C kernel, which gives the same reports
            raise NestingLimitError.at(None, _("the input nests deeper than {limit} at byte offset {offset}; the "
                                               "interpreter has no depth limit (--engine interpreter)").format(
                                                   limit=limit, offset=offset)) from None

    def result(self) -> tuple[int | None, Expected]:
        offset = self.validator.first_error()
        if offset is None:
            return None, ()
        return offset, expected_by_rule(self.automaton.expected_by_rule(self.validator.state))


class NestingLimitError(LimitError):
    """An input nests deeper than the pushdown validator's depth limit, or --max-depth."""


def nesting_error(limit: object, offset: object) -> NestingLimitError:
    """The error of an input that nests deeper than --max-depth, with either engine."""
    return NestingLimitError.at(None, _("the input nests deeper than {limit} at byte offset {offset}: the limit "
                                        "of --max-depth {limit}").format(limit=limit, offset=offset))


class InterpreterEngine:
    name = "interpreter"

    def __init__(self, resolved: ResolvedGrammar, max_work: int = DEFAULT_MAX_WORK, max_depth: int | None = None):
        self.resolved = resolved
        self.max_work = max_work  # the interpreter's work limit (--max-work)
        self.max_depth = max_depth  # calls of recursive rules open at once (--max-depth); None: no limit

    def session(self) -> Session:
        return _InterpreterSession(Recognizer(self.resolved, max_work=self.max_work, max_depth=self.max_depth))


class _InterpreterSession:
    def __init__(self, recognizer):
        self.recognizer = recognizer

    def feed(self, chunk: bytes) -> bool:
        try:
            return self.recognizer.feed(chunk)
        except DepthLimitError as error:
            raise nesting_error(error.limit, error.offset) from None

    def result(self) -> tuple[int | None, Expected]:
        verdict = self.recognizer.verdict()
        return verdict.offset, expected_by_rule((e.ranges, e.rule) for e in verdict.expected)

    def could_end(self) -> bool:
        return self.recognizer.verdict().could_end


def choose_engine(compilation: Compilation, engine: str, max_depth: int | None = None) -> Engine:
    """``auto``: the DFA when the grammar is regular and fits the limits, the pushdown validator
    when it is self-embedding and has one, else the interpreter.  ``dfa`` asks for the compiled
    validator (a pushdown validator for a self-embedding grammar), or an error saying why there
    is none.  ``max_depth`` bounds the nesting of a recursive grammar's inputs (--max-depth)."""
    interpreter = InterpreterEngine(compilation.resolved, compilation.limits.max_work, max_depth)
    if engine == "interpreter":
        return interpreter
    if not compilation.resolved.is_regular:
        if engine == "dfa":
            return PushdownEngine(compilation, max_depth)
        try:
            return (PushdownEngine(compilation, max_depth) if isinstance(compilation.pushdown_subset, Pushdown)
                    else interpreter)
        except LimitError:
            return interpreter
    try:
        return DfaEngine(compilation)
    except LimitError:
        if engine == "dfa":
            raise
        return interpreter


class Readable(Protocol):
    """A binary stream, as far as checking reads it."""

    def read(self, size: int = -1, /) -> bytes: ...


def check_stream(engine: Engine, stream: Readable, name: str) -> Outcome:
    session = engine.session()
    window, window_start, size = b"", 0, 0
    while True:
        chunk = stream.read(CHUNK_SIZE)
        if not chunk:
            break
        alive = session.feed(chunk)
        keep = window[-CONTEXT:]
        window_start, window = size - len(keep), keep + chunk
        size += len(chunk)
        if not alive:
            window += stream.read(CONTEXT)  # a little context after the error
            size = window_start + len(window)
            break
    offset, expected = session.result()
    if offset is None:
        return Outcome(name, size, None, (), 0, b"")
    low = max(offset - CONTEXT, window_start)
    context = window[low - window_start: offset + CONTEXT + 1 - window_start]
    return Outcome(name, size, offset, expected, low, context, expected_code_points(engine.resolved, expected),
                   session.could_end())


CONTINUATION_BYTES = ((0x80, 0xBF),)
SCALAR_VALUES = ((0, 0xD7FF), (0xE000, 0x10FFFF))  # every code point but the surrogates


def expected_code_points(resolved: ResolvedGrammar, expected: Expected) -> Expected:
    """``expected`` as code points per rule, when the grammar reads code points, the input is
    at a character boundary (no rule expects a continuation byte) and some expected code point
    is not ASCII; otherwise empty (the bytes say it better)."""
    if resolved.encoding != UTF8 or not expected:
        return ()
    if any(intersect(ranges, CONTINUATION_BYTES) for ranges, _ in expected):
        return ()
    readable: dict[str, list[tuple[int, int]]] = {}
    for key in resolved.reachable:
        rule = resolved.rules[key]
        readable.setdefault(rule.name, []).extend(code_points(rule.definition))
    found = tuple((intersect(intersect(led_by(ranges), SCALAR_VALUES), normalize(readable.get(rule, ()))), rule)
                  for ranges, rule in expected)
    if any(not ranges for ranges, _ in found) or all(ranges[-1][1] < 0x80 for ranges, _ in found):
        return ()
    return found


def check_bytes(engine: Engine, data: bytes, name: str = "<data>") -> Outcome:
    return check_stream(engine, io.BytesIO(data), name)


__all__ = ["ENGINES", "AbnfError", "NestingLimitError", "Outcome", "check_bytes", "check_stream", "choose_engine"]
