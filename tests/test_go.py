"""The Go backend: generated packages built with the go tool and checked against the generated
Python module.

UTF-8 (grammars/utf8.abnf) in every strategy: every string of up to 3 bytes (a Go program of
the test's own runs each through IsValid, FirstError and a Validator written one byte at a time,
and the Python module gives the answers), long inputs across block boundaries fed whole and in
1-byte pieces, the expected ranges of every state, Write's typed error.  Generated code is
gofmt- and go vet-clean; prefixes Go cannot take are refused.  Without the go tool the tests that
need it skip, saying so.
"""
from __future__ import annotations

import itertools
import math
import random
import re
import subprocess

import pytest
from conftest import compile_text, python_module
from helpers.go_build import GOFMT, build_program, go, go_files, go_package, need_go, write_module
from helpers.paths import GRAMMARS, UTF8_GRAMMAR

import abnfc
from abnfc import backends
from abnfc.backends.analysis import STRATEGIES
from abnfc.backends.naming import prefix_problem
from abnfc.errors import AbnfError
from abnfc.pipeline import load_validators

UTF8_TEXT = UTF8_GRAMMAR.read_text(encoding="utf-8")
URI_TEXT = (GRAMMARS / "uri.abnf").read_text(encoding="utf-8")
JSON_TEXT = (GRAMMARS / "json.abnf").read_text(encoding="utf-8")
EMAIL_TEXT = (GRAMMARS / "email.abnf").read_text(encoding="utf-8")
# A grammar per corner of the plan: a finite language (the plain loop), a start state that is
# dead, a large automaton that skips ASCII blocks (table strategy), comment text Go must take.
FINITE = 'r = 3DIGIT "-" 2ALPHA\n'
DEAD_START = 'r = "a" r\n'  # no way out of the recursion: the empty language
ASCII_TABLE = 'r = *( %x00-7F / %x80-FF 30( %x80-BF ) )\n'
ODD_COMMENTS = '; */ /* ?? \\ `back` "quote"\t tab\nr = "*/" / %x00-7F ; trailing  \n'
NOWHERE = 'r = "0" r / "(" r ")"\n'  # recursive, and no way out: a pushdown validator starting dead
# "a" keeps each loop in itself: segments starting in a run of them start from a guess, wrong in
# one of the halves, where the first run dies on "b" or "c" though the input may be valid
TWO_LOOPS = 'r = *( "a" / "b" ) "." *( "a" / "c" )\n'
STRATEGY_NAMES = [s for s in STRATEGIES if s != "auto"]


def _utf8(strategy: str) -> str:
    return go_files(UTF8_TEXT, f"utf8{strategy}", {"strategy": strategy})


# --- without the go tool -------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["func", "type", "string", "len", "any", "main", "init", "utf8_test", "g_linux",
                                    "x_amd64", "x_windows_arm64"])
def test_prefixes_go_cannot_take_are_refused(prefix):
    assert prefix_problem(prefix, ["go"]) is not None


def test_a_default_prefix_go_cannot_take_is_refused_before_writing(tmp_path):
    grammar = tmp_path / "uri_test.abnf"  # the default prefix, g_uri_test, still names a test file
    grammar.write_text(FINITE)
    with pytest.raises(AbnfError, match=r"cannot be named 'g_uri_test': g_uri_test\.go would be a test file"):
        abnfc.generate_files(grammar, "go")


@pytest.mark.parametrize("prefix", ["utf8", "uri", "Func", "testing", "linux", "x_linuxy"])
def test_prefixes_go_can_take(prefix):
    assert prefix_problem(prefix, ["go"]) is None


def test_without_go_the_runner_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr("abnfc.backends.go.runner.shutil.which", lambda name: None)
    with pytest.raises(AbnfError, match="apt-get install golang-go"):
        load_validators([{"g.go": go_files(FINITE, "g")}], "go")


def test_the_file_is_a_generated_package_with_no_imports():
    text = _utf8("pairs")
    assert re.search(r"(?m)^// Code generated .* DO NOT EDIT\.$", text)  # what Go tools look for
    assert "\npackage utf8pairs\n" in text and "\nimport" not in text
    assert "UTF8-octets = *( UTF8-char )" in text  # the grammar, and the states' notes
    assert "; dead" in text and "func (v *Validator) Write(p []byte) (int, error)" in text


def test_strategies_follow_the_automaton():
    plans = {name: backends.get("go").lower(compile_tables(text), {"prefix": "g", "strategy": "auto"})
             for name, text in [("utf8", UTF8_TEXT), ("uri", URI_TEXT), ("finite", FINITE), ("ascii", ASCII_TABLE)]}
    assert plans["utf8"].strategy == "pairs" and plans["utf8"].skip_states == (1,)
    assert plans["uri"].strategy == "table" and not plans["uri"].plain
    assert plans["finite"].plain and plans["finite"].skip_test == ""
    assert plans["ascii"].strategy == "table" and plans["ascii"].skip_test


