"""Running another implementation over inputs: hex-lines and exit protocols, Python callables.

``hex-lines``: one process per batch of inputs.  A thread writes the inputs, one per line in hex,
and closes the program's standard input, while the calling thread reads its answers as they come
(``select`` with a time limit), so a program that answers line by line and one that answers only
once its input has ended are both served, and neither side can block the other on a full pipe.
Standard error goes to a temporary file, which cannot fill up.  The time limit counts from the
last sign of progress (an answer read, or input taken by the program).  An answer line is at
most :data:`MAX_LINE` bytes (the longest verdict with room for white space), so a program that
prints without end is stopped at once; once every input is answered, the answers are complete
whether or not the program's output ever ends (a child it left behind may hold it open).

``exit``: one process per input, given on standard input or in a temporary file whose path
replaces ``{}``; exit status 0 means accepted.  Processes run in parallel, one per processor;
the first input the program does not finish within the time limit stops the run.

``--python module:function``: called on each input in a child process
(:mod:`.python_worker`, which speaks hex-lines), so that nothing the function does -- exit,
close a descriptor, kill its process, hang -- can end abnfc or pass for a verdict.  A ``bool``
(or ``int``) result is the verdict, an exception means rejected, and any other result (the
decoded text, ``None``) means accepted, because the function returned.

Every program runs in a process group of its own, which is killed as a whole when it is done
with, so that no child it started outlives the run.

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
from ..i18n import N_, _, current

VERDICTS = {"1": True, "true": True, "valid": True, "0": False, "false": False, "invalid": False}
NOT_A_VERDICT = N_("{who} printed {line}, which is not a verdict (1/0, true/false or valid/invalid)")
MAX_LINE = 64  # bytes: the longest verdict ("invalid") with white space around it; longer is garbage
GRACE = 0.5  # seconds: how long a program that answered every input may go on printing extra lines
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

    def described(self) -> str:
        """The message and the input behind it, as crosscheck's report gives them."""
        from .provenance import hex_text

        shown = hex_text(self.data) if self.data is not None else _("none found")
        return self.message + "\n  " + _("triggering input: {input}").format(input=shown)


@dataclass(frozen=True)
class _Batch:
    answers: list[bool]
    problem: str | None = None  # what went wrong, if anything
    index: int | None = None  # the input the problem points at, when it points at one
    garbage: bool = False  # the problem is an answer that is not a verdict (the answer to ``index``)


def hex_line(data: bytes) -> str:
    return data.hex()


_EXACT = {word.encode(): verdict for word, verdict in VERDICTS.items()}


def parse_verdict(line: bytes) -> bool | None:
    found = _EXACT.get(line)  # the common case, without decoding
    if found is not None:
        return found
    return VERDICTS.get(line.strip().decode("ascii", "replace").lower())


class HexLines:
    """A long-running program speaking the hex-lines protocol; ``who`` names it in messages."""

    def __init__(self, argv: list[str], timeout: float, progress: Progress | None = None,
                 who: str = N_("the program")):
        self.argv = argv
        self.timeout = timeout
        self.progress = progress
        self.who = who

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
                                           stderr=errors, start_new_session=True)
            except OSError as error:
                raise AbnfError.at(None, _("cannot run {program}: {reason}").format(
                    program=self.argv[0], reason=error.strerror or error)) from None
            batch = _Conversation(process, payload, len(inputs), self.timeout, progress, self.who).run()
            if batch.problem is not None:
                batch = _Batch(batch.answers, batch.problem + _stderr_tail(errors), batch.index, batch.garbage)
        return batch

    def _locate(self, inputs: Sequence[bytes], batch: _Batch) -> Fault:
        """The fault, with the input behind it."""
        problem, index = batch.problem or "", batch.index
        if index is None or index >= len(inputs):
            return Fault(problem, None)
        if batch.garbage:  # the answer to input ``index`` is the garbage itself
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
        return Fault(problem + _(" (it does not recur on any single input; shown: the first input "
                                 "left unanswered)"), inputs[index])


