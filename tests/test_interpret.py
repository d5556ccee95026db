"""The interpreter: semantics, recursion, failure reports, chunked input, bounded memo tables,
and agreement with the simple reference matcher on random grammars."""
from __future__ import annotations

import os
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abnfc.errors import LimitError
from abnfc.frontend import ast
from abnfc.frontend.parse import parse
from abnfc.frontend.resolve import resolve
from abnfc.interpret import Expectation, Recognizer, Verdict, WorkLimitError, recognize

sys.path.insert(0, os.path.dirname(__file__))
from reference_matcher import matches

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UTF8 = resolve(parse(open(os.path.join(ROOT, "grammars", "utf8.abnf"), encoding="utf-8").read(),
                     "utf8.abnf"))


def grammar(text: str, start: str | None = None):
    return resolve(parse(text, "<test>"), start)


def check(text: str, accept=(), reject=(), start=None):
    g = grammar(text, start)
    for data in accept:
        data = data.encode() if isinstance(data, str) else data
        assert recognize(g, data).matched, (text, data)
    for data in reject:
        data = data.encode() if isinstance(data, str) else data
        assert not recognize(g, data).matched, (text, data)


def chunked(g, data: bytes, cuts) -> Verdict:
    recognizer = Recognizer(g)
    previous = 0
    for cut in [*cuts, len(data)]:
        recognizer.feed(data[previous:cut])
        previous = cut
    return recognizer.verdict()


# --- semantics ------------------------------------------------------------------------------

CONSTRUCTS = [
    ('r = *"a" "a"', ["a", "aaa", "AaA"], ["", "b", "aab"]),
    ('r = 2*3"ab"', ["abab", "ABaBab"], ["", "ab", "abababab", "aba"]),
    ('r = 3"x"', ["xxx"], ["xx", "xxxx"]),
    ('r = *2"x"', ["", "x", "xx"], ["xxx"]),
    ('r = 0"x"', [""], ["x"]),
    ('r = 0*0"x" "y"', ["y"], ["xy"]),
    ('r = "aB"', ["aB", "AB", "ab", "Ab"], ["a", "aBc", "ba"]),
    ('r = %s"aB"', ["aB"], ["AB", "ab", "Ab"]),
    ('r = %i"aB"', ["ab", "AB"], ["a"]),
    ('r = "a-1"', ["a-1", "A-1"], ["a_1", "A-!"]),
    ('r = ""', [""], ["a"]),
    ('r = "" "x" ""', ["x"], ["", "xx"]),
    ('r = %x0D.0A', [b"\r\n"], [b"\r", b"\n", b"\r\n\r\n"]),
    ('r = %d13.10', [b"\r\n"], [b"\n\r"]),
    ('r = %b1000001', ["A"], ["a"]),
    ('r = %x30-39 %x41', ["0A", "9A"], ["0a", "/A", ":A"]),
    ('r = %x00-FF', [b"\x00", b"\xff"], [b"", b"\x00\x00"]),
    ('r = "a" ["b"] "c"', ["ac", "abc"], ["abbc", "a"]),
    ('r = "a" ("b" / "c") "d"', ["abd", "acd"], ["ad", "abcd"]),
    ('r = ("a" / "ab") ("bc" / "c")', ["abc", "abbc", "ac"], ["ab", "abcc"]),
    ('r = 1*(DIGIT / ALPHA)', ["a1B2", "9"], ["", "a-"]),
    ('r = *WSP CRLF', [b"  \t\r\n", b"\r\n"], [b" \n", b"\r"]),
    ('r = 2HEXDIG', ["0f", "A9"], ["g0", "0"]),
    ('r = DQUOTE *VCHAR DQUOTE', ['"x!~"', '""'], ['"x y"', '"']),
    ('r = BIT / CTL / OCTET', [b"\x00", b"\xff", b"1"], [b"12"]),
    ('r = LWSP "x"', ["x", " x", "\r\n x"], ["\r\nx"]),
    ('r = *("a" / "b") "abb"', ["abb", "aababb", "bbabb"], ["ab", "abba"]),
    ('r = *(*"a")', ["", "aaaa"], ["b"]),
    ('r = 1*3(*"a" "b")', ["b", "ab", "aabab", "bbb"], ["bbbb", "", "a"]),
    ('r = *("" / "a")', ["", "aaa"], ["b"]),
    ('r = 2*2("" / "a")', ["", "a", "aa"], ["aaa"]),
    ('r = 1*65535%x00-FF', [b"x", b"\x00" * 100], [b""]),
    ('r = 100000000"a"', [], ["", "aaa"]),
    ('r = 2*100000000("" / "ab")', ["", "abababab"], ["aba"]),
    ('r = 100000000*"a"', [], ["a" * 50]),
]


