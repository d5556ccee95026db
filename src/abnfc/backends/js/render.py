"""JavaScript plan -> ``<module>.mjs`` through ``templates/validator.mjs.j2``."""
from __future__ import annotations

from ..templating import render_template
from .plan import JsPlan


def render(plan: JsPlan) -> dict[str, str]:
    return {f"{plan.module}.mjs": render_template("abnfc.backends.js", "validator.mjs.j2", plan=plan)}
