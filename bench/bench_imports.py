"""Start-up cost: how long ``abnfc --version``, ``import abnfc`` and importing the automata, the
interpreter and a backend's runner take in a fresh interpreter, and whether lark or jinja2 were
imported.  Prints a Markdown table; each figure is the best and the median of N runs (wall
time, including the interpreter's own start-up, which the first row measures alone).

    python bench/bench_imports.py [--runs N] [--src DIR]   # DIR: a src/ folder to measure instead
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "python -c pass (the interpreter alone)": "pass",
    "import abnfc": "import abnfc",
    "abnfc --version": "import sys; from abnfc.__main__ import run; sys.argv = ['abnfc', '--version']; run()",
    "abnfc lint --help": "import sys; from abnfc.__main__ import run; sys.argv = ['abnfc', 'lint', '--help']; run()",
    "import abnfc.automata.dfa": "import abnfc.automata.dfa",
    "import abnfc.interpret": "import abnfc.interpret",
    "import abnfc.backends.python.runner": "import abnfc.backends.python.runner",
}
PROBE = "; import sys; print(' '.join(m for m in ('lark', 'jinja2') if m in sys.modules), file=sys.stderr)"


def measure(code: str, src: Path, runs: int) -> tuple[float, float, str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    times = []
    loaded = ""
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-c", f"try:\n    {code}\nexcept SystemExit:\n    pass\n{PROBE[2:]}"],
                                env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        loaded = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
    return min(times), statistics.median(times), loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    args = parser.parse_args()
    print(f"| what ({args.runs} runs) | best | median | lark or jinja2 imported |")
    print("|---|---|---|---|")
    for name, code in CASES.items():
        best, median, loaded = measure(code, args.src, args.runs)
        print(f"| `{name}` | {best * 1000:.0f} ms | {median * 1000:.0f} ms | {loaded or 'neither'} |")


if __name__ == "__main__":
    main()
