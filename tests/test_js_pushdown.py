"""The JavaScript backend's pushdown validators (self-embedding grammars such as RFC 8259 JSON and
RFC 5322's nested comments): every form of bytes the regular module takes, the depth limit and
its NestingError (a RangeError with the offset), nesting 100,000 deep, streaming in one-byte
pieces, the runner's interface, and agreement with the reference loop on random nested grammars.
tests/test_pushdown.py checks every pushdown backend against the reference and the interpreter;
these are the JavaScript-specific checks."""
from __future__ import annotations

import itertools
import json
import math
import random
import shutil
import subprocess

import pytest
from grammar_gen import SMALL, nested_grammar
from helpers.paths import DATA, GRAMMARS

import abnfc
from abnfc.automata.pushdown import Conflict, Pushdown
from abnfc.automata.pushdown import NestingError as ReferenceNestingError
from abnfc.backends import first_errors
from abnfc.backends.js.plan import _typed_array
from abnfc.errors import AbnfError
from abnfc.frontend.source import from_text
from abnfc.pipeline import Compilation, load_validators

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the modules")

JSON = GRAMMARS / "json.abnf"
EMAIL = GRAMMARS / "email.abnf"
SUITE = DATA / "jsontestsuite"


def _node(tmp_path, script: str, grammar=JSON, start: str | None = None, prefix: str = "g") -> str:
    """Run ``script`` (an ES module) next to the grammar's generated module ``./<prefix>.mjs``."""
    for name, text in abnfc.generate_files(grammar, "js", start=start, prefix=prefix).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    ran = subprocess.run(["node", "--input-type=module", "-e", script], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


@pytest.fixture(scope="module")
def json_validator():
    return abnfc.load_validator(JSON, "js")


def test_the_module_is_a_pushdown_validator_with_narrow_typed_arrays():
    [text] = abnfc.generate_files(JSON, "js", prefix="json").values()
    assert "export class NestingError extends RangeError" in text
    assert "export const MAX_DEPTH = 100000;" in text
    assert "const ROWS = new Uint16Array(" in text  # RETURN * 256 needs 16 bits
    assert "stack: new Uint8Array(" in text  # JSON's 120 states fit in bytes
    assert "nests deeper than <limit> at byte offset <offset>" in text  # documented in the header
    assert (_typed_array(255), _typed_array(256), _typed_array(65_535), _typed_array(65_536)) == (
        "Uint8Array", "Uint16Array", "Uint16Array", "Uint32Array")


def test_a_grammar_of_more_than_256_states_gets_wider_arrays_and_the_same_verdicts():
    compilation = Compilation(from_text('s = "(" *s ")" / "w" 300DIGIT\n'))
    automaton = compilation.pushdown
    assert isinstance(automaton, Pushdown) and automaton.num_states > 256
    files = compilation.files(["js"], "wide", "test")
    [text] = files.values()
    assert "const ROWS = new Uint32Array(" in text and "stack: new Uint16Array(" in text
    [validator] = load_validators([files], "js")
    word = b"w" + b"7" * 300
    cases = [b"(" * 1000 + word + b")" * 1000, b"((" + word + b")" + word + b")", b"(" + word[:-1] + b")",
             b"(" * 70 + b")" * 70, b"()" * 10, word, word + b")"]
    assert first_errors(validator, cases) == [automaton.first_error(d) for d in cases]


SCRIPT_FORMS = """
import { isValid, firstError } from "./g.mjs";
const bytes = [...new TextEncoder().encode('[1, {"a": "\u00e9"}, [')];
const shared = new SharedArrayBuffer(bytes.length); new Uint8Array(shared).set(bytes);
const plain = new ArrayBuffer(bytes.length); new Uint8Array(plain).set(bytes);
const wide = new Uint16Array(Math.ceil(bytes.length / 2) + 1);
new Uint8Array(wide.buffer).set(bytes, 2);
const forms = [Uint8Array.from(bytes), Buffer.from(bytes), new DataView(plain), plain, shared,
               new Uint8Array(shared), new Uint8Array(wide.buffer, 2, bytes.length),
               new DataView(wide.buffer, 2, bytes.length)];
console.log(forms.map((form) => firstError(form)).join(" "));
console.log(isValid(Buffer.from("[[]]")), isValid(new Uint8Array(0)));
try { isValid("[]"); } catch (error) { console.log(error.constructor.name, error.message); }
"""


def test_every_form_of_bytes_is_taken_and_a_string_is_refused(tmp_path):
    forms, verdicts, refusal = _node(tmp_path, SCRIPT_FORMS).splitlines()
    length = len('[1, {"a": "\u00e9"}, ['.encode())
    assert forms == " ".join([str(length)] * 8)  # ends inside an array: the length
    assert verdicts == "true false"
    assert refusal.startswith("TypeError expected bytes, got a string")


SCRIPT_NESTING = """
import { firstError, isValid, Validator, NestingError, MAX_DEPTH } from "./g.mjs";
const bytes = (text) => new TextEncoder().encode(text);
const report = (f) => {
  try { return JSON.stringify(f()); } catch (error) {
    return [error.constructor.name, error instanceof RangeError, error instanceof NestingError,
            error.offset, error.limit, error.message].join("|");
  }
};
const lines = [
  report(() => firstError(bytes("[[[[1]]]]"), { maxDepth: 3 })),
  report(() => firstError(bytes("[[[1]]]"), { maxDepth: 3 })),
  report(() => isValid(bytes(' [ {"a": [1]}]'), 3)),
  report(() => firstError(bytes("[[[x"), 3)),
  report(() => firstError(bytes("[[[[x"), 3)),
  report(() => firstError(bytes("[1]"), { maxDepth: 0 })),
  report(() => firstError(bytes("1"), { maxDepth: 0 })),
  report(() => firstError(bytes("[".repeat(150000) + "]".repeat(150000)), Infinity)),
  report(() => firstError(bytes("[]"), -1)),
  report(() => firstError(bytes("[]"), { maxDepth: 1.5 })),
  report(() => MAX_DEPTH),
];
const v = new Validator({ maxDepth: 2 });
lines.push(report(() => [v.feed(bytes("[[")), v.depth, v.complete]));
lines.push(report(() => v.feed(bytes(" ["))));
lines.push(report(() => v.feed(bytes("]"))));
console.log(lines.join("\\n"));
"""


def test_nesting_past_max_depth_throws_a_range_error_with_its_offset(tmp_path):
    lines = _node(tmp_path, SCRIPT_NESTING).splitlines()
    message = "the input nests deeper than 3 at byte offset 3; raise maxDepth if this is intended"
    assert lines[0] == f"NestingError|true|true|3|3|{message}"
    assert lines[1:4] == ["null", "true", "3"]  # the error at x comes before any nesting error
    assert lines[4] == f"NestingError|true|true|3|3|{message}"
    assert lines[5].startswith("NestingError|true|true|0|0|the input nests deeper than 0 at byte offset 0")
    assert lines[6:8] == ["null", "null"]
    assert lines[8].startswith("RangeError|true|false|||maxDepth must be a non-negative integer or Infinity")
    assert lines[9].startswith("RangeError|true|false|||maxDepth must be")
    assert lines[10] == "100000"
    assert lines[11] == "[true,2,false]"
    # the offset counts every byte fed before: the third "[" is byte 3; then it is thrown again
    assert lines[12].startswith("NestingError|true|true|3|2|the input nests deeper than 2 at byte offset 3")
    assert lines[13] == lines[12]


SCRIPT_STREAMING = """
import { readFileSync, readdirSync } from "node:fs";
import { firstError, Validator } from "./g.mjs";
const folder = process.argv[1];
const names = readdirSync(folder).filter((name) => name.endsWith(".json")).sort();
const differing = [];
let count = 0;
for (const name of names) {
  const data = new Uint8Array(readFileSync(folder + "/" + name));
  let whole;
  try { whole = firstError(data); } catch (error) { whole = error.name; }
  const v = new Validator();
  let streamed;
  try {
    for (let i = 0; i < data.length; i++) v.feed(data.subarray(i, i + 1));
    streamed = v.firstError();
    if (v.complete !== (streamed === null)) streamed = "complete disagrees";
    if (v.offset !== data.length) streamed = "offset " + v.offset;
  } catch (error) { streamed = error.name; }
  if (whole !== streamed) differing.push([name, whole, streamed]);
  count++;
}
console.log(JSON.stringify({ count, differing }));
"""


def test_streaming_one_byte_at_a_time_gives_the_whole_input_verdict_on_the_json_suite(tmp_path):
    script = SCRIPT_STREAMING.replace("process.argv[1]", json.dumps(str(SUITE)))
    found = json.loads(_node(tmp_path, script))
    assert found["count"] >= 300
    assert found["differing"] == []


def test_the_runner_has_the_python_module_interface(json_validator):
    validator = json_validator
    assert validator.is_valid(b' {"a": [1, 2.5e3, "\xc3\xa9", null]} ')
    assert validator.first_error(b"[1, 2}") == 5
    assert validator.first_error(bytearray(b"[[1]")) == 4
    assert validator.first_error(memoryview(b"[]]")) == 2
    stream = validator.Validator()
    assert stream.feed(b"[")
    assert (0x5D, 0x5D) in validator.expected_bytes(stream.state)  # the array's start returns on ]
    stream = validator.Validator()
    assert stream.feed(b'[{"a": [')
    assert (stream.depth, stream.offset, stream.complete, stream.first_error()) == (3, 8, False, 8)
    assert (0x5D, 0x5D) in stream.expected()
    assert stream.feed(b"]}]")
    assert (stream.depth, stream.complete, stream.first_error()) == (0, True, None)
    assert not stream.feed(b"]")
    assert stream.first_error() == 11
    with pytest.raises(TypeError, match="expected bytes, got str"):
        validator.is_valid("[]")


def test_the_runner_raises_nesting_errors_with_the_offset(json_validator):
    validator = json_validator
    with pytest.raises(ReferenceNestingError, match="nests deeper than 3 at byte offset 5") as raised:
        validator.first_error(b"[ [[ [1]]]]", max_depth=3)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, validator.NestingError)
    assert (raised.value.offset, raised.value.limit) == (5, 3)
    with pytest.raises(ValueError, match="nests deeper than 1 at byte offset 1"):
        validator.is_valid(b"[[]]", max_depth=1)
    assert validator.is_valid(b"[[]]", max_depth=2)
    assert validator.first_errors([b"[[]]", b"[[", b"]"], max_depth=2) == [None, 2, 0]
    deep = b"[" * 100_001 + b"]" * 100_001
    assert validator.first_error(deep, max_depth=math.inf) is None
    stream = validator.Validator(max_depth=2)
    assert stream.feed(b"[[")
    for _ in range(2):  # raised again on every later feed
        with pytest.raises(ReferenceNestingError, match="nests deeper than 2 at byte offset 2") as raised:
            stream.feed(b"[")
        assert raised.value.offset == 2


