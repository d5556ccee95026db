"""Benchmark: how soon Hypothesis finds a planted bug with abnfc's strategy, with a regular
expression's, and with plain bytes or text.

The three planted bugs of bench/bench_fuzz.py's C targets, written as Python predicates, each
compared with abnfc's validator of the grammar (the oracle, ``abnfc.load_validator``); an input
on which the two disagree exposes the bug:

- utf8: a UTF-8 check whose least 4-byte code point is off by one (0xFFFF), so that it accepts
  the overlong form F0 8F BF BF (grammars/utf8.abnf);
- uri: a URI check that takes a zone identifier in an IPv6 literal, ``[fe80::1%25eth0]``
  (RFC 6874).  As in the C target, it is the validator of grammars/variants/uri-zone-id.abnf;
  the oracle is grammars/uri.abnf (RFC 3986, which has none);
- datetime: an RFC 3339 check that refuses a leap second given with a time offset other than
  23:59 local, such as ``1990-12-31T15:59:60-08:00`` (grammars/datetime.abnf).

Contenders, each a Hypothesis strategy of bytes: ``abnfc.hypothesis.strategy(grammar,
valid=None)`` (valid inputs and invalid ones next to them), the same with ``valid=True``,
``st.from_regex(EXPR, fullmatch=True)`` of a hand-written bytes pattern for the grammar
(:data:`REGEXES`; :func:`check_regexes` compares each with the oracle on the sampler's words and
the grammar's test vectors before any run), and ``st.binary()`` (utf8) or ``st.text()`` encoded
as UTF-8 (uri, datetime).  Each run is a ``@given`` test with ``phases=[Phase.generate]`` (no
shrinking: the time is to the first failing input), ``database=None`` and a seed
(``hypothesis.seed``), stopped at the first disagreement or after :data:`CAP_EXAMPLES` examples
or :data:`CAP_SECONDS` seconds.  The table gives, for each contender, how many of the seeds'
runs found the bug, the medians of examples and seconds to the first failing input (over
the runs that found it) and of the examples run (over all runs: up to a cap where none was
found), and the seconds the strategy took to build (abnfc's reads the grammar
and counts its words).  Examples do not depend on the machine's load; seconds do.

    python bench/bench_hypothesis.py              # all targets, 5 seeds
    python bench/bench_hypothesis.py datetime     # one
    python bench/bench_hypothesis.py --smoke      # one seed, small caps
    python bench/bench_hypothesis.py --seeds 15 --contenders st.from_regex   # one contender
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import abnfc  # noqa: E402
from abnfc.frontend.source import load  # noqa: E402
from abnfc.hypothesis import strategy as abnfc_strategy  # noqa: E402
from abnfc.hypothesis.sampling import Sampler  # noqa: E402
from abnfc.pipeline import Compilation  # noqa: E402

SEEDS = 5  # runs, with seeds 1, 2, ...
CAP_EXAMPLES = 100_000
CAP_SECONDS = 60.0
MAX_SIZE = 64  # abnfc's max_size; also the baselines' max_size
CONTENDERS = ("abnfc valid=None", "abnfc valid=True", "st.from_regex", "st.binary/st.text")


# -- the planted bugs ---------------------------------------------------------------------------

def utf8_overlong(data: bytes) -> bool:
    """bench/fuzz_targets/utf8_overlong.c in Python: the least 4-byte code point is 0xFFFF."""
    least = (0, 0, 0x80, 0x800, 0xFFFF)
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        if c < 0x80:
            i += 1
            continue
        if c & 0xE0 == 0xC0:
            length, point = 2, c & 0x1F
        elif c & 0xF0 == 0xE0:
            length, point = 3, c & 0x0F
        elif c & 0xF8 == 0xF0:
            length, point = 4, c & 0x07
        else:
            return False
        if n - i < length:
            return False
        for k in range(1, length):
            if data[i + k] & 0xC0 != 0x80:
                return False
            point = point << 6 | data[i + k] & 0x3F
        if point < least[length] or point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
            return False
        i += length
    return True


def _digits(data: bytes) -> bool:
    return all(0x30 <= b <= 0x39 for b in data)


def datetime_leap(data: bytes) -> bool:
    """bench/fuzz_targets/datetime_leap.c in Python: second 60 is checked against 23:59 before
    the offset is applied, so a leap second in local time is refused."""
    n = len(data)
    if n < 20 or not (_digits(data[0:4]) and data[4:5] == b"-" and _digits(data[5:7]) and data[7:8] == b"-"
                      and _digits(data[8:10]) and data[10:11] in (b"T", b"t") and _digits(data[11:13])
                      and data[13:14] == b":" and _digits(data[14:16]) and data[16:17] == b":"
                      and _digits(data[17:19])):
        return False
    i = 19
    if data[i:i + 1] == b".":
        i += 1
        start = i
        while i < n and _digits(data[i:i + 1]):
            i += 1
        if i == start:
            return False
    if data[i:i + 1] in (b"Z", b"z"):
        i += 1
    elif data[i:i + 1] in (b"+", b"-"):
        if n - i < 6 or not (_digits(data[i + 1:i + 3]) and data[i + 3:i + 4] == b":" and _digits(data[i + 4:i + 6])):
            return False
        if data[17:19] == b"60" and data[11:16] != b"23:59":  # the planted bug
            return False
        i += 6
    else:
        return False
    return i == n


# -- regular expressions equivalent to the grammars ---------------------------------------------

UTF8 = (rb"(?:[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
        rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
        rb"|\xf4[\x80-\x8f][\x80-\xbf]{2})*")

DATETIME = rb"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"


def _uri_reference() -> bytes:
    """RFC 3986's URI-reference, rule by rule (quoted letters match either case, as in ABNF)."""
    unreserved, pct, sub = r"[A-Za-z0-9._~-]", r"%[0-9A-Fa-f]{2}", r"[!$&'()*+,;=]"
    pchar = rf"(?:{unreserved}|{pct}|{sub}|[:@])"
    h16 = r"[0-9A-Fa-f]{1,4}"
    octet = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])"
    ipv4 = rf"{octet}\.{octet}\.{octet}\.{octet}"
    ls32 = rf"(?:{h16}:{h16}|{ipv4})"
    tails = [rf"(?:{h16}:){{4}}{ls32}", rf"(?:{h16}:){{3}}{ls32}", rf"(?:{h16}:){{2}}{ls32}", rf"{h16}:{ls32}",
             ls32, h16, ""]
    ipv6 = [rf"(?:{h16}:){{6}}{ls32}", rf"::(?:{h16}:){{5}}{ls32}", rf"(?:{h16})?::{tails[0]}"]
    ipv6 += [rf"(?:(?:{h16}:){{0,{k}}}{h16})?::{tails[k]}" for k in range(1, 7)]
    future = rf"[vV][0-9A-Fa-f]+\.(?:{unreserved}|{sub}|:)+"
    host = rf"(?:\[(?:{'|'.join(ipv6)}|{future})\]|{ipv4}|(?:{unreserved}|{pct}|{sub})*)"
    authority = rf"(?:(?:{unreserved}|{pct}|{sub}|:)*@)?{host}(?::[0-9]*)?"
    segments = rf"(?:/{pchar}*)*"
    absolute = rf"/(?:{pchar}+{segments})?"
    tail = rf"(?:\?(?:{pchar}|[/?])*)?(?:#(?:{pchar}|[/?])*)?"
    uri = rf"[A-Za-z][A-Za-z0-9+.-]*:(?://{authority}{segments}|{absolute}|{pchar}+{segments}|){tail}"
    nc = rf"(?:{unreserved}|{pct}|{sub}|@)+"
    relative = rf"(?://{authority}{segments}|{absolute}|{nc}{segments}|){tail}"
    return rf"(?:{uri}|{relative})".encode("ascii")


