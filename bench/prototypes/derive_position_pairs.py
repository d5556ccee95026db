"""The token-bigram prototype's pass C tables, derived from a pushdown automaton instead of written
by hand: the kinds of positions, the pairs of kinds each context allows, and the refinement of a
kind the kind before it decides (JSON's key strings).  See position_kinds.py for the analysis.

Contexts are the machines (the start rule's and each nested part's), numbered as the automaton
lists them; a bracket byte that opens a nested part must enter the same machine from every state.
The prototype's pass B keeps a stack of contexts; pass C, 64 positions at a time:

    refined = kind, or REFINED[kind] where bit ctx of PAIR_TAG[before * KINDS + kind] is set
    allowed = bit ctx of PAIR_OK[refined before * KINDS + kind]

where ``before`` is the kind of the position before (START before the first) and ``ctx`` the
context of the position (for a closing bracket, the part it closes).  At the end the last
position's refined kind must be one after which the start machine accepts.

    python bench/prototypes/derive_position_pairs.py grammars/json.abnf > position_pairs.h
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from abnfc.automata.lexical import find_layer
from abnfc.automata.pushdown import Pushdown
from abnfc.charset import members
from abnfc.frontend.source import load
from abnfc.pipeline import Compilation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from position_kinds import KindSteps

TABLE = 128  # a vpermi2b table: refined kinds x kinds must fit
C_WS, C_ST, C_BR, C_SS = 0x10, 0x20, 0x40, 0x80  # the class bits above the kind's 4
START_NAME = "START"


def _machine_of(pushdown: Pushdown) -> dict[int, int]:
    """Each machine's entry state -> its number."""
    return {machine.start: number for number, machine in enumerate(pushdown.machines)}


def derive(pushdown: Pushdown) -> dict:
    layer = find_layer(pushdown)
    if layer is None:
        raise SystemExit("no lexical layer: no two-stage path")
    steps = KindSteps(pushdown, layer)
    machines = _machine_of(pushdown)
    if len(machines) > 4:
        raise SystemExit("more than 4 contexts")
    names = steps.kinds  # structural bytes, STR, SCALAR
    code = {name: number + 1 for number, name in enumerate(names)}
    code[START_NAME] = len(names) + 1
    kinds = len(names) + 2  # with BAD and START
    opener_enters = _openers(steps, machines)
    refined_code: dict[int, int] = {}
    tag: dict[tuple[int, int], int] = defaultdict(int)
    refinements = []
    for number, machine in enumerate(pushdown.machines):
        entries = _entries(number, opener_enters, code)
        futures = _futures(steps, machine.start, entries, code, names, machine.name)
        by_kind: dict[int, dict[int, frozenset[str]]] = defaultdict(dict)
        for (before, kind), future in futures.items():
            by_kind[kind][before] = future
        tagged: dict[tuple[int, int], bool] = {}
        for kind, by_before in by_kind.items():
            distinct = sorted(set(by_before.values()), key=sorted)
            if len(distinct) > 2:
                raise SystemExit(f"{machine.name}: more than two futures after one kind")
            for before, future in by_before.items():
                tagged[(before, kind)] = len(distinct) == 2 and future == distinct[1]
                if tagged[(before, kind)]:
                    refined_code.setdefault(kind, kinds + len(refined_code))
                    tag[(before, kind)] |= 1 << number
        refinements.append(tagged)
    ok: dict[tuple[int, int], int] = defaultdict(int)
    ends = [0] * 16
    for number, machine in enumerate(pushdown.machines):
        entries = _entries(number, opener_enters, code)
        pairs, accepts = _pairs(steps, machine.start, entries, code, names, refinements[number], refined_code,
                                pushdown.dfa.accepting)
        for pair in pairs:
            ok[pair] |= 1 << number
        if number == 0:
            for refined, verdicts in accepts.items():
                if len(verdicts) != 1:
                    raise SystemExit("whether the input may end after a kind depends on more than the kind")
                ends[refined] = int(next(iter(verdicts)))
    if (kinds + len(refined_code)) * kinds > TABLE:
        raise SystemExit(f"{kinds + len(refined_code)} x {kinds} pairs: more than a table of {TABLE}")
    return {"kinds": kinds, "start": code[START_NAME], "ok": ok, "tag": tag, "refined": refined_code, "ends": ends,
            "classes": _classes(steps, layer, code, names, opener_enters), "quote": layer.strings.quote,
            "escape": layer.strings.escape, "brackets": _brackets(opener_enters), "machines": len(machines)}


def _openers(steps: KindSteps, machines: dict[int, int]) -> dict[int, int]:
    """Each byte that opens a nested part -> the machine it enters, the same from every state."""
    enters: dict[int, int] = {}
    for row in steps.step:
        for byte, target in enumerate(row):
            if target in steps.calls:
                entered = machines[steps.calls[target]]
                if enters.setdefault(byte, entered) != entered:
                    raise SystemExit(f"byte {byte:#x} enters different nested parts")
    return enters


def _entries(number: int, opener_enters: dict[int, int], code: dict[str, int]) -> list[int]:
    """The kinds a machine's first position may follow: START for the start rule's, else its openers."""
    if number == 0:
        return [code[START_NAME]]
    return [code[chr(b)] for b, entered in opener_enters.items() if entered == number]


