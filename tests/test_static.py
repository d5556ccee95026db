"""Static checks: ruff (lint) and mypy (types) on src/ and tests/ alike, and import-linter (the
package's layers, as declared in pyproject.toml).  Each tool is installed by the test extras, so
CI runs them all."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
        return found
    return str(path)


@pytest.mark.parametrize("command", [["ruff", "check", "src", "tests"], ["mypy"], ["lint-imports"]],
                         ids=["ruff", "mypy", "import-linter"])
def test_static_check_is_clean(command):
    result = subprocess.run([_tool(command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
