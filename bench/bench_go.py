"""The generated Go against Go's standard library, in one Go program.

UTF-8 (grammars/utf8.abnf) on the 16 MiB corpora of bench/corpora.py (ASCII, mixed text with
about 60% ASCII, Chinese, emoji, random valid UTF-8): the generated ``IsValid`` with its window
test (``auto``: AVX2 assembly, where the CPU has AVX2) and in every strategy named (the byte loop
alone, as ``auto`` with ``PureGo`` set, which picks pairs for this automaton), against ``unicode/utf8.Valid`` and, as a
reference, the generated C's AVX2 instance (``utf8_is_valid`` of ``--lang c``, built with
``-DUTF8_WINDOW_TEST_AVX2`` and called through cgo: one call per corpus, so the call costs
nothing measurable; left out with ``--no-c`` or where no C compiler builds it).

URI references, one long input (a URI of the corpus size, a third each path, query and
fragment): the generated Go against the generated C (table, 4 segments) with its SIMD runs and
without (``-DURI_NO_SIMD``, the portable code Go's loop corresponds to).

URI references (grammars/uri.abnf, start rule URI-reference): the generated ``IsValid`` on each
line of the URI corpus on its own, against Go's ``regexp`` (RE2: linear time) with an expression
written from the same rules of RFC 3986 (``URI_REGEXP`` below); both must agree on every line.

JSON (grammars/json.abnf, a pushdown validator): the generated ``IsValid`` on bench/bench_json.py's
16 MiB document against ``encoding/json.Valid``.

The program times each contender on each corpus in turn, each round; a time is the least of a
few passes (after an untimed one), and the table gives the median over rounds, the throughput
and the ratio: the standard library's time over the generated code's (above 1: the generated
code is faster).  Times are wall-clock inside the Go program (monotonic clock, no allocation in
the timed loops, so no collector work), with nothing but the loop being timed.

    python bench/bench_go.py [--size MiB] [--rounds N] [--passes N] [--uri-lines N] [--no-c]
    python bench/bench_go.py --smoke      # small inputs: build, check that all agree
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import corpora  # noqa: E402  (bench/corpora.py)
from bench_json import document  # noqa: E402  (bench/bench_json.py)

import abnfc  # noqa: E402
from abnfc.backends.go.runner import environment  # noqa: E402

UTF8 = ROOT / "grammars" / "utf8.abnf"
URI = ROOT / "grammars" / "uri.abnf"
JSON = ROOT / "grammars" / "json.abnf"
STRATEGIES = ("pairs", "shift", "table")
C_REFERENCE = "generated C, AVX2 (cgo)"

CGO_FILE = """package main

/*
#cgo CFLAGS: -O2 -DUTF8_WINDOW_TEST_AVX2 -DURINS_NO_SIMD
#include "utf8.h"
#include "uri.h"
#include "urins.h"
*/
import "C"

import "unsafe"

func init() {
	validators = append(validators, struct {
		name string
		f    func([]byte) bool
	}{"C_REFERENCE", cAVX2})
	longValidators = append(longValidators, struct {
		name string
		f    func([]byte) bool
	}{"generated C (table, 4 segments, SIMD runs)", cURI})
	longValidators = append(longValidators, struct {
		name string
		f    func([]byte) bool
	}{"generated C (table, 4 segments, URI_NO_SIMD)", cURIPortable})
}

// cURIPortable is the generated C's uri_is_valid without SIMD (-DURI_NO_SIMD, as urins).
func cURIPortable(b []byte) bool {
	if len(b) == 0 {
		return bool(C.urins_is_valid(nil, 0))
	}
	return bool(C.urins_is_valid(unsafe.Pointer(&b[0]), C.size_t(len(b))))
}

// cURI is the generated C's uri_is_valid (its default settings).
func cURI(b []byte) bool {
	if len(b) == 0 {
		return bool(C.uri_is_valid(nil, 0))
	}
	return bool(C.uri_is_valid(unsafe.Pointer(&b[0]), C.size_t(len(b))))
}

