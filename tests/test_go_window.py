"""The Go backend's window test (abnfc.backends.go.window): the AVX2 assembly of ``IsValid`` and
``FirstError`` and the byte loop (``PureGo`` set) against the generated Python module, on UTF-8
and the variants that have a nibble test: class-edge words after prefixes that put them across
the 32- and 64-byte steps and the padded tail, mutated live walks, inputs written one byte at a
time; then, inside each package (a test file of its own, with the unexported functions), every
word of up to 3 representative bytes after such prefixes, the assembly against the byte loop,
and a short run of a native fuzz target comparing the two.  The NEON assembly: the same words,
built with GOARCH=arm64 and run under qemu-aarch64.  Where the CPU has no AVX2 (or qemu is
missing) the assembly does not run, and the tests that need it skip, saying so.
"""
from __future__ import annotations

import itertools
import random
import shutil
import subprocess

import pytest
from conftest import compile_text, python_module
from helpers.cpu import cpu_has
from helpers.go_build import go, go_package, need_go, write_module
from helpers.paths import GRAMMARS
from helpers.walks import class_edges, mutated_walks
from test_c_nibble import representatives
from test_go import compile_tables

from abnfc import backends
from abnfc.automata.dfa import Dfa
from abnfc.backends.go.render import WINDOW_FILES
from abnfc.pipeline import load_validators

NAMES = {"utf8": "utf8.abnf", "java": "variants/java-modified-utf8.abnf", "wtf8": "variants/wtf8.abnf",
         "cesu8": "variants/cesu8.abnf", "general": "variants/generalized-utf8.abnf"}
TEXTS = {name: (GRAMMARS / path).read_text(encoding="utf-8") for name, path in NAMES.items()}
needs_avx2 = pytest.mark.skipif(not cpu_has("avx2"), reason="this CPU has no AVX2: the window test does not run here")
QEMU = shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static") or ""
needs_qemu = pytest.mark.skipif(not QEMU, reason="no qemu-aarch64 (Debian: qemu-user): NEON not checked")


def prefixes(dfa: Dfa) -> list[bytes]:
    """Valid prefixes ending 61, 64 and 93 bytes in, and 121 and 125 (the words after them
    straddle the 64-byte steps and the tail the Go copies), some after 2- and 3-byte characters."""
    found = [b"", b"a" * 61, "é".encode() * 30 + b"a", b"a" * 64, b"a" * 64 + "é".encode() * 14 + b"a",
             "€".encode() * 40 + b"a", b"a" * 125]
    assert all(dfa.matches(prefix) for prefix in found)
    return found


def test_the_plan_has_the_window_test_where_it_applies():
    go_backend = backends.get("go")
    utf8 = go_backend.lower(compile_tables(TEXTS["utf8"]), {"prefix": "g", "strategy": "auto"}).window
    assert utf8 is not None and (utf8.k, utf8.lookups, utf8.boxes) == (3, 3, 7)
    assert utf8.quiet_low and utf8.quiet_start and (utf8.before, utf8.after) == (0, 0)
    java = go_backend.lower(compile_tables(TEXTS["java"]), {"prefix": "g", "strategy": "auto"}).window
    assert java is not None and not java.quiet_low  # 00 is no character there: bytes 00-7F are two classes
    for text, options in [(TEXTS["utf8"], {"strategy": "pairs"}),  # a strategy named runs as it is
                          ((GRAMMARS / "uri.abnf").read_text(encoding="utf-8"), {})]:  # not definite
        assert go_backend.lower(compile_tables(text), {"prefix": "g", "strategy": "auto", **options}).window is None
    files = go_package(TEXTS["utf8"], "utf8")
    assert sorted(files) == sorted(["utf8.go", *(f"utf8{suffix}" for suffix in WINDOW_FILES)])
    assert "//go:build !purego" in files["utf8_amd64.s"] and "//go:build !purego" in files["utf8_arm64.s"]
    assert "//go:build (!amd64 && !arm64) || purego" in files["utf8_other.go"]
    assert "var PureGo = false" in files["utf8.go"]


@pytest.fixture(scope="module")
def loaded():
    need_go()
    return dict(zip(TEXTS, load_validators([go_package(text, name) for name, text in TEXTS.items()], "go"),
                    strict=True))


def _inputs(dfa: Dfa, name: str) -> list[bytes]:
    edges = class_edges(dfa)
    words = [bytes(w) for n in (1, 2) for w in itertools.product(edges, repeat=n)]
    words += [pair + b"\x80" * n for pair in words if len(pair) == 2 for n in (1, 2)]
    rng = random.Random(name)
    inputs = [prefix + word for prefix in prefixes(dfa) for word in words]
    inputs += mutated_walks(dfa, rng, 300, 400, ascii_share=0.3, cut_share=0.2)
    inputs += mutated_walks(dfa, rng, 100, 400, ascii_share=0.9, cut_share=0.2)
    return inputs


@needs_avx2
@pytest.mark.parametrize("name", list(NAMES))
def test_both_instances_agree_with_the_python_module(loaded, name):
    minimal = compile_text(TEXTS[name]).minimal
    module = python_module(TEXTS[name])
    inputs = _inputs(minimal, name)
    want = [module.first_error(data) for data in inputs]
    for validator in (loaded[name], loaded[name].pure_go()):
        assert backends.first_errors(validator, inputs) == want, validator.pure
        verdicts = [validator.is_valid(data) for data in inputs[::7]]
        assert verdicts == [at is None for at in want[::7]], validator.pure


