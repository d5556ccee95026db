"""The command line run in process, with what it prints captured (pytest's ``capsys``)."""
from __future__ import annotations

import pytest

from abnfc.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``abnfc ARGS``: its exit status, standard output and standard error."""
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_cli_text(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``abnfc ARGS``: its exit status, and standard output followed by standard error."""
    status, out, err = run_cli(capsys, *args)
    return status, out + err
