"""Neighbour grammars: the dialects of a grammar that implementations really speak, and the
shortest inputs on which each one parts from the grammar.

Implementations rarely deviate from a specification at random; they speak a known dialect
(RFC 2279's five- and six-byte UTF-8, JSON with NaN, RFC 3339 with a space for "T").  This is
the "neighbourhood" of mutation-based conformance testing: the faults worth testing for are the
ones near the specification.  A dialect is a grammar file whose leading comment block has a line

    ; Dialect of: utf8.abnf

naming the file name of the grammar it varies (several names may follow, separated by commas).
:func:`discover` finds a grammar's dialects in the folder ``variants/`` beside it and in its own
folder; ``--neighbours DIR|FILE...`` adds others (:func:`expand`).

:func:`witnesses` searches the product automaton of the grammar's and the neighbour's DFAs breadth
first (:func:`abnfc.automata.product.pairs`) and, for every pair of live states where the two
part (one accepts and the other not, or one dies on a byte class where the other goes on), gives
the pair's shortest input, the class's lowest and highest byte and the shortest completion on the
side that goes on.  Unlike :mod:`.differences`, which keeps one input per difference, every pair
gives its own: a difference that shows at several grammar positions (U+FFFF as EF BF BF and
U+10FFFF as F4 8F BF BF) is asked at each of them.  Each witness is checked with both languages'
exact verdicts, so that bounded automata of recursive grammars give no false ones.

The grammar's one-edit mutants (:mod:`abnfc.learn.mutants`: a range bound moved, an alternative
dropped, ...) are neighbours too (:func:`mutant_neighbours`), each named by its edit; their
witnesses are asked after the dialects', and a class of disagreements names a mutant only when
no dialect matches it and the implementation agrees with the mutant on all its witnesses.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ...automata.dfa import Dfa
from ...automata.product import Spend, completions, pairs, shortest_words
from ...errors import AbnfError
from ...i18n import _
from ..language import Language

DIALECT_OF = re.compile(r"^;\s*dialect of:\s*(.+?)\s*$", re.IGNORECASE)
FOLDER = "variants"
MAX_WITNESSES = 2_000  # per neighbour: a neighbour far from the grammar is not a dialect of it
MAX_PAIRS = 100_000
MAX_MUTANT_WITNESSES = 20_000  # for all the one-edit mutants together (UTF-8's 90: 738)
SHOWN_MUTANTS = 4  # edits named per class of disagreements


class Decides(Protocol):
    """A neighbour's language: an automaton to search and exact verdicts."""

    @property
    def minimal(self) -> Dfa: ...

    def accepts(self, data: bytes) -> bool: ...


@dataclass(frozen=True)
class DfaLanguage:
    """A language its minimal DFA decides exactly: a one-edit mutant's."""

    minimal: Dfa

    def accepts(self, data: bytes) -> bool:
        return self.minimal.matches(data)


@dataclass(frozen=True)
class Neighbour:
    path: str  # as the user gave it or as found beside the grammar; a mutant's label
    language: Decides
    mutant: bool = False  # one of the grammar's one-edit mutants, not a dialect


@dataclass(frozen=True)
class Witness:
    data: bytes
    neighbour: str  # the path of the neighbour it comes from
    neighbour_accepts: bool  # True: the neighbour accepts it and the grammar does not; False: the reverse
    mutant: bool = False  # of a one-edit mutant of the grammar


def dialect_of(path: str) -> tuple[str, ...]:
    """The grammar file names the leading comment block of ``path`` says it is a dialect of."""
    names: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            for line in file:
                if not line.startswith(";"):
                    break
                found = DIALECT_OF.match(line.rstrip("\n"))
                if found:
                    names += [name.strip() for name in found.group(1).split(",") if name.strip()]
    except OSError:
        return ()
    return tuple(names)


def discover(grammar: str) -> list[str]:
    """The dialects of the grammar file ``grammar``: the ``.abnf`` files in ``variants/`` beside
    it and in its own folder whose header names its file name, sorted."""
    if not os.path.isfile(grammar):  # standard input ("-") has no folder
        return []
    folder, name = os.path.split(grammar)
    found = []
    for where in (os.path.join(folder, FOLDER), folder or "."):
        if not os.path.isdir(where):
            continue
        for entry in sorted(os.listdir(where)):
            path = os.path.join(where, entry) if folder or where != "." else entry
            if entry.endswith(".abnf") and not os.path.samefile(path, grammar) and name in dialect_of(path):
                found.append(path)
    return found