@pytest.mark.parametrize("text, accept, reject", CONSTRUCTS)
def test_constructs(text, accept, reject):
    check(text + "\n", accept, reject)


def test_incremental_alternatives_and_rule_references():
    check('r = a / b\na = "x"\nb = "y"\nr =/ "z"\nb =/ "w"\n', ["x", "y", "z", "w"], ["", "xy"])


def test_redefined_core_rule_is_used():
    check('r = 1*DIGIT\nDIGIT = "0" / "1"\n', ["0101"], ["2"])


def test_explicit_start_rule():
    check('a = "x"\nB = "y" a\n', ["yx"], ["x"], start="b")


# --- recursion ------------------------------------------------------------------------------


def test_left_recursion():
    check('r = r "a" / "a"\n', ["a", "aaaa"], ["", "b", "aab"])


def test_right_recursion():
    check('r = "a" r / "a"\n', ["a", "aaaa"], ["", "aab"])


def test_middle_recursion_balanced_parens():
    check('r = *("(" r ")")\n', ["", "()", "(())()", "(()(()))"], ["(", ")", "())", "(()"])
    check('r = "(" r ")" / ""\n', ["", "((()))"], ["()()", "(()"])


def test_mutual_recursion():
    check('expr = term *("+" term)\nterm = "x" / "(" expr ")"\n',
          ["x", "x+x", "(x+(x))+x"], ["", "x+", "(x", "()"])


def test_mutual_left_recursion():
    check('a = b "x" / "y"\nb = a "z" / "w"\n', ["y", "wx", "yzx", "wxzx"], ["", "yz", "x"])


def test_nullable_recursion():
    text = 'r = r r / "" / "a"\n'
    check(text, ["", "a", "aaaaa"], ["b", "ab"])
    check('r = s r "b" / ""\ns = r / "a"\n', ["", "b", "ab", "bb", "abb", "aabb"], ["a", "ba", "abab"])


def test_left_recursion_through_nullable_prefix():
    check('r = n r "a" / "b"\nn = "" / "c"\n', ["b", "ba", "cba", "ccbaa"], ["", "a", "bb"])


def test_deferred_call_with_nullable_prefix():
    # R is not nullable (so calls of it wait for a byte that can start it) but starts with the
    # nullable recursive S: creating R's node late must still settle S at that position.
    text = 'top = "x" r\nr = s "a" r / "b"\ns = "(" s ")" / ""\n'
    check(text, ["xb", "xab", "x()ab", "x(())a()ab"], ["x", "xa", "x(b", "x()b"])


def test_rfc5322_nested_comments():
    text = '''comment = "(" *([FWS] ccontent) [FWS] ")"
ccontent = ctext / quoted-pair / comment
ctext = %d33-39 / %d42-91 / %d93-126
quoted-pair = "\\" (VCHAR / WSP)
FWS = [*WSP CRLF] 1*WSP
'''
    check(text, ["()", "(a b)", "(a (nested (deep)) \\) c)", "(x\r\n y)"],
          ["(", "(a))", "(a\r\nb)", "(\\", "(a (b)"])


