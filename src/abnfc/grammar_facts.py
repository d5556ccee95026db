"""The facts a teaching backend needs about a grammar, as neutral data (:mod:`abnfc.backends.facts`).

From the front end: each rule as written, the places its name appears in the grammar text (from
the parser's spans), the rules it refers to and those that refer to it, and its railroad
diagram.  From the automata: what each state of the minimal DFA expects, from the exact
provenance of the DFA before minimization (:mod:`abnfc.automata.notes`), in the book's language,
and the DFA drawn by Graphviz when asked for and installed.
"""
from __future__ import annotations

from dataclasses import replace

from .automata.dfa import Dfa
from .automata.notes import Reading, StateNote, note_text
from .automata.pushdown import Pushdown
from .backends.facts import (
    PICTURE_DRAWN,
    PICTURE_NO_GRAPHVIZ,
    PICTURE_OFF,
    ExactRun,
    GrammarFacts,
    Mention,
    Position,
    RuleFacts,
)
from .charset import intersect, normalize
from .frontend import ast
from .frontend.resolve import ResolvedGrammar
from .i18n import Translate, translator
from .pictures import dot, graphviz, railroad

MAX_EXACT_CELLS = 250_000  # the largest table of the automaton before minimization a book embeds
ANCHOR_PREFIX = "rule-"  # the HTML id of a rule's section is ANCHOR_PREFIX + its key


def anchor(key: str) -> str:
    return "#" + ANCHOR_PREFIX + key


def grammar_facts(grammar: ast.Grammar, text: str, resolved: ResolvedGrammar, minimal: Dfa | None,
                  notes: tuple[StateNote, ...], locale: str, picture: str) -> GrammarFacts:
    """``picture``: ``off``, ``auto`` (drawn when Graphviz is installed) or ``graphviz`` (drawn,
    or an error saying how to install Graphviz)."""
    _ = translator(locale)
    keys = shown_rules(grammar, resolved)
    refers = {key: tuple(dict.fromkeys(ref.key for ref in _references(resolved.rule(key).definition)
                                       if ref.key in resolved.rules)) for key in keys}
    used_by = {key: tuple(user for user in keys if key in refers[user]) for key in keys}
    lines = tuple(line.removesuffix("\r") for line in text.split("\n"))
    rules = tuple(_rule_facts(grammar, resolved, key, lines, refers[key], used_by[key], _) for key in keys)
    facts = GrammarFacts(locale, resolved.start, rules, lines, _mentions(grammar, resolved),
                         resolved.embedding.path if resolved.embedding else "", diagram_style=railroad.CSS)
    if minimal is None:
        return facts
    texts = tuple(note_text(note, _) for note in notes)
    drawing, status = _picture(minimal, texts, resolved.start_name, picture, _)
    return replace(facts, notes=texts, positions=_positions(notes), picture=drawing, picture_status=status)


def pushdown_facts(facts: GrammarFacts, notes: tuple[StateNote, ...]) -> GrammarFacts:
    """``facts`` of a self-embedding grammar with what each state of its pushdown validator's
    table expects (``notes``: the tables' notes, from the provenance of its machines), in the
    facts' locale, as :func:`grammar_facts` gives them for a DFA's states; no picture."""
    _ = translator(facts.locale)
    return replace(facts, notes=tuple(note_text(note, _) for note in notes), positions=_positions(notes))


def _positions(notes: tuple[StateNote, ...]) -> tuple[tuple[Position, ...], ...]:
    """Per state, the terminals it reads next (1-based alternatives and elements), in a fixed order."""
    return tuple(tuple(Position(r.origin.rule, r.origin.alternative + 1, r.origin.element + 1, r.ranges)
                       for r in sorted(note.expects, key=_reading_order))
                 for note in notes)


