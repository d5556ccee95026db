"""The two-stage ``is_valid`` of generated C pushdown validators (stage 1 over 64-byte blocks,
stage 2 on the positions it marks) against the byte loop, under -fsanitize=address,undefined.

The harness of tests/test_c_pushdown.py checks on every record that ``is_valid`` (two stages)
says what ``validate`` (the byte loop) says, and prints the byte loop's answers, which are
compared here with the reference loop.  Each stage 1 the processor can run is built: AVX-512BW,
AVX2, SSSE3 and the portable loop (with -D<P>_NO_AVX512, -D<P>_NO_AVX2, -D<P>_NO_SSSE3), each with
-D<P>_TWO_STAGE_MIN=0 so that inputs shorter than a block take the two stages too, the build as it
comes (such inputs on the byte loop), and the byte loop alone (-D<P>_TWO_STAGE=0).  Inputs:
JSONTestSuite, mutated generated documents, strings and escapes straddling 64-byte blocks and
4 KiB chunks, backslash runs of every length up to 70, deep nesting.
"""
from __future__ import annotations

import importlib.util
import random
import resource
import subprocess

import pytest
from helpers.c_build import SANITIZE, needs_gcc
from helpers.cpu import cpu_has
from helpers.paths import ROOT
from test_c_pushdown import SUITE, _answers, _compilation, _generate, _harness, _reference

from abnfc.automata.pushdown import Pushdown
from abnfc.backends.c.pushdown import lower_pushdown
from abnfc.frontend.source import from_text
from abnfc.pipeline import Compilation

pytestmark = needs_gcc


