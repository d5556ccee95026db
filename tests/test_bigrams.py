"""src/abnfc/automata/bigrams.py: the tables that check a pushdown grammar's positions in pairs,
derived from the automaton, and the grammars it refuses (where the walk must stay)."""
from __future__ import annotations

import pytest
from helpers.paths import ROOT

from abnfc.automata.bigrams import FIRST, TOKEN_DEAD, TOKEN_WIDTH, Bigrams, NoBigrams, derive_bigrams, find_bigrams
from abnfc.automata.pushdown import Pushdown
from abnfc.frontend.source import from_text, load
from abnfc.pipeline import Compilation

pytestmark = pytest.mark.quick


def _pushdown(grammar: str) -> Pushdown:
    source = load(str(ROOT / "grammars" / grammar)) if grammar.endswith(".abnf") else from_text(grammar)
    pushdown = Compilation(source).pushdown
    assert isinstance(pushdown, Pushdown)
    return pushdown


@pytest.fixture(scope="module")
def json() -> Bigrams:
    return derive_bigrams(_pushdown("json.abnf"))


def _code(tables: Bigrams, name: str) -> int:
    return tables.kind_names.index(name) + 1


def _allowed(tables: Bigrams, before: str, kind: str) -> int:
    """The contexts (bits) that allow ``kind`` right after ``before`` (unrefined)."""
    return tables.ok[_code(tables, before) * tables.kinds + _code(tables, kind)]


def test_json_kinds_contexts_and_the_key_refinement(json):
    assert json.kind_names == (",", ":", "[", "]", "{", "}", "STR", "SCALAR")
    assert json.contexts == 3 and json.quote == ord('"') and json.escape == ord("\\") and json.utf8_strings
    refined = [kind for kind in range(16) if json.refined[kind] != kind]
    assert refined == [_code(json, "STR")]  # a string in an object: a key or a value
    comma, string, colon = _code(json, ","), _code(json, "STR"), _code(json, ":")
    # After "{" or a comma a string is refined in the object's context only, not in an array's.
    tagged = json.tag[comma * json.kinds + string]
    assert bin(tagged).count("1") == 1 and json.tag[colon * json.kinds + string] == 0
    key = json.refined[string]
    assert json.ok[key * json.kinds + colon] == tagged  # a key is followed by a colon
    assert json.ok[string * json.kinds + colon] == 0  # a value never is


def test_json_pairs_follow_the_grammar(json):
    assert _allowed(json, "[", "]") and _allowed(json, "{", "}")
    assert not _allowed(json, ",", "]")  # no trailing comma
    assert not _allowed(json, ",", ",") and not _allowed(json, ":", ":")
    assert not _allowed(json, "SCALAR", "SCALAR")  # two tokens need a separator
    start = json.start * json.kinds
    assert json.ok[start + _code(json, "SCALAR")] and not json.ok[start + _code(json, "]")]
    assert json.ends[_code(json, "]")] and json.ends[_code(json, "SCALAR")] and not json.ends[_code(json, ",")]


def test_json_classes_and_brackets(json):
    assert json.classes[ord("{")] & 0x0F == _code(json, "{") and json.classes[ord("{")] & 0x40
    assert json.classes[ord(":")] & 0x40 == 0  # structural, not a bracket
    assert json.classes[ord(" ")] & 0x10 and json.classes[ord("-")] & 0x0F == _code(json, "SCALAR")
    assert json.classes[0x1F] & 0x80 and json.classes[ord("a")] & 0x80 == 0  # controls stop a string
    assert json.brackets[ord("[")] & 1 and json.brackets[ord("{")] & 1 and json.brackets[ord("]")] == 0
    assert json.brackets[ord("[")] != json.brackets[ord("{")]  # they enter different machines


def _run_tokens(tables: Bigrams, text: bytes) -> int:
    """Token bytes as pass N reads them: the first byte of each space-separated token marked."""
    state = 1  # FIN: a whole token before
    for word in text.split():
        for at, byte in enumerate(word):
            state = tables.tokens.table[(byte | (FIRST if at == 0 else 0)) * TOKEN_WIDTH + state]
            if state == TOKEN_DEAD:
                return TOKEN_DEAD
    return state


@pytest.mark.parametrize("text, whole", [(b"0 -1.5e+3 true null false 12", True), (b"-", False), (b"1.", False),
                                         (b"tru", False), (b"01", None), (b"1.2.3", None), (b"truex", None)])
def test_json_token_automaton(json, text, whole):
    state = _run_tokens(json, text)
    if whole is None:
        assert state == TOKEN_DEAD
    else:
        assert state != TOKEN_DEAD and json.tokens.complete[state] == int(whole)


def test_sexpr_derives_without_utf8_in_strings():
    tables = derive_bigrams(_pushdown("sexpr.abnf"))
    assert tables.kind_names == ("(", ")", "STR", "SCALAR") and not tables.utf8_strings
    assert tables.classes[0x7F] & 0x80  # its strings stop at DEL, unlike JSON's
    assert all(tables.refined[kind] == kind for kind in range(16))


def test_a_grammar_without_a_lexical_layer_has_no_bigrams():
    assert find_bigrams(_pushdown("email.abnf")) is None
    with pytest.raises(NoBigrams, match="no lexical layer"):
        derive_bigrams(_pushdown("email.abnf"))


@pytest.mark.parametrize("grammar, reason", [
    # The comma before the string does not tell a colon from a semicolon after it; two back does.
    ('top = "[" *item "]"\nitem = ( %s"a" "," str ":" ) / ( %s"b" "," str ";" ) / top\n'
     'str = DQUOTE *( %x20-21 / %x23-7E ) DQUOTE\n', "what may follow differs"),
    ('v = "(" *v ")" / "[" *v "]" / "{" *v "}" / "<" *v ">" / "a" / str\nstr = DQUOTE *%x61-7A DQUOTE\n',
     "more than 4 contexts"),
    ('top = "[" *( str / %xC0 / top ) "]"\nstr = DQUOTE *%x61-7A DQUOTE\n', "a lexical byte beyond ASCII"),
    ('doc = *SP top *SP\ntop = "[" *( str / "a" %xC0 "cd" / top / SP ) "]"\nstr = DQUOTE *%x61-7A DQUOTE\n',
     "beyond ASCII read outside strings"),
    ('top = "[" *( str / top ) "]"\nstr = DQUOTE *( %x61-7A / "%" "b" ) DQUOTE\n', "neither loops nor fails"),
    # A backslash in a token: the escape scan would take [a\"b"]'s quote for an escaped one.
    ('doc = *SP top *SP\ntop = "[" *( str / tok / top / SP ) "]"\ntok = 1*( "a" / %x5C )\n'
     'str = DQUOTE *( %x61-7A / %x5C DQUOTE / %x5C %x5C ) DQUOTE\n', "the escape byte read outside strings"),
])
def test_refusals_say_why(grammar, reason):
    with pytest.raises(NoBigrams, match=reason):
        derive_bigrams(_pushdown(grammar))
