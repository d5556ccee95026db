"""The generated UTF-8 validator against the fastest SIMD validators, all called from C in one process.

Contenders (one binary; the peers linked in, nothing goes through Python while timing):

- abnfc: ``utf8_is_valid`` and ``utf8_first_error`` generated from grammars/utf8.abnf by this
  checkout (cc -O2, no -march: the generated code picks its SIMD at run time), and the same with
  the window test's AVX2 instance even where the CPU has AVX-512 VBMI (UTF8_WINDOW_TEST_AVX2),
- simdutf8 0.1.4 (Rust; ``basic::from_utf8`` against ``is_valid``, ``compat::from_utf8`` against
  ``first_error``), built offline from Debian's crate sources (librust-simdutf8-dev) as a
  static library of a small crate written to a temporary folder,
- simdjson's ``validate_utf8`` (Debian's libsimdjson-dev).

Inputs: 1 MiB corpora (bench/corpora.py: mixed text, Chinese, emoji, random valid UTF-8 with
every character length alike) and real German text (the German messages of abnfc's own
catalog, src/abnfc/locale/de, about 98% ASCII with sparse accents, repeated to 1 MiB); and
16-, 64- and 256-byte strings, 8192 distinct ones of each kind (so a branch predictor cannot
learn one), timed in ns per call.  Every pass times the same 8192 strings, which a branch
predictor may learn over the passes; with ``--fresh`` there are 8 sets of 8192, and each pass
(of any contender) times the next set.

The third table is ``first_error`` without the window test (-DP_NO_WINDOW_TEST: the DFA loop,
as on CPUs without AVX2 and in the stream API) built by gcc and clang at -O2, -O3 and -Os, each
build linked into the same binary under its own prefix.

Every round times every contender on every input in turn (the least CPU time of a few passes
after an untimed one); the tables give the median over rounds and abnfc's speed relative to
each peer (above 1: abnfc is faster).  Before timing, every contender must give the same answer
on every input.  Missing peers (crate sources, simdjson, cargo, clang) are left out with a note.

    apt-get install -y libsimdjson-dev librust-simdutf8-dev cargo clang   # as root, once
    python bench/bench_c_peers.py [--rounds N] [--passes N] [--no-opt] [--smoke] [--fresh]
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import corpora  # noqa: E402  (bench/corpora.py)

import abnfc  # noqa: E402

UTF8 = ROOT / "grammars" / "utf8.abnf"
GERMAN_CATALOG = ROOT / "src" / "abnfc" / "locale" / "de" / "LC_MESSAGES" / "abnfc.po"
CRATES = Path("/usr/share/cargo/registry")
SIZE = 1 << 20
SHORT = (16, 64, 256)
STRINGS = 8192
# --fresh: the strings of each length in this many sets of STRINGS, each pass (of any contender)
# timing the next set, so that no pass repeats the one before: a branch predictor may otherwise
# learn the strings over the passes
FRESH_SETS = 8
OPT_LEVELS = ("-O2", "-O3", "-Os")
AVX2_VALID, AVX2_ERROR = "abnfc is_valid AVX2", "abnfc first_error AVX2"  # the window test's AVX2 instance


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def german_text() -> str:
    """The msgstr texts of the German catalog, one paragraph each."""
    text = GERMAN_CATALOG.read_text(encoding="utf-8")
    found = re.findall(r'msgstr "(.*)"\n((?:".*"\n)*)', text)
    parts = [first + "".join(re.findall(r'"(.*)"', rest)) for first, rest in found]
    return "\n".join(p.replace("\\n", "\n").replace('\\"', '"') for p in parts if p)


def corpus_texts() -> dict[str, str]:
    """Per kind, a text to cut inputs from."""
    texts = {name: data.decode("utf-8") for name, data in corpora.utf8_corpora(SIZE).items()
             if name in ("mixed", "chinese", "emoji", "random")}
    texts["german"] = german_text()
    return texts


def whole(text: str) -> bytes:
    data = text.encode("utf-8")
    data = data * (SIZE // len(data) + 1)
    cut = SIZE
    while (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return data[:cut] + b" " * (SIZE - cut)


def strings(text: str, length: int, rng: random.Random, count: int = STRINGS) -> bytes:
    """``count`` valid strings of exactly ``length`` bytes: characters from a random place, then
    ASCII letters at a random character boundary to make up the length."""
    out = []
    for _ in range(count):
        at = rng.randrange(len(text) - 4 * length)
        chars, size = [], 0
        while size + len(text[at].encode("utf-8")) <= length:
            chars.append(text[at])
            size += len(text[at].encode("utf-8"))
            at += 1
        pad = rng.randrange(len(chars) + 1)
        piece = "".join(chars[:pad]) + "x" * (length - size) + "".join(chars[pad:])
        out.append(piece.encode("utf-8"))
    return b"".join(out)


def run(cmd: list[str], cwd: Path | None = None) -> None:
    subprocess.run(cmd, check=True, cwd=cwd)


class Build:
    """Compiles the contenders into one binary (folder/c_peers)."""

    def __init__(self, folder: Path, optimiser: bool):
        self.folder = folder
        self.notes: list[str] = []
        self.objects: list[Path] = []
        self.libs: list[str] = []
        self.rows: list[tuple[str, str, int]] = []  # name, C symbol, error kind
        self.linker = "cc"
        cc = "gcc" if shutil.which("gcc") else "cc"
        self._abnfc("utf8", cc, "-O2", ("abnfc is_valid", "abnfc first_error"))
        self._abnfc("utf8avx2", cc, "-O2", (AVX2_VALID, AVX2_ERROR), ["-DUTF8AVX2_WINDOW_TEST_AVX2"])
        self._simdutf8()
        self._simdjson()
        if optimiser:
            for cc in ("gcc", "clang"):
                if not shutil.which(cc):
                    self.notes.append(f"{cc} not installed: its row of the optimiser table is left out")
                    continue
                for level in OPT_LEVELS:
                    prefix = f"{cc}{level[1:]}".lower()
                    self._abnfc(prefix, cc, level, (None, f"first_error {cc} {level}"),
                                [f"-D{prefix.upper()}_NO_WINDOW_TEST"])  # the DFA loop alone
        self._link()

    def _abnfc(self, prefix: str, cc: str, level: str, names: tuple[str | None, str],
               flags: list[str] | None = None) -> None:
        for name, text in abnfc.generate_files(UTF8, "c", prefix=prefix).items():
            (self.folder / name).write_text(text, encoding="utf-8")
        obj = self.folder / f"{prefix}.o"
        run([cc, "-std=c99", level, *(flags or []), "-c", str(self.folder / f"{prefix}.c"), "-o", str(obj)])
        self.objects.append(obj)
        if names[0]:
            self.rows.append((names[0], f"{prefix}_is_valid", 0))
        self.rows.append((names[1], f"{prefix}_first_error", 1))

    def _simdutf8(self) -> None:
        sources = sorted(CRATES.glob("simdutf8-*")) if CRATES.is_dir() else []
        if not sources or not shutil.which("cargo"):
            self.notes.append("simdutf8 left out: needs cargo and Debian's librust-simdutf8-dev")
            return
        crate = self.folder / "simdutf8_c"
        (crate / "src").mkdir(parents=True)
        (crate / "Cargo.toml").write_text(
            '[package]\nname = "simdutf8_c"\nversion = "0.0.0"\nedition = "2018"\n\n'
            '[lib]\ncrate-type = ["staticlib"]\n\n'
            f'[dependencies]\nsimdutf8 = {{ path = "{sources[-1]}" }}\n\n'
            '[profile.release]\npanic = "abort"\ncodegen-units = 1\n', encoding="utf-8")
        (crate / "src" / "lib.rs").write_text(
            "unsafe fn bytes<'a>(p: *const u8, n: usize) -> &'a [u8] {\n"
            "    if n == 0 { &[] } else { std::slice::from_raw_parts(p, n) }\n}\n"
            "#[no_mangle]\npub unsafe extern \"C\" fn simdutf8_basic(p: *const u8, n: usize) -> usize {\n"
            "    simdutf8::basic::from_utf8(bytes(p, n)).is_ok() as usize\n}\n"
            "#[no_mangle]\npub unsafe extern \"C\" fn simdutf8_compat(p: *const u8, n: usize) -> usize {\n"
            "    match simdutf8::compat::from_utf8(bytes(p, n)) {\n"
            "        Ok(_) => usize::MAX,\n        Err(e) => e.valid_up_to(),\n    }\n}\n",
            encoding="utf-8")
        # the crate denies warnings, and a newer rustc warns of a lint it removed since
        env = {**os.environ, "RUSTFLAGS": "--cap-lints=warn"}
        result = subprocess.run(["cargo", "build", "--offline", "--release", "--quiet"], cwd=crate,
                                capture_output=True, text=True, env=env)
        if result.returncode != 0:
            self.notes.append("simdutf8 left out: cargo build failed: " + result.stderr.strip()[-300:])
            return
        self.libs += [str(crate / "target" / "release" / "libsimdutf8_c.a"), "-lpthread", "-ldl", "-lm"]
        version = sources[-1].name.split("-", 1)[1]
        self.rows.append((f"simdutf8 {version} basic", "simdutf8_basic", 0))
        self.rows.append((f"simdutf8 {version} compat", "simdutf8_compat", 1))

    def _simdjson(self) -> None:
        if not shutil.which("g++") or not Path("/usr/include/simdjson.h").exists():
            self.notes.append("simdjson left out: needs g++ and Debian's libsimdjson-dev")
            return
        source = self.folder / "simdjson_c.cpp"
        source.write_text(
            "#include <simdjson.h>\n#include <cstddef>\n#include <cstdint>\n"
            'extern "C" size_t simdjson_valid(const uint8_t *p, size_t n) {\n'
            "    return simdjson::validate_utf8(reinterpret_cast<const char *>(p), n) ? 1 : 0;\n}\n",
            encoding="utf-8")
        obj = self.folder / "simdjson_c.o"
        run(["g++", "-O2", "-c", str(source), "-o", str(obj)])
        self.objects.append(obj)
        self.libs.append("-lsimdjson")
        self.linker = "g++"
        self.rows.append(("simdjson validate_utf8", "simdjson_valid", 0))

    def _link(self) -> None:
        lines = ["#include <stddef.h>", "#include <stdint.h>", "#include <stdbool.h>"]
        for _name, symbol, kind in self.rows:
            if symbol.startswith(("simdutf8_", "simdjson_")):
                lines.append(f"size_t {symbol}(const uint8_t *p, size_t n);")
                lines.append(f"static size_t w_{symbol}(const uint8_t *p, size_t n) {{ return {symbol}(p, n); }}")
            else:
                ret = "size_t" if kind else "bool"
                lines.append(f"{ret} {symbol}(const void *p, size_t n);")
                lines.append(f"static size_t w_{symbol}(const uint8_t *p, size_t n) "
                             f"{{ return (size_t){symbol}(p, n); }}")
        lines.append("struct bench_contender { const char *name; size_t (*fn)(const uint8_t *, size_t); int kind; };")
        lines.append("const struct bench_contender bench_contenders[] = {")
        lines += [f'    {{"{name}", w_{symbol}, {kind}}},' for name, symbol, kind in self.rows]
        lines += ["};", f"const size_t bench_count = {len(self.rows)};", ""]
        (self.folder / "contenders.c").write_text("\n".join(lines), encoding="utf-8")
        objects = [*self.objects]
        for source in (ROOT / "bench" / "peers" / "c_peers.c", self.folder / "contenders.c"):
            obj = self.folder / (source.stem + ".o")
            run(["cc", "-std=c99", "-O2", "-c", str(source), "-o", str(obj)])
            objects.append(obj)
        run([self.linker, "-o", str(self.folder / "c_peers"), *map(str, objects), *self.libs])


def inputs(folder: Path, smoke: bool, sets: int = 1) -> list[str]:
    """The input files as c_peers arguments (PATH:STRIDE); ``sets`` sets of strings each."""
    rng = random.Random(20261127)
    args = []
    for kind, text in corpus_texts().items():
        path = folder / f"{kind}.1MiB"
        path.write_bytes(whole(text)[:4096] if smoke else whole(text))
        args.append(f"{path}:0")
    for length in SHORT:
        for kind, text in corpus_texts().items():
            if kind == "random":
                continue
            path = folder / f"{kind}.{length}"
            data = strings(text, length, rng, STRINGS * sets)
            path.write_bytes(data[:length * 64 * sets] if smoke else data)
            args.append(f"{path}:{length}")
    return args


def measure(binary: Path, args: list[str], rounds: int, passes: int, sets: int = 1) -> dict[tuple[str, str], float]:
    result = subprocess.run([str(binary), str(rounds), str(passes), str(sets), *args], capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise SystemExit("the contenders disagree or the timing loop failed:\n" + result.stderr)
    times: dict[tuple[str, str], list[float]] = {}
    for line in result.stdout.splitlines():
        _, name, path, ns = line.split("\t")
        times.setdefault((name, Path(path).name), []).append(float(ns))
    return {key: statistics.median(values) for key, values in times.items()}


def table(times: dict[tuple[str, str], float], names: list[str], files: dict[str, int], base: str,
          peers: list[str], invert: bool = False) -> list[str]:
    """Rows per input: GB/s for whole corpora, ns a call for strings; base's speed over each
    peer's (invert: each peer's over base's)."""
    short = [n.removeprefix("first_error ") for n in names]
    head = ["input", *short, *(p.removeprefix("first_error ") if invert else f"vs {p.split()[0]}"
                               for p in peers)]
    rows = [head]
    for file in files:
        kind, size = file.rsplit(".", 1)
        label = f"{kind}, 1 MiB (GB/s)" if size == "1MiB" else f"{kind}, {size} B (ns a call)"
        cells = [label]
        for name in names:
            t = times[(name, file)]
            cells.append(f"{files[file] / t:.2f}" if size == "1MiB" else f"{t:.1f}")
        for peer in peers:
            ratio = times[(peer, file)] / times[(base, file)]
            cells.append(f"{1 / ratio if invert else ratio:.2f}x")
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    out = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--no-opt", action="store_true", help="leave out the optimiser table")
    parser.add_argument("--smoke", action="store_true", help="small inputs, one round: build all, check all agree")
    parser.add_argument("--fresh", action="store_true",
                        help="8 sets of strings, each pass timing the next (no pass repeats the one before)")
    args = parser.parse_args()
    rounds, passes = (1, 1) if args.smoke else (args.rounds, args.passes)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        build = Build(folder, not args.no_opt)
        sets = FRESH_SETS if args.fresh else 1
        files = inputs(folder, args.smoke, sets)
        print(f"CPU: {cpu_model()}; CPU time, median of {rounds} rounds (least of {passes} passes each"
              + (f"; strings in {sets} sets, each pass timing the next)" if sets > 1 else ")"))
        for note in build.notes:
            print("note:", note)
        main_rows = [r for r in build.rows if not r[0].startswith("first_error ")]
        opt_rows = [r for r in build.rows if r[0].startswith("first_error ")]
        times = measure(folder / "c_peers", files, rounds, passes, sets)
        labels = {Path(f.rsplit(":", 1)[0]).name: Path(f.rsplit(":", 1)[0]).stat().st_size for f in files}
        valid_peers = [n for n, _, kind in main_rows if kind == 0 and not n.startswith("abnfc")]
        error_peers = [n for n, _, kind in main_rows if kind == 1 and not n.startswith("abnfc")]
        print()
        print("is_valid (ratios: abnfc's speed over the peer's; above 1, abnfc is faster)")
        print("\n".join(table(times, ["abnfc is_valid", AVX2_VALID, *valid_peers], labels, "abnfc is_valid",
                              valid_peers)))
        print()
        print("first_error (simdutf8 compat: valid_up_to, the same work)")
        print("\n".join(table(times, ["abnfc first_error", AVX2_ERROR, *error_peers], labels,
                              "abnfc first_error", error_peers)))
        if opt_rows:
            opt = [r[0] for r in opt_rows]
            long_inputs = {f: size for f, size in labels.items() if f.endswith(".1MiB")}
            print()
            print("first_error, the DFA loop (NO_WINDOW_TEST), by compiler and optimisation level "
                  "(GB/s; then each one's speed over gcc -O2's)")
            print("\n".join(table(times, opt, long_inputs, "first_error gcc -O2",
                                  [o for o in opt if o != "first_error gcc -O2"], invert=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