def test_unproductive_rule_never_matches():
    # s matches nothing at all, so neither does "a" s: no parse can even start with "a".
    text = 'r = "a" "b" s / "b"\ns = s "c"\n'
    check(text, ["b"], ["a", "ab", "abc"])
    assert recognize(grammar(text), b"ab").describe() == "offset 0: expected %x42 / %x62 (r)"
    assert recognize(grammar('r = "a" s\ns = "x" s\n'), b"").describe() == "offset 0: unexpected end of input"


def test_deeply_nested_input():
    g = grammar('r = "(" r ")" / ""\n')
    depth = 100_000
    recognizer = Recognizer(g)
    recognizer.feed(b"(" * depth + b")" * (depth - 1))
    verdict = recognizer.verdict()
    assert (verdict.matched, verdict.offset, verdict.end_of_input) == (False, 2 * depth - 1, True)
    recognizer.feed(b")")
    assert recognizer.verdict().matched


def test_deep_left_recursion_input():
    g = grammar('e = e "+" t / t\nt = "x" / "(" e ")"\n')
    assert recognize(g, b"x" + b"+x" * 50_000).matched
    assert recognize(g, b"(" * 3000 + b"x" + b"+x)" * 3000).matched


def test_long_chain_of_rules():
    count = 3000
    tail = "\n".join(f'a{i} = "x" a{i + 1}' for i in range(1, count)) + f'\na{count} = "x"\n'
    g = grammar(tail)
    assert recognize(g, b"x" * count).matched
    assert recognize(g, b"x" * (count - 1)).offset == count - 1
    nested = "\n".join(f'a{i} = "x" a{i + 1} "y"' for i in range(1, count)) + f'\na{count} = "z"\n'
    g = grammar(nested)
    assert recognize(g, b"x" * (count - 1) + b"z" + b"y" * (count - 1)).matched
    verdict = recognize(g, b"x" * (count - 1) + b"zy")
    assert (verdict.offset, verdict.end_of_input) == (count + 1, True)


def test_deeply_nested_group():
    depth = 90
    g = grammar("r = " + "(" * depth + '"a" / "b"' + ")" * depth + ' "c"\n')
    assert recognize(g, b"ac").matched and recognize(g, b"bc").matched
    assert not recognize(g, b"c").matched


# --- failure reports ------------------------------------------------------------------------


def test_verdict_for_match():
    assert recognize(grammar('r = "a"\n'), b"a") == Verdict(True, None, ())
    assert Verdict(True, None, ()).describe() == "matched"


def test_expectation_format():
    assert str(Expectation(((0x80, 0x9F),), "UTF8-tail")) == "%x80-9F (UTF8-tail)"
    assert str(Expectation(((0x41, 0x41), (0x61, 0x61)), "ALPHA")) == "%x41 / %x61 (ALPHA)"


def test_failure_on_a_byte():
    verdict = recognize(grammar('r = "ab" / "ac" / DIGIT\n'), b"ad")
    assert (verdict.matched, verdict.offset, verdict.end_of_input) == (False, 1, False)
    assert verdict.expected == (Expectation(((0x42, 0x43), (0x62, 0x63)), "r"),)
    assert verdict.describe() == "offset 1: expected %x42-43 / %x62-63 (r)"


def test_failure_at_end_of_input():
    verdict = recognize(grammar('r = "a" DIGIT\n'), b"a")
    assert (verdict.offset, verdict.end_of_input) == (1, True)
    assert verdict.describe() == "offset 1: unexpected end of input; expected %x30-39 (DIGIT)"


def test_failure_after_complete_match():
    verdict = recognize(grammar('r = "a"\n'), b"ab")
    assert (verdict.offset, verdict.expected) == (1, ())
    assert verdict.describe() == "offset 1: expected end of input"


def test_expected_names_every_rule():
    verdict = recognize(grammar('r = a / b / %x20\na = "x" / DIGIT\nb = "y"\n'), b"!")
    assert [str(e) for e in verdict.expected] == [
        "%x20 (r)", "%x30-39 (DIGIT)", "%x58 / %x78 (a)", "%x59 / %x79 (b)"]
    assert verdict.describe() == ("offset 0: expected %x20 (r), %x30-39 (DIGIT), %x58 / %x78 (a) "
                                  "or %x59 / %x79 (b)")


