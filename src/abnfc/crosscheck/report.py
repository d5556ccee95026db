"""What the tools print: the result of ``abnfc crosscheck`` and its two formats (text for people,
JSON for machines), and the text of ``abnfc diff`` (:func:`diff_report`, which ``abnfc learn``
prints too) on two grammars' languages."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..i18n import _, ngettext, number
from .disagreements import Parting
from .neighbours import Dialect
from .provenance import byte_text, hex_text

if TYPE_CHECKING:
    from .differences import Comparison, Difference
    from .language import Language


@dataclass(frozen=True)
class DisagreementClass:
    parting: Parting
    witness: bytes  # the smallest disagreement found in the class, after shrinking
    count: int  # inputs of the run that fall in the class
    explanation: str  # where the two languages part, in grammar terms
    seen: str = ""  # which bytes the implementation accepts where the grammar stops, when known
    dialects: tuple[Dialect, ...] = ()  # neighbour grammars that agree with the implementation on inputs of the class


@dataclass(frozen=True)
class Result:
    grammar: str
    start: str
    implementation: str
    bound: str  # empty for regular grammars; how far a recursive grammar was explored
    total: int  # inputs tried
    sources: tuple[tuple[str, int], ...]  # (where from, how many), in order
    disagreements: int
    classes: tuple[DisagreementClass, ...]
    unclassified: int  # disagreements beyond the classification budgets
    against: tuple[tuple[str, int], ...]  # (grammar, disagreements with the implementation)
    fault: str = ""  # what the implementation did wrong, when it crashed or hung
    fault_input: bytes | None = None
    source_labels: tuple[str, ...] = ()  # the sources' names in the reader's language (default: as in sources)

    @property
    def exit_status(self) -> int:
        if self.fault:
            return 2
        return 1 if self.disagreements else 0


def text(result: Result) -> str:
    lines = [_("crosscheck {grammar} ({start}) against {implementation}").format(
        grammar=result.grammar, start=result.start, implementation=result.implementation)]
    if result.bound:
        lines.append(_("bounded: {bound}").format(bound=result.bound))
    total = result.total
    labels = result.source_labels or tuple(what for what, _count in result.sources)
    described = ", ".join(f"{number(count)} {label}" for (_what, count), label
                          in zip(result.sources, labels, strict=True) if count)
    lines.append(_("inputs: {total:,} ({sources})").format(total=total, sources=described))
    if result.fault:
        shown = hex_text(result.fault_input) if result.fault_input is not None else _("none found")
        lines += [_("error: {fault}").format(fault=result.fault), "  " + _("triggering input: {input}").format(
            input=shown)]
        return "\n".join(lines) + "\n"
    if not result.disagreements:
        lines.append(_("no disagreement: the implementation agrees with the grammar on all {total:,} inputs").format(
            total=total))
        return "\n".join(lines) + "\n"
    count = len(result.classes)
    lines.append(ngettext("disagreements: {count:,} of {total:,} inputs, in {classes} class",
                          "disagreements: {count:,} of {total:,} inputs, in {classes} classes", count).format(
                              count=result.disagreements, total=total, classes=count))
    for position, found in enumerate(result.classes, 1):
        seen = f"; {found.seen}" if found.seen else ""
        inputs = ngettext("{count:,} input", "{count:,} inputs", found.count).format(count=found.count)
        lines.append(f"  {position}. {found.explanation} [{inputs}{seen}]")
        lines += ["     " + _dialect_line(dialect, found.parting.implementation_accepts) for dialect in found.dialects]
    if result.unclassified:
        lines.append("  " + _("and {count:,} more disagreements, not classified").format(count=result.unclassified))
    lines += _against_lines(result, total)
    return "\n".join(lines) + "\n"


def _dialect_line(dialect: Dialect, implementation_accepts: bool) -> str:
    """The neighbours (dialects or one-edit mutants) the implementation agrees with on ``dialect.inputs``."""
    inputs = ", ".join(hex_text(d) for d in dialect.inputs)
    if dialect.mutant:
        edits = _(" or ").join(dialect.paths)
        if implementation_accepts:
            return _("the implementation behaves like the grammar with one edit, {edits}; it accepts {inputs}").format(
                edits=edits, inputs=inputs)
        return _("the implementation behaves like the grammar with one edit, {edits}; it rejects {inputs}").format(
            edits=edits, inputs=inputs)
    dialects = _(" and ").join(dialect.paths)
    if implementation_accepts:
        return ngettext("as {dialects} does, the implementation accepts {inputs}",
                        "as {dialects} do, the implementation accepts {inputs}", len(dialect.paths)).format(
                            dialects=dialects, inputs=inputs)
    return ngettext("as {dialects} does, the implementation rejects {inputs}",
                    "as {dialects} do, the implementation rejects {inputs}", len(dialect.paths)).format(
                        dialects=dialects, inputs=inputs)


def _against_lines(result: Result, total: int) -> list[str]:
    if not result.against:
        return []
    best = min(count for _, count in result.against)
    lines = []
    if best == 0:
        same = [path for path, count in result.against if count == 0]
        lines.append(_("the implementation agrees exactly with {grammars} on all {total:,} inputs").format(
            grammars=_(" and ").join(same), total=total))
    else:
        closest = [path for path, count in result.against if count == best]
        lines.append(_("closest: {grammars} ({count:,} disagreements)").format(grammars=_(" and ").join(closest),
                                                                                count=best))
    lines += [f"  {number(count):>9}  {path}" for path, count in result.against]
    return lines


def to_json(result: Result) -> str:
    document = {
        "grammar": result.grammar,
        "start": result.start,
        "implementation": result.implementation,
        "bounded": result.bound or None,
        "inputs": result.total,
        "sources": dict(result.sources),
        "agreements": result.total - result.disagreements if not result.fault else None,
        "disagreements": result.disagreements if not result.fault else None,
        "classes": [{"witness": found.witness.hex(" "),
                     "grammar_accepts": not found.parting.implementation_accepts,
                     "implementation_accepts": found.parting.implementation_accepts,
                     "count": found.count,
                     "accepted_there": found.seen or None,
                     "where": found.explanation,
                     "dialects": [{"grammars": [] if d.mutant else list(d.paths),
                                   "mutants": list(d.paths) if d.mutant else [],
                                   "inputs": [i.hex(" ") for i in d.inputs]}
                                  for d in found.dialects]} for found in result.classes],
        "unclassified": result.unclassified,
        "against": [{"grammar": path, "disagreements": count} for path, count in result.against],
        "fault": ({"message": result.fault,
                   "input": result.fault_input.hex(" ") if result.fault_input is not None else None}
                  if result.fault else None),
    }
    return json.dumps(document, indent=1) + "\n"


def diff_report(a: Language, b: Language, count_to: int, max_dfa_states: int, max_work: int,
                max_shown: int) -> tuple[list[str], bool]:
    """What ``abnfc diff`` prints about languages ``a`` and ``b``, and whether they are equal
    (``abnfc learn`` prints the same about what it learned)."""
    from .differences import compare_languages

    comparison, bound = compare_languages(a, b, count_to, max_dfa_states, max_work, max_shown)
    lines = [f"A = {a.path} ({a.start_name})", f"B = {b.path} ({b.start_name})"]
    lines += [_("bounded: {bound}").format(bound=language.describe_bound())
              for language in (a, b) if not language.exact]
    if comparison.equal:
        lines.append(_("A and B accept the same inputs on inputs of up to {bound} bytes").format(bound=bound)
                     if bound is not None else _("A and B accept the same inputs"))
    else:
        lines.append(_("A and B differ on inputs of up to {bound} bytes").format(bound=bound)
                     if bound is not None else _("A and B differ"))
        lines += _side(comparison, True, a, b, max_shown)
        lines += _side(comparison, False, a, b, max_shown)
        lines += _counts(comparison)
    return lines, comparison.equal


def _side(comparison: Comparison, only_in_a: bool, a: Language, b: Language, max_shown: int) -> list[str]:
    total = comparison.found[0 if only_in_a else 1]
    if not total:
        return []
    shown = [d for d in comparison.differences if d.only_in_a == only_in_a][:max_shown]
    name = "A" if only_in_a else "B"
    lines = [ngettext("only in {side}: {count:,} difference", "only in {side}: {count:,} differences", total).format(
        side=name, count=total)]
    for difference in shown:
        keeps, refuses = (a, b) if only_in_a else (b, a)
        lines.append(f"  {_examples(difference)}: {_why(difference, keeps, refuses, only_in_a)}")
    if total > len(shown):
        lines.append("  " + _("and {count:,} more (--max-shown)").format(count=total - len(shown)))
    return lines


def _examples(difference: Difference) -> str:
    return ", ".join(hex_text(example) for example in difference.examples)


def _why(difference: Difference, keeps: Language, refuses: Language, only_in_a: bool) -> str:
    """The rules on both sides where they part."""
    example, offset = difference.examples[0], difference.offset
    keep_name, refuse_name = ("A", "B") if only_in_a else ("B", "A")
    if offset < 0:  # a bounded comparison: the refusing grammar's own reason
        return f"{refuse_name}: {refuses.provenance.explain(example)}"
    if offset == len(example):
        return f"{refuse_name}: {refuses.provenance.explain(example)}"
    byte = example[offset]
    kept = keeps.provenance.step(example, offset)
    refused = refuses.provenance.requirement(example, offset)
    if refused:
        return _("{refusing} requires {required}; {keeping}: {kept}").format(
            refusing=refuse_name, required=refused, keeping=keep_name, kept=kept)
    return _("{refusing} refuses {byte}; {keeping}: {kept}").format(refusing=refuse_name, byte=byte_text(byte),
                                                                     keeping=keep_name, kept=kept)


def _counts(comparison: Comparison) -> list[str]:
    rows = [(n, count_text(x), count_text(y)) for n, x, y in comparison.counts if x or y]
    if not rows:
        return []
    only_a, only_b, length = _("only in A"), _("only in B"), _("bytes")
    width = max(len(only_a), len(only_b), *(len(value) for row in rows for value in row[1:]))
    lines = [_("inputs of each length accepted by one side only (up to {bound} bytes):").format(
        bound=comparison.counts[-1][0]),
             f"  {length:>5}  {only_a:>{width}}  {only_b:>{width}}"]
    lines += [f"  {n:>5}  {x:>{width}}  {y:>{width}}" for n, x, y in rows]
    return lines


EXACT_BELOW = 10**18  # counts up to here are printed exactly; above, as 1.23e45


def count_text(count: int) -> str:
    """``1,234`` or, for counts too long to read (or to print: Python refuses ints of over 4,300
    digits), ``1.23e4815`` (rounded down)."""
    if count < EXACT_BELOW:
        return number(count)
    exponent = int(count.bit_length() * 0.30102999566398120) - 1  # log10(2): at most one too small
    while count >= 10 ** (exponent + 1):
        exponent += 1
    digits = count * 100 // 10**exponent
    return f"{digits // 100}.{digits % 100:02d}e{exponent}"
