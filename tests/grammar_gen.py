"""Random ABNF grammars for the property tests, strings derived from them, and their mutations.

Every random decision goes through ``choose(n) -> int in [0, n)``, so the same generators run
from hypothesis (``lambda n: draw(st.integers(0, n - 1))``, which shrinks) and from
``random.Random(seed).randrange`` (seeded batches).  Choice 0 is always the plainest option and
rare features are switched on by the *highest* choice, so a shrunk grammar is a simple one.

``regular_grammar(choose)``
    ABNF text whose rules reference only later rules (no cycles), so it compiles to a DFA.  It
    uses every construct: ranges, single and concatenated %x/%d/%b values, case-insensitive and
    %s / %i strings (letters, non-letters, empty), repetitions ``*``, ``n*``, ``*m``, ``n*m``,
    ``n``, ``0``, options, groups, overlapping alternatives, references (in any letter case),
    core rules, ``=/`` (also on a redefined core rule), comments and continuation lines.
    Repetition counts are at most 4 and their product along any path is bounded, so DFAs stay
    small; terminals mostly use a handful of bytes (:data:`COMMON`) so random inputs often match.

``recursive_grammar(choose)``
    Rules may reference any rule, themselves included, with left, right, middle and indirect
    recursion and nullable rules; meant for the interpreter and the reference matcher.

``linear_grammar(choose)``
    Like ``regular_grammar``, but the rules come in sets whose members refer to each other
    only last in a rule (a right-linear set) or only first (a left-linear set), through
    alternatives, options and groups, so the grammar is recursive and still compiles to a DFA.

``sample(grammar, rng)`` and ``mutations(data, rng)``
    A random string of the grammar's language (``rng`` needs only ``randrange``), and strings
    one edit away from one.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from abnfc.frontend import ast
from abnfc.frontend.parse import parse
from abnfc.frontend.resolve import ResolvedGrammar, resolve

Choose = Callable[[int], int]

COMMON = b"aAbB01" + bytes([0x80, 0xFF])  # the bytes terminals are mostly made of
RARE = b"\x00\t\n\r \"-9cCfF\x7f\xc0"  # the bytes some core rules and rare terminals need
ALPHABET = COMMON + RARE
SMALL = b"aAb0"  # the alphabet of recursive grammars (exhaustive short inputs stay few)

MAX_COUNT = 4  # largest repetition count (but a few terminals repeat 5 to 11 times)
MAX_PRODUCT = 8  # largest product of bounded repetition counts along a path

_STRING_CHARS = "aAbB01-"
# Characters that mean something elsewhere in ABNF, and non-letters that a sloppy case fold
# (``| 0x20``) would confuse: @ ` [ { \\ | ] } ^ ~ _ and DEL's partner.
_RARE_STRING_CHARS = " cC;()<>%*/=@`[{\\|]}^~_'"
_SMALL_STRING_CHARS = "aAb0"
_RANGES = [(0x61, 0x62), (0x41, 0x42), (0x30, 0x31), (0x80, 0xFF), (0x41, 0x61), (0x00, 0x7F),
           (0x62, 0x62), (0x00, 0xFF), (0x31, 0x41), (0x42, 0x80), (0x01, 0x7F)]
_SMALL_RANGES = [(0x61, 0x62), (0x41, 0x61), (0x30, 0x61), (0x62, 0x62), (0x00, 0xFF)]
_CORE = ["DIGIT", "ALPHA", "HEXDIG", "BIT", "WSP", "CRLF", "SP", "HTAB", "CHAR", "OCTET", "VCHAR",
         "CTL", "LWSP", "DQUOTE", "CR", "LF"]
_SMALL_CORE = ["ALPHA", "BIT", "DIGIT", "HEXDIG", "OCTET"]
_OVERRIDABLE = ["BIT", "DIGIT", "WSP", "ALPHA"]  # core rules that other core rules build on
_NAME_STEMS = ["r", "rule-", "X", "a-B"]
_COMMENTS = ["; a comment", '; "quoted" \\ */ /* ??/ """ \'\'\'', "; caf\u00e9 \u2014 {braces}",
             ";", "; trailing   ", "; \\N{x} \\x1 \\u12 {{ jinja }} {% if %} ends in a backslash \\"]


