"""Benchmark: the generated Python validator on short records, against regular expressions.

100,000 URI references (bench/corpora.py), 10% of them with one byte replaced by a character a
URI cannot hold, each checked on its own: the generated module of grammars/uri.abnf (``is_valid``,
which steps two bytes at a time on inputs of up to 1 KiB; and ``first_error``, the table loop
with skip patterns), the ``rfc3987`` package's expression for URI-reference (PyPI, optional),
anchored and matched with ``re.match``, and the same expression with ``re.fullmatch``.  All must
agree on every record.  Records per second, the best of 5 passes, and each one's speed relative
to the generated ``is_valid``.

    pip install rfc3987
    python bench/bench_short_records.py
"""
from __future__ import annotations

import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import corpora  # noqa: E402

import abnfc  # noqa: E402


def records(count: int) -> list[bytes]:
    rng = random.Random(1)
    found = []
    for line in corpora.uri_lines(count):
        if rng.random() < 0.1:
            spoiled = bytearray(line)
            spoiled[rng.randrange(len(spoiled))] = rng.choice(b' <>"{}|\\^`')
            line = bytes(spoiled)
        found.append(line)
    return found


def best_rate(check, inputs, passes: int = 5) -> tuple[float, int]:
    best = float("inf")
    valid = 0
    for _ in range(passes):
        start = time.perf_counter()
        valid = sum(1 for data in inputs if check(data))
        best = min(best, time.perf_counter() - start)
    return len(inputs) / best, valid


def main() -> int:
    lines = records(100_000)
    with tempfile.TemporaryDirectory() as folder:
        files = abnfc.generate_files(ROOT / "grammars" / "uri.abnf", "python", prefix="uri_bench")
        for name, text in files.items():
            (Path(folder) / name).write_text(text, encoding="utf-8")
        sys.path.insert(0, folder)
        import uri_bench  # type: ignore[import-not-found]
    rows = [("generated is_valid (pairs up to 1 KiB)", uri_bench.is_valid, lines),
            ("generated first_error is None", lambda d: uri_bench.first_error(d) is None, lines)]
    try:
        import rfc3987  # type: ignore[import-untyped]
    except ImportError:
        print("note: rfc3987 not installed (pip install rfc3987): its expression is left out")
    else:
        texts = [line.decode("latin-1") for line in lines]
        anchored = re.compile(rfc3987.get_compiled_pattern("^%(URI_reference)s$").pattern)
        bare = re.compile(rfc3987.get_compiled_pattern("%(URI_reference)s").pattern)
        rows += [("rfc3987 expression, re.match with ^...$", lambda t: anchored.match(t) is not None, texts),
                 ("rfc3987 expression, re.fullmatch", lambda t: bare.fullmatch(t) is not None, texts)]
    results = [(label, *best_rate(check, inputs)) for label, check, inputs in rows]
    counts = {valid for _label, _rate, valid in results}
    if len(counts) != 1:
        raise SystemExit(f"the validators disagree on how many records are valid: {results}")
    reference = results[0][1]
    print(f"{len(lines):,} URI references, {counts.pop():,} valid; records per second (best of 5):")
    print("| validator | records/s | vs generated is_valid |")
    print("|---|---|---|")
    for label, rate, _valid in results:
        print(f"| {label} | {rate:,.0f} | {rate / reference:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
