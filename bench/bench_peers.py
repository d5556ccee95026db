"""The generated validators against their peers, side by side in one process.

UTF-8 (grammars/utf8.abnf) on 16 MiB corpora (ASCII, mixed text with about 60% ASCII, Chinese,
emoji, random valid UTF-8 with every character length alike):

- the generated C, every strategy (``utf8_is_valid``; ``utf8_first_error`` for the default one);
  the default, ``auto``, is the pairs strategy plus the window test of ``is_valid`` (AVX-512 VBMI,
  where the CPU has it),
- the same for the variant grammars generalized UTF-8, WTF-8 and RFC 2279 (the corpora are valid
  in each),
- the ceiling: an OR of every byte with SIMD, four accumulators (a test for "all ASCII"; no
  validator can read the buffer faster),
- validators that re2c and Ragel -G2 generate from the same grammar written in their own syntax
  (bench/peers/*.re, *.rl): re2c's default code with a sentinel, re2c -g with padding, Ragel -G2,
- a plain table DFA (class map and transition table from the same automaton), glibc iconv,
- Python's codec (``bytes.decode``) and the generated Python ``is_valid``,
- simdutf through Node.js's ``buffer.isUtf8`` (a Node process answering timing requests).

URI references (grammars/uri.abnf): the generated C against a re2c validator of the same
language (bench/peers/uri_re2c.re), each line of a corpus of URIs validated on its own.

All C contenders are built (cc -O2, no -march: the generated code picks SIMD at run time) into
one shared library that Python calls through ctypes.  Every round times every contender on every
corpus in turn (the least CPU time of a few passes after an untimed one); the table gives the
median over rounds and the ratio of each to ``utf8_is_valid``.  CPU time, not wall time, so the
time the scheduler gives to other processes on a shared machine is not counted.

    python bench/bench_peers.py --setup      # apt-get install re2c ragel (as root)
    python bench/bench_peers.py [--size MiB] [--rounds N] [--passes N]
    python bench/bench_peers.py --smoke      # small inputs: build all, check that all agree

Contenders whose tools are missing (re2c, ragel, node, iconv) are left out, with a note.
"""
from __future__ import annotations

import argparse
import ctypes
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "bench" / "peers"
sys.path.insert(0, str(ROOT / "src"))

import corpora  # noqa: E402  (bench/corpora.py)

import abnfc  # noqa: E402
from abnfc.backends.analysis import STRATEGIES  # noqa: E402

UTF8 = ROOT / "grammars" / "utf8.abnf"
VARIANTS = {"generalized": ROOT / "grammars" / "variants" / "generalized-utf8.abnf",
            "wtf8": ROOT / "grammars" / "variants" / "wtf8.abnf",
            "rfc2279": ROOT / "grammars" / "variants" / "rfc2279-utf8.abnf"}
VARIANT_LABELS = {"generalized": "generalized UTF-8", "wtf8": "WTF-8", "rfc2279": "RFC 2279"}
CEILING = "ceiling: OR of every byte (SIMD)"


def variant_grammar(label: str) -> Path | None:
    """The grammar of a variant's contender (its own language, not RFC 3629's), or None."""
    return next((VARIANTS[p] for p, name in VARIANT_LABELS.items() if label == f"{name} is_valid (auto)"), None)
URI = ROOT / "grammars" / "uri.abnf"
STRICT_LIMIT = 0xF4  # iconv accepts sequences above U+10FFFF: compared only on inputs below F4
VALIDATOR = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_ubyte), ctypes.c_size_t)


def setup() -> int:
    if shutil.which("apt-get") is None:
        print("apt-get not found: install re2c and ragel with your package manager", file=sys.stderr)
        return 2
    return subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "re2c", "ragel"]).returncode


def compiler() -> str:
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    raise SystemExit("no C compiler found")