def expand(paths: Iterable[str]) -> list[str]:
    """``--neighbours``: each folder's ``.abnf`` files, sorted, and each file as given; a path
    that is neither is a usage error."""
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found += sorted(os.path.join(path, entry) for entry in os.listdir(path) if entry.endswith(".abnf"))
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise AbnfError.at(None, _("--neighbours {path}: no such file or folder").format(path=path))
    return list(dict.fromkeys(found))


def witnesses(grammar: Language, neighbour: Neighbour, limit: int = MAX_WITNESSES,
              max_pairs: int = MAX_PAIRS) -> list[Witness]:
    """The shortest inputs through every place where ``neighbour`` parts from ``grammar`` (see
    the module's docstring), at most ``limit``, shortest first; each is a real difference."""
    found = []
    for data in sorted(parting_inputs(grammar.minimal, neighbour.language.minimal, max_pairs),
                       key=lambda d: (len(d), d)):
        accepted = neighbour.language.accepts(data)
        if accepted != grammar.accepts(data):
            found.append(Witness(data, neighbour.path, accepted, neighbour.mutant))
            if len(found) >= limit:
                break
    return found


def all_witnesses(grammar: Language, neighbours: Sequence[Neighbour], limit: int = MAX_WITNESSES,
                  mutants_limit: int = MAX_MUTANT_WITNESSES) -> list[Witness]:
    """Every neighbour's witnesses, at most ``limit`` each and ``mutants_limit`` for all the
    one-edit mutants together (a grammar of 64 states has up to 200 of them)."""
    found: list[Witness] = []
    room = mutants_limit
    for neighbour in neighbours:
        if neighbour.mutant:
            if room > 0:
                mine = witnesses(grammar, neighbour, min(limit, room))
                room -= len(mine)
                found += mine
        else:
            found += witnesses(grammar, neighbour, limit)
    return found


def parting_inputs(a: Dfa, b: Dfa, max_pairs: int, spend: Spend | None = None) -> set[bytes]:
    together = pairs(a, b, max_pairs, spend)
    access = shortest_words(together.classes, together.rows, together.start)
    ends = (completions(a), completions(b))
    found: set[bytes] = set()
    for index, word in access.items():
        left, right = together.pairs[index]
        if left == a.dead and right == b.dead:
            continue
        if (left in a.accepting) != (right in b.accepting):
            found.add(word)
        if left == a.dead or right == b.dead:
            continue
        for cls, target in enumerate(together.rows[index]):
            to_left, to_right = together.pairs[target]
            if (to_left == a.dead) == (to_right == b.dead):
                continue
            ending = ends[0].get(to_left) if to_right == b.dead else ends[1].get(to_right)
            if ending is None:
                continue
            ranges = together.classes[cls]
            for byte in (ranges[0][0], ranges[-1][1]):
                found.add(word + bytes([byte]) + ending)
    return found


def agreeing(neighbours: Sequence[Neighbour], data: bytes, implementation_accepts: bool) -> tuple[str, ...]:
    """The neighbours that give ``data`` the implementation's verdict (the grammar gives the other)."""
    return tuple(n.path for n in neighbours if n.language.accepts(data) == implementation_accepts)


def mutant_neighbours(mutants: Iterable[tuple[str, Dfa]]) -> list[Neighbour]:
    """The grammar's one-edit mutants, (label, minimal DFA), as neighbours."""
    return [Neighbour(label, DfaLanguage(dfa), mutant=True) for label, dfa in mutants]


def load_all(paths: Sequence[str], load: Callable[[str], Language]) -> list[Neighbour]:
    return [Neighbour(path, load(path)) for path in paths]


def for_grammar(grammar: str, given: Sequence[str], load: Callable[[str], Language],
                warn: Callable[[str], None]) -> list[Neighbour]:
    """The grammar's own dialects (:func:`discover`) and the ``--neighbours`` ones, loaded; a
    dialect found beside the grammar that does not load is left out with a warning (it must not
    stop a check the user did not ask it for), one the user named stops the run."""
    found = []
    mine = set(expand(given))
    for path in dict.fromkeys([*discover(grammar), *mine]):
        try:
            found.append(Neighbour(path, load(path)))
        except AbnfError as error:
            if path in mine:
                raise
            warn(_("neighbour grammar {path} left out: {error}").format(path=path, error=str(error).splitlines()[0]))
    return found


