"""The cache of compiled kernels (abnfc.native): a damaged library is rebuilt, never loaded; a
library under another key's name is not used; a folder or file others may write is not trusted;
a folder that cannot be made or written gets a private temporary build that leaves nothing
behind; concurrent builds of one key end right; the key covers the bytes compiled and the Python
that lowers a grammar to C; one definition of a line in every engine."""
from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.cli import run_cli

from abnfc.commands.support.options import DEFAULT_MAX_DFA_STATES, DEFAULT_MAX_NFA_STATES, DEFAULT_MAX_WORK
from abnfc.native import cache
from abnfc.native.cache import find_compiler, kernel_key, obtain, seal, unseal
from abnfc.records.verify import Choice, records_key

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

DIGITS, LETTERS = b"r = 1*DIGIT\n", b"r = 1*ALPHA\n"
RECORDS = b"123\nabc\n42\n"
DIGITS_VERDICT = "3 records, 1 invalid"  # abc
LIMITS = (DEFAULT_MAX_NFA_STATES, DEFAULT_MAX_DFA_STATES, DEFAULT_MAX_WORK)  # the command line's
SRC = Path(__file__).resolve().parent.parent / "src"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh cache folder of the test, and a private temporary folder that must end empty."""
    where = tmp_path / "cache"
    monkeypatch.setenv("ABNFC_CACHE", str(where))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    yield where
    assert list(temporary.iterdir()) == []  # no temporary folder or file left behind


def files(tmp_path: Path, grammar: bytes = DIGITS) -> tuple[str, str]:
    (tmp_path / "g.abnf").write_bytes(grammar)
    (tmp_path / "data.txt").write_bytes(RECORDS)
    return str(tmp_path / "g.abnf"), str(tmp_path / "data.txt")


def check(capsys: pytest.CaptureFixture[str], grammar: str, data: str) -> tuple[int, str, str]:
    return run_cli(capsys, "check", grammar, "--records", "lines", data)


def libraries(where: Path) -> list[Path]:
    return sorted(where.glob("*.so"))


def run_process(grammar: str, data: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``abnfc check --records lines`` in a process of its own (a crash must not take pytest down)."""
    return subprocess.run([sys.executable, "-m", "abnfc", "check", grammar, "--records", "lines", data],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(SRC), **environment})


