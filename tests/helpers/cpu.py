"""What the processor the tests run on can do, read from /proc/cpuinfo (nothing where it cannot be read)."""
from __future__ import annotations

from pathlib import Path


def cpu_has(*flags: str) -> bool:
    """Whether /proc/cpuinfo lists every one of ``flags``, spelled as it spells them (avx2,
    sse4_1, avx512vbmi, avx512_vbmi2)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return all(f" {flag}" in text for flag in flags)
