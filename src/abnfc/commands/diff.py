"""``abnfc diff``: compare the languages of two grammars with a product automaton.

Says whether the two accept the same inputs; otherwise lists each distinct difference
(:mod:`abnfc.crosscheck.differences`) with its shortest inputs and the rules on both sides where they part, and
counts the inputs of each length in only one of the languages.  A recursive grammar is compared
up to a length bound (:mod:`abnfc.crosscheck.bounded`), and the output says so.  Exit status 0 when the
languages are equal, 1 when they differ, 2 for errors.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import i18n
from ..i18n import N_, _, ngettext
from .support import options

if TYPE_CHECKING:
    from ..automata.dfa import Dfa
    from ..crosscheck.differences import Comparison, Difference
    from ..crosscheck.language import Language

NAME = "diff"
HELP = N_("compare the languages of two grammars")
EXAMPLE = ("examples:\n  abnfc diff grammars/utf8.abnf grammars/variants/wtf8.abnf\n"
           "  abnfc diff a.abnf b.abnf --start-b other-rule --count-to 4")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_grammar(parser, "GRAMMAR_A")
    parser.add_argument("other", metavar="GRAMMAR_B", help=N_("the grammar to compare with"))
    parser.add_argument("--start-b", metavar="RULE", help=N_("start rule of GRAMMAR_B (default: its first)"))
    parser.add_argument("--count-to", type=options.nonnegative, default=6, metavar="N",
                        help=N_("count the inputs only one side accepts for each length up to N (default 6)"))
    parser.add_argument("--max-shown", type=options.positive, default=8, metavar="N",
                        help=N_("differences listed on each side (default 8)"))
    options.add_exploration(parser, nesting=False)  # diff compares two languages by length
    options.add_limits(parser)


def run(args: argparse.Namespace) -> int:
    from ..crosscheck.language import load_language

    a = load_language(options.compilation(args), args.max_length, args.max_runs)
    b = load_language(options.compilation(args, args.other, args.start_b), args.max_length, args.max_runs)
    lines, equal = report(a, b, args.count_to, args.max_dfa_states, args.max_work, args.max_shown)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if equal else 1


def report(a: Language, b: Language, count_to: int, max_dfa_states: int, max_work: int,
           max_shown: int) -> tuple[list[str], bool]:
    """What ``abnfc diff`` prints about languages ``a`` and ``b``, and whether they are equal
    (``abnfc learn`` prints the same about what it learned)."""
    from ..crosscheck.differences import compare

    dfa_a, dfa_b, bound = _comparable(a, b)
    count_to = count_to if bound is None else min(count_to, bound)
    comparison = compare(dfa_a, dfa_b, count_to, max_dfa_states, max_work,
                         listed=max_shown if bound is None else None)
    if bound is not None:
        comparison = _merge_by_exact_failure(comparison, a, b)
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


def _comparable(a: Language, b: Language) -> tuple[Dfa, Dfa, int | None]:
    """The two DFAs to compare and the length bound (None: exact)."""
    from ..automata.product import bounded

    if a.exact and b.exact:
        return a.minimal, b.minimal, None
    bound = min(language.bounded.bound for language in (a, b) if language.bounded is not None)
    return bounded(a.minimal, bound), bounded(b.minimal, bound), bound


def _merge_by_exact_failure(comparison: Comparison, a: Language, b: Language) -> Comparison:
    """Bounded DFAs die early on inputs that cannot be completed within the bound, so where two
    bounded DFAs part is not where the languages do: group the differences instead by where and
    why the refusing grammar itself (interpreter or exact DFA) rejects them, and explain them so."""
    kept: dict[tuple, Difference] = {}
    for difference in comparison.differences:
        refuses = b if difference.only_in_a else a
        key = (difference.only_in_a, _failure(refuses, difference.examples[0]))
        if key not in kept:
            kept[key] = replace(difference, offset=-1)
    merged = tuple(kept.values())
    found = (sum(d.only_in_a for d in merged), sum(not d.only_in_a for d in merged))
    return replace(comparison, differences=merged, found=found)


def _failure(language: Language, data: bytes) -> tuple:
    """Where and why ``language`` rejects ``data``, as a key."""
    from ..interpret import recognize

    if language.exact:
        dfa = language.minimal
        states = dfa.trace(data)
        if states[-1] == dfa.dead:
            return ("byte", states[-2], dfa.byte_class[data[len(states) - 2]])
        return ("end", states[-1])
    verdict = recognize(language.resolved, data)
    return ("end" if verdict.end_of_input else "byte", verdict.expected)


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
    from ..crosscheck.provenance import hex_text

    return ", ".join(hex_text(example) for example in difference.examples)


def _why(difference: Difference, keeps: Language, refuses: Language, only_in_a: bool) -> str:
    """The rules on both sides where they part."""
    from ..crosscheck.provenance import byte_text

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
    rows = [(n, _count(x), _count(y)) for n, x, y in comparison.counts if x or y]
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


def _count(number: int) -> str:
    """``1,234`` or, for counts too long to read (or to print: Python refuses ints of over 4,300
    digits), ``1.23e4815`` (rounded down)."""
    if number < EXACT_BELOW:
        return i18n.number(number)
    exponent = int(number.bit_length() * 0.30102999566398120) - 1  # log10(2): at most one too small
    while number >= 10 ** (exponent + 1):
        exponent += 1
    digits = number * 100 // 10**exponent
    return f"{digits // 100}.{digits % 100:02d}e{exponent}"
