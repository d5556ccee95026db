"""Book plan -> ``<prefix>.html`` through ``templates/book.html.j2``."""
from __future__ import annotations

from ..templating import render_template
from .plan import HtmlPlan


def render(plan: HtmlPlan) -> dict[str, str]:
    return {plan.file_name: render_template("abnfc.backends.html", "book.html.j2", plan=plan)}
