"""The generated Rust validators against Rust's own and the crates people reach for.

UTF-8 (grammars/utf8.abnf) on the corpora of bench/corpora.py (ASCII, mixed text with about 60%
ASCII, Chinese, emoji, and random valid UTF-8 with every character length alike) at 16 MiB (L3
and beyond), 1 MiB (L2) and 16 KiB (L1), and on 16-, 64- and 256-byte strings cut from them, 8192
distinct ones of each kind (so a branch predictor cannot learn one), timed per call: the
generated ``utf8::is_valid`` (as generated: ``--rust-simd std``, AVX2 found at run time; the
instance that ran is printed) against ``std::str::from_utf8`` and the ``simdutf8`` crate
(``simdutf8::basic::from_utf8``, SIMD chosen at run time); and the same module generated with
``--rust-simd off`` (``utf8_loop::is_valid``, the strategy's loop alone), to show where the window
test starts paying.  On the corpora, a plain read of the same buffer in the same round (AVX2,
aligned, eight vectors ORed a loop turn: "plain read (AVX2)") gives the bandwidth of the memory
it sits in: where that is L3 or beyond (16 MiB), the ceiling of every contender.

URI references (grammars/uri.abnf): the generated ``uri::is_valid`` against the ``regex`` crate
(``regex::bytes::Regex::is_match``) with an expression of the same language, anchored at both
ends and built rule by rule as bench/peers/uri_re2c.re, each line of the URI corpus on its own.

Everything runs in one Rust program built with ``cargo build --release --offline`` (no
``target-cpu``: what a user's release build gets); the crates come from Debian's packages
(``/usr/share/cargo/registry``, a directory source); a crate that cannot be built there is left
out with a note.  The program times each contender on each input (the least wall time of a few
passes after an untimed one, a pass repeating a small input to about 4 MiB) in every round; the
tables give the median over rounds and each contender's speed relative to the references
(``from_utf8`` and ``simdutf8``, or ``regex``): above 1 is faster.

    python bench/bench_rust.py [--size MiB] [--rounds N] [--passes N] [--uri-lines N]
    python bench/bench_rust.py --smoke      # small inputs: build all, check that all agree
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
from bench_c_peers import strings  # noqa: E402  (the same strings as the C comparison)

import abnfc  # noqa: E402
from abnfc.backends.rust.runner import find_tool  # noqa: E402

REGISTRY = Path("/usr/share/cargo/registry")
CRATES = {  # crate -> its line in Cargo.toml
    "simdutf8": 'simdutf8 = "0.1"',
    # Without perf-literal, which needs aho-corasick and memchr (not packaged here); the lazy DFA
    # (perf-dfa) is what decides an anchored expression.
    "regex": 'regex = { version = "1", default-features = false, features = ["std", "perf-dfa", "perf-inline", '
             '"perf-cache"] }',
}


def uri_regex() -> str:
    """URI-reference of RFC 3986 as a regular expression, rule by rule (as bench/peers/uri_re2c.re)."""
    alpha, digit, hexdig = "[A-Za-z]", "[0-9]", "[0-9A-Fa-f]"
    unreserved = r"[A-Za-z0-9\-._~]"
    sub_delims = r"[!$&'()*+,;=]"
    pct = f"%{hexdig}{hexdig}"
    pchar = f"(?:{unreserved}|{pct}|{sub_delims}|[:@])"
    query = f"(?:{pchar}|[/?])*"
    segment, segment_nz = f"{pchar}*", f"{pchar}+"
    segment_nz_nc = f"(?:{unreserved}|{pct}|{sub_delims}|@)+"
    path_abempty = f"(?:/{segment})*"
    path_absolute = f"/(?:{segment_nz}(?:/{segment})*)?"
    path_noscheme = f"{segment_nz_nc}(?:/{segment})*"
    path_rootless = f"{segment_nz}(?:/{segment})*"
    dec_octet = f"(?:{digit}|[1-9]{digit}|1{digit}{digit}|2[0-4]{digit}|25[0-5])"
    ipv4 = rf"{dec_octet}\.{dec_octet}\.{dec_octet}\.{dec_octet}"
    h16 = f"{hexdig}{{1,4}}"
    ls32 = f"(?:{h16}:{h16}|{ipv4})"

    def before(n: int) -> str:  # [ *n( h16 ":" ) h16 ]
        return f"(?:(?:{h16}:){{0,{n}}}{h16})?" if n else f"(?:{h16})?"

    ipv6 = "|".join([
        f"(?:{h16}:){{6}}{ls32}", f"::(?:{h16}:){{5}}{ls32}", f"{before(0)}::(?:{h16}:){{4}}{ls32}",
        f"{before(1)}::(?:{h16}:){{3}}{ls32}", f"{before(2)}::(?:{h16}:){{2}}{ls32}",
        f"{before(3)}::{h16}:{ls32}", f"{before(4)}::{ls32}", f"{before(5)}::{h16}", f"{before(6)}::"])
    ipvfuture = rf"[vV]{hexdig}+\.(?:{unreserved}|{sub_delims}|:)+"
    ip_literal = rf"\[(?:{ipv6}|{ipvfuture})\]"
    reg_name = f"(?:{unreserved}|{pct}|{sub_delims})*"
    host = f"(?:{ip_literal}|{ipv4}|{reg_name})"
    userinfo = f"(?:{unreserved}|{pct}|{sub_delims}|:)*"
    authority = f"(?:{userinfo}@)?{host}(?::{digit}*)?"
    scheme = rf"{alpha}[A-Za-z0-9+\-.]*"
    tail = f"(?:\\?{query})?(?:#{query})?"
    relative = f"(?://{authority}{path_abempty}|{path_absolute}|{path_noscheme}|)"
    hier = f"(?://{authority}{path_abempty}|{path_absolute}|{path_rootless}|)"
    return f"(?-u)^(?:{scheme}:{hier}{tail}|{relative}{tail})$"


MAIN = r"""
use std::time::Instant;

