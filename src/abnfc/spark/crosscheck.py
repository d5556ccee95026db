"""``abnfc crosscheck --spark``: the exhaustive part (every string of up to ``--exhaustive``
bytes) run on Spark's executors, for a ``--python`` function; the other parts, classifying,
shrinking and the report stay on the driver (:mod:`abnfc.crosscheck.session`), so the report is
the one crosscheck gives without Spark.

The driver cuts the strings into slices by length and leading bytes (:mod:`.exhaustive`: about
four tasks per core, 65,536 to 4 M strings each; every string of up to 4 bytes is 1,031 tasks)
and broadcasts a :class:`~.exhaustive.Job`: the grammars' minimal DFAs as tables, the function's
source, and the inputs the earlier parts tried, which the slices skip (each input is counted
once).  Each task returns its counts and its first :data:`PER_TASK` disagreements and accepted
valid inputs.  The report keeps the first ones of the whole run, in input order
(``session.MAX_KEPT``, ``session.MAX_ACCEPTED``): where a task had more than it returned and the
report has room for them, a second, small job of follow-ups fetches the rest, from the input
after the last one returned, and stops as soon as it has them.  So the driver holds at most
``PER_TASK`` of each per task, whatever the function does, and the result is exact.

A function that raises SystemExit (or another exception that is not an ``Exception``) on an input
stops its task; the first such input in input order ends the run with crosscheck's fault report,
as without Spark.  When the job itself fails (a worker crashed), the error names Spark's reason.

The master: ``--spark MASTER``; plain ``--spark`` means the master spark-submit gave when run
under it, else ``local[*]``.  The grammars must be regular: the executors run their minimal DFAs.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import tempfile
import threading
import uuid
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ..crosscheck.inputs import Elsewhere
from ..crosscheck.language import Language
from ..crosscheck.programs import Fault
from ..crosscheck.provenance import hex_text
from ..crosscheck.session import Found, Progress
from ..errors import AbnfError
from ..i18n import N_, _, ngettext
from .exhaustive import Job, Program, Share, Slice, Table, Tally, count_upto, run_broadcast, run_share, slices

MAX_EXHAUSTIVE = 4  # bytes: 4.3 G strings; 5 would be 1.1 T, days on a small cluster
PER_TASK = 1024  # disagreements and accepted valid inputs each task returns, at most, of each
TASKS_PER_CORE = 4  # so that a slow slice does not hold up the end of the job
NEEDS_SPARK = N_("--spark needs pyspark and a Java runtime, and {missing} is missing: "
                 "pip install pyspark pandas pyarrow installs pyspark; "
                 "Java 17 or later must be on the PATH or in JAVA_HOME")

# The log4j2 settings of a driver started here (unless --debug): only fatal errors, to standard
# error; the errors that end a run are abnfc's to report, in a sentence.  The root level stays at
# the level Spark picks for a shell, so that it does not announce a change of level; the appender
# drops what is below fatal.
QUIET_LOG = """rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
appender.console.filter.threshold.type = ThresholdFilter
appender.console.filter.threshold.level = fatal
"""

# The masters Spark takes (it refuses the others with a Java stack trace).
MASTER = re.compile(r"local(\[[^\]]+\])?|local-cluster\[[^\]]+\]|yarn|(spark|k8s)://\S+")

Run = Callable[[Job, list[Share]], list[Tally]]  # the tasks' answers, in order


def check(language: Language, others: list[Language], exhaustive: int, master: str = "") -> None:
    """Usage errors, before anything runs: grammars with no DFA, too long an --exhaustive, a
    master Spark would refuse (with a Java stack trace), no Spark."""
    if master and not MASTER.fullmatch(master):
        raise AbnfError.at(None, _("--spark {master}: not a Spark master (local, local[N], local[*], "
                                   "spark://HOST:PORT, yarn or k8s://URL)").format(master=master))
    for grammar in (language, *others):
        if not grammar.exact:
            raise AbnfError.at(None, _("--spark runs the grammar's minimal DFA on the executors; {path} is recursive "
                                       "and has none (run without --spark)").format(path=grammar.path))
    if exhaustive > MAX_EXHAUSTIVE:
        raise AbnfError.at(None, _("--exhaustive {length} would try {count:,} strings; with --spark at most {limit} "
                                   "bytes are supported").format(length=exhaustive, count=count_upto(exhaustive),
                                                                 limit=MAX_EXHAUSTIVE))
    missing = _missing()
    if missing:
        raise AbnfError.at(None, _(NEEDS_SPARK).format(missing=missing))


def _missing() -> str | None:
    """What Spark lacks here: pyspark, or a Java runtime (none is needed under spark-submit)."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark"
    if "PYSPARK_GATEWAY_PORT" in os.environ:  # spark-submit started the JVM already
        return None
    home = os.environ.get("JAVA_HOME")
    if (home and Path(home, "bin", "java").is_file()) or shutil.which("java"):
        return None
    return "java"


