"""The C backend's pushdown validators (recursive grammars): the generated C compiled with strict
warnings and with sanitizers, driven by a harness that checks every entry point against
``<prefix>_validate`` and prints what the tests compare with the reference loop
(:meth:`abnfc.automata.pushdown.Pushdown.run`).

tests/test_pushdown.py compares every backend's loaded validator with the reference and the
interpreter; this file tests what is C's own: the stack growing on the heap, a failed allocation
reported as its own status, the depth variants, the stream freed and started again, and no
undefined behaviour or read out of bounds under ``-fsanitize=address,undefined``.
"""
from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from helpers.c_build import CLANG, GCC, GXX, SANITIZE, STRICT, needs_gcc, tool, write_records
from helpers.paths import ROOT

from abnfc.api import load_validator
from abnfc.automata.pushdown import NestingError, Pushdown
from abnfc.backends.c.runner import CPushdownValidator
from abnfc.errors import AbnfError
from abnfc.frontend.source import from_text, load
from abnfc.pipeline import Compilation, load_validators

pytestmark = needs_gcc

JSON = ROOT / "grammars" / "json.abnf"
EMAIL = ROOT / "grammars" / "email.abnf"
SUITE = ROOT / "tests" / "data" / "jsontestsuite"
SIZE_MAX = (1 << 64) - 1
STATUS = {"0": "valid", "1": "invalid", "2": "too deep", "3": "no memory"}