mod uri;
mod utf8;
mod utf8_loop;

/// The least wall time of `passes` passes over `inputs` (each pass calls `f` on every input,
/// `reps` times over), after an untimed one; and the number of inputs `f` accepted.
fn best<F: Fn(&[u8]) -> usize>(inputs: &[&[u8]], reps: usize, passes: usize, f: F) -> (f64, usize) {
    let verdict = inputs.iter().map(|d| f(std::hint::black_box(d))).sum();
    let mut least = f64::INFINITY;
    for _ in 0..passes {
        let start = Instant::now();
        for _ in 0..reps {
            for d in inputs {
                std::hint::black_box(f(std::hint::black_box(d)));
            }
        }
        least = least.min(start.elapsed().as_secs_f64() / reps as f64);
    }
    (least, verdict)
}

/// Whether all of `data` is bytes 00-7F, by a plain read (aligned loads, 8 vectors ORed a loop
/// turn, the ends byte by byte): where the corpus is in L3 or beyond, the ceiling of every
/// contender.
fn read_ceiling(data: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { read_avx2(data) };
    }
    usize::from(data.iter().fold(0, |a, &b| a | b) < 0x80)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn read_avx2(data: &[u8]) -> usize {
    use std::arch::x86_64::*;
    // SAFETY: every bit pattern is a valid __m256i.
    let (head, middle, tail) = unsafe { data.align_to::<[__m256i; 8]>() };
    let mut acc = [_mm256_setzero_si256(); 8];
    for vectors in middle {
        for i in 0..8 {
            acc[i] = _mm256_or_si256(acc[i], vectors[i]);
        }
    }
    let mut any = acc[0];
    for a in &acc[1..] {
        any = _mm256_or_si256(any, *a);
    }
    usize::from(_mm256_movemask_epi8(any) == 0 && head.iter().chain(tail).all(|&b| b < 0x80))
}

fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == b'\n').collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args[1].parse().unwrap();
    let passes: usize = args[2].parse().unwrap();
    let uri_path = &args[3];
    // name:length:path, length 0 for the file as one input, else strings of that many bytes
    let corpora: Vec<(String, usize, Vec<u8>)> = args[4..]
        .iter()
        .map(|spec| {
            let mut parts = spec.splitn(3, ':');
            let name = parts.next().unwrap().to_string();
            let length = parts.next().unwrap().parse().unwrap();
            (name, length, std::fs::read(parts.next().unwrap()).unwrap())
        })
        .collect();
    let uri_data = std::fs::read(uri_path).unwrap();
    let uri_lines = lines(&uri_data);
    println!("instance\t{}", utf8::instance());
    //REGEX_BUILD
    for round in 0..rounds {
        for (name, length, data) in &corpora {
            let inputs: Vec<&[u8]> = if *length == 0 { vec![&data[..]] } else { data.chunks(*length).collect() };
            let reps = (4 << 20) / data.len().max(1) + 1;
            let mut runs: Vec<(&str, (f64, usize))> = vec![
                ("abnfc utf8::is_valid", best(&inputs, reps, passes, |d| usize::from(utf8::is_valid(d)))),
                ("std::str::from_utf8", best(&inputs, reps, passes, |d| usize::from(std::str::from_utf8(d).is_ok()))),
                ("abnfc utf8_loop::is_valid", best(&inputs, reps, passes, |d| usize::from(utf8_loop::is_valid(d)))),
            ];
            //SIMDUTF8_RUN
            if *length == 0 {
                runs.push(("plain read (AVX2)", best(&inputs, reps, passes, read_ceiling)));
            }
            for (label, (seconds, verdict)) in runs.drain(..) {
                println!("utf8\t{round}\t{label}\t{name}\t{seconds}\t{verdict}");
            }
        }
        let mut runs: Vec<(&str, (f64, usize))> = vec![(
            "abnfc uri::is_valid",
            best(&[&uri_data[..]], 1, passes, |_| uri_lines.iter().filter(|l| uri::is_valid(l)).count()),
        )];
        //REGEX_RUN
        for (label, (seconds, verdict)) in runs.drain(..) {
            println!("uri\t{round}\t{label}\turi\t{seconds}\t{verdict}");
        }
    }
}
"""

REGEX_BUILD = """let re = regex::bytes::RegexBuilder::new(include_str!("uri.regex"))
        .size_limit(1 << 28)
        .dfa_size_limit(1 << 28)
        .build()
        .unwrap();"""
REGEX_RUN = """runs.push((
            "regex crate is_match",
            best(&[&uri_data[..]], 1, passes, |_| uri_lines.iter().filter(|l| re.is_match(l)).count()),
        ));"""
SIMDUTF8_RUN = """runs.push((
                "simdutf8::basic::from_utf8",
                best(&inputs, reps, passes, |d| usize::from(simdutf8::basic::from_utf8(d).is_ok())),
            ));"""


def write_project(folder: Path, crates: list[str]) -> None:
    (folder / "src").mkdir(parents=True, exist_ok=True)
    for grammar, prefix, options in (("utf8.abnf", "utf8", {}), ("utf8.abnf", "utf8_loop", {"simd": "off"}),
                                     ("uri.abnf", "uri", {})):
        for name, text in abnfc.generate_files(ROOT / "grammars" / grammar, "rust", prefix=prefix,
                                               options=options).items():
            (folder / "src" / name).write_text(text, encoding="utf-8")
    (folder / "src" / "uri.regex").write_text(uri_regex(), encoding="utf-8")
    main = MAIN
    if "regex" in crates:
        main = main.replace("//REGEX_BUILD", REGEX_BUILD).replace("//REGEX_RUN", REGEX_RUN)
    if "simdutf8" in crates:
        main = main.replace("//SIMDUTF8_RUN", SIMDUTF8_RUN)
    (folder / "src" / "main.rs").write_text(main, encoding="utf-8")
    dependencies = "\n".join(CRATES[c] for c in crates)
    (folder / "Cargo.toml").write_text(
        f'[package]\nname = "bench_rust"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n{dependencies}\n\n'
        "[profile.release]\nopt-level = 3\ncodegen-units = 1\n", encoding="utf-8")
    (folder / ".cargo").mkdir(exist_ok=True)
    (folder / ".cargo" / "config.toml").write_text(
        f'[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "{REGISTRY}"\n',
        encoding="utf-8")


def build(folder: Path) -> tuple[Path, list[str]]:
    """Builds with every crate that builds offline; returns the program and the crates left out."""
    cargo = find_tool("cargo")
    if cargo is None:
        sys.exit("cargo not found (install Rust from https://rustup.rs)")
    env = {**os.environ, "PATH": f"{Path(cargo).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    wanted = [c for c in CRATES if (REGISTRY / c).exists() or any(REGISTRY.glob(f"{c}-*"))]
    attempts = [wanted] + [[c] for c in wanted] + [[]]
    errors = []
    for crates in attempts:
        shutil.rmtree(folder, ignore_errors=True)
        write_project(folder, crates)
        result = subprocess.run([cargo, "build", "--release", "--offline", "--quiet"], cwd=folder, env=env,
                                capture_output=True, text=True)
        if result.returncode == 0:
            return folder / "target" / "release" / "bench_rust", [c for c in CRATES if c not in crates]
        errors.append(result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "failed")
    sys.exit("the benchmark does not build:\n" + "\n".join(errors))


CEILING = "plain read (AVX2)"
SIZES = ((1 << 20, "1 MiB"), (16 << 10, "16 KiB"))  # besides --size
LENGTHS = (16, 64, 256)  # short strings, bytes




def utf8_inputs(size: int, smoke: bool) -> list[tuple[str, int, bytes]]:
    """(name, string length or 0 for one input, bytes) of every UTF-8 input timed."""
    found = []
    sizes = ((size, f"{size >> 20} MiB"), *((s, label) for s, label in SIZES if s < size))
    for bytes_, label in sizes:
        found += [(f"{kind} {label}", 0, blob) for kind, blob in corpora.utf8_corpora(bytes_).items()]
    texts = {kind: blob.decode("utf-8") for kind, blob in corpora.utf8_corpora(1 << 20).items()}
    rng = random.Random(64)
    for length in LENGTHS:
        for kind, text in texts.items():
            blob = strings(text, length, rng)
            found.append((f"{kind} {length} B", length, blob[:length * 64] if smoke else blob))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=16, help="MiB of the largest UTF-8 corpora (default 16)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds; the median counts (default 7)")
    parser.add_argument("--passes", type=int, default=3, help="timed passes per round; the least counts")
    parser.add_argument("--uri-lines", type=int, default=200_000, help="URIs in the URI corpus")
    parser.add_argument("--smoke", action="store_true", help="small inputs, one round: build and check")
    args = parser.parse_args()
    if args.smoke:
        args.size, args.rounds, args.passes, args.uri_lines = 1, 1, 1, 2000
    inputs = utf8_inputs(args.size << 20, args.smoke)
    with tempfile.TemporaryDirectory(prefix="abnfc-bench-rust-") as temp:
        folder = Path(temp)
        program, missing = build(folder / "project")
        specs = []
        for number, (name, length, blob) in enumerate(inputs):
            (folder / f"input{number}").write_bytes(blob)
            specs.append(f"{name}:{length}:{folder / f'input{number}'}")
        uri_lines = corpora.uri_lines(args.uri_lines)
        (folder / "uri.txt").write_bytes(b"\n".join(uri_lines))
        output = subprocess.run([str(program), str(args.rounds), str(args.passes), str(folder / "uri.txt"), *specs],
                                capture_output=True, text=True, check=True).stdout
    for crate in missing:
        print(f"note: the {crate} crate did not build offline from {REGISTRY}; left out")
    return report(output, inputs, uri_lines, args)


def report(output: str, inputs: list[tuple[str, int, bytes]], uri_lines: list[bytes],
           args: argparse.Namespace) -> int:
    times: dict[tuple[str, str, str], list[float]] = {}
    verdicts: dict[tuple[str, str], set[str]] = {}
    instance = "?"
    for line in output.splitlines():
        if line.startswith("instance\t"):
            instance = line.split("\t")[1]
            continue
        kind, _round, label, name, seconds, verdict = line.split("\t")
        times.setdefault((kind, label, name), []).append(float(seconds))
        if label != CEILING:  # it answers "all ASCII?", not "valid?"
            verdicts.setdefault((kind, name), set()).add(verdict)
    disagree = {key: found for key, found in verdicts.items() if len(found) != 1}
    medians = {key: statistics.median(value) for key, value in times.items()}
    labels = list(dict.fromkeys(label for kind, label, _ in medians if kind == "utf8"))
    peers = [label for label in ("std::str::from_utf8", "simdutf8::basic::from_utf8") if label in labels]
    print(f"UTF-8: utf8::is_valid ran the {instance} instance.  Corpora in GB/s, strings in ns a call (median "
          f"of {args.rounds} rounds, each the least wall time of {args.passes} passes); abnfc's speed relative "
          "to each peer (above 1: abnfc is faster)\n")
    print("| input | " + " | ".join(labels) + " | " + " | ".join(f"abnfc vs {p.split('::')[0]}" for p in peers) + " |")
    print("|---" * (1 + len(labels) + len(peers)) + "|")
    for name, length, blob in inputs:
        cells = []
        for label in labels:
            seconds = medians.get(("utf8", label, name))
            if seconds is None:
                cells.append("")
                continue
            cells.append(f"{len(blob) / seconds / 1e9:.2f}" if length == 0 else
                         f"{seconds / (len(blob) // length) * 1e9:.1f}")
        mine = medians[("utf8", labels[0], name)]
        cells += [f"{medians[('utf8', p, name)] / mine:.2f}x" for p in peers]
        print(f"| {name} | " + " | ".join(cells) + " |")
    uri_bytes = sum(map(len, uri_lines))
    print(f"\nURI references: {len(uri_lines)} lines, {uri_bytes / len(uri_lines):.0f} bytes on average, each "
          "validated on its own: MB/s (median) and speed relative to the regex crate\n")
    uri = {label: seconds for (kind, label, _), seconds in medians.items() if kind == "uri"}
    reference = uri.get("regex crate is_match")
    for label, seconds in uri.items():
        ratio = f"{reference / seconds:5.2f}x" if reference else "  n/a"
        print(f"| {label:<27} | {uri_bytes / seconds / 1e6:8.0f} MB/s | {ratio} |")
    valid = next(iter(verdicts.get(("uri", "uri"), {"?"})))
    print(f"\n{valid} of {len(uri_lines)} URI lines are valid" + (" (all contenders agree)" if not disagree else ""))
    for key, found in disagree.items():
        print(f"DISAGREEMENT on {key}: {sorted(found)}")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
