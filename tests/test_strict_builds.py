"""Generated code in its users' strictest builds: a program that uses part of the API, built the
way a careful project builds, gets no warning from the generated file.

- C: ``-std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
  -Wunused-function -Werror`` with gcc and clang, by default and with the settings changed
  (``_NO_SIMD``, ``_SEGMENTS``); mains that call only ``is_valid`` or only ``first_error``.
- Rust: ``mod NAME;`` from binaries that call only ``is_valid``, only ``first_error`` or only
  the ``Validator``, under ``rustc -D warnings`` and ``cargo clippy -- -D warnings``.
- Go: a main that calls only ``IsValid``, under ``go vet`` and, where it is installed,
  ``staticcheck`` (Debian's go-staticcheck); ``gofmt -l``; and, without staticcheck too, no
  unexported declaration left unused (its U1000, checked here by name; staticcheck itself is
  silent on files marked generated, so it is run on copies without the mark).
- JavaScript: ``node --check``, and ESLint's recommended rules where ``eslint`` and
  ``@eslint/js`` are installed (``npm install eslint @eslint/js``; skipped otherwise).
- Python: ``ruff check`` with ruff's own defaults and this project's rules (but the line length:
  the state tables in the docstring are long), and an import under ``python -W error``.

The grammars: UTF-8, JSON (a pushdown validator), URI, date-time, a window test whose byte
classes follow the high nibble (no AVX2 nibble rows), a finite language, the language of all
byte strings, a cycle that the table strategy runs with no block to skip, and random grammars
(``grammar_gen``, fixed seeds), compiled by one compiler process per language and setting.
"""
from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, compile_text, files_for, python_module
from grammar_gen import nested_grammar, regular_grammar
from helpers.c_build import CLANG, GCC
from helpers.cli import run_cli_text
from helpers.go_build import GOFMT, go, need_go, write_module
from helpers.paths import GRAMMARS
from helpers.rust_tools import rust_tool

from abnfc.backends.go.runner import environment
from abnfc.backends.rust.runner import find_tool
from abnfc.errors import AbnfError

STRICT_C = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wsign-conversion", "-Wshadow",
            "-Wunused-function", "-Wunused", "-Werror", "-O2"]
NAMED = {name: (GRAMMARS / f"{name}.abnf").read_text(encoding="utf-8")
         for name in ("utf8", "json", "uri", "datetime")}
NAMED |= {
    # a window test whose classes the high nibble alone decides: no AVX2 nibble rows
    "nibble": "r = *( %x00-7F / %x80-FF %x00-7F )\n",
    "finite": 'r = "ab" / "cd" 2DIGIT\n',  # the plain loop
    "anything": "r = *%x00-FF\n",  # every byte string: the Python module's built-in idiom
    "cycle": 'r = *"abcdefghijkl"\n',  # the table strategy with no block of bytes to skip
}
RANDOM_REGULAR = 30
RANDOM_NESTED = 8
RUST_SUBSETS = {
    "valid": "std::process::exit(i32::from(!{m}::is_valid(b\"ab\")));",
    "first": "std::process::exit(i32::from({m}::first_error(b\"ab\").is_some()));",
    "validator": "let mut v = {m}::Validator::new();\n    v.feed(b\"ab\");\n"
                 "    std::process::exit(i32::from(!v.is_complete()));",
}


def _random(count: int, make, salt: int) -> dict[str, str]:
    """``count`` random grammars that compile (first seeds in order), named r<salt>_<seed>."""
    found: dict[str, str] = {}
    for seed in range(1000):
        if len(found) == count:
            break
        text = make(random.Random(seed * 7919 + salt).randrange)
        try:
            compile_text(text)
        except AbnfError:
            try:  # a recursive grammar: the pushdown validator, where it has one
                files_for(text, "python", "probe")
            except AbnfError:
                continue
        found[f"r{salt}_{seed}"] = text
    return found


@pytest.fixture(scope="module")
def grammars() -> dict[str, str]:
    """Prefix -> grammar text: the named grammars and the random ones."""
    return NAMED | _random(RANDOM_REGULAR, regular_grammar, 1) | _random(RANDOM_NESTED, nested_grammar, 2)


def _write(folder: Path, grammars: dict[str, str], language: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for prefix, text in grammars.items():
        for name, body in files_for(text, language, prefix).items():
            (folder / name).write_text(body, encoding="utf-8")
            written.append(folder / name)
    return written


def _run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command[:8])} ...:\n{result.stdout[-4000:]}{result.stderr[-6000:]}"
    return result.stdout


