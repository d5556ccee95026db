"""Go plan -> ``<prefix>.go`` through the templates in ``templates/``."""
from __future__ import annotations

from ..templating import render_template
from .plan import GoPlan


def render(plan: GoPlan) -> dict[str, str]:
    return {f"{plan.package}.go": render_template("abnfc.backends.go", "validator.go.j2", plan=plan, P=plan.package)}
