"""Rust plan -> ``<prefix>.rs`` through the templates in ``templates/``: ``rust.rs.j2`` for a DFA,
``rust_pushdown.rs.j2`` for a pushdown validator."""
from __future__ import annotations

from ..templating import render_template
from .plan import RustPlan
from .pushdown import RustPushdownPlan


def render(plan: RustPlan | RustPushdownPlan) -> dict[str, str]:
    template = "rust_pushdown.rs.j2" if isinstance(plan, RustPushdownPlan) else "rust.rs.j2"
    return {f"{plan.prefix}.rs": render_template("abnfc.backends.rust", template, plan=plan)}
