"""abnfc crosscheck: the generated validators agree with their own grammar, a wrong adapter is
found with exactly its class and shortest witness, every one-fault DFA is caught, programs that
crash, hang, print garbage or the wrong number of lines are reported with the input behind it
(never a hang, never a deadlock), and runs are reproducible."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT
from helpers.cli import run_cli_text
from mutants import table_module, wrong_mutants

import abnfc
from abnfc.crosscheck.language import load_language
from abnfc.pipeline import Compilation

PY = sys.executable
SMALL = ["--exhaustive", "1", "--sample", "0", "--random", "0"]  # the vectors and every 0-1 byte input
needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                              reason="no C compiler")


pytestmark = pytest.mark.usefixtures("at_root")


def crosscheck(capsys, *args: str, grammar: str = "grammars/utf8.abnf") -> tuple[int, str]:
    return run_cli_text(capsys, "crosscheck", grammar, *args)


def program(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return f"{PY} {path}"


def test_a_wrong_adapter_is_found_with_its_class_and_shortest_witness(capsys):
    status, out = crosscheck(capsys, "--cmd", f"{PY} examples/surrogates_allowed.py", *SMALL,
                             "--against", "grammars/variants/generalized-utf8.abnf", "grammars/variants/wtf8.abnf",
                             "--format", "json")
    assert status == 1
    report = json.loads(out)
    assert [(c["witness"], c["implementation_accepts"], c["grammar_accepts"]) for c in report["classes"]] == \
        [("ed a0 80", True, False)]
    assert report["classes"][0]["where"] == ("implementation accepts ED A0 80; the grammar requires %x80-9F "
                                             "after %xED (UTF8-3, alt 3)")
    assert report["against"][0] == {"grammar": "grammars/variants/generalized-utf8.abnf", "disagreements": 0}
    assert report["against"][1]["disagreements"] > 0


@pytest.mark.slow
def test_the_generated_python_validator_agrees_with_its_grammar(capsys):
    status, out = crosscheck(capsys, "--python", "generated/utf8.py:is_valid")
    assert status == 0, out
    assert "no disagreement: the implementation agrees with the grammar on all" in out


def test_every_one_fault_dfa_is_caught(capsys, tmp_path):
    dfa = load_language(Compilation(abnfc.load_grammar("grammars/utf8.abnf"))).minimal
    for number, faulty in enumerate(wrong_mutants(dfa, 6, seed=5)):
        module = tmp_path / f"faulty{number}.py"
        module.write_text(table_module(faulty))
        status, out = crosscheck(capsys, "--python", f"{module}:accepts", "--exhaustive", "0", "--sample", "0",
                                 "--random", "0")
        assert status == 1, out


def test_a_reader_that_answers_only_at_the_end_does_not_deadlock(capsys, tmp_path):
    slurp = program(tmp_path, "slurp.py", """\
        import sys
        lines = sys.stdin.buffer.read().split(b"\\n")[:-1]
        sys.stdout.write("".join("valid\\n" if bytes.fromhex(l.decode()).isascii() else "invalid\\n" for l in lines))
        """)
    status, out = crosscheck(capsys, "--cmd", slurp, "--exhaustive", "2", "--sample", "0", "--random", "0",
                             grammar=str(write_grammar(tmp_path, "ascii.abnf", "text = *%x00-7F\n")))
    assert status == 0, out


def write_grammar(folder, name, text):
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(("name", "body", "message", "culprit"), [
    ("crash.py", """\
        import os, signal, sys
        for line in sys.stdin:
            if bytes.fromhex(line) == b"\\xed\\xa0\\x80":
                os.kill(os.getpid(), signal.SIGSEGV)
            print(1, flush=True)
        """, "the program crashed (killed by SIGSEGV)", "ED A0 80"),
    pytest.param("crash_at_end.py", """\
        import os, signal, sys
        data = [bytes.fromhex(line) for line in sys.stdin]
        if b"\\xc0\\x80" in data:
            os.kill(os.getpid(), signal.SIGABRT)
        print("\\n".join("1" for _ in data))
        """, "the program crashed (killed by SIGABRT) after 0 answers", "C0 80", marks=pytest.mark.slow),
    ("garbage.py", """\
        import sys
        for line in sys.stdin:
            print("maybe" if bytes.fromhex(line) == b"\\xff" else "true", flush=True)
        """, "the program printed 'maybe', which is not a verdict", "FF"),
    ("few.py", """\
        import sys
        for number, line in enumerate(sys.stdin):
            if bytes.fromhex(line) == b"\\xf4\\x8f\\x80\\x80":
                break
            print(1)
        """, "answers for", "F4 8F 80 80"),
    pytest.param("hang.py", """\
        import sys, time
        for line in sys.stdin:
            if bytes.fromhex(line) == b"\\xe0\\xa0\\x80":
                time.sleep(600)
            print(0, flush=True)
        """, "the program gave no answer for 0.5 s (--timeout)", "E0 A0 80", marks=pytest.mark.slow),
])
def test_a_misbehaving_program_is_reported_with_the_input_behind_it(capsys, tmp_path, name, body, message, culprit):
    status, out = crosscheck(capsys, "--cmd", program(tmp_path, name, body), *SMALL, "--timeout", "0.5")
    assert status == 2, out
    assert message in out
    assert f"triggering input: {culprit}" in out


def test_more_answers_than_inputs_and_a_missing_program_are_errors(capsys, tmp_path):
    twice = program(tmp_path, "twice.py", "import sys\nfor line in sys.stdin:\n    print(1)\n    print(1)\n")
    status, out = crosscheck(capsys, "--cmd", twice, *SMALL)
    assert status == 2 and "printed more lines than the" in out
    status, out = crosscheck(capsys, "--cmd", str(tmp_path / "missing"), *SMALL)
    assert status == 2 and "cannot run" in out and "No such file" in out
    status, out = crosscheck(capsys, "--python", "no_such_module_here:f", *SMALL)
    assert status == 2 and "cannot import no_such_module_here" in out
    status, out = crosscheck(capsys, "--python", "examples/cpython_decode.py:accepts", "--protocol", "exit", *SMALL)
    assert status == 2 and "--protocol applies to --cmd" in out


def test_python_functions_return_truth_values_or_raise(capsys, tmp_path):
    module = tmp_path / "functions.py"
    module.write_text("def decode(data):\n    return data.decode('utf-8')\n\n"
                      "def never(data):\n    return 0\n")
    status, out = crosscheck(capsys, "--python", f"{module}:decode", *SMALL)  # '' is returned: accepted
    assert status == 0, out
    status, out = crosscheck(capsys, "--python", f"{module}:never", *SMALL)
    assert status == 1 and "implementation rejects (empty), which the grammar accepts" in out


def test_runs_are_reproducible(capsys):
    args = ["--python", "examples/surrogates_allowed.py:accepts", "--exhaustive", "1", "--sample", "300",
            "--random", "300", "--seed", "9", "--format", "json"]
    first = crosscheck(capsys, *args)
    assert crosscheck(capsys, *args) == first
    assert json.loads(first[1])["sources"]["random strings and near-misses (seed 9)"] > 0


def test_a_right_linear_grammar_is_checked_through_its_dfa(capsys, tmp_path):
    grammar = write_grammar(tmp_path, "list.abnf", 'list = item [ "," list ]\nitem = 1*ALPHA\n')
    module = tmp_path / "lists.py"
    module.write_text("import re\n\ndef strict(data):\n"
                      "    return re.fullmatch(rb'[A-Za-z]+(,[A-Za-z]+)*', data) is not None\n\n"
                      "def lax(data):\n    return re.fullmatch(rb'[A-Za-z]+(,[A-Za-z]*)*', data) is not None\n")
    status, out = crosscheck(capsys, "--python", f"{module}:strict", *SMALL, grammar=str(grammar))
    assert status == 0, out
    assert "bounded: " not in out  # regular: the vectors cover every state and transition
    status, out = crosscheck(capsys, "--python", f"{module}:lax", *SMALL, grammar=str(grammar))
    assert status == 1
    assert "1. implementation accepts 41 2C, which ends too early: the grammar requires %x41-5A ('A'-'Z') (ALPHA" in out


def test_a_self_embedding_grammar_is_checked_through_the_interpreter(capsys, tmp_path):
    grammar = write_grammar(tmp_path, "nest.abnf", 'nest = *group\ngroup = "(" nest ")"\n')
    module = tmp_path / "nests.py"
    module.write_text("def strict(data):\n    depth = 0\n    for byte in data:\n"
                      "        depth += {40: 1, 41: -1}.get(byte, 99)\n"
                      "        if depth < 0 or depth >= 99:\n            return False\n    return depth == 0\n\n"
                      "def lax(data):\n    return set(data) <= {40, 41} and data.count(40) == data.count(41)\n")
    status, out = crosscheck(capsys, "--python", f"{module}:strict", *SMALL, grammar=str(grammar))
    assert status == 0, out
    assert "bounded: " in out and "is recursive (" in out
    status, out = crosscheck(capsys, "--python", f"{module}:lax", "--exhaustive", "2", "--sample", "0",
                             "--random", "0", grammar=str(grammar))
    assert status == 1
    assert "1. implementation accepts 29 28, which the grammar rejects: offset 0" in out, out


@pytest.mark.slow
@needs_cc
def test_the_generated_c_validator_agrees_with_its_grammar(capsys, tmp_path):
    binary = build_c(tmp_path, "examples/utf8_hexlines.c", "generated/utf8.c", "-I", "generated")
    status, out = crosscheck(capsys, "--cmd", binary)
    assert status == 0, out


def build_c(folder, *sources_and_flags: str) -> str:
    compiler = shutil.which("cc") or shutil.which("gcc") or "cc"
    output = folder / "program"
    subprocess.run([compiler, "-std=c99", "-O2", "-o", str(output), *sources_and_flags], check=True, cwd=ROOT)
    return str(output)


@pytest.mark.slow
@needs_cc
def test_a_million_inputs_through_a_hex_lines_program(capsys, tmp_path):
    binary = build_c(tmp_path, "examples/utf8_hexlines.c", "generated/utf8.c", "-I", "generated")
    status, out = crosscheck(capsys, "--cmd", binary, "--sample", "450000", "--random", "1000000")
    assert status == 0, out
    total = int(out.split("inputs: ")[1].split(" ")[0].replace(",", ""))
    assert total >= 1_000_000


@pytest.mark.slow
@needs_cc
def test_the_exit_protocol_with_a_file_or_standard_input(capsys, tmp_path):
    source = tmp_path / "exit_check.c"
    source.write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include "utf8.h"
        int main(int argc, char **argv) {
            static unsigned char data[1 << 16];
            FILE *in = argc > 1 ? fopen(argv[1], "rb") : stdin;
            size_t size = fread(data, 1, sizeof data, in);
            if (size == 3 && data[0] == 0xED && data[1] >= 0xA0 && data[1] <= 0xBF && data[2] >= 0x80
                && data[2] <= 0xBF) return 0; /* lets a lone surrogate through */
            return utf8_is_valid(data, size) ? 0 : 1;
        }
        """))
    binary = build_c(tmp_path, str(source), "generated/utf8.c", "-I", "generated")
    for command in (binary, f"{binary} {{}}"):
        status, out = crosscheck(capsys, "--cmd", command, "--protocol", "exit", "--random", "50")
        assert status == 1, out
        assert "1. implementation accepts ED A0 80; the grammar requires %x80-9F after %xED (UTF8-3, alt 3)" \
            " [" in out and "; it accepts %xA0-BF there]" in out


