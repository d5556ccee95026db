"""Benchmark: how soon a fuzzer finds a planted bug, with and without abnfc's fuzz kit.

Four implementations with a planted bug (bench/fuzz_targets/), each checked against the C
validator of its grammar by the fuzz target ``abnfc fuzz-kit --lang c`` writes:

- utf8: a UTF-8 decoder whose least 4-byte code point is off by one (0xFFFF), so that it accepts
  the overlong form F0 8F BF BF (grammars/utf8.abnf);
- uri: a URI parser that takes a zone identifier in an IPv6 literal, ``[fe80::1%25eth0]``
  (RFC 6874; grammars/uri.abnf is RFC 3986, which has none);
- datetime: an RFC 3339 parser that refuses a leap second given with a time offset, such as
  ``1990-12-31T15:59:60-08:00`` (grammars/datetime.abnf);
- json: a JSON validator whose strings three arrays or objects deep take a \\u escape of three hex
  digits, such as ``[[["\\u123:"]]]`` (grammars/json.abnf, recursive: the kit's mutator follows
  its pushdown validator).

Every fuzzer starts from the same base corpus, one common valid input of the target's grammar,
with inputs of at most :data:`MAX_LEN` bytes.  The kit's dictionary and its own seed corpus are
part of the kit, so the contenders are: "abnfc mutator", libFuzzer with the kit's mutator and
dictionary (not its corpus: this column measures the mutator); "abnfc kit", the same with the
kit's corpus added to the base corpus (the kit as a user runs it); plain libFuzzer; libFuzzer
with the kit's dictionary; and, where AFL++ is installed, afl-fuzz plain and with the kit's
mutator and dictionary.  For each, ``--seeds`` runs with different seeds, each stopped at the
first input that exposes the bug or after ``--cap`` seconds; the table gives the median inputs
run (executions) and seconds to that input (for "abnfc kit", the corpus's inputs count), and how
many runs found it.  Executions do not depend on the machine's load; seconds do (two runs go at
once).  The column "kit corpus" says whether the kit's own seed corpus already holds such an
input.  Needs clang with libFuzzer (libclang-rt-14-dev); AFL++ (afl++) is optional.

    python bench/bench_fuzz.py                           # all targets, 3 seeds, 60 s cap
    python bench/bench_fuzz.py uri json --seeds 2 --cap 30
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS_DIR = ROOT / "bench" / "fuzz_targets"
SEEDS = 3  # runs of each fuzzer, seeds 1, 2, ...
CAP = 60  # seconds a run may take
MAX_LEN = 64
PARALLEL = 2


@dataclass(frozen=True)
class Target:
    name: str
    grammar: str
    user: str  # the implementation with the planted bug
    seed: bytes  # the one input every fuzzer starts from
    also: tuple[str, ...] = ()  # grammars whose C validators the implementation uses


TARGETS = (
    Target("utf8", "grammars/utf8.abnf", "utf8_overlong.c", b"a"),
    Target("uri", "grammars/uri.abnf", "uri_zone.c", b"http://example.com/", ("grammars/variants/uri-zone-id.abnf",)),
    Target("datetime", "grammars/datetime.abnf", "datetime_leap.c", b"1985-04-12T23:20:50.52Z"),
    Target("json", "grammars/json.abnf", "json_deep_escape.c", b'{"a": ["\\u00e9", 1]}'),
)
CONFIGS = ("abnfc mutator", "abnfc kit", "libFuzzer", "libFuzzer + dict", "AFL++", "AFL++ + abnfc mutator")
KIT = ("abnfc mutator", "abnfc kit")  # the libFuzzer runs with the kit's mutator


@dataclass(frozen=True)
class Run:
    found: bool
    execs: int
    seconds: float


def abnfc(*words: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run([sys.executable, "-m", "abnfc", *words], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def build(target: Target, folder: Path) -> Path:
    """The kit of the target's grammar in folder, with the libFuzzer and AFL++ programs built."""
    kit = folder / target.name
    abnfc("fuzz-kit", target.grammar, "--lang", "c", "--out", str(kit))
    for grammar in target.also:
        abnfc("compile", grammar, "--lang", "c", "--out", str(kit))
    prefix = Path(target.grammar).stem
    sources = ["fuzz_target.c", f"{prefix}.c", str(TARGETS_DIR / target.user)]
    sources += [f"{Path(g).stem.replace('-', '_')}.c" for g in target.also]
    clang = ["clang", "-g", "-O1", "-fsanitize=fuzzer", "-I", "."]
    subprocess.run([*clang, *sources, "mutator.c", "-o", "with-mutator"], cwd=kit, check=True)
    subprocess.run([*clang, *sources, "-o", "plain"], cwd=kit, check=True)
    if shutil.which("afl-clang-fast"):
        env = {**os.environ, "AFL_QUIET": "1"}
        subprocess.run(["afl-clang-fast", "-O1", "-DFUZZKIT_STDIN_MAIN", "-I", ".", *sources, "-o", "afl-target"],
                       cwd=kit, check=True, env=env, stderr=subprocess.DEVNULL)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-DFUZZKIT_AFL", "mutator.c", "-o", "mutator.so"],
                       cwd=kit, check=True)
    return kit


def kit_corpus_exposes(kit: Path) -> bool:
    """Whether running the plain target over the kit's corpus aborts."""
    result = subprocess.run(["./plain", "-runs=0", "corpus"], cwd=kit, capture_output=True, text=True, timeout=600)
    return "deadly signal" in result.stderr