# Drives a generated pushdown validator over records (a 4-byte little-endian length, then the
# bytes), each copied to a buffer of exactly its size, so a sanitizer build sees any read past
# the end.  Prints per record "status at state depth | status-at-K at-K": the one-shot answer with
# the default limit (and the stream's state and depth fed a byte at a time), then with the limit
# K from the command line.  On the way it checks that every other entry point agrees: is_valid,
# first_error and their _depth variants, the stream fed whole and a byte at a time (feed's result
# at each step), stream_complete and stream_finish, stream_free starting the stream again, and
# stream_expected within MAX_RANGES.  With -DFAILING_REALLOC (and the generated source compiled
# with -Drealloc=failing_realloc) no allocation succeeds.
HARNESS = r"""
#include HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)
#define MACRO(name) CAT(MPFX, name)

#ifdef FAILING_REALLOC
void *failing_realloc(void *p, size_t n);
void *failing_realloc(void *p, size_t n) { (void)p; (void)n; return NULL; }
#endif

static int failures;
static unsigned long record_no;

static void check(int ok, const char *what, size_t got, size_t want)
{
    if (!ok && failures++ < 50)
        fprintf(stderr, "FAIL record %lu: %s: got %zu, want %zu\n", record_no, what, got, want);
}

/* Feed the stream a byte at a time; returns its status and offset, and checks feed's results. */
static API(_status) bytewise(API(_stream) *s, const unsigned char *data, size_t len, size_t *at)
{
    size_t i;
    int going = 1;
    for (i = 0; i < len; i++) {
        int fed = API(_stream_feed)(s, data + i, 1);
        check(!fed || going, "feed true after false", (size_t)fed, (size_t)going);
        going = fed;
    }
    return API(_stream_result)(s, at);
}

static void run(const unsigned char *data, size_t len, size_t limit)
{
    size_t at, at_k, got, expect_at;
    API(_status) status = API(_validate)(data, len, MACRO(_MAX_DEPTH), &at);
    API(_status) status_k = API(_validate)(data, len, limit, &at_k);
    API(_stream) s;
    API(_range) ranges[MACRO(_MAX_RANGES)];
    size_t count, k;

    expect_at = status == MACRO(_VALID) ? SIZE_MAX : at;
    check(at == expect_at, "validate's offset", at, expect_at);
    check(API(_is_valid)(data, len) == (status == MACRO(_VALID)), "is_valid", 0, 0);
    check(API(_first_error)(data, len) == at, "first_error", API(_first_error)(data, len), at);
    check(API(_is_valid_depth)(data, len, limit) == (status_k == MACRO(_VALID)), "is_valid_depth", 0, 0);
    got = API(_first_error_depth)(data, len, limit);
    check(got == at_k, "first_error_depth", got, at_k);
    check(API(_validate)(data, len, limit, NULL) == status_k, "validate with NULL", 0, 0);

    API(_stream_init)(&s);
    API(_stream_feed)(&s, data, len);
    check(API(_stream_result)(&s, &got) == status && got == at, "stream fed whole", got, at);
    check(API(_stream_finish)(&s) == at, "stream_finish", API(_stream_finish)(&s), at);
    check(API(_stream_complete)(&s) == (status == MACRO(_VALID)), "stream_complete", 0, 0);
    check(API(_stream_offset)(&s) == len, "stream_offset", API(_stream_offset)(&s), len);
    API(_stream_free)(&s); /* starts it again: the same input gives the same answer */
    check(API(_stream_offset)(&s) == 0 && API(_stream_depth)(&s) == 0, "stream_free resets", 0, 0);
    check(bytewise(&s, data, len, &got) == status && got == at, "stream a byte at a time", got, at);
    check(API(_stream_state)(&s) < MACRO(_NUM_STATES), "stream_state", API(_stream_state)(&s), 0);
    count = API(_stream_expected)(&s, ranges, MACRO(_MAX_RANGES));
    check(count <= MACRO(_MAX_RANGES), "stream_expected count", count, MACRO(_MAX_RANGES));
    for (k = 1; k < count; k++)
        check(ranges[k - 1].hi < ranges[k].lo, "expected ranges sorted", ranges[k - 1].hi, ranges[k].lo);
    printf("%d %zu %u %zu | ", (int)status, at, (unsigned)API(_stream_state)(&s), API(_stream_depth)(&s));
    API(_stream_free)(&s);
    API(_stream_free)(&s); /* twice is harmless */

    API(_stream_init_depth)(&s, limit);
    check(bytewise(&s, data, len, &got) == status_k && got == at_k, "depth stream a byte at a time", got, at_k);
    API(_stream_free)(&s);
    printf("%d %zu\n", (int)status_k, at_k);
}

int main(int argc, char **argv)
{
    FILE *f;
    unsigned char head[4];
    size_t limit;
    if (argc != 3 || (f = fopen(argv[1], "rb")) == NULL)
        return 2;
    limit = (size_t)strtoull(argv[2], NULL, 10);
    check(API(_first_error)(NULL, 0) != SIZE_MAX || API(_is_valid)(NULL, 0), "NULL input", 0, 0);
    while (fread(head, 1, 4, f) == 4) {
        size_t len = (size_t)head[0] | (size_t)head[1] << 8 | (size_t)head[2] << 16 | (size_t)head[3] << 24;
        unsigned char *data = (unsigned char *)malloc(len ? len : 1);
        if (data == NULL || fread(data, 1, len, f) != len)
            return 2;
        record_no++;
        run(data, len, limit);
        free(data);
    }
    fclose(f);
    return failures ? 1 : 0;
}
"""


def _compilation(path: Path, start: str | None = None) -> Compilation:
    return Compilation(load(str(path)), start)


def _generate(folder: Path, compilation: Compilation, prefix: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in compilation.files(["c"], prefix, "test").items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder / f"{prefix}.c"


def _defines(folder: Path, prefix: str) -> list[str]:
    return [f"-DPFX={prefix}", f"-DMPFX={prefix.upper()}", f'-DHEADER="{prefix}.h"', f"-I{folder}"]


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout}{result.stderr}"