def test_a_truncated_kernel_is_rebuilt_not_loaded(tmp_path: Path) -> None:
    """A truncated library (a full disk, a killed copy) used to die of a bus error on every later
    run; its seal no longer matches, so it is rebuilt."""
    where = tmp_path / "cache"
    grammar, data = files(tmp_path)
    first = run_process(grammar, data, {"ABNFC_CACHE": str(where)})
    assert first.returncode == 1 and DIGITS_VERDICT in first.stdout
    [library] = libraries(where)
    whole = library.read_bytes()
    assert unseal(whole) is not None
    library.write_bytes(whole[: len(whole) // 2])
    again = run_process(grammar, data, {"ABNFC_CACHE": str(where)})
    assert again.returncode == 1 and DIGITS_VERDICT in again.stdout, again.stderr
    assert unseal(library.read_bytes()) is not None  # rebuilt whole


def test_a_kernel_under_another_keys_name_is_not_used(capsys, tmp_path: Path, folder: Path) -> None:
    """The letters kernel copied to the digits grammar's name (what a grammar that changed between
    two reads left behind) is refused for its key, and the digits kernel built."""
    grammar, data = files(tmp_path, LETTERS)
    assert check(capsys, grammar, data)[1].count("invalid at offset 0") == 2  # 123 and 42
    [letters] = libraries(folder)
    digits = Path(tmp_path / "g.abnf")
    digits.write_bytes(DIGITS)
    key = records_key(Choice(grammar, (), None, None, "auto", LIMITS), find_compiler() or "cc", (DIGITS,))
    shutil.copy(letters, folder / f"{key}.so")
    status, out, _err = check(capsys, grammar, data)
    assert status == 1 and DIGITS_VERDICT in out
    assert cache.verified(folder / f"{key}.so", key) is not None


def test_the_key_is_made_of_the_bytes_compiled(capsys, tmp_path: Path, folder: Path) -> None:
    """A grammar served by a FIFO (an editor saving, a build regenerating it) is read once: the
    kernel is stored under the key of exactly the bytes compiled, and a later run of the digits
    grammar from a file gets the digits verdicts (before, the letters kernel sat under the digits
    grammar's key for good)."""
    fifo = tmp_path / "g.abnf"
    os.mkfifo(fifo)
    served: list[bytes] = []

    def serve() -> None:
        for text in (DIGITS, LETTERS):
            try:
                with open(fifo, "wb") as stream:
                    stream.write(text)
            except BrokenPipeError:  # released below: nobody reads the second text
                return
            served.append(text)
            time.sleep(1)  # so that the reader of the first text has closed it before the second is served

    writer = threading.Thread(target=serve, daemon=True)
    writer.start()
    (tmp_path / "data.txt").write_bytes(RECORDS)
    status, out, _err = check(capsys, str(fifo), str(tmp_path / "data.txt"))
    assert status == 1 and DIGITS_VERDICT in out, _err  # the digits grammar, read once
    if len(served) < 2:  # let the writer go: nobody reads the second text
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    writer.join(10)
    key = records_key(Choice(str(fifo), (), None, None, "auto", LIMITS), find_compiler() or "cc", (DIGITS,))
    assert [path.name for path in libraries(folder)] == [f"{key}.so"]
    plain = tmp_path / "plain.abnf"
    plain.write_bytes(DIGITS)
    status, out, _err = check(capsys, str(plain), str(tmp_path / "data.txt"))
    assert status == 1 and DIGITS_VERDICT in out


def test_records_key_is_the_command_lines(capsys, tmp_path: Path, folder: Path) -> None:
    """The key the tests compute is the one the command line uses (its default limits)."""
    grammar, data = files(tmp_path)
    check(capsys, grammar, data)
    key = records_key(Choice(grammar, (), None, None, "auto", LIMITS), find_compiler() or "cc", (DIGITS,))
    assert [path.name for path in libraries(folder)] == [f"{key}.so"]
    assert kernel_key("cc", "a", b"b") != kernel_key("cc", "a", b"c") != kernel_key("cc", "ab", b"c")


@pytest.mark.parametrize("how", ["group writable", "world writable", "not owned"])
def test_an_untrusted_folder_is_not_used(capsys, tmp_path: Path, folder: Path, how: str) -> None:
    """A cache folder others may write (or that is not the user's) could hold a planted library:
    it is not read nor written; the kernel is built privately with one note."""
    if how == "not owned" and os.geteuid() != 0:
        pytest.skip("only root can give a folder away")
    folder.mkdir(mode=0o700)
    if how == "not owned":
        os.chown(folder, 4242, 4242)
    else:
        folder.chmod(0o770 if how == "group writable" else 0o777)
    grammar, data = files(tmp_path)
    status, out, err = check(capsys, grammar, data)
    assert status == 1 and DIGITS_VERDICT in out
    assert err.count("is not used") == 1 and "private temporary folder" in err
    assert list(folder.iterdir()) == []


def test_an_untrusted_file_is_not_loaded(capsys, tmp_path: Path, folder: Path) -> None:
    """A library others may write is rebuilt and replaced by a private one."""
    grammar, data = files(tmp_path)
    check(capsys, grammar, data)
    [library] = libraries(folder)
    assert folder.stat().st_mode & 0o777 == 0o700 and library.stat().st_mode & 0o777 == 0o700
    library.chmod(0o766)
    before = library.stat().st_ino
    status, out, _err = check(capsys, grammar, data)
    assert status == 1 and DIGITS_VERDICT in out
    assert library.stat().st_ino != before and library.stat().st_mode & 0o777 == 0o700


def test_a_folder_that_cannot_be_made_leaves_nothing_behind(capsys, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Each run used to leave a new temporary folder behind; the fixture checks none is left."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ABNFC_CACHE", str(blocker / "cache"))
    grammar, data = files(tmp_path)
    for _run in range(2):
        status, out, err = check(capsys, grammar, data)
        assert status == 1 and DIGITS_VERDICT in out
        assert err.count("cannot be made") == 1


def test_a_folder_that_cannot_be_written(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         folder: Path) -> None:
    """Read-only (/proc refuses new files even to root, whom permission bits do not stop)."""
    proc = Path("/proc")
    info = proc.stat() if proc.is_dir() else None
    if info is None or cache.untrusted(info) is not None:
        pytest.skip("no /proc owned by this user")
    monkeypatch.setenv("ABNFC_CACHE", str(proc))
    grammar, data = files(tmp_path)
    status, out, err = check(capsys, grammar, data)
    assert status == 1 and DIGITS_VERDICT in out
    assert err.count("cannot be written") == 1


def test_a_full_folder_falls_back_to_a_private_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     folder: Path) -> None:
    """``obtain`` when the cache folder is full: one note, the library loaded from a private
    folder that is removed afterwards."""
    real = cache.write_atomically

    def full(path: Path, content: bytes, mode: int = 0o600) -> None:
        if path.parent == folder:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, content, mode)

    monkeypatch.setattr(cache, "write_atomically", full)
    notes: list[str] = []
    made: list[int] = []

    def make() -> bytes:
        made.append(1)
        return b"library of KEY"

    found = obtain("KEY.so", "KEY", make, lambda path: unseal(path.read_bytes()), notes.append)
    assert found == b"library of KEY" and made == [1]
    assert len(notes) == 1 and "No space left on device" in notes[0]
    assert list(folder.iterdir()) == []


