"""The engine-independent case suite (tests/cases/*.toml), run against every engine.

Each case names a grammar, inputs that must match and inputs that must not, or the error the
grammar must give.  Every input gets a verdict from the interpreter, the DFA before
minimization, the minimal DFA, the generated Python module and the compiled generated C; all
must agree with the case and with each other on the first-error offset.
"""
from __future__ import annotations

import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from abnfc import interpret
from abnfc.build import compile_grammar, generate
from abnfc.errors import AbnfError
from abnfc.resolve import resolve

from conftest import ROOT, loaded_from_text

CASES_DIR = ROOT / "tests" / "cases"


@dataclass(frozen=True)
class Case:
    id: str
    grammar: str
    start: str | None
    regular: bool | None
    accept: tuple[bytes, ...]
    reject: tuple[bytes, ...]
    error: str | None
    error_at: str | None


def _load_cases() -> list[Case]:
    cases = []
    for path in sorted(CASES_DIR.glob("*.toml")):
        for raw in tomllib.loads(path.read_text(encoding="utf-8"))["case"]:
            text = raw["grammar"] if "grammar" in raw else (ROOT / raw["grammar_file"]).read_text()
            cases.append(Case(
                f"{path.stem}::{raw['name']}", text, raw.get("start"), raw.get("regular"),
                tuple(_inputs(raw, "match")), tuple(_inputs(raw, "reject")),
                raw.get("error"), raw.get("error_at")))
    return cases


def _inputs(raw: dict, key: str):
    yield from (text.encode("utf-8") for text in raw.get(key, []))
    yield from (bytes.fromhex(text) for text in raw.get(f"{key}_hex", []))


CASES = _load_cases()
ERROR_CASES = [c for c in CASES if c.error]
MATCH_CASES = [c for c in CASES if not c.error]


def test_the_suite_is_substantial():
    assert len(MATCH_CASES) >= 100 and len(ERROR_CASES) >= 30
    assert sum(len(c.accept) + len(c.reject) for c in MATCH_CASES) >= 1000


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.id)
def test_error_case(case: Case):
    with pytest.raises(AbnfError) as caught:
        loaded = loaded_from_text(case.grammar, "case.abnf")
        compile_grammar(loaded, case.start)
    located = [d for d in caught.value.diagnostics if case.error in d.message]
    assert located, f"expected {case.error!r}, got:\n{caught.value}"
    if case.error_at:
        span = located[0].span
        assert f"{span.line}:{span.column}" == case.error_at, str(caught.value)


class _CompiledEngines:
    """Every engine for one case's grammar; the generated C comes from a shared binary."""

    def __init__(self, case: Case, c_runner):
        loaded = loaded_from_text(case.grammar, "case.abnf")
        self.resolved = resolve(loaded.grammar, case.start)
        self.compiled = None
        if self.resolved.is_regular:
            self.compiled = compile_grammar(loaded, case.start)
            files = generate(loaded, self.compiled, ["python"], "case", "test")
            self.module: dict = {}
            exec(compile(files["case.py"], "<case.py>", "exec"), self.module)
        self.c_runner = c_runner

    def offsets(self, case: Case, data: bytes) -> dict[str, int | None]:
        found = {"interpreter": interpret.recognize(self.resolved, data).offset}
        if self.compiled:
            found["dfa"] = self.compiled.dfa.first_error(data)
            found["minimal dfa"] = self.compiled.minimal.first_error(data)
            found["python"] = self.module["first_error"](data)
            found["c"] = self.c_runner(case, data)
        return found


@pytest.mark.parametrize("case", MATCH_CASES, ids=lambda c: c.id)
def test_case_on_every_engine(case: Case, c_case_runner):
    engines = _CompiledEngines(case, c_case_runner)
    if case.regular is not None:
        assert engines.resolved.is_regular == case.regular
    if not engines.resolved.is_regular:
        with pytest.raises(AbnfError, match="cannot be compiled to a DFA"):
            compile_grammar(loaded_from_text(case.grammar), case.start)
    for data, should_match in [(d, True) for d in case.accept] + [(d, False) for d in case.reject]:
        offsets = engines.offsets(case, data)
        verdicts = {name: offset is None for name, offset in offsets.items()}
        assert set(verdicts.values()) == {should_match}, (data, offsets)
        assert len(set(offsets.values())) == 1, (data, offsets)


# --- the C engine: all regular grammars of the suite in one binary --------------------------

@pytest.fixture(scope="module")
def c_case_runner(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cases_c")
    regular = {}
    for case in MATCH_CASES:
        loaded = loaded_from_text(case.grammar, "case.abnf")
        try:
            compiled = compile_grammar(loaded, case.start)
        except AbnfError:
            continue
        prefix = f"case{len(regular)}"
        for name, text in generate(loaded, compiled, ["c"], prefix, "test").items():
            (folder / name).write_text(text)
        regular[case.id] = prefix
    binary = _build_harness(folder, list(regular.values()))
    answers: dict[tuple[str, bytes], int | None] = {}
    requests = [(case, data) for case in MATCH_CASES if case.id in regular
                for data in case.accept + case.reject]
    lines = "".join(f"{regular[case.id][4:]} {data.hex() or '-'}\n" for case, data in requests)
    output = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=True).stdout
    for (case, data), line in zip(requests, output.splitlines(), strict=True):
        answers[case.id, data] = None if line == "match" else int(line)

    def run(case: Case, data: bytes) -> int | None:
        return answers[case.id, data]

    return run


def _build_harness(folder: Path, prefixes: list[str]) -> Path:
    includes = "".join(f'#include "{p}.h"\n' for p in prefixes)
    table = ",\n".join(f"    {p}_first_error" for p in prefixes)
    (folder / "harness.c").write_text(f"""\
#include <stdint.h>
#include <stdio.h>
#include <string.h>
{includes}
typedef size_t (*first_error_fn)(const uint8_t *, size_t);
static const first_error_fn engines[] = {{
{table}
}};
static uint8_t buffer[1 << 16];
static char line[1 << 18];
int main(void) {{
    while (fgets(line, sizeof line, stdin)) {{
        unsigned index;
        char hex[(1 << 17) + 1];
        size_t len = 0;
        if (sscanf(line, "%u %131072s", &index, hex) != 2) return 2;
        if (strcmp(hex, "-") != 0)
            for (; hex[2 * len] && hex[2 * len + 1]; len++) {{
                unsigned byte;
                sscanf(hex + 2 * len, "%2x", &byte);
                buffer[len] = (uint8_t)byte;
            }}
        size_t offset = engines[index](len ? buffer : NULL, len);
        if (offset == SIZE_MAX) puts("match"); else printf("%zu\\n", offset);
    }}
    return 0;
}}
""")
    binary = folder / "harness"
    sources = [str(folder / "harness.c")] + [str(folder / f"{p}.c") for p in prefixes]
    subprocess.run(["gcc", "-std=c99", "-O1", "-w", "-I", str(folder), "-o", str(binary), *sources], check=True)
    return binary
