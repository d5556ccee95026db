"""The shape of the package: no import cycle at all (grimp, counting imports inside functions
and under TYPE_CHECKING), no package folder with more than 12 modules, and the stages called
only from the pipeline, so that no command can redo one."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from abnfc.graph import strongly_connected

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "abnfc"
MAX_MODULES = 12
# Stage functions and the modules allowed to call them: the pipeline, and the stage's own module.
# crosscheck.bounded minimizes the automaton of a recursive grammar's bounded language, which is
# not a stage of the grammar's pipeline.
# automata/pushdown.py runs the automaton stages on each machine of a pushdown validator (the
# pipeline runs it once per grammar, as a stage of its own).
STAGE_CALLS = {r"\bresolve\(": {"pipeline.py", "frontend/resolve.py"},
               r"\bdeterminize\(": {"pipeline.py", "automata/dfa.py", "automata/pushdown.py"},
               r"\bminimize\(": {"pipeline.py", "automata/minimize.py", "crosscheck/bounded.py",
                                 "automata/pushdown.py", "learn/learner.py", "learn/rules.py",
                                 "hypothesis/sampling.py"},
               r"\bbuild_nfa\(|\bnfa\.build\(": {"pipeline.py", "automata/pushdown.py"},
               r"\bbuild_pushdown\(": {"pipeline.py"},
               r"\bmake_tables\(": {"pipeline.py", "backends/tables.py"},
               r"\bgrammar_facts\(": {"pipeline.py", "grammar_facts.py"}}


def import_cycles() -> list[list[str]]:
    """The strongly connected sets of more than one module (imports inside functions and for type
    checking included, as grimp finds them)."""
    found = grimp.build_graph("abnfc", include_external_packages=False)
    edges = {module: sorted(found.find_modules_directly_imported_by(module)) for module in found.modules}
    return sorted(sorted(members) for members in strongly_connected(edges) if len(members) > 1)


def test_the_cycle_finder_finds_cycles(monkeypatch):
    class Graph:
        modules = frozenset({"a", "b", "c", "d"})

        @staticmethod
        def find_modules_directly_imported_by(module):
            return {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}[module]

    monkeypatch.setattr(grimp, "build_graph", lambda *args, **kwargs: Graph)
    assert import_cycles() == [["a", "b", "c"]]


def test_no_import_cycle():
    assert import_cycles() == []


def test_no_package_folder_holds_more_than_twelve_modules():
    crowded = {str(folder.relative_to(SRC)): count for folder in [SRC, *SRC.rglob("*")] if folder.is_dir()
               and (count := len(list(folder.glob("*.py")))) > MAX_MODULES}
    assert crowded == {}


def test_stages_are_called_only_from_the_pipeline():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        text = path.read_text(encoding="utf-8")
        for pattern, allowed in STAGE_CALLS.items():
            for match in re.finditer(pattern, text):
                line = text.count("\n", 0, match.start()) + 1
                if name not in allowed and not text.splitlines()[line - 1].lstrip().startswith(("def ", "#")):
                    found.append(f"{name}:{line}: {text.splitlines()[line - 1].strip()}")
    assert found == []


# The modules that dispatch over the kinds of IR or AST node, each with a ``match`` that ends in
# ``assert_never``: a new kind of node must be handled in every one of them.
DISPATCHING = {"automata/nfa.py", "explain/search.py", "explain/trees.py", "explain/tree_nfa.py",
               "frontend/ast.py", "frontend/ir.py", "frontend/lower.py", "frontend/productive.py",
               "frontend/recursion.py", "interpret/program.py", "pictures/railroad.py"}


@pytest.mark.slow
def test_a_new_kind_of_node_fails_type_checking_wherever_it_is_not_handled(tmp_path):
    """A node kind added to the IR and the AST unions makes mypy fail in every dispatching module."""
    shutil.copytree(ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for module, union in (("ir.py", "Node = Terminal |"), ("ast.py", "Node = Alternation |")):
        path = tmp_path / "src" / "abnfc" / "frontend" / module
        text = path.read_text()
        assert union in text
        path.write_text(text.replace(union, "@dataclass(frozen=True)\nclass Extra:\n    span: Span | None = None"
                                            f"\n\n\n{union.replace('= ', '= Extra | ')}"))
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                             "--cache-dir", str(tmp_path / "cache"), "src/abnfc"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600)
    failing = {line.split(":")[0].removeprefix("src/abnfc/") for line in result.stdout.splitlines()
               if ": error:" in line}
    assert failing >= DISPATCHING, result.stdout[-3000:]
    assert result.returncode == 1


@pytest.mark.parametrize("module", ["abnfc", "abnfc.automata.dfa", "abnfc.automata.minimize", "abnfc.interpret",
                                    "abnfc.backends.python.runner", "abnfc.cli"])
def test_importing_the_core_loads_neither_the_parser_nor_the_templates(module):
    """lark is imported when a grammar is parsed, jinja2 when a template is rendered."""
    probe = f"import sys, {module}; print(sorted(m for m in ('lark', 'jinja2') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_every_command_is_in_the_contract_that_no_command_imports_another():
    """A new command module is held to it too: the independence contract lists every command."""
    import tomllib

    from abnfc.commands import COMMANDS, module_name

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [independent] = [c for c in contracts if c["name"] == "no command imports another"]
    assert independent["type"] == "independence"
    assert sorted(independent["modules"]) == sorted(module_name(name) for name in COMMANDS)


def test_every_backends_validator_offers_the_whole_validator_interface():
    """Validator declares first_errors and validate_arrow; every runner's validator has them: the
    classes by naming Validator as their base, the Python module as functions."""
    import importlib

    from conftest import files_for

    from abnfc import backends
    from abnfc.backends import Validator
    from abnfc.pipeline import load_validators

    declared = {"is_valid", "first_error", "first_errors", "expected_bytes", "validate_arrow", "Validator"}
    assert declared <= set(dir(Validator))
    classes = {"c": ["CValidator", "CPushdownValidator"], "js": ["JsValidator"], "go": ["GoValidator"],
               "rust": ["RustValidator"]}
    for language, names in classes.items():
        runner = importlib.import_module(f"abnfc.backends.{language}.runner")
        for name in names:
            assert Validator in getattr(runner, name).__mro__, name
    assert backends.get("html").runners.__module__ == "abnfc.backends.html.runner"  # JsValidator's
    [module] = load_validators([files_for('r = "a" *"b"\n', "python")], "python")
    assert module.first_errors([b"ab", b"ba", b""]) == [None, 0, 0]
    pa = pytest.importorskip("pyarrow")
    assert module.validate_arrow(pa.array(["abb", None, "x"])).to_pylist() == [True, None, False]
    chunked = pa.chunked_array([["a"], ["b", "ab"]], type=pa.large_string())
    assert module.validate_arrow(chunked).to_pylist() == [True, False, True]