def test_expected_includes_deferred_calls():
    g = grammar('r = "a" s\ns = "(" s ")" / t\nt = "x" / "y" t\n')
    verdict = recognize(g, b"a!")
    assert verdict.offset == 1
    assert [str(e) for e in verdict.expected] == ["%x28 (s)", "%x58-59 / %x78-79 (t)"]


def test_dead_recognizer_ignores_further_input():
    recognizer = Recognizer(grammar('r = "ab"\n'))
    assert recognizer.feed(b"a") is True
    assert recognizer.feed(b"x") is False
    assert recognizer.feed(b"b") is False
    assert recognizer.verdict().offset == 1


def test_verdict_does_not_consume():
    recognizer = Recognizer(grammar('r = "(" r ")" / "x"\n'))
    recognizer.feed(b"((")
    first = recognizer.verdict()
    assert first == recognizer.verdict() and first.offset == 2 and first.end_of_input
    recognizer.feed(b"x))")
    assert recognizer.verdict().matched and recognizer.verdict().matched


def test_feed_accepts_bytes_like():
    g = grammar('r = "ab"\n')
    recognizer = Recognizer(g)
    recognizer.feed(bytearray(b"a"))
    recognizer.feed(memoryview(b"b"))
    assert recognizer.verdict().matched
    with pytest.raises(TypeError):
        Recognizer(g).feed("ab")


# --- UTF-8 ----------------------------------------------------------------------------------


def python_verdict(data: bytes) -> tuple[bool, int | None]:
    """What Python's strict decoder says, as (matched, offset of the first unusable byte)."""
    try:
        data.decode("utf-8")
        return True, None
    except UnicodeDecodeError as error:
        if error.reason == "unexpected end of data":
            return False, len(data)
        return False, error.start if error.reason == "invalid start byte" else error.end


def test_utf8_exhaustive_up_to_two_bytes():
    recognizer_verdicts = []
    inputs = [b""] + [bytes([a]) for a in range(256)] + [bytes([a, b]) for a in range(256) for b in range(256)]
    for data in inputs:
        verdict = recognize(UTF8, data)
        recognizer_verdicts.append((verdict.matched, verdict.offset) == python_verdict(data))
    assert all(recognizer_verdicts)


def test_utf8_sampled_three_and_four_bytes():
    rng = random.Random(5234)
    interesting = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                   0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
    inputs = [bytes(t) for t in ((a, b, c) for a in interesting for b in interesting for c in interesting)]
    inputs += [bytes(rng.choice(interesting) for _ in range(4)) for _ in range(20_000)]
    inputs += [bytes(rng.randrange(256) for _ in range(rng.choice((3, 4)))) for _ in range(5_000)]
    for data in inputs:
        verdict = recognize(UTF8, data)
        assert (verdict.matched, verdict.offset) == python_verdict(data), data


@pytest.mark.parametrize("data, offset", [
    (b"\xe4\xbd", 2), (b"\xc0\x80", 0), (b"a\xed\xa0\x80", 2), (b"\xf4\x90\x80\x80", 1),
    (b"\xe0\x80\x80", 1), (b"\x80", 0), (b"ok\xff", 2), (b"\xf0\x9f\x98", 3)])
def test_utf8_error_offsets(data, offset):
    assert recognize(UTF8, data).offset == offset


def test_utf8_expected_ranges():
    verdict = recognize(UTF8, b"\xed")
    assert verdict.expected == (Expectation(((0x80, 0x9F),), "UTF8-3"),)
    assert verdict.describe() == "offset 1: unexpected end of input; expected %x80-9F (UTF8-3)"
    verdict = recognize(UTF8, b"\xe4\xbdx")
    assert verdict.describe() == "offset 2: expected %x80-BF (UTF8-tail)"
    assert [str(e) for e in recognize(UTF8, b"\xff").expected] == [
        "%x00-7F (UTF8-1)", "%xC2-DF (UTF8-2)", "%xE0-EF (UTF8-3)", "%xF0-F4 (UTF8-4)"]