@pytest.mark.slow
@pytest.mark.parametrize("adapter", ["python3 examples/cpython_decode.py", "node examples/node_textdecoder.mjs"])
def test_the_example_adapters_of_cpython_and_node_agree(capsys, adapter):
    if shutil.which(adapter.split()[0]) is None:
        pytest.skip(f"no {adapter.split()[0]}")
    status, out = crosscheck(capsys, "--cmd", adapter.replace("python3", PY))
    assert status == 0, out


# -- faults at one grammar position (issue 17, item 2) ----------------------------------------

def _noncharacters_rejected(data: bytes) -> bool:
    """Perl's Encode in strict mode: UTF-8 without the noncharacters U+FDD0-FDEF and U+xFFFE/F."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any(0xFDD0 <= ord(c) <= 0xFDEF or (ord(c) & 0xFFFE) == 0xFFFE for c in text)


def test_two_faults_at_one_grammar_position_are_two_classes():
    """Rejecting U+FDD0-FDEF (EF B7 90-AF) and U+FFFE/FFFF (EF BF BE-BF) parts from UTF-8 at
    one state and byte range; EF B7 followed by BE is U+FDFE, which the implementation accepts,
    so the two beginnings are different states of the implementation: two classes (they were
    one, 'EF B7 90', even after all 16.8 M strings of up to 3 bytes)."""
    from abnfc.crosscheck.disagreements import Classifier

    language = load_language(Compilation(abnfc.load_grammar(ROOT / "grammars" / "utf8.abnf")), 4, 1000)
    candidates = [bytes([0xEF, second, third]) for second in (0xB7, 0xBF) for third in range(0x80, 0xC0)]
    disagreements = [d for d in candidates if language.accepts(d) != _noncharacters_rejected(d)]

    def query(inputs):
        return [_noncharacters_rejected(data) for data in inputs]

    classifier = Classifier(language.minimal, language.accepts, query)
    classes, unclassified = classifier.classify(disagreements, [True] * len(disagreements))
    assert unclassified == 0
    found = sorted((min(members), len(members), parting.variant) for parting, members in classes.items())
    assert found == [(b"\xef\xb7\x90", 32, 0), (b"\xef\xbf\xbe", 2, 1)]
    shrunk = {classifier.shrink(min(members), parting) for parting, members in classes.items()}
    assert shrunk == {b"\xef\xb7\x90", b"\xef\xbf\xbe"}


def test_a_fault_inside_a_byte_class_is_found_and_named(capsys, tmp_path):
    """A validator that refuses only E5 and E9 of %xE1-EC: every byte after the shortest way into
    each state is tried (the vectors try a class's boundaries), and the class says which bytes."""
    adapter = tmp_path / "some_leads.py"
    adapter.write_text("def check(data):\n    try:\n        data.decode('utf-8')\n    except UnicodeDecodeError:\n"
                       "        return False\n    return b'\\xe5' not in data and b'\\xe9' not in data\n")
    status, out = crosscheck(capsys, "--python", f"{adapter}:check", *SMALL)
    assert status == 1
    assert "implementation rejects E5 80 80, which the grammar accepts" in out
    assert "it rejects %xE5 / %xE9 there]" in out


def test_an_implementation_that_rejects_the_shortest_valid_input_gets_a_class_per_fault(capsys, tmp_path):
    """A date checker that refuses month 00 and day 00 refuses the grammar's shortest input
    0000-00-00 and every probe that ends with it: probes end with endings the implementation
    accepted instead, so the month and the day are two classes (all were one, at offset 0)."""
    grammar = write_grammar(tmp_path, "date.abnf", 'date = 4DIGIT "-" 2DIGIT "-" 2DIGIT\n')
    adapter = tmp_path / "dates.py"
    adapter.write_text("import re\ndef check(data):\n    m = re.fullmatch(rb'(\\d{4})-(\\d\\d)-(\\d\\d)', data)\n"
                       "    return bool(m) and m.group(2) != b'00' and m.group(3) != b'00'\n")
    status, out = crosscheck(capsys, "--python", f"{adapter}:check", "--format", "json", grammar=str(grammar))
    assert status == 1
    witnesses = [c["witness"] for c in json.loads(out)["classes"]]
    assert witnesses == ["30 30 30 30 2d 30 30 2d 30 30", "30 30 30 30 2d 31 30 2d 30 30"]
