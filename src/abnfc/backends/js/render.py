"""JavaScript plan -> ``<module>.mjs`` through the template the plan names: ``validator.mjs.j2``
for a DFA, ``pushdown.mjs.j2`` for a pushdown validator."""
from __future__ import annotations

from ..templating import render_template
from .plan import JsPlan


def render(plan: JsPlan) -> dict[str, str]:
    return {f"{plan.module}.mjs": render_template("abnfc.backends.js", plan.template, plan=plan)}