def compile_tables(text: str):
    compiled = compile_text(text)
    header = backends.Header("g.abnf", text, "0" * 64, compiled.resolved.start_name, "abnfc compile g.abnf")
    return backends.make_tables(compiled.minimal, header)


# --- with the go tool ----------------------------------------------------------------------------

def test_generated_code_is_gofmt_and_vet_clean(tmp_path):
    need_go()
    packages: dict = {f"utf8{s}": go_package(UTF8_TEXT, f"utf8{s}", {"strategy": s}) for s in STRATEGY_NAMES}
    packages.update(uri=go_files(URI_TEXT, "uri"), finite=go_files(FINITE, "finite"),
                    dead=go_files(DEAD_START, "dead"), ascii=go_files(ASCII_TABLE, "ascii"),
                    odd=go_files(ODD_COMMENTS, "odd"), json=go_files(JSON_TEXT, "json"),
                    comment=go_files(EMAIL_TEXT, "comment", start="comment"))
    module = write_module(tmp_path, packages)
    assert GOFMT is not None, "gofmt comes with go"
    listed = subprocess.run([GOFMT, "-l", "."], cwd=module, capture_output=True, text=True)
    assert listed.returncode == 0 and listed.stdout == "", listed.stdout + listed.stderr
    go(module, "vet", "./...")
    for goarch in ("386", "arm64", "s390x"):  # 32-bit, and big-endian: the packages import nothing, so
        go(module, "build", "./...", goarch=goarch)  # compiling them needs no runtime for the target
        go(module, "vet", "./...", goarch=goarch)
    go(module, "vet", "-tags", "purego", "./...")  # the window test's assembly left out


@pytest.fixture(scope="module")
def loaded():
    """utf8 in every strategy, the corner grammars and a pushdown validator, built in one go."""
    need_go()
    texts = {**{f"utf8{s}": (UTF8_TEXT, s, None) for s in STRATEGY_NAMES}, "dead": (DEAD_START, "auto", None),
             "finite": (FINITE, "auto", None), "ascii": (ASCII_TABLE, "auto", None),
             "comment": (EMAIL_TEXT, "auto", "comment"), "nowhere": (NOWHERE, "auto", None),
             "uri": (URI_TEXT, "auto", None), "loops": (TWO_LOOPS, "table", None)}
    files = [go_package(text, name, {"strategy": strategy}, start) for name, (text, strategy, start) in texts.items()]
    return dict(zip(texts, load_validators(files, "go"), strict=True))


def _long_inputs(rng: random.Random) -> list[bytes]:
    """Inputs that cross blocks: valid text, then spoiled at every distance from a block's edge."""
    text = ("grüße, 世界 😀 " * 40 + "x" * 200).encode()
    inputs = [text, text[:-1] + b"\xe4", b"a" * 64 + b"\xff", b"a" * 128, text * 3]
    for at in (0, 1, 62, 63, 64, 65, 127, 128, 200, len(text) - 1):
        inputs.append(text[:at] + b"\xc0" + text[at:])
        inputs.append(text[:at] + b"\xe4\xbd" + text[at:])
    inputs += [bytes(rng.randrange(256) for _ in range(rng.randrange(300))) for _ in range(40)]
    inputs += [bytes(rng.randrange(128) for _ in range(rng.randrange(64, 300))) + b"\xf0\x9f" for _ in range(10)]
    return inputs


def test_utf8_long_inputs_whole_and_in_one_byte_pieces(loaded):
    module = python_module(UTF8_TEXT)
    inputs = _long_inputs(random.Random(7))
    want = [module.first_error(data) for data in inputs]
    for strategy in STRATEGY_NAMES:
        validator = loaded[f"utf8{strategy}"]
        assert backends.first_errors(validator, inputs) == want, strategy
        for data, expected in list(zip(inputs, want, strict=True))[:12]:
            assert validator.is_valid(data) == (expected is None)
            stream = validator.Validator()
            for byte in data:
                stream.feed(bytes([byte]))
            assert (stream.first_error(), stream.offset, stream.complete) == (expected, len(data), expected is None)