def test_obtain_uses_a_verified_library_and_remakes_a_damaged_one(folder: Path) -> None:
    made: list[int] = []

    def make() -> bytes:
        made.append(1)
        return b"library of KEY"

    def use(path: Path) -> bytes | None:
        return unseal(path.read_bytes())

    assert obtain("KEY.so", "KEY", make, use) == b"library of KEY"
    assert obtain("KEY.so", "KEY", make, use) == b"library of KEY" and made == [1]
    (folder / "KEY.so").write_bytes(seal(b"library of KEY")[:-1])
    assert obtain("KEY.so", "KEY", make, use) == b"library of KEY" and made == [1, 1]
    (folder / "KEY.so").write_bytes(seal(b"library of another"))  # whole, but not KEY's
    assert obtain("KEY.so", "KEY", make, use) == b"library of KEY" and made == [1, 1, 1]
    assert unseal(b"short") is None and unseal(seal(b"")) == b""


def test_two_processes_building_one_kernel(tmp_path: Path) -> None:
    """Two runs build the same kernel at once (a compiler that waits makes sure they overlap):
    both give the right verdicts, and one whole library is left, with no temporary file."""
    cc = shutil.which(find_compiler() or "cc")
    slow = tmp_path / "slowcc"
    slow.write_text(f"#!/bin/sh\nsleep 1\nexec {cc} \"$@\"\n")
    slow.chmod(0o755)
    where = tmp_path / "cache"
    grammar, data = files(tmp_path)
    environment = {**os.environ, "PYTHONPATH": str(SRC), "ABNFC_CACHE": str(where), "CC": str(slow)}
    command = [sys.executable, "-m", "abnfc", "check", grammar, "--records", "lines", data]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
            for _ in range(2)]
    for run in runs:
        out, err = run.communicate(timeout=600)
        assert run.returncode == 1 and DIGITS_VERDICT in out, err
    [library] = libraries(where)
    assert unseal(library.read_bytes()) is not None
    assert [path.name for path in where.iterdir()] == [library.name]


def test_the_key_covers_the_python_that_lowers_to_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan and render modules of the C backend, the automata and the templates are hashed
    into every key: an edit in a working copy gets a new kernel before the version changes."""
    names = {path.relative_to(cache.PACKAGE).as_posix() for path in cache._lowering_files()}
    assert {"backends/c/plan.py", "backends/c/render.py", "automata/dfa.py", "automata/minimize.py",
            "backends/c/templates/c_source.c.j2", "native/static/batch.c", "frontend/parse.py"} <= names
    copy = tmp_path / "abnfc"
    for name in names:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(cache.PACKAGE / name, copy / name)
    monkeypatch.setattr(cache, "PACKAGE", copy)
    cache.lowering_digest.cache_clear()
    try:
        before = kernel_key("cc", "records")
        with open(copy / "automata" / "minimize.py", "a", encoding="utf-8") as stream:
            stream.write("# an edit\n")
        cache.lowering_digest.cache_clear()
        assert kernel_key("cc", "records") != before
    finally:
        cache.lowering_digest.cache_clear()


def test_a_last_line_ending_in_a_bare_cr_is_one_line_everywhere(capsys, tmp_path: Path, folder: Path) -> None:
    """A line is the bytes before "\\n" without one "\\r" before it, and the last line loses a
    final "\\r" too: the C kernel said 12\\r was invalid where the interpreter and Python did not."""
    grammar, _data = files(tmp_path)
    data = tmp_path / "cr.txt"
    data.write_bytes(b"123\r\n7\r")
    for engine in ("auto", "interpreter"):
        status, out, _err = run_cli(capsys, "check", grammar, "--records", "lines", "--engine", engine, str(data))
        assert status == 0 and "2 records, 0 invalid" in out, (engine, out)
    import abnfc
    from abnfc.native import batch

    generated = abnfc.generate_files(abnfc.load_grammar(text=DIGITS.decode()), "c", prefix="validator")
    kernel = batch.build(find_compiler() or "cc", None, generated)
    assert kernel.line_errors(b"1\r") == (1, []) and kernel.line_errors(b"1\r\r")[0] == 1
    assert kernel.line_errors(b"\r")[1][0][:2] == (0, 0)  # an empty line: 1*DIGIT wants a digit



def test_nowhere_to_build_is_a_clear_error(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No usable cache folder and no temporary folder: a message and exit 2, not a traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ABNFC_CACHE", str(blocker / "cache"))
    monkeypatch.setattr("tempfile.tempdir", str(blocker / "tmp"))
    grammar, data = files(tmp_path)
    status, _out, err = check(capsys, grammar, data)
    assert status == 2 and "the kernel cannot be built" in err and "internal error" not in err
