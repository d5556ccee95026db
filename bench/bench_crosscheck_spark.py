"""Benchmark: ``abnfc crosscheck --spark`` against the path without Spark, one run each.

Every string of up to 3 bytes (16.8 M) through ``examples/cpython_decode.py:accepts`` (CPython's
UTF-8 decoder) against grammars/utf8.abnf: without Spark (the function in a child process, fed
hex lines), and with ``--spark local[1]`` and ``--spark local[2]``; each a whole command (Spark's
start, the vectors, classifying and the report included), with ``--sample 0 --random 0``, so that
almost every input is one of the exhaustive part.  Then every string of up to 4 bytes (4.3 G):
with ``--full``, the whole command in local[2]; else a sample of its slices (spread over the
4-byte range, so that ASCII and non-ASCII leading bytes are both in it) run as Spark tasks in
local[1] and in local[2], and the whole extrapolated from the rate in local[2], which the table
says.

Rows/s counts the inputs of the whole run (of the slices for the sample) per second of wall
time; the ratios are to local[1] (of the same kind of row) and to the run without Spark.  The machines are shared and
noisy: the ratios hold better than the rates.

    python bench/bench_crosscheck_spark.py [--full] [--slices N]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRAMMAR = "grammars/utf8.abnf"
FUNCTION = "examples/cpython_decode.py:accepts"
COMMAND = [sys.executable, "-m", "abnfc", "crosscheck", GRAMMAR, "--python", FUNCTION, "--sample", "0",
           "--random", "0", "--format", "json"]


def whole(exhaustive: int, spark: str | None) -> tuple[int, float]:
    """(inputs, seconds) of one whole command."""
    command = [*COMMAND, "--exhaustive", str(exhaustive), *([f"--spark={spark}"] if spark else [])]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return json.loads(done.stdout)["inputs"], seconds


def sampled_slices(count: int, master: str) -> tuple[int, float, int]:
    """(inputs of the sampled 4-byte slices, their seconds in ``master``, slices of 4 bytes in all);
    the same slices whatever the master (cut as for two cores)."""
    from pyspark.sql import SparkSession

    import abnfc
    from abnfc.crosscheck.language import load_language
    from abnfc.pipeline import Compilation
    from abnfc.spark.crosscheck import PER_TASK, TASKS_PER_CORE, program
    from abnfc.spark.exhaustive import Job, Share, Table, run_broadcast, slices

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master(master).appName("abnfc bench")
               .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        context = session.sparkContext
        language = load_language(Compilation(abnfc.load_grammar(ROOT / GRAMMAR)))
        os.chdir(ROOT)
        job = Job("bench", Table.of(language.minimal), (), program(FUNCTION), frozenset())
        four = [piece for piece in slices(4, TASKS_PER_CORE * 2) if piece.length == 4]
        step = max(1, len(four) // count)
        chosen = [Share(piece, PER_TASK, PER_TASK) for piece in four[step // 2::step][:count]]
        shared = context.broadcast(job)
        context.parallelize(range(2), 2).map(abs).collect()  # the workers started before timing
        began = time.perf_counter()
        tallies = context.parallelize(chosen, len(chosen)).map(partial(run_broadcast, shared)).collect()
        seconds = time.perf_counter() - began
        return sum(tally.inputs for tally in tallies), seconds, len(four)
    finally:
        session.stop()


def row(what: str, inputs: int, seconds: float, one: float | None, plain: float | None, note: str = "") -> str:
    rate = inputs / seconds

    def ratio(base: float | None) -> str:
        return f"{rate / base:.2f}x" if base else ""

    return f"| {what} | {inputs:,} | {seconds:,.1f} s{note} | {rate / 1e6:.2f} M | {ratio(one)} | {ratio(plain)} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", action="store_true", help="run every string of up to 4 bytes (about 25 min "
                        "on 2 cores)")
    parser.add_argument("--slices", type=int, default=16, help="4-byte slices to sample without --full")
    args = parser.parse_args()
    print(f"{FUNCTION} against {GRAMMAR}, {os.cpu_count()} cores\n")
    print("| run | inputs | time | rows/s | over local[1] | over no Spark |")
    print("|---|---:|---:|---:|---:|---:|")
    inputs, seconds = whole(3, None)
    plain = inputs / seconds
    print(row("up to 3 bytes, no Spark (child process)", inputs, seconds, None, None), flush=True)
    inputs, seconds = whole(3, "local[1]")
    one = inputs / seconds
    print(row("up to 3 bytes, --spark local[1]", inputs, seconds, None, plain), flush=True)
    inputs, seconds = whole(3, "local[2]")
    print(row("up to 3 bytes, --spark local[2]", inputs, seconds, one, plain), flush=True)
    if args.full:
        inputs, seconds = whole(4, "local[2]")
        print(row("up to 4 bytes, --spark local[2]", inputs, seconds, one, plain))
        return
    inputs, seconds, total = sampled_slices(args.slices, "local[1]")
    single = inputs / seconds
    print(row(f"{args.slices} of the {total:,} 4-byte slices, local[1] tasks", inputs, seconds, None, None),
          flush=True)
    inputs, seconds, total = sampled_slices(args.slices, "local[2]")
    print(row(f"{args.slices} of the {total:,} 4-byte slices, local[2] tasks", inputs, seconds, single, None))
    rate = inputs / seconds
    everything = sum(256 ** n for n in range(5))
    print(f"| up to 4 bytes, local[2], extrapolated | {everything:,} | {everything / rate / 60:,.0f} min "
          f"(estimate) | {rate / 1e6:.2f} M | | |")


if __name__ == "__main__":
    main()