def _bench_json():
    """bench/bench_json.py, whose document generator the benchmarks use too."""
    spec = importlib.util.spec_from_file_location("bench_json", ROOT / "bench" / "bench_json.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

JSON = ROOT / "grammars" / "json.abnf"
SEXPR = ROOT / "grammars" / "sexpr.abnf"
# TWO_STAGE_MIN=0: every input takes the two stages, the shortest too (by default those take the byte loop).
VARIANTS = {"bigrams": ["TWO_STAGE_MIN=0", "BIGRAMS_MIN=1"], "avx512": ["NO_BIGRAMS", "TWO_STAGE_MIN=0"],
            "avx2": ["NO_AVX512", "TWO_STAGE_MIN=0"],
            "ssse3": ["NO_AVX512", "NO_AVX2", "TWO_STAGE_MIN=0"],
            "portable": ["NO_AVX512", "NO_AVX2", "NO_SSSE3", "TWO_STAGE_MIN=0"], "as built": [],
            "byte loop": ["TWO_STAGE=0"]}


def _skip_without_bigrams(variant: str) -> None:
    if variant == "bigrams" and not cpu_has("avx512_vbmi2", "bmi2"):
        pytest.skip("the token bigrams need AVX-512 VBMI2: this processor would take the two stages")


def _mutations(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    found = []
    for _ in range(count):
        at = rng.randrange(len(data))
        edit = rng.randrange(3)
        piece = bytes([rng.choice(b'"\\{}[]:,0 \x01\x80\xe6tn')])
        found.append(data[:at] + piece + data[at + 1:] if edit == 0 else
                     data[:at] + piece + data[at:] if edit == 1 else data[:at] + data[at + 1:])
    return found


def _boundary_inputs() -> list[bytes]:
    cases = []
    for run in range(71):  # backslash runs of every length before a quote, at shifting offsets
        for pad in (0, 1, 30, 62, 63):
            body = b"a" * pad + b"\\" * run + b'"'
            cases.append(b'["' + body + b'"]')
            cases.append(b'["' + body + b'", "x\\\\"]')
            cases.append(b'{"' + b"k" * pad + b'":"' + b"\\" * run + b'n"}')
    for length in range(50, 140):  # strings and numbers across the first blocks
        cases.append(b'["' + b"x" * length + b'", 1.5e3, true]')
        cases.append(b"[" + b" " * length + b'"\xe6\x9d\xb1\\u00e9"]')
        cases.append(b"[" + b"1" * length + b"]")
        cases.append(b"[0" + b"1" * length + b"]")
    for shift in range(0, 130, 7):  # across the 4 KiB chunk boundary
        text = b'["' + b"y" * (4090 - shift) + b'\\"' + b"z" * 20 + b'", {"a": [1, 2, nul' + b"l]}]"
        cases += [text, text.replace(b"nul" + b"l", b"nul")]
        cases.append(b"[" + b" " * (4094 - shift) + b'"abc\\\\", 12345678, "\x01"]')
        cases.append(b"[" + b"[" * (100 + shift) + b"]" * (100 + shift) + b"]")
    for run in range(1, 5):  # a backslash run ending a chunk, the next chunk free of backslashes
        for end in range(4093, 4098):
            head = b'["' + b"y" * (end - 2 - run) + b"\\" * run
            cases += [head + b'", 1]', head + b'"", 1]', head + b'n" , "' + b"z" * 5000 + b'"]']
    for shift in range(4088, 4100):  # strings taken whole by stage 2, their quotes either side of a chunk's end
        for inner in (b"ab", b"\xc3\xa9\xe6\x9d\xb1", b"a\\nb", b"a\x01b", b""):
            cases.append(b"[" + b" " * (shift - 2) + b'"' + inner + b'" , {"k" :"' + inner + b'"}]')
            cases.append(b"{" + b" " * (shift - 2) + b'"' + inner + b'"  :  "' + inner + b'" }')
    cases += [b"[" * 5000 + b"]" * 5000, b"[" * 5000 + b"]" * 4999, b'{"a":' * 3000 + b"0" + b"}" * 3000]
    return cases + _tail_inputs() + _utf8_inputs() + _literal_inputs() + _key_inputs() + _escape_inputs()


def _escape_inputs() -> list[bytes]:
    """Escape sequences stage 1 takes out of the strings' stops (a simple escape, a \\u and four
    hex digits), whole, cut short, wrong, after backslash runs, at every offset across the first
    blocks' ends, in keys and values."""
    sequences = [b"\\n", b"\\\"", b"\\\\", b"\\/", b"\\u00e9", b"\\uD83D\\uDE00", b"\\uABcf", b"\\\\u1234",
                 b"\\\\\\u1234", b"\\u12G4", b"\\u123", b"\\u", b"\\x", b"\\u12\"", b"\\u\\u1234", b"\\\\\"",
                 b"\\n\\u0041\\t", b"\\u0022\\\"", b"\\u00\x01\x02"]
    cases = []
    for sequence in sequences:
        for offset in range(0, 132):
            string = b'"' + b"a" * offset + sequence + b'b"'
            cases.append(b"[" + string + b"]")
            cases.append(b"{" + string + b":" + string + b"}")
        cases.append(b'["' + sequence * 40 + b'"]')
    return cases


def _key_inputs() -> list[bytes]:
    """Keys and the byte after them (stage 2 steps a colon right after a key's closing quote by a
    compare, and stage 1 marks no colon), with the key's end around block and chunk ends and at
    the input's end; colons where no key is before them."""
    cases = []
    for end in (*range(60, 68), *range(4090, 4100)):
        for after in (b':1}', b' : 1}', b'::1}', b'1}', b'}', b':', b'', b' ', b',"b":1}', b':"v":1}'):
            cases.append(b"{" + b" " * (end - 5) + b'"key"' + after)
            cases.append(b'{"' + b"k" * (end - 3) + b'"' + after)
    cases += [b'[":"]', b'["a":1]', b'{"a":"b":1}', b'{:1}', b'{"a":1:2}', b'{"a" :1, "b"\n:2}', b'[1:2]',
              b'{"a":{"b":{"c":[1,{"d":"e"}]}},"f" :[]}', b'{"a\"":1}', b'{"a\\":1}', b'{"a\":1}']
    return cases


def _literal_inputs() -> list[bytes]:
    """Literals and near misses (stage 2 compares a literal's letters at once where 8 bytes are
    left in the chunk, and steps them where fewer are) across block and chunk ends."""
    cases = []
    for word in (b"true", b"false", b"null", b"trux", b"tRue", b"fals", b"falsee", b"nulll", b"null0", b"nu", b"t"):
        for pad in (*range(54, 66), *range(4082, 4096)):
            cases.append(b"[" + b" " * pad + word + b"]")
            cases.append(b"[" + b" " * pad + word + b", " + word + b"]")
            cases.append(b" " * pad + word)
    return cases


def _tail_inputs() -> list[bytes]:
    """Inputs whose last bytes follow the last position stage 2 visits (a top-level number,
    literal or unclosed string, trailing whitespace), ending on, before and after the ends of
    64-byte blocks and of 4 KiB chunks: stage 2 reads those bytes after its loop."""
    cases = []
    for end in (*range(60, 70), *range(126, 130), *range(4090, 4100), *range(8190, 8194)):
        for tail in (b"12345", b"-1.5e+3", b"1.", b"0x", b"true", b"tru", b"nul", b"null ", b'"abc', b'"ab\\',
                     b'"ab\\"  ', b"[1] \n", b"[1] x"):
            cases.append(b" " * max(end - len(tail), 0) + tail)
        cases.append(b"1" * end)
        cases.append(b'"' + b"a" * (end - 1))
    return cases


UTF8_PIECES = [b"\xc3\xa9", b"\xe6\x9d\xb1", b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf", b"\xef\xbf\xbf",  # valid
               b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf",
               b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff",
               b"\x80", b"\xbf", b"\xc3", b"\xe6\x9d", b"\xf0\x9f\x98", b"\xc3\xa9\xa9", b"\xe6\x9d\xb1\x80"]


def _utf8_inputs() -> list[bytes]:
    """Valid and invalid UTF-8 inside and outside strings, at every offset around the block and
    chunk boundaries and at the end of the input."""
    cases = []
    for piece in UTF8_PIECES:
        for offset in (*range(52, 70), *range(4080, 4100)):
            cases.append(b'["' + b"a" * offset + piece + b'b", 1]')
            cases.append(b'["' + b"a" * offset + piece + b'"]')
            cases.append(b"[" + b" " * offset + piece + b"]")
        for length in range(60, 68):  # the piece ends the input
            cases.append(b'"' + b"a" * (length - len(piece) - 1) + piece)
            cases.append(b'"' + b"\xe6\x9d\xb1" * (length // 3) + piece + b'"')
    return cases


def _json_inputs() -> list[bytes]:
    rng = random.Random(11)
    cases = [path.read_bytes() for path in sorted(SUITE.glob("*.json"))]
    cases += _boundary_inputs()
    document = _bench_json().document
    for seed in range(4):
        whole = document(6000 + 3000 * seed, seed)
        cases.append(whole)
        cases += _mutations(whole, rng, 40)
    return cases


@pytest.fixture(scope="module")
def json_compilation():
    return _compilation(JSON)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_is_valid_in_two_stages_agrees_with_the_byte_loop_on_json(tmp_path, json_compilation, variant):
    _skip_without_bigrams(variant)
    automaton = json_compilation.pushdown
    assert isinstance(automaton, Pushdown)
    _generate(tmp_path, json_compilation, "json_ts")
    flags = [*SANITIZE, *(f"-DJSON_TS_{name}" for name in VARIANTS[variant])]
    binary = _harness(tmp_path, "json_ts", flags)
    inputs = _json_inputs()
    answers = _answers(binary, tmp_path, inputs, 3)
    for data, ((status, at, _state, _depth), limited) in zip(inputs, answers, strict=True):
        assert (status, at) == _reference(automaton, data, 100_000), data[:200]
        assert limited == _reference(automaton, data, 3), data[:200]
    assert sum(status == "valid" for (status, *_rest), _limited in answers) > 100


def test_the_generated_json_validator_has_the_two_stage_path_and_sexpr_too(tmp_path, json_compilation):
    _generate(tmp_path, json_compilation, "json_ts")
    assert "json_ts_two_stage_" in (tmp_path / "json_ts.c").read_text()
    sexpr = _compilation(SEXPR)
    _generate(tmp_path, sexpr, "sexpr_ts")
    assert "sexpr_ts_two_stage_" in (tmp_path / "sexpr_ts.c").read_text()


def test_the_byte_after_a_key_is_found_in_the_table(json_compilation):
    """The colon after a JSON key is found from the automaton: the states before a key get it and
    the state after it, no other state gets a byte, and stage 1 leaves the colon unmarked."""
    tables = json_compilation.tables()
    plan = lower_pushdown(tables, {"prefix": "j"}).stage1
    assert plan is not None and plan.after_string_bytes is not None and plan.after_string_states is not None
    pairs = list(zip(_cells(plan.after_string_bytes), _cells(plan.after_string_states), strict=True))
    keyed = [state for state, (byte, _) in enumerate(pairs) if byte != 256]
    assert keyed and {pairs[state][0] for state in keyed} == {0x3A}
    for before in keyed:  # the table steps a key and its colon to the same state
        state = before
        for byte in b'"a":':
            state = tables.states[state].targets[tables.byte_class[byte]]
        assert state == pairs[before][1]
    assert plan.silent == "3A"


def test_the_escape_sequences_are_found_in_the_table(json_compilation):
    """JSON's string states come back to themselves after a backslash and one of " \\ / b f n r t,
    and after \\u and four hex digits; both are found from the table, and the table agrees."""
    tables = json_compilation.tables()
    plan = lower_pushdown(tables, {"prefix": "j"}).stage1
    assert plan is not None
    assert plan.escape_notes == ("22 2F 5C 62 66 6E 72 74", "75" + " 30-39 41-46 61-66" * 4)
    row_of_strings = (plan.string_skip + 1) * (plan.chunk // 64 + 2)  # STRIDE_: two sentinels
    string_states = [state for state, row in enumerate(_cells(plan.skip_class_cells)) if row == row_of_strings]
    assert string_states
    for state in string_states:
        for text in (b'\\"', b"\\\\", b"\\t", b"\\u09aF"):
            after = state
            for byte in text:
                after = tables.states[after].targets[tables.byte_class[byte]]
            assert after == state, text
        after = state
        for byte in b"\\u09aG":
            after = tables.states[after].targets[tables.byte_class[byte]]
        assert after != state


@pytest.mark.parametrize("variant", ["bigrams", "avx512", "portable"])
def test_a_byte_read_elsewhere_too_is_not_taken_after_strings(tmp_path, variant):
    """Where arrays take the colon as a separator too, stage 1 must mark it, so stage 2 must not
    also step it after a key: the table of bytes after strings is left out, and the verdicts are
    the byte loop's."""
    _skip_without_bigrams(variant)
    text = (ROOT / "grammars" / "json.abnf").read_text(encoding="utf-8").replace(
        "array = begin-array [ value *( value-separator value ) ] end-array",
        "array = begin-array [ value *( ( value-separator / name-separator ) value ) ] end-array")
    compilation = Compilation(from_text(text), None)
    plan = lower_pushdown(compilation.tables(), {"prefix": "j"}).stage1
    assert plan is not None and plan.after_string_bytes is None and plan.silent == ""
    automaton = compilation.pushdown
    assert isinstance(automaton, Pushdown)
    _generate(tmp_path, compilation, "jc_ts")
    binary = _harness(tmp_path, "jc_ts", [*SANITIZE, *(f"-DJC_TS_{name}" for name in VARIANTS[variant])])
    inputs = [b'{"a":1}', b'["a":"b"]', b'["a"::1]', b'{"a":"b":1}', b'[1:2, "x" : {"k":["v":0]}]', b'{"a"  :  [":"]}']
    inputs += [b"[" + b" " * pad + b'"k":' + b'"v"]' for pad in range(55, 70)]
    answers = _answers(binary, tmp_path, inputs, 3)
    for data, ((status, at, _state, _depth), _limited) in zip(inputs, answers, strict=True):
        assert (status, at) == _reference(automaton, data, 100_000), data[:200]
    assert sum(status == "valid" for (status, *_rest), _limited in answers) >= 10


def _cells(lines: tuple[str, ...]) -> list[int]:
    return [int(cell) for line in lines for cell in line.split(",") if cell.strip()]


@pytest.mark.parametrize("variant", ["bigrams", "avx512", "avx2", "portable"])
def test_is_valid_in_two_stages_agrees_with_the_byte_loop_on_s_expressions(tmp_path, variant):
    _skip_without_bigrams(variant)
    compilation = _compilation(SEXPR)
    automaton = compilation.pushdown
    assert isinstance(automaton, Pushdown)
    _generate(tmp_path, compilation, "sx_ts")
    binary = _harness(tmp_path, "sx_ts", [*SANITIZE, *(f"-DSX_TS_{name}" for name in VARIANTS[variant])])
    rng = random.Random(3)
    inputs = []
    for length in range(1, 300, 3):
        text = bytes(rng.choice(b'(() "\\ab1-') for _ in range(length))
        inputs.append(text)
        inputs.append(b"(" + b" " * length + b'"' + b"\\" * (length % 70) + b'"' + b" x)")
    for depth in (1, 10, 70):
        inputs.append(b"(" * depth + b'a "b\\"c" (d e)' * 40 + b")" * depth)
    answers = _answers(binary, tmp_path, inputs, 3)
    for data, ((status, at, _state, _depth), _limited) in zip(inputs, answers, strict=True):
        assert (status, at) == _reference(automaton, data, 100_000), data[:200]
    assert any(status == "valid" for (status, *_rest), _limited in answers)


PAGE_END = r"""
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "json_pe.h"
/* Documents of every length up to 300 that end where a page without access begins: stage 1's
 * last part block (a masked load with AVX-512, a copy elsewhere) must read none of the bytes
 * after the end.  Prints a line per length whose two verdicts differ. */
int main(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n, k;
    unsigned char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    static const char *pieces[] = { "[1,\"ab\"]", "{\"k\": [true, null]}", "\"\\u00e9\\\\\"", "12345" };
    if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE) != 0)
        return 2;
    for (n = 1; n <= 300; n++) {
        for (k = 0; k < 4; k++) {
            unsigned char *doc = map + page - n;
            size_t i, len = strlen(pieces[k]);
            for (i = 0; i < n; i++) /* the piece at the end, after spaces */
                doc[i] = i + len < n ? ' ' : (unsigned char)pieces[k][i + len - n];
            if (json_pe_is_valid(doc, n) != (json_pe_validate(doc, n, 64, NULL) == JSON_PE_VALID))
                printf("%zu %zu\n", n, k);
        }
    }
    printf("done\n");
    return 0;
}
"""


@pytest.mark.parametrize("variant", ["bigrams", "avx512", "avx2", "portable"])
def test_the_last_part_block_reads_nothing_past_the_end(tmp_path, json_compilation, variant):
    _skip_without_bigrams(variant)
    _generate(tmp_path, json_compilation, "json_pe")
    (tmp_path / "page_end.c").write_text(PAGE_END, encoding="utf-8")
    binary = tmp_path / "page_end"
    flags = [*SANITIZE, *(f"-DJSON_PE_{name}" for name in VARIANTS[variant])]
    subprocess.run(["gcc", *flags, f"-I{tmp_path}", "-o", str(binary), str(tmp_path / "page_end.c"),
                    str(tmp_path / "json_pe.c")], check=True)
    result = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
    assert result.stdout == "done\n"


DEEP_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_dp.h"
int main(void)
{
    size_t levels = 1000000, at;
    unsigned char *doc = malloc(2 * levels + 1);
    if (doc == NULL)
        return 2;
    memset(doc, '[', levels);
    memset(doc + levels, ']', levels);
    printf("%d ", json_dp_is_valid_depth(doc, 2 * levels, levels));
    printf("%d ", json_dp_is_valid_depth(doc, 2 * levels, levels - 1));
    doc[2 * levels - 1] = '}';
    printf("%d %d\n", json_dp_is_valid_depth(doc, 2 * levels, levels),
           json_dp_validate(doc, 2 * levels, levels, &at) == JSON_DP_INVALID && at == 2 * levels - 1);
    free(doc);
    return 0;
}
"""


@pytest.mark.parametrize("variant", ["bigrams", "avx512"])
def test_a_million_levels_within_64_mib(tmp_path, json_compilation, variant):
    """1,000,000 levels of arrays: valid with that depth limit, too deep with one less, and a
    closing brace at the end found; in 64 MiB of address space, the input's 2 MB included."""
    _skip_without_bigrams(variant)
    _generate(tmp_path, json_compilation, "json_dp")
    (tmp_path / "deep.c").write_text(DEEP_HARNESS, encoding="utf-8")
    binary = tmp_path / "deep"
    flags = [f"-DJSON_DP_{name}" for name in VARIANTS[variant]]
    subprocess.run(["gcc", "-O2", *flags, f"-I{tmp_path}", "-o", str(binary), str(tmp_path / "deep.c"),
                    str(tmp_path / "json_dp.c")], check=True)
    limit = 64 << 20
    out = subprocess.run([str(binary)], capture_output=True, text=True, check=True,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert out.stdout.split() == ["1", "0", "0", "1"]


@pytest.mark.parametrize("grammar", ["json-trailing-commas", "json-leading-zeros"])
def test_token_bigrams_of_neighbour_grammars_agree_with_the_byte_loop(tmp_path, grammar):
    """Other pair tables and token automata than JSON's: the dialects with trailing commas and
    with leading zeros derive theirs, and their token bigrams give the byte loop's verdicts on
    JSON's inputs and on documents in the dialect, mutated."""
    _skip_without_bigrams("bigrams")
    compilation = _compilation(ROOT / "grammars" / "variants" / f"{grammar}.abnf")
    automaton = compilation.pushdown
    assert isinstance(automaton, Pushdown)
    stage1 = lower_pushdown(compilation.tables(), {"prefix": "v"}).stage1
    assert stage1 is not None and stage1.bigrams is not None
    _generate(tmp_path, compilation, "nb_ts")
    binary = _harness(tmp_path, "nb_ts", [*SANITIZE, *(f"-DNB_TS_{name}" for name in VARIANTS["bigrams"])])
    rng = random.Random(7)
    dialect = [b'[1, 2, 3, ]', b'{"a": [00, 007, -01.5], "b": {"c": 1,},}', b'[[], [1,], {},]', b'[,]', b'{,}']
    inputs = [path.read_bytes() for path in sorted(SUITE.glob("*.json"))] + dialect
    for text in dialect:
        padded = b"[" + b" " * 70 + text + b", " + text * 30 + b"]"
        inputs += [padded, *_mutations(padded, rng, 60)]
    answers = _answers(binary, tmp_path, inputs, 3)
    for data, ((status, at, _state, _depth), _limited) in zip(inputs, answers, strict=True):
        assert (status, at) == _reference(automaton, data, 100_000), data[:200]
    assert sum(status == "valid" for (status, *_rest), _limited in answers) > 100
