"""Runs fuzz cases through the command line, in process, and reports what happened.

Usage: ``python fuzz_worker.py CASES.json OUT_DIR`` where CASES.json holds
``[{"index", "name", "hex"}, ...]``, each optionally with ``"commands"`` (the ones to run) and
``"other"`` (the hex of the grammar to diff against).
For each grammar it runs ``abnfc lint``, ``abnfc dfa`` and ``abnfc compile`` (Python, C and
JavaScript) as ``abnfc.cli.main`` calls with standard output and error captured, each under a
CPU-time alarm; when compile succeeds it imports the generated Python module and runs it.
Then ``abnfc explain`` on an input made for the case (short random bytes, or a few kilobytes of
one byte or of the grammar's own characters, the inputs that made explain quadratic), and
``abnfc diff`` against a mutation of the grammar (the product of two DFAs near the limits).
It prints one JSON object per case and command: exit status, CPU seconds (and wall-clock seconds,
only shown), stderr, the peak RSS the
process had reached after it (so a new peak is charged to the case that made it), and problems
found with the generated module.  The process's address space is capped, so a runaway
allocation shows up as a failure, not as a machine out of memory.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import random
import resource
import signal
import sys
import time
from pathlib import Path

from grammar_fuzzer import mutate

from abnfc.cli import main

# A command that has used this much CPU time is stopped and reported as a hang: twice the test's
# CPU_LIMIT, so a runaway is told from a slow case.  CPU time, not wall-clock time, because it does
# not grow when other processes share the machine.
CPU_ALARM_SECONDS = 60
# A command blocked without using CPU (waiting on a read or a lock) never reaches the CPU alarm: this
# one stops it.  No command under CPU_ALARM_SECONDS reaches it even with 30 processes a core.
BLOCKED_ALARM_SECONDS = 3600
ADDRESS_SPACE = 3 << 30


class Hang(BaseException):
    """Raised by the alarm; a BaseException, so the command line's handlers do not catch it."""


def _alarm(signum, frame):
    raise Hang()


def run_command(argv: list[str]) -> dict:
    out, err = io.StringIO(), io.StringIO()
    began, cpu_began = time.perf_counter(), cpu_seconds()
    status: int | str
    signal.setitimer(signal.ITIMER_PROF, CPU_ALARM_SECONDS)
    signal.alarm(BLOCKED_ALARM_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except Hang:
        status = "hang"
    except SystemExit as stop:  # argparse usage errors
        status = stop.code if isinstance(stop.code, int) else 2
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
    return {"status": status, "seconds": round(time.perf_counter() - began, 3),
            "cpu": round(cpu_seconds() - cpu_began, 3),
            "stderr": err.getvalue()[-4000:], "stdout_size": len(out.getvalue()),
            "peak_kb": peak_kb()}


def cpu_seconds() -> float:
    """The CPU time (user and system) this process and its waited-for children have used."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def peak_kb() -> int:
    """The process's peak resident set size (KiB) since it started working.  Linux's VmHWM,
    reset at start-up (see reset_peak): ru_maxrss can keep the peak of the process it was forked
    from, a pytest worker whose earlier tests used much more memory than any fuzz case."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def reset_peak() -> None:
    """Start counting the peak afresh (writing 5 to clear_refs resets VmHWM, Linux 4.0+)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def check_module(folder: Path, grammar_seed: int) -> str | None:
    """Import the generated module and run it; a description of what went wrong, or None."""
    modules = sorted(folder.glob("*.py"))
    if not modules:
        return "compile succeeded but wrote no Python module"
    try:
        spec = importlib.util.spec_from_file_location(f"fuzzed_{grammar_seed}", modules[0])
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rng = random.Random(grammar_seed)
        for _ in range(20):
            data = bytes(rng.choice(b"abcABC019xyz\x00\x80\xff \"()") for _ in range(rng.randrange(12)))
            offset = module.first_error(data)
            if module.is_valid(data) != (offset is None):
                return f"is_valid and first_error disagree on {data!r}"
            validator = module.Validator()
            for byte in data:
                validator.feed(bytes([byte]))
            if validator.first_error() != offset:
                return f"the incremental validator disagrees on {data!r}"
    except Exception as error:  # the point: any failure of generated code is a finding
        return f"{type(error).__name__}: {error}"
    return None


def explain_input(rng: random.Random, grammar: bytes) -> bytes:
    """An input for explain: short random bytes, or kilobytes of one byte or of the grammar's
    own characters (long runs through nested and adjacent repetitions)."""
    roll = rng.random()
    if roll < 0.3:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(16)))
    size = rng.choice([500, 2000, 4000])
    if roll < 0.6:
        return bytes([rng.choice(b"a0 \x00\xff" + grammar[:40])]) * size
    pieces = [grammar[at: at + rng.randrange(1, 4)] for at in range(0, len(grammar), 3)] or [b"a"]
    return b"".join(rng.choice(pieces) for _ in range(size))[:size]


def main_worker(cases_path: str, out_dir: str) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    reset_peak()
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    cases = json.loads(Path(cases_path).read_text())
    root = Path(out_dir)
    for case in cases:
        number = case["index"]  # unique across workers: it names files and C identifiers
        grammar = root / f"case{number}.abnf"
        grammar.write_bytes(bytes.fromhex(case["hex"]))
        out = root / f"out{number}"
        rng = random.Random(number)
        data, other = root / f"input{number}.bin", root / f"other{number}.abnf"
        data.write_bytes(explain_input(rng, bytes.fromhex(case["hex"])))
        other.write_bytes(bytes.fromhex(case["other"]) if "other" in case else mutate(rng, bytes.fromhex(case["hex"])))
        commands = {"lint": ["lint", str(grammar)], "dfa": ["dfa", str(grammar)],
                    "compile": ["compile", str(grammar), "--out", str(out), "--prefix", f"g{number}"],
                    "explain": ["explain", str(grammar), str(data)],
                    "diff": ["diff", str(grammar), str(other)]}
        for label, argv in commands.items():
            if label not in case.get("commands", commands):
                continue
            report = run_command(argv)
            if label == "compile" and report["status"] == 0:
                report["module_problem"] = check_module(out, number)
            print(json.dumps({"case": number, "command": label, **report}), flush=True)


if __name__ == "__main__":
    main_worker(sys.argv[1], sys.argv[2])
