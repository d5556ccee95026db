"""Go plan -> ``<prefix>.go`` through the templates in ``templates/``: ``validator.go.j2`` for a
DFA, ``pushdown.go.j2`` for a pushdown validator; for a DFA with a window test, also
``<prefix>_amd64.s``, ``<prefix>_arm64.s``, a ``.go`` file beside each and ``<prefix>_other.go``
(``go_window*.j2``)."""
from __future__ import annotations

from ..templating import render_template
from .plan import GoPlan
from .pushdown import GoPushdownPlan

# A k-definite language's window test: amd64 and arm64 assembly, their declarations, and for
# other architectures (or the purego build tag) what IsValid needs in their place; each file's
# suffix, its template and the architecture.
WINDOW_FILES = {"_amd64.s": ("go_window_amd64.s.j2", "amd64"), "_amd64.go": ("go_window_arch.go.j2", "amd64"),
                "_arm64.s": ("go_window_arm64.s.j2", "arm64"), "_arm64.go": ("go_window_arch.go.j2", "arm64"),
                "_other.go": ("go_window_other.go.j2", "")}


def render(plan: GoPlan | GoPushdownPlan) -> dict[str, str]:
    P = plan.package
    if isinstance(plan, GoPushdownPlan):
        return {f"{P}.go": render_template("abnfc.backends.go", "pushdown.go.j2", plan=plan, P=P)}
    files = {f"{P}.go": render_template("abnfc.backends.go", "validator.go.j2", plan=plan, P=P)}
    if plan.window is not None:
        for suffix, (template, arch) in WINDOW_FILES.items():
            files[f"{P}{suffix}"] = render_template("abnfc.backends.go", template, plan=plan, w=plan.window,
                                                    n=plan.window.neon, arch=arch, P=P)
    return files