def program(spec: str) -> Program:
    """The --python function, ready to ship: a file's source, or a module's when it is a single
    file found from here (as ``python -m`` finds it); else its name, for the executors to import."""
    name, _colon, function = spec.rpartition(":")
    if name.endswith(".py") or os.sep in name or "/" in name:
        path = Path(name)
        return Program(spec, path.stem, function, path.read_bytes(), os.path.abspath(path))
    origin = None
    if "." not in name:  # a dotted name would import its package here
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # as programs._import does
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is not None and found.submodule_search_locations is None and (found.origin or "").endswith(".py"):
            origin = found.origin
    if origin is None:
        return Program(spec, name, function, None, name)
    return Program(spec, name, function, Path(origin).read_bytes(), origin)


def gather(job: Job, piece: Elsewhere, run: Run, tasks: int, kept: int, accepted: int,
           per_task: int = PER_TASK) -> Found:
    """What the exhaustive part finds, exactly as running it in order would: the tasks, then the
    follow-ups that fetch what the report still has room for (see the module's docstring)."""
    shares = [Share(part, min(kept, per_task), min(accepted, per_task)) for part in slices(piece.length, tasks)]
    tallies = run(job, shares)
    _fault(job, tallies)
    assert sum(tally.inputs for tally in tallies) == piece.count, "the slices miss or repeat inputs"
    plan = _plan(shares, tallies, kept, accepted)
    follow_ups = [share for _index, share in plan]
    fetched = run(job, follow_ups) if follow_ups else []
    _fault(job, fetched)  # a function that answers differently the second time
    more = dict(zip([index for index, _share in plan], fetched, strict=True))
    return _assemble(tallies, more, kept, accepted, len(job.others))


def _fault(job: Job, tallies: list[Tally]) -> None:
    """The first input (in input order) on which the function raised what ends a run."""
    for tally in tallies:
        if tally.raised is None:
            continue
        if tally.raised.data is None:
            raise AbnfError.at(None, _("--python {spec} did not load on Spark's executors: {error}").format(
                spec=job.program.spec, error=tally.raised.error))
        raise Fault(_("the function {spec} raised {error} on input {input}").format(
            spec=job.program.spec, error=tally.raised.error, input=hex_text(tally.raised.data)), tally.raised.data)


# A follow-up is keyed by (task, 0 for disagreements or 1 for accepted valid inputs).
def _plan(shares: list[Share], tallies: list[Tally], kept: int, accepted: int) -> list[tuple[tuple[int, int], Share]]:
    """The follow-ups: for each task that returned fewer than the report takes of it, one from
    the input after the last it returned, for the rest."""
    found = []
    for index, (share, tally) in enumerate(zip(shares, tallies, strict=True)):
        wanted = min(tally.count, kept)
        if wanted > len(tally.disagreements):
            after = tally.disagreements[-1][0]
            found.append(((index, 0), Share(_rest(share.slice, after), wanted - len(tally.disagreements), 0, False)))
        kept -= wanted
        wanted = min(tally.valid_accepted, accepted)
        if wanted > len(tally.accepted):
            after = tally.accepted[-1]
            found.append(((index, 1), Share(_rest(share.slice, after), 0, wanted - len(tally.accepted), False)))
        accepted -= wanted
    return found


def _rest(piece: Slice, after: bytes) -> Slice:
    return Slice(piece.length, int.from_bytes(after, "big") + 1, piece.stop)


def _assemble(tallies: list[Tally], more: dict[tuple[int, int], Tally], kept: int, accepted: int,
              others: int) -> Found:
    disagreements: list[tuple[bytes, bool]] = []
    valid: list[bytes] = []
    for index, tally in enumerate(tallies):
        disagreements.extend(tally.disagreements[:kept - len(disagreements)])
        if (index, 0) in more:
            disagreements.extend(more[index, 0].disagreements)
        valid.extend(tally.accepted[:accepted - len(valid)])
        if (index, 1) in more:
            valid.extend(more[index, 1].accepted)
    against = tuple(sum(tally.against[which] for tally in tallies) for which in range(others))
    return Found(sum(tally.count for tally in tallies), tuple(disagreements), tuple(valid), against)


def local_run(job: Job, shares: list[Share]) -> list[Tally]:
    """The tasks run here, one after the other (for tests, and to measure one task)."""
    return [run_share(job, share) for share in shares]