def regular_grammar(choose: Choose) -> str:
    """ABNF text of a random grammar without recursion; the first rule is the start rule."""
    return _Writer(choose, recursive=False).grammar()


def recursive_grammar(choose: Choose) -> str:
    """ABNF text of a random grammar whose rules may reference each other in cycles."""
    return _Writer(choose, recursive=True).grammar()


def nested_grammar(choose: Choose) -> str:
    """ABNF text of a random recursive grammar whose nesting is mostly between bracket bytes
    (``(`` and ``)``, ``[`` and ``]``), as JSON's and RFC 5322's comments are: most of these get
    a pushdown validator, some have conflicts."""
    return _Writer(choose, recursive=True, nested=True).grammar()


def linear_grammar(choose: Choose) -> str:
    """ABNF text of a random grammar whose recursion is right- or left-linear only."""
    return _Writer(choose, recursive=False, linear=True).grammar()


def random_regular_grammar(rng: random.Random) -> str:
    return regular_grammar(rng.randrange)


def random_linear_grammar(rng: random.Random) -> str:
    return linear_grammar(rng.randrange)


def random_recursive_grammar(rng: random.Random) -> str:
    return recursive_grammar(rng.randrange)


class _Writer:
    def __init__(self, choose: Choose, recursive: bool, linear: bool = False, nested: bool = False):
        self.choose = choose
        self.recursive = recursive
        self.nested = nested
        self.linear = linear
        self.names: list[str] = []
        self.refs: list[str] = []  # rules the rule being written may reference
        self.sets: list[tuple[str, list[str]]] = []  # linear: (kind, names) of each recursive set
        self.core = _SMALL_CORE if recursive else _CORE

    def c(self, n: int) -> int:
        return self.choose(n) if n > 1 else 0

    def rare(self, n: int) -> bool:
        """True with probability 1/n; False when shrunk."""
        return self.c(n) == n - 1

    def pick(self, items):
        return items[self.c(len(items))]

    # -- the grammar -------------------------------------------------------------------------

    def grammar(self) -> str:
        count = 1 + self.c(3) + (1 if self.rare(6) else 0)
        stem = self.pick(_NAME_STEMS)
        self.names = [f"{stem}{i}" for i in range(count)]
        lines: list[str] = []
        extra: list[tuple[str, str]] = []  # (the rule's = line, an =/ line for it)
        if self.linear:
            self.sets = self.linear_sets()
        for index, name in enumerate(self.names):
            self.refs = self.names if self.recursive else self.names[index + 1:]
            if self.linear:  # no reference back into the rule's own set but the linear ones
                _kind, members = next((kind, members) for kind, members in self.sets if name in members)
                self.refs = self.names[self.names.index(members[-1]) + 1:]
            lines.append(f"{name} = {self.definition(index)}")
            for _ in range(1 + self.c(2) if self.rare(3) else 0):
                extra.append((lines[-1], f"{self.spelling(name)} =/ {self.alternation(self.depth())}"))
        for base, line in extra:  # each =/ line goes anywhere after its rule's = line
            after = lines.index(base) + 1
            lines.insert(after + self.c(len(lines) - after + 1), line)
        if self.rare(5):
            lines[1:1] = self.core_override()
        if self.rare(6):
            lines.insert(self.c(len(lines) + 1), self.pick(_COMMENTS))
        return "".join(line + "\n" for line in lines)

    def definition(self, index: int) -> str:
        if self.nested and self.c(4):
            return self.nested_template(self.names[index])
        if self.recursive and self.c(3):
            return self.recursive_template(self.names[index])
        if self.linear and self.c(4):
            kind, members = next((kind, members) for kind, members in self.sets if self.names[index] in members)
            return self.linear_template(kind, members)
        return self.alternation(self.depth())

    def linear_sets(self) -> list[tuple[str, list[str]]]:
        """Consecutive runs of rules, each a right- or left-linear set."""
        sets: list[tuple[str, list[str]]] = []
        for name in self.names:
            if not sets or self.c(3) == 0:
                sets.append(("right" if self.c(2) == 0 else "left", [name]))
            else:
                sets[-1][1].append(name)
        return sets

    def linear_template(self, kind: str, members: list[str]) -> str:
        """A definition referring to ``members`` only last (right) or only first (left)."""
        x, y = self.concatenation(1), self.concatenation(1)
        m = self.spelling(self.pick(members))
        if kind == "right":
            forms = [f"{x} {m} / {y}", f"{x} [ {y} {m} ]", f"{y} / {x} ( {m} / {y} )",
                     f'{x} {m} / ""', f"{x} / {m}", f"{x} {m} / {y} {self.spelling(self.pick(members))}"]
        else:
            forms = [f"{m} {x} / {y}", f"[ {m} ] {x}", f"{y} / ( {m} / {y} ) {x}",
                     f'{m} {x} / ""', f"{x} / {m}", f"{m} {x} / {self.spelling(self.pick(members))} {y}"]
        return self.pick(forms)

    def depth(self) -> int:
        return self.c(3)

    def core_override(self) -> list[str]:
        """A core rule redefined (terminals only, so no cycle through other core rules)."""
        name = self.pick(_OVERRIDABLE)
        saved, self.refs, self.core = self.refs, [], []
        lines = [f"{name} = {self.alternation(1)}"]
        if self.rare(2):
            lines.append(f"{name.lower()} =/ {self.alternation(0)}")
        self.refs, self.core = saved, (_SMALL_CORE if self.recursive else _CORE)
        return lines

    def nested_template(self, name: str) -> str:
        me = self.spelling(name)
        x, y = self.concatenation(1), self.concatenation(1)
        other = self.reference()
        forms = [
            f"%x28 {me} %x29 / {y}",
            f"%x28 *( {x} / {me} ) %x29",
            f"{x} %x5B [ {me} *( %x2C {me} ) ] %x5D {y}",
            f"{y} / %x5B {me} %x5D {me}",  # nesting, then a tail call
            f"{x} [ %x28 {other} %x29 ]",
            f"{x} {me} / %x28 {other} %x29",  # a tail call and nesting through another rule
            f"%x28 {me} %x29 / %x28 {x} %x29",  # the same byte opens two ways: a conflict
            f"{x} %x28 {me} {y} %x29 {me} / {y}",
        ]
        return self.pick(forms)

    def recursive_template(self, name: str) -> str:
        me = self.spelling(name)
        x, y = self.concatenation(1), self.concatenation(1)
        other = self.reference()
        forms = [
            f"{x} / {me} {y}",  # left recursion
            f"{x} {me} / {y}",  # right recursion
            f"{x} {me} {y} / {y}",  # middle recursion (nesting)
            f"{me} {me} / {x}",  # ambiguous
            f"[ {me} ] {x}",  # nullable left recursion
            f"*{me} {x} / {y}",  # recursion under a repetition
            f'"" / {x} {me}',  # nullable right recursion
            f"{other} / {x}",  # indirect, through another rule
            f"{me}",  # unproductive: matches nothing
            f"{me} / {x} / {me} {x} {me}",
        ]
        return self.pick(forms)

    # -- expressions -------------------------------------------------------------------------

    def alternation(self, depth: int, budget: int = MAX_PRODUCT) -> str:
        if depth > 0 and self.rare(6):
            return self.overlap(depth, budget)
        parts = [self.concatenation(depth, budget) for _ in range(1 + self.c(3 if depth else 2))]
        separator = "\n    / " if self.rare(8) else " / "
        return separator.join(parts)

    def overlap(self, depth: int, budget: int) -> str:
        """Alternatives that share a prefix or overlap as repetitions."""
        x = self.concatenation(depth - 1, budget)
        y = self.repetition(depth - 1, budget)
        return self.pick([f"{x} / {x} {y}", f"{x} {y} / {x}", f"1*2( {x} ) / {x} {y}",
                          f"{y} {x} / {x} {y}"] if budget >= 2 else [f"{x} / {x} {y}"])

    def concatenation(self, depth: int, budget: int = MAX_PRODUCT) -> str:
        items = [self.repetition(depth, budget) for _ in range(1 + self.c(3 if depth else 2))]
        return ("\n     " if self.rare(10) else " ").join(items)

    def repetition(self, depth: int, budget: int = MAX_PRODUCT) -> str:
        if not self.rare(3):
            return self.element(depth, budget)
        if budget >= MAX_PRODUCT and self.rare(8):  # a larger count, on a terminal only
            low = 5 + self.c(5)
            return self.pick([f"{low}", f"{low}*", f"{low}*{low + self.c(3)}", f"*{low}"]) + self.terminal()
        prefix, weight = self.repeat(budget)
        return prefix + self.element(depth, budget // weight)

    def repeat(self, budget: int) -> tuple[str, int]:
        """A repeat prefix and the factor it multiplies the element's size by."""
        top = max(1, min(MAX_COUNT, budget))
        n, m = self.c(top + 1), self.c(top + 1)
        low, high = min(n, m), max(n, m)
        kind = self.c(7)
        if kind == 0:
            return "*", 1
        if kind == 1:
            return f"{low}*", max(1, low + 1)
        if kind == 2:
            return f"*{high}", max(1, high)
        if kind == 3:
            return f"{low}*{high}", max(1, high)
        if kind == 4:
            return f"{high}", max(1, high)
        if kind == 5:
            return self.pick(["0", "0*0", "1*1", "1", "0*1"]), 1
        return f"{n}*{n}", max(1, n)

    def element(self, depth: int, budget: int) -> str:
        kind = self.c(6 if depth > 0 else 3)
        if kind == 0 or kind == 1:
            return self.terminal()
        if kind == 2:  # under a counted repetition, only core rules: copies of rules multiply
            return self.reference(user=budget >= MAX_PRODUCT) if self.refs or self.core else self.terminal()
        inner = self.alternation(depth - 1, budget)
        if kind == 3 or kind == 5:
            return f"( {inner} )" if not self.rare(4) else f"({inner})"
        return f"[ {inner} ]"

    def reference(self, user: bool = True) -> str:
        if self.refs and user and (not self.core or self.c(3)):
            return self.spelling(self.pick(self.refs))
        if self.core:
            return self.spelling(self.pick(self.core))
        return self.terminal()

    def spelling(self, name: str) -> str:
        """``name`` in a random letter case (rule names are case-insensitive)."""
        kind = self.c(6)
        return name.upper() if kind == 4 else name.lower() if kind == 5 else name

    # -- terminals ---------------------------------------------------------------------------

    def terminal(self) -> str:
        kind = self.c(8)
        if kind in (0, 6):
            return '"' + self.string() + '"'
        if kind == 1:
            return self.number(self.byte())
        if kind == 2:
            return self.num_range()
        if kind == 3:
            return '%s"' + self.string() + '"'
        if kind == 4:
            return self.number(self.byte(), *(self.byte() for _ in range(1 + self.c(2))))
        if kind == 5:
            return self.pick(['%i"', '%I"', '%S"']) + self.string() + '"'
        return self.spelling(self.pick(self.core)) if self.core else '"' + self.string() + '"'

    def string(self) -> str:
        chars = _SMALL_STRING_CHARS if self.recursive else _STRING_CHARS
        return "".join(self.pick(_RARE_STRING_CHARS) if self.rare(12) else self.pick(chars)
                       for _ in range(self.c(4)))

    def byte(self) -> int:
        if self.recursive:
            return SMALL[self.c(len(SMALL))]
        return RARE[self.c(len(RARE))] if self.rare(8) else COMMON[self.c(len(COMMON))]

    def number(self, *values: int) -> str:
        base = self.pick("xdb")
        if self.rare(6):
            base = base.upper()
        digits = [_digits(v, base.lower()) for v in values]
        if self.rare(6):
            digits = ["0" + d for d in digits]  # leading zeros are allowed
        return f"%{base}" + ".".join(digits)

    def num_range(self) -> str:
        if self.recursive:
            low, high = self.pick(_SMALL_RANGES)
        elif self.rare(3):
            low, high = sorted((self.byte(), self.byte()))
        else:
            low, high = self.pick(_RANGES)
        base = self.pick("xxxdb")
        shown = base.upper() if self.rare(6) else base
        return f"%{shown}{_digits(low, base)}-{_digits(high, base)}"


def _digits(value: int, base: str) -> str:
    return {"x": f"{value:02X}", "d": str(value), "b": f"{value:b}"}[base]


# --------------------------------------------------------------------------------------------
# Strings of a grammar's language


_INFINITE = float("inf")


def _resolved(grammar) -> ResolvedGrammar:
    if isinstance(grammar, ResolvedGrammar):
        return grammar
    return resolve(parse(grammar, "g.abnf"))


def sample(grammar, rng, *, max_depth: int = 8, max_repeat: int = 3,
           max_len: int = 2000) -> bytes | None:
    """A random string that ``grammar`` (ABNF text or a ResolvedGrammar) matches.

    ``rng`` needs only ``randrange``.  Below ``max_depth`` nested rule references every choice
    is random (unbounded repetitions run up to ``max_repeat`` times past their minimum); deeper,
    or once ``max_len`` bytes are out, the sampler takes the alternatives and repeat counts that
    finish soonest, so it always terminates (the result may still pass ``max_len`` when the
    grammar insists).  None when the start rule matches nothing at all (a recursion without a
    way out).
    """
    resolved = _resolved(grammar)
    return _Sampler(resolved, rng, max_depth, max_repeat, max_len).run()


class _Sampler:
    def __init__(self, grammar: ResolvedGrammar, rng, max_depth: int, max_repeat: int,
                 max_len: int):
        self.max_len = max_len
        self.rules = grammar.rules
        self.start = grammar.start
        self.rng = rng
        self.max_depth = max_depth
        self.max_repeat = max_repeat
        self.heights = _rule_heights(grammar)

    def run(self) -> bytes | None:
        if self.heights[self.start] == _INFINITE:
            return None
        out = bytearray()
        self.emit(self.rules[self.start].definition, 0, out)
        return bytes(out)

    def height(self, node: ast.Node) -> float:
        return _height(node, self.heights)

    def emit(self, node: ast.Node, depth: int, out: bytearray) -> None:
        rng, forced = self.rng, depth >= self.max_depth or len(out) >= self.max_len
        if isinstance(node, ast.Alternation):
            heights = [self.height(a) for a in node.alternatives]
            best = min(heights)
            choices = [a for a, h in zip(node.alternatives, heights, strict=True)
                       if (h == best if forced else h < _INFINITE)]
            self.emit(choices[rng.randrange(len(choices))] if len(choices) > 1 else choices[0],
                      depth, out)
        elif isinstance(node, ast.Concatenation):
            for item in node.items:
                self.emit(item, depth, out)
        elif isinstance(node, (ast.Repetition, ast.Option)):
            low, high = (node.min, node.max) if isinstance(node, ast.Repetition) else (0, 1)
            if forced or self.height(node.element) == _INFINITE:
                count = low
            else:
                top = low + self.max_repeat if high is None else min(high, low + self.max_repeat)
                count = low + rng.randrange(top - low + 1)
            for done in range(count):
                if done >= low and len(out) >= self.max_len:
                    break
                self.emit(node.element, depth, out)
        elif isinstance(node, ast.Group):
            self.emit(node.element, depth, out)
        elif isinstance(node, ast.RuleRef):
            self.emit(self.rules[node.key].definition, depth + 1, out)
        elif isinstance(node, ast.CharVal):
            for char in node.text.encode("ascii"):
                if not node.case_sensitive and chr(char).isalpha() and rng.randrange(2):
                    char ^= 0x20
                out.append(char)
        elif isinstance(node, ast.NumVal):
            out.extend(node.values)
        elif isinstance(node, ast.NumRange):
            kind = rng.randrange(3)
            out.append(node.low if kind == 0 else node.high if kind == 1
                       else node.low + rng.randrange(node.high - node.low + 1))
        else:
            raise TypeError(f"cannot sample {node!r}")


def _rule_heights(grammar: ResolvedGrammar) -> dict[str, float]:
    """Least number of nested rule references needed to finish each rule (inf: never)."""
    heights = {key: _INFINITE for key in grammar.rules}
    changed = True
    while changed:
        changed = False
        for key, rule in grammar.rules.items():
            value = _height(rule.definition, heights)
            if value < heights[key]:
                heights[key] = value
                changed = True
    return heights


def _height(node: ast.Node, heights: dict[str, float]) -> float:
    if isinstance(node, ast.Alternation):
        return min(_height(a, heights) for a in node.alternatives)
    if isinstance(node, ast.Concatenation):
        return max((_height(i, heights) for i in node.items), default=0)
    if isinstance(node, ast.Repetition):
        return 0 if node.min == 0 else _height(node.element, heights)
    if isinstance(node, ast.Option):
        return 0
    if isinstance(node, ast.Group):
        return _height(node.element, heights)
    if isinstance(node, ast.RuleRef):
        return heights.get(node.key, _INFINITE) + 1
    if isinstance(node, ast.ProseVal):
        return _INFINITE
    return 0


# --------------------------------------------------------------------------------------------
# Inputs near the language


def random_byte(rng) -> int:
    kind = rng.randrange(8)
    if kind == 7:
        return rng.randrange(256)
    if kind == 6:
        return RARE[rng.randrange(len(RARE))]
    return COMMON[rng.randrange(len(COMMON))]


def random_bytes(rng, max_len: int = 10, alphabet: bytes | None = None) -> bytes:
    """Random bytes, mostly from :data:`COMMON` (or only from ``alphabet``)."""
    length = rng.randrange(max_len + 1)
    if alphabet:
        return bytes(alphabet[rng.randrange(len(alphabet))] for _ in range(length))
    return bytes(random_byte(rng) for _ in range(length))


def mutations(data: bytes, rng, count: int = 3, alphabet: bytes | None = None) -> list[bytes]:
    """``count`` strings each one edit from ``data``: a substituted, inserted or deleted byte,
    a truncation, or (without ``alphabet``) a byte with bit 0x20 or 0x80 flipped, which turns
    a letter into its other case and a non-letter into one a sloppy case fold confuses with it."""
    out = []
    for _ in range(count):
        kind = rng.randrange(4 if alphabet else 5) if data else 1
        if kind == 4:
            at = rng.randrange(len(data))
            out.append(data[:at] + bytes([data[at] ^ (0x20, 0x80)[rng.randrange(2)]]) + data[at + 1:])
            continue
        byte = alphabet[rng.randrange(len(alphabet))] if alphabet else random_byte(rng)
        if kind == 0:
            at = rng.randrange(len(data))
            out.append(data[:at] + bytes([byte]) + data[at + 1:])
        elif kind == 1:
            at = rng.randrange(len(data) + 1)
            out.append(data[:at] + bytes([byte]) + data[at:])
        elif kind == 2:
            at = rng.randrange(len(data))
            out.append(data[:at] + data[at + 1:])
        else:
            out.append(data[:rng.randrange(len(data))])
    return out
