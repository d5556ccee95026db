"""Neutral tables and grammar facts -> the book's plan: every piece of the page, escaped and
translated, ready for ``templates/book.html.j2``.

The tester's validator is the JavaScript backend's own module (its plan and template), inlined
in a module script; the page's script (``static/tester.js``) steps the same tables to show each
byte's class, states and grammar positions, so the page needs nothing but itself.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from markupsafe import Markup, escape

from ...charset import format_hex
from ...errors import printable
from ...i18n import LOCALES, translate_all, translator
from ..facts import PICTURE_DRAWN, PICTURE_NO_GRAPHVIZ, GrammarFacts, Mention
from ..js.plan import lower as lower_js
from ..js.render import render as render_js
from ..tables import Tables
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
    no_tester: Markup
    script: Markup  # the validator module and the tester, for one module script
    style: Markup
    railroad_css: Markup


def lower(tables: Tables, options: Mapping[str, str]) -> HtmlPlan:
    facts = tables.facts
    if facts is None:
        raise ValueError("the html backend needs the grammar's facts (Backend.wants_facts)")
    _ = translator(facts.locale)
    page = {key: escape(text) for key, text in translate_all(facts.locale, labels.PAGE).items()}
    file = printable(tables.grammar_file)
    rules = tuple(_rule_section(rule, facts, _) for rule in facts.rules)
    regular = tables.has_automaton
    return HtmlPlan(
        file_name=f"{options['prefix']}.html",
        lang=facts.locale.replace("_", "-"),
        t=page,
        title=escape(_("{file}: a grammar book").format(file=file)),
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
        transitions_help=escape(_("A row for each state, a column for each byte class; a cell holds the next state. "
                           "* marks accepting states; state {dead} is the dead state, from which no input "
                           "recovers.").format(dead=tables.dead)),
        picture=Markup(facts.picture) if facts.picture_status == PICTURE_DRAWN else Markup(""),
        picture_note=escape(_picture_note(facts, file, _)),
        tester=regular,
        no_tester=escape("" if regular else _(
            "No tester for this grammar: it is recursive ({cycle}), so no finite automaton, and so no "
            "JavaScript validator generated from one, can decide its language. abnfc check --engine "
            "interpreter can.").format(cycle=facts.recursion)),
        script=_script(tables, facts, options) if regular else Markup(""),
        style=Markup(_static("book.css")),
        railroad_css=Markup(facts.diagram_style),
    )


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
    data = {
        "start_rule": tables.header.start_rule,
        "notes": list(facts.notes),
        "positions": [[[p.rule, p.alternative, p.element, [list(r) for r in p.reads]] for p in state]
                      for state in facts.positions],
        "messages": translate_all(facts.locale, labels.TESTER),
    }
    return Markup("\n".join([
        VALIDATOR_START, script_safe(validator).rstrip("\n"), VALIDATOR_END,
        "const BOOK = " + script_safe(json.dumps(data, ensure_ascii=False, sort_keys=True)) + ";",
        script_safe(_static("tester.js")),
    ]))


__all__ = ["LOCALES", "HtmlPlan", "lower"]
