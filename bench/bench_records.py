"""Validators at data scale: ``abnfc check --records lines`` against ``grep -Evc`` and
``validate_arrow`` against pyarrow's RE2 (``pyarrow.compute.match_substring_regex``), with
regular expressions equivalent to the grammars; and JSON Lines against RFC 8259 (a recursive
grammar, through the C pushdown validator) against a Python loop of ``json.loads``.

Two columns: 2 million RFC 3339 timestamps (grammars/datetime.abnf, start rule date-time), 2,000
of them broken (one character replaced by ``x``, which no position takes), and 1 million URI
references (bench/corpora.py's uri_lines, one in twenty spoiled; grammars/uri.abnf, start rule
URI-reference).  The regular expressions are written from the grammars rule by rule (below) and
are checked here: every tool must count exactly the same invalid records, or the run fails.

``abnfc check`` runs as a whole process (wall time, its batch kernel already in the cache, as on
every run after the first; the first run is shown on its own), twice: with ``--count``, which
prints what ``grep -c`` prints (the numbers), and with ``--format json``, which prints one JSON
object per invalid record with its offset and expected bytes (with one URI in twenty invalid,
that reporting is a third of abnfc's time).  grep runs with LC_ALL=C.  Medians of REPEATS runs.

A second table puts the record formats side by side on the same values: ``--records lines``,
``csv:value`` (a file of two columns, an id and the value, written by Python's csv module, so
URIs with quotes or commas are quoted) and ``jsonl:value`` (``{"id": N, "value": "..."}`` a line,
written by json.dumps), each as a whole process with ``--count``: wall time and CPU time (user
and system of the process and its threads), medians, and each format's speed relative to
``lines`` on CPU time; and once more with the C readers switched off (Python's csv and json
modules alone, as before they existed).  All must count the same invalid records.

    python bench/bench_records.py [--timestamps N] [--uris N] [--repeats N] [--formats-only]
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).parent))
import corpora

import abnfc

ROOT = Path(__file__).resolve().parent.parent
ABNFC = [sys.executable, "-m", "abnfc"]

# RFC 3339 date-time as in grammars/datetime.abnf: "T" and "Z" are case-insensitive there too.
D = "[0-9]"
DATETIME = (f"^{D}{{4}}-{D}{{2}}-{D}{{2}}[Tt]{D}{{2}}:{D}{{2}}:{D}{{2}}(\\.{D}+)?"
            f"([Zz]|[+-]{D}{{2}}:{D}{{2}})$")


def uri_reference() -> str:
    """RFC 3986's URI-reference, rule by rule from grammars/uri.abnf, in the syntax POSIX ERE and
    RE2 share (plain groups, bracket expressions with '-' last, no empty alternative)."""
    hexdig = "[0-9A-Fa-f]"
    unreserved, sub_delims = "A-Za-z0-9._~", "!$&'()*+,;="
    pct = f"%{hexdig}{{2}}"
    pchar = f"([{unreserved}{sub_delims}:@-]|{pct})"
    query = f"([{unreserved}{sub_delims}:@/?-]|{pct})*"
    segment, segment_nz = f"{pchar}*", f"{pchar}+"
    segment_nz_nc = f"([{unreserved}{sub_delims}@-]|{pct})+"
    scheme = "[A-Za-z][A-Za-z0-9+.-]*"
    userinfo = f"([{unreserved}{sub_delims}:-]|{pct})*"
    h16 = f"{hexdig}{{1,4}}"
    dec_octet = "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])"
    ipv4 = f"{dec_octet}\\.{dec_octet}\\.{dec_octet}\\.{dec_octet}"
    ls32 = f"({h16}:{h16}|{ipv4})"

    def before(n: int) -> str:  # [ *n( h16 ":" ) h16 ]
        return f"(({h16}:){{0,{n}}}{h16})?" if n else f"({h16})?"

    ipv6 = "|".join([f"({h16}:){{6}}{ls32}", f"::({h16}:){{5}}{ls32}", f"{before(0)}::({h16}:){{4}}{ls32}",
                     f"{before(1)}::({h16}:){{3}}{ls32}", f"{before(2)}::({h16}:){{2}}{ls32}",
                     f"{before(3)}::{h16}:{ls32}", f"{before(4)}::{ls32}", f"{before(5)}::{h16}",
                     f"{before(6)}::"])
    ipvfuture = f"[vV]{hexdig}+\\.[{unreserved}{sub_delims}:-]+"
    host = f"(\\[({ipv6}|{ipvfuture})\\]|{ipv4}|([{unreserved}{sub_delims}-]|{pct})*)"
    authority = f"({userinfo}@)?{host}(:[0-9]*)?"
    abempty = f"(/{segment})*"
    absolute = f"/({segment_nz}(/{segment})*)?"
    hier = f"(//{authority}{abempty}|{absolute}|{segment_nz}(/{segment})*)?"  # ? : path-empty
    relative = f"(//{authority}{abempty}|{absolute}|{segment_nz_nc}(/{segment})*)?"
    tail = f"(\\?{query})?(#{query})?"
    return f"^({scheme}:{hier}{tail}|{relative}{tail})$"


def timestamps(count: int, broken: int, seed: int = 3339) -> tuple[list[bytes], int]:
    """``count`` RFC 3339 timestamps, ``broken`` of them with one character replaced by 'x'."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        frac = f".{rng.randrange(10 ** 6):06d}"[: rng.choice([0, 2, 4, 7])]
        zone = rng.choice(["Z", "z", f"+{rng.randrange(24):02d}:{rng.randrange(60):02d}",
                           f"-{rng.randrange(24):02d}:30"])
        lines.append(f"{rng.randrange(1970, 2100)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
                     f"{rng.choice('Tt')}{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
                     f"{frac}{zone}".encode())
    for index in rng.sample(range(count), broken):
        at = rng.randrange(len(lines[index]))
        lines[index] = lines[index][:at] + b"x" + lines[index][at + 1:]
    return lines, broken