// cAVX2 is the generated C's utf8_is_valid, its AVX2 instance.
func cAVX2(b []byte) bool {
	if len(b) == 0 {
		return bool(C.utf8_is_valid(nil, 0))
	}
	return bool(C.utf8_is_valid(unsafe.Pointer(&b[0]), C.size_t(len(b))))
}
""".replace("C_REFERENCE", C_REFERENCE)


def _uri_regexp() -> str:
    """RFC 3986's URI-reference (section 4.1 and appendix A) as one RE2 expression, rule by rule.
    ABNF strings are case-insensitive, so HEXDIG takes a-f and IPvFuture's "v" takes V."""
    hexdig = "[0-9A-Fa-f]"
    unreserved_sub = r"A-Za-z0-9\-._~!$&'()*+,;="
    pct = f"%{hexdig}{hexdig}"
    pchar = f"(?:[{unreserved_sub}:@]|{pct})"
    dec_octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
    ipv4 = rf"{dec_octet}\.{dec_octet}\.{dec_octet}\.{dec_octet}"
    h16 = f"{hexdig}{{1,4}}"
    ls32 = f"(?:{h16}:{h16}|{ipv4})"

    def some(n: int) -> str:  # [ *n( h16 ":" ) h16 ]
        return f"(?:(?:{h16}:){{0,{n}}}{h16})?" if n else f"(?:{h16})?"

    ipv6 = "(?:" + "|".join([
        f"(?:{h16}:){{6}}{ls32}", f"::(?:{h16}:){{5}}{ls32}", f"{some(0)}::(?:{h16}:){{4}}{ls32}",
        f"{some(1)}::(?:{h16}:){{3}}{ls32}", f"{some(2)}::(?:{h16}:){{2}}{ls32}", f"{some(3)}::{h16}:{ls32}",
        f"{some(4)}::{ls32}", f"{some(5)}::{h16}", f"{some(6)}::"]) + ")"
    ip_literal = rf"\[(?:{ipv6}|[vV]{hexdig}+\.[{unreserved_sub}:]+)\]"
    reg_name = f"(?:[{unreserved_sub}]|{pct})*"
    authority = f"(?:(?:[{unreserved_sub}:]|{pct})*@)?(?:{ip_literal}|{ipv4}|{reg_name})(?::[0-9]*)?"
    segment = f"{pchar}*"
    path_abempty = f"(?:/{segment})*"
    path_absolute = f"/(?:{pchar}+(?:/{segment})*)?"
    path_noscheme = f"(?:[{unreserved_sub}@]|{pct})+(?:/{segment})*"
    path_rootless = f"{pchar}+(?:/{segment})*"
    tail = rf"(?:\?(?:{pchar}|[/?])*)?(?:#(?:{pchar}|[/?])*)?"
    uri = f"[A-Za-z][A-Za-z0-9+\\-.]*:(?://{authority}{path_abempty}|{path_absolute}|{path_rootless}|){tail}"
    relative = f"(?://{authority}{path_abempty}|{path_absolute}|{path_noscheme}|){tail}"
    return f"^(?:{uri}|{relative})$"


URI_REGEXP = _uri_regexp()

PROGRAM = """package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

{imports}
)

var uriPattern = regexp.MustCompile({pattern})

// long URI references, one input each
var longValidators = []struct {{
	name string
	f    func([]byte) bool
}}{{
	{{"abnfc IsValid (table, runs)", {uri}.IsValid}},
}}

var validators = []struct {{
	name string
	f    func([]byte) bool
}}{{
{validators}
	{{"unicode/utf8.Valid", utf8.Valid}},
}}

// least runs f once untimed, then passes times; returns the least time and f's answer.
func least(passes int, f func() int) (float64, int) {{
	answer := f()
	best := -1.0
	for p := 0; p < passes; p++ {{
		start := time.Now()
		answer = f()
		if s := time.Since(start).Seconds(); best < 0 || s < best {{
			best = s
		}}
	}}
	return best, answer
}}

func main() {{
	rounds, _ := strconv.Atoi(os.Args[1])
	passes, _ := strconv.Atoi(os.Args[2])
	names := os.Args[3 : len(os.Args)-3]
	long, _ := os.ReadFile(os.Args[len(os.Args)-3])
	corpora := make([][]byte, len(names))
	for k, name := range names {{
		corpora[k], _ = os.ReadFile(name)
	}}
	uris, _ := os.ReadFile(os.Args[len(os.Args)-2])
	document, _ := os.ReadFile(os.Args[len(os.Args)-1])
	lines := bytes.Split(bytes.TrimSuffix(uris, []byte("\\n")), []byte("\\n"))
	for r := 0; r < rounds; r++ {{
		for k, data := range corpora {{
			for _, v := range validators {{
				seconds, answer := least(passes, func() int {{
					if v.f(data) {{
						return 1
					}}
					return 0
				}})
				fmt.Printf("utf8\\t%s\\t%d\\t%g\\t%d\\n", v.name, k, seconds, answer)
			}}
		}}
		seconds, answer := least(passes, func() int {{
			n := 0
			for _, line := range lines {{
				if {uri}.IsValid(line) {{
					n++
				}}
			}}
			return n
		}})
		fmt.Printf("uri\\tabnfc IsValid\\t0\\t%g\\t%d\\n", seconds, answer)
		for _, v := range longValidators {{
			seconds, answer = least(passes, func() int {{
				if v.f(long) {{
					return 1
				}}
				return 0
			}})
			fmt.Printf("urilong\\t%s\\t0\\t%g\\t%d\\n", v.name, seconds, answer)
		}}
		seconds, answer = least(passes, func() int {{
			n := 0
			for _, line := range lines {{
				if uriPattern.Match(line) {{
					n++
				}}
			}}
			return n
		}})
		fmt.Printf("uri\\tregexp.Match\\t0\\t%g\\t%d\\n", seconds, answer)
		same := 0
		for _, line := range lines {{
			if {uri}.IsValid(line) == uriPattern.Match(line) {{
				same++
			}}
		}}
		fmt.Printf("agree\\turi\\t0\\t0\\t%d\\n", same)
		for _, v := range []struct {{
			name string
			f    func([]byte) bool
		}}{{{{"abnfc IsValid (pushdown)", abnfjson.IsValid}}, {{"encoding/json.Valid", json.Valid}}}} {{
			seconds, answer = least(passes, func() int {{
				if v.f(document) {{
					return 1
				}}
				return 0
			}})
			fmt.Printf("json\\t%s\\t0\\t%g\\t%d\\n", v.name, seconds, answer)
		}}
	}}
}}
"""


