"""Cross-checking: run another implementation over many inputs and find where it differs from the grammar.

The inputs (:mod:`.inputs`): the grammar's vectors, every string up to ``--exhaustive`` bytes,
``--sample`` random strings one byte longer, and ``--random`` strings generated from the grammar
with near-misses of them, all seeded by ``--seed`` and streamed in batches of 2^20, so memory
stays flat.  The implementation runs through a runner (:mod:`.programs`); disagreements are
grouped by where the languages part and shrunk (:mod:`.disagreements`); ``--against`` says which
other grammars the implementation agrees with on the same inputs.  A caller may run the
exhaustive part elsewhere (:data:`Remote`: ``crosscheck --spark`` runs it on Spark's executors);
everything else stays here, and the result is the same.  Exit status 0: no
disagreement; 1: disagreements; 2: a usage error, or a program that crashed, hung or printed
something that is not a verdict.
"""
from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..charset import format_readable, from_bytes
from ..i18n import _, ngettext
from .disagreements import Classifier, InterpreterClassifier, Parting
from .inputs import Elsewhere, InputStream, Part, all_strings, every_byte, random_strings, sampled
from .language import Language
from .neighbours import Neighbour, Witness, all_witnesses, dialects
from .programs import Fault, Runner
from .provenance import NoProvenance, hex_text
from .report import DisagreementClass, Result
from .suite import build_suite


@dataclass(frozen=True)
class Amounts:
    """How many inputs of each kind to try (see the module's docstring)."""

    exhaustive: int
    sample: int
    random: int
    seed: int = 0
    extra_states: int = 0
    every_byte: bool = True  # every byte after the shortest way into each state (regular grammars)


# Defaults per way of running: one process per input is slow, so it gets fewer inputs.
DEFAULTS = {"hex-lines": Amounts(2, 65_536, 10_000), "python": Amounts(2, 65_536, 10_000),
            "exit": Amounts(1, 0, 200, every_byte=False)}
MAX_KEPT = 200_000  # disagreements kept for classifying; the others are only counted
MAX_ACCEPTED = 20_000  # valid inputs the implementation accepts, kept for their endings (the probes')
# Shrinking: candidates asked at once, and at most per class.
SHRINKING = {"hex-lines": (4096, 100_000), "python": (4096, 100_000), "exit": (32, 400)}


