"""``Validator().expected()`` in every backend names the bytes that could continue the input,
also when what was read is already complete (``http://exa`` is a URI, and more of the host may
follow): it used to answer [] there (issue 17), unlike the book and ``explain``."""
from __future__ import annotations

import pytest
from helpers.paths import GRAMMARS

import abnfc


@pytest.mark.parametrize("lang", ["python", "c", "js"])
def test_a_complete_input_still_says_what_may_follow(lang):
    uri = abnfc.load_validator(GRAMMARS / "uri.abnf", lang=lang)
    validator = uri.Validator()
    assert validator.feed(b"http://exa")
    assert validator.complete and validator.first_error() is None
    ranges = [tuple(r) for r in validator.expected()]
    assert any(lo <= ord("m") <= hi for lo, hi in ranges)  # more of the host name
    assert any(lo <= ord("/") <= hi for lo, hi in ranges)  # a path
    assert ranges == [tuple(r) for r in uri.expected_bytes(validator.state)]
    assert not validator.feed(b" ") and validator.expected() == uri.expected_bytes(validator.state)
