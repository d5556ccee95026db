"""``abnfc check --records`` run in process on files a test writes: the shared steps of the
records tests."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from .cli import run_cli


def write(folder: Path, name: str, data: bytes | str) -> str:
    """``data`` written to ``folder/name`` (text as UTF-8); the path as a string."""
    path = folder / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``abnfc check ARGS``: its exit status, standard output and standard error."""
    return run_cli(capsys, "check", *args)


def check_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict], str]:
    """``abnfc check ARGS --format json``: its exit status, the JSON lines and standard error."""
    status, out, err = check(capsys, *args, "--format", "json")
    return status, [json.loads(line) for line in out.splitlines()], err
