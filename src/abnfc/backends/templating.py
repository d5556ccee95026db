"""The jinja2 environment each backend renders its templates with.

Templates hold no decisions: everything they print comes from a backend's plan.  Each backend
keeps its templates in a ``templates`` folder of its own package.  jinja2 is imported when the
first template is rendered, so that loading a backend (or its runner) does not import it.
"""
from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


@cache
def environment(package: str) -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(package: str, name: str, **context: Any) -> str:
    return environment(package).get_template(name).render(**context)
