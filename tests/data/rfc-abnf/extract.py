"""Copy the grammars of the PyPI package abnf 2.9.1 (abnf/grammars/*.py, MIT licence) into
this folder as .abnf files, with the imports each needs, for tests/rfc_corpus.py.

Not run by the tests (they read only the copies); rerun it by hand with the package installed:
``pip install abnf==2.9.1 && python tests/data/rfc-abnf/extract.py``.

Each module's grammar text is written unchanged to ``<module>.abnf``.  Its import list -- the
(name, source module) pairs the package applies after loading the grammar -- becomes the
entry ``imports`` in ``imports.toml``: the source modules, then theirs, breadth first (the
rules an imported rule uses are imported too).  An import under another name (RFC 7230's
``uri-host`` is RFC 3986's ``host``) becomes a one-line rule in ``<module>-aliases.abnf``
(``uri-host = host``), imported before the rest.  rfc6265.py also defines rules for prose
values of RFC 6265 (class LocalRule); they are written to ``rfc6265-local.abnf``.
"""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

# The PyPI package abnf is where the corpus came from; it is installed only to extract it again,
# never for the tests, so its absence is expected here.
import abnf.grammars  # type: ignore[import-not-found]

HERE = Path(__file__).resolve().parent


def _text(cls) -> str:
    grammar = cls.grammar
    return (grammar if isinstance(grammar, str) else "\n".join(grammar)).strip("\n") + "\n"


def _file(cls) -> str:
    module = cls.__module__.rsplit(".", 1)[-1]
    return f"{module}-local" if cls.__name__ == "LocalRule" else module


def main() -> None:
    classes: dict[str, type] = {}
    direct: dict[str, list[str]] = {}
    aliases: dict[str, list[str]] = {}
    for info in sorted(pkgutil.iter_modules(abnf.grammars.__path__), key=lambda m: m.name):
        if info.name == "misc":
            continue
        module = importlib.import_module(f"abnf.grammars.{info.name}")
        for cls in [module.Rule] + ([module.LocalRule] if hasattr(module, "LocalRule") else []):
            name = _file(cls)
            classes[name] = cls
            direct[name], aliases[name] = [], []
            for imported, source in getattr(cls, "_imported_rules", ()):
                origin = _file(type(source))
                if source.name.lower() != imported.lower():
                    aliases[name].append(f"{imported} = {source.name}")
                if origin != name and origin not in direct[name]:
                    direct[name].append(origin)
    for name, cls in classes.items():
        (HERE / f"{name}.abnf").write_text(_text(cls), encoding="utf-8")
        if aliases[name]:
            (HERE / f"{name}-aliases.abnf").write_text(
                f"; Rules {name} imports under another name (abnf 2.9.1, grammars/{name}.py)\n"
                + "".join(f"{line}\n" for line in aliases[name]), encoding="utf-8")
    lines = ["# Imports of each grammar, in search order (written by extract.py).", ""]
    for name in classes:
        if name.endswith("-local"):
            continue
        order, queue = [], list(direct[name])
        while queue:
            current = queue.pop(0)
            if current != name and current not in order:
                order.append(current)
                queue += direct[current]
        files = [f"{n}-aliases.abnf" for n in [name, *order] if aliases[n]] + [f"{n}.abnf" for n in order]
        lines.append(f"{name} = [{', '.join(repr(f).replace(chr(39), chr(34)) for f in files)}]")
    (HERE / "imports.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