# --- C -----------------------------------------------------------------------------------------

COMPILERS = [pytest.param(GCC, id="gcc"),
             pytest.param(CLANG, id="clang", marks=pytest.mark.skipif(CLANG is None, reason="clang not found"))]
C_MAINS = {"valid": "return {p}_is_valid(\"ab\", 2) ? 0 : 1;",
           "first": "return {p}_first_error(\"ab\", 2) == SIZE_MAX ? 0 : 1;"}


@pytest.fixture(scope="module")
def c_folder(grammars, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("c")
    _write(folder, grammars, "c")
    return folder


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("settings", ["default", "portable-segments"])
def test_c_compiles_under_the_strictest_common_flags(grammars, c_folder, compiler, settings, tmp_path):
    """Every source at once, in one compiler process: by default, and with the SIMD code left
    out and long inputs in segments (other code paths, other helpers left unused)."""
    defines = []
    if settings != "default":
        defines = [f"-D{p.upper()}_{d}" for p in grammars for d in ("NO_SIMD", "SEGMENTS=3")]
    sources = [str(c_folder / f"{p}.c") for p in grammars]
    _run([str(compiler), *STRICT_C, *defines, f"-I{c_folder}", "-c", *sources], cwd=tmp_path)
    assert len(list(tmp_path.glob("*.o"))) == len(grammars)


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("subset", sorted(C_MAINS))
def test_c_program_calling_part_of_the_api(c_folder, compiler, subset, tmp_path):
    """A main that calls only is_valid (or only first_error), built with the generated source."""
    for prefix in NAMED:
        main = tmp_path / f"{prefix}_main.c"
        main.write_text(f'#include <stdint.h>\n#include "{prefix}.h"\n\nint main(void)\n{{\n'
                        f"    {C_MAINS[subset].format(p=prefix)}\n}}\n", encoding="utf-8")
        program = tmp_path / prefix
        _run([str(compiler), *STRICT_C, f"-I{c_folder}", "-o", str(program), str(main), str(c_folder / f"{prefix}.c")])
        want = 0 if python_module(NAMED[prefix]).is_valid(b"ab") else 1
        assert subprocess.run([str(program)]).returncode == want, prefix


# --- Rust --------------------------------------------------------------------------------------

def _rust_tool(name: str) -> str:
    return rust_tool(name)


def _rust_binary(folder: Path, module: str, source: str, body: str) -> Path:
    """src/bin/<folder.name>/main.rs using ``mod <module>;`` and calling ``body``."""
    folder.mkdir(parents=True)
    (folder / f"{module}.rs").write_text(source, encoding="utf-8")
    main = folder / "main.rs"
    main.write_text(f"mod {module};\n\nfn main() {{\n    {body}\n}}\n", encoding="utf-8")
    return main


@pytest.fixture(scope="module")
def rust_project(grammars, tmp_path_factory) -> Path:
    """A cargo package with a binary per named grammar and API subset, and one binary that calls
    only is_valid of every random grammar."""
    root = tmp_path_factory.mktemp("rust")
    (root / "Cargo.toml").write_text('[package]\nname = "strict"\nversion = "0.1.0"\nedition = "2021"\n'
                                     "\n[dependencies]\n", encoding="utf-8")
    bins = root / "src" / "bin"
    for prefix in NAMED:
        [source] = files_for(NAMED[prefix], "rust", prefix).values()
        for subset, body in RUST_SUBSETS.items():
            _rust_binary(bins / f"{prefix}_{subset}", prefix, source, body.format(m=prefix))
    randoms = [p for p in grammars if p not in NAMED]
    folder = bins / "random"
    folder.mkdir()
    for prefix in randoms:
        [source] = files_for(grammars[prefix], "rust", prefix).values()
        (folder / f"{prefix}.rs").write_text(source, encoding="utf-8")
    calls = "".join(f"    ok &= {p}::is_valid(b\"ab\");\n" for p in randoms)
    (folder / "main.rs").write_text("".join(f"mod {p};\n" for p in randoms)
                                    + f"\nfn main() {{\n    let mut ok = true;\n{calls}"
                                    "    std::process::exit(i32::from(!ok));\n}\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("subset", sorted(RUST_SUBSETS))
def test_rust_module_with_part_of_its_api_under_deny_warnings(rust_project, subset, tmp_path):
    rustc = _rust_tool("rustc")
    for prefix in NAMED:
        main = rust_project / "src" / "bin" / f"{prefix}_{subset}" / "main.rs"
        _run([rustc, "--edition", "2021", "-D", "warnings", "--emit=metadata", "--out-dir", str(tmp_path),
              "--crate-name", f"{prefix}_{subset}", str(main)])


def test_rust_random_modules_under_deny_warnings(rust_project, tmp_path):
    rustc = _rust_tool("rustc")
    _run([rustc, "--edition", "2021", "-D", "warnings", "--emit=metadata", "--out-dir", str(tmp_path),
          str(rust_project / "src" / "bin" / "random" / "main.rs")])


@pytest.mark.slow
def test_rust_binaries_under_clippy_deny_warnings(rust_project):
    cargo = _rust_tool("cargo")
    if find_tool("cargo-clippy") is None:
        pytest.skip("clippy not found (rustup component add clippy)")
    # cargo runs rustc and clippy-driver from its own folder where PATH does not have them
    env = {**os.environ, "PATH": f"{Path(cargo).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    _run([cargo, "clippy", "--offline", "--quiet", "--bins", "--", "-D", "warnings"], rust_project, env)


def test_the_allowance_is_the_modules_own():
    """The generated module allows dead code as an inner attribute, so only it is affected; the
    user's crate keeps the lint.  UTF-8's window test (unsafe, for AVX2) is allowed unsafe code in
    its own module alone."""
    for prefix, unsafe in (("utf8", "#![deny(unsafe_code)]"), ("json", "#![forbid(unsafe_code)]")):
        [source] = files_for(NAMED[prefix], "rust", prefix).values()
        assert "#![allow(dead_code)]" in source and "#[allow(" not in source
        attributes = re.findall(r"(?m)^#!\[.*\]$", source)
        assert attributes == [unsafe, "#![allow(dead_code)]"]


# --- Go ----------------------------------------------------------------------------------------

_GO_DECLARED = re.compile(r"(?m)^(?:func (?:\([^)]*\) )?|var |const |type |\t)([a-z]\w*)\b")


def unused_go(source: str) -> list[str]:
    """Unexported top-level names (functions, methods, variables, constants, types, and members of
    var/const blocks) that appear nowhere else in the file: what staticcheck's U1000 reports for
    a package of one file."""
    code = re.sub(r"//[^\n]*", "", source)
    blocks = "\n".join(re.findall(r"(?ms)^(?:var|const) \(\n(.*?)^\)", code))
    tops = [line for line in code.splitlines() if not line.startswith("\t")]
    names = set(_GO_DECLARED.findall("\n".join(tops))) | set(_GO_DECLARED.findall(blocks))
    return sorted(n for n in names - {"init", "_"} if len(re.findall(rf"\b{n}\b", code)) < 2)


def test_go_unused_check_finds_an_unused_helper():
    source = "package p\n\nconst (\n\tkept = 1\n\tlost = 2\n)\n\nvar table = [2]int{kept, kept}\n\n" \
             "func used() int { return table[0] }\n\nfunc unused() int { return 1 }\n\n" \
             "func Exported() int { return used() }\n"
    assert unused_go(source) == ["lost", "unused"]


@pytest.fixture(scope="module")
def go_module(grammars, tmp_path_factory) -> tuple[Path, dict[str, str], dict[str, dict[str, str]]]:
    """A module holding every package and a main that calls only their IsValid."""
    need_go()
    files = {prefix: files_for(text, "go", prefix) for prefix, text in grammars.items()}
    packages = {prefix: package[f"{prefix}.go"] for prefix, package in files.items()}
    imports = "".join(f'\t"abnfcrun/{p}"\n' for p in packages)
    calls = "".join(f"\tok = {p}.IsValid(data) && ok\n" for p in packages)
    main = (f"package main\n\nimport (\n\t\"os\"\n\n{imports})\n\nfunc main() {{\n\tdata := []byte(\"ab\")\n"
            f"\tok := true\n{calls}\tif !ok {{\n\t\tos.Exit(1)\n\t}}\n}}\n")
    return write_module(tmp_path_factory.mktemp("go"), dict(files), main), packages, files


def test_go_package_called_only_through_isvalid_is_vet_and_gofmt_clean(go_module):
    module, packages, _files = go_module
    go(module, "vet", "./...")
    if GOFMT is not None:
        assert _run([GOFMT, "-l", *packages], cwd=module) == ""
    assert {prefix: unused_go(text) for prefix, text in packages.items() if unused_go(text)} == {}


def test_go_packages_pass_staticcheck(go_module, tmp_path):
    """staticcheck (Debian's go-staticcheck, or staticcheck on PATH) with its default checks, on
    copies without the "Code generated ... DO NOT EDIT." line: staticcheck reports next to
    nothing in generated files (an unused function included), other linters do."""
    staticcheck = shutil.which("staticcheck") or shutil.which("go-staticcheck")
    if staticcheck is None:
        pytest.skip("staticcheck not found (apt-get install go-staticcheck)")
    _, _packages, files = go_module
    plain: dict[str, str | dict[str, str]] = {
        name: {file: re.sub(r"(?m)^// Code generated .*\n", "", text) for file, text in package.items()}
        for name, package in files.items()}
    module = write_module(tmp_path, plain, None)
    result = subprocess.run([staticcheck, "./..."], cwd=module, env=environment(), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_go_prefix_init_is_refused_and_is_not_the_default(capsys, tmp_path):
    """A package named init cannot be imported under its name ("cannot import package as init"):
    refused as main is, and init.abnf's default prefix is g_init."""
    grammar = tmp_path / "init.abnf"
    grammar.write_text('r = "a"\n', encoding="utf-8")
    status, text = run_cli_text(capsys, "compile", str(grammar), "--lang", "go", "--prefix", "init",
                                "--out", str(tmp_path))
    assert status == 2 and "a Go package named init cannot be imported under its name" in text
    assert not (tmp_path / "init.go").exists()
    status, text = run_cli_text(capsys, "compile", str(grammar), "--lang", "go", "--out", str(tmp_path))
    assert status == 0 and (tmp_path / "g_init.go").read_text(encoding="utf-8").count("\npackage g_init\n") == 1


# --- JavaScript --------------------------------------------------------------------------------

NODE = shutil.which("node")


def _eslint() -> tuple[str, Path]:
    """ESLint and the folder of @eslint/js (its recommended rules), or a skip saying how to get them."""
    local = ROOT / ".ci" / "tools" / "node_modules" / ".bin" / "eslint"  # where .ci/system-packages puts it
    found = str(local) if local.exists() else shutil.which("eslint")
    if found is not None:
        modules = Path(found).resolve().parents[2]  # node_modules/eslint/bin/eslint.js
        if (modules / "@eslint" / "js" / "package.json").is_file():
            return found, modules / "@eslint" / "js"
    pytest.skip("eslint with @eslint/js not found (npm install eslint @eslint/js, and put node_modules/.bin "
                "on PATH)")


@pytest.fixture(scope="module")
def js_files(grammars, tmp_path_factory) -> list[Path]:
    return _write(tmp_path_factory.mktemp("js"), grammars, "js")


@pytest.mark.skipif(NODE is None, reason="node not found")
def test_javascript_passes_node_check(js_files):
    for path in js_files:
        _run([str(NODE), "--check", str(path)])


def test_javascript_passes_eslint_recommended(js_files):
    eslint, rules = _eslint()
    folder = js_files[0].parent  # ESLint ignores files outside its configuration's folder
    config = folder / "eslint.config.mjs"
    entry = (rules / "src" / "index.js").as_uri()
    config.write_text(f'import js from "{entry}";\n\nexport default [js.configs.recommended, '
                      '{languageOptions: {ecmaVersion: "latest", sourceType: "module"}}];\n', encoding="utf-8")
    _run([eslint, "--no-config-lookup", "--config", str(config), "--max-warnings", "0",
          *map(str, js_files)], cwd=folder)


# --- Python ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def python_files(grammars, tmp_path_factory) -> list[Path]:
    return _write(tmp_path_factory.mktemp("python"), grammars, "python")


@pytest.mark.parametrize("rules", ["ruff-defaults", "project"])
def test_python_passes_ruff(python_files, rules):
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff not found")
    project = ["--select", "E,F,W,I,UP,B,RUF", "--ignore", "RUF001,RUF002,RUF003,E501"]
    select = [] if rules == "ruff-defaults" else project
    _run([ruff, "check", "--isolated", "--no-cache", *select, *map(str, python_files)])


def test_python_imports_and_runs_with_warnings_as_errors(python_files):
    folder = python_files[0].parent
    names = [path.stem for path in python_files]
    script = (f"import sys\nsys.path.insert(0, {str(folder)!r})\n"
              f"for name in {names!r}:\n    module = __import__(name)\n"
              "    module.is_valid(b'ab'); module.first_error(b'\\x80'); module.Validator().feed(b'a')\n")
    _run([sys.executable, "-W", "error", "-X", "dev", "-c", script])
