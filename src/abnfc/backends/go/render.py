"""Go plan -> ``<prefix>.go`` through the templates in ``templates/``: ``validator.go.j2`` for a
DFA, ``pushdown.go.j2`` for a pushdown validator."""
from __future__ import annotations

from ..templating import render_template
from .plan import GoPlan
from .pushdown import GoPushdownPlan


def render(plan: GoPlan | GoPushdownPlan) -> dict[str, str]:
    template = "pushdown.go.j2" if isinstance(plan, GoPushdownPlan) else "validator.go.j2"
    return {f"{plan.package}.go": render_template("abnfc.backends.go", template, plan=plan, P=plan.package)}
