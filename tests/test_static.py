"""Static checks: ruff (lint) on src/, tests/ and bench/, mypy (types) on src/ and tests/, and
import-linter (the package's layers, as declared in pyproject.toml).  Each tool is installed by
the test extras, so CI runs them all.  They form the ``static`` tier (``pytest -m static``), which
the full run includes and the quick tier leaves out; so does the check that tests/tiers.py names
tests that exist."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tiers
from conftest import ROOT, TESTS

BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
        return found
    return str(path)


@pytest.mark.parametrize("command", [["ruff", "check", "src", "tests", "bench"], ["mypy"], ["lint-imports"]],
                         ids=["ruff", "mypy", "import-linter"])
def test_static_check_is_clean(command):
    result = subprocess.run([_tool(command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")}


def test_the_tiers_name_tests_that_exist():
    """A test renamed or removed would silently leave the quick tier: every name tiers.py gives
    is a test function of its file."""
    missing = [path for path in (*tiers.QUICK, *tiers.STATIC) if not (TESTS / path).is_file()]
    for path, names in tiers.QUICK.items():
        if (TESTS / path).is_file() and names != tiers.ALL:
            functions = _test_functions(TESTS / path)
            missing += [f"{path}::{name}" for name in names if name.split("[")[0] not in functions]
    assert not missing, f"tests/tiers.py names tests that do not exist: {missing}"
