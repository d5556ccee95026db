"""abnfc fuzz-kit: the C mutator's edits checked against the grammar's DFA (and, for JSON, its
pushdown validator), the dialects' witnesses grafted into inputs, the dictionary and the corpus,
libFuzzer finding planted bugs with the mutator, the AFL++ build of the mutator, the Go and Rust
kits, and the command's errors."""
from __future__ import annotations

import hashlib
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.c_build import GCC, SANITIZE
from helpers.cli import run_cli
from helpers.rust_tools import rust_tool

from abnfc.automata.pushdown import Pushdown
from abnfc.frontend.source import load
from abnfc.fuzzkit import seeds
from abnfc.fuzzkit.mutator import completions, moves
from abnfc.hypothesis.sampling import Sampler
from abnfc.pipeline import Compilation

ROOT = Path(__file__).resolve().parents[1]
HARNESSES = ROOT / "tests" / "c"
UTF8 = str(ROOT / "grammars" / "utf8.abnf")
JSON = str(ROOT / "grammars" / "json.abnf")
URI = str(ROOT / "grammars" / "uri.abnf")
SAME, SWEEP, REPEAT, DROP, COMPLETE, NEST, GRAFT, CLASS = range(8)  # the edits of mutator.c
CLANG = shutil.which("clang")


@pytest.fixture(scope="module")
def utf8_kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _c_kit(UTF8, "utf8", tmp_path_factory)


