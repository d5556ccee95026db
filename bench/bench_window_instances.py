"""The generated UTF-8 validator's window-test instances side by side, with two peers, on 1 MiB
corpora (bench/corpora.py: mixed, Chinese, emoji, random valid UTF-8, and ASCII).

Instances, each ``utf8_is_valid`` built with gcc -O2 from one generated source and chosen by its
settings: AVX-512 VBMI (the class test; where the CPU has it), AVX2 (the nibble test,
``-DUTF8_WINDOW_TEST_AVX2``), SSE4.1 (``-DUTF8_WINDOW_TEST_SSE41``), and the DFA loop without
the window test (``-DUTF8_NO_WINDOW_TEST``).  Peers, where they build offline: Rust's simdutf8
(``basic::from_utf8``; Debian's librust-simdutf8-dev, as a static library through cargo
--offline; it takes AVX2 on x86-64) and simdjson's ``validate_utf8`` (libsimdjson-dev; its own
choice of kernel at run time, printed).  Each program times every corpus, the programs take
turns for several rounds, and the table gives the median GB/s (CPU time) and the ratio to
simdutf8.  NEON cannot be timed on this machine (x86-64).

With ``--variants``, the variant grammars whose language holds every corpus (generalized UTF-8,
WTF-8, RFC 2279 with and without surrogates) instead, each ``is_valid`` as generated (no
settings: the instance the CPU picks), against UTF-8's in the same rounds; the ratio is to
UTF-8's.

    python bench/bench_window_instances.py [--rounds 5] [--passes 200] [--variants]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # bench/corpora.py

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ("mixed", "chinese", "emoji", "random", "ascii")
VARIANTS = {"UTF-8": "utf8.abnf", "generalized": "variants/generalized-utf8.abnf", "WTF-8": "variants/wtf8.abnf",
            "RFC 2279": "variants/rfc2279-utf8.abnf",
            "RFC 2279 (no surr.)": "variants/rfc2279-utf8-no-surrogates.abnf"}
INSTANCES = {"AVX-512 VBMI": [], "AVX2": ["-DUTF8_WINDOW_TEST_AVX2"], "SSE4.1": ["-DUTF8_WINDOW_TEST_SSE41"],
             "DFA loop": ["-DUTF8_NO_WINDOW_TEST"]}

TIMER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdbool.h>
#include <stddef.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Each file given: its name, whether it is valid, and the best of 5 GB/s over passes calls. */
static int time_files(int argc, char **argv, bool (*valid)(const char *, size_t))
{
    int passes = atoi(argv[1]);
    for (int f = 2; f < argc; f++) {
        FILE *in = fopen(argv[f], "rb");
        if (!in)
            return 1;
        fseek(in, 0, SEEK_END);
        long size = ftell(in);
        fseek(in, 0, SEEK_SET);
        char *data = (char *)malloc((size_t)size);
        if (!data || fread(data, 1, (size_t)size, in) != (size_t)size)
            return 1;
        fclose(in);
        int ok = valid(data, (size_t)size);
        double best = 0;
        for (int trial = 0; trial < 5; trial++) {
            int count = 0;
            double start = cpu_seconds();
            for (int pass = 0; pass < passes; pass++)
                count += valid(data, (size_t)size);
            double rate = (double)size * passes / (cpu_seconds() - start) / 1e9;
            if (count != ok * passes)
                return 1;
            if (rate > best)
                best = rate;
        }
        printf("%s %d %.3f\n", argv[f], ok, best);
        free(data);
    }
    return 0;
}
"""

INSTANCE_MAIN = "#define _POSIX_C_SOURCE 199309L\n" + TIMER + r"""
#include "PREFIX.h"
static bool call(const char *p, size_t n) { return PREFIX_is_valid(p, n); }
int main(int argc, char **argv) { return time_files(argc, argv, call); }
"""

PEER_MAIN = r"""
#include <cstddef>
extern "C" bool simdutf8_valid(const char *p, size_t n);
#include <simdjson.h>
extern "C" {
""" + TIMER + r"""
static bool rust(const char *p, size_t n) { return simdutf8_valid(p, n); }
static bool sj(const char *p, size_t n) { return simdjson::validate_utf8(p, n); }
}
int main(int argc, char **argv)
{
    if (argv[1][0] == 'j') {
        fprintf(stderr, "simdjson kernel: %s\n", simdjson::get_active_implementation()->name().c_str());
        return time_files(argc - 1, argv + 1, sj);
    }
    return time_files(argc - 1, argv + 1, rust);
}
"""

RUST_LIB = """#[no_mangle]
pub extern "C" fn simdutf8_valid(p: *const u8, n: usize) -> bool {
    // SAFETY: the caller passes n readable bytes at p
    let s = unsafe { std::slice::from_raw_parts(p, n) };
    simdutf8::basic::from_utf8(s).is_ok()
}
"""