def test_utf8_text():
    text = "ASCII, Grüße, 中文, emoji 😀🎉 ".encode() * 50
    assert recognize(UTF8, text).matched
    assert recognize(UTF8, text + b"\xf0\x9fx").offset == len(text) + 2


# --- chunked input --------------------------------------------------------------------------

CHUNK_CASES = [
    (UTF8, "h\u00e9\u4e2d\U0001f600!".encode()),
    (UTF8, b"ab\xe4\xbd\xa0\xed\xa0\x80zz"),
    (UTF8, b"\xf0\x9f\x98"),
    (grammar('r = "(" r ")" / ""\n'), b"((()))"),
    (grammar('r = "(" r ")" / ""\n'), b"(()))("),
    (grammar('r = r r / "" / "a"\n'), b"aaaab"),
    (grammar('e = e "+" t / t\nt = "x" / "(" e ")"\n'), b"(x+x)+x+("),
    (grammar('top = "x" r\nr = s "a" r / "b"\ns = "(" s ")" / ""\n'), b"x(())a()ab"),
    (grammar('r = 2*5("ab" / "a")\n'), b"abaabab"),
    # Tail calls through the stack (skipped), pops put off until a byte needs them, ambiguity.
    (grammar('r = "(" r ")" r / ""\n'), b"()(())()("),
    (grammar('r = *( "(" r ")" / "x" )\n'), b"(x(xx)x)x)"),
    (grammar('r = r r / "a"\n'), b"aaaab"),
    (grammar('r = "(" r [")"] / "x"\n'), b"((x)x"),
    (grammar('list = item [ "," list ]\nitem = 1*ALPHA\n'), b"ab,c,,d"),
]


@pytest.mark.parametrize("g, data", CHUNK_CASES)
def test_chunks_match_whole_buffer_at_every_split(g, data):
    whole = recognize(g, data)
    for cut in range(len(data) + 1):
        assert chunked(g, data, [cut]) == whole, cut
    for first in range(len(data) + 1):
        for second in range(first, len(data) + 1):
            assert chunked(g, data, [first, second]) == whole, (first, second)
    assert chunked(g, data, range(len(data))) == whole


def test_verdict_between_feeds_equals_prefix_verdict():
    for g, data in CHUNK_CASES:
        recognizer = Recognizer(g)
        for end in range(len(data)):
            assert recognizer.verdict() == recognize(g, data[:end]), (data, end)
            recognizer.feed(data[end:end + 1])


# --- bounded memo tables --------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 7, 50])
def test_tiny_cache_gives_the_same_verdicts(limit):
    for g, data in CHUNK_CASES:
        for end in range(len(data) + 1):
            small = Recognizer(g, max_cache_states=limit)
            small.feed(data[:end])
            assert small.verdict() == recognize(g, data[:end]), (data, end, limit)


def test_huge_repetition_counts_are_not_unrolled():
    g = grammar('r = 100000000"a"\n')
    recognizer = Recognizer(g, max_cache_states=500)
    assert recognizer.feed(b"a" * 20_000)
    verdict = recognizer.verdict()
    assert (verdict.offset, verdict.end_of_input) == (20_000, True)
    assert str(verdict.expected[0]) == "%x41 / %x61 (r)"
    g = grammar('r = 1*65535(%x00-FF)\n')
    assert recognize(g, bytes(65535)).matched
    assert recognize(g, bytes(65536)).offset == 65535


def test_cache_compaction_with_deep_stack():
    # Level i of the nesting has i items before the nested call and 99 - i after it: exactly
    # the 100 allowed.  The counts live in continuations on the stack, and a tiny cache is
    # rebuilt every few bytes, so they must survive every rebuild exactly.
    g = grammar('r = "(" 1*100("x" / r) ")" / "y"\n')
    depth = 40
    data = b"".join(b"(" + b"x" * i for i in range(1, depth + 1)) + b"y"
    data += b"".join(b"x" * (99 - i) + b")" for i in range(depth, 0, -1))
    one_more = data[:-1] + b"x)"
    failure = Verdict(False, len(data) - 1, (Expectation(((0x29, 0x29),), "r"),))
    for text, verdict in [(data, Verdict(True, None, ())), (one_more, failure)]:
        small = Recognizer(g, max_cache_states=20)
        for start in range(0, len(text), 7):
            small.feed(text[start:start + 7])
        assert small.verdict() == recognize(g, text) == verdict


