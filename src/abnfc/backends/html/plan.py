"""Neutral tables and grammar facts -> the book's plan: every piece of the page, escaped and
translated, ready for ``templates/book.html.j2``.

The tester's validator is the JavaScript backend's own module (its plan and template), inlined
in a module script; the page's script steps the same tables to show each byte's class, states and
grammar positions, so the page needs nothing but itself.  The positions come from the automaton
before minimization, run alongside (``GrammarFacts.exact``, its rows written sparse): a minimal
state merges states reached along different paths, and its positions would name rules the input
never took; explain's steps are made the same way.  The script is ``static/tester.js`` (what
every tester shares) followed by ``static/tester_dfa.js`` for a DFA, or by
``static/tester_pushdown.js`` for a self-embedding grammar's pushdown validator (its run with the
stack: which bytes open and close nested parts, and the depth).

A self-embedding grammar's book shows its pushdown validator's table, its machines, its call
states (where each enters) and the states that close a nested part; one that gets no pushdown
validator has no tester and says why (the conflict, in the book's language).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import PurePosixPath

from markupsafe import Markup, escape

from ...charset import Ranges, format_hex, format_readable, normalize
from ...errors import printable
from ...i18n import LOCALES, translate_all, translator
from ..facts import PICTURE_DRAWN, PICTURE_NO_GRAPHVIZ, ExactRun, GrammarFacts, Mention, Position
from ..js.plan import lower as lower_js
from ..js.render import render as render_js
from ..tables import Pushdown, Tables
from . import labels

VALIDATOR_START = "// ---- the validator: abnfc's JavaScript backend, unchanged ----"
VALIDATOR_END = "// ---- end of the validator ----"
ANCHOR_PREFIX = "rule-"


@dataclass(frozen=True)
class RuleSection:
    anchor: str
    name: str
    where: str
    text: Markup
    diagram: Markup
    refers_to: Markup
    used_by: Markup


@dataclass(frozen=True)
class StateRow:
    index: int
    mark: str  # "*" for accepting states
    cells: tuple[int, ...]
    note: str


@dataclass(frozen=True)
class MachineRow:
    name: str
    states: str  # "33-80"
    start: Markup  # a link to the start state's row
    closed_by: Markup  # the bytes that close it (a nested part), or why nothing does


@dataclass(frozen=True)
class CallRow:
    state: int
    reached_from: Markup  # links to the rows of the states that lead into it
    on: str  # the bytes that lead into it
    opens: str  # the nested part's machine
    entry: Markup  # a link to the row of the state the run goes on in


@dataclass(frozen=True)
class ReturnRow:
    machine: str
    states: Markup  # links to the rows of its states that close it
    on: str  # the closing bytes


@dataclass(frozen=True)
class PushdownSection:
    """The pushdown validator's parts beyond the table, for a self-embedding grammar's book."""

    intro: Markup
    machines: tuple[MachineRow, ...]
    calls: tuple[CallRow, ...]
    returns: tuple[ReturnRow, ...]


@dataclass(frozen=True)
class HtmlPlan:
    file_name: str  # <prefix>.html
    lang: str  # the html lang attribute
    t: Mapping[str, Markup]  # the page's labels, translated and escaped (keys: the English text)
    title: Markup
    summary: Markup
    header_lines: tuple[str, ...]
    grammar: Markup  # the grammar text with every rule name linked
    rules: tuple[RuleSection, ...]
    has_automaton: bool
    no_automaton: Markup  # why there is none (recursive grammars)
    classes: tuple[tuple[int, str], ...]
    states: tuple[StateRow, ...]
    transitions_help: Markup
    picture: Markup
    picture_note: Markup
    tester: bool
    tester_intro: Markup
    no_tester: Markup
    script: Markup  # the validator module and the tester, for one module script
    style: Markup
    railroad_css: Markup
    pushdown: PushdownSection | None = None  # a self-embedding grammar's pushdown validator


def lower(tables: Tables, options: Mapping[str, str]) -> HtmlPlan:
    facts = tables.facts
    if facts is None:
        raise ValueError("the html backend needs the grammar's facts (Backend.wants_facts)")
    _ = translator(facts.locale)
    page = {key: escape(text) for key, text in translate_all(facts.locale, labels.PAGE + labels.PUSHDOWN_PAGE).items()}
    file = printable(tables.grammar_file)
    rules = tuple(_rule_section(rule, facts, _) for rule in facts.rules)
    regular = tables.has_automaton  # a DFA, or a pushdown validator's table
    nested = tables.pushdown
    return HtmlPlan(
        file_name=f"{options['prefix']}.html",
        lang=facts.locale.replace("_", "-"),
        t=page,
        # the file's name, not its path: the header's path is relative to the output folder
        title=escape(_("{file} ({start}): a grammar book").format(file=PurePosixPath(file).name,
                                                                  start=tables.header.start_rule)),
        summary=escape(_("Rules: {rules}; start rule: {start}.").format(
            rules=sum(not rule.core for rule in facts.rules), start=tables.header.start_rule)),
        header_lines=tuple(comment_safe(line) for line in tables.header.lines),
        grammar=_grammar_html(facts),
        rules=rules,
        has_automaton=regular,
        no_automaton=escape("" if regular else _("No automaton for this grammar: it is recursive ({cycle}).").format(
            cycle=facts.recursion)),
        classes=tuple((index, format_hex(ranges)) for index, ranges in enumerate(tables.classes)),
        states=tuple(StateRow(state.index, "*" if state.accepting else "", state.targets, facts.notes[state.index])
                     for state in tables.states),
        transitions_help=escape(_transitions_help(tables, _)),
        picture=Markup(facts.picture) if facts.picture_status == PICTURE_DRAWN else Markup(""),
        picture_note=escape(_picture_note(facts, file, _) if nested is None else _(
            "Left out: the book draws no picture of a pushdown validator. abnfc dfa {file} --format svg draws "
            "its table; the tables above hold the same automaton.").format(file=file)),
        tester=regular,
        tester_intro=page["Type an input: it is checked as you type, by the JavaScript validator generated from "
                          "the same DFA."] if nested is None else page[
            "Type an input: it is checked as you type, by the JavaScript pushdown validator generated from the "
            "same tables."],
        no_tester=escape("" if regular else _no_tester(facts, _)),
        script=_script(tables, facts, options) if regular else Markup(""),
        style=Markup(_static("book.css")),
        railroad_css=Markup(facts.diagram_style),
        pushdown=None if nested is None else _pushdown_section(tables, nested, facts, _),
    )


def _transitions_help(tables: Tables, _) -> str:
    if tables.pushdown is None:
        return _("A row for each state, a column for each byte class; a cell holds the next state. "
                 "* marks accepting states; state {dead} is the dead state, from which no input "
                 "recovers.").format(dead=tables.dead)
    return _("A row for each state, a column for each byte class; a cell holds the next state. * marks the "
             "accepting states of the start rule's machine; states {first_call}-{last} are call states; state "
             "{dead} is the dead state: a byte that leads there fails, unless the state closes a nested part on "
             "it.").format(first_call=tables.pushdown.first_call, last=tables.num_states - 1, dead=tables.dead)


def _no_tester(facts: GrammarFacts, _) -> str:
    if facts.conflict:
        return _("No tester for this grammar, which is self-embedding ({cycle}): {reason}").format(
            cycle=facts.recursion, reason=facts.conflict)
    return _("No tester for this grammar: it is recursive ({cycle}), so no finite automaton, and so no "
             "JavaScript validator generated from one, can decide its language. abnfc check --engine "
             "interpreter can.").format(cycle=facts.recursion)


def _state_links(states) -> Markup:
    return Markup(", ").join(Markup('<a href="#state-{0}">{0}</a>').format(state) for state in states)


def _machine_of(nested: Pushdown, state: int) -> str:
    return next((part.name for part in nested.parts if part.first <= state < part.end), "")


def _pushdown_section(tables: Tables, nested: Pushdown, facts: GrammarFacts, _) -> PushdownSection:
    """The machines, the call states (who leads into each, on which bytes, where it enters) and
    the states that close a nested part, from the tables."""
    machines = tuple(MachineRow(printable(part.name), f"{part.first}-{part.end - 1}", _state_links([part.start]),
                                Markup("<code>{}</code>").format(format_readable(part.returns)) if part.returns
                                else escape(_("nothing: the start rule's machine")))
                     for part in nested.parts)
    calls = []
    for call in range(nested.first_call, tables.num_states):
        into = [state.index for state in tables.states if call in state.targets]
        on: list[tuple[int, int]] = [r for state in tables.states for cls, target in enumerate(state.targets)
                                     if target == call for r in tables.classes[cls]]
        entry = nested.entries[call - nested.first_call]
        calls.append(CallRow(call, _state_links(into), format_readable(normalize(on)),
                             printable(_machine_of(nested, entry)), _state_links([entry])))
    returns = []
    for part in nested.parts:
        closing = [state for state in range(part.first, part.end) if nested.returns[state]]
        if closing:
            ranges: Ranges = normalize(r for state in closing for r in nested.returns[state])
            returns.append(ReturnRow(printable(part.name), _state_links(closing), format_readable(ranges)))
    intro = _("This grammar is self-embedding ({cycle}), so no finite automaton can decide its language: it "
              "compiles to a pushdown validator, one table of states run with a stack of the nested parts that "
              "are open. The start rule and every nested part are machines, minimal DFAs whose states are "
              "ranges of that table. An input is valid when it ends in an accepting state with no nested part "
              "open; at most {limit} nested parts may be open at once (an input nested deeper gets no "
              "verdict).").format(cycle=facts.recursion, limit=nested.max_depth)
    return PushdownSection(escape(intro), machines, tuple(calls), tuple(returns))


def _static(name: str) -> str:
    return resources.files("abnfc.backends.html").joinpath("static", name).read_text("utf-8")


def _link(key: str, text: str) -> Markup:
    return Markup('<a href="#{}">{}</a>').format(ANCHOR_PREFIX + key, text)


def _grammar_html(facts: GrammarFacts) -> Markup:
    by_line: dict[int, list[Mention]] = {}
    for mention in facts.mentions:
        by_line.setdefault(mention.line, []).append(mention)
    lines = []
    for number, line in enumerate(facts.lines):
        lines.append(_marked_line(line, by_line.get(number, []), defining_ids=True))
    return Markup("\n").join(lines)


def _marked_line(line: str, mentions: list[Mention], defining_ids: bool = False) -> Markup:
    out, at = [], 0
    for mention in sorted(mentions, key=lambda m: m.start):
        if mention.start < at or mention.end > len(line):
            continue  # a span that does not fit the line as shown: leave the text plain
        out.append(escape(printable(line[at:mention.start])))
        name = printable(line[mention.start:mention.end])
        css = "def" if mention.defines else "ref"
        out.append(Markup('<a class="{}" href="#{}">{}</a>').format(css, ANCHOR_PREFIX + mention.rule, name))
        at = mention.end
    out.append(escape(printable(line[at:])))
    return Markup("").join(out)


def _rule_section(rule, facts: GrammarFacts, _) -> RuleSection:
    names = {r.key: r.name for r in facts.rules}
    if rule.core:
        text = escape(printable(rule.text))
        where = _("core rule (RFC 5234, appendix B)")
    else:
        first = rule.line - 1
        count = rule.text.count("\n") + 1
        mentions = [m for m in facts.mentions if first <= m.line < first + count]
        text = Markup("\n").join(_marked_line(facts.lines[first + k], [m for m in mentions if m.line == first + k])
                                 for k in range(count))
        where = _("defined at line {line}").format(line=rule.line)
    refers = Markup(", ").join(_link(key, names.get(key, key)) for key in rule.refers_to) or _("no rule")
    used = Markup(", ").join(_link(key, names.get(key, key)) for key in rule.used_by)
    if not used:
        used = escape(_("the start rule") if rule.key == facts.start else _("no rule"))
    return RuleSection(ANCHOR_PREFIX + rule.key, rule.name, where, text, Markup(rule.diagram), escape(refers),
                       used)


def _picture_note(facts: GrammarFacts, file: str, _) -> str:
    if facts.picture_status == PICTURE_DRAWN:
        return _("Drawn by Graphviz when this page was generated; point at a state to read its note.")
    if facts.picture_status == PICTURE_NO_GRAPHVIZ:
        return _("Left out: Graphviz was not installed when this page was generated; the tables above hold "
                 "the same automaton.")
    return _("Left out: this page was generated without --html-picture graphviz (Graphviz draws differently "
             "from version to version, and generated files must be the same on every machine). "
             "abnfc dfa {file} --format svg draws it; the tables above hold the same automaton.").format(file=file)


def comment_safe(text: str) -> str:
    """``text`` made safe inside an HTML comment, which ``-->``, ``--!>`` or ``<!--`` would end
    or garble (HTML's comment syntax)."""
    return text.replace("<!--", "<! --").replace("--!>", "-- !>").replace("-->", "-- >")


_CLOSING = re.compile(r"</(script)", re.I)


def script_safe(text: str) -> str:
    """JavaScript made safe inside an HTML script element: ``</script`` would end it, ``<!--``
    would change how it is parsed; both can only appear in comments and strings, where the
    escaped forms mean the same."""
    return _CLOSING.sub(r"<\\/\1", text).replace("<!--", "<\\!--")


def _script(tables: Tables, facts: GrammarFacts, options: Mapping[str, str]) -> Markup:
    [validator] = render_js(lower_js(tables, {"prefix": options["prefix"]})).values()
    data: dict[str, object] = {
        "start_rule": tables.header.start_rule,
        "notes": list(facts.notes),
        "positions": [[[p.rule, p.alternative, p.element, [list(r) for r in p.reads]] for p in state]
                      for state in facts.positions],
        "messages": translate_all(facts.locale, labels.TESTER),
        "exact": _exact(facts.exact),
    }
    steps = "tester_dfa.js"
    if tables.pushdown is not None:
        data["messages"] = translate_all(facts.locale, labels.TESTER + labels.TESTER_PUSHDOWN)
        data["parts"] = [[part.name, part.first, part.end] for part in tables.pushdown.parts]
        steps = "tester_pushdown.js"
    return Markup("\n".join([
        VALIDATOR_START, script_safe(validator).rstrip("\n"), VALIDATOR_END,
        "const BOOK = " + script_safe(json.dumps(data, ensure_ascii=False, sort_keys=True)) + ";",
        script_safe(_static("tester.js") + _static(steps)),
    ]))


def _exact(exact: ExactRun | None) -> dict[str, object] | None:
    """The automaton before minimization as the tester runs it: each distinct position once, and
    per state the indices of its positions; each row of the table as its most common target
    followed by (class, target) pairs for the other cells (uri.abnf: 20,187 such cells of 71,568,
    the table a third smaller)."""
    if exact is None:
        return None
    index: dict[Position, int] = {}
    for state in exact.positions:
        for p in state:
            index.setdefault(p, len(index))
    return {
        "byte_class": list(exact.byte_class), "rows": [_sparse_row(row) for row in exact.transitions],
        "start": exact.start, "dead": exact.dead,
        "position_list": [[p.rule, p.alternative, p.element, [list(r) for r in p.reads]] for p in index],
        "positions": [[index[p] for p in state] for state in exact.positions],
        "first_call": exact.first_call, "entries": list(exact.entries),
        "returns": [[list(r) for r in ranges] for ranges in exact.returns],
    }


def _sparse_row(row: tuple[int, ...]) -> list[int]:
    """``[default, class, target, class, target, ...]``: the cells that differ from the most common."""
    default = Counter(row).most_common(1)[0][0]
    return [default, *(n for cls, target in enumerate(row) if target != default for n in (cls, target))]


__all__ = ["LOCALES", "HtmlPlan", "lower"]
