"""What each DFA state expects, in grammar terms, from the provenance of the DFA before minimization.

A state of the DFA from subset construction is exactly the set of grammar positions (terminals
about to be read) an input can be at, and the terminals that read the byte leading into it are
those of its predecessor whose bytes hold that byte.  Minimization merges states reached through
different positions, so its origins are unions that pair nothing with nothing.  The notes of a
minimal state are therefore gathered from the states before minimization that it stands for,
found by walking both automata in step from their start states (they accept the same language
and the minimal DFA is a quotient of the other, so each state maps to exactly one minimal state).

Each position in a note carries exactly the bytes it reads there (:class:`Reading`): a position
that leads into the state, the bytes of its terminal that take a predecessor into this state; a
position the state expects, the bytes of its terminal that do not lead to the dead state.  So
every range a note attributes to a position is a subset of what that position reads, and the
union over the positions is the state's real set of incoming (or expected) bytes.

A note reads ``after %xE0: expects %xA0-BF (UTF8-3 alternative 1, element 2)``; the words are
translatable (:mod:`abnfc.i18n`), the grammar's names and bytes are not.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..charset import Ranges, format_readable, intersect, normalize
from ..errors import InvariantError
from ..frontend.ir import Origin
from .dfa import Dfa

MAX_LISTED = 3  # positions listed one by one; beyond this, grouped by rule
MAX_RULES = 6  # rules named in a group; beyond this, a count
MAX_PATHS = 2  # (after, expects) pairs kept apart in one note; beyond this, their union


def _english(message: str) -> str:
    return message


@dataclass(frozen=True)
class Reading:
    """A grammar position and exactly the bytes it reads where the note says (a subset of the
    bytes its terminal reads, ``origin.reads``)."""

    origin: Origin
    ranges: Ranges


@dataclass(frozen=True)
class Path:
    """Some inputs reach the state after one of ``after`` read their last byte, and expect one of
    ``expects`` next (empty: the input must end here)."""

    after: frozenset[Reading]
    expects: frozenset[Reading]


@dataclass(frozen=True)
class StateNote:
    dead: bool
    start: bool
    accepting: bool
    paths: tuple[Path, ...]  # sorted; one per distinct ``expects``

    @property
    def expects(self) -> frozenset[Reading]:
        return _merged(r for path in self.paths for r in path.expects)

    @property
    def after(self) -> frozenset[Reading]:
        return _merged(r for path in self.paths for r in path.after)


def _merged(readings: Iterable[Reading]) -> frozenset[Reading]:
    """One reading per position, with the union of its bytes."""
    by_origin: dict[Origin, list[tuple[int, int]]] = defaultdict(list)
    for reading in readings:
        by_origin[reading.origin].extend(reading.ranges)
    return frozenset(Reading(origin, normalize(ranges)) for origin, ranges in by_origin.items())


def state_notes(dfa: Dfa, exact: Dfa | None = None) -> tuple[StateNote, ...]:
    """A note for every state of ``dfa``, from the provenance of ``exact`` (the DFA before
    minimization that ``dfa`` was made from; ``dfa`` itself when None)."""
    exact = exact or dfa
    members = _members(dfa, exact)
    readers = _readers(exact)
    notes = []
    for state in range(dfa.num_states):
        by_expects: dict[frozenset[Reading], list[Reading]] = defaultdict(list)
        for member in members[state]:
            by_expects[_expected(exact, member)].extend(readers[member])
        paths = tuple(sorted((Path(_merged(after), expects) for expects, after in by_expects.items()
                              if state != dfa.dead), key=_path_key))
        notes.append(StateNote(state == dfa.dead, state == dfa.start, state in dfa.accepting, paths))
    return tuple(notes)


def _members(dfa: Dfa, exact: Dfa) -> list[list[int]]:
    """For each state of ``dfa``, the states of ``exact`` it stands for (product walk)."""
    if exact is dfa:  # also covers states no walk from the start reaches (a pushdown's machines)
        return [[state] for state in range(dfa.num_states)]
    found: dict[int, int] = {exact.start: dfa.start}
    queue = [exact.start]
    first_bytes = [ranges[0][0] for ranges in exact.classes]
    for state in queue:  # grows while iterating
        mine = found[state]
        for cls, target in enumerate(exact.transitions[state]):
            image = dfa.transitions[mine][dfa.byte_class[first_bytes[cls]]]
            if target not in found:
                found[target] = image
                queue.append(target)
            elif found[target] != image:
                raise InvariantError("the DFA is not a quotient of the DFA its notes come from")
    members: list[list[int]] = [[] for _ in range(dfa.num_states)]
    for state, image in sorted(found.items()):
        members[image].append(state)
    return members


def _expected(exact: Dfa, state: int) -> frozenset[Reading]:
    """The positions ``state`` reads at, each with the bytes of its terminal that go on (do not
    lead to the dead state)."""
    if not exact.origins or state == exact.dead:
        return frozenset()
    live = normalize(r for cls, target in enumerate(exact.transitions[state]) if target != exact.dead
                     for r in exact.classes[cls])
    found = (Reading(origin, intersect(origin.reads, live)) for origin in exact.origins[state])
    return frozenset(reading for reading in found if reading.ranges)


def _readers(exact: Dfa) -> list[list[Reading]]:
    """For each state, the terminals that read the byte of some transition into it, each with
    exactly those of its bytes that lead into it."""
    readers: list[list[Reading]] = [[] for _ in range(exact.num_states)]
    if not exact.origins:
        return readers
    classes_of: dict[tuple, list[int]] = {}
    for state, origins in enumerate(exact.origins):
        row = exact.transitions[state]
        for origin in origins:
            if origin.reads not in classes_of:
                classes_of[origin.reads] = _classes_within(exact, origin.reads)
            into: dict[int, list[tuple[int, int]]] = defaultdict(list)
            for cls in classes_of[origin.reads]:
                if row[cls] != exact.dead:
                    into[row[cls]].extend(exact.classes[cls])
            for target, ranges in into.items():
                readers[target].append(Reading(origin, intersect(origin.reads, normalize(ranges))))
    return readers


def _classes_within(dfa: Dfa, ranges) -> list[int]:
    """The classes that hold some byte of ``ranges``."""
    return [cls for cls, class_ranges in enumerate(dfa.classes)
            if any(lo <= r_hi and r_lo <= hi for lo, hi in ranges for r_lo, r_hi in class_ranges)]


def _reading_key(reading: Reading):
    return (reading.ranges, reading.origin.rule, reading.origin.alternative, reading.origin.element,
            reading.origin.reads)


def _path_key(path: Path):
    return (sorted(map(_reading_key, path.expects)), sorted(map(_reading_key, path.after)))


# -- text ---------------------------------------------------------------------------------------

def position_text(reading: Reading, _=_english) -> str:
    """``%xA0-BF (UTF8-3 alternative 1, element 2)``."""
    origin = reading.origin
    return _("{bytes} ({rule} alternative {alternative}, element {element})").format(
        bytes=format_readable(reading.ranges), rule=origin.rule, alternative=origin.alternative + 1,
        element=origin.element + 1)


def positions_text(readings: Iterable[Reading], _=_english) -> str:
    """A few positions one by one; more grouped by rule, and within a rule by the bytes read (the
    alternatives that read exactly the same bytes there together), so that every range is
    exactly what its positions read.  Beyond :data:`MAX_RULES` rules, the rest are counted."""
    found = sorted(set(readings), key=_reading_key)
    if len(found) <= MAX_LISTED:
        return _list([position_text(r, _) for r in found], _)
    by_rule: dict[str, dict[Ranges, list[Reading]]] = defaultdict(lambda: defaultdict(list))
    for reading in found:  # in order: rules and their groups come in the order of their first bytes
        by_rule[reading.origin.rule][reading.ranges].append(reading)
    rules = list(by_rule.items())
    texts = [_group_text(rule, ranges, group, _) for rule, groups in rules[:MAX_RULES]
             for ranges, group in groups.items()]
    if len(rules) > MAX_RULES:
        texts.append(_("other rules: {count}").format(count=len(rules) - MAX_RULES))
    return _list(texts, _)


def _group_text(rule: str, ranges: Ranges, readings: list[Reading], _) -> str:
    """``%x80-BF (UTF8-3 alternatives 2, 4)``: alternatives of one rule reading the same bytes."""
    alternatives = sorted({r.origin.alternative + 1 for r in readings})
    numbers = _numbers_text(alternatives)
    template = _("{bytes} ({rule} alternative {alternatives})") if len(alternatives) == 1 else \
        _("{bytes} ({rule} alternatives {alternatives})")
    return template.format(bytes=format_readable(ranges), rule=rule, alternatives=numbers)


def _numbers_text(numbers: list[int]) -> str:
    """``1-4, 6``."""
    return ", ".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in number_runs(numbers))


def number_runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted ``numbers`` as runs of consecutive ones, (first, last) each: [1, 2, 3, 6] -> (1, 3), (6, 6)."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return [(lo, hi) for lo, hi in runs]


def _list(texts: list[str], _) -> str:
    if len(texts) <= 1:
        return "".join(texts)
    return _("{items} or {last}").format(items=", ".join(texts[:-1]), last=texts[-1])


def _path_text(path: Path, note: StateNote, _) -> str:
    expects = positions_text(path.expects, _) if path.expects else _("the end of the input")
    if note.start or not path.after:
        return _("expects {expected}").format(expected=expects)
    after = _after_text(path, _)
    return _("after {read}: expects {expected}").format(read=after, expected=expects)


def _after_text(path: Path, _) -> str:
    """The bytes alone when the one terminal before is in the same alternative as the one after
    (``after %xE0: expects %xA0-BF (UTF8-3 alternative 1, element 2)``)."""
    if len(path.after) == 1 and len(path.expects) == 1:
        (before,), (next_one,) = path.after, path.expects
        if (before.origin.rule, before.origin.alternative) == (next_one.origin.rule, next_one.origin.alternative):
            return format_readable(before.ranges)
    return positions_text(path.after, _)


def note_text(note: StateNote, _=_english) -> str:
    """``start; accepting; expects ...`` or ``after ...: expects ...``; ``dead`` for the dead state."""
    tags = []
    if note.dead:
        tags.append(_("dead"))
    if note.start:
        tags.append(_("start"))
    if note.accepting:
        tags.append(_("accepting"))
    paths = note.paths
    if len(paths) > MAX_PATHS:
        paths = (Path(note.after, note.expects),)
    tags += [_path_text(path, note, _) for path in paths]
    return "; ".join(tags)