def _harness(folder: Path, prefix: str, flags: list[str], failing: bool = False) -> Path:
    """The harness and the generated source, compiled apart (so that -Drealloc reaches the
    generated source only) and linked."""
    harness = folder / "harness.c"
    harness.write_text(HARNESS, encoding="utf-8")
    generated = folder / f"{prefix}.o"
    _run([GCC, *flags, *(["-Drealloc=failing_realloc"] if failing else []), f"-I{folder}", "-c", "-o",
          str(generated), str(folder / f"{prefix}.c")])
    binary = folder / ("harness_failing" if failing else "harness")
    _run([GCC, *flags, *(["-DFAILING_REALLOC"] if failing else []), *_defines(folder, prefix), "-o", str(binary),
          str(harness), str(generated)])
    return binary


def _answers(binary: Path, folder: Path, inputs: list[bytes], limit: int) -> list[tuple[tuple, tuple]]:
    records = write_records(folder / "records.bin", inputs)
    result = subprocess.run([str(binary), str(records), str(limit)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    lines = result.stdout.splitlines()
    assert len(lines) == len(inputs)
    answers = []
    for line in lines:
        whole, limited = line.split(" | ")
        status, at, state, depth = whole.split()
        status_k, at_k = limited.split()
        answers.append(((STATUS[status], int(at), int(state), int(depth)), (STATUS[status_k], int(at_k))))
    return answers


def _reference(automaton: Pushdown, data: bytes, limit: int) -> tuple[str, int]:
    """The reference loop's answer as the C status and offset."""
    try:
        error, _state, _stack = automaton.run(data, limit)
    except NestingError as nesting:
        return "too deep", nesting.offset
    return ("valid", SIZE_MAX) if error is None else ("invalid", error)


def _json_inputs() -> list[bytes]:
    cases = [path.read_bytes() for path in sorted(SUITE.glob("*.json"))]
    rng = random.Random(5)
    nested = [bytes(rng.choice(b'[]{}"a:1, ') for _ in range(rng.randrange(1, 40))) for _ in range(300)]
    return [*cases, *nested, b"", b"[" * 70 + b"]" * 70, b"[" * 70 + b"]" * 69, b'{"a":' * 130 + b"1" + b"}" * 130,
            b"[" * 200, b'"' + b"\xe6\x9d\xb1" * 100 + b'"', b"[1]]", b"]"]


@pytest.fixture(scope="module")
def json_compilation() -> Compilation:
    return _compilation(JSON)


@pytest.fixture(scope="module")
def json_sanitized(tmp_path_factory, json_compilation) -> Path:
    folder = tmp_path_factory.mktemp("json_asan")
    _generate(folder, json_compilation, "json_pd")
    return _harness(folder, "json_pd", SANITIZE)


def test_the_generated_c_compiles_without_warnings(tmp_path, json_compilation):
    source = _generate(tmp_path, json_compilation, "json_pd")
    _run([GCC, *STRICT, "-c", "-o", str(tmp_path / "gcc.o"), str(source)])
    if CLANG is not None:
        _run([tool(CLANG), "-std=c99", "-Weverything", "-Wno-padded", "-Wno-unsafe-buffer-usage",
              "-Wno-declaration-after-statement", "-Wno-unknown-warning-option", "-Werror", "-O2", "-c", "-o",
              str(tmp_path / "clang.o"), str(source)])
    if GXX is not None:  # the header from C++, and the source as C++ too
        use = '#include "json_pd.h"\nint main() { return json_pd_is_valid("[]", 2) ? 0 : 1; }\n'
        (tmp_path / "use.cpp").write_text(use, encoding="utf-8")
        _run([tool(GXX), "-std=c++11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", f"-I{tmp_path}", "-c", "-o",
              str(tmp_path / "use.o"), str(tmp_path / "use.cpp")])
        _run([tool(GXX), "-std=c++11", "-Wall", "-Wextra", "-Werror", "-x", "c++", "-c", "-o",
              str(tmp_path / "source.o"), str(source)])


def test_every_entry_point_agrees_with_the_reference_under_sanitizers(tmp_path, json_compilation, json_sanitized):
    """JSONTestSuite and random nestings: the status and offset with the default limit and with
    a limit of 3, and the state and depth the stream reaches fed a byte at a time."""
    automaton = json_compilation.pushdown
    assert isinstance(automaton, Pushdown)
    inputs = _json_inputs()
    answers = _answers(json_sanitized, tmp_path, inputs, 3)
    for data, ((status, at, state, depth), limited) in zip(inputs, answers, strict=True):
        assert (status, at) == _reference(automaton, data, 100_000), data
        assert limited == _reference(automaton, data, 3), data
        if status != "too deep":
            _error, reached, stack = automaton.run(data)
            assert (state, depth) == (reached, len(stack)), data


def test_nesting_past_a_small_limit_is_its_own_status_at_the_byte_that_opens_it(tmp_path, json_sanitized):
    inputs = [b"[[[1]]]", b"[[[[1]]]]", b'{"a":{"b":{"c":[]}}}', b"[[[", b"[[[x"]
    answers = [limited for _, limited in _answers(json_sanitized, tmp_path, inputs, 3)]
    assert answers == [("valid", SIZE_MAX), ("too deep", 3), ("too deep", 15), ("invalid", 3), ("invalid", 3)]
    zero = [limited for _, limited in _answers(json_sanitized, tmp_path, [b"1", b"[]"], 0)]
    assert zero == [("valid", SIZE_MAX), ("too deep", 0)]


def test_the_stack_grows_on_the_heap_to_100000_deep_under_sanitizers(tmp_path):
    """email.abnf's nested comments: 100,000 deep is valid (the stack moves from the struct to
    the heap and doubles eleven times), one more is refused at the byte that opens it."""
    folder = tmp_path / "email"
    _generate(folder, _compilation(EMAIL, "comment"), "comment_pd")
    binary = _harness(folder, "comment_pd", SANITIZE)
    inputs = [b"(" * 100_000 + b")" * 100_000, b"(" * 100_001 + b")" * 100_001, b"(" * 100_000 + b")" * 99_999]
    answers = _answers(binary, folder, inputs, 1000)
    assert answers == [(("valid", SIZE_MAX, answers[0][0][2], 0), ("too deep", 1000)),
                       (("too deep", 100_000, answers[1][0][2], 100_000), ("too deep", 1000)),
                       (("invalid", 199_999, answers[2][0][2], 1), ("too deep", 1000))]


def test_the_stack_grows_past_the_struct(tmp_path):
    """Nesting past the 64 entries inside the stream, without sanitizers to keep it quick."""
    validator = load_validator(str(EMAIL), "c", start="comment")
    assert validator.is_valid(b"(" * 100_000 + b")" * 100_000)
    assert validator.first_error(b"(" * 5000 + b")" * 4999) == 9999
    stream = validator.Validator()
    assert stream.feed(b"(" * 1000)
    assert stream.depth == 1000
    assert stream.feed(b")" * 1000) and stream.complete and stream.depth == 0


def test_a_failed_allocation_is_its_own_status_not_a_crash(tmp_path, json_compilation):
    folder = tmp_path / "failing"
    _generate(folder, json_compilation, "json_pd")
    binary = _harness(folder, "json_pd", SANITIZE, failing=True)
    inputs = [b"[" * 64 + b"]" * 64, b"[" * 65 + b"]" * 65, b'{"a":' * 65]
    answers = _answers(binary, folder, inputs, 100)
    assert [whole[:2] for whole, _ in answers] == [("valid", SIZE_MAX), ("no memory", 64), ("no memory", 320)]
    assert [limited for _, limited in answers] == [("valid", SIZE_MAX), ("no memory", 64), ("no memory", 320)]


def _loaded(path: Path, start: str | None = None) -> CPushdownValidator:
    validator = load_validator(str(path), "c", start=start)
    assert isinstance(validator, CPushdownValidator)
    return validator


def test_the_runner_answers_as_the_python_module(json_compilation):
    validator = _loaded(JSON)
    assert validator.first_error(b'[1, {"a": [true]}]') is None
    with pytest.raises(ValueError, match="nests deeper than 3 at byte offset 3") as raised:
        validator.first_error(b"[[[[1]]]]", max_depth=3)
    assert isinstance(raised.value, NestingError) and raised.value.offset == 3
    assert validator.is_valid(b"[[[1]]]", max_depth=3)
    assert validator.first_error(b"[" * 200_000 + b"]" * 200_000, max_depth=float("inf")) is None
    stream = validator.Validator(max_depth=2)
    assert stream.feed(b"[[")
    with pytest.raises(NestingError, match="nests deeper than 2 at byte offset 2"):
        stream.feed(b"[")
    with pytest.raises(NestingError):  # and again: there is no verdict
        stream.feed(b"]")


def test_streaming_a_byte_at_a_time_gives_the_whole_input_verdict(json_compilation):
    validator = load_validator(str(JSON), "c")
    python = load_validator(str(JSON), "python")
    rng = random.Random(11)
    inputs = [bytes(rng.choice(b'[]{}"a:1, \\u') for _ in range(rng.randrange(0, 30))) for _ in range(300)]
    for data in [*inputs, b' [1, {"a": [true, {"b": null}], "c": "\\u00e9"}, -0.5e3 ] ']:
        stream = validator.Validator()
        for byte in data:
            stream.feed(bytes([byte]))
        whole = validator.first_error(data)
        assert whole == python.first_error(data), data
        assert (stream.first_error(), stream.complete, stream.offset) == (whole, whole is None, len(data)), data
        reference = python.Validator()
        reference.feed(data)
        assert (stream.state, stream.depth, stream.expected()) == (reference.state, reference.depth,
                                                                   reference.expected()), data


def test_a_strategy_of_the_dfa_backend_is_refused_for_a_recursive_grammar():
    with pytest.raises(AbnfError, match="pushdown validator, with one strategy"):
        load_validator(str(JSON), "c", options={"strategy": "shift"})
    assert load_validator(str(JSON), "c", options={"strategy": "table"}).is_valid(b"[]")


def test_more_than_255_states_take_16_bit_tables(tmp_path):
    """Sixty keywords inside nested parentheses: 290 states, so the table and the stack hold
    uint16_t; strict warnings still hold, and the answers are the Python module's."""
    rng = random.Random(3)
    words = sorted({"".join(rng.choice("abcdefghij") for _ in range(8)) for _ in range(60)})
    text = 's = "(" *( s / kw / " " ) ")"\nkw = ' + " / ".join(f'"{w}"' for w in words) + "\n"
    compilation = Compilation(from_text(text), None)
    source = _generate(tmp_path, compilation, "kw_pd")
    assert "static const uint16_t kw_pd_next[256 * " in source.read_text(encoding="utf-8")
    _run([GCC, *STRICT, "-c", "-o", str(tmp_path / "kw.o"), str(source)])
    c, python = load_validator(from_text(text), "c"), load_validator(from_text(text), "python")
    inputs = [b"(" + w.encode() + b" (" + words[1].encode() + b"))" for w in words]
    inputs += [b"(abc)", b"((" + words[0].encode()[:5], b"(" * 70 + b")" * 70, b"(" * 70 + words[2].encode()]
    assert [c.first_error(d) for d in inputs] == [python.first_error(d) for d in inputs]


def test_an_empty_language_compiles_without_warnings_and_rejects_everything(tmp_path):
    """A recursion with no way out leaves only the dead state (a fuzzing finding): no test of the
    step loop may compare an unsigned value with >= 0."""
    compilation = Compilation(from_text('x0 = x0 [ %x28 x0 %x29 ]\n'))
    source = _generate(tmp_path, compilation, "empty_pd")
    _run([GCC, *STRICT, "-Wtype-limits", "-c", "-o", str(tmp_path / "empty.o"), str(source)])
    [validator] = load_validators([compilation.files(["c"], "empty_pd", "test")], "c")
    assert [validator.first_error(data) for data in (b"", b"(", b"()")] == [0, 0, 0]