class OnSpark:
    """The exhaustive part on Spark's executors: a :data:`abnfc.crosscheck.session.Remote`.
    The session starts when the part is reached, and stops at the end if it started here."""

    def __init__(self, master: str, language: Language, others: list[Language], spec: str, progress: Progress,
                 debug: bool = False):
        self.master = master
        self.debug = debug  # Spark's own log as Spark sets it
        self.grammar = Table.of(language.minimal)
        self.others = tuple(Table.of(other.minimal) for other in others)
        self.program = program(spec)
        self.progress = progress
        self.session: Any = None
        self.owned = False  # whether this run started the session, and so stops it
        self.jobs = 0

    def __enter__(self) -> OnSpark:
        return self

    def __exit__(self, *exception: object) -> None:
        if self.session is not None and self.owned:
            self.session.stop()

    def __call__(self, piece: Elsewhere, kept: int, accepted: int) -> Found:
        context = self._start().sparkContext
        job = Job(uuid.uuid4().hex, self.grammar, self.others, self.program, piece.seen)
        tasks = TASKS_PER_CORE * context.defaultParallelism
        return gather(job, piece, partial(self._run, piece.count), tasks, kept, accepted)

    def _start(self) -> Any:
        if self.session is None:
            self.session, self.owned = _session(self.master, self.debug)
        return self.session

    def _run(self, inputs: int, job: Job, shares: list[Share]) -> list[Tally]:
        context = self.session.sparkContext
        tasks = len(shares)
        if shares[0].complete:
            phase = ngettext("running the implementation on Spark's executors: {count:,} inputs in {tasks:,} task",
                             "running the implementation on Spark's executors: {count:,} inputs in {tasks:,} tasks",
                             tasks)
        else:
            phase = ngettext("fetching more of the first disagreements and accepted inputs on Spark's executors: "
                             "{tasks:,} task", "fetching more of the first disagreements and accepted inputs on "
                             "Spark's executors: {tasks:,} tasks", tasks)
        self.progress.start(phase.format(count=inputs, tasks=tasks))
        shared = context.broadcast(job)
        try:
            return self._collect(context, context.parallelize(shares, tasks).map(partial(run_broadcast, shared)),
                                 tasks)
        finally:
            shared.unpersist()

    def _collect(self, context: Any, tasks: Any, count: int) -> list[Tally]:
        """The tasks' answers; meanwhile, progress every half second, and Ctrl-C cancels the job."""
        self.jobs += 1
        group = f"abnfc-crosscheck-{os.getpid()}-{self.jobs}"
        outcome: dict[str, Any] = {}

        def work() -> None:
            context.setJobGroup(group, "abnfc crosscheck --spark", interruptOnCancel=True)
            try:
                outcome["tallies"] = tasks.collect()
            except Exception as error:  # reported on the calling thread
                outcome["error"] = error

        thread = threading.Thread(target=work, name=group, daemon=True)
        thread.start()
        try:
            while thread.is_alive():
                thread.join(0.5)
                self.progress(_done(context, group), count)
        except KeyboardInterrupt:
            context.cancelJobGroup(group)
            raise
        if "error" in outcome:
            raise AbnfError.at(None, _("the Spark job failed: {reason}").format(
                reason=_reason(outcome["error"]))) from outcome["error"]
        tallies: list[Tally] = outcome["tallies"]
        return tallies


def _session(master: str, debug: bool) -> tuple[Any, bool]:
    """(the Spark session, whether it started here); AbnfError when Spark does not start."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark's about the pandas version: not ours to fix
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        if getattr(SparkContext, "_active_spark_context", None) is not None:  # this process's own: as it is
            return SparkSession.builder.getOrCreate(), False
        builder = SparkSession.builder.appName("abnfc crosscheck").config("spark.ui.showConsoleProgress", "false")
        if master or "PYSPARK_GATEWAY_PORT" not in os.environ:  # else spark-submit's master
            master = master or "local[*]"
            builder = builder.master(master)
            if master.startswith("local"):
                os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers need this Python's abnfc
        with tempfile.TemporaryDirectory(prefix="abnfc-") as folder:
            if not debug:  # a JVM started here reads its log settings once, when it starts
                settings = Path(folder, "log4j2.properties")
                settings.write_text(QUIET_LOG, encoding="utf-8")
                builder = builder.config("spark.driver.extraJavaOptions",
                                         f"-Dlog4j2.configurationFile={settings.as_uri()}")
            try:
                return builder.getOrCreate(), True
            except Exception as error:
                raise AbnfError.at(None, _("Spark did not start: {reason}").format(reason=_reason(error))) from error


def _done(context: Any, group: str) -> int:
    tracker = context.statusTracker()
    done = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info is not None else ():
            stage_info = tracker.getStageInfo(stage)
            done += stage_info.numCompletedTasks if stage_info is not None else 0
    return done


def _reason(error: BaseException) -> str:
    """The gist of a Spark error: the cause of a task's failure when it names one, else the first
    line of the error, without Java's class names, shortened."""
    java = getattr(error, "java_exception", None)
    lines = [line.strip() for line in str(java if java is not None else error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    line = lines[0]
    _before, failure, cause = line.partition("most recent failure: ")
    if failure:  # "Lost task 2.0 in stage 0.0 (TID 2) (host executor driver): the cause"
        line = cause.split("): ", 1)[-1]
    line = re.sub(r"\b(?:[a-z0-9_]+\.)+[A-Za-z0-9_$]*(?:Exception|Error): ", "", line)
    return line if len(line) <= 300 else line[:300] + "..."
