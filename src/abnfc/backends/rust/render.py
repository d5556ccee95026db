"""Rust plan -> ``<prefix>.rs`` through the templates in ``templates/``."""
from __future__ import annotations

from ..templating import render_template
from .plan import RustPlan


def render(plan: RustPlan) -> dict[str, str]:
    return {f"{plan.prefix}.rs": render_template("abnfc.backends.rust", "rust.rs.j2", plan=plan)}
