"""Emitters: render a :class:`abnfc.plan.Plan` through jinja2 templates into source files.

Templates hold no decisions: everything they print comes from the plan.  ``render`` returns
file name -> text; writing files is the build driver's job.
"""
from __future__ import annotations

from functools import lru_cache

import jinja2


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("abnfc", "emit/templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(name: str, **context) -> str:
    return environment().get_template(name).render(**context)