# --- linear time on recursion, and the work limit -------------------------------------------
# Steps on the stack are counted exactly, so these bound the work without timing anything.


def test_right_recursion_needs_no_stack():
    # Tail references are loops in the program: no recursive call is left at all.
    for text in ['list = item [ "," list ]\nitem = 1*ALPHA\n', 'r = "a" r / "a"\n',
                 'a = "x" b / ""\nb = "y" a\n']:
        assert Recognizer(grammar(text))._run.program.regular, text
    recognizer = Recognizer(grammar('list = item [ "," list ]\nitem = 1*ALPHA\n'))
    recognizer.feed(b"abc," * 50_000 + b"z")
    assert recognizer.verdict().matched and recognizer.work == 0


@pytest.mark.parametrize("text, unit", [
    ('r = "(" r ")" r / ""\n', b"()(())"),  # right recursion through the stack: tail calls
    ('r = "(" r ")" r / ""\n', b"(()())"),
    ('r = r "a" / "a"\n', b"a"),  # left recursion
    ('e = e "+" t / t\nt = "x" / "(" e ")"\n', b"x+(x+x)+"),
    ('r = *( "(" r ")" / "x" )\n', b"(x(xx)((x)))"),  # nesting
])
def test_work_per_byte_is_bounded_on_linear_recursion(text, unit):
    g = grammar(text)
    works = []
    for count in (300, 3_000):
        data = unit * count + (b"x" if text.startswith("e") else b"")
        recognizer = Recognizer(g)
        recognizer.feed(data)
        assert recognizer.verdict().matched
        works.append(recognizer.work / len(data))
    assert works[1] <= 4 and works[1] <= works[0] * 1.01, works


def test_tail_calls_leave_no_chain_on_the_stack():
    # Each "()" completes r and tail-calls the next r: skipped callers become garbage, so what
    # the configuration can return through stays small however long the input.
    from abnfc.interpret.gss import reachable_nodes
    from abnfc.interpret.recognizer import RecursiveRun

    recognizer = Recognizer(grammar('r = "(" r ")" r / ""\n'))
    recognizer.feed(b"()" * 5_000 + b"((")
    run = recognizer._run
    assert isinstance(run, RecursiveRun)
    assert len(reachable_nodes(run.config)) <= 4


def test_ambiguous_grammar_stops_at_the_work_limit():
    g = grammar('r = *( r / "a" )\n')
    small = Recognizer(g, max_work=20_000)
    with pytest.raises(WorkLimitError) as caught:
        small.feed(b"a" * 1000)
    error = caught.value
    assert isinstance(error, LimitError) and 0 < error.offset < 1000 and error.limit == 20_000
    assert error.steps > 20_000 + 100 * error.offset
    message = str(error)
    assert f"offset {error.offset}" in message and "20000" in message and "--max-work" in message
    with pytest.raises(WorkLimitError):  # a recogniser that gave up stays so
        small.feed(b"a")
    with pytest.raises(WorkLimitError):
        small.verdict()
    # The same input under a higher limit: the work grows faster than the input.
    works = []
    for size in (40, 80):
        recognizer = Recognizer(g, max_work=10**9)
        recognizer.feed(b"a" * size)
        assert recognizer.verdict().matched
        works.append(recognizer.work)
    assert works[1] > 4 * works[0], works
    assert recognize(g, b"a" * 40, max_work=10**9).matched


def test_work_limit_is_checked_across_chunks():
    recognizer = Recognizer(grammar('r = r r / "a"\n'), max_work=5_000)
    with pytest.raises(WorkLimitError) as caught:
        for _ in range(1000):
            recognizer.feed(b"a")
    assert caught.value.offset == recognizer._run.pos