@dataclass(frozen=True)
class Target:
    name: str
    grammar: str
    buggy: Callable[[bytes], bool]  # set by load_targets for uri, whose check is a validator
    regex: bytes
    text_baseline: bool  # st.text() (encoded) rather than st.binary()


def _uri_zone(data: bytes) -> bool:
    return _ZONE_VALIDATOR[0](data)


_ZONE_VALIDATOR: list[Callable[[bytes], bool]] = []

TARGETS = (
    Target("utf8", "grammars/utf8.abnf", utf8_overlong, UTF8, False),
    Target("uri", "grammars/uri.abnf", _uri_zone, _uri_reference(), True),
    Target("datetime", "grammars/datetime.abnf", datetime_leap, DATETIME, True),
)
REGEXES = {target.name: target.regex for target in TARGETS}


def oracle(target: Target) -> Callable[[bytes], bool]:
    """The grammar's generated Python validator."""
    if target.name == "uri" and not _ZONE_VALIDATOR:
        _ZONE_VALIDATOR.append(abnfc.load_validator(str(ROOT / "grammars/variants/uri-zone-id.abnf")).is_valid)
    return abnfc.load_validator(str(ROOT / target.grammar)).is_valid


def disagrees(target: Target, valid: Callable[[bytes], bool], data: bytes) -> bool:
    return target.buggy(data) != valid(data)


# -- the regular expressions, checked against the grammar ---------------------------------------

def check_regexes(target: Target, valid: Callable[[bytes], bool], words: int = 2000) -> list[bytes]:
    """The inputs on which the target's regular expression and the grammar disagree, among
    ``words`` uniform valid words of the sampler, the grammar's transition vectors and a near
    miss of each word (empty: they agree on all of them)."""
    import re

    from abnfc.crosscheck.suite import Unexplained, transition_vectors

    pattern = re.compile(target.regex)
    dfa = Compilation(load(str(ROOT / target.grammar))).minimal
    sampler = Sampler(dfa, MAX_SIZE)
    rng = random.Random(0)
    inputs = [v.data for v in transition_vectors(dfa, Unexplained(), dfa.matches)]
    for _ in range(words):
        word = sampler.valid(rng)
        inputs.append(word)
        near = sampler.near_miss(word, rng.randrange(len(word) + 1), rng.randrange(256))
        if near is not None:
            inputs.append(near)
    return [data for data in inputs if (pattern.fullmatch(data) is not None) != valid(data)]


