"""What the Python backend's output needs of a prefix: ``<prefix>.py`` must be importable (not a
keyword) and must not shadow a module of Python's standard library wherever it is imported from
(``json.abnf`` would otherwise write ``json.py``).  The standard modules are those of the Python
running abnfc (``sys.stdlib_module_names``)."""
from __future__ import annotations

import keyword
import sys

from .. import Naming, Reserved

NAMING = Naming(
    lambda prefix: (f"{prefix}.py",),
    reserved=(Reserved(frozenset(keyword.kwlist), "it is a Python keyword, so the module could not be imported"),
              Reserved(frozenset(sys.stdlib_module_names), "{prefix}.py would shadow Python's standard "
                       "module {prefix} wherever it is imported from")),
)
