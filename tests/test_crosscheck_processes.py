"""crosscheck's process handling cannot be fooled or stalled by the implementation it runs (the
findings F5-F9 of issue 23, each a regression test): output without a newline, a program that
hangs under the exit protocol, a ``--python`` adapter that exits, closes its output or fails to
import, and a program that leaves a child holding its output open."""
from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.cputime import run_measured

ROOT = Path(__file__).resolve().parents[1]
UTF8 = str(ROOT / "grammars" / "utf8.abnf")
FEW = ["--exhaustive", "1", "--sample", "0", "--random", "20"]


def crosscheck(tmp_path: Path, *arguments: str, timeout: float = 120,
               env: dict[str, str] | None = None) -> tuple[int, str, float]:
    """Run ``abnfc crosscheck`` in a child process: its status, its output, and the CPU seconds it
    and the programs it ran used."""
    result, cpu = run_measured([sys.executable, "-m", "abnfc", "crosscheck", UTF8, *arguments], cwd=tmp_path,
                               capture_output=True, text=True, timeout=timeout, env=env)
    return result.returncode, result.stdout + result.stderr, cpu


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return name


def test_output_without_a_newline_is_not_a_verdict_at_once(tmp_path):
    """F5: an endless stream of ``x`` used to be buffered (and re-joined) without limit."""
    endless = script(tmp_path, "endless.py", """\
        import sys
        while True:
            sys.stdout.write("x" * 65536)
        """)
    status, out, cpu = crosscheck(tmp_path, "--cmd", f"{sys.executable} {endless}", *FEW)
    assert status == 2 and "which is not a verdict" in out, out
    assert cpu < 10  # CPU seconds: the run uses 0.4


def test_the_exit_protocol_stops_at_the_first_input_that_times_out(tmp_path):
    """F6: a hanging program used to be waited for on every input (38 s at --timeout 0.1)."""
    status, out, _ = crosscheck(tmp_path, "--cmd", "sh -c 'echo >> starts; exec sleep 100'", "--protocol", "exit",
                                "--timeout", "0.2")
    assert status == 2 and "did not exit within 0.2 s (--timeout)" in out, out
    # the runs already going when the first timed out (one a processor), not one an input
    assert len((tmp_path / "starts").read_text().splitlines()) <= (os.cpu_count() or 1)


@pytest.mark.parametrize(("body", "said"), [
    ("import sys\ndef f(data):\n    sys.exit(0)\n", "raised SystemExit(0)"),
    ("import sys\ndef f(data):\n    sys.exit(3)\n", "raised SystemExit(3)"),
    ('def f(data):\n    raise SystemExit("bye")\n', "raised SystemExit('bye')"),
    ("raise SystemExit(0)\ndef f(data):\n    return True\n", "importing it raised SystemExit(0)"),
    ("import os, signal\ndef f(data):\n    os.kill(os.getpid(), signal.SIGKILL)\n", "crashed (killed by SIGKILL)"),
])
def test_whatever_a_python_adapter_does_is_exit_2_naming_it(tmp_path, body, said):
    """F7: ``sys.exit(0)`` in an adapter used to end crosscheck with status 0 and no output."""
    adapter = script(tmp_path, "adapter.py", body)
    status, out, _ = crosscheck(tmp_path, "--python", f"{adapter}:f", *FEW)
    assert status == 2, out
    assert "adapter.py:f" in out and said in out, out
    assert "Traceback" not in out


@pytest.mark.parametrize(("body", "said"), [
    ("import sys\ndef f(data):\n    sys.exit(3)\n", "hat sie SystemExit(3) ausgelöst"),
    ("raise SystemExit(0)\ndef f(data):\n    return True\n", "ihr Import hat SystemExit(0) ausgelöst"),
])
def test_the_adapters_process_speaks_the_users_language(tmp_path, body, said):
    """What the worker process says of the function comes in the language of the abnfc that
    started it (it is told the locale), not in English."""
    adapter = script(tmp_path, "adapter.py", body)
    env = {key: value for key, value in os.environ.items() if key not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    status, out, _ = crosscheck(tmp_path, "--python", f"{adapter}:f", *FEW, env={**env, "LANGUAGE": "de"})
    assert status == 2 and said in out, out


def test_an_adapter_that_closes_standard_output_is_still_heard(tmp_path):
    """F8: closing descriptor 1 used to give "internal error: OSError"; the answers now travel
    on a descriptor of their own, so the run is judged on its merits."""
    adapter = script(tmp_path, "closing.py", """\
        import os
        print("chatter on standard output, which must not be read as a verdict")
        def f(data):
            try:
                os.close(1)
            except OSError:
                pass
            data.decode("utf-8")
        """)
    status, out, _ = crosscheck(tmp_path, "--python", f"{adapter}:f", *FEW)
    assert status == 0 and "no disagreement" in out, out


def test_a_child_holding_the_output_open_does_not_stall_the_run(tmp_path):
    """F9: a program that answered everything but left a child holding its standard output was
    reported as hung, and the child was left running; its process group is now killed."""
    marker = tmp_path / "child-pid"
    forker = script(tmp_path, "forker.py", f"""\
        import os, sys, time
        if os.fork() == 0:
            open({str(marker)!r}, "w").write(str(os.getpid()))
            time.sleep(600)
            sys.exit(0)
        for line in sys.stdin:
            try:
                bytes.fromhex(line).decode("utf-8")
                print(1)
            except UnicodeDecodeError:
                print(0)
        """)
    status, out, cpu = crosscheck(tmp_path, "--cmd", f"{sys.executable} {forker}", *FEW, "--timeout", "5")
    assert status == 0 and "no disagreement" in out, out
    assert cpu < 10  # CPU seconds: the run uses 0.4
    child = int(marker.read_text())
    for _ in range(50):  # the kill is sent before crosscheck exits; reaping may lag a little
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the program's child {child} is still running")
