"""CPU time of child processes, the measure of a command's cost that holds on a busy machine.

Wall-clock time grows with whatever else runs beside a test; the CPU time a process uses for its
work does not (other processes delay it, they do not add to it).  Tests that bound how much a
command may cost bound its CPU time, with a margin of at least 5 times the figure measured on a
quiet machine, and say that figure where the bound is set.
"""
from __future__ import annotations

import resource
import subprocess
from typing import Any


def children_cpu() -> float:
    """CPU seconds (user and system) used so far by the children this process has waited for,
    with the children they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_measured(argv: list[str], **options: Any) -> tuple[subprocess.CompletedProcess[Any], float]:
    """``subprocess.run(argv, **options)`` and the CPU time the process (and its children) used.
    The process is waited for before this returns, so the difference is its own; no other child
    may be waited for meanwhile (a test runs one command at a time)."""
    before = children_cpu()
    result = subprocess.run(argv, **options)
    return result, children_cpu() - before
