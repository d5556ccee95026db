"""Load rendered Python modules: write them to a folder and import them from there.

The modules are imported under private names and kept out of ``sys.modules``, so loading a
validator never shadows a module of the user's, and two validators of the same name coexist.
Each module gets :class:`~abnfc.backends.Validator`'s ``first_errors`` and ``validate_arrow`` as
functions, so that it offers the whole interface.
"""
from __future__ import annotations

import functools
import importlib.util
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

from .. import Validator

_counter = itertools.count()


def runners(file_sets: Sequence[Mapping[str, str]], folder: Path) -> list[ModuleType]:
    return [_load(files, folder) for files in file_sets]


def _load(files: Mapping[str, str], folder: Path) -> ModuleType:
    [(name, text)] = files.items()
    path = folder / name
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"_abnfc_validator_{next(_counter)}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("first_errors", "validate_arrow"):
        if not hasattr(module, name):
            setattr(module, name, functools.partial(getattr(Validator, name), module))
    return module