@dataclass(frozen=True)
class Dialect:
    """Neighbour grammars that agree with the implementation on some inputs of a class of
    disagreements with the grammar."""

    paths: tuple[str, ...]  # of dialects; the labels of one-edit mutants when ``mutant``
    inputs: tuple[bytes, ...]  # the neighbours' own witnesses in the class, shortest first; else its witness
    mutant: bool = False


SHOWN = 4  # inputs shown per dialect


def dialects(neighbours: Sequence[Neighbour], found: Sequence[Witness], implementation_accepts: bool,
             witness: bytes, members: Sequence[bytes],
             query: Callable[[Sequence[bytes]], list[bool]] | None = None) -> tuple[Dialect, ...]:
    """The dialects a class of disagreements matches: for each neighbour, the witnesses of it
    among the class's inputs on which it agrees with the implementation (RFC 2279's F8 88 80 80
    80 falls in the class of F5 80 80 80, where the grammar stops at the lead byte, and is shown
    there); neighbours with the same inputs share a line.  When no witness is among them, the
    neighbours that agree on the class's shrunk witness.  With ``query`` (the implementation's
    verdicts), a neighbour that the implementation agrees with on all its witnesses hides those
    it disagrees with on some: glibc speaks RFC 2279 without surrogates, not RFC 2279.  When the
    implementation speaks none of the dialects so, the one-edit mutants it speaks so are named
    too (at most :data:`SHOWN_MUTANTS`): a decoder that stops plane 16 at U+10EFFF behaves like
    UTF-8 with %x80-8F narrowed to %x80-8E, not like CESU-8, which also rejects F4 8F 80 80."""
    named, whole = _matching([n for n in neighbours if not n.mutant], found, implementation_accepts, witness,
                             members, query)
    mutants = [n for n in neighbours if n.mutant]
    if query is None or whole or not mutants:
        return named
    edits, _whole = _matching(mutants, found, implementation_accepts, witness, members, query, whole_only=True)
    return named + tuple(replace(edit, paths=edit.paths[:SHOWN_MUTANTS], mutant=True)
                         for edit in edits[:SHOWN_MUTANTS])


def _matching(neighbours: Sequence[Neighbour], found: Sequence[Witness], implementation_accepts: bool,
              witness: bytes, members: Sequence[bytes], query: Callable[[Sequence[bytes]], list[bool]] | None,
              whole_only: bool = False) -> tuple[tuple[Dialect, ...], bool]:
    """:func:`dialects` among ``neighbours``, and whether the implementation agrees with one of
    them on all its witnesses; with ``whole_only``, only those are kept."""
    names = {n.path for n in neighbours}
    found = [w for w in found if w.neighbour in names]
    inside = set(members)
    by_neighbour: dict[str, list[bytes]] = {}
    for item in found:
        if item.data in inside and item.neighbour_accepts == implementation_accepts:
            by_neighbour.setdefault(item.neighbour, []).append(item.data)
    if not by_neighbour:
        for path in agreeing(neighbours, witness, implementation_accepts):
            by_neighbour[path] = [witness]
    whole: list[str] = []
    if query is not None and by_neighbour:
        whole = [path for path in by_neighbour if _speaks(path, found, query)]
        if whole or whole_only:
            by_neighbour = {path: by_neighbour[path] for path in whole}
    grouped: dict[tuple[bytes, ...], list[str]] = {}
    for path, inputs in by_neighbour.items():
        shown = tuple(_spread(sorted(set(inputs), key=lambda d: (len(d), d))))
        grouped.setdefault(shown, []).append(path)
    return tuple(Dialect(tuple(paths), inputs) for inputs, paths in grouped.items()), bool(whole)


def _speaks(path: str, found: Sequence[Witness], query: Callable[[Sequence[bytes]], list[bool]]) -> bool:
    """Whether the implementation agrees with neighbour ``path`` on every witness of it."""
    mine = [item for item in found if item.neighbour == path]
    answers = query([item.data for item in mine])
    return all(answer == item.neighbour_accepts for item, answer in zip(mine, answers, strict=True))


def _spread(inputs: list[bytes]) -> list[bytes]:
    """At most :data:`SHOWN` inputs, the shortest of each length first (so that the five- and
    six-byte forms show beside the four-byte ones)."""
    lengths = list(dict.fromkeys(len(d) for d in inputs))
    first = [next(d for d in inputs if len(d) == n) for n in lengths]
    rest = [d for d in inputs if d not in first]
    return (first + rest)[:SHOWN]