class Progress:
    """Progress lines on standard error, at most twice a second, headed by the command's name
    (``abnfc learn: asking the implementation: 180 of 180``)."""

    def __init__(self, enabled: bool, in_place: bool, command: str = "crosscheck"):
        self.enabled = enabled
        self.in_place = in_place
        self.command = command
        self.last = 0.0
        self.phase = _("asking the implementation")  # until a phase is started

    def start(self, phase: str) -> None:
        self.phase = phase
        self.last = 0.0
        self.show(phase)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.enabled and now - self.last >= 0.5:
            self.last = now
            self.show(f"{self.phase}: {done:,}" + (f" of {total:,}" if total else ""))

    def show(self, message: str) -> None:
        if self.enabled:
            end = "" if self.in_place else "\n"
            print(("\r\033[K" if self.in_place else "") + f"abnfc {self.command}: {message}", end=end,
                  file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.enabled and self.in_place:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


class Cached:
    """The implementation's verdicts, each input asked once."""

    def __init__(self, runner):
        self.runner = runner
        self.known: dict[bytes, bool] = {}

    def __call__(self, inputs: Sequence[bytes]) -> list[bool]:
        unknown = list(dict.fromkeys(data for data in inputs if data not in self.known))
        if unknown:
            self.known.update(zip(unknown, self.runner.verdicts(unknown), strict=True))
        return [self.known[data] for data in inputs]


@dataclass(frozen=True)
class Found:
    """What running the exhaustive part elsewhere found, in input order: how many disagreements
    in all, the first of them and the first valid inputs the implementation accepts, each up to
    the room it was given, and the disagreements with each ``--against`` grammar."""

    count: int
    disagreements: tuple[tuple[bytes, bool], ...]  # (input, grammar's verdict)
    accepted: tuple[bytes, ...]
    against: tuple[int, ...]


# Runs the exhaustive part elsewhere: (the part, room for disagreements, room for accepted valid
# inputs) -> what it found; raises Fault as a runner does.
Remote = Callable[[Elsewhere, int, int], Found]


def _vectors(language: Language, extra_states: int) -> list[bytes]:
    return [v.data for v in build_suite(language.minimal, NoProvenance(), language.accepts, extra_states)]


def _inputs(language: Language, others: list[Language], amounts: Amounts, elsewhere: bool,
            witnesses: Sequence[Witness] = ()) -> InputStream:
    exhaustive, sample, count, seed = amounts.exhaustive, amounts.sample, amounts.random, amounts.seed
    parts = []
    for what, label, mutant in (
            ("witnesses of the neighbour grammars", _("witnesses of the neighbour grammars"), False),
            ("witnesses of the grammar's one-edit mutants", _("witnesses of the grammar's one-edit mutants"), True)):
        data = [w.data for w in witnesses if w.mutant == mutant]
        if data:
            parts.append(Part(what, data, label=label))
    parts.append(Part("vectors", _vectors(language, amounts.extra_states), label=_("vectors")))
    if language.exact and amounts.every_byte:
        parts.append(Part("every byte after the shortest way into each state", every_byte(language.minimal),
                          label=_("every byte after the shortest way into each state")))
    if others:
        parts.append(Part("vectors of the --against grammars", [d for other in others for d in _vectors(other, 0)],
                          label=_("vectors of the --against grammars")))
    parts.append(Part(f"strings of up to {exhaustive} {'byte' if exhaustive == 1 else 'bytes'}",
                      () if elsewhere else all_strings(exhaustive), exhaustive=True,
                      label=ngettext("strings of up to {count} byte", "strings of up to {count} bytes",
                                     exhaustive).format(count=exhaustive)))
    if sample:
        parts.append(Part(f"sampled strings of {exhaustive + 1} bytes",
                          sampled(exhaustive + 1, sample, random.Random(f"sample {seed}")),
                          label=_("sampled strings of {count} bytes").format(count=exhaustive + 1)))
    if count:
        parts.append(Part(f"random strings and near-misses (seed {seed})",
                          random_strings(language.minimal, count, random.Random(f"random {seed}")),
                          label=_("random strings and near-misses (seed {seed})").format(seed=seed)))
    return InputStream(parts, exhaustive, elsewhere=elsewhere)


@dataclass
class _Tally:
    """What a run over all the inputs leaves for the report."""

    disagreements: list[tuple[bytes, bool]] = field(default_factory=list)  # (input, grammar's verdict)
    accepted: list[bytes] = field(default_factory=list)  # valid inputs the implementation accepts
    count: int = 0
    against: list[int] = field(default_factory=list)  # disagreements with each --against grammar


def crosscheck(language: Language, others: list[Language], runner: Runner, kind: str, amounts: Amounts,
               progress: Progress, label: str, remote: Remote | None = None,
               neighbours: Sequence[Neighbour] = ()) -> Result:
    """Run the implementation behind ``runner`` over the inputs ``amounts`` asks for and compare
    its verdicts with the grammar's (and those of the ``others``); a fault of the program (a
    crash, a hang, an answer that is not a verdict) ends the run and is reported in the result.
    With ``remote``, the exhaustive part runs there.  The ``neighbours``' witnesses are tried
    first, and each class of disagreement names the neighbours that agree with the implementation
    on its witness."""
    progress.start(_("generating inputs"))
    witnesses = all_witnesses(language, neighbours)
    stream = _inputs(language, others, amounts, remote is not None, witnesses)
    try:
        tally = _run_all(language, others, stream, runner, progress, remote)
        progress.start(_("classifying and shrinking"))
        result = _compare(language, others, kind, tally, Cached(runner), stream, label, neighbours, witnesses)
    except Fault as fault:
        result = Result(language.path, language.start_name, label, language.describe_bound(), stream.total,
                        tuple(stream.counts), 0, (), 0, (), fault.message, fault.data, tuple(stream.labels))
    progress.done()
    return result


def _run_all(language: Language, others: list[Language], stream: InputStream, runner, progress: Progress,
             remote: Remote | None = None) -> _Tally:
    """The grammar's and the implementation's verdicts on every input, a batch at a time."""
    tally = _Tally(against=[0] * len(others))
    for batch in stream.batches():
        if isinstance(batch, Elsewhere):
            assert remote is not None  # the stream yields the part only when asked to
            _add(tally, remote(batch, MAX_KEPT - len(tally.disagreements), MAX_ACCEPTED - len(tally.accepted)))
            continue
        progress.start(_("running the implementation on inputs {count:,} and on").format(
            count=stream.total - len(batch)))
        expected, got = language.verdicts(batch), runner.verdicts(batch)
        for data, valid, answer in zip(batch, expected, got, strict=True):
            if valid != answer:
                tally.count += 1
                if len(tally.disagreements) < MAX_KEPT:
                    tally.disagreements.append((data, valid))
            elif valid and len(tally.accepted) < MAX_ACCEPTED:
                tally.accepted.append(data)
        for index, other in enumerate(others):
            tally.against[index] += sum(a != b for a, b in zip(other.verdicts(batch), got, strict=True))
    return tally


def _add(tally: _Tally, found: Found) -> None:
    tally.count += found.count
    tally.disagreements.extend(found.disagreements[:MAX_KEPT - len(tally.disagreements)])
    tally.accepted.extend(found.accepted[:MAX_ACCEPTED - len(tally.accepted)])
    tally.against = [mine + theirs for mine, theirs in zip(tally.against, found.against, strict=True)]


def _compare(language: Language, others: list[Language], kind: str, tally: _Tally, query: Cached,
             stream: InputStream, label: str, neighbours: Sequence[Neighbour] = (),
             witnesses: Sequence[Witness] = ()) -> Result:
    chunk, budget = SHRINKING[kind]
    if language.exact:
        classifier = Classifier(language.minimal, language.accepts, query, chunk, budget, tally.accepted)
    else:
        classifier = InterpreterClassifier(language.resolved, language.minimal, query, chunk, budget)
    kept = tally.disagreements
    classes, unclassified = classifier.classify([d for d, _ in kept], [v for _, v in kept])
    found = []
    for parting, members in classes.items():
        witness = classifier.shrink(min(members, key=lambda d: (len(d), d)), parting)
        found.append(DisagreementClass(parting, witness, len(members),
                                       _explain(language, classifier, parting, witness),
                                       _seen(classifier, parting, witness),
                                       dialects(neighbours, witnesses, parting.implementation_accepts, witness,
                                                members, query)))
    found.sort(key=lambda c: (len(c.witness), c.witness))
    against = tuple(sorted(((other.path, count) for other, count in zip(others, tally.against, strict=True)),
                           key=lambda item: (item[1], item[0]))) if tally.count else ()
    return Result(language.path, language.start_name, label, language.describe_bound(), stream.total,
                  tuple(stream.counts), tally.count, tuple(found), unclassified + tally.count - len(kept), against,
                  source_labels=tuple(stream.labels))


def _explain(language: Language, classifier: Classifier, parting: Parting, witness: bytes) -> str:
    shown = hex_text(witness)
    if not parting.implementation_accepts:
        probes = classifier.probes(witness)
        offset = classifier.strict(witness, dict(zip(probes, classifier.query(probes), strict=True)))[1]
        where = f": {language.provenance.step(witness, offset)}" if 0 <= offset < len(witness) else ""
        return _("implementation rejects {input}, which the grammar accepts").format(input=shown) + where
    if not language.exact:
        return _("implementation accepts {input}, which the grammar rejects: {why}").format(
            input=shown, why=language.provenance.explain(witness))
    offset = classifier.lenient(witness)[1]
    requirement = language.provenance.requirement(witness, offset)
    if offset == len(witness):
        return _("implementation accepts {input}, which ends too early: the grammar requires {requirement}").format(
            input=shown, requirement=requirement)
    return _("implementation accepts {input}; the grammar requires {requirement}").format(
        input=shown, requirement=requirement)


def _seen(classifier: Classifier, parting: Parting, witness: bytes) -> str:
    """The bytes of the parting range that the implementation gets wrong, each tried once:
    where the grammar stops, after the shortest way into the state with a lookalike's ending;
    where the grammar goes on, after the witness's own beginning with the grammar's completion
    (a validator that refuses E5 and E9 of %xE1-EC is seen to refuse those two)."""
    if parting.lo is None or parting.hi is None:
        return ""
    if not parting.implementation_accepts:
        return _seen_rejected(classifier, parting, witness)
    prefix = classifier.access.get(parting.state)
    if prefix is None:
        return ""
    tries = {byte: prefix + bytes([byte]) + classifier.ending(parting.state, byte)
             for byte in range(parting.lo, parting.hi + 1)}
    answers = dict(zip(tries, classifier.query(list(tries.values())), strict=True))
    accepted = [byte for byte, data in tries.items() if answers[byte] and not classifier.accepts(data)]
    return _("it accepts {bytes} there").format(bytes=format_readable(from_bytes(accepted))) if accepted else ""


def _seen_rejected(classifier: Classifier, parting: Parting, witness: bytes) -> str:
    head, _rest = classifier.cut(witness, parting)
    if head is None or parting.lo is None or parting.hi is None:
        return ""
    tries = {byte: head + bytes([byte]) + classifier.ending(parting.state, byte)
             for byte in range(parting.lo, parting.hi + 1)}
    answers = dict(zip(tries, classifier.query(list(tries.values())), strict=True))
    rejected = [byte for byte, data in tries.items() if not answers[byte] and classifier.accepts(data)]
    return _("it rejects {bytes} there").format(bytes=format_readable(from_bytes(rejected))) if rejected else ""