# -- the runs -----------------------------------------------------------------------------------

def contender(target: Target, name: str):
    """The Hypothesis strategy called ``name`` for ``target``."""
    from hypothesis import strategies as st

    grammar = str(ROOT / target.grammar)
    if name == "abnfc valid=None":
        return abnfc_strategy(grammar, valid=None, max_size=MAX_SIZE)
    if name == "abnfc valid=True":
        return abnfc_strategy(grammar, valid=True, max_size=MAX_SIZE)
    if name == "st.from_regex":
        return st.from_regex(target.regex, fullmatch=True)
    if target.text_baseline:
        return st.text(max_size=MAX_SIZE).map(lambda text: text.encode("utf-8", "surrogatepass"))
    return st.binary(max_size=MAX_SIZE)


@dataclass(frozen=True)
class Run:
    found: bytes | None  # the first input that exposes the bug
    examples: int  # examples run up to and including it (all of them when not found)
    seconds: float


class _Found(Exception):
    pass


class _CapReached(Exception):
    pass


def run(target: Target, valid: Callable[[bytes], bool], drawn, seed: int, cap_examples: int,
        cap_seconds: float) -> Run:
    """One seed's search: a generate-only ``@given`` test that stops at the first disagreement."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    state: dict = {"examples": 0, "found": None, "seconds": 0.0}
    started = time.perf_counter()

    @hypothesis_seed(seed)
    @settings(max_examples=cap_examples, derandomize=False, database=None, phases=[Phase.generate],
              report_multiple_bugs=False, deadline=None, suppress_health_check=list(HealthCheck))
    @given(drawn)
    def search(data: bytes) -> None:
        if state["found"] is not None:
            raise _Found  # Hypothesis runs the failing example once more
        elapsed = time.perf_counter() - started
        if elapsed > cap_seconds:
            raise _CapReached
        state["examples"] += 1
        if disagrees(target, valid, data):
            state["found"], state["seconds"] = data, elapsed
            raise _Found

    random.seed(seed)
    try:
        search()
    except (_Found, _CapReached):
        pass
    seconds = state["seconds"] if state["found"] is not None else time.perf_counter() - started
    return Run(state["found"], state["examples"], seconds)


@dataclass(frozen=True)
class Row:
    target: str
    contender: str
    setup: float  # seconds to build the strategy (and draw its first example)
    runs: tuple[Run, ...]


def measure(target: Target, name: str, seeds: tuple[int, ...], cap_examples: int, cap_seconds: float) -> Row:
    valid = oracle(target)
    started = time.perf_counter()
    drawn = contender(target, name)
    drawn.validate()  # strategies are lazy: this builds them (abnfc's reads the grammar)
    setup = time.perf_counter() - started
    return Row(target.name, name, setup, tuple(run(target, valid, drawn, seed, cap_examples, cap_seconds)
                                               for seed in seeds))


def table(rows: list[Row]) -> str:
    lines = ["| target | contender | found | median examples to it | median seconds to it | examples run "
             "(median) | setup s |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        hits = [r for r in row.runs if r.found is not None]
        examples = f"{statistics.median(r.examples for r in hits):,.0f}" if hits else "-"
        seconds = f"{statistics.median(r.seconds for r in hits):.2f}" if hits else "-"
        run = statistics.median(r.examples for r in row.runs)
        lines.append(f"| {row.target} | {row.contender} | {len(hits)}/{len(row.runs)} | {examples} | {seconds} "
                     f"| {run:,.0f} | {row.setup:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", metavar="|".join(t.name for t in TARGETS))
    parser.add_argument("--smoke", action="store_true", help="one seed, 1,000 examples, 3 seconds")
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--cap-examples", type=int, default=CAP_EXAMPLES)
    parser.add_argument("--cap-seconds", type=float, default=CAP_SECONDS)
    parser.add_argument("--contenders", nargs="+", choices=CONTENDERS, default=CONTENDERS, metavar="NAME",
                        help="the contenders to run (default: all), among: " + ", ".join(map(repr, CONTENDERS)))
    args = parser.parse_args(argv)
    seeds = tuple(range(1, args.seeds + 1))
    cap_examples, cap_seconds = args.cap_examples, args.cap_seconds
    if args.smoke:
        seeds, cap_examples, cap_seconds = (1,), 1000, 3.0
    rows = []
    for target in (t for t in TARGETS if not args.targets or t.name in args.targets):
        wrong = check_regexes(target, oracle(target), 200 if args.smoke else 2000)
        print(f"{target.name}: the regular expression and the grammar disagree on {len(wrong)} of the inputs "
              f"checked{': ' + repr(wrong[:3]) if wrong else ''}", flush=True)
        for name in args.contenders:
            rows.append(measure(target, name, seeds, cap_examples, cap_seconds))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    print(f"\n{len(seeds)} seeds; a run stops at the first disagreement, {cap_examples:,} examples or "
          f"{cap_seconds:g} s\n")
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