class Contenders:
    """Builds every C contender into one library; knows which ones are there."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.notes: list[str] = []
        self.strategies = list(STRATEGIES)  # auto first: the default
        self.default = abnfc.generate_files(UTF8, "c", prefix="x")["x.c"]
        sources = [self._generated(UTF8, f"utf8_{strategy}", strategy) for strategy in self.strategies]
        sources += [self._generated(path, prefix, "auto") for prefix, path in VARIANTS.items()]
        sources.append(self._generated(URI, "uri_auto", "auto"))
        sources += self._peers()
        (folder / "table_dfa.h").write_text(_table_header(), encoding="utf-8")
        (folder / "contenders.c").write_text(self._wrappers(), encoding="utf-8")
        sources += [PEERS / "harness.c", folder / "contenders.c"]
        library = folder / "libbench.so"
        subprocess.run([compiler(), "-std=c99", "-O2", "-fPIC", "-shared", "-I", str(folder), "-o", str(library),
                        *map(str, sources)], check=True)
        self.lib = ctypes.CDLL(str(library))
        self.lib.bench_time.restype = ctypes.c_double
        self.lib.bench_lines.restype = ctypes.c_double

    def _generated(self, grammar: Path, prefix: str, strategy: str) -> Path:
        for name, text in abnfc.generate_files(grammar, "c", prefix=prefix, options={"strategy": strategy}).items():
            (self.folder / name).write_text(text, encoding="utf-8")
        return self.folder / f"{prefix}.c"

    def _peers(self) -> list[Path]:
        out = []
        self.utf8_peers: list[str] = []
        self.uri_peers: list[str] = []
        if shutil.which("re2c"):
            for stem, flags, symbol in (("utf8_re2c", [], "re2c_utf8_valid"),
                                        ("utf8_re2c_goto", ["-g"], "re2c_utf8_valid_goto"),
                                        ("uri_re2c", ["-Wno-match-empty-string"], "re2c_uri_valid")):
                subprocess.run(["re2c", "-W", *flags, str(PEERS / f"{stem}.re"), "-o", str(self.folder / f"{stem}.c")],
                               check=True)
                out.append(self.folder / f"{stem}.c")
                (self.uri_peers if stem.startswith("uri") else self.utf8_peers).append(symbol)
        else:
            self.notes.append("re2c not installed: its validators are left out (bench_peers.py --setup)")
        if shutil.which("ragel"):
            subprocess.run(["ragel", "-G2", str(PEERS / "utf8_ragel.rl"), "-o", str(self.folder / "utf8_ragel.c")],
                           check=True)
            out.append(self.folder / "utf8_ragel.c")
            self.utf8_peers.append("ragel_utf8_valid")
        else:
            self.notes.append("ragel not installed: Ragel -G2 is left out (bench_peers.py --setup)")
        return out

    def _wrappers(self) -> str:
        lines = ["#include <stddef.h>", "#include <stdint.h>"]
        for prefix in [f"utf8_{s}" for s in self.strategies] + list(VARIANTS) + ["uri_auto"]:
            lines += [f'#include "{prefix}.h"',
                      f"int {prefix}_valid(const unsigned char *p, size_t n);",
                      f"int {prefix}_valid(const unsigned char *p, size_t n) {{ return {prefix}_is_valid(p, n); }}",
                      f"int {prefix}_first(const unsigned char *p, size_t n);",
                      f"int {prefix}_first(const unsigned char *p, size_t n) "
                      f"{{ return {prefix}_first_error(p, n) == SIZE_MAX; }}"]
        return "\n".join(lines) + "\n"

    def utf8(self) -> list[tuple[str, str]]:
        """(label, symbol) of the UTF-8 contenders in C."""
        labels = {"re2c_utf8_valid": "re2c (sentinel)", "re2c_utf8_valid_goto": "re2c -g",
                  "ragel_utf8_valid": "Ragel -G2"}
        default = self.default_strategy()
        out = [(f"utf8_is_valid (auto: {default} + windows)", "utf8_auto_valid"),
               (f"utf8_first_error (auto: {default})", "utf8_auto_first")]
        out += [(f"utf8_is_valid ({s})", f"utf8_{s}_valid") for s in self.strategies if s != "auto"]
        out += [(f"{label} is_valid (auto)", f"{prefix}_valid") for prefix, label in VARIANT_LABELS.items()]
        out += [(labels[symbol], symbol) for symbol in self.utf8_peers]
        return [*out, ("table DFA", "table_dfa_valid"), ("glibc iconv", "iconv_valid"),
                (CEILING, "ceiling_or")]

    def default_strategy(self) -> str:
        return _strategy_of(self.default)

    def time(self, symbol: str, data: ctypes.Array, size: int, passes: int) -> tuple[float, int]:
        result = ctypes.c_int()
        function = ctypes.cast(getattr(self.lib, symbol), ctypes.c_void_p)
        seconds = self.lib.bench_time(function, data, ctypes.c_size_t(size), passes, ctypes.byref(result))
        return seconds, result.value


def _strategy_of(source: str) -> str:
    """The strategy of C generated with prefix x, from the tables it defines."""
    marks = {"pairs": "x_pair_rows[", "shift": "x_rows[256]", "table": "x_class[256]"}
    return next(strategy for strategy, mark in marks.items() if mark in source)


def _table_header() -> str:
    dfa = abnfc.compile_grammar(UTF8).minimal
    rows = ", ".join("{" + ", ".join(map(str, row)) + "}" for row in dfa.transitions)
    return (f"static const unsigned char table_class[256] = {{ {', '.join(map(str, dfa.byte_class))} }};\n"
            f"static const unsigned char table_next[{dfa.num_states}][{dfa.num_classes}] = {{ {rows} }};\n"
            f"static const unsigned char table_accept[{dfa.num_states}] = "
            f"{{ {', '.join('1' if s in dfa.accepting else '0' for s in range(dfa.num_states))} }};\n"
            f"#define TABLE_START {dfa.start}u\n")


class Node:
    """simdutf via Node.js's buffer.isUtf8, in a process that answers timing requests."""

    def __init__(self):
        self.process = subprocess.Popen(["node", str(PEERS / "isutf8.mjs")], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def time(self, path: Path, passes: int) -> tuple[float, int]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(f"{path} {passes}\n")
        self.process.stdin.flush()
        seconds, verdict = self.process.stdout.readline().split()
        return float(seconds), int(verdict)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait()


def time_python(function, data: bytes, passes: int) -> tuple[float, int]:
    verdict = int(function(data))
    best = float("inf")
    for _ in range(passes):
        start = time.thread_time()
        function(data)
        best = min(best, time.thread_time() - start)
    return best, verdict


def python_codec(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def generated_python(idioms: str):
    """The generated Python module's is_valid, with built-in idioms (auto) or without (off)."""
    name = f"utf8_generated_{idioms}"
    text = abnfc.generate_files(UTF8, "python", prefix=name, options={"idioms": idioms})[f"{name}.py"]
    namespace: dict = {"__name__": name}
    exec(compile(text, f"{name}.py", "exec"), namespace)  # our own generated module
    return namespace["is_valid"]


def run_utf8(contenders: Contenders, folder: Path, data: dict[str, bytes], rounds: int, passes: int,
             node: Node | None) -> dict[tuple[str, str], list[float]]:
    """label, corpus -> seconds per round; every verdict must say valid."""
    buffers = {}
    for name, blob in data.items():
        (folder / name).write_bytes(blob)
        buffers[name] = (ctypes.c_ubyte * (len(blob) + 64)).from_buffer_copy(blob + b"\0" * 64)  # padding for re2c
    python_contenders = [("Python bytes.decode", python_codec),
                         ("generated Python is_valid", generated_python("auto")),
                         ("generated Python, idioms off", generated_python("off"))]
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for name, blob in data.items():
            buffer = buffers[name]
            size = len(blob)
            runs = [(label, lambda s=symbol, b=buffer, n=size: contenders.time(s, b, n, passes))
                    for label, symbol in contenders.utf8()]
            runs += [(label, lambda f=function, b=blob: time_python(f, b, passes))
                     for label, function in python_contenders]
            if node:
                runs.append(("simdutf (Node buffer.isUtf8)", lambda n=name: node.time(folder / n, passes)))
            for label, run in runs:
                seconds, verdict = run()
                if verdict != 1:
                    raise SystemExit(f"{label} rejects the {name} corpus (verdict {verdict})")
                times.setdefault((label, name), []).append(seconds)
    return times


def run_uri(contenders: Contenders, lines: list[bytes], rounds: int, passes: int) -> dict[str, list[float]]:
    blob = b"\n".join(lines) + b"\n"
    buffer = (ctypes.c_ubyte * len(blob)).from_buffer_copy(blob)
    starts, position = [], 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    count = len(lines)
    c_starts = (ctypes.c_size_t * count)(*starts)
    c_lengths = (ctypes.c_size_t * count)(*map(len, lines))
    symbols = [("uri_is_valid (generated)", "uri_auto_valid")] + [("re2c", s) for s in contenders.uri_peers]
    times: dict[str, list[float]] = {}
    verdicts = {}
    for _ in range(rounds):
        for label, symbol in symbols:
            valid = ctypes.c_size_t()
            function = ctypes.cast(getattr(contenders.lib, symbol), ctypes.c_void_p)
            seconds = contenders.lib.bench_lines(function, buffer, c_starts, c_lengths, ctypes.c_size_t(count),
                                                 passes, ctypes.byref(valid))
            times.setdefault(label, []).append(seconds)
            verdicts[label] = valid.value
    if len(set(verdicts.values())) != 1:
        raise SystemExit(f"the URI validators disagree on how many lines are valid: {verdicts}")
    return times


def report(times: dict[tuple[str, str], list[float]], names: list[str], size: int, reference: str) -> None:
    medians = {key: statistics.median(value) for key, value in times.items()}
    labels = list(dict.fromkeys(label for label, _ in times))
    print(f"| {'validator':<34} | " + " | ".join(f"{n:>15}" for n in names) + " |")
    print("|" + "-" * 36 + "|" + "|".join("-" * 17 for _ in names) + "|")
    for label in labels:
        cells = []
        for name in names:
            rate = size / medians[(label, name)] / 1e9
            ratio = medians[(label, name)] / medians[(reference, name)]
            cells.append(f"{rate:6.2f} ({ratio:5.2f}x)")
        print(f"| {label:<34} | " + " | ".join(f"{c:>15}" for c in cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=16, help="corpus size in MiB (default 16)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds; the median counts (default 7)")
    parser.add_argument("--passes", type=int, default=3, help="timed passes per round; the least counts")
    parser.add_argument("--uri-lines", type=int, default=200_000, help="URIs in the URI corpus")
    parser.add_argument("--setup", action="store_true", help="install re2c and ragel with apt-get, then stop")
    parser.add_argument("--smoke", action="store_true", help="small inputs: build everything, check agreement")
    args = parser.parse_args()
    if args.setup:
        return setup()
    if args.smoke:
        import smoke
        return smoke.main()
    size = args.size << 20
    data = corpora.utf8_corpora(size)
    with tempfile.TemporaryDirectory(prefix="abnfc-bench-") as tmp:
        folder = Path(tmp)
        contenders = Contenders(folder)
        node = Node() if shutil.which("node") else None
        if node is None:
            contenders.notes.append("node not found: simdutf is left out")
        try:
            utf8_times = run_utf8(contenders, folder, data, args.rounds, args.passes, node)
        finally:
            if node:
                node.close()
        uri_lines = corpora.uri_lines(args.uri_lines)
        uri_times = run_uri(contenders, uri_lines, args.rounds, args.passes)
    for note in contenders.notes:
        print(f"note: {note}")
    reference = contenders.utf8()[0][0]
    print(f"UTF-8, {args.size} MiB corpora: GB/s (median of {args.rounds} rounds, each the least CPU time of "
          f"{args.passes} passes) and time relative to {reference}")
    print("ASCII share: " + ", ".join(f"{n} {sum(b < 0x80 for b in d[:1 << 20]) / min(len(d), 1 << 20):.0%}"
                                      for n, d in data.items()))
    report(utf8_times, list(data), size, reference)
    uri_bytes = sum(map(len, uri_lines))
    print(f"\nURI references: {len(uri_lines)} lines, {uri_bytes / len(uri_lines):.0f} bytes on average, each "
          "validated on its own: MB/s (median) and time relative to the generated C")
    medians = {label: statistics.median(t) for label, t in uri_times.items()}
    first = next(iter(medians))
    for label, seconds in medians.items():
        print(f"| {label:<26} | {uri_bytes / seconds / 1e6:8.0f} MB/s | {seconds / medians[first]:5.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
