"""Active automata learning over byte classes: the minimal DFA of a black box, the grammar as prior.

Angluin's L* ("Learning regular sets from queries and counterexamples", 1987) with Rivest and
Schapire's counterexample processing ("Inference of finite automata using homing sequences",
1993): an observation table of access words S (one per state, their rows distinct) and
suffixes E, filled with membership queries; the hypothesis has a state per row.  A
counterexample ``w`` is cut by binary search at the point where replacing the prefix by the
access word of the state the hypothesis reaches changes the answer: there a single suffix
separates a new state from the one the hypothesis merged it with, and it joins E.

Bytes are a large alphabet, so the table reads one representative byte per *class*, as symbolic
automata learning does (Argyros and D'Antoni, "The learnability of symbolic automata", CAV
2018): where the cut point's byte answers differently from its class's representative after the
same access word, the class is split, each of its bytes probed with the separating suffix.

The grammar is the prior: the table starts from the access words and separating words of its
minimal DFA and its byte classes, so an implementation that agrees with the grammar is learned
with one table fill and one round of equivalence checks.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..automata.dfa import Dfa
from ..automata.identify import identifiers
from ..automata.minimize import canonical, minimize
from ..automata.product import access_words
from ..charset import Ranges, members, normalize

Ask = Callable[[Sequence[bytes]], list[bool]]  # membership queries, in a batch


@dataclass
class Table:
    """The observation table: access words (rows distinct), suffixes, classes with representatives."""

    access: list[bytes]
    suffixes: list[bytes]
    classes: list[Ranges]
    known: dict[bytes, bool] = field(default_factory=dict)

    def representative(self, cls: int) -> int:
        return self.classes[cls][0][0]

    def row(self, word: bytes) -> tuple[bool, ...]:
        return tuple(self.known[word + suffix] for suffix in self.suffixes)

    def extensions(self, word: bytes) -> list[bytes]:
        """``word`` followed by each class's representative, in class order."""
        return [word + bytes([self.representative(c)]) for c in range(len(self.classes))]

    def wanted(self) -> list[bytes]:
        """The words the table needs answers for and has none."""
        words = {w + e for s in self.access for w in (s, *self.extensions(s)) for e in self.suffixes}
        return sorted(w for w in words if w not in self.known)


class Learner:
    """L* with class splitting, asking ``ask`` and starting from ``prior`` (a minimal DFA)."""

    def __init__(self, ask: Ask, prior: Dfa, max_states: int = 10_000):
        self.ask = ask
        words = access_words(prior)
        suffixes = sorted({w for ids in identifiers(prior) for w in ids}, key=lambda w: (len(w), w))
        access = sorted((words[s] for s in range(prior.num_states) if s in words), key=lambda w: (len(w), w))
        self.table = Table(access, sorted({b"", *suffixes}, key=lambda w: (len(w), w)),
                           [normalize(r) for r in prior.classes])
        self.queries = 0
        self.max_states = max_states

    def query(self, words: Sequence[bytes]) -> list[bool]:
        fresh = sorted({w for w in words if w not in self.table.known})
        if fresh:
            for word, answer in zip(fresh, self.ask(fresh), strict=True):
                self.table.known[word] = answer
            self.queries += len(fresh)
        return [self.table.known[w] for w in words]

    def hypothesis(self) -> Dfa:
        """Fill and close the table, then its DFA (access rows are states)."""
        table = self.table
        while True:
            self.query(table.wanted())
            rows = {table.row(s): s for s in reversed(table.access)}  # the first access word of each row
            table.access = [s for s in table.access if rows[table.row(s)] == s]  # rows distinct
            if max(len(table.access), len(table.classes)) > self.max_states:
                raise TooLarge(len(table.access))
            missing = [w for s in table.access for w in table.extensions(s) if table.row(w) not in rows]
            if not missing:
                return self._dfa()
            table.access.append(min(missing, key=lambda w: (len(w), w)))

    def _dfa(self) -> Dfa:
        table = self.table
        order = list(table.access)
        index = {table.row(s): i + 1 for i, s in enumerate(order)}  # 0 is a fresh dead state
        transitions = [tuple(0 for _ in table.classes)]
        for s in order:
            transitions.append(tuple(index[table.row(w)] for w in table.extensions(s)))
        accepting = frozenset(i + 1 for i, s in enumerate(order) if table.known[s])
        # State 0 is a dead state of its own, unreachable when some row rejects everything:
        # minimization merges the two.
        dfa = Dfa(tuple(table.classes), tuple(transitions), index[table.row(b"")], accepting, 0)
        return canonical(minimize(dfa))

    def refine(self, counterexample: bytes, hypothesis: Dfa) -> None:
        """Rivest-Schapire: the cut point of ``counterexample``, then a new suffix or a split class."""
        table = self.table
        # The access word of the table's state after each prefix, read from the rows, not from
        # the minimized hypothesis: the suffixes are not suffix-closed, so minimizing can merge
        # two distinct rows (one that rejects on every suffix joins the dead state), and a cut
        # point found through the merged state would give a suffix the table already has.
        rows = {table.row(s): s for s in reversed(table.access)}
        reached = [rows[table.row(b"")]]
        for byte in counterexample:
            cls = next(c for c, ranges in enumerate(table.classes) if any(a <= byte <= b for a, b in ranges))
            reached.append(rows[table.row(reached[-1] + bytes([table.representative(cls)]))])

        def probe(i: int) -> bool:
            return self.query([reached[i] + counterexample[i:]])[0]

        lo, hi = 0, len(counterexample)
        low_answer = probe(lo)
        if low_answer == probe(hi):  # the program answered this input two ways
            raise Inconsistent(counterexample)
        while hi - lo > 1:
            middle = (lo + hi) // 2
            if probe(middle) == low_answer:
                lo = middle
            else:
                hi = middle
        prefix, byte, rest = reached[lo], counterexample[lo], counterexample[lo + 1:]
        cls = next(c for c, ranges in enumerate(table.classes) if any(a <= byte <= b for a, b in ranges))
        representative = table.representative(cls)
        with_byte, with_representative = self.query([prefix + bytes([byte]) + rest,
                                                      prefix + bytes([representative]) + rest])
        if with_byte != with_representative:
            self._split(cls, prefix, rest, with_representative)
        elif rest not in table.suffixes:
            table.suffixes.append(rest)
        else:  # the table already separates what this suffix would: no finite automaton fits the answers
            raise Inconsistent(counterexample)

    def _split(self, cls: int, prefix: bytes, rest: bytes, representative_answer: bool) -> None:
        """Class ``cls`` in two: its bytes that answer as its representative after ``prefix``
        followed by ``rest``, and the others."""
        table = self.table
        bytes_of = members(table.classes[cls])
        answers = self.query([prefix + bytes([b]) + rest for b in bytes_of])
        same = [b for b, answer in zip(bytes_of, answers, strict=True) if answer == representative_answer]
        other = [b for b, answer in zip(bytes_of, answers, strict=True) if answer != representative_answer]
        table.classes[cls] = normalize((b, b) for b in same)
        table.classes.append(normalize((b, b) for b in other))

class Inconsistent(Exception):
    """A counterexample the table cannot take: the black box's answers fit no DFA that L* can
    reach from them.  A regular, deterministic black box never does this; one whose language is
    not regular (a checksum over the input) or whose answers change (noise) can."""

    def __init__(self, counterexample: bytes):
        super().__init__(counterexample)
        self.counterexample = counterexample


class TooLarge(Exception):
    """The table grew past the learner's limit of states."""

    def __init__(self, states: int):
        super().__init__(states)
        self.states = states