# --- random grammars against the reference matcher ------------------------------------------

RULE_NAMES = ["r0", "r1", "r2"]
ALPHABET = b"aAb("


def leaves(rules: int):
    letters = st.text(alphabet="aAb(", max_size=2)
    values = st.sampled_from(sorted(ALPHABET))
    references = st.builds(ast.RuleRef, st.sampled_from(RULE_NAMES[:rules]))
    return st.one_of(
        st.builds(ast.CharVal, letters, st.booleans()),
        st.builds(lambda pair: ast.NumRange("x", min(pair), max(pair)), st.tuples(values, values)),
        st.builds(lambda vs: ast.NumVal("x", tuple(vs)), st.lists(values, min_size=1, max_size=2)),
        references, references,
    )


def repetition(atom):
    bounds = st.tuples(st.integers(0, 2), st.one_of(st.none(), st.integers(0, 3)))
    return st.builds(lambda b, a: ast.Repetition(min(b[0], b[1] if b[1] is not None else b[0]), b[1], a),
                     bounds, atom)


def alternation(rules: int, depth: int):
    """Shaped like real grammars: alternatives of concatenations of (repeated) elements."""
    def one_or(cls):
        return lambda nodes: nodes[0] if len(nodes) == 1 else cls(tuple(nodes))
    atoms = [leaves(rules)]
    if depth:
        inner = alternation(rules, depth - 1)
        atoms += [inner.map(ast.Group), inner.map(ast.Option)]
    atom = st.one_of(atoms)
    element = st.one_of(atom, atom, repetition(atom))
    concatenation = st.lists(element, max_size=3).map(one_or(ast.Concatenation))
    return st.lists(concatenation, min_size=1, max_size=3).map(one_or(ast.Alternation))


NODES = {count: alternation(count, 2) for count in (1, 2, 3)}  # built once: building them is slow


@st.composite
def random_grammars(draw):
    count = draw(st.sampled_from([1, 2, 2, 3, 3]))
    rules = tuple(ast.Rule(RULE_NAMES[i], draw(NODES[count])) for i in range(count))
    return resolve(ast.Grammar(rules))


inputs = st.lists(st.binary(max_size=6).map(lambda b: bytes(ALPHABET[x % 4] for x in b)),
                  min_size=1, max_size=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_grammars(), inputs)
def test_agrees_with_reference_matcher(g, datas):
    for data in datas:
        assert recognize(g, data).matched == matches(g, data), (str(g.rules[g.start].definition), data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_grammars(), inputs, st.integers(1, 4))
def test_random_grammars_chunked_and_tiny_cache(g, datas, limit):
    for data in datas:
        whole = recognize(g, data)
        small = Recognizer(g, max_cache_states=limit)
        for index in range(len(data)):
            small.feed(data[index:index + 1])
        assert small.verdict() == whole
        if not whole.matched and not whole.end_of_input:
            # The byte at the offset is not one of the expected ones, and every prefix before
            # it is alive.
            bad = data[whole.offset]
            assert not any(lo <= bad <= hi for e in whole.expected for lo, hi in e.ranges)
            alive = Recognizer(g)
            assert alive.feed(data[:whole.offset])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_grammars(), st.binary(max_size=5).map(lambda b: bytes(ALPHABET[x % 4] for x in b)))
def test_bytes_that_keep_a_parse_alive_are_expected(g, prefix):
    recognizer = Recognizer(g)
    if not recognizer.feed(prefix):
        return
    recognizer.feed(b"\xff")  # no random grammar uses it: the verdict lists what was expected
    verdict = recognizer.verdict()
    assert (verdict.offset, verdict.end_of_input) == (len(prefix), False)
    allowed = {b for e in verdict.expected for lo, hi in e.ranges for b in range(lo, hi + 1)}
    for byte in ALPHABET + b"Bz":
        probe = Recognizer(g)
        if probe.feed(prefix + bytes([byte])):
            assert byte in allowed, (prefix, byte)
