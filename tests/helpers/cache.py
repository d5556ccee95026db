"""A folder of the test run for the compiled batch kernels (``ABNFC_CACHE``), so that tests
neither read nor fill the user's cache."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


def kernel_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """For a module-scoped fixture: ABNFC_CACHE points at a fresh folder while the module runs."""
    folder = tmp_path_factory.mktemp("cache")
    before = os.environ.get("ABNFC_CACHE")
    os.environ["ABNFC_CACHE"] = str(folder)
    yield folder
    if before is None:
        del os.environ["ABNFC_CACHE"]
    else:
        os.environ["ABNFC_CACHE"] = before
