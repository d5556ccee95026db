"""C plan -> ``<prefix>.h`` and ``<prefix>.c`` through the templates in ``templates/``."""
from __future__ import annotations

from ..templating import render_template
from .plan import CPlan
from .pushdown import CPushdownPlan


def render(plan: CPlan | CPushdownPlan) -> dict[str, str]:
    if isinstance(plan, CPushdownPlan):
        context = {"plan": plan, "P": plan.prefix, "M": plan.macro}
        return {
            f"{plan.prefix}.h": render_template("abnfc.backends.c", "c_pushdown.h.j2", **context),
            f"{plan.prefix}.c": render_template("abnfc.backends.c", "c_pushdown.c.j2", **context),
        }
    context = {
        "plan": plan,
        "P": plan.prefix,
        "M": plan.macro,
        "strategy_template": f"c_{plan.strategy}.c.j2",
    }
    return {
        f"{plan.prefix}.h": render_template("abnfc.backends.c", "c_header.h.j2", **context),
        f"{plan.prefix}.c": render_template("abnfc.backends.c", "c_source.c.j2", **context),
    }
