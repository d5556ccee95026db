"""Fuzzing crosscheck's process handling (issue 23): random programs that answer correctly for a
while and then misbehave -- a wrong or garbled answer, a long line or an endless one with no
newline, silence, an exit, a closed output, a child left holding the output, a flood on standard
error, two answers for one input -- under both protocols, and ``--python`` adapters that exit,
crash or close their output.  For every run:

- the exit status is 0, 1 or 2 (never 3), with no traceback and no "internal error";
- crosscheck waits out ``--timeout`` a bounded number of times, not once an input: the programs
  note each misdeed that makes it wait, and a run sees at most WAITS of them;
- the run, with the programs it started, stays within CPU_LIMIT of CPU time and CPU_PER_PROCESS
  for each process they started (an endless answer is not buffered and re-joined without end):
  CPU time, which other processes on the machine do not add to, where wall-clock time would
  measure how busy the machine is;
- no process the program started is left running afterwards (its process group is killed).

ABNFC_FUZZ_PROGRAMS (default 24) and ABNFC_FUZZ_SEED set the run."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_fuzz_grammars import SEED

from abnfc.crosscheck.programs import MAX_PROBES

ROOT = Path(__file__).resolve().parents[2]
UTF8 = str(ROOT / "grammars" / "utf8.abnf")
PROGRAMS = int(os.environ.get("ABNFC_FUZZ_PROGRAMS", "24"))
TIMEOUT = 1.0  # crosscheck's --timeout in these runs
# How many times a run may wait out --timeout: under the exit protocol, once for each process running
# when the first wait began (one a processor; no process starts after it); under hex-lines, the run
# that failed, the failing input alone and at most MAX_PROBES probes to find the input behind the
# fault.  Waiting on every input would be hundreds.
WAITS = {"exit": os.cpu_count() or 1, "hex-lines": MAX_PROBES + 2, "--python": MAX_PROBES + 2}
# CPU seconds (user and system) of crosscheck and the programs it waited for, per run: CPU_LIMIT
# and CPU_PER_PROCESS for each process the programs started.  Measured (2 cores, Python 3.11, the
# default 24 runs): runs of one program or adapter used at most 0.47 s (crosscheck's and the
# program's start-up); exit-protocol runs 14 s for 981 processes, 14.4 ms each.  Both bounds are
# over 5 times those figures.
CPU_LIMIT = 4.0
CPU_PER_PROCESS = 0.1
# A run still going after this long is stopped and reported as hung: a bound on a hang, not on
# speed (runs wait out --timeout a few times at most).
HANG_SECONDS = 900

# A misdeed that makes crosscheck wait out --timeout notes it first, one line a time.
WAIT = "open(MISDEEDS_FILE, 'a').write('wait\\n'); "
MISDEEDS = {
    "wrong": "print('0' if ok else '1', flush=True)",
    "garbled": "print('perhaps', flush=True)",
    "long line": "print('1' * 100000, flush=True)",
    "endless": "while True:\n            sys.stdout.write('x' * 65536)",
    "silence": f"{WAIT}time.sleep(600)",
    "exit": "sys.exit(3)",
    "exit quietly": "sys.exit(0)",
    "closed output": f"{WAIT}os.close(1); time.sleep(600)",
    "child holds output": f"{WAIT}os.fork() or time.sleep(600); sys.exit(0) if True else None",
    "stderr flood": "sys.stderr.write('e' * (1 << 20)); print('1' if ok else '0', flush=True)",
    "two answers": "print('1\\n1', flush=True)",
}

PROGRAM = """\
import os, sys, time
MISDEEDS_FILE = {misdeeds!r}
with open({pids!r}, "a") as pids:
    pids.write(f"{{os.getpid()}}\\n")
count = 0
for line in sys.stdin:
    count += 1
    try:
        data = bytes.fromhex(line.strip())
        data.decode("utf-8")
        ok = True
    except ValueError:
        ok = False
    if count == {when}:
        if os.fork() == 0:  # a grandchild, to see that the whole group goes
            with open({pids!r}, "a") as pids:
                pids.write(f"{{os.getpid()}}\\n")
            time.sleep(600)
            os._exit(0)
        {misdeed}
    else:
        print("1" if ok else "0", flush=True)
"""

EXIT_PROGRAM = """\
import os, sys, time
MISDEEDS_FILE = {misdeeds!r}
MISDEEDS_FILE = {misdeeds!r}
with open({pids!r}, "a") as pids:
    pids.write(f"{{os.getpid()}}\\n")
data = sys.stdin.buffer.read()
if len(data) == {when}:
    {misdeed}
try:
    data.decode("utf-8")
except ValueError:
    sys.exit(1)