def libfuzzer(kit: Path, target: Target, config: str, seed: int, cap: int) -> Run:
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch, "corpus")
        if config == "abnfc kit":
            shutil.copytree(kit / "corpus", corpus)
        else:
            corpus.mkdir()
        (corpus / "seed").write_bytes(target.seed)
        program = "./with-mutator" if config in KIT else "./plain"
        words = [program, f"-seed={seed}", f"-max_len={MAX_LEN}", f"-max_total_time={cap}",
                 f"-artifact_prefix={scratch}/", "-print_final_stats=1"]
        if config != "libFuzzer":
            words.append(f"-dict={Path(target.grammar).stem}.dict")
        started = time.perf_counter()
        result = subprocess.run([*words, str(corpus)], cwd=kit, capture_output=True, text=True, timeout=cap * 5)
        seconds = time.perf_counter() - started
    found = "deadly signal" in result.stderr
    executed = re.findall(r"stat::number_of_executed_units:\s*(\d+)", result.stderr)
    return Run(found, int(executed[-1]) if executed else 0, seconds)


def afl(kit: Path, target: Target, config: str, seed: int, cap: int) -> Run:
    with tempfile.TemporaryDirectory() as scratch:
        given, out = Path(scratch, "in"), Path(scratch, "out")
        given.mkdir()
        (given / "seed").write_bytes(target.seed)
        env = {**os.environ, "AFL_SKIP_CPUFREQ": "1", "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1",
               "AFL_NO_UI": "1", "AFL_NO_AFFINITY": "1", "AFL_BENCH_UNTIL_CRASH": "1"}
        words = ["afl-fuzz", "-i", str(given), "-o", str(out), "-V", str(cap), "-s", str(seed), "-G", str(MAX_LEN)]
        if config == "AFL++ + abnfc mutator":
            env["AFL_CUSTOM_MUTATOR_LIBRARY"] = str(kit / "mutator.so")
            words += ["-x", f"{Path(target.grammar).stem}.dict"]
        started = time.perf_counter()
        subprocess.run([*words, "--", "./afl-target"], cwd=kit, env=env, capture_output=True, timeout=cap * 5)
        seconds = time.perf_counter() - started
        crashes = [p.name for p in (out / "default" / "crashes").glob("id:*")]
        stats = (out / "default" / "fuzzer_stats")
        total = re.search(r"execs_done\s*:\s*(\d+)", stats.read_text()) if stats.exists() else None
    if not crashes:
        return Run(False, int(total.group(1)) if total else 0, seconds)
    first = min(crashes, key=lambda name: int(re.search(r"time:(\d+)", name).group(1)))  # type: ignore[union-attr]
    execs = re.search(r"execs:(\d+)", first)
    return Run(True, int(execs.group(1)) if execs else 0, int(re.search(r"time:(\d+)", first).group(1)) / 1000)  # type: ignore[union-attr]


def measure(kit: Path, target: Target, config: str, seed: int, cap: int) -> Run:
    run = afl if config.startswith("AFL") else libfuzzer
    return run(kit, target, config, seed, cap)


def cell(runs: list[Run]) -> str:
    found = [run for run in runs if run.found]
    if len(found) * 2 <= len(runs):  # the median run did not find it
        return f"not found ({len(found)}/{len(runs)})"
    # the runs that did not find it count as the longest
    execs = statistics.median(run.execs if run.found else float("inf") for run in runs)
    seconds = statistics.median(run.seconds if run.found else float("inf") for run in runs)
    return f"{execs:,.0f} / {seconds:.1f} s ({len(found)}/{len(runs)})"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="time to a planted bug, with and without abnfc's fuzz kit")
    parser.add_argument("targets", nargs="*", metavar="TARGET", help=", ".join(t.name for t in TARGETS))
    parser.add_argument("--seeds", type=int, default=SEEDS, help="runs of each fuzzer (default %(default)s)")
    parser.add_argument("--cap", type=int, default=CAP, help="seconds a run may take (default %(default)s)")
    parser.add_argument("--configs", nargs="+", choices=CONFIGS, default=CONFIGS, metavar="FUZZER")
    args = parser.parse_args(argv)
    unknown = set(args.targets) - {t.name for t in TARGETS}
    if unknown:
        parser.error(f"no target {', '.join(sorted(unknown))}")
    if not shutil.which("clang"):
        sys.exit("needs clang with libFuzzer (apt-get install clang libclang-rt-14-dev)")
    configs = [c for c in args.configs if not c.startswith("AFL") or shutil.which("afl-fuzz")]
    targets = [t for t in TARGETS if not args.targets or t.name in args.targets]
    seeds = range(1, args.seeds + 1)
    with tempfile.TemporaryDirectory() as folder:
        kits = {target.name: build(target, Path(folder)) for target in targets}
        jobs = [(target, config, seed) for target in targets for config in configs for seed in seeds]
        with ThreadPoolExecutor(PARALLEL) as pool:
            results = list(pool.map(lambda job: measure(kits[job[0].name], *job, args.cap), jobs))
        exposes = {target.name: kit_corpus_exposes(kits[target.name]) for target in targets}
    print(f"median executions / seconds to the first input exposing the bug (runs that found it), "
          f"{args.seeds} seeds, {args.cap} s cap, inputs of at most {MAX_LEN} bytes\n")
    print("| bug | kit corpus | " + " | ".join(configs) + " |")
    print("|---|---|" + "---|" * len(configs))
    for target in targets:
        row = [cell([r for (t, c, _s), r in zip(jobs, results, strict=True) if t == target and c == config])
               for config in configs]
        print(f"| {target.name} | {'exposes it' if exposes[target.name] else 'does not'} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
