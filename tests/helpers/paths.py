"""The repository's folders and files the tests read (tests read nothing outside the repository)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
GRAMMARS = ROOT / "grammars"
UTF8_GRAMMAR = GRAMMARS / "utf8.abnf"