def long_uri(size: int) -> bytes:
    """A valid URI of ``size`` bytes, its path, query and fragment a third each: runs of path
    characters with a percent escape here and there."""
    rng = random.Random(3986)
    third = size // 3
    chars = b"abcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@"
    part = bytes(rng.choice(chars) for _ in range(third)).replace(b"@", b"%41")
    data = b"http://example.com/" + part + b"?" + part + b"#" + part
    return data[:size]


def go_quote(text: str) -> str:
    """A Go raw string literal (the expression has no backquote)."""
    assert "`" not in text
    return f"`{text}`"


def build(folder: Path, with_c: bool) -> Path:
    module = folder / "bench"
    module.mkdir()
    (module / "go.mod").write_text("module bench\n\ngo 1.19\n", encoding="utf-8")
    packages = {"abnfutf8": abnfc.generate_files(UTF8, "go", prefix="abnfutf8")}
    packages.update({f"abnfutf8{s}": abnfc.generate_files(UTF8, "go", prefix=f"abnfutf8{s}", options={"strategy": s})
                     for s in STRATEGIES})
    packages["abnfuri"] = abnfc.generate_files(URI, "go", prefix="abnfuri")
    packages["abnfjson"] = abnfc.generate_files(JSON, "go", prefix="abnfjson")
    for name, files in packages.items():
        (module / name).mkdir()
        for file, text in files.items():
            (module / name / file).write_text(text, encoding="utf-8")
    validators = '\t{"abnfc IsValid (auto: window test)", abnfutf8.IsValid},\n' + "".join(
        f'\t{{"abnfc IsValid ({s}{", auto with PureGo" if s == "pairs" else ""})", abnfutf8{s}.IsValid}},\n'
        for s in STRATEGIES)
    program = PROGRAM.format(imports="".join(f'\t"bench/{name}"\n' for name in packages),
                             pattern=go_quote(URI_REGEXP), validators=validators, uri="abnfuri")
    (module / "main.go").write_text(program, encoding="utf-8")
    env = environment()
    if with_c:
        files = {**abnfc.generate_files(UTF8, "c", prefix="utf8"), **abnfc.generate_files(URI, "c", prefix="uri"),
                 **abnfc.generate_files(URI, "c", prefix="urins")}
        for file, text in files.items():
            (module / file).write_text(text, encoding="utf-8")
        (module / "cref.go").write_text(CGO_FILE, encoding="utf-8")
        env["CGO_ENABLED"] = "1"
    binary = folder / "bench-go"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=module, env=env, check=True)
    return binary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=16, help="corpus size in MiB (default 16)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds; the median counts (default 7)")
    parser.add_argument("--passes", type=int, default=3, help="timed passes per round; the least counts")
    parser.add_argument("--uri-lines", type=int, default=200_000, help="URIs in the URI corpus")
    parser.add_argument("--smoke", action="store_true", help="small inputs: build, check that all agree")
    parser.add_argument("--no-c", action="store_true", help="leave out the generated C's AVX2 instance")
    args = parser.parse_args()
    if shutil.which("go") is None:
        print("go not found: apt-get install golang-go", file=sys.stderr)
        return 2
    if args.smoke:
        args.size, args.rounds, args.passes, args.uri_lines = 1, 1, 1, 2000
    size = args.size << 20
    data = {name: blob for name, blob in corpora.utf8_corpora(size).items()}
    lines = corpora.uri_lines(args.uri_lines)
    with tempfile.TemporaryDirectory(prefix="abnfc-bench-go-") as name:
        folder = Path(name)
        binary = build(folder, not args.no_c and shutil.which(os.environ.get("CC", "gcc")) is not None)
        paths = []
        for corpus, blob in data.items():
            paths.append(folder / f"{corpus}.txt")
            paths[-1].write_bytes(blob)
        (folder / "long.txt").write_bytes(long_uri(size))
        (folder / "uri.txt").write_bytes(b"\n".join(lines) + b"\n")
        (folder / "doc.json").write_bytes(document(size))
        ran = subprocess.run([str(binary), str(args.rounds), str(args.passes), *map(str, paths),
                              str(folder / "long.txt"), str(folder / "uri.txt"), str(folder / "doc.json")],
                             capture_output=True, text=True,
                             check=True)
    return report(ran.stdout, list(data), size, lines, args)