def test_comments_nest_100000_deep_and_no_deeper(tmp_path):
    [validator] = load_validators([abnfc.generate_files(EMAIL, "js", start="comment", prefix="comment")], "js")
    assert validator.is_valid(b"(" * 100_000 + b")" * 100_000)
    assert validator.first_error(b"(" * 100_000 + b"x" + b")" * 100_000) is None
    assert validator.first_error(b"(" * 100_000 + b")" * 99_999) == 199_999
    assert validator.first_error(b"(" * 100_000 + b")" * 100_001) == 200_000
    with pytest.raises(ReferenceNestingError, match="nests deeper than 100000 at byte offset 100000") as raised:
        validator.first_error(b"(" * 100_001 + b")" * 100_001)
    assert raised.value.offset == 100_000
    stream = validator.Validator()
    assert stream.feed(b"(" * 100_000)
    assert stream.depth == 100_000
    assert stream.feed(b")" * 100_000)
    assert stream.complete and stream.depth == 0


def _nested_compilations(count: int, seed: int) -> list[Compilation]:
    found: list[Compilation] = []
    for index in itertools.count(seed):
        if len(found) == count:
            return found
        try:
            compilation = Compilation(from_text(nested_grammar(random.Random(index).randrange)))
            if compilation.resolved.is_regular or isinstance(compilation.pushdown, Conflict):
                continue
        except AbnfError:
            continue
        found.append(compilation)
    return found


