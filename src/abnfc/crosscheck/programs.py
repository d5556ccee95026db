"""Running another implementation over inputs: hex-lines and exit protocols, Python callables.

``hex-lines``: one process per batch of inputs.  A thread writes the inputs, one per line in hex,
and closes the program's standard input, while the calling thread reads its answers as they come
(``select`` with a time limit), so a program that answers line by line and one that answers only
once its input has ended are both served, and neither side can block the other on a full pipe.
Standard error goes to a temporary file, which cannot fill up.  The time limit counts from the
last sign of progress (an answer read, or input taken by the program).

``exit``: one process per input, given on standard input or in a temporary file whose path
replaces ``{}``; exit status 0 means accepted.  Processes run in parallel, one per processor.

``--python module:function``: called in process on each input; a ``bool`` (or ``int``) result is
the verdict, an exception means rejected, and any other result (the decoded text, ``None``)
means accepted, because the function returned.

A program that crashes, hangs, prints something other than a verdict or the wrong number of
lines raises :class:`Fault` with the input that triggered it: the first input left unanswered,
checked alone, or else found by bisecting the batch.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import AbnfError

VERDICTS = {"1": True, "true": True, "valid": True, "0": False, "false": False, "invalid": False}
WRITE_CHUNK = 1 << 16
MAX_PROBES = 40  # processes run to find the input behind a fault
Progress = Callable[[int, int], None]


class Runner(Protocol):
    """A way of running an implementation: its verdict on each input, in order."""

    def verdicts(self, inputs: Sequence[bytes]) -> list[bool]: ...


class Fault(Exception):
    """The implementation misbehaved on ``data`` (None when no single input could be named)."""

    def __init__(self, message: str, data: bytes | None):
        super().__init__(message)
        self.message = message
        self.data = data


@dataclass(frozen=True)
class _Batch:
    answers: list[bool]
    problem: str | None = None  # what went wrong, if anything
    index: int | None = None  # the input the problem points at, when it points at one


def hex_line(data: bytes) -> str:
    return data.hex()


_EXACT = {word.encode(): verdict for word, verdict in VERDICTS.items()}


def parse_verdict(line: bytes) -> bool | None:
    found = _EXACT.get(line)  # the common case, without decoding
    if found is not None:
        return found
    return VERDICTS.get(line.strip().decode("ascii", "replace").lower())


class HexLines:
    """A long-running program speaking the hex-lines protocol."""

    def __init__(self, argv: list[str], timeout: float, progress: Progress | None = None):
        self.argv = argv
        self.timeout = timeout
        self.progress = progress

    def verdicts(self, inputs: Sequence[bytes]) -> list[bool]:
        batch = self._run(inputs, self.progress)
        if batch.problem is None:
            return batch.answers
        raise self._locate(inputs, batch)

    def _run(self, inputs: Sequence[bytes], progress: Progress | None = None) -> _Batch:
        payload = "".join(f"{hex_line(data)}\n" for data in inputs).encode("ascii")
        with tempfile.TemporaryFile() as errors:
            try:
                process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=errors)
            except OSError as error:
                raise AbnfError.at(None, f"cannot run {self.argv[0]}: {error.strerror or error}") from None
            batch = _Conversation(process, payload, len(inputs), self.timeout, progress).run()
            if batch.problem is not None:
                batch = _Batch(batch.answers, batch.problem + _stderr_tail(errors), batch.index)
        return batch

    def _locate(self, inputs: Sequence[bytes], batch: _Batch) -> Fault:
        """The fault, with the input behind it."""
        problem, index = batch.problem or "", batch.index
        if index is None or index >= len(inputs):
            return Fault(problem, None)
        if "not a verdict" in problem:  # the answer to input ``index`` is the garbage itself
            return Fault(problem, inputs[index])
        if self._run([inputs[index]]).problem is not None:
            return Fault(problem, inputs[index])
        low, high, probes = index, len(inputs), 0
        while high - low > 1 and probes < MAX_PROBES:
            middle = (low + high) // 2
            probes += 1
            if self._run(inputs[low:middle]).problem is not None:
                high = middle
                continue
            probes += 1
            if self._run(inputs[middle:high]).problem is None:
                break  # the fault needs inputs from both halves
            low = middle
        if high - low == 1:
            return Fault(problem, inputs[low])
        return Fault(problem + " (it does not recur on any single input; shown: the first input "
                     "left unanswered)", inputs[index])


class _Conversation:
    """One run of a hex-lines program: write everything, read the answers, judge the end."""

    def __init__(self, process: subprocess.Popen, payload: bytes, expected: int, timeout: float,
                 progress: Progress | None):
        self.process = process
        self.payload = payload
        self.expected = expected
        self.timeout = timeout
        self.progress = progress
        self.last_sign = time.monotonic()  # of life: input taken or answer given

    def run(self) -> _Batch:
        writer = threading.Thread(target=self._write, daemon=True)
        writer.start()
        try:
            return self._read()
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            writer.join()

    def _write(self) -> None:
        stream = self.process.stdin
        if stream is None:
            return
        try:
            for start in range(0, len(self.payload), WRITE_CHUNK):
                stream.write(self.payload[start: start + WRITE_CHUNK])
                self.last_sign = time.monotonic()
        except (OSError, ValueError):
            pass  # the program stopped reading: its answers say what happened
        finally:
            try:
                stream.close()
            except OSError:
                pass

    def _read(self) -> _Batch:
        answers: list[bool] = []
        pending = b""
        stdout = self.process.stdout
        if stdout is None:
            return _Batch(answers, "the program's output could not be read", 0)
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while True:
                wait = self.last_sign + self.timeout - time.monotonic()
                if wait <= 0 or not selector.select(wait):
                    if self.last_sign + self.timeout > time.monotonic():
                        continue  # the writer made progress meanwhile
                    self.process.kill()
                    return _Batch(answers, f"the program gave no answer for {self.timeout:g} s "
                                  f"(--timeout) after {len(answers):,} answers", len(answers))
                chunk = os.read(stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                self.last_sign = time.monotonic()
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()
                problem = self._take(lines, answers)
                if problem is not None:
                    self.process.kill()
                    return problem
        if pending.strip():
            problem = self._take([pending], answers)
            if problem is not None:
                return problem
        return self._judge_end(answers)

    def _take(self, lines: list[bytes], answers: list[bool]) -> _Batch | None:
        for line in lines:
            verdict = parse_verdict(line)
            if len(answers) >= self.expected:
                return _Batch(answers, f"the program printed more lines than the {self.expected:,} "
                              f"inputs it was given (extra line {_shown(line)})", None)
            if verdict is None:
                return _Batch(answers, f"the program printed {_shown(line)}, which is not a verdict "
                              "(1/0, true/false or valid/invalid)", len(answers))
            answers.append(verdict)
        if self.progress is not None:
            self.progress(len(answers), self.expected)
        return None

    def _judge_end(self, answers: list[bool]) -> _Batch:
        try:
            status = self.process.wait(self.timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
            if len(answers) == self.expected:
                return _Batch(answers)  # it answered everything; only its exit was slow
        if status < 0:
            return _Batch(answers, f"the program crashed ({_signal_name(-status)}) after "
                          f"{len(answers):,} answers", len(answers))
        if len(answers) < self.expected:
            return _Batch(answers, f"the program printed {len(answers):,} lines for {self.expected:,} "
                          f"inputs and exited with status {status}", len(answers))
        return _Batch(answers)


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").rstrip("\r")
    return repr(text[:40] + ("..." if len(text) > 40 else ""))


def _signal_name(number: int) -> str:
    try:
        return f"killed by {signal.Signals(number).name}"
    except ValueError:
        return f"killed by signal {number}"


def _stderr_tail(errors) -> str:
    errors.seek(0, os.SEEK_END)
    size = errors.tell()
    errors.seek(max(0, size - 300))
    tail = errors.read().decode("utf-8", "replace").strip()
    return f"; its standard error ends: {tail.splitlines()[-1][:200]}" if tail else ""


class ExitStatus:
    """One process per input; exit status 0 means accepted."""

    def __init__(self, argv: list[str], timeout: float, progress: Progress | None = None,
                 jobs: int | None = None):
        self.argv = argv
        self.timeout = timeout
        self.progress = progress
        self.jobs = jobs or os.cpu_count() or 1
        self.done = self.total = 0
        self.lock = threading.Lock()

    def verdicts(self, inputs: Sequence[bytes]) -> list[bool]:
        self.done, self.total = 0, len(inputs)
        with ThreadPoolExecutor(self.jobs) as pool:
            outcomes = list(pool.map(self._one, inputs))
        for data, outcome in zip(inputs, outcomes, strict=True):
            if isinstance(outcome, str):
                raise Fault(outcome, data)
        return [bool(outcome) for outcome in outcomes]

    def _one(self, data: bytes) -> bool | str:
        with tempfile.TemporaryDirectory(prefix="abnfc-") as folder:
            argv, stdin = self.argv, data
            if any("{}" in word for word in argv):
                path = Path(folder, "input")
                path.write_bytes(data)
                argv, stdin = [word.replace("{}", str(path)) for word in argv], b""
            try:
                result = subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                return f"the program did not exit within {self.timeout:g} s (--timeout)"
            except OSError as error:
                raise AbnfError.at(None, f"cannot run {argv[0]}: {error.strerror or error}") from None
        self._tick()
        if result.returncode < 0:
            return f"the program crashed ({_signal_name(-result.returncode)})"
        return result.returncode == 0

    def _tick(self) -> None:
        if self.progress is not None:
            with self.lock:
                self.done += 1
                self.progress(self.done, self.total)


class PythonFunction:
    """A Python callable run in this process."""

    def __init__(self, spec: str, timeout: float, progress: Progress | None = None):
        self.function = load_function(spec)
        self.spec = spec
        self.timeout = timeout
        self.progress = progress

    def verdicts(self, inputs: Sequence[bytes]) -> list[bool]:
        alarm = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        previous = signal.signal(signal.SIGALRM, _on_alarm) if alarm else None
        answers = []
        try:
            for count, data in enumerate(inputs, 1):
                answers.append(self._call(data, alarm))
                if self.progress is not None and count % 4096 == 0:
                    self.progress(count, len(inputs))
        finally:
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
        return answers

    def _call(self, data: bytes, alarm: bool) -> bool:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            result = self.function(data)
        except _Timeout:
            raise Fault(f"{self.spec} did not return within {self.timeout:g} s (--timeout)", data) from None
        except Exception:
            return False
        finally:
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
        return bool(result) if isinstance(result, (bool, int)) else True


class _Timeout(BaseException):
    """Raised by the alarm inside the function under test; BaseException so that its own
    ``except Exception`` cannot swallow it."""


def _on_alarm(_signum, _frame):
    raise _Timeout


def load_function(spec: str) -> Callable[[bytes], object]:
    """``module:function`` or ``path/to/file.py:function``; AbnfError when it cannot be loaded."""
    module_name, _, function_name = spec.rpartition(":")
    if not module_name or not function_name:
        raise AbnfError.at(None, f"--python wants MODULE:FUNCTION or FILE.py:FUNCTION, not {spec!r}")
    try:
        module = _import(module_name)
    except Exception as error:  # whatever the module raises while importing is the user's to fix
        raise AbnfError.at(None, f"cannot import {module_name}: {type(error).__name__}: {error}") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise AbnfError.at(None, f"{module_name} has no function {function_name!r}")
    return function


def _import(name: str):
    if name.endswith(".py") or os.sep in name or "/" in name:
        path = Path(name)
        if not path.is_file():
            raise FileNotFoundError(f"no file {name}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{name} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(path.stem, module)
        spec.loader.exec_module(module)
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as ``python -m`` does: modules in the current folder
    return importlib.import_module(name)
