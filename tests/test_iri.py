"""grammars/iri.abnf (RFC 3987 section 2.2) with its rules from RFC 3986 imported from
grammars/uri.abnf: laws that relate the two languages, checked on their DFAs.

The examples of RFC 3987 run through every engine in tests/cases/iri.toml.  Here:

- every URI reference is an IRI reference, and the IRI references made only of ASCII are
  exactly the URI references (RFC 3987 section 2: IRIs extend URIs with characters outside
  US-ASCII), as DFA equivalences;
- mapping an IRI to a URI by percent-encoding the UTF-8 bytes of every non-ASCII character
  (section 3.1, step 2) gives a URI reference, for IRIs drawn by random walks in the DFA.
"""
from __future__ import annotations

import random

import pytest
from conftest import ROOT, compile_text, files_for

import abnfc
from abnfc.automata import product
from abnfc.automata.dfa import Dfa
from abnfc.pipeline import load_validators

IRI = (ROOT / "grammars" / "iri.abnf").read_text(encoding="utf-8")
URI_SETUP = (None, ("grammars/uri.abnf",))


@pytest.fixture(scope="module")
def iri() -> Dfa:
    return compile_text(IRI, setup=URI_SETUP).minimal


@pytest.fixture(scope="module")
def uri() -> Dfa:
    return abnfc.compile_grammar(ROOT / "grammars" / "uri.abnf").minimal


def test_iri_compiles_in_utf8_mode_with_imported_rules():
    compiled = compile_text(IRI, setup=URI_SETUP)
    assert compiled.resolved.encoding == "utf-8" and compiled.resolved.is_regular
    assert {file for _, file in compiled.resolved.supplied} == {"grammars/uri.abnf"}
    assert compiled.minimal.num_states == 278


def test_every_uri_is_an_iri_and_ascii_iris_are_uris(iri, uri):
    assert product.shortest_word(product.difference(uri, iri)) is None
    ascii_only = compile_text("r = *%x00-7F\n").minimal
    ascii_iri = product.product(iri, ascii_only, lambda a, b: a and b)
    assert product.equivalent(ascii_iri, uri)
    assert product.shortest_word(product.difference(iri, uri)) == "\u00a0".encode()


def random_walk(dfa: Dfa, rng: random.Random, length: int) -> bytes | None:
    """An input the DFA accepts, found by a random walk of about ``length`` bytes, or None."""
    state, word = dfa.start, bytearray()
    for _ in range(length * 4):
        if state in dfa.accepting and len(word) >= length:
            return bytes(word)
        live = [cls for cls, target in enumerate(dfa.transitions[state]) if target != dfa.dead]
        if not live:
            return None
        cls = rng.choice(live)
        lo, hi = rng.choice(dfa.classes[cls])
        word.append(rng.randint(lo, hi))
        state = dfa.transitions[state][cls]
    return bytes(word) if state in dfa.accepting else None


def to_uri(data: bytes) -> bytes:
    """RFC 3987 section 3.1 step 2: percent-encode every byte of a non-ASCII character."""
    return b"".join(b"%%%02X" % byte if byte >= 0x80 else bytes([byte]) for byte in data)


def test_mapping_an_iri_to_a_uri_gives_a_uri(iri, uri):
    rng = random.Random(3987)
    walks = [random_walk(iri, rng, rng.randint(1, 40)) for _ in range(400)]
    found = [word for word in walks if word is not None]
    assert len(found) > 300 and sum(max(word, default=0) >= 0x80 for word in found) > 100
    for word in found:
        word.decode("utf-8")  # every accepted input is UTF-8
        assert uri.matches(to_uri(word)), word
        assert iri.matches(to_uri(word))  # and still an IRI


def test_generated_python_checks_str_as_utf8():
    files = files_for(IRI, "python", "iri", setup=URI_SETUP)
    assert "# Imports " in files["iri.py"] and "Built in utf-8 mode" in files["iri.py"]
    [validator] = load_validators([files], "python")
    assert validator.is_valid("http://納豆.example.org/パス?q=値#断片")
    assert not validator.is_valid("http://a/\ufdd0")
    assert validator.first_error("http://a/\ud800") == 10  # ED is a lead byte; A0 cannot follow it