def exact_run(dfa: Dfa, pushdown: Pushdown | None = None) -> ExactRun | None:
    """``dfa`` (the DFA before minimization, or ``pushdown``'s table of machines from the subset
    construction) for the tester to run alongside; None when its table has more than
    :data:`MAX_EXACT_CELLS` cells (the book would grow by megabytes) or no provenance."""
    if not dfa.origins or dfa.num_states * len(dfa.classes) > MAX_EXACT_CELLS:
        return None
    positions = []
    for state, row in enumerate(dfa.transitions):
        live = normalize(r for cls, target in enumerate(row) if target != dfa.dead for r in dfa.classes[cls])
        found = (Position(o.rule, o.alternative + 1, o.element + 1, intersect(o.reads, live))
                 for o in dfa.origins[state])
        positions.append(tuple(sorted({p for p in found if p.reads},
                                      key=lambda p: (p.reads, p.rule, p.alternative, p.element))))
    run = ExactRun(bytes(dfa.byte_class), dfa.transitions, dfa.start, dfa.dead, tuple(positions))
    if pushdown is None:
        return run
    first = pushdown.first_call
    return replace(run, first_call=first, entries=tuple(pushdown.calls[k] for k in range(first, dfa.num_states)),
                   returns=pushdown.returns)


def _reading_order(reading: Reading) -> tuple:
    origin = reading.origin
    return (reading.ranges, origin.rule, origin.alternative, origin.element)


def _references(node: ast.Node) -> list[ast.RuleRef]:
    return [n for n in ast.walk(node) if isinstance(n, ast.RuleRef)]


def shown_rules(grammar: ast.Grammar, resolved: ResolvedGrammar) -> list[str]:
    """The grammar's own rules in order, then the core rules they use (directly or not)."""
    own = list(dict.fromkeys(rule.key for rule in grammar.rules))
    shown, queue = set(own), list(own)
    for key in queue:  # grows while iterating
        for ref in _references(resolved.rule(key).definition):
            if ref.key in resolved.rules and ref.key not in shown:
                shown.add(ref.key)
                queue.append(ref.key)
    core = sorted((key for key in shown if key not in own), key=lambda key: resolved.rule(key).name)
    return own + core


def _rule_facts(grammar: ast.Grammar, resolved: ResolvedGrammar, key: str, lines: tuple[str, ...],
                refers: tuple[str, ...], used_by: tuple[str, ...], _) -> RuleFacts:
    rule = resolved.rule(key)
    written = [r for r in grammar.rules if r.key == key and r.span is not None]
    if written:
        text = "\n".join("\n".join(lines[r.span.line - 1: r.span.end_line]) for r in written if r.span)
        line = written[0].span.line if written[0].span else 0
    else:
        text, line = f"{rule.name} = {rule.definition}", 0
    diagram = railroad.diagram_svg(rule.name, rule.definition, anchor, _)
    return RuleFacts(key, rule.name, line, not written, text, refers, used_by, diagram)


def _mentions(grammar: ast.Grammar, resolved: ResolvedGrammar) -> tuple[Mention, ...]:
    found = []
    for rule in grammar.rules:
        if rule.name_span is not None:
            found.append(_mention(rule.name_span, rule.key, True))
        for ref in _references(rule.definition):
            if ref.span is not None and ref.key in resolved.rules:
                found.append(_mention(ref.span, ref.key, False))
    return tuple(sorted(found, key=lambda m: (m.line, m.start)))


def _mention(span, key: str, defines: bool) -> Mention:
    return Mention(span.line - 1, span.column - 1, span.end_column - 1, key, defines)


def _picture(minimal: Dfa, notes: tuple[str, ...], name: str, picture: str, _: Translate) -> tuple[str, str]:
    if picture == "off" or (picture == "auto" and not graphviz.available()):
        return "", PICTURE_OFF if picture == "off" else PICTURE_NO_GRAPHVIZ
    svg = graphviz.render_svg(dot.to_dot(minimal, notes, name, _=_))
    return svg[svg.index("<svg"):], PICTURE_DRAWN
