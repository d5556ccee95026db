"""Runs fuzz cases through the command line, in process, and reports what happened.

Usage: ``python fuzz_worker.py CASES.json OUT_DIR`` where CASES.json holds
``[{"index", "name", "hex"}, ...]``.
For each grammar it runs ``abnfc lint``, ``abnfc dfa`` and ``abnfc compile`` (Python, C and
JavaScript) as ``abnfc.cli.main`` calls with standard output and error captured, each under a
wall-clock alarm; when compile succeeds it imports the generated Python module and runs it.
It prints one JSON object per case and command: exit status, seconds, stderr, the peak RSS the
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

from abnfc.cli import main

ALARM_SECONDS = 60  # far above the 10 s the limits aim at: a hang, not a slow case
ADDRESS_SPACE = 3 << 30


class Hang(BaseException):
    """Raised by the alarm; a BaseException, so the command line's handlers do not catch it."""


def _alarm(signum, frame):
    raise Hang()


def run_command(argv: list[str]) -> dict:
    out, err = io.StringIO(), io.StringIO()
    began = time.perf_counter()
    status: int | str
    signal.alarm(ALARM_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except Hang:
        status = "hang"
    except SystemExit as stop:  # argparse usage errors
        status = stop.code if isinstance(stop.code, int) else 2
    finally:
        signal.alarm(0)
    return {"status": status, "seconds": round(time.perf_counter() - began, 3),
            "stderr": err.getvalue()[-4000:], "stdout_size": len(out.getvalue()),
            "peak_kb": peak_kb()}


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


def main_worker(cases_path: str, out_dir: str) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    reset_peak()
    signal.signal(signal.SIGALRM, _alarm)
    cases = json.loads(Path(cases_path).read_text())
    root = Path(out_dir)
    for case in cases:
        number = case["index"]  # unique across workers: it names files and C identifiers
        grammar = root / f"case{number}.abnf"
        grammar.write_bytes(bytes.fromhex(case["hex"]))
        out = root / f"out{number}"
        commands = {"lint": ["lint", str(grammar)], "dfa": ["dfa", str(grammar)],
                    "compile": ["compile", str(grammar), "--out", str(out), "--prefix", f"g{number}"]}
        for label, argv in commands.items():
            report = run_command(argv)
            if label == "compile" and report["status"] == 0:
                report["module_problem"] = check_module(out, number)
            print(json.dumps({"case": number, "command": label, **report}), flush=True)


if __name__ == "__main__":
    main_worker(sys.argv[1], sys.argv[2])
