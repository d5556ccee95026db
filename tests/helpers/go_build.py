"""Go builds for the tests: generated packages and a program of the test's own in one module,
built as the Go backend's runner builds (offline, a persistent cache); the go tool's path, and a
skip with the reason where it is not installed."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import files_for

from abnfc.backends.go.runner import MODULE, environment

GO = shutil.which("go")
GOFMT = shutil.which("gofmt")


def need_go() -> str:
    """The go tool's path; the test is skipped, saying why, where it is missing."""
    if GO is None:
        pytest.skip("the Go toolchain ('go') is not installed: apt-get install golang-go")
    return GO


def go_files(text: str, package: str, options: dict | None = None, start: str | None = None) -> str:
    """The generated Go source of grammar ``text`` as package ``package``: ``<package>.go``."""
    return go_package(text, package, options, start)[f"{package}.go"]


def go_package(text: str, package: str, options: dict | None = None, start: str | None = None) -> dict[str, str]:
    """Every file of the package (with a window test, the assembly and the files beside it)."""
    return files_for(text, "go", package, start, options=options)


def write_module(folder: Path, packages: dict[str, str | dict[str, str]], main: str | None = None) -> Path:
    """A module holding each package (name -> its files, or the text of ``<name>.go`` alone) and,
    if given, a main program."""
    module = folder / MODULE
    module.mkdir(parents=True)
    (module / "go.mod").write_text(f"module {MODULE}\n\ngo 1.19\n", encoding="utf-8")
    for name, files in packages.items():
        (module / name).mkdir()
        for file, text in (files.items() if isinstance(files, dict) else [(f"{name}.go", files)]):
            (module / name / file).write_text(text, encoding="utf-8")
    if main is not None:
        (module / "main.go").write_text(main, encoding="utf-8")
    return module


def go(module: Path, *args: str, goarch: str | None = None) -> subprocess.CompletedProcess:
    """Run the go tool in ``module`` (for another architecture if asked); the test fails with
    its output if it fails."""
    env = {**environment(), **({"GOARCH": goarch} if goarch else {})}
    result = subprocess.run([need_go(), *args], cwd=module, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"go {' '.join(args)}:\n{result.stdout}{result.stderr}"
    return result


def build_program(module: Path) -> Path:
    program = module.parent / "program"
    go(module, "build", "-o", str(program), ".")
    return program
