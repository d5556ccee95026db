"""Benchmark: the front end's time against grammar size, for the shapes that once took quadratic
time, and the automaton limits on grammars built to blow up.

For each shape, grammars of size n and 10n go through ``abnfc lint`` (parse, resolve, every
warning and suggestion), in this process, best of a few runs; the table prints both times and
their ratio (10 means linear; 100 quadratic).  Then a few grammars whose DFA is exponential or
whose subsets are large go through ``abnfc dfa`` with the default limits: the time until they
are built or refused, and the process's peak RSS.

    python bench/bench_frontend.py [--scale N]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import resource
import time
from pathlib import Path
from tempfile import TemporaryDirectory

from abnfc.cli import main


def comments(n: int) -> str:
    return 'a = "x" b\n' + "; comment\n" * n + 'b = "y"\n'


def blank_crlf(n: int) -> str:
    return 'a = "x" b\r\n' + "\r\n" * n + 'b = "y"\r\n'


def adjacent(n: int) -> str:
    return "r = " + '"a"' * n + "\n"


def duplicates(n: int) -> str:
    return 'r = "a"\n' + 'r = "b"\n' * n


def undefined(n: int) -> str:
    return "r = " + " / ".join(f"u{i}x" for i in range(n)) + "\n" + "".join(f'u{i} = "x"\n' for i in range(n))


def chain(n: int) -> str:
    return "".join(f'r{i} = r{i + 1} "a"\n' for i in range(n)) + f'r{n} = "z"\n'


def chain_backward(n: int) -> str:
    return 'r0 = r1 "a"\n' + "".join(f'r{i} = r{i + 1} "a"\n' for i in range(n, 0, -1)) + f'r{n + 1} = "z"\n'


def alternatives(n: int) -> str:
    return "r = " + " / ".join(f'"a{i}"' for i in range(n)) + "\n"


SHAPES = [("comment lines between rules", comments, 2_000), ("blank CRLF lines", blank_crlf, 2_000),
          ("adjacent strings (warnings)", adjacent, 400), ("duplicate definitions (errors)", duplicates, 1_000),
          ("undefined references (suggestions)", undefined, 300), ("chain of rules", chain, 5_000),
          ("chain of rules, backward", chain_backward, 5_000), ("alternatives in one rule", alternatives, 10_000)]

BYTES = "b = " + " / ".join(f"%x{i:02X}" for i in range(256)) + "\n"
BLOWUPS = [("*(a/b) a 20(a/b): 2^21 DFA states", "r = *(%x61 / %x62) %x61 20(%x61 / %x62)\n"),
           ('*b "a" 8b, b = 256 one-byte alternatives', 'r = *b "a" 8b\n' + BYTES),
           ('*b "a" 13b, b = 256 one-byte alternatives', 'r = *b "a" 13b\n' + BYTES),
           ("1*65535 of any byte", "r = 1*65535(%x00-FF)\n")]


def run(argv: list[str]) -> tuple[int, float]:
    began = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    return status, time.perf_counter() - began


def best(path: Path, command: str, rounds: int) -> tuple[int, float]:
    results = [run([command, str(path)]) for _ in range(rounds)]
    return results[0][0], min(seconds for _, seconds in results)


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1, help="multiply every base size (default 1)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with TemporaryDirectory() as folder:
        path = Path(folder) / "g.abnf"
        print("| grammar shape | n | lint at n | lint at 10n | size at 10n | ratio |")
        print("|---|---|---|---|---|---|")
        for name, make, base in SHAPES:
            n = base * args.scale
            times = []
            for size in (n, 10 * n):
                text = make(size)
                path.write_bytes(text.encode())
                times.append(best(path, "lint", args.rounds)[1])
            print(f"| {name} | {n:,} | {times[0]:.3f} s | {times[1]:.3f} s | {len(text) / 1e6:.2f} MB | "
                  f"{times[1] / times[0]:.1f} |")
        print()
        print("| grammar built to blow up | abnfc dfa | seconds | peak RSS |")
        print("|---|---|---|---|")
        for name, text in BLOWUPS:
            path.write_text(text)
            status, seconds = run(["dfa", str(path)])
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10
            print(f"| {name} | {'built' if status == 0 else 'refused'} | {seconds:.2f} | {peak} MiB |")


if __name__ == "__main__":
    main_bench()