def report(output: str, names: list[str], size: int, lines: list[bytes], args: argparse.Namespace) -> int:
    times: dict[tuple[str, str, str], list[float]] = {}
    answers: dict[tuple[str, str, str], set[int]] = {}
    for row in output.splitlines():
        kind, label, corpus, seconds, answer = row.split("\t")
        times.setdefault((kind, label, corpus), []).append(float(seconds))
        answers.setdefault((kind, label, corpus), set()).add(int(answer))
    medians = {key: statistics.median(value) for key, value in times.items()}
    labels = list(dict.fromkeys(label for kind, label, _ in times if kind == "utf8"))
    reference = "unicode/utf8.Valid"
    with_c = ("utf8", C_REFERENCE, "0") in medians
    print(f"UTF-8, {args.size} MiB corpora: GB/s (median of {args.rounds} rounds, each the least of "
          f"{args.passes} passes) and {reference}'s time over each one's (above 1: faster than it)"
          + (f"; in brackets, the {C_REFERENCE}'s time over each one's" if with_c else ""))
    print("| validator | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    failed = False
    for label in labels:
        cells = []
        for k in range(len(names)):
            key, peer = ("utf8", label, str(k)), ("utf8", reference, str(k))
            failed |= answers[key] != answers[peer]
            versus_c = f" ({medians[('utf8', C_REFERENCE, str(k))] / medians[key]:4.2f}x)" if with_c else ""
            cells.append(f"{size / medians[key] / 1e9:5.2f} GB/s {medians[peer] / medians[key]:5.2f}x{versus_c}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    uri_bytes = sum(map(len, lines))
    ours, theirs = medians[("uri", "abnfc IsValid", "0")], medians[("uri", "regexp.Match", "0")]
    agree = min(answers[("agree", "uri", "0")])
    print(f"\nURI references: {len(lines)} lines, {uri_bytes / len(lines):.0f} bytes on average, each validated "
          f"on its own; {agree} of {len(lines)} lines get the same verdict "
          f"({min(answers[('uri', 'abnfc IsValid', '0')])} valid)")
    print(f"| abnfc IsValid (table) | {uri_bytes / ours / 1e6:8.0f} MB/s | {theirs / ours:6.2f}x |")
    print(f"| regexp.Match          | {uri_bytes / theirs / 1e6:8.0f} MB/s | {1:6.2f}x |")
    long_labels = [label for kind, label, _ in medians if kind == "urilong"]
    long_answers = set().union(*(answers[("urilong", label, "0")] for label in long_labels))
    print(f"\nOne URI of {args.size} MiB (long path, query and fragment), valid for all: {long_answers == {1}}")
    for label in long_labels:
        seconds = medians[("urilong", label, "0")]
        print(f"| {label} | {size / seconds / 1e9:5.2f} GB/s |")
    failed |= long_answers != {1}
    ours, theirs = medians[("json", "abnfc IsValid (pushdown)", "0")], medians[("json", "encoding/json.Valid", "0")]
    verdicts = answers[("json", "abnfc IsValid (pushdown)", "0")] | answers[("json", "encoding/json.Valid", "0")]
    print(f"\nJSON: a {args.size} MiB document (bench/bench_json.py), valid for both: {verdicts == {1}}")
    print(f"| abnfc IsValid (pushdown) | {size / ours / 1e6:8.0f} MB/s | {theirs / ours:6.2f}x |")
    print(f"| encoding/json.Valid      | {size / theirs / 1e6:8.0f} MB/s | {1:6.2f}x |")
    failed |= verdicts != {1}
    if failed or agree != len(lines):
        print("the validators disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