class _Conversation:
    """One run of a hex-lines program: write everything, read the answers, judge the end."""

    def __init__(self, process: subprocess.Popen, payload: bytes, expected: int, timeout: float,
                 progress: Progress | None, who: str = N_("the program")):
        self.process = process
        self.payload = payload
        self.expected = expected
        self.timeout = timeout
        self.progress = progress
        self.who = who
        self.last_sign = time.monotonic()  # of life: input taken or answer given

    def run(self) -> _Batch:
        writer = threading.Thread(target=self._write, daemon=True)
        writer.start()
        try:
            return self._read()
        finally:
            kill_group(self.process)
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
            return _Batch(answers, _("{who}: its output could not be read").format(who=_(self.who)), 0)
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while True:
                chunk = self._next_chunk(selector, stdout.fileno(), len(answers))
                if isinstance(chunk, _Batch):
                    return chunk
                if not chunk:
                    break
                self.last_sign = time.monotonic()
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()
                problem = self._take(lines, answers) or self._overlong(pending, answers)
                if problem is not None:
                    return problem
        if pending.strip():
            problem = self._take([pending], answers)
            if problem is not None:
                return problem
        return self._judge_end(answers)

    def _next_chunk(self, selector: selectors.BaseSelector, fd: int, answered: int) -> bytes | _Batch:
        """The next piece of output; b"" at its end, or once every input is answered and the
        program has exited (a child it left behind may hold the output open); a fault when the
        program shows no progress for the time limit."""
        done = answered >= self.expected
        deadline = self.last_sign + (min(self.timeout, GRACE) if done else self.timeout)
        while True:
            wait = deadline - time.monotonic()
            if done:
                wait = min(wait, 0.05)  # look for its exit meanwhile
            if wait > 0 and selector.select(wait):
                return os.read(fd, 1 << 16)
            if done and (self.process.poll() is not None or time.monotonic() >= deadline):
                return b""  # complete: the rest of its output, if any, was not a verdict's
            if not done and time.monotonic() >= deadline:
                return _Batch([], _("{who} gave no answer for {seconds:g} s (--timeout) after {count:,} "
                                    "answers").format(who=_(self.who), seconds=self.timeout, count=answered),
                              answered)

    def _overlong(self, pending: bytes, answers: list[bool]) -> _Batch | None:
        """A line longer than any verdict is garbage, without waiting for its end."""
        if len(pending) <= MAX_LINE:
            return None
        return _Batch(answers, _(NOT_A_VERDICT).format(who=_(self.who), line=_shown(pending)), len(answers), True)

    def _take(self, lines: list[bytes], answers: list[bool]) -> _Batch | None:
        for line in lines:
            verdict = parse_verdict(line)
            if len(answers) >= self.expected:
                return _Batch(answers, _("{who} printed more lines than the {count:,} inputs it was given (extra "
                                         "line {line})").format(who=_(self.who), count=self.expected,
                                                                line=_shown(line)), None)
            if verdict is None:
                return _Batch(answers, _(NOT_A_VERDICT).format(who=_(self.who), line=_shown(line)), len(answers),
                              True)
            answers.append(verdict)
        if self.progress is not None:
            self.progress(len(answers), self.expected)
        return None

    def _judge_end(self, answers: list[bool]) -> _Batch:
        if len(answers) == self.expected:
            return _Batch(answers)  # complete, however it ends; run() stops what is left of it
        try:
            status = self.process.wait(max(0.0, self.last_sign + self.timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            return _Batch(answers, _("{who} closed its output after {count:,} answers for {inputs:,} inputs and "
                                     "did not exit within {seconds:g} s (--timeout)").format(
                                         who=_(self.who), count=len(answers), inputs=self.expected,
                                         seconds=self.timeout), len(answers))
        if status < 0:
            return _Batch(answers, _("{who} crashed ({how}) after {count:,} answers").format(
                who=_(self.who), how=_signal_name(-status), count=len(answers)), len(answers))
        return _Batch(answers, _("{who} exited with status {status} after {count:,} answers for {inputs:,} "
                                 "inputs").format(who=_(self.who), status=status, count=len(answers),
                                                  inputs=self.expected), len(answers))


def kill_group(process: subprocess.Popen) -> None:
    """Kill the process and whatever it started in its process group, and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already
    process.wait()


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").rstrip("\r")
    return repr(text[:40] + ("..." if len(text) > 40 else ""))


def _signal_name(number: int) -> str:
    try:
        return _("killed by {signal}").format(signal=signal.Signals(number).name)
    except ValueError:
        return _("killed by signal {number}").format(number=number)


def _stderr_tail(errors) -> str:
    errors.seek(0, os.SEEK_END)
    size = errors.tell()
    errors.seek(max(0, size - 300))
    tail = errors.read().decode("utf-8", "replace").strip()
    return _("; its standard error ends: {line}").format(line=tail.splitlines()[-1][:200]) if tail else ""


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
        """Every input's verdict; a :class:`Fault` naming the first input (in order) on which the
        program misbehaved.  After the first fault no further process is started."""
        self.done, self.total = 0, len(inputs)
        stop = threading.Event()
        with ThreadPoolExecutor(self.jobs) as pool:
            outcomes = list(pool.map(lambda data: self._one(data, stop), inputs))
        for data, outcome in zip(inputs, outcomes, strict=True):
            if isinstance(outcome, str):
                raise Fault(outcome, data)
        return [bool(outcome) for outcome in outcomes]

    def _one(self, data: bytes, stop: threading.Event) -> bool | str | None:
        """The verdict on ``data``, a fault's message, or None when the run stopped before it."""
        if stop.is_set():
            return None
        with tempfile.TemporaryDirectory(prefix="abnfc-") as folder:
            argv, stdin = self.argv, data
            if any("{}" in word for word in argv):
                path = Path(folder, "input")
                path.write_bytes(data)
                argv, stdin = [word.replace("{}", str(path)) for word in argv], b""
            status = self._status(argv, stdin)
        if isinstance(status, str) or status < 0:
            stop.set()
            return status if isinstance(status, str) else _("the program crashed ({how})").format(
                how=_signal_name(-status))
        self._tick()
        return status == 0

    def _status(self, argv: list[str], stdin: bytes) -> int | str:
        """The exit status of one run, or why there is none; its process group is killed after."""
        try:
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as error:
            raise AbnfError.at(None, _("cannot run {program}: {reason}").format(
                program=argv[0], reason=error.strerror or error)) from None
        try:
            process.communicate(stdin, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return _("the program did not exit within {seconds:g} s (--timeout)").format(seconds=self.timeout)
        finally:
            kill_group(process)
        return process.returncode

    def _tick(self) -> None:
        if self.progress is not None:
            with self.lock:
                self.done += 1
                self.progress(self.done, self.total)


class PythonFunction(HexLines):
    """A Python function, run in a child process (:mod:`.python_worker`) that speaks hex-lines."""

    def __init__(self, spec: str, timeout: float, progress: Progress | None = None):
        super().__init__([sys.executable, "-m", "abnfc.crosscheck.python_worker", spec, current()], timeout, progress,
                         who=_("the function {spec}").format(spec=spec))
        self.spec = spec
        self._check_loads()

    def _check_loads(self) -> None:
        """Load the function once, with no input, so that a module that cannot be imported is
        reported as such before any input is tried."""
        process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, start_new_session=True)
        try:
            _output, errors = process.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise AbnfError.at(None, _("--python {spec}: it did not load within {seconds:g} s (--timeout)").format(
                spec=self.spec, seconds=self.timeout)) from None
        finally:
            kill_group(process)
        if process.returncode != 0:
            lines = errors.decode("utf-8", "replace").strip().splitlines()
            why = lines[-1][:300] if lines else _("loading it ended with status {status}").format(
                status=process.returncode)
            raise AbnfError.at(None, f"--python {self.spec}: {why}")


def load_function(spec: str) -> Callable[[bytes], object]:
    """``module:function`` or ``path/to/file.py:function``; AbnfError when it cannot be loaded."""
    module_name, _colon, function_name = spec.rpartition(":")
    if not module_name or not function_name:
        raise AbnfError.at(None, _("--python wants MODULE:FUNCTION or FILE.py:FUNCTION, not {spec!r}").format(
            spec=spec))
    try:
        module = _import(module_name)
    except Exception as error:  # whatever the module raises while importing is the user's to fix
        raise AbnfError.at(None, _("cannot import {module}: {error}").format(
            module=module_name, error=f"{type(error).__name__}: {error}")) from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise AbnfError.at(None, _("{module} has no function {function!r}").format(module=module_name,
                                                                                  function=function_name))
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


@dataclass(frozen=True)
class Target:
    """The implementation to run, as ``--cmd``/``--python``, ``--protocol`` and ``--timeout`` name
    it: ``command`` split into ``argv`` for a program (``protocol`` hex-lines or exit), or ``python``
    (MODULE:FUNCTION, ``protocol`` python)."""

    command: str = ""
    argv: tuple[str, ...] = ()
    python: str = ""
    protocol: str = "hex-lines"
    timeout: float = 10.0

    @classmethod
    def of(cls, cmd: str | None, python: str | None, protocol: str | None, timeout: float) -> Target:
        """The target the options name, checked before anything runs: the command splits and names a
        program that can be run; AbnfError otherwise."""
        import shlex

        if python:
            if protocol:
                raise AbnfError.at(None, _("--protocol applies to --cmd programs, not to --python functions"))
            return cls(python=python, protocol="python", timeout=timeout)
        try:
            argv = shlex.split(cmd or "")
        except ValueError as error:
            raise AbnfError.at(None, _("cannot split --cmd {command!r}: {error}").format(command=cmd,
                                                                                         error=error)) from None
        if not argv:
            raise AbnfError.at(None, _("--cmd is empty"))
        _runnable(argv[0])
        return cls(command=cmd or "", argv=tuple(argv), protocol=protocol or "hex-lines", timeout=timeout)

    @property
    def program(self) -> str:
        """The implementation as the user named it (the command line, or MODULE:FUNCTION)."""
        return self.python or self.command

    def runner(self, progress: Progress | None = None) -> HexLines | ExitStatus:
        """The runner of the implementation (a --python function is loaded once here, so that one
        that cannot be imported is reported before any input is tried)."""
        if self.python:
            return PythonFunction(self.python, self.timeout, progress)
        if self.protocol == "exit":
            return ExitStatus(list(self.argv), self.timeout, progress)
        return HexLines(list(self.argv), self.timeout, progress)


def _runnable(program: str) -> None:
    """AbnfError, as running it would say, when ``program`` is neither on PATH nor an executable file."""
    import errno
    import shutil

    if shutil.which(program) is not None:
        return
    missing = (os.sep not in program and "/" not in program) or not os.path.exists(program)
    reason = os.strerror(errno.ENOENT if missing else errno.EACCES)
    raise AbnfError.at(None, _("cannot run {program}: {reason}").format(program=program, reason=reason))
