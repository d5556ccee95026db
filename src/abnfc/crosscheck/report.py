"""The result of ``abnfc crosscheck`` and its two formats: text for people, JSON for machines."""
from __future__ import annotations

import json
from dataclasses import dataclass

from ..i18n import _, ngettext, number
from .disagreements import Parting
from .neighbours import Dialect
from .provenance import hex_text


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
        for dialect in found.dialects:
            lines.append("     " + ngettext("as {dialects} does, the implementation accepts {inputs}",
                                             "as {dialects} do, the implementation accepts {inputs}",
                                             len(dialect.paths)).format(
                dialects=_(" and ").join(dialect.paths), inputs=", ".join(hex_text(d) for d in dialect.inputs))
                if found.parting.implementation_accepts else "     " + ngettext(
                    "as {dialects} does, the implementation rejects {inputs}",
                    "as {dialects} do, the implementation rejects {inputs}", len(dialect.paths)).format(
                    dialects=_(" and ").join(dialect.paths), inputs=", ".join(hex_text(d) for d in dialect.inputs)))
    if result.unclassified:
        lines.append("  " + _("and {count:,} more disagreements, not classified").format(count=result.unclassified))
    lines += _against_lines(result, total)
    return "\n".join(lines) + "\n"


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
                     "dialects": [{"grammars": list(d.paths), "inputs": [i.hex(" ") for i in d.inputs]}
                                  for d in found.dialects]} for found in result.classes],
        "unclassified": result.unclassified,
        "against": [{"grammar": path, "disagreements": count} for path, count in result.against],
        "fault": ({"message": result.fault,
                   "input": result.fault_input.hex(" ") if result.fault_input is not None else None}
                  if result.fault else None),
    }
    return json.dumps(document, indent=1) + "\n"