def median_seconds(run, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def check_invalid(grammar: Path, path: Path, output: str = "--count") -> int:
    """abnfc check --records lines with --count or --format json: the invalid records it counts."""
    done = subprocess.run([*ABNFC, "check", str(grammar), "--records", "lines", "--format", "json",
                           *(["--count"] if output == "--count" else []), str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode in (0, 1), done.stderr
    return int(done.stdout.strip().splitlines()[-1].split('"invalid": ')[1].split(",")[0])


def grep_invalid(pattern: str, path: Path) -> int:
    done = subprocess.run(["grep", "-Evc", pattern, str(path)], capture_output=True, text=True,
                          env={**os.environ, "LC_ALL": "C"})
    assert done.returncode in (0, 1), done.stderr
    return int(done.stdout)


def row(label: str, abnfc_time: float, other_time: float, counts: tuple[int, int]) -> str:
    return (f"| {label} | {abnfc_time:.3f} s | {other_time:.3f} s | {other_time / abnfc_time:.2f}x "
            f"| {counts[0]:,} = {counts[1]:,} |")


def bench(name: str, grammar: Path, lines: list[bytes], pattern: str, repeats: int, folder: Path) -> list[str]:
    path = folder / f"{name}.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    cold, _ = median_seconds(lambda: check_invalid(grammar, path), 1)  # builds the kernel into the cache
    grep_time, theirs = median_seconds(lambda: grep_invalid(pattern, path), repeats)
    rows = []
    for output in ("--count", "--format json"):
        abnfc_time, ours = median_seconds(lambda o=output: check_invalid(grammar, path, o), repeats)
        assert ours == theirs, (name, "check --records", output, ours, "grep", theirs)
        rows.append(row(f"{name}: check --records lines {output} vs grep -Evc", abnfc_time, grep_time,
                        (ours, theirs)))
    rows.append(f"| {name}: the first check --records (compiles the kernel) | {cold:.3f} s | | | |")
    validator = abnfc.load_validator(grammar, lang="c")
    array = pa.array([line.decode("ascii") for line in lines])
    validator.validate_arrow(array[:10])  # the kernel is built and loaded
    arrow_time, verdicts = median_seconds(lambda: validator.validate_arrow(array), repeats)
    re2_time, matches = median_seconds(lambda: pc.match_substring_regex(array, pattern), repeats)
    ours, theirs = len(array) - pc.sum(verdicts).as_py(), len(array) - pc.sum(matches).as_py()
    assert ours == theirs and pc.all(pc.equal(verdicts, matches)).as_py(), (name, "arrow", ours, theirs)
    rows.append(row(f"{name}: validate_arrow vs RE2", arrow_time, re2_time, (ours, theirs)))
    return rows


def json_documents(count: int, seed: int = 8259) -> list[bytes]:
    """``count`` JSON documents of a line each (nested arrays and objects up to depth 4, strings
    with escapes), one in fifty broken (its last byte dropped, or a comma added)."""
    rng = random.Random(seed)

    def value(depth: int = 0):
        roll = rng.random()
        if depth > 3 or roll < 0.3:
            return rng.choice([1, -2.5e3, "text", True, None, "caf\u00e9 \"q\"", [], {}])
        if roll < 0.65:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randrange(4))}

    lines = []
    for index in range(count):
        text = json.dumps(value())
        if index % 50 == 0:
            text = text[:-1] if len(text) > 1 else text + ","
        lines.append(text.encode())
    return lines


PYTHON_JSON_LOOP = """import json, sys
bad = 0
for line in open(sys.argv[1], "rb"):
    try:
        json.loads(line)
    except ValueError:
        bad += 1
print(bad)
"""


def bench_json_lines(count: int, repeats: int, folder: Path) -> list[str]:
    """JSON Lines against RFC 8259 (grammars/json.abnf, a pushdown validator): check --records
    against a Python loop of json.loads, as a whole process each."""
    path = folder / "documents.jsonl"
    path.write_bytes(b"\n".join(json_documents(count)) + b"\n")
    grammar = ROOT / "grammars/json.abnf"
    cold, _ = median_seconds(lambda: check_invalid(grammar, path), 1)
    loop_time, theirs = median_seconds(lambda: int(subprocess.run(
        [sys.executable, "-c", PYTHON_JSON_LOOP, str(path)], capture_output=True, text=True).stdout), repeats)
    rows = []
    for output in ("--count", "--format json"):
        abnfc_time, ours = median_seconds(lambda o=output: check_invalid(grammar, path, o), repeats)
        assert ours == theirs, ("JSON Lines", output, ours, "json.loads", theirs)
        rows.append(row(f"JSON Lines: check --records lines {output} vs a json.loads loop", abnfc_time, loop_time,
                        (ours, theirs)))
    rows.append(f"| JSON Lines: the first check --records (compiles the kernel) | {cold:.3f} s | | | |")
    return rows


PYTHON_READERS = """import sys
from abnfc.native import readers
readers.readers = lambda note=None: None
from abnfc.cli import main
sys.exit(main(sys.argv[1:]))
"""


def format_files(name: str, values: list[bytes], folder: Path) -> dict[str, Path]:
    """The values as lines, as the second column of a CSV file and as a JSON Lines field."""
    lines, table, objects = folder / f"{name}.txt", folder / f"{name}.csv", folder / f"{name}.jsonl"
    lines.write_bytes(b"\n".join(values) + b"\n")
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["id", "value"])
    writer.writerows((index, value.decode("ascii")) for index, value in enumerate(values))
    table.write_text(text.getvalue(), encoding="utf-8", newline="")
    objects.write_text("".join(json.dumps({"id": index, "value": value.decode("ascii")}) + "\n"
                               for index, value in enumerate(values)), encoding="utf-8")
    return {"lines": lines, "csv:value": table, "jsonl:value": objects}


