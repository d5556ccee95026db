"""Fuzzing crosscheck's process handling (issue 23): random programs that answer correctly for a
while and then misbehave -- a wrong or garbled answer, a long line or an endless one with no
newline, silence, an exit, a closed output, a child left holding the output, a flood on standard
error, two answers for one input -- under both protocols, and ``--python`` adapters that exit,
crash or close their output.  For every run:

- the exit status is 0, 1 or 2 (never 3), with no traceback and no "internal error";
- the run ends within a bound set by ``--timeout`` (no wait per input, no hang);
- no process the program started is left running afterwards (its process group is killed).

ABNFC_FUZZ_PROGRAMS (default 24) and ABNFC_FUZZ_SEED set the run."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_fuzz_grammars import SEED

ROOT = Path(__file__).resolve().parents[2]
UTF8 = str(ROOT / "grammars" / "utf8.abnf")
PROGRAMS = int(os.environ.get("ABNFC_FUZZ_PROGRAMS", "24"))
TIMEOUT = 1.0  # crosscheck's --timeout in these runs
BOUND = 40.0  # seconds a run may take: a few --timeouts, the start-up of two Pythons, a busy machine

MISDEEDS = {
    "wrong": "print('0' if ok else '1', flush=True)",
    "garbled": "print('perhaps', flush=True)",
    "long line": "print('1' * 100000, flush=True)",
    "endless": "while True:\n            sys.stdout.write('x' * 65536)",
    "silence": "time.sleep(600)",
    "exit": "sys.exit(3)",
    "exit quietly": "sys.exit(0)",
    "closed output": "os.close(1); time.sleep(600)",
    "child holds output": "os.fork() or time.sleep(600); sys.exit(0) if True else None",
    "stderr flood": "sys.stderr.write('e' * (1 << 20)); print('1' if ok else '0', flush=True)",
    "two answers": "print('1\\n1', flush=True)",
}

PROGRAM = """\
import os, sys, time
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
    "hangs": "import time\ndef f(data):\n    time.sleep(600)\n",
}


def make_case(rng: random.Random, index: int, folder: Path) -> tuple[str, list[str], Path]:
    """A description, crosscheck's arguments, and the file the program writes its process ids to."""
    pids = folder / f"pids{index}.txt"
    roll = rng.random()
    if roll < 0.6:
        name = rng.choice(sorted(MISDEEDS))
        program = folder / f"program{index}.py"
        program.write_text(PROGRAM.format(pids=str(pids), when=rng.choice([1, 2, 50, 300]), misdeed=MISDEEDS[name]))
        return f"hex-lines, {name}", ["--cmd", f"{sys.executable} {program}", "--exhaustive", "1",
                                      "--sample", "200", "--random", "50"], pids
    if roll < 0.8:
        name = rng.choice(["silence", "exit", "stderr flood", "closed output"])
        misdeed = MISDEEDS[name].replace("print('1' if ok else '0', flush=True)", "pass")
        program = folder / f"program{index}.py"
        program.write_text(EXIT_PROGRAM.format(pids=str(pids), when=rng.choice([0, 1]), misdeed=misdeed))
        return f"exit, {name}", ["--cmd", f"{sys.executable} {program}", "--protocol", "exit",
                                 "--exhaustive", "1", "--random", "5"], pids
    name = rng.choice(sorted(ADAPTERS))
    adapter = folder / f"adapter{index}.py"
    adapter.write_text(ADAPTERS[name])
    return f"--python, {name}", ["--python", f"{adapter}:f", "--exhaustive", "1", "--sample", "20",
                                 "--random", "20"], pids


def alive(pid: int) -> bool:
    """Whether ``pid`` is still running (a zombie waiting for its parent is not)."""
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in state and "\nState:\tX" not in state


def run_case(case: tuple[str, list[str], Path], folder: Path) -> list[str]:
    name, arguments, pids = case
    began = time.monotonic()
    try:
        result = subprocess.run([sys.executable, "-m", "abnfc", "crosscheck", UTF8, *arguments, "--timeout",
                                 str(TIMEOUT)], cwd=folder, capture_output=True, text=True, timeout=BOUND * 3)
    except subprocess.TimeoutExpired:
        return [f"{name}: hung for {BOUND * 3} s"]
    took = time.monotonic() - began
    problems = []
    output = result.stdout[-2000:] + result.stderr[-2000:]
    if result.returncode not in (0, 1, 2):
        problems.append(f"{name}: exit status {result.returncode}: {output}")
    if "Traceback" in output or "internal error" in output:
        problems.append(f"{name}: a traceback or internal error: {output}")
    if took > BOUND:
        problems.append(f"{name}: took {took:.1f} s")
    time.sleep(0.2)  # a killed process needs a moment to go
    left = [pid for pid in map(int, pids.read_text().split()) if alive(pid)] if pids.exists() else []
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
