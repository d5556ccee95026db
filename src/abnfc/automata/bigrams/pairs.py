"""The pairs of kinds each context allows, the refinement of a kind by the kind before it, the
brackets' machines and the byte classes, from the automaton read a kind at a time (breadth-first
over (state, kind before, refined kind before) at each machine's level)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator

from ...charset import members
from ..lexical import LexicalLayer
from ..pushdown import Pushdown
from .steps import KindSteps
from .tables import (
    C_BR,
    C_SS,
    C_ST,
    C_WS,
    MAX_CONTEXTS,
    MAX_KIND_CODES,
    PAIR_TABLE,
    SCALAR,
    START,
    STR,
    NoBigrams,
    PairTables,
)


def pair_tables(pushdown: Pushdown, layer: LexicalLayer, steps: KindSteps, plain: set[int]) -> PairTables:
    """The pair check's tables; ``plain``: the ASCII bytes a string's bytes may be as they are."""
    machines = {machine.start: number for number, machine in enumerate(pushdown.machines)}
    if len(machines) > MAX_CONTEXTS:
        raise NoBigrams(f"more than {MAX_CONTEXTS} contexts")
    names = steps.kinds
    code = {name: number + 1 for number, name in enumerate(names)}
    code[START] = len(names) + 1
    kinds = len(names) + 2
    openers = _openers(steps, machines)
    refined_code, tag, refinements = _refinements(pushdown, steps, openers, code, names, kinds)
    if kinds + len(refined_code) > MAX_KIND_CODES or (kinds + len(refined_code)) * kinds > PAIR_TABLE:
        raise NoBigrams(f"{kinds + len(refined_code)} x {kinds} pairs: more than a table of {PAIR_TABLE}")
    ok, ends = _pair_table(pushdown, steps, openers, code, names, refinements, refined_code)
    refined = list(range(MAX_KIND_CODES))
    for kind, refined_kind in refined_code.items():
        refined[kind] = refined_kind
    return PairTables(
        kind_names=tuple(names), kinds=kinds, start=code[START], contexts=len(machines), ok=_flatten(ok, kinds),
        tag=_flatten(tag, kinds), refined=tuple(refined), ends=tuple(ends),
        classes=_classes(steps, layer, code, names, openers, plain), brackets=_brackets(openers))


def _openers(steps: KindSteps, machines: dict[int, int]) -> dict[int, int]:
    """Each byte that opens a nested part -> the machine it enters, the same from every state."""
    enters: dict[int, int] = {}
    for row in steps.step:
        for byte, target in enumerate(row):
            if target in steps.calls:
                entered = machines[steps.calls[target]]
                if enters.setdefault(byte, entered) != entered:
                    raise NoBigrams(f"byte {byte:#04x} enters different nested parts")
    return enters


def _entries(number: int, openers: dict[int, int], code: dict[str, int]) -> list[int]:
    """The kinds a machine's first position may follow: START for the start rule's, else its openers."""
    if number == 0:
        return [code[START]]
    return [code[chr(b)] for b, entered in openers.items() if entered == number]


Walked = tuple[int, int, int, str | None, int | None]


def _walk(steps: KindSteps, start: int, entries: list[int], code: dict[str, int], names: list[str],
          refine: Callable[[int, int], int]) -> Iterator[Walked]:
    """Every (state, kind before, refined kind before) at one machine's level, as (state, before,
    refined before, None, None), then each step from it, as (state, before, refined before, kind
    name, the state after, or None for a call or a return)."""
    todo = [(start, e, e) for e in entries]
    seen = set(todo)

    def reach(item: tuple[int, int, int]) -> None:
        if item not in seen:
            seen.add(item)
            todo.append(item)

    while todo:
        state, before, refined = todo.pop()
        yield state, before, refined, None, None
        for name in names:
            for target in steps.after(state, name):
                if isinstance(target, tuple):
                    yield state, before, refined, name, None
                    if target[0] == "call":  # on after the nested part, whose closing byte is the kind before
                        for byte in range(256):
                            if steps.step[target[1]][byte] != steps.dead:
                                reach((steps.step[target[1]][byte], code[chr(byte)], code[chr(byte)]))
                    continue
                yield state, before, refined, name, target
                reach((target, code[name], refine(before, code[name])))


def _refinements(pushdown: Pushdown, steps: KindSteps, openers: dict[int, int], code: dict[str, int],
                 names: list[str], kinds: int) \
        -> tuple[dict[int, int], dict[tuple[int, int], int], list[dict[tuple[int, int], bool]]]:
    """The kinds the kind before must refine: their refined codes, the tag bits per pair (one bit
    per context) and, per machine, the pairs that refine."""
    refined_code: dict[int, int] = {}
    tag: dict[tuple[int, int], int] = defaultdict(int)
    refinements = []
    for number, machine in enumerate(pushdown.machines):
        futures = _futures(steps, machine.start, _entries(number, openers, code), code, names, machine.name)
        by_kind: dict[int, dict[int, frozenset[str]]] = defaultdict(dict)
        for (before, kind), future in futures.items():
            by_kind[kind][before] = future
        tagged: dict[tuple[int, int], bool] = {}
        for kind, by_before in by_kind.items():
            distinct = sorted(set(by_before.values()), key=sorted)
            if len(distinct) > 2:
                raise NoBigrams(f"{machine.name}: more than two futures after one kind")
            for before, future in by_before.items():
                tagged[(before, kind)] = len(distinct) == 2 and future == distinct[1]
                if tagged[(before, kind)]:
                    refined_code.setdefault(kind, kinds + len(refined_code))
                    tag[(before, kind)] |= 1 << number
        refinements.append(tagged)
    return refined_code, tag, refinements


def _futures(steps: KindSteps, start: int, entries: list[int], code: dict[str, int], names: list[str],
             machine_name: str) -> dict[tuple[int, int], frozenset[str]]:
    """(kind before, kind) -> the kinds allowed after the kind: one set, or the pairs cannot decide."""
    found: dict[tuple[int, int], set[frozenset[str]]] = defaultdict(set)
    for _state, before, _refined, name, target in _walk(steps, start, entries, code, names, lambda b, k: k):
        if name is not None and target is not None:
            found[(before, code[name])].add(steps.allows(target))
    for (before, kind), futures in found.items():
        if len(futures) != 1:
            raise NoBigrams(f"{machine_name}: after kind {kind} (before it {before}) what may follow differs")
    return {pair: next(iter(futures)) for pair, futures in found.items()}


def _pair_table(pushdown: Pushdown, steps: KindSteps, openers: dict[int, int], code: dict[str, int],
                names: list[str], refinements: list[dict[tuple[int, int], bool]], refined_code: dict[int, int]) \
        -> tuple[dict[tuple[int, int], int], list[int]]:
    """The contexts each (refined kind before, kind) pair is allowed in; per refined kind, whether
    the input may end after it."""
    ok: dict[tuple[int, int], int] = defaultdict(int)
    ends = [0] * MAX_KIND_CODES
    accepting = pushdown.dfa.accepting
    for number, machine in enumerate(pushdown.machines):
        tagged = refinements[number]

        def refine(before: int, kind: int, tagged: dict[tuple[int, int], bool] = tagged) -> int:
            return refined_code[kind] if tagged.get((before, kind)) else kind

        accepts: dict[int, set[bool]] = defaultdict(set)
        for state, _before, refined, name, _target in _walk(steps, machine.start, _entries(number, openers, code),
                                                            code, names, refine):
            if name is None:
                accepts[refined].add(any(s in accepting for s in steps.after_whitespace(state)))
            else:
                ok[(refined, code[name])] |= 1 << number
        if number == 0:
            for refined, verdicts in accepts.items():
                if len(verdicts) != 1:
                    raise NoBigrams("whether the input may end after a kind depends on more than the kind")
                ends[refined] = int(next(iter(verdicts)))
    return ok, ends


def _flatten(pairs: dict[tuple[int, int], int], kinds: int) -> tuple[int, ...]:
    table = [0] * PAIR_TABLE
    for (before, kind), bits in pairs.items():
        table[before * kinds + kind] |= bits
    return tuple(table)


def _classes(steps: KindSteps, layer: LexicalLayer, code: dict[str, int], names: list[str],
             openers: dict[int, int], plain: set[int]) -> tuple[int, ...]:
    """Per ASCII byte: its kind (bits 0-3) and C_WS, C_ST, C_BR, C_SS."""
    classes = [0] * 0x80
    for byte in steps.whitespace:
        classes[byte] |= C_WS
    for name in names:
        if len(name) == 1:
            byte = ord(name)
            closes = any(byte in returns for returns in steps.returning)
            classes[byte] |= code[name] | C_ST | (C_BR if byte in openers or closes else 0)
    classes[layer.strings.quote] |= code[STR]
    for byte in members(layer.token_starts):
        classes[byte] |= code[SCALAR]
    for byte in set(range(0x80)) - plain:
        classes[byte] |= C_SS
    return tuple(classes)


def _brackets(openers: dict[int, int]) -> tuple[int, ...]:
    brackets = [0] * 256
    for byte, number in openers.items():
        brackets[byte] = 1 | number << 1
    return tuple(brackets)
