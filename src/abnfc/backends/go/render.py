"""Go plan -> ``<prefix>.go`` through the templates in ``templates/``: ``validator.go.j2`` for a
DFA, ``pushdown.go.j2`` for a pushdown validator; for a DFA with a window test, also
``<prefix>_amd64.s``, ``<prefix>_amd64.go`` and ``<prefix>_other.go`` (``go_window*.j2``)."""
from __future__ import annotations

from ..templating import render_template
from .plan import GoPlan
from .pushdown import GoPushdownPlan

# A k-definite language's window test: amd64 assembly, its declarations, and for other
# architectures (or the purego build tag) what IsValid needs in their place.
WINDOW_FILES = ("_amd64.s", "_amd64.go", "_other.go")


def render(plan: GoPlan | GoPushdownPlan) -> dict[str, str]:
    P = plan.package
    if isinstance(plan, GoPushdownPlan):
        return {f"{P}.go": render_template("abnfc.backends.go", "pushdown.go.j2", plan=plan, P=P)}
    files = {f"{P}.go": render_template("abnfc.backends.go", "validator.go.j2", plan=plan, P=P)}
    if plan.window is not None:
        for suffix in WINDOW_FILES:
            files[f"{P}{suffix}"] = render_template("abnfc.backends.go", f"go_window{suffix}.j2", plan=plan,
                                                    w=plan.window, P=P)
    return files