def build_instances(folder: Path) -> dict[str, Path]:
    subprocess.run([sys.executable, "-m", "abnfc", "compile", str(ROOT / "grammars" / "utf8.abnf"), "--out",
                    str(folder), "--lang", "c"], check=True, cwd=ROOT, capture_output=True)
    (folder / "main.c").write_text(INSTANCE_MAIN.replace("PREFIX", "utf8"), encoding="utf-8")
    built = {}
    for name, flags in INSTANCES.items():
        binary = folder / f"instance{len(built)}"
        subprocess.run(["gcc", "-std=c99", "-O2", *flags, f"-I{folder}", "-o", str(binary), str(folder / "main.c"),
                        str(folder / "utf8.c")], check=True)
        built[name] = binary
    return built


def build_variants(folder: Path) -> dict[str, Path]:
    """Each variant's ``is_valid`` as generated, built with gcc -O2."""
    built = {}
    for number, (name, grammar) in enumerate(VARIANTS.items()):
        prefix = f"v{number}"
        subprocess.run([sys.executable, "-m", "abnfc", "compile", str(ROOT / "grammars" / grammar), "--out",
                        str(folder), "--lang", "c", "--prefix", prefix], check=True, cwd=ROOT, capture_output=True)
        (folder / f"{prefix}_main.c").write_text(INSTANCE_MAIN.replace("PREFIX", prefix), encoding="utf-8")
        binary = folder / prefix
        subprocess.run(["gcc", "-std=c99", "-O2", f"-I{folder}", "-o", str(binary), str(folder / f"{prefix}_main.c"),
                        str(folder / f"{prefix}.c")], check=True)
        built[name] = binary
    return built


def build_peers(folder: Path) -> dict[str, list[str]]:
    """The peers' programs (a command each), those that build here."""
    crates = sorted(Path("/usr/share/cargo/registry").glob("simdutf8-*"))
    if not crates or not shutil.which("cargo") or not Path("/usr/include/simdjson.h").exists():
        print("peers not built: needs librust-simdutf8-dev, cargo and libsimdjson-dev", file=sys.stderr)
        return {}
    crate = folder / "crate"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "simdutf8_c"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["staticlib"]\n\n'
        f'[dependencies]\nsimdutf8 = {{ path = "{crates[-1]}" }}\n', encoding="utf-8")
    (crate / "src" / "lib.rs").write_text(RUST_LIB, encoding="utf-8")
    # Debian's simdutf8 0.1.4 denies warnings, among them a lint newer compilers removed: capped
    env = {**os.environ, "RUSTFLAGS": "--cap-lints=warn"}
    subprocess.run(["cargo", "build", "--offline", "--release", "--quiet"], cwd=crate, env=env, check=True,
                   stderr=subprocess.DEVNULL)
    (folder / "peers.cpp").write_text(PEER_MAIN, encoding="utf-8")
    binary = folder / "peers"
    subprocess.run(["g++", "-O2", "-o", str(binary), str(folder / "peers.cpp"),
                    str(crate / "target" / "release" / "libsimdutf8_c.a"), "-lsimdjson", "-lpthread", "-ldl"],
                   check=True)
    return {"simdutf8 (Rust)": [str(binary), "r"], "simdjson": [str(binary), "j"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--passes", type=int, default=200)
    parser.add_argument("--variants", action="store_true", help="the variant grammars against UTF-8")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        data = corpora.utf8_corpora(1 << 20)
        files = []
        for name in CORPORA:
            (folder / name).write_bytes(data[name])
            files.append(str(folder / name))
        if args.variants:
            (folder / "gen").mkdir()
            commands = {name: [str(path)] for name, path in build_variants(folder / "gen").items()}
        else:
            commands = {name: [str(path)] for name, path in build_instances(folder / "gen").items()}
            commands |= build_peers(folder)
        rates: dict[tuple[str, str], list[float]] = {}
        for _round in range(args.rounds):
            for name, command in commands.items():
                result = subprocess.run([*command, str(args.passes), *files], capture_output=True, text=True,
                                        check=True)
                if _round == 0 and result.stderr:
                    print(result.stderr.strip())
                for line in result.stdout.splitlines():
                    path, ok, rate = line.split()
                    assert ok == "1", f"{name} says {path} is not valid"
                    rates.setdefault((name, Path(path).name), []).append(float(rate))
    reference = "UTF-8" if args.variants else "simdutf8 (Rust)" if "simdutf8 (Rust)" in commands else None
    print(f"GB/s, median of {args.rounds} rounds (best of 5 timings of {args.passes} calls each), 1 MiB inputs"
          + (f"; in brackets: the ratio to {reference}" if reference else ""))
    print(f"{'':20}" + "".join(f"{name:>16}" for name in CORPORA))
    for name in commands:
        cells = []
        for corpus in CORPORA:
            rate = statistics.median(rates[name, corpus])
            ratio = f" ({rate / statistics.median(rates[reference, corpus]):.2f})" if reference else ""
            cells.append(f"{rate:.2f}{ratio}")
        print(f"{name:20}" + "".join(f"{cell:>16}" for cell in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