def _segmented_inputs(rng: random.Random) -> list[bytes]:
    """URI references of 16 to 40 KiB (4 segments of 4 KiB at least), long in their path, query
    or fragment, whose segment boundaries find no synchronizing byte or a wrong one, whole and
    spoiled (a space or a stray bracket) anywhere, the first segment included."""
    inputs = []
    for n in range(24):
        size = rng.randrange(16 << 10, 40 << 10)
        body = bytes(rng.choice(b"abc-._~!$&'()*+,;=:@/%") if n % 3 else rng.choice(b"xyz") for _ in range(size))
        body = body.replace(b"%", b"%41")
        data = [b"http://example.com/" + body, b"/p?" + body, b"//h/p#" + body, b"a:" + body + b"?q#f"][n % 4]
        if n % 2:
            at = rng.randrange(len(data))
            data = data[:at] + rng.choice([b" ", b"]", b"%G"]) + data[at:]
        inputs.append(data)
    return inputs


def test_long_inputs_run_in_segments_or_runs_as_in_one_piece(loaded):
    """The table loop runs inputs of 16 KiB or more in 4 segments side by side: two loops whose
    common byte synchronizes neither (a guess, wrong in one half, where the first run dies) and
    UTF-8 (lead bytes synchronize); URI references have accelerated states instead (runs of path,
    query and fragment characters, stopped by escapes and spoiled anywhere); against the Python
    module."""
    rng = random.Random(11)
    loops = [b"a" * 40 + b"b"] * 500 + [b"."] + [b"a" * 40 + b"c"] * 500
    for name, text, inputs in [("loops", TWO_LOOPS, [b"".join(loops[n:]) for n in range(0, 400, 7)]
                                + [b"".join(loops[n:]).replace(b".", b"c", 1) for n in range(0, 400, 7)]),
                               ("uri", URI_TEXT, _segmented_inputs(rng)),
                               ("utf8table", UTF8_TEXT, [data * 40 for data in _long_inputs(rng)[:30]])]:
        module = python_module(text)
        assert backends.first_errors(loaded[name], inputs) == [module.first_error(data) for data in inputs], name


def test_expected_ranges_are_the_python_modules(loaded):
    module = python_module(UTF8_TEXT)
    validator = loaded["utf8table"]
    for state in range(len(module.TRANSITIONS)):
        assert validator.expected_bytes(state) == module.expected_bytes(state), state
    assert validator.expected_bytes(-1) == validator.expected_bytes(len(module.TRANSITIONS)) == []
    for data in [b"", b"\xe4", b"\xe4\xbd", b"\xf0\x9f\x98", b"ab\xff"]:
        stream, reference = validator.Validator(), module.Validator()
        stream.feed(data)
        reference.feed(data)
        assert (stream.expected(), stream.state) == (reference.expected(), reference.state), data


def test_write_returns_a_typed_error_with_the_offset(loaded):
    stream = loaded["utf8pairs"].Validator()
    assert stream.write(b"abc")["kind"] == ""
    failed = stream.write(b"de\xffgh")
    assert (failed["n"], failed["kind"], failed["offset"]) == (2, "syntax", 5)
    assert failed["text"] == "utf8pairs: no match can continue at byte offset 5"
    again = stream.write(b"ij")  # nothing more is consumed, and the error stays
    assert (again["n"], again["kind"], again["offset"]) == (0, "syntax", 5)
    assert stream.offset == 10 and stream.first_error() == 5 and not stream.complete


def test_corner_grammars(loaded):
    dead = loaded["dead"]
    assert [dead.first_error(d) for d in [b"", b"a", b"\x00" * 100]] == [0, 0, 0]
    assert dead.Validator().first_error() == 0
    finite = loaded["finite"]
    assert [finite.first_error(d) for d in [b"123-ab", b"123-a", b"12x", b"123-abc"]] == [None, 5, 2, 6]
    ascii_table = loaded["ascii"]
    block = b"\x80" + b"\xbf" * 30
    assert ascii_table.first_error(b"a" * 200 + block + b"a" * 70) is None
    assert ascii_table.first_error(b"a" * 200 + block[:-1] + b"a" * 70) == 230


def test_a_pushdown_validator_has_a_depth_limit_and_a_typed_nesting_error(loaded):
    comment = loaded["comment"]
    assert comment.first_error(b"((x)(y))") is None and comment.first_error(b"((x)") == 4
    with pytest.raises(comment.NestingError, match="nests deeper than 3 at byte offset 3") as raised:
        comment.first_error(b"((((x))))", max_depth=3)
    assert raised.value.offset == 3 and raised.value.limit == 3
    assert comment.is_valid(b"(" * 200 + b")" * 200, max_depth=math.inf)
    stream = comment.Validator(max_depth=2)
    assert stream.write(b"((")["kind"] == "" and stream.depth == 2
    failed = stream.write(b"x(")
    assert (failed["n"], failed["kind"], failed["offset"]) == (1, "nesting", 3)
    with pytest.raises(ValueError, match="nests deeper than 2 at byte offset 3"):  # and again, with no verdict
        stream.feed(b")")
    with pytest.raises(ValueError):
        stream.first_error()
    nowhere = loaded["nowhere"]
    assert [nowhere.first_error(d) for d in (b"", b"(", b"0", b"()")] == [0, 0, 0, 0]
    assert nowhere.Validator().first_error() == 0


