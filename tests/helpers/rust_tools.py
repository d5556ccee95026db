"""The Rust toolchain the tests build with, or a skip that says why there is none."""
from __future__ import annotations

import pytest

from abnfc.backends.rust.runner import find_tool, rustc
from abnfc.errors import AbnfError


def rust_problem() -> str | None:
    """Why the generated Rust cannot be built here (no rustc, or only one older than the
    modules need), or None."""
    try:
        rustc()
    except AbnfError as error:
        return str(error)
    return None


def rust_tool(name: str) -> str:
    """``name`` (rustc, rustfmt, cargo) from a toolchain new enough for the generated modules;
    skips the test where there is none."""
    problem = rust_problem()
    if problem:
        pytest.skip(problem)
    found = find_tool(name)
    if found is None:
        pytest.skip(f"{name} not found (install it with rustup)")
    return found