def timed_check(grammar: Path, records: str, path: Path, python_readers: bool = False) -> tuple[float, float, int]:
    """abnfc check --records RECORDS --count as a process: wall seconds, CPU seconds, invalid."""
    program = ["-c", PYTHON_READERS] if python_readers else ["-m", "abnfc"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *program, "check", str(grammar), "--records", records, "--count",
                           "--format", "json", str(path)], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode in (0, 1), done.stderr
    invalid = int(done.stdout.strip().splitlines()[-1].split('"invalid": ')[1].split(",")[0])
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, invalid


def bench_formats(name: str, grammar: Path, values: list[bytes], repeats: int, folder: Path) -> list[str]:
    """lines, CSV and JSON Lines of the same values, with the C readers and without."""
    files = format_files(name, values, folder)
    timed_check(grammar, "lines", files["lines"])  # the kernel and the readers into the cache
    runs = [(records, path, False) for records, path in files.items()]
    runs += [(records, path, True) for records, path in files.items() if records != "lines"]
    measured: dict[tuple[str, bool], list[tuple[float, float, int]]] = {run[::2]: [] for run in runs}
    for _ in range(repeats):  # interleaved, so that the machine's load falls on every run alike
        for records, path, python in runs:
            measured[records, python].append(timed_check(grammar, records, path, python))
    invalid = {result[2] for results in measured.values() for result in results}
    assert len(invalid) == 1, (name, "the formats disagree", measured)
    medians = {run: (statistics.median(r[0] for r in results), statistics.median(r[1] for r in results))
               for run, results in measured.items()}
    base = medians["lines", False][1]
    rows = []
    for (records, python), (wall, cpu) in medians.items():
        size = files[records].stat().st_size / 1e6
        how = "Python's csv/json modules" if python else ("C readers" if records != "lines" else "")
        rows.append(f"| {name} | `--records {records}` {how} | {size:.0f} MB | {wall:.3f} s | {cpu:.3f} s "
                    f"| {base / cpu:.2f}x | {next(iter(invalid)):,} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timestamps", type=int, default=2_000_000)
    parser.add_argument("--uris", type=int, default=1_000_000)
    parser.add_argument("--documents", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--formats-only", action="store_true", help="only the table of record formats")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="abnfc-bench-") as work:
        os.environ["ABNFC_CACHE"] = os.environ.get("ABNFC_CACHE") or os.path.join(work, "cache")
        stamps, broken = timestamps(args.timestamps, args.timestamps // 1000)
        uris = corpora.uri_lines(args.uris)
        print(f"Record formats on the same values: {args.timestamps:,} timestamps, {args.uris:,} URI references; "
              f"medians of {args.repeats}, each process whole (CPU: user and system, all threads)")
        print("| values | run | file | wall | CPU | speed vs lines (CPU) | invalid |")
        print("|---|---|---|---|---|---|---|")
        for line in bench_formats("RFC 3339", ROOT / "grammars/datetime.abnf", stamps, args.repeats, Path(work)):
            print(line, flush=True)
        for line in bench_formats("URI", ROOT / "grammars/uri.abnf", uris, args.repeats, Path(work)):
            print(line, flush=True)
        if args.formats_only:
            return
        print()
        print(f"{args.timestamps:,} timestamps ({broken:,} broken), {args.uris:,} URI references, "
              f"{args.documents:,} JSON documents; medians of {args.repeats}")
        print("| run | abnfc | other | other / abnfc | invalid (abnfc = other) |")
        print("|---|---|---|---|---|")
        for line in bench("RFC 3339", ROOT / "grammars/datetime.abnf", stamps, DATETIME, args.repeats, Path(work)):
            print(line, flush=True)
        for line in bench("URI", ROOT / "grammars/uri.abnf", uris, uri_reference(), args.repeats, Path(work)):
            print(line, flush=True)
        for line in bench_json_lines(args.documents, args.repeats, Path(work)):
            print(line, flush=True)


if __name__ == "__main__":
    main()
