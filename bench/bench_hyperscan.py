"""Benchmark: abnfc's batch kernel (``abnfc check --records``) against Hyperscan (vectorscan) on
1 million short records each, one verdict per record.

Two columns: RFC 3339 timestamps (grammars/datetime.abnf, one in a thousand broken by an ``x``)
and URI references (grammars/uri.abnf, bench/corpora.py's uri_lines, one in twenty spoiled).
The regular expressions are bench/bench_records.py's, written from the grammars rule by rule and
anchored (``^...$``); Hyperscan compiles each as one pattern (HS_FLAG_SINGLEMATCH, block mode)
and runs ``hs_scan`` once per record, a match meaning valid.  abnfc runs its batch kernel over the
same buffer and offsets in one call (``P_first_errors``), as built (with Sheng where the
automaton fits 32 lanes and the CPU has AVX-512 VBMI: RFC 3339's 29 states do, URI's 183 do
not) and with ``ABNFC_NO_SHENG`` (its table loop, four records side by side).  Both must count exactly the same valid
records, or the run fails.  CPU time of the process, the median of REPEATS runs, interleaved.

    apt-get install libvectorscan-dev     # Debian: hs.h and libhs
    python bench/bench_hyperscan.py [--records N] [--repeats N]
"""
from __future__ import annotations

import argparse
import ctypes
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_records  # noqa: E402
import corpora  # noqa: E402

import abnfc  # noqa: E402
from abnfc.native import batch, cache  # noqa: E402
from abnfc.native.kernel import SIZE_CODE, SIZE_MAX  # noqa: E402

HS_BENCH = r"""
#define _POSIX_C_SOURCE 199309L
#include <hs/hs.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

static int on_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *ctx)
{
    (void)id; (void)from; (void)to; (void)flags;
    *(int *)ctx = 1;
    return 1; /* stop: one match is the verdict */
}

/* The number of records matching pattern (-1: it did not compile); *seconds: CPU time of the scans. */
long hs_records(const char *pattern, const unsigned char *data, const size_t *offsets, size_t count,
                double *seconds)
{
    hs_database_t *db;
    hs_compile_error_t *error;
    hs_scratch_t *scratch = NULL;
    struct timespec t0, t1;
    size_t i;
    long valid = 0;
    if (hs_compile(pattern, HS_FLAG_SINGLEMATCH, HS_MODE_BLOCK, NULL, &db, &error) != HS_SUCCESS) {
        hs_free_compile_error(error);
        return -1;
    }
    if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS)
        return -1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (i = 0; i < count; i++) {
        int matched = 0;
        hs_scan(db, (const char *)data + offsets[i], (unsigned)(offsets[i + 1] - offsets[i]), 0, scratch,
                on_match, &matched);
        valid += matched;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    hs_free_scratch(scratch);
    hs_free_database(db);
    return valid;
}
"""


def hyperscan(folder: Path) -> ctypes.CDLL:
    source = folder / "hs_bench.c"
    source.write_text(HS_BENCH)
    library = folder / "hs_bench.so"
    subprocess.run(["cc", "-std=c99", "-O2", "-fPIC", "-shared", "-o", str(library), str(source), "-lhs"], check=True)
    lib = ctypes.CDLL(str(library))
    lib.hs_records.restype = ctypes.c_long
    lib.hs_records.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                               ctypes.POINTER(ctypes.c_double)]
    return lib


def kernels(files: dict[str, str]) -> list:
    """The batch kernel as abnfc builds it, and built with ABNFC_NO_SHENG (its table loop only)."""
    plain = batch.build("cc", None, files)
    original = batch.CFLAGS
    batch.CFLAGS = [*original, "-DABNFC_NO_SHENG"]
    try:
        no_sheng = batch.build("cc", cache.kernel_key("cc", "bench without Sheng", *sorted(files.values())), files)
    finally:
        batch.CFLAGS = original
    return [plain, no_sheng]


def run(lib: ctypes.CDLL, kernels: list, pattern: str, lines: list[bytes], repeats: int
        ) -> tuple[list[float], float, int]:
    data = b"".join(lines)
    offsets = array(SIZE_CODE, [0])
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    ours: list[list[float]] = [[] for _ in kernels]
    theirs = []
    counts = set()
    for _ in range(repeats):
        for times, kernel in zip(ours, kernels, strict=True):
            started = time.process_time()
            errors = kernel.first_errors(data, offsets)
            times.append(time.process_time() - started)
            counts.add(("abnfc", sum(1 for e in errors if e == SIZE_MAX)))
        seconds = ctypes.c_double()
        valid = lib.hs_records(pattern.encode(), data, offsets.buffer_info()[0], len(lines), ctypes.byref(seconds))
        if valid < 0:
            raise SystemExit("Hyperscan did not compile the pattern")
        theirs.append(seconds.value)
        counts.add(("hyperscan", valid))
    if len({n for _tool, n in counts}) != 1:
        raise SystemExit(f"the tools count different numbers of valid records: {sorted(counts)}")
    return [statistics.median(t) for t in ours], statistics.median(theirs), counts.pop()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if shutil.which("cc") is None:
        raise SystemExit("no C compiler (cc)")
    stamps, _broken = bench_records.timestamps(args.records, args.records // 1000)
    cases = [("RFC 3339 timestamps", ROOT / "grammars" / "datetime.abnf", bench_records.DATETIME, stamps),
             ("URI references", ROOT / "grammars" / "uri.abnf", bench_records.uri_reference(),
              corpora.uri_lines(args.records))]
    print(f"{args.records:,} records each; CPU seconds, median of {args.repeats} runs")
    print("| records | valid | abnfc batch kernel | the same without Sheng | Hyperscan, hs_scan a record "
          "| abnfc's speed-up | without Sheng |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        lib = hyperscan(Path(work))
        for label, grammar, pattern, lines in cases:
            files = abnfc.generate_files(grammar, "c", prefix="validator")
            (ours, plain), theirs, valid = run(lib, kernels(files), pattern, lines, args.repeats)
            print(f"| {label} | {valid:,} | {ours:.3f} s | {plain:.3f} s | {theirs:.3f} s | {theirs / ours:.2f}x "
                  f"| {theirs / plain:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