def _c_kit(grammar: str, name: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from abnfc.cli import main

    folder = tmp_path_factory.mktemp("kit") / name
    assert main(["fuzz-kit", grammar, "--lang", "c", "--out", str(folder)]) == 0
    return folder


@pytest.fixture(scope="module")
def utf8() -> Compilation:
    return Compilation(load(UTF8))


@pytest.fixture(scope="module")
def edits_program(utf8_kit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _edits_program(utf8_kit, tmp_path_factory)


def _edits_program(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    program = tmp_path_factory.mktemp("edits") / "edits"
    subprocess.run([GCC, *SANITIZE, "-DFUZZKIT_API", str(HARNESSES / "fuzzkit_edits.c"), str(kit / "mutator.c"),
                    "-o", str(program)], check=True)
    return program


@pytest.fixture(scope="module")
def json_kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _c_kit(JSON, "json", tmp_path_factory)


@pytest.fixture(scope="module")
def json_edits(json_kit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _edits_program(json_kit, tmp_path_factory)


@pytest.fixture(scope="module")
def json_grammar() -> Pushdown:
    found = Compilation(load(JSON)).pushdown
    assert isinstance(found, Pushdown)
    return found


def _valid_json(count: int) -> list[bytes]:
    """Valid JSON texts nesting up to four deep, with escapes, numbers and literals."""
    from abnfc.hypothesis.sampling import automaton

    sampler, rng = Sampler(automaton(Compilation(load(JSON))), 40), random.Random(3)
    drawn = [sampler.valid(rng) for _ in range(count)]
    return [*drawn, b'{"a": ["\\u00e9", 1]}', b'[[1, {"b": [true, null]}], "x\\n"]', b' [ [ [ ] ] ] ']


def _run_edits(program: Path, lines: list[str]) -> list[bytes]:
    result = subprocess.run([str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                            check=True, timeout=300)
    return [b"" if out == "-" else bytes.fromhex(out) for out in result.stdout.split()]


def _hex(data: bytes) -> str:
    return data.hex() or "-"


def _valid_inputs(utf8: Compilation, count: int) -> list[bytes]:
    sampler, rng = Sampler(utf8.minimal, 24), random.Random(5)
    return [sampler.valid(rng) for _ in range(count)]


def test_edits_that_keep_the_states_keep_a_valid_input_valid(utf8, edits_program):
    """Same-state class moves, sweeps, repeated and dropped loops, completions and splices of
    valid inputs are valid, and the same seed gives the same output."""
    inputs = _valid_inputs(utf8, 150)
    lines = [f"{edit} {seed} {_hex(data)}" for seed, data in enumerate(inputs) for edit in (SAME, SWEEP, REPEAT,
                                                                                            DROP, COMPLETE)]
    pairs = zip(inputs, reversed(inputs), strict=True)
    lines += [f"splice {seed} {_hex(a)} {_hex(b)}" for seed, (a, b) in enumerate(pairs)]
    outputs = _run_edits(edits_program, lines)
    assert len(outputs) == len(lines)
    assert all(utf8.minimal.matches(out) for out in outputs)
    changed = sum(out != inputs[index // 5] for index, out in enumerate(outputs[:len(inputs) * 5]))
    assert changed > len(inputs) * 2, changed  # the edits do edit
    assert _run_edits(edits_program, lines) == outputs


def test_every_edit_takes_any_bytes(edits_program):
    """Random bytes (the empty input, inputs the DFA dies on at once or late, dead ends past a
    near miss) through every edit and splice, under ASan and UBSan: no fault, no output longer
    than the room given (2048 bytes)."""
    rng = random.Random(7)
    inputs = [b"", b"\xff", b"\xf4\x90", *(rng.randbytes(rng.randrange(1, 40)) for _ in range(200)),
              rng.randbytes(2048)]
    lines = [f"{edit} {seed} {_hex(data)}" for seed, data in enumerate(inputs) for edit in range(8)]
    lines += [f"splice {seed} {_hex(a)} {_hex(b)}" for seed, (a, b) in enumerate(zip(inputs, inputs[1:] + inputs[:1],
                                                                                        strict=True))]
    outputs = _run_edits(edits_program, lines)
    assert len(outputs) == len(lines) and all(len(out) <= 2048 for out in outputs)


def test_completion_makes_an_invalid_input_valid(utf8, edits_program):
    """Half the time the cut is where the run dies: every input then ends valid."""
    cut = [data[:-1] for data in _valid_inputs(utf8, 100) if data and not utf8.minimal.matches(data[:-1])]
    broken = [data + b"\xff\xff" for data in _valid_inputs(utf8, 100)]
    inputs = cut + broken
    outputs = _run_edits(edits_program, [f"{COMPLETE} {seed} {_hex(data)}" for seed, data in enumerate(inputs)])
    completed = [out for out in outputs if utf8.minimal.matches(out)]
    assert len(completed) >= len(inputs) // 3, (len(completed), len(inputs))
    _toward, distance = completions(utf8.minimal)
    assert all(distance[state] == 0 for state in utf8.minimal.accepting)


def test_a_class_move_writes_a_byte_of_a_move_range_with_the_expected_verdict(utf8, edits_program):
    """A class move changes at most one byte, to one of the moves of the state there: where the
    new byte leads where the old one did the input stays valid, where it leads to the dead state
    the input is refused."""
    dfa = utf8.minimal
    inputs = [data for data in _valid_inputs(utf8, 400) if data]
    outputs = _run_edits(edits_program, [f"{CLASS} {seed} {_hex(data)}" for seed, data in enumerate(inputs)])
    kinds = {"same": 0, "dead": 0, "other": 0}
    for data, out in zip(inputs, outputs, strict=True):
        assert len(out) == len(data)
        changed = [i for i in range(len(data)) if data[i] != out[i]]
        assert len(changed) <= 1
        if not changed:
            continue
        at = changed[0]
        state = dfa.trace(data)[at]
        assert any(lo <= out[at] <= hi for lo, hi in moves(dfa, state)), (data, out)
        before = dfa.transitions[state][dfa.byte_class[data[at]]]
        after = dfa.transitions[state][dfa.byte_class[out[at]]]
        if after == before:
            kinds["same"] += 1
            assert dfa.matches(out)
        elif after == dfa.dead:
            kinds["dead"] += 1
            assert not dfa.matches(out)
        else:
            kinds["other"] += 1
    assert all(kinds.values()), kinds


def test_json_edits_that_keep_the_configurations_keep_valid_json_valid(json_grammar, json_edits):
    """The pushdown mutator: same-state class moves, sweeps, repeated and dropped stretches
    between equal configurations, completions, nested parts swapped and splices of valid JSON
    are valid JSON; the nest edit makes deeper texts."""
    inputs = _valid_json(150)
    kept = (SAME, SWEEP, REPEAT, DROP, COMPLETE, NEST)
    lines = [f"{edit} {seed} {_hex(data)}" for seed, data in enumerate(inputs) for edit in kept]
    pairs = zip(inputs, reversed(inputs), strict=True)
    lines += [f"splice {seed} {_hex(a)} {_hex(b)}" for seed, (a, b) in enumerate(pairs)]
    outputs = _run_edits(json_edits, lines)
    assert len(outputs) == len(lines)
    wrong = [(line, out) for line, out in zip(lines, outputs, strict=True) if not json_grammar.matches(out)]
    assert not wrong, wrong[:3]
    edited = [(inputs[index // len(kept)], out) for index, out in enumerate(outputs[:len(inputs) * len(kept)])]
    assert sum(out != data for data, out in edited) > len(inputs) * 2  # the edits do edit
    nested = [(data, out) for (data, out), line in zip(edited, lines, strict=False) if line.startswith(f"{NEST} ")]
    deepest = [max(json_grammar.trace(text)[1], default=0) for pair in nested for text in pair]
    assert any(after > before for before, after in zip(deepest[::2], deepest[1::2], strict=True))
    assert _run_edits(json_edits, lines) == outputs


def test_json_edits_take_any_bytes_and_complete_open_nested_parts(json_grammar, json_edits):
    """Random bytes, brackets that never close and closing brackets with nothing open through
    every edit and splice of the pushdown mutator, under ASan and UBSan; a completion closes
    what a cut text left open."""
    rng = random.Random(11)
    noise = [bytes(rng.choice(b'[]{}",:\\u0123 aefnrt-.') for _ in range(rng.randrange(1, 40))) for _ in range(150)]
    inputs = [b"", b"]", b"[" * 300, b"]]]}}", *noise, rng.randbytes(2048)]
    lines = [f"{edit} {seed} {_hex(data)}" for seed, data in enumerate(inputs) for edit in range(8)]
    lines += [f"splice {seed} {_hex(a)} {_hex(b)}" for seed, (a, b) in enumerate(zip(inputs, inputs[1:] + inputs[:1],
                                                                                        strict=True))]
    outputs = _run_edits(json_edits, lines)
    assert len(outputs) == len(lines) and all(len(out) <= 2048 for out in outputs)
    cut = [data[:len(data) * 2 // 3] for data in _valid_json(100)]
    cut = [data for data in cut if not json_grammar.matches(data)]
    completed = _run_edits(json_edits, [f"{COMPLETE} {seed} {_hex(data)}" for seed, data in enumerate(cut)])
    assert sum(json_grammar.matches(out) for out in completed) >= len(cut) // 3


def test_a_graft_puts_a_dialects_witness_where_the_runs_meet(tmp_path_factory):
    """URI's kit holds RFC 6874's zone identifiers among its witnesses (uri-zone-id.abnf is a
    dialect of it): grafts into a plain URI give inputs that dialect accepts and URI refuses."""
    from abnfc.cli import main

    kit = tmp_path_factory.mktemp("kit") / "uri"
    assert main(["fuzz-kit", URI, "--lang", "c", "--out", str(kit), "--max-seeds", "1"]) == 0
    program = _edits_program(kit, tmp_path_factory)
    outputs = _run_edits(program, [f"{GRAFT} {seed} {_hex(b'http://example.com/a?b')}" for seed in range(400)])
    uri = Compilation(load(URI)).minimal
    zone = Compilation(load(str(ROOT / "grammars" / "variants" / "uri-zone-id.abnf"))).minimal
    parted = [out for out in outputs if zone.matches(out) and not uri.matches(out)]
    assert any(out.startswith(b"http://[") and b"%25" in out for out in parted), parted[:5]


def test_the_dictionary_holds_the_literals_and_the_class_boundaries(utf8, utf8_kit):
    entry = re.compile(r'^[a-z0-9_]+="(?:[ !#-\[\]-~]|\\x[0-9A-F]{2})+"$')
    lines = (utf8_kit / "utf8.dict").read_text().splitlines()
    assert all(line.startswith("#") or entry.match(line) for line in lines), lines
    written = {bytes.fromhex(line.split('"')[1].replace("\\x", "")) for line in lines if line.startswith("byte_")}
    assert written == {b for ranges in utf8.minimal.classes for lo, hi in ranges for b in (bytes([lo]), bytes([hi]))}
    uri = seeds.dictionary(Compilation(load(str(ROOT / "grammars" / "uri.abnf"))))
    assert 'literal_1="//"' in uri and '"::"' in uri and '"%"' in uri


def test_the_corpus_holds_inputs_on_both_sides_of_the_grammar(utf8, utf8_kit):
    files = sorted((utf8_kit / "corpus").iterdir())
    contents = [path.read_bytes() for path in files]
    assert all(path.name == hashlib.sha1(data).hexdigest() for path, data in zip(files, contents, strict=True))
    valid = [data for data in contents if utf8.minimal.matches(data)]
    assert 50 < len(valid) < len(contents) - 50
    assert b"\xf0\x90\x80\x80" in contents and b"\xed\xa0\x80" in contents  # a boundary, a surrogate
    uri = Compilation(load(str(ROOT / "grammars" / "uri.abnf")))
    zone = Compilation(load(str(ROOT / "grammars" / "variants" / "uri-zone-id.abnf")))
    inputs = seeds.corpus(uri, 0, 1000)
    assert len(inputs) == 1000
    assert any(zone.minimal.matches(data) and not uri.minimal.matches(data) for data in inputs)  # a dialect's


def test_the_kit_is_the_same_for_a_seed(utf8_kit, tmp_path, capsys):
    status, _out, _err = run_cli(capsys, "fuzz-kit", UTF8, "--lang", "c", "--out", str(utf8_kit))
    assert status == 0 and "up to date, nothing written" in _out
    status, _out, _err = run_cli(capsys, "fuzz-kit", UTF8, "--lang", "c", "--seed", "1", "--out", str(tmp_path))
    assert status == 0
    other = {path.name for path in (tmp_path / "corpus").iterdir()}
    same = {path.name for path in (utf8_kit / "corpus").iterdir()}
    assert other != same and len(other & same) > len(same) // 2  # only the drawn inputs differ


def test_a_run_with_another_seed_removes_the_first_runs_unchanged_files_only(tmp_path, capsys):
    """The folder then holds the second run's kit, a file the user put there and a file of the
    first run's corpus the user changed; the removed ones are named."""
    grammar = str(ROOT / "grammars" / "datetime.abnf")
    assert run_cli(capsys, "fuzz-kit", grammar, "--lang", "c", "--out", str(tmp_path))[0] == 0
    first = {path.name for path in (tmp_path / "corpus").iterdir()}
    second = {seeds.file_name(data) for data in seeds.corpus(Compilation(load(grammar)), 1, 1000)}
    dropped = sorted(first - second)
    assert len(dropped) > 2
    (tmp_path / "corpus" / dropped[0]).write_bytes(b"changed by the user")
    (tmp_path / "corpus" / "mine").write_bytes(b"1985-04-12T23:20:50Z")
    status, out, _err = run_cli(capsys, "fuzz-kit", grammar, "--lang", "c", "--seed", "1", "--out", str(tmp_path))
    assert status == 0
    assert {path.name for path in (tmp_path / "corpus").iterdir()} == second | {dropped[0], "mine"}
    removed = {line.rsplit("/", 1)[1] for line in out.splitlines() if line.startswith("removed ")}
    assert removed == set(dropped[1:])
    status, out, _err = run_cli(capsys, "fuzz-kit", grammar, "--lang", "c", "--seed", "1", "--out", str(tmp_path))
    assert status == 0 and "up to date, nothing written" in out and "removed" not in out


def _libfuzzer_missing() -> str | None:
    if CLANG is None:
        return "clang is not installed"
    probe = subprocess.run([CLANG, "-fsanitize=fuzzer", "-x", "c", "-", "-o", "/dev/null"], capture_output=True,
                           input=b"#include <stdint.h>\n#include <stddef.h>\n"
                                 b"int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n")
    return "clang's libFuzzer runtime is missing (libclang-rt-14-dev)" if probe.returncode else None


def test_libfuzzer_with_the_mutator_finds_a_planted_bug(utf8_kit, tmp_path):
    """A UTF-8 decoder that accepts one overlong form, F0 8F BF BF: the fuzz target aborts on it."""
    missing = _libfuzzer_missing()
    if missing:
        pytest.skip(missing)
    clang = [str(CLANG), "-g", "-O1", "-fsanitize=fuzzer,address", "-I", str(utf8_kit)]
    kit = [str(utf8_kit / name) for name in ("fuzz_target.c", "utf8.c", "mutator.c")]
    planted = ROOT / "bench" / "fuzz_targets" / "utf8_overlong.c"
    subprocess.run([*clang, *kit, str(planted), "-o", str(tmp_path / "planted")], check=True)
    subprocess.run([*clang, *kit, str(utf8_kit / "user_accepts.c"), "-o", str(tmp_path / "stub")], check=True)
    for name in ("stub-corpus", "corpus"):  # libFuzzer adds the inputs it keeps to the folder
        shutil.copytree(utf8_kit / "corpus", tmp_path / name)
    common = ["-seed=1", "-max_len=16", f"-artifact_prefix={tmp_path}/", f"-dict={utf8_kit / 'utf8.dict'}"]
    stub = subprocess.run([str(tmp_path / "stub"), *common, "-runs=20000", str(tmp_path / "stub-corpus")],
                          capture_output=True, text=True, timeout=600)
    assert stub.returncode == 0, stub.stderr[-2000:]  # the generated stub agrees with the oracle
    # seed 1 finds it after about 26,000 runs; seeds 2 and 3 after 260,000 to 520,000
    found = subprocess.run([str(tmp_path / "planted"), *common, "-runs=1000000", str(tmp_path / "corpus")],
                           capture_output=True, text=True, timeout=600)
    assert "the grammar refuses this input" in found.stderr and "user_accepts accepts it" in found.stderr
    [crash] = tmp_path.glob("crash-*")
    assert b"\xf0\x8f\xbf\xbf" in crash.read_bytes()


def test_the_afl_build_of_the_mutator_is_a_custom_mutator_library(utf8, utf8_kit, tmp_path):
    library, harness = tmp_path / "mutator.so", tmp_path / "afl-harness"
    flags = ["-g", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    subprocess.run([GCC, *flags, "-shared", "-fPIC", "-DFUZZKIT_AFL", str(utf8_kit / "mutator.c"), "-o",
                    str(library)], check=True)
    subprocess.run([GCC, *flags, str(HARNESSES / "fuzzkit_afl.c"), "-o", str(harness), "-ldl"], check=True)
    inputs = _valid_inputs(utf8, 200)
    lines = [f"{seed} {_hex(data)} {_hex(inputs[-seed]) if seed % 3 == 0 else '-'}" for seed, data in enumerate(inputs)]
    run = subprocess.run([str(harness), str(library)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         check=True, timeout=300)
    first, *rest = run.stdout.split("\n")[:-1]
    assert first == "splice_optional 1"
    outputs = [b"" if out == "-" else bytes.fromhex(out) for out in rest]
    assert len(outputs) == len(inputs) and all(len(out) <= 256 for out in outputs)
    assert sum(out != data for out, data in zip(outputs, inputs, strict=True)) > len(inputs) // 2
    assert sum(utf8.minimal.matches(out) for out in outputs) > len(inputs) // 2  # most edits keep the states
    again = subprocess.run([str(harness), str(library)], input="\n".join(lines) + "\n", capture_output=True,
                           text=True, check=True, timeout=300)
    assert again.stdout == run.stdout


def test_libfuzzer_with_the_pushdown_mutator_finds_an_escape_three_levels_deep(json_kit, tmp_path):
    """A JSON validator whose strings three levels deep take a \\u escape of three hex digits,
    fuzzed from one shallow text without the kit's corpus (seed 3: about 1,800 runs; seeds 1, 2
    and 4 took 433,000, 6,200 and 1,100)."""
    missing = _libfuzzer_missing()
    if missing:
        pytest.skip(missing)
    clang = [str(CLANG), "-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-I", str(json_kit)]
    kit = [str(json_kit / name) for name in ("fuzz_target.c", "json.c", "mutator.c")]
    planted = ROOT / "bench" / "fuzz_targets" / "json_deep_escape.c"
    subprocess.run([*clang, *kit, str(planted), "-o", str(tmp_path / "planted")], check=True)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "seed").write_bytes(b'{"a": ["\\u00e9", 1]}')
    found = subprocess.run([str(tmp_path / "planted"), "-seed=3", "-max_len=64", f"-artifact_prefix={tmp_path}/",
                            f"-dict={json_kit / 'json.dict'}", "-runs=400000", str(corpus)],
                           capture_output=True, text=True, timeout=600)
    assert "the grammar refuses this input" in found.stderr and "user_accepts accepts it" in found.stderr
    [crash] = tmp_path.glob("crash-*")
    assert re.search(rb'\\u[0-9a-fA-F]{3}[^0-9a-fA-F]', crash.read_bytes())


@pytest.mark.skipif(shutil.which("afl-fuzz") is None or shutil.which("afl-clang-fast") is None,
                    reason="AFL++ is not installed (apt-get install afl++)")
def test_afl_fuzz_runs_with_the_mutator(utf8_kit, tmp_path):
    import os

    sources = [str(utf8_kit / name) for name in ("fuzz_target.c", "utf8.c", "user_accepts.c")]
    env = {**os.environ, "AFL_QUIET": "1"}
    subprocess.run(["afl-clang-fast", "-O1", "-DFUZZKIT_STDIN_MAIN", "-I", str(utf8_kit), *sources, "-o",
                    str(tmp_path / "target")], check=True, env=env, capture_output=True)
    subprocess.run([GCC, "-O2", "-shared", "-fPIC", "-DFUZZKIT_AFL", str(utf8_kit / "mutator.c"), "-o",
                    str(tmp_path / "mutator.so")], check=True)
    given = tmp_path / "in"
    given.mkdir()
    (given / "seed").write_bytes(b"a\xc3\xa4")
    env.update(AFL_SKIP_CPUFREQ="1", AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1", AFL_NO_UI="1", AFL_NO_AFFINITY="1",
               AFL_CUSTOM_MUTATOR_LIBRARY=str(tmp_path / "mutator.so"))
    result = subprocess.run(["afl-fuzz", "-i", str(given), "-o", str(tmp_path / "out"), "-V", "3", "-s", "1", "--",
                             str(tmp_path / "target")], env=env, capture_output=True, text=True, timeout=120)
    stats = tmp_path / "out" / "default" / "fuzzer_stats"
    if not stats.exists():
        pytest.skip(f"afl-fuzz did not start here: {result.stdout[-500:]}")
    executions = int(re.search(r"execs_done\s*:\s*(\d+)", stats.read_text()).group(1))  # type: ignore[union-attr]
    assert executions > 100
    assert "custom mutator" in result.stdout.lower()
    assert not list((tmp_path / "out" / "default" / "crashes").glob("id:*"))  # the stub agrees with the oracle


def _go_unquote(text: str) -> bytes:
    body = text.removeprefix('[]byte("').removesuffix('")')
    return re.sub(rb'\\x([0-9a-f]{2})|\\(["\\])', lambda m: bytes.fromhex(m.group(1).decode()) if m.group(1)
                  else m.group(2), body.encode("ascii"))


def test_the_go_kit_runs_its_corpus(utf8, tmp_path, capsys):
    from abnfc.backends.go.runner import environment

    assert run_cli(capsys, "fuzz-kit", UTF8, "--lang", "go", "--out", str(tmp_path))[0] == 0
    files = sorted((tmp_path / "testdata" / "fuzz" / "FuzzValid").iterdir())
    inputs = []
    for path in files:
        header, value, end = path.read_text().split("\n")
        assert header == "go test fuzz v1" and end == ""
        inputs.append(_go_unquote(value))
    assert inputs and sorted(inputs) == sorted(seeds.corpus(utf8, 0, 1000))
    go = shutil.which("go")
    if go is None:
        pytest.skip("the Go toolchain ('go') is not installed: apt-get install golang-go")
    result = subprocess.run([go, "test", "-run", "FuzzValid", "-v", "."], cwd=tmp_path, env=environment(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("--- PASS: FuzzValid/") == len(files)


def test_the_rust_kit_checks_its_corpus_without_libfuzzer(utf8, tmp_path, capsys):
    """libfuzzer-sys is not available offline: the target is built with --cfg abnfc_plain, which
    leaves out fuzz_target! and checks the files it is given."""
    assert run_cli(capsys, "fuzz-kit", UTF8, "--lang", "rust", "--out", str(tmp_path))[0] == 0
    corpus = sorted((tmp_path / "corpus" / "fuzz_valid").iterdir())
    assert sorted(path.read_bytes() for path in corpus) == sorted(seeds.corpus(utf8, 0, 1000))
    assert 'libfuzzer-sys = "0.4"' in (tmp_path / "Cargo.toml").read_text()
    rustc = rust_tool("rustc")
    program = tmp_path / "check"
    target = tmp_path / "fuzz_targets" / "fuzz_valid.rs"
    subprocess.run([rustc, "--edition", "2021", "--cfg", "abnfc_plain", str(target), "-o", str(program)], check=True,
                   capture_output=True, timeout=600)
    result = subprocess.run([str(program), *map(str, corpus)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_a_recursive_grammar_without_a_pushdown_validator_is_refused_with_a_reason(tmp_path, capsys):
    grammar = tmp_path / "ambiguous.abnf"
    grammar.write_text('s = "a" s "a" / "a"\n')
    status, _out, err = run_cli(capsys, "fuzz-kit", str(grammar), "--lang", "c", "--out", str(tmp_path / "kit"))
    assert status == 2
    assert "gets no pushdown validator" in err
    assert not (tmp_path / "kit").exists() or not list((tmp_path / "kit").iterdir())


def test_the_corpus_stops_at_the_work_limit_and_names_it(tmp_path, capsys):
    """A chain of 40 states builds in a few hundred steps, but its vectors are 40-byte inputs for
    each state: their bytes pass --max-work 1000, and the command stops there with the limit's
    message and writes nothing; with the default limit the same kit is written."""
    import time

    grammar = tmp_path / "chain.abnf"
    grammar.write_text('r = 40"a" *"b"\n')
    started = time.process_time()
    status, _out, err = run_cli(capsys, "fuzz-kit", str(grammar), "--lang", "c", "--out", str(tmp_path / "kit"),
                                "--max-work", "1000")
    assert status == 2 and "seed corpus took more than 1,000 steps (--max-work" in err, err
    assert time.process_time() - started < 30  # stopped, not hung (a loose bound on CPU time)
    assert not (tmp_path / "kit").exists() or not list((tmp_path / "kit").iterdir())
    status, _out, err = run_cli(capsys, "fuzz-kit", str(grammar), "--lang", "c", "--out", str(tmp_path / "kit"))
    assert status == 0 and list((tmp_path / "kit" / "corpus").iterdir()), err
    work = seeds.meter(Compilation(load(str(grammar))))
    seeds.corpus(Compilation(load(str(grammar))), 0, 1000, work=work)
    assert 1000 < work.spent < 100_000  # what the limit counted: well under the default


def test_a_bad_path_or_output_folder_is_a_usage_error(tmp_path, capsys):
    status, _out, err = run_cli(capsys, "fuzz-kit", str(tmp_path / "missing.abnf"), "--lang", "c",
                                "--out", str(tmp_path / "kit"))
    assert status == 2 and "missing.abnf" in err
    (tmp_path / "file").write_text("")
    status, _out, err = run_cli(capsys, "fuzz-kit", UTF8, "--lang", "c", "--out", str(tmp_path / "file"))
    assert status == 2 and "it is a file, not a folder" in err


def test_the_command_line_repeats_the_kits_constants():
    from abnfc import fuzzkit
    from abnfc.commands import fuzz_kit

    assert (fuzz_kit.LANGUAGES, fuzz_kit.DEFAULT_MAX_SEEDS) == (fuzzkit.LANGUAGES, fuzzkit.DEFAULT_MAX_SEEDS)
