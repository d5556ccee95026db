"""``abnfc explain``: how a grammar reads an input, in the grammar's own terms.

For an accepted input, its derivation tree (each rule with the alternative it took, its bytes
and their offsets), and a second derivation where the grammar is ambiguous for the input.  For a
rejected input, the tree of the part before the error, then a diagnostic with two sides: the
input (offset and bytes, as ``abnfc check`` prints them) and the grammar (each position that could
have read the next byte: the source line with a caret under the element, as a compiler points
into a source file).  ``--steps`` adds the automaton's view, one line per byte.

The verdict comes from the interpreter (any grammar, recursive ones included, in linear time on
the grammars of practice); the trees come from a separate top-down search (:mod:`.derivation`, :mod:`.trees`)
that only runs when asked, so the interpreter keeps its speed.  The steps come from the DFA:
state numbers and byte classes of the minimal DFA (as ``abnfc dfa`` prints them), and grammar
positions from the DFA before minimization, whose states are exactly the sets of positions
(:mod:`.provenance`).  Text output is rendered by :mod:`.explain_text`, JSON by
:mod:`.explain_json`; both take the :class:`Explanation` built here.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, replace

from ..automata.dfa import Dfa
from ..build import Compiled, Limits, compile_grammar, load, resolve_grammar
from ..check import InterpreterEngine, Outcome, check_bytes
from ..errors import AbnfError, InvariantError
from ..frontend.ir import Origin
from ..frontend.resolve import ResolvedGrammar
from . import trees
from .common import limits_from_args, nonnegative, positive
from .derivation import Ambiguity, Derivation, Leaf, Search, SearchLimitError


def _(message: str) -> str:
    """The message translated into the user's language.

    Replaced by the project's gettext translator (abnfc.i18n) when translations land; every
    user-facing sentence of explain goes through it, as ``_("... {name} ...").format(...)``.
    """
    return message


NAME = "explain"
HELP = _("show how a grammar derives an input, or where and why it rejects it")
EXAMPLE = ("examples:\n  printf 'a\\xc3\\xa4' | abnfc explain grammars/utf8.abnf -\n"
           "  printf 'abc\\xed\\xa0\\x80' | abnfc explain grammars/utf8.abnf - --steps\n"
           "  abnfc explain grammars/uri.abnf link.txt --format json")

MAX_INPUT_BYTES = 1 << 20  # explain is for teaching inputs; check takes inputs of any size
DEFAULT_MAX_NODES = 100
STACK_BYTES = 512 << 20  # the search recurses once per nesting level of the derivation
RECURSION_LIMIT = 1_000_000


def add_arguments(parser) -> None:
    parser.add_argument("input", nargs="?", default="-", metavar="FILE",
                        help=_("the input to explain; - (the default) for standard input"))
    parser.add_argument("--steps", action="store_true",
                        help=_("also show the automaton's steps, one line per byte (regular grammars)"))
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--max-nodes", type=nonnegative, default=DEFAULT_MAX_NODES, metavar="N",
                        help=_("tree lines shown before the middle of a long tree is left out "
                               "(default %(default)s; 0: all)"))
    parser.add_argument("--max-nfa-states", type=positive, default=Limits.max_nfa_states, metavar="N",
                        help=_("NFA size limit for --steps (default %(default)s)"))
    parser.add_argument("--max-dfa-states", type=positive, default=Limits.max_dfa_states, metavar="N",
                        help=_("DFA size limit for --steps (default %(default)s)"))
    parser.add_argument("--max-work", type=positive, default=Limits.max_work, metavar="N",
                        help=_("steps the interpreter, the tree search and the DFA construction may "
                               "each take (default %(default)s)"))


@dataclass(frozen=True)
class Expected:
    """A grammar position that could have read the next byte."""

    origin: Origin
    after: Origin | None  # the position that read the byte before, when it comes just before
    alternatives: int = 1  # how many alternatives the rule has


@dataclass(frozen=True)
class Step:
    offset: int
    byte: int
    byte_class: int
    before: int  # states of the minimal DFA
    after: int
    read_by: tuple[Origin, ...]  # positions of the DFA before minimization that read the byte
    expected: tuple[Origin, ...]  # when the byte leads to the dead state: what was expected


@dataclass(frozen=True)
class Explanation:
    grammar: str
    start: str
    name: str
    data: bytes
    outcome: Outcome
    tree: Derivation | None  # of the whole input, or of the part before the error
    ambiguity: Ambiguity | None = None
    expected: tuple[Expected, ...] = ()
    steps: tuple[Step, ...] | None = None
    final_state: tuple[int, bool] | None = None  # the minimal DFA's state after a live run, accepting

    @property
    def accepted(self) -> bool:
        return self.outcome.matched


def run(args) -> int:
    from . import explain_json, explain_text  # they use _ and the records above

    if args.grammar == "-" and args.input == "-":
        raise AbnfError.at(None, _("the grammar and the input cannot both come from standard input; "
                                   "give one of them as a file"))
    grammar = load(args.grammar, args.imports, args.encoding)
    resolved = resolve_grammar(grammar, args.start)
    compiled = _compiled(grammar, args, resolved) if args.steps else None
    name, data = _read_input(args.input)
    explanation = explain(grammar.path, resolved, name, data, args.max_work, compiled)
    if args.format == "json":
        sys.stdout.write(explain_json.render(explanation))
    else:
        sys.stdout.write(explain_text.render(explanation, args.max_nodes))
    return 0 if explanation.accepted else 1


def _compiled(grammar, args, resolved: ResolvedGrammar) -> Compiled:
    if not resolved.is_regular and resolved.embedding is not None:
        raise AbnfError.at(None, _("--steps shows the automaton, and rule '{rule}' has none: its "
                                   "recursion is self-embedding ({path}); explain it without "
                                   "--steps").format(rule=resolved.start_name, path=resolved.embedding.path))
    return compile_grammar(grammar, args.start, limits_from_args(args))


def _read_input(path: str) -> tuple[str, bytes]:
    if path == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise AbnfError.at(None, _("no input: give a file, or pipe the input into standard input "
                                       "(run 'abnfc explain --help')"))
        name, stream = "<stdin>", sys.stdin.buffer
        data = stream.read(MAX_INPUT_BYTES + 1)
    else:
        name = path
        try:
            with open(path, "rb") as file:
                data = file.read(MAX_INPUT_BYTES + 1)
        except OSError as error:
            raise AbnfError.at(None, _("cannot read {path}: {reason}").format(
                path=path, reason=error.strerror)) from None
    if len(data) > MAX_INPUT_BYTES:
        raise AbnfError.at(None, _("{name} is larger than {size} KiB; explain is meant for inputs a "
                                   "reader can follow (use abnfc check for large inputs)").format(
                                       name=name, size=MAX_INPUT_BYTES >> 10))
    return name, data


def explain(grammar_path: str, resolved: ResolvedGrammar, name: str, data: bytes, max_work: int,
            compiled: Compiled | None = None) -> Explanation:
    """Everything explain shows about ``data``; ``compiled`` (when given) adds the steps."""
    outcome = check_bytes(InterpreterEngine(resolved, max_work), data, name)
    explanation = _in_deep_stack(lambda: _derive(grammar_path, resolved, name, data, outcome, max_work))
    if compiled is None:
        return explanation
    steps, final = automaton_steps(compiled, data)
    return replace(explanation, steps=steps, final_state=final)


def _derive(grammar_path: str, resolved: ResolvedGrammar, name: str, data: bytes, outcome: Outcome,
            max_work: int) -> Explanation:
    def explanation(tree: Derivation | None, **more) -> Explanation:
        return Explanation(grammar_path, resolved.start_name, name, data, outcome, tree, **more)

    if outcome.offset is None:
        search = Search(resolved, data, max_work)
        tree = trees.tree(search)
        _agrees(tree is not None)
        return explanation(tree, ambiguity=_ambiguity(search, tree))
    search = Search(resolved, data[: outcome.offset], max_work)
    tree = trees.open_tree(search)
    if tree is None:  # the prefix is complete, and nothing can follow it
        tree = trees.tree(search)
        _agrees(tree is not None)
        return explanation(tree)
    counts = {rule.name: len(search.alternatives(key)) for key, rule in resolved.rules.items()
              if key in resolved.ir}
    expected = tuple(Expected(t.origin, _after(t.origin, tree), counts.get(t.origin.rule, 1))
                     for t in search.expected())
    shown = tree if tree.end > tree.start else None  # rejected at offset 0: nothing was read
    return explanation(shown, expected=tuple(sorted(expected, key=_position)))


def _agrees(found: bool) -> None:
    InvariantError.check(found, "the interpreter accepts what the tree search cannot derive")


def _ambiguity(search: Search, tree: Derivation | None) -> Ambiguity | None:
    if search.ambiguity is None or tree is None:
        return None
    (key, i, j), choice = search.ambiguity
    first = trees.rebuild(search, key, i, j, {})
    second = trees.rebuild(search, key, i, j, {choice: 1})
    if first is None or second is None or _shape(first) == _shape(second):
        return None
    return Ambiguity(first, second)


def _shape(tree: Derivation) -> list:
    """What tells two derivations apart: each node with its depth and its place in the grammar
    text (origins compare without their spans, so equal terminals written apart would look alike)."""
    shape: list = []
    stack: list[tuple[Derivation | Leaf, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Leaf):
            shape.append((depth, node.offset, node.origin, node.origin.span))
        else:
            shape.append((depth, node.rule, node.alternative, node.start, node.end))
            stack.extend((child, depth + 1) for child in reversed(node.children))
    return shape


def _after(origin: Origin, tree: Derivation) -> Origin | None:
    """The position that read the last byte of the tree, if it is the element just before
    ``origin`` in the same alternative."""
    leaves = [node for node in tree.walk() if isinstance(node, Leaf)]
    if not leaves:
        return None
    last = max(leaves, key=lambda leaf: leaf.offset).origin
    if (last.rule, last.alternative) != (origin.rule, origin.alternative):
        return None
    return last if last.element == origin.element - 1 else None


def _position(expected: Expected):
    span = expected.origin.span
    where = (span.source.name, span.line, span.column) if span else ("", 0, 0)
    return (*where, expected.origin.rule, expected.origin.reads)


def automaton_steps(compiled: Compiled, data: bytes) -> tuple[tuple[Step, ...], tuple[int, bool] | None]:
    """The minimal DFA's steps over ``data`` (up to the byte that leads to the dead state), with
    the positions of the DFA before minimization, run alongside."""
    minimal, exact = compiled.minimal, compiled.dfa
    steps = []
    state, position = minimal.start, exact.start
    for offset, byte in enumerate(data):
        byte_class = minimal.byte_class[byte]
        following = minimal.transitions[state][byte_class]
        readers = _readers(exact, position, byte)
        expected = tuple(sorted(exact.origins[position], key=_origin_order)) if not readers else ()
        steps.append(Step(offset, byte, byte_class, state, following, readers, expected))
        state, position = following, exact.transitions[position][exact.byte_class[byte]]
        if state == minimal.dead:
            break
    final = None if state == minimal.dead else (state, state in minimal.accepting)
    return tuple(steps), final


def _readers(dfa: Dfa, state: int, byte: int) -> tuple[Origin, ...]:
    found = (o for o in dfa.origins[state] if any(lo <= byte <= hi for lo, hi in o.reads))
    return tuple(sorted(found, key=_origin_order))


def _origin_order(origin: Origin):
    return (origin.rule, origin.alternative, origin.element, origin.reads)


def _in_deep_stack(function):
    """``function()`` in a thread with a large stack and recursion limit: the tree search
    recurses once per nesting level of the derivation, and a long right-recursive list nests as
    deep as it is long."""
    result: dict[str, object] = {}

    def target() -> None:
        try:
            result["value"] = function()
        except BaseException as error:  # handed to the caller's thread
            result["error"] = error

    previous_stack, previous_limit = threading.stack_size(), sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
    try:
        for stack in (STACK_BYTES, previous_stack):  # the second where address space is limited
            threading.stack_size(stack)
            worker = threading.Thread(target=target, name="abnfc-explain", daemon=True)
            try:
                worker.start()
            except RuntimeError:
                continue
            worker.join()
            break
        else:
            raise AbnfError.at(None, _("cannot start a thread for the tree search"))
    finally:
        threading.stack_size(previous_stack)
        sys.setrecursionlimit(previous_limit)
    error = result.get("error")
    if isinstance(error, SearchLimitError):
        raise AbnfError.at(None, _("the tree search gave up after {steps:,} steps, more than the work "
                                   "limit of {limit:,}: explain is meant for inputs of modest size; "
                                   "raise the limit with --max-work if this is intended").format(
                                       steps=error.steps, limit=error.limit))
    if isinstance(error, RecursionError):
        raise AbnfError.at(None, _("the input's derivation nests too deeply for explain"))
    if isinstance(error, BaseException):
        raise error
    return result["value"]


__all__ = ["Expected", "Explanation", "Step", "explain"]