@pytest.mark.parametrize("name", ["utf8", "cesu8"])
def test_written_one_byte_at_a_time(loaded, name):
    minimal = compile_text(TEXTS[name]).minimal
    module = python_module(TEXTS[name])
    for data in mutated_walks(minimal, random.Random(name), 6, 200, ascii_share=0.5):
        stream = loaded[name].Validator()
        for byte in data:
            stream.feed(bytes([byte]))
        assert stream.first_error() == module.first_error(data), data


# Inside each package: the assembly (windowValid) against the byte loop, on every word of up to 3
# bytes of the alphabet after each prefix, and a fuzz target comparing the two.
INSIDE = """package {p}

import "testing"

func loopValid(data []byte) bool {{
	st, at := scan(start, data)
	return at == len(data) && accepts(st)
}}

var alphabet = []byte{{{alphabet}}}

var prefixes = []string{{{prefixes}}}

func TestWindowWords(t *testing.T) {{
	if !haveWindow {{
		t.Skip("no AVX2")
	}}
	buf := make([]byte, 0, 256)
	checked := 0
	for _, prefix := range prefixes {{
		for n := 1; n <= 3; n++ {{
			word := make([]int, n)
			for {{
				buf = append(buf[:0], prefix...)
				for _, k := range word {{
					buf = append(buf, alphabet[k])
				}}
				if windowValid(buf) != loopValid(buf) {{
					t.Fatalf("%x: the window test says %v", buf, windowValid(buf))
				}}
				checked++
				k := n - 1
				for k >= 0 && word[k] == len(alphabet)-1 {{
					word[k] = 0
					k--
				}}
				if k < 0 {{
					break
				}}
				word[k]++
			}}
		}}
	}}
	t.Logf("checked %d", checked)
}}

func FuzzWindow(f *testing.F) {{
	for _, prefix := range prefixes {{
		f.Add([]byte(prefix + "\\xe4\\xbd\\xa0"))
	}}
	f.Fuzz(func(t *testing.T, data []byte) {{
		if haveWindow && windowValid(data) != loopValid(data) {{
			t.Fatalf("%x: the window test says %v", data, windowValid(data))
		}}
	}})
}}
"""


def _inside(name: str) -> str:
    minimal = compile_text(TEXTS[name]).minimal
    return INSIDE.format(p=name, alphabet=", ".join(f"0x{b:02X}" for b in representatives(minimal)),
                         prefixes=", ".join('"' + "".join(f"\\x{b:02x}" for b in p) + '"' for p in prefixes(minimal)))


@needs_avx2
def test_every_short_word_after_the_prefixes_and_a_fuzz_run(tmp_path):
    need_go()
    packages: dict = {}
    for name, text in TEXTS.items():
        packages[name] = {**go_package(text, name), f"{name}_window_test.go": _inside(name)}
    module = write_module(tmp_path, packages)
    ran = go(module, "test", "-count=1", "-v", "-run", "TestWindowWords", "./...")
    checked = [int(line.split()[-1]) for line in ran.stdout.splitlines() if "checked" in line]
    assert len(checked) == len(TEXTS) and min(checked) > 100_000, ran.stdout
    fuzzed = go(module, "test", "-run", "^$", "-fuzz", "FuzzWindow", "-fuzztime", "2s", "-parallel", "1", "./utf8")
    assert "PASS" in fuzzed.stdout, fuzzed.stdout


@needs_qemu
def test_neon_every_short_word_after_the_prefixes_under_qemu(tmp_path):
    """UTF-8 (quiet steps of bytes 00-7F, the equivalence bit) and CESU-8 (two groups of box
    bits, tables read from memory in the loop)."""
    need_go()
    names = ["utf8", "cesu8"]
    module = write_module(tmp_path, {name: {**go_package(TEXTS[name], name), f"{name}_window_test.go": _inside(name)}
                                     for name in names})
    assert "VLD1 (R4), [V8.B16]" in (module / "cesu8" / "cesu8_arm64.s").read_text(encoding="utf-8")
    for name in names:
        program = tmp_path / f"{name}.test"
        go(module, "test", "-c", "-o", str(program), f"./{name}", goarch="arm64")
        ran = subprocess.run([QEMU, str(program), "-test.run", "TestWindowWords", "-test.v"], capture_output=True,
                             text=True, timeout=300)
        assert ran.returncode == 0 and "--- PASS" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-2000:]
        assert int(ran.stdout.split("checked ")[1].split()[0]) > 100_000


def test_the_purego_tag_and_other_architectures_build_and_vet(tmp_path):
    need_go()
    module = write_module(tmp_path, {"utf8": go_package(TEXTS["utf8"], "utf8")})
    go(module, "vet", "-tags", "purego", "./...")
    for goarch in ("386", "arm64", "s390x"):
        go(module, "vet", "./...", goarch=goarch)
    listed = subprocess.run(["gofmt", "-l", "."], cwd=module, capture_output=True, text=True)
    assert listed.stdout == ""