sys.exit(0)
"""

ADAPTERS = {
    "exits": "import sys\ndef f(data):\n    sys.exit(0)\n",
    "exits on import": "raise SystemExit(0)\ndef f(data):\n    return True\n",
    "closes its output": "import os\ndef f(data):\n    os.close(1)\n    return True\n",
    "kills itself": "import os, signal\ndef f(data):\n    os.kill(os.getpid(), signal.SIGKILL)\n",
    "raises": "def f(data):\n    raise ValueError('no')\n",
    "hangs": f"import time\ndef f(data):\n    {WAIT}time.sleep(600)\n",
}


def make_case(rng: random.Random, index: int, folder: Path) -> tuple[str, list[str], Path]:
    """A description, crosscheck's arguments, and the file the program writes its process ids to."""
    pids = folder / f"pids{index}.txt"
    roll = rng.random()
    if roll < 0.6:
        name = rng.choice(sorted(MISDEEDS))
        program = folder / f"program{index}.py"
        program.write_text(PROGRAM.format(pids=str(pids), misdeeds=str(misdeeds_file(pids)),
                                          when=rng.choice([1, 2, 50, 300]), misdeed=MISDEEDS[name]))
        return f"hex-lines, {name}", ["--cmd", f"{sys.executable} {program}", "--exhaustive", "1",
                                      "--sample", "200", "--random", "50"], pids
    if roll < 0.8:
        name = rng.choice(["silence", "exit", "stderr flood", "closed output"])
        misdeed = MISDEEDS[name].replace("print('1' if ok else '0', flush=True)", "pass")
        program = folder / f"program{index}.py"
        program.write_text(EXIT_PROGRAM.format(pids=str(pids), misdeeds=str(misdeeds_file(pids)),
                                               when=rng.choice([0, 1]), misdeed=misdeed))
        return f"exit, {name}", ["--cmd", f"{sys.executable} {program}", "--protocol", "exit",
                                 "--exhaustive", "1", "--random", "5"], pids
    name = rng.choice(sorted(ADAPTERS))
    adapter = folder / f"adapter{index}.py"
    adapter.write_text(f"MISDEEDS_FILE = {str(misdeeds_file(pids))!r}\n{ADAPTERS[name]}")
    return f"--python, {name}", ["--python", f"{adapter}:f", "--exhaustive", "1", "--sample", "20",
                                 "--random", "20"], pids


def misdeeds_file(pids: Path) -> Path:
    """Where a case's program notes each wait it causes, one line each."""
    return pids.with_name(pids.name.replace("pids", "misdeeds"))


def run_measured(argv: list[str], folder: Path, name: str) -> tuple[int | None, float, str]:
    """Run ``argv``: its exit status (None: hung, stopped after HANG_SECONDS), the CPU time it and
    the children it waited for used, and the end of its output."""
    out = folder / f"{name}.out"
    with out.open("w+") as sink:
        process = subprocess.Popen(argv, cwd=folder, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink)
        guard = threading.Timer(HANG_SECONDS, process.kill)
        guard.start()
        _, wait_status, usage = os.wait4(process.pid, 0)
        guard.cancel()
        process.returncode = os.waitstatus_to_exitcode(wait_status)  # reaped here, not by Popen
        sink.seek(0)
        output = sink.read()
    status = None if process.returncode == -9 else process.returncode
    return status, usage.ru_utime + usage.ru_stime, output[-4000:]


def alive(pid: int) -> bool:
    """Whether ``pid`` is still running (a zombie waiting for its parent is not)."""
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in state and "\nState:\tX" not in state


def run_case(case: tuple[str, list[str], Path], folder: Path) -> list[str]:
    name, arguments, pids = case
    status, cpu, output = run_measured([sys.executable, "-m", "abnfc", "crosscheck", UTF8, *arguments, "--timeout",
                                        str(TIMEOUT)], folder, pids.stem.replace("pids", "run"))
    if status is None:
        return [f"{name}: hung (stopped after {HANG_SECONDS} s)"]
    problems = []
    if status not in (0, 1, 2):
        problems.append(f"{name}: exit status {status}: {output}")
    if "Traceback" in output or "internal error" in output:
        problems.append(f"{name}: a traceback or internal error: {output}")
    misdeeds = misdeeds_file(pids)
    seen = len(misdeeds.read_text().split()) if misdeeds.exists() else 0
    if seen > WAITS[name.split(",")[0]]:
        problems.append(f"{name}: crosscheck waited out --timeout {seen} times: {output}")
    started = [int(pid) for pid in pids.read_text().split()] if pids.exists() else []
    if cpu > CPU_LIMIT + CPU_PER_PROCESS * len(started):
        problems.append(f"{name}: used {cpu:.1f} s of CPU time for {len(started)} processes")
    print(f"{name}: {cpu:.2f} s of CPU, {len(started)} processes, {seen} waits")
    left = [pid for pid in started if alive(pid)]
    for _ in range(100):  # a killed process needs a moment to go, longer on a busy machine
        if not left:
            break
        time.sleep(0.1)
        left = [pid for pid in left if alive(pid)]
    if left:
        problems.append(f"{name}: processes {left} left running")
        for pid in left:
            os.kill(pid, 9)
    return problems


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the processes left running")
def test_fuzzed_programs(tmp_path):
    rng = random.Random(SEED)
    cases = [make_case(rng, index, tmp_path) for index in range(PROGRAMS)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for found in pool.map(lambda case: run_case(case, tmp_path), cases) for p in found]
    kinds = {case[0].split(",")[0] for case in cases}
    assert kinds == {"hex-lines", "exit", "--python"}  # every kind of run was tried
    assert not problems, "\n".join(problems)
