"""The learned language written with the grammar's own rules, where their languages fit.

State elimination (:mod:`.abnf`) gives one expression of the learned language, built from bytes
alone.  A reader comparing an implementation with an RFC wants the RFC's words: "this decoder
accepts ``*( UTF8-char / %xED %xA0-BF UTF8-tail )``".  So the expression is rewritten from the
top down against the languages of the grammar's rules (each compiled on its own to a minimal
DFA; only rules that compile to one, in an octet grammar):

- a part whose language *equals* a rule's becomes a reference to that rule (the first such rule
  in breadth-first order from the start rule, so the most general name wins);
- an alternation (or set of bytes) whose language no rule equals is *covered*: the rules whose
  languages lie inside it are taken, the largest first (a rule inside one already taken adds
  nothing), and what they leave over (the alternation's language minus theirs, a DFA made by the
  product construction) is written by state elimination and rewritten in turn;
- the items of a sequence and the body of a repetition are rewritten in place.

Language equality and inclusion are decided exactly on minimal DFAs (product construction, see
:mod:`abnfc.automata.product`), so a name is used only where it means exactly that part.  The
grammar that results is compiled once more and compared with the learned automaton; should they
ever differ, the expression of bytes is printed instead.  The rules referred to follow the
learned rule, as the grammar writes them (core rules excepted: abnfc supplies them).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..automata.dfa import Dfa
from ..automata.minimize import minimize
from ..automata.product import difference, equivalent, product, shortest_word
from ..errors import AbnfError
from ..frontend.resolve import ResolvedGrammar
from ..frontend.source import from_text
from ..pipeline import Compilation, Limits
from . import abnf
from .abnf import Alt, Bytes, Cat, Expr, Part, Star

MAX_RULE_STATES = 200  # rules with larger automata are not compared (each comparison is a product)
MAX_RULES = 200  # rules compared, in breadth-first order from the start rule
SMALL = Limits(max_dfa_states=2_000, max_work=2_000_000)


@dataclass(frozen=True)
class Ref:
    """A reference to one of the grammar's rules."""

    name: str


@dataclass(frozen=True)
class NamedCat:
    items: tuple[Named, ...]


@dataclass(frozen=True)
class NamedAlt:
    items: tuple[Named, ...]


@dataclass(frozen=True)
class NamedStar:
    item: Named
    at_least: int = 0


Named = Expr | Ref | NamedCat | NamedAlt | NamedStar  # an expression with references


@dataclass(frozen=True)
class RuleLanguage:
    name: str  # as the grammar writes it
    dfa: Dfa  # minimal
    text: str  # ``name = definition``, as the grammar writes it


def rule_languages(resolved: ResolvedGrammar, grammar_compilation: Compilation) -> tuple[RuleLanguage, ...]:
    """The languages of the grammar's rules that compile on their own to a small DFA, in
    breadth-first order from the start rule."""
    if resolved.encoding != "octets":  # the learned grammar reads bytes; these rules read code points
        return ()
    found = []
    for key in resolved.reachable[:MAX_RULES]:
        if key in resolved.recursive:
            continue
        try:
            dfa = Compilation(grammar_compilation.grammar, start=resolved.rules[key].name, limits=SMALL).minimal
        except AbnfError:  # too large for the small limits, or not regular on its own
            continue
        if dfa.num_states <= MAX_RULE_STATES and dfa.accepting:
            definition = resolved.rules[key]
            found.append(RuleLanguage(definition.name, dfa, f"{definition.name} = {definition.definition}"))
    return tuple(found)


def to_abnf(dfa: Dfa, comments: tuple[str, ...], resolved: ResolvedGrammar,
            languages: tuple[RuleLanguage, ...]) -> str:
    """ABNF text of the DFA's language: ``comments``, the learned rule (named so as not to clash
    with the grammar's rules) in the grammar's words, then the grammar's rules it refers to.
    Falls back to :func:`abnf.to_abnf` when no rule fits or the expression would be too long."""
    taken = {key.lower() for key in resolved.rules}
    name = next(n for n in ("learned", *(f"learned-{i}" for i in range(2, len(taken) + 3))) if n not in taken)
    system = abnf.eliminate(dfa)  # once: the plain text and the expression to name come from it
    plain = abnf.system_text(system, name, comments)
    expression = None if system is None else system.expression  # None too where states were kept
    if expression is None or not languages:
        return plain
    named = Namer(languages).rewrite(expression)
    if not _references(named):  # no rule fits anywhere
        return plain
    lines = abnf.comment_lines(comments)
    text = "\n".join([*lines, f"{name} = {render(named, top=True)}", *referred(named, resolved), ""])
    return text if _same_language(text, dfa) else plain