@pytest.mark.parametrize(("count", "seed", "length"),
                         [(20, 0, 3), pytest.param(120, 5000, 5, marks=pytest.mark.slow)])
def test_random_nested_grammars_agree_with_the_reference_loop(count, seed, length):
    compilations = _nested_compilations(count, seed)
    alphabet = SMALL + b"()[],"
    inputs = sorted({bytes(t) for n in range(length + 1) for t in itertools.product(alphabet, repeat=n)})
    rng = random.Random(seed)
    deep = [b"(" * n + b")" * n for n in (1, 30, 200)] + [bytes(rng.choice(b"()[]") for _ in range(300))]
    file_sets = [c.files(["js"], f"g{index}", "test") for index, c in enumerate(compilations)]
    for validator, compilation in zip(load_validators(file_sets, "js"), compilations, strict=True):
        automaton = compilation.pushdown
        assert isinstance(automaton, Pushdown)
        cases = inputs + deep
        assert first_errors(validator, cases) == [automaton.first_error(d) for d in cases], compilation.grammar.text
        for data, limit in itertools.product([*deep, *inputs[-20:]], (0, 1, 10)):  # the depth limit
            assert _outcome(validator, data, limit) == _outcome(automaton, data, limit), (
                compilation.grammar.text, data, limit)


def _outcome(validator, data: bytes, limit: int) -> tuple[str, int | None]:
    """first_error under a depth limit, or where the input nests too deep."""
    try:
        return "verdict", validator.first_error(data, max_depth=limit)
    except ReferenceNestingError as error:
        return "too deep", error.offset
