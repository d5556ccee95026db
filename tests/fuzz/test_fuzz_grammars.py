"""Fuzzing the command line with grammars: every grammar compiles or is refused with a message.

Random and mutated grammars (grammar_fuzzer.py) go through ``abnfc lint``, ``dfa``, ``compile``,
``explain`` (on an input made for the case) and ``diff`` (against a mutation of the grammar) in
worker processes (fuzz_worker.py), one per processor.  For every case and command:

- the exit status is 0, 1 or 2 (never 3, an internal error) and nothing hangs;
- no Python traceback and no "internal error" is printed;
- every error names the grammar file, with a line and column where it has a place in it;
- the command stays within the CPU time and memory the limits aim at (CPU_LIMIT, MEMORY_LIMIT):
  CPU time, not wall-clock time, which grows with whatever else runs on the machine (a test runs a
  command the work limit stops beside two CPU-bound processes, and checks the bound still holds);
- whatever ``compile`` writes works: the Python module imports and runs, all generated C files
  compile in one unity build under -Wall -Werror, every JavaScript module loads in Node.js.

ABNFC_FUZZ_CASES (default 300) and ABNFC_FUZZ_SEED (default 5234) set the run; a long campaign
is ``ABNFC_FUZZ_CASES=20000 pytest tests/fuzz -m slow``.  A grammar that ever failed is kept
in tests/fuzz/findings/ and replayed by test_findings, in the fast tier.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from grammar_fuzzer import case

HERE = Path(__file__).resolve().parent
FINDINGS = HERE / "findings"
# A grammar whose DFA the subset construction's work limit (20,000,000 steps) stops: the most
# expensive way a command ends in the default campaign that no fix of an ordering can make cheaper.
# ``abnfc dfa`` on it used 1.9 s of CPU as a process of its own on a quiet machine, 3.0 s beside two
# CPU-bound processes (3.1 s quiet before the closures of small sets were remembered).
HEAVY = HERE / "heavy" / "subset-work-limit.abnf"
HOG = "while True: pass"
CASES = int(os.environ.get("ABNFC_FUZZ_CASES", "300"))
SEED = int(os.environ.get("ABNFC_FUZZ_SEED", "5234"))
# CPU seconds per command (user and system).  Measured on a quiet machine (2 cores, Python 3.11),
# the default campaign's (300 grammars, seed 5234) most expensive command used 5.8 s: ``abnfc diff``
# of case 45 (it compiles the first grammar before finding the second does not parse); the others
# stay under 3.1 s (``abnfc lint``/``dfa``/``compile`` of case 146, which the subset construction's
# work limit stops).  30 s is over 5 times the worst, and 10 times the cost of a run to the work
# limit (HEAVY, checked beside two CPU-bound processes by test_cpu_limit_holds_on_a_busy_machine).
CPU_LIMIT = 30.0
MEMORY_LIMIT = 600 << 10  # KiB of peak RSS per worker
COMMANDS = ("lint", "dfa", "compile", "explain", "diff")
LOCATED = re.compile(r"^\S.*?:\d+:\d+: (error|warning): |^\S+: error: ", re.M)


def run_workers(cases: list[tuple[str, bytes]], folder: Path, jobs: int = 0,
                extra: list[dict] | None = None) -> list[dict]:
    """Every case through the worker processes; ``extra`` adds to each case's entry (the commands to
    run, the grammar to diff against)."""
    jobs = jobs or max(1, min(os.cpu_count() or 1, 4))
    processes = []
    for job in range(jobs):
        work = folder / f"worker{job}"
        work.mkdir()
        share = [{"index": index, "name": name, "hex": data.hex(), **(extra[index] if extra else {})}
                 for index, (name, data) in enumerate(cases) if index % jobs == job]
        (work / "cases.json").write_text(json.dumps(share))
        processes.append(subprocess.Popen([sys.executable, str(HERE / "fuzz_worker.py"), str(work / "cases.json"),
                                           str(work)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
    reports = []
    for job, process in enumerate(processes):
        out, err = process.communicate()  # each command is stopped by the worker's alarms
        assert process.returncode == 0, f"worker {job} died ({process.returncode}):\n{err[-3000:]}"
        for line in out.splitlines():
            report = json.loads(line)
            report["folder"] = str(folder / f"worker{job}")
            reports.append(report)
    return reports


def problems_of(report: dict) -> list[str]:
    status, stderr = report["status"], report["stderr"]
    found = []
    if status not in (0, 1, 2):
        found.append(f"exit status {status}")
    if "Traceback" in stderr or "internal error" in stderr:
        found.append("a traceback or internal error")
    if status == 2 and not LOCATED.search(stderr) and not stderr.startswith("usage:"):
        found.append("an error without a location")
    if report["cpu"] > CPU_LIMIT:
        found.append(f"used {report['cpu']} s of CPU time")
    if report["peak_kb"] > MEMORY_LIMIT:
        found.append(f"peak RSS {report['peak_kb'] >> 10} MiB")
    if report.get("module_problem"):
        found.append(f"generated Python: {report['module_problem']}")
    return found


def generated_c_problems(reports: list[dict]) -> list[str]:
    sources = sorted(path for report in reports if report["command"] == "compile" and report["status"] == 0
                     for path in (Path(report["folder"]) / f"out{report['case']}").glob("*.c"))
    if not sources or shutil.which("gcc") is None:
        return []
    unity = sources[0].parent.parent / "unity.c"
    unity.write_text("".join(f'#include "{path}"\n' for path in sources))
    command = ["gcc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", str(unity)]
    result = subprocess.run(command, capture_output=True, text=True)
    return [] if result.returncode == 0 else [f"generated C does not compile:\n{result.stderr[-3000:]}"]


def generated_js_problems(reports: list[dict]) -> list[str]:
    modules = sorted(path for report in reports if report["command"] == "compile" and report["status"] == 0
                     for path in (Path(report["folder"]) / f"out{report['case']}").glob("*.mjs"))
    if not modules or shutil.which("node") is None:
        return []
    script = "".join(f"await import({json.dumps(path.as_uri())});\n" for path in modules)
    result = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True)
    return [] if result.returncode == 0 else [f"a generated JavaScript module does not load:\n{result.stderr[-3000:]}"]


def _report(cases, reports, failures) -> str:
    """The first failure of each kind of problem, with its grammar."""
    lines, kinds = [], set()
    for report, found in failures:
        kind = re.sub(r"[0-9.]+", "N", found[0])[:60]
        if kind in kinds:
            continue
        kinds.add(kind)
        name, data = cases[report["case"]]
        lines.append(f"case {report['case']} ({name}), abnfc {report['command']}: {'; '.join(found)}\n"
                     f"grammar: {data[:600]!r}\nstderr: {report['stderr'][:800]}")
    return f"{len(failures)} failures:\n" + "\n\n".join(lines)


@pytest.mark.slow
def test_fuzzed_grammars(tmp_path):
    rng = random.Random(SEED)
    cases = [case(rng) for _ in range(CASES)]
    reports = run_workers(cases, tmp_path)
    assert len(reports) == len(COMMANDS) * CASES
    failures = [(report, found) for report in reports if (found := problems_of(report))]
    extra = generated_c_problems(reports) + generated_js_problems(reports)
    slowest = max(reports, key=lambda r: r["cpu"])
    print(f"\n{CASES} grammars, {len(reports)} commands; statuses "
          f"{sorted({r['status'] for r in reports}, key=str)}; slowest: abnfc {slowest['command']} on case "
          f"{slowest['case']}: {slowest['cpu']} s of CPU ({slowest['seconds']} s wall-clock); "
          f"peak RSS {max(r['peak_kb'] for r in reports) >> 10} MiB")
    assert not failures and not extra, _report(cases, reports, failures) + "\n".join(extra)


def test_findings(tmp_path):
    """Grammars that once failed, replayed through the same checks (in one worker)."""
    cases = [(path.name, path.read_bytes()) for path in sorted(FINDINGS.glob("*.abnf"))]
    assert cases, "tests/fuzz/findings/ holds the grammars earlier campaigns failed on"
    reports = run_workers(cases, tmp_path, jobs=1)
    failures = [(report, found) for report in reports if (found := problems_of(report))]
    assert not failures, _report(cases, reports, failures)


def run_measured(argv: list[str], stderr_path: Path) -> tuple[int, float, str]:
    """Run ``argv``; its exit status, the CPU time (user and system) it used, and its stderr."""
    with stderr_path.open("w+") as err:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, wait_status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(wait_status)  # reaped here, not by Popen
        err.seek(0)
        return process.returncode, usage.ru_utime + usage.ru_stime, err.read()


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="os.wait4 measures a child's CPU time (Unix)")
def test_cpu_limit_holds_on_a_busy_machine(tmp_path):
    """The heavy command, run beside two processes that use all the CPU they get, stays within
    CPU_LIMIT: its CPU time is its own work, which the others slow down but do not add to (its
    wall-clock time, which they do lengthen, is only printed)."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2)]
    try:
        status, cpu, stderr = run_measured([sys.executable, "-m", "abnfc", "dfa", str(HEAVY)], tmp_path / "stderr")
        hogs_running = [hog.poll() is None for hog in hogs]
    finally:
        for hog in hogs:
            hog.kill()
        hog_cpu = []
        for hog in hogs:
            _, _, usage = os.wait4(hog.pid, 0)
            hog.returncode = -9
            hog_cpu.append(usage.ru_utime + usage.ru_stime)
    print(f"\nabnfc dfa {HEAVY.name}: {cpu:.2f} s of CPU beside hogs that used {hog_cpu[0]:.2f} and "
          f"{hog_cpu[1]:.2f} s; CPU_LIMIT {CPU_LIMIT} s")
    assert all(hogs_running), "a CPU-bound process ended early: the command did not run beside it"
    assert status == 2 and "--max-work" in stderr, stderr[-2000:]  # the work limit stopped it
    assert sum(hog_cpu) > cpu / 4, "the CPU-bound processes got almost no CPU: nothing competed"
    assert cpu < CPU_LIMIT, f"abnfc dfa used {cpu:.2f} s of CPU beside two CPU-bound processes"