def _same_language(text: str, dfa: Dfa) -> bool:
    """Whether ``text`` compiles to ``dfa``'s language: the check that every rule was used
    where its language fits."""
    try:
        return equivalent(Compilation(from_text(text, "<learned>")).minimal, dfa)
    except AbnfError:
        return False


class Namer:
    """Rewrites expressions with references to the rules in ``rules``."""

    def __init__(self, rules: tuple[RuleLanguage, ...]):
        self.rules = rules
        self._languages: dict[Expr, Dfa] = {}

    def rewrite(self, expression: Expr, depth: int = 0) -> Named:
        language = self.language(expression)
        for rule in self.rules:
            if equivalent(rule.dfa, language):
                return Ref(rule.name)
        in_place = self._in_place(expression, depth)
        if isinstance(expression, Alt) or (isinstance(expression, Bytes) and len(expression.ranges) > 1):
            covered = self.cover(language, depth)
            # what the rules leave over can take more words than the alternation did
            if covered is not None and len(render(covered)) <= len(render(in_place)):
                return covered
        return in_place

    def _in_place(self, expression: Expr, depth: int) -> Named:
        """``expression`` with its parts rewritten, its shape kept."""
        match expression:
            case Bytes():
                return expression
            case Cat():
                if not expression.items:
                    return expression
                return NamedCat(tuple(self.rewrite(item, depth) for item in expression.items))
            case Alt():
                return NamedAlt(tuple(self.rewrite(item, depth) for item in expression.items))
            case Star():
                return NamedStar(self.rewrite(expression.item, depth), expression.at_least)
            case Part():
                return expression

    def cover(self, language: Dfa, depth: int) -> Named | None:
        """The rules inside ``language``, largest first, and a rewritten expression of the rest;
        None when no rule lies inside it."""
        inside = [rule for rule in self.rules if _empty(difference(rule.dfa, language))]
        taken: list[RuleLanguage] = []
        union: Dfa | None = None
        for rule in sorted(inside, key=lambda r: sum(1 for other in inside if _empty(difference(other.dfa, r.dfa)))
                           , reverse=True):
            if union is not None and _empty(difference(rule.dfa, union)):
                continue
            taken.append(rule)
            union = rule.dfa if union is None else minimize(product(union, rule.dfa, lambda a, b: a or b))
        if union is None or depth >= len(self.rules):
            return None
        parts: list[Named] = [Ref(rule.name) for rule in sorted(taken, key=self.rules.index)]
        try:
            rest = abnf.language(minimize(difference(language, union)))
        except abnf.TooLong:
            return None
        if rest is not None:
            parts.append(self.rewrite(rest, depth + 1))
        return parts[0] if len(parts) == 1 else NamedAlt(tuple(parts))

    def language(self, expression: Expr) -> Dfa:
        known = self._languages.get(expression)
        if known is None:
            known = expression_dfa(expression)
            self._languages[expression] = known
        return known


def expression_dfa(expression: Expr) -> Dfa:
    """The minimal DFA of an expression of bytes."""
    return Compilation(from_text(f"x = {abnf.render(expression, top=True)}\n", "<part>"), limits=SMALL).minimal


def _empty(dfa: Dfa) -> bool:
    return shortest_word(dfa) is None


def referred(named: Named, resolved: ResolvedGrammar) -> list[str]:
    """The texts of the rules ``named`` refers to and every rule they refer to in turn, in the
    grammar's breadth-first order; core rules left out."""
    wanted = {ref.lower() for ref in _references(named)}
    stack = list(wanted)
    while stack:
        for target in resolved.graph.get(stack.pop(), ()):
            if target not in wanted:
                wanted.add(target)
                stack.append(target)
    texts = []
    for key in resolved.reachable:
        definition = resolved.rules[key]
        if key in wanted and not definition.core:
            texts.append(f"{definition.name} = {definition.definition}")
    return texts


def _references(named: Named) -> list[str]:
    match named:
        case Ref():
            return [named.name]
        case NamedCat() | NamedAlt():
            return [name for item in named.items for name in _references(item)]
        case NamedStar():
            return _references(named.item)
        case _:
            return []


def render(named: Named, top: bool = False) -> str:
    match named:
        case Ref():
            return named.name
        case NamedCat():
            return " ".join(render(item) for item in named.items) if named.items else '""'
        case NamedAlt():
            others = [item for item in named.items if item != abnf.EMPTY]
            text = " / ".join(render(item, top=True) for item in others)
            if len(others) < len(named.items):
                return f"[ {text} ]"
            return text if top else f"( {text} )"
        case NamedStar():
            prefix = "*" if named.at_least == 0 else f"{named.at_least}*"
            inner = render(named.item, top=True)
            simple = isinstance(named.item, Ref) or (isinstance(named.item, Bytes) and len(named.item.ranges) == 1)
            return f"{prefix}{inner}" if simple else f"{prefix}( {inner} )"
        case _:
            return abnf.render(named, top)