# The test's program: every string of up to 3 bytes through every package, each package in a
# goroutine of its own; two bytes out per string: FirstError + 1, and a bit per disagreement of
# the other ways in.  The packages' answers follow each other.
EXHAUSTIVE = """package main

import (
	"os"
{imports}
)

type api struct {{
	firstError func([]byte) int
	isValid    func([]byte) bool
	stream     func(data []byte) (int, int, bool, bool)
}}

var apis = []api{{
{apis}
}}

func answers(a api) []byte {{
	out := make([]byte, 0, 2*(1+256+65536+16777216))
	var buf [3]byte
	check := func(data []byte) {{
		at := a.firstError(data)
		flags := byte(0)
		if a.isValid(data) != (at == -1) {{
			flags |= 1
		}}
		streamed, offset, complete, typed := a.stream(data)
		if streamed != at || offset != len(data) || complete != (at == -1) {{
			flags |= 2
		}}
		if !typed {{
			flags |= 4
		}}
		out = append(out, byte(at+1), flags)
	}}
	check(buf[:0])
	for n := 1; n <= 3; n++ {{
		for code := 0; code < 1<<(8*n); code++ {{
			for k := 0; k < n; k++ {{
				buf[k] = byte(code >> (8 * (n - 1 - k)))
			}}
			check(buf[:n])
		}}
	}}
	return out
}}

func main() {{
	done := make([]chan []byte, len(apis))
	for k, a := range apis {{
		done[k] = make(chan []byte, 1)
		go func(k int, a api) {{ done[k] <- answers(a) }}(k, a)
	}}
	for k := range apis {{
		os.Stdout.Write(<-done[k])
	}}
}}
"""

STREAM = """func(data []byte) (int, int, bool, bool) {{
		var v {p}.Validator // the zero value is ready
		typed := true
		for k := range data {{
			n, err := v.Write(data[k : k+1])
			if bad, ok := err.(*{p}.SyntaxError); err != nil && (!ok || bad.Offset != v.FirstError() || n != 0) {{
				typed = false
			}}
		}}
		return v.FirstError(), v.Offset(), v.Complete(), typed
	}}"""


def _python_answers(module) -> bytes:
    """FirstError + 1 of every string of up to 3 bytes, in the program's order.  A first error
    inside a string's first two bytes is the first error of every string it starts (that is what
    a first error is), so only the strings whose 2-byte start is viable are asked."""
    out = bytearray()
    short = [bytes(s) for n in range(3) for s in itertools.product(range(256), repeat=n)]
    for data in short:
        out.append(_code(module.first_error(data)))
    for first, second in itertools.product(range(256), repeat=2):
        start = bytes((first, second))
        at = module.first_error(start)
        if at is not None and at < 2:
            out += bytes([at + 1]) * 256
        else:
            out += bytes(_code(module.first_error(start + bytes((third,)))) for third in range(256))
    return bytes(out)


def _code(at: int | None) -> int:
    return 0 if at is None else at + 1


@pytest.mark.slow
def test_utf8_every_string_of_up_to_3_bytes(tmp_path):
    need_go()
    packages: dict = {f"utf8{s}": go_package(UTF8_TEXT, f"utf8{s}", {"strategy": s}) for s in STRATEGY_NAMES}
    main = EXHAUSTIVE.format(imports="".join(f'\t"abnfcrun/{p}"\n' for p in packages),
                             apis="".join(f"\t{{{p}.FirstError, {p}.IsValid, {STREAM.format(p=p)}}},\n"
                                          for p in packages))
    program = build_program(write_module(tmp_path, packages, main))
    with subprocess.Popen([str(program)], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as running:
        want = _python_answers(python_module(UTF8_TEXT))  # while the program runs
        output, errors = running.communicate(timeout=300)
    assert running.returncode == 0, errors.decode(errors="replace")
    size = 2 * len(want)
    assert len(output) == size * len(packages)
    for index, strategy in enumerate(STRATEGY_NAMES):
        got = output[size * index:size * (index + 1):2]
        flags = output[size * index + 1:size * (index + 1):2]
        assert flags.count(0) == len(flags), (strategy, _where(flags))
        if got != want:
            at = next(k for k in range(len(want)) if got[k] != want[k])
            raise AssertionError(f"{strategy}: string {at} in order: Go {got[at] - 1}, Python {want[at] - 1}")


def _where(flags: bytes) -> str:
    at = next(k for k, flag in enumerate(flags) if flag)
    return f"string {at} in order has flags {flags[at]:03b} (1 IsValid, 2 stream, 4 Write's error)"