def _walk(steps: KindSteps, start: int, entries: list[int], code: dict[str, int], names: list[str], refine):
    """Every (state, kind before, refined kind before) at one machine's level, as (state, before,
    refined before, None, None), then each step from it, as (state, before, refined before, kind
    name, the state after, or None for a call or a return)."""
    todo = [(start, e, e) for e in entries]
    seen = set(todo)
    while todo:
        state, before, refined = todo.pop()
        yield state, before, refined, None, None
        for name in names:
            for target in steps.after(state, name):
                if isinstance(target, tuple):
                    yield state, before, refined, name, None
                    if target[0] == "call":  # on after the nested part, whose closing byte is the kind before
                        for byte in range(256):
                            going_on = steps.step[target[1]][byte]
                            if going_on != steps.dead:
                                item = (going_on, code[chr(byte)], code[chr(byte)])
                                if item not in seen:
                                    seen.add(item)
                                    todo.append(item)
                    continue
                yield state, before, refined, name, target
                item = (target, code[name], refine(before, code[name]))
                if item not in seen:
                    seen.add(item)
                    todo.append(item)


def _futures(steps, start, entries, code, names, machine_name) -> dict[tuple[int, int], frozenset[str]]:
    """(kind before, kind) -> the kinds allowed after the kind: one set, or the pairs cannot decide."""
    found: dict[tuple[int, int], set[frozenset[str]]] = defaultdict(set)
    for _state, before, _refined, name, target in _walk(steps, start, entries, code, names, lambda b, k: k):
        if name is not None and target is not None:
            found[(before, code[name])].add(steps.allows(target))
    for (before, kind), futures in found.items():
        if len(futures) != 1:
            raise SystemExit(f"{machine_name}: after kind {kind} (before it {before}) what may follow differs")
    return {pair: next(iter(futures)) for pair, futures in found.items()}


def _pairs(steps, start, entries, code, names, tagged, refined_code, accepting):
    """The (refined kind before, kind) pairs one machine allows; and, per refined kind before,
    whether the input may end there (at the start rule's level)."""
    def refine(before: int, kind: int) -> int:
        return refined_code[kind] if tagged.get((before, kind)) else kind

    pairs: set[tuple[int, int]] = set()
    accepts: dict[int, set[bool]] = defaultdict(set)
    for state, _before, refined, name, _target in _walk(steps, start, entries, code, names, refine):
        if name is None:
            accepts[refined].add(any(s in accepting for s in steps.after_whitespace(state)))
        else:
            pairs.add((refined, code[name]))
    return pairs, accepts


def _classes(steps: KindSteps, layer, code: dict[str, int], names: list[str], opener_enters: dict[int, int]):
    """Per byte below 0x80: its kind (bits 0-3) and C_WS, C_ST, C_BR, C_SS."""
    classes = [0] * 128
    for byte in steps.whitespace:
        if byte < 128:
            classes[byte] |= C_WS
    for name in names:
        if len(name) == 1:
            byte = ord(name)
            closes = any(byte in returns for returns in steps.returning)
            classes[byte] |= code[name] | C_ST | (C_BR if byte in opener_enters or closes else 0)
    classes[layer.strings.quote] |= code["STR"] | C_SS
    if layer.strings.escape is not None:
        classes[layer.strings.escape] |= C_SS
    for byte in range(0x20):
        classes[byte] |= C_SS
    for byte in members(layer.token_starts):
        classes[byte] |= code["SCALAR"]
    return classes


def _brackets(opener_enters: dict[int, int]) -> list[int]:
    """Per byte: bit 0 set where it opens a nested part, bits 1-2 the machine it enters."""
    brackets = [0] * 256
    for byte, number in opener_enters.items():
        brackets[byte] = 1 | number << 1
    return brackets


def header(tables: dict, grammar: str) -> str:
    kinds = tables["kinds"]
    ok = [0] * TABLE
    tag = [0] * TABLE
    for (before, kind), bits in tables["ok"].items():
        ok[before * kinds + kind] |= bits
    for (before, kind), bits in tables["tag"].items():
        tag[before * kinds + kind] |= bits
    refined = list(range(16))
    for kind, code in tables["refined"].items():
        refined[kind] = code

    def array(name: str, values: list[int]) -> str:
        return f"static const uint8_t {name}[{len(values)}] = {{ {', '.join(map(str, values))} }};"

    return "\n".join([
        f"/* derived from {grammar} by bench/prototypes/derive_position_pairs.py */",
        f"#define PAIR_KINDS {kinds}",
        f"#define PAIR_START {tables['start']}",
        f"#define PAIR_CONTEXTS {tables['machines']}",
        f"#define PAIR_QUOTE {tables['quote']:#04x}",
        array("pair_ok", ok), array("pair_tag", tag), array("pair_refined", refined),
        array("pair_ends", tables["ends"]), array("pair_classes", tables["classes"]),
        array("pair_brackets", tables["brackets"]), ""])


def main() -> None:
    pushdown = Compilation(load(sys.argv[1])).pushdown
    if not isinstance(pushdown, Pushdown):
        sys.exit("not a pushdown grammar")
    print(header(derive(pushdown), sys.argv[1]), end="")


if __name__ == "__main__":
    main()
