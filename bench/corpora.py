"""Inputs for the benchmarks: UTF-8 corpora of a given size and a corpus of URI references.

Deterministic (fixed seeds), so every run and machine times the same bytes.
"""
from __future__ import annotations

import random

UNIT = 1 << 20  # corpora are 1 MiB of random pieces, repeated


def _fill(pick, size: int) -> bytes:
    """Random pieces up to 1 MiB, repeated to ``size`` bytes, cut at a character boundary and
    padded with spaces."""
    parts, total = [], 0
    while total < min(size, UNIT):
        piece = pick().encode("utf-8")
        parts.append(piece)
        total += len(piece)
    data = b"".join(parts) * (size // UNIT + 1)
    cut = min(size, len(data) - 1)
    while cut > 0 and (data[cut] & 0xC0) == 0x80:  # do not split a character
        cut -= 1
    return data[:cut] + b" " * (size - cut)


def _random_character(rng: random.Random) -> str:
    """Each UTF-8 length alike, then any scalar value of that length: every branch of a
    validator is taken at random."""
    low, high = rng.choice([(0, 0x7F), (0x80, 0x7FF), (0x800, 0xFFFF), (0x10000, 0x10FFFF)])
    while True:
        code = rng.randint(low, high)
        if not 0xD800 <= code <= 0xDFFF:
            return chr(code)


def utf8_corpora(size: int) -> dict[str, bytes]:
    rng = random.Random(3629)
    english = ("the quick brown fox jumps over the lazy dog while validators count bytes and "
               "grammars describe what a valid sequence is ").split()
    german = "Grüße Straße Bäcker Übung öffnen Käse Müller größer schön Fußgänger".split()
    chinese = [chr(rng.randrange(0x4E00, 0xA000)) for _ in range(400)]
    emoji = [chr(rng.randrange(0x1F300, 0x1F650)) for _ in range(200)]

    def mixed() -> str:
        roll = rng.random()
        if roll < 0.55:
            return rng.choice(english) + " "
        if roll < 0.80:
            return rng.choice(german) + " "
        if roll < 0.95:
            return "".join(rng.choice(chinese) for _ in range(rng.randrange(2, 6))) + "，"
        return rng.choice(emoji) + " "

    return {
        "ascii": _fill(lambda: rng.choice(english) + " ", size),
        "mixed": _fill(mixed, size),
        "chinese": _fill(lambda: "".join(rng.choice(chinese) for _ in range(rng.randrange(4, 20))) + "。", size),
        "emoji": _fill(lambda: rng.choice(emoji), size),
        "random": _fill(lambda: _random_character(rng), size),
    }


UNRESERVED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"
WORDS = ["index", "api", "v1", "users", "search", "images", "docs", "en", "wiki", "Main_Page", "a.b",
         "2024", "report%20final", "caf%C3%A9", "~user", "item(1)", "x=y", "path;param"]


def _uri(rng: random.Random) -> str:
    def word() -> str:
        return rng.choice(WORDS) if rng.random() < 0.7 else "".join(rng.choice(UNRESERVED)
                                                                     for _ in range(rng.randrange(1, 12)))

    host = rng.choice([
        lambda: ".".join(word().lower().replace("%", "") or "x" for _ in range(rng.randrange(2, 4))),
        lambda: ".".join(str(rng.randrange(256)) for _ in range(4)),
        lambda: "[" + ":".join(f"{rng.randrange(65536):x}" for _ in range(8)) + "]",
        lambda: "[2001:db8::" + f"{rng.randrange(65536):x}" + "]",
        lambda: "[v1.fe80::" + word().replace("%", "") + "]",
    ])()
    port = f":{rng.randrange(65536)}" if rng.random() < 0.3 else ""
    authority = ("user:pw@" if rng.random() < 0.1 else "") + host + port
    path = "".join("/" + word() for _ in range(rng.randrange(0, 6)))
    query = ("?" + "&".join(f"{word()}={word()}" for _ in range(rng.randrange(1, 4)))) if rng.random() < 0.4 else ""
    fragment = ("#" + word()) if rng.random() < 0.15 else ""
    form = rng.random()
    if form < 0.75:
        return f"{rng.choice(['http', 'https', 'ftp', 'ws', 'git+ssh'])}://{authority}{path}{query}{fragment}"
    if form < 0.85:
        return f"{rng.choice(['mailto:', 'urn:isbn:', 'tel:+', 'news:'])}{word()}{query}"
    return f"{path or '/'}{query}{fragment}" if form < 0.95 else f"{word()}{path}{fragment}"


def uri_lines(count: int) -> list[bytes]:
    """URI references, one in twenty spoiled (a space, a bad escape or a stray bracket)."""
    rng = random.Random(3986)
    lines = []
    for _ in range(count):
        text = _uri(rng)
        if rng.random() < 0.05:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice([" ", "%G0", "]", "^", "\"", "%"]) + text[at:]
        lines.append(text.encode("ascii"))
    return lines
