"""Benchmark: the generated JSON validator's is_valid against its two stages, its byte loop and
simdjson's DOM parse, on generated documents.

``abnfc compile grammars/json.abnf --lang c`` writes a pushdown validator whose ``is_valid``
checks token bigrams on processors with AVX-512 VBMI2 (inputs of 512 bytes and more; see
src/abnfc/automata/bigrams), and elsewhere runs in two stages (a data-parallel stage 1 over
64-byte blocks, then the automaton on the positions it marks; see src/abnfc/automata/lexical.py).
Built with -DJSON_VALIDATOR_NO_BIGRAMS it keeps the two stages, with -DJSON_VALIDATOR_TWO_STAGE=0
the byte loop.  The peer is simdjson's ``dom::parser::parse`` (the Debian package
libsimdjson-dev, 3.0.1 there; skipped when its header is missing), which validates and also
builds the document tree.

The documents: simdjson's three usual files where ``--examples DIR`` names a folder holding them
(twitter.json, citm_catalog.json and canada.json from simdjson's jsonexamples; they are not in
the Debian package, and canada.json left simdjson's repository in June 2021, commit 714f0ba, so
it is taken from the commit before), then generated ones: bench_json's records (1, 16 and 50
MiB, pretty-printed and compact, non-ASCII and escapes), and shapes like the three files -
tweets (compact, many strings, much non-ASCII text, escaped slashes), a ticket catalogue
(indented, many integers), and GeoJSON polygons (arrays of decimal pairs).  Each time is the
median CPU time (CLOCK_PROCESS_CPUTIME_ID) of 15 runs in one process, after 0.2 s of calls
that are not timed (each process starts cold: the first runs were slower), the fastest of 5
processes run in turn with the other contenders'; the ratios compare runs of the same script on
one shared machine.  The header names the kernel simdjson chose.  Then short documents (8 to
1023 bytes, cut from the tweets), 200 distinct ones per row, timed per call: ``is_valid`` takes
the byte loop below 64 bytes (40 on Intel processors) and the two stages below 512, and
simdjson's parser is reused from call to call, as a program checking many messages would.  The
last column of both tables times is_valid and simdjson in one
process instead, called in turn (see PAIRED_HARNESS): the median of the rounds' ratios, with its
quartiles.

With ``--stages`` it prints only a table of each stage's time apart, ours and simdjson's (see
STAGES_OURS), on the large documents; ``--avx2`` with it leaves AVX-512 out of both, as on
processors without it.

    python bench/bench_json_stages.py [--examples DIR] [--short-only | --stages [--avx2]]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_json import document  # noqa: E402

RUNS = 15
WARM = 0.2  # seconds of CPU each process spends calling before it times: the clock and caches settle
ROUNDS = 5  # processes per contender and document, in turn; the fastest median counts

C_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "json_validator.h"
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9;
}
static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y);
}
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc(n); if (fread(d, 1, n, f) != (size_t)n) return 2; fclose(f);
    double times[RUNS]; int ok = 1;
    for (double start = now(); now() - start < WARM;) ok &= json_validator_is_valid(d, n);
    for (int i = 0; i < RUNS; i++) {
        double t = now(); ok &= json_validator_is_valid(d, n); times[i] = now() - t;
    }
    qsort(times, RUNS, sizeof times[0], by_value);
    printf("%d %.9f\n", ok, times[RUNS / 2]);
    return 0;
}
"""

SIMDJSON_HARNESS = r"""
#include <simdjson.h>
#include <algorithm>
#include <cstdio>
#include <ctime>
static double now() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    simdjson::padded_string doc = simdjson::padded_string::load(argv[1]);
    simdjson::dom::parser parser;
    double times[RUNS]; int ok = 1;
    for (double start = now(); now() - start < WARM;) ok &= parser.parse(doc).error() == simdjson::SUCCESS;
    for (int i = 0; i < RUNS; i++) {
        double t = now(); auto result = parser.parse(doc);
        ok &= result.error() == simdjson::SUCCESS; times[i] = now() - t;
    }
    std::sort(times, times + RUNS);
    std::fprintf(stderr, "%s\n", simdjson::get_active_implementation()->name().c_str());
    std::printf("%d %.9f\n", ok, times[RUNS / 2]);
    return 0;
}
"""

C_SHORT_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "json_validator.h"
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char **argv) {
    static unsigned char file[1 << 20], *docs[4096]; unsigned lens[4096]; int k = 0, ok = 1; size_t at = 0;
    FILE *f = fopen(argv[1], "rb"); size_t n = fread(file, 1, sizeof file, f); fclose(f);
    while (at + 4 <= n && k < 4096) {  /* each document: its length (4 bytes, little-endian), then itself */
        memcpy(&lens[k], file + at, 4); docs[k] = malloc(lens[k]); memcpy(docs[k], file + at + 4, lens[k]);
        at += 4 + lens[k++];
    }
    int rounds = CALLS / k; double best = 1e9;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        for (int i = 0; i < rounds; i++)
            for (int j = 0; j < k; j++) ok &= json_validator_is_valid(docs[j], lens[j]);
        t = (now() - t) / ((double)rounds * k); if (t < best) best = t;
    }
    printf("%d %.12f\n", ok, best);
    return 0;
}
"""

SIMDJSON_SHORT_HARNESS = r"""
#include <simdjson.h>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>
static double now() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    static unsigned char file[1 << 20]; std::vector<simdjson::padded_string> docs; size_t at = 0; int ok = 1;
    FILE *f = std::fopen(argv[1], "rb"); size_t n = std::fread(file, 1, sizeof file, f); std::fclose(f);
    while (at + 4 <= n && docs.size() < 4096) {
        unsigned len; std::memcpy(&len, file + at, 4);
        docs.emplace_back((const char *)file + at + 4, len); at += 4 + len;
    }
    simdjson::dom::parser parser;  /* reused: its buffers are allocated by the first parse */
    int k = (int)docs.size(), rounds = CALLS / k; double best = 1e9;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        for (int i = 0; i < rounds; i++)
            for (int j = 0; j < k; j++) ok &= parser.parse(docs[j]).error() == simdjson::SUCCESS;
        t = (now() - t) / ((double)rounds * k); if (t < best) best = t;
    }
    std::printf("%d %.12f\n", ok, best);
    return 0;
}
"""
SHORT_CALLS = 1_000_000  # calls per run of the short documents' harnesses

# Both contenders in one process, timed in turn: a round is one pass of each (their order swapped
# every round), and its ratio is simdjson's time over ours.  On a shared machine whose speed swings
# within seconds, the median of these ratios moved far less between runs than the ratio of two
# processes' best times did.  Rounds stop at PAIRS or after PAIRED_SECONDS of CPU, but not before 21.
PAIRED_HARNESS = r"""
#include <simdjson.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>
#include "json_validator.h"
static double now() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end()); return v[(size_t)(q * (double)(v.size() - 1) + 0.5)];
}
int main(int argc, char **argv) {
    /* argv[1]: a document, or with argv[2] "short" many, each its length (4 bytes, little-endian) then itself */
    std::vector<unsigned char> file; bool many = argc > 2;
    FILE *f = std::fopen(argv[1], "rb"); int c; while ((c = std::fgetc(f)) != EOF) file.push_back((unsigned char)c);
    std::fclose(f);
    std::vector<std::vector<unsigned char>> docs; std::vector<simdjson::padded_string> padded;
    for (size_t at = 0; at < file.size();) {
        unsigned len = (unsigned)file.size();
        if (many) { std::memcpy(&len, &file[at], 4); at += 4; }
        docs.emplace_back(file.begin() + (long)at, file.begin() + (long)(at + len));
        padded.emplace_back((const char *)file.data() + at, len); at += len;
    }
    simdjson::dom::parser parser;
    int ok = 1, k = (int)docs.size(), reps = many ? SHORT_CALLS / k : 1;
    auto ours = [&] { for (int i = 0; i < reps; i++) for (int j = 0; j < k; j++)
        ok &= json_validator_is_valid(docs[j].data(), docs[j].size()); };
    auto theirs = [&] { for (int i = 0; i < reps; i++) for (int j = 0; j < k; j++)
        ok &= parser.parse(padded[j]).error() == simdjson::SUCCESS; };
    for (double start = now(); now() - start < WARM;) { ours(); theirs(); }
    std::vector<double> a, b, ratio;
    for (double start = now(); (int)ratio.size() < PAIRS && (now() - start < PAIRED_SECONDS || ratio.size() < 21);) {
        bool ours_first = ratio.size() % 2 != 0;
        double t0 = now();
        if (ours_first) ours(); else theirs();
        double t1 = now();
        if (ours_first) theirs(); else ours();
        double t2 = now();
        a.push_back(ours_first ? t1 - t0 : t2 - t1);
        b.push_back(ours_first ? t2 - t1 : t1 - t0);
        ratio.push_back(b.back() / a.back());
    }
    double calls = (double)reps * k;
    std::printf("%d %.12f %.12f %.4f %.4f %.4f %zu\n", ok, quantile(a, 0.5) / calls, quantile(b, 0.5) / calls,
                quantile(ratio, 0.25), quantile(ratio, 0.5), quantile(ratio, 0.75), ratio.size());
    return 0;
}
"""
PAIRS = 201
PAIRED_SECONDS = 4.0

# --stages: each stage timed alone, ours and simdjson's, in one process called in turn.  Our
# stage 1 runs over the whole document first (every chunk's output kept), then stage 2 over those
# outputs, so stage 2 reads the document from the L2 cache rather than chunk by chunk from L1 as
# is_valid does; simdjson's stage 1 is an on-demand parser's iterate (which runs only stage 1:
# structural indexes and UTF-8), and its stage 2 the DOM parse's time less that.  It includes the
# generated C file for its stage functions, which are internal: a change of their names breaks it.
STAGES_OURS = r"""
#include "json_validator.c"
#include <stdlib.h>
#include <time.h>
SIZES
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9;
}
typedef uint64_t chunk_stops[(SPLIT_SKIPS + 1u) * SPLIT_STRIDE];
typedef uint64_t chunk_visits[SPLIT_CHUNK / 64u];
/* Both stages over data[0..n) apart: their times, the positions stage 2 visits, and the verdict. */
int split_stages(const unsigned char *data, size_t n, double *stage1, double *stage2, size_t *positions) {
    static chunk_stops *stops; static chunk_visits *visits; static size_t capacity;
    size_t chunks = (n + SPLIT_CHUNK - 1u) / SPLIT_CHUNK, c, w;
    json_validator_stage1_fn_ stage1_fn = json_validator_pick_stage1_();
    json_validator_carry_ carry; json_validator_stream s; double t0, t1, t2;
    if (chunks > capacity) {
        stops = realloc(stops, chunks * sizeof *stops); visits = realloc(visits, chunks * sizeof *visits);
        capacity = chunks;
    }
    memset(&carry, 0, sizeof carry);
    t0 = now();
    for (c = 0; c < chunks; c++) {
        size_t at = c * SPLIT_CHUNK, len = n - at < SPLIT_CHUNK ? n - at : SPLIT_CHUNK;
        memset(stops[c], 0xFF, SPLIT_STRIDE * sizeof stops[c][0]);
        stage1_fn(data + at, len, stops[c] + SPLIT_STRIDE, visits[c], &carry);
    }
    t1 = now();
    json_validator_stream_init_depth(&s, JSON_VALIDATOR_MAX_DEPTH);
    for (c = 0; c < chunks && s.status == JSON_VALIDATOR_VALID; c++) {
        size_t at = c * SPLIT_CHUNK, len = n - at < SPLIT_CHUNK ? n - at : SPLIT_CHUNK;
        json_validator_stage2_(&s, data + at, len, stops[c], visits[c]);
        s.offset = at + len;
    }
    t2 = now();
    *stage1 = t1 - t0; *stage2 = t2 - t1; *positions = 0;
    for (c = 0; c < chunks; c++)
        for (w = 0; w < SPLIT_CHUNK / 64u; w++)
            *positions += (size_t)__builtin_popcountll(visits[c][w]);
    s.offset = n;
    {
        int ok = json_validator_stream_result(&s, NULL) == JSON_VALIDATOR_VALID && carry.utf8_error == 0;
        json_validator_stream_free(&s);
        return ok;
    }
}
"""

STAGES_HARNESS = r"""
#include <simdjson.h>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>
extern "C" int split_stages(const unsigned char *data, size_t n, double *stage1, double *stage2, size_t *positions);
static double now() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char **argv) {
    simdjson::padded_string doc = simdjson::padded_string::load(argv[1]);
    const unsigned char *data = (const unsigned char *)doc.data();
    if (argc > 2) {  /* a kernel by name, e.g. haswell: simdjson's AVX2 one */
        auto kernel = simdjson::get_available_implementations()[argv[2]];
        if (kernel == nullptr || !kernel->supported_by_runtime_system()) return 3;
        simdjson::get_active_implementation() = kernel;
    }
    simdjson::dom::parser dom; simdjson::ondemand::parser ondemand;
    std::vector<double> s1, s2, iterate, parse; size_t positions = 0; int ok = 1;
    double start = now();
    while ((int)s1.size() < PAIRS && (now() - start < WARM + PAIRED_SECONDS || s1.size() < 21)) {
        double a, b, t0, t1, t2;
        ok &= split_stages(data, doc.size(), &a, &b, &positions);
        t0 = now(); auto it = ondemand.iterate(doc); ok &= it.error() == simdjson::SUCCESS;
        t1 = now(); ok &= dom.parse(doc).error() == simdjson::SUCCESS; t2 = now();
        if (t2 - start < WARM) continue;
        s1.push_back(a); s2.push_back(b); iterate.push_back(t1 - t0); parse.push_back(t2 - t1);
    }
    std::printf("%d %zu %.9f %.9f %.9f %.9f\n", ok, positions, median(s1), median(s2), median(iterate), median(parse));
    return 0;
}
"""

JAPANESE = "東京都の天気は晴れ時々曇り、明日は雨が降るでしょう。今日もよろしくお願いします"
LATIN = "The quick brown fox jumps over the lazy dog; café, naïve, résumé"


def tweets(size: int, seed: int = 2) -> bytes:
    """Compact tweets: ids, texts (half Japanese), a nested user, entities with URLs."""
    rng = random.Random(seed)
    statuses, total = [], 0
    while total < size:
        text = "".join(rng.choice([JAPANESE, LATIN]) for _ in range(rng.randrange(1, 3)))[:rng.randrange(20, 140)]
        tweet = {"metadata": {"result_type": "recent", "iso_language_code": rng.choice(["ja", "en"])},
                 "created_at": "Sun Aug 31 00:29:15 +0000 2014", "id": rng.randrange(10**17, 10**18),
                 "id_str": str(rng.randrange(10**17, 10**18)), "text": text,
                 "source": "<a href=\"https://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
                 "truncated": False, "in_reply_to_status_id": None,
                 "user": {"id": rng.randrange(10**9), "name": text[:8], "screen_name": f"user{rng.randrange(10**6)}",
                          "location": rng.choice(["東京", "", "Paris"]), "description": text[::-1][:60],
                          "url": None, "followers_count": rng.randrange(10**5), "verified": rng.random() < 0.1,
                          "profile_image_url": f"http://pbs.twimg.com/profile_images/{rng.randrange(10**9)}/a.jpeg"},
                 "entities": {"hashtags": [], "urls": [{"url": f"http://t.co/{rng.randrange(10**6):06d}",
                                                         "indices": [rng.randrange(100), rng.randrange(100, 140)]}],
                              "user_mentions": []},
                 "retweet_count": rng.randrange(1000), "favorited": False, "lang": "ja"}
        piece = json.dumps(tweet, ensure_ascii=rng.random() < 0.3, separators=(",", ":")).replace("/", "\\/")
        statuses.append(piece)
        total += len(piece.encode()) + 1
    return ('{"statuses":[' + ",".join(statuses) + '],"search_metadata":{"count":100}}').encode()


def catalogue(size: int, seed: int = 3) -> bytes:
    """An indented catalogue: events keyed by id, performances with prices, mostly integers."""
    rng = random.Random(seed)
    events, performances, total = {}, [], 0
    while total < size:
        event_id = rng.randrange(10**8, 10**9)
        events[str(event_id)] = {"description": None, "id": event_id, "logo": None,
                                 "name": rng.choice(["Orchestre de Paris", "Quatuor Ébène", "Récital piano"]),
                                 "subTopicIds": [rng.randrange(10**8, 10**9) for _ in range(rng.randrange(1, 5))],
                                 "subjectCode": None, "subtitle": None, "topicIds": [rng.randrange(10**8, 10**9)]}
        performances.append({"eventId": event_id, "id": rng.randrange(10**8, 10**9), "logo": None, "name": None,
                             "prices": [{"amount": rng.randrange(10**4, 10**5), "audienceSubCategoryId": 337100890,
                                         "seatCategoryId": rng.randrange(10**8, 10**9)} for _ in range(3)],
                             "seatCategories": [{"areas": [{"areaId": rng.randrange(10**8, 10**9), "blockIds": []}],
                                                 "seatCategoryId": rng.randrange(10**8, 10**9)}],
                             "seatMapImage": None, "start": rng.randrange(10**12, 10**13),
                             "venueCode": "PLEYEL_PLEYEL"})
        total += 900
    return json.dumps({"events": events, "performances": performances}, indent=4, ensure_ascii=False).encode()


def polygons(size: int, seed: int = 4) -> bytes:
    """GeoJSON polygons: long arrays of decimal coordinate pairs, one pair a line."""
    rng = random.Random(seed)
    features, total = [], 0
    while total < size:
        ring = [(round(rng.uniform(-141, -52), 15), round(rng.uniform(41, 83), 15))
                for _ in range(rng.randrange(50, 500))]
        text = ",\n".join(f"[{x!r},{y!r}]" for x, y in ring)
        features.append('{"type":"Feature","properties":{"name":"Canada"},"geometry":{"type":"Polygon",'
                        '"coordinates":[[' + text + "]]}}")
        total += len(text)
    return ('{"type":"FeatureCollection","features":[' + ",\n".join(features) + "]}").encode()


def short_documents(low: int, high: int, count: int = 200) -> list[bytes]:
    """Distinct compact documents of low to high - 1 bytes: the values, objects and arrays found
    inside generated tweets, and each member of a tweet alone in an object."""
    found: list[bytes] = []
    seen: set[bytes] = set()

    def add(value: object) -> None:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
        if low <= len(text) < high and text not in seen and len(found) < count:
            seen.add(text)
            found.append(text)

    def keep(value: object) -> None:
        add(value)
        if isinstance(value, dict):
            for key, member in value.items():
                add({key: member})
                keep(member)
        elif isinstance(value, list):
            for item in value:
                keep(item)

    keep(json.loads(tweets(1 << 20)))
    return found


SHORT = {"short documents, 8-23 bytes": (8, 24), "short documents, 24-47 bytes": (24, 48),
         "short documents, 48-63 bytes": (48, 64), "short documents, 64-127 bytes": (64, 128),
         "documents of 128-255 bytes": (128, 256), "documents of 256-511 bytes": (256, 512),
         "documents of 512-1023 bytes": (512, 1024)}
EXAMPLES = ("twitter.json", "citm_catalog.json", "canada.json")
DOCUMENTS = {
    "bench_json records, 1 MiB": lambda: document(1 << 20),
    "bench_json records, 16 MiB": lambda: document(16 << 20),
    "bench_json records, 50 MiB": lambda: document(50 << 20),
    "tweets (twitter.json-like)": lambda: tweets(2 << 20),
    "catalogue (citm_catalog-like)": lambda: catalogue(2 << 20),
    "polygons (canada-like)": lambda: polygons(2 << 20),
}


def _compile_validator(folder: Path) -> None:
    """json_validator.c and .h from grammars/json.abnf, into folder."""
    subprocess.run([sys.executable, "-m", "abnfc", "compile", str(ROOT / "grammars" / "json.abnf"), "--lang", "c",
                    "--prefix", "json_validator", "--out", str(folder)], check=True, capture_output=True)


def _have_simdjson() -> bool:
    return Path("/usr/include/simdjson.h").exists() and shutil.which("c++") is not None


def _build(folder: Path) -> dict[str, Path]:
    _compile_validator(folder)
    (folder / "harness.c").write_text(C_HARNESS.replace("RUNS", str(RUNS)).replace("WARM", str(WARM)))
    binaries = {}
    for name, flags in (("is_valid", []), ("two stages", ["-DJSON_VALIDATOR_NO_BIGRAMS"]),
                        ("byte loop", ["-DJSON_VALIDATOR_TWO_STAGE=0"])):
        binary = folder / name.replace(" ", "_")
        subprocess.run(["cc", "-O3", "-march=native", *flags, "-o", str(binary), str(folder / "harness.c"),
                        str(folder / "json_validator.c")], check=True, cwd=folder)
        binaries[name] = binary
        short = folder / f"{binary.name}_short"
        (folder / "short.c").write_text(C_SHORT_HARNESS.replace("RUNS", str(RUNS)).replace("CALLS", str(SHORT_CALLS)))
        subprocess.run(["cc", "-O3", "-march=native", *flags, "-o", str(short), str(folder / "short.c"),
                        str(folder / "json_validator.c")], check=True, cwd=folder)
    if _have_simdjson():
        (folder / "simdjson.cpp").write_text(SIMDJSON_HARNESS.replace("RUNS", str(RUNS)).replace("WARM", str(WARM)))
        binary = folder / "simdjson"
        subprocess.run(["c++", "-O3", "-march=native", "-o", str(binary), str(folder / "simdjson.cpp"), "-lsimdjson"],
                       check=True, cwd=folder)
        binaries["simdjson DOM parse"] = binary
        (folder / "simdjson_short.cpp").write_text(SIMDJSON_SHORT_HARNESS.replace("RUNS", str(RUNS))
                                                   .replace("CALLS", str(SHORT_CALLS)))
        subprocess.run(["c++", "-O3", "-march=native", "-o", str(folder / "simdjson_short"),
                        str(folder / "simdjson_short.cpp"), "-lsimdjson"], check=True, cwd=folder)
        (folder / "paired.cpp").write_text(PAIRED_HARNESS.replace("PAIRED_SECONDS", str(PAIRED_SECONDS))
                                           .replace("PAIRS", str(PAIRS)).replace("SHORT_CALLS", str(SHORT_CALLS // 10))
                                           .replace("WARM", str(WARM)))
        subprocess.run(["cc", "-O3", "-march=native", "-c", "-o", str(folder / "json_validator.o"),
                        str(folder / "json_validator.c")], check=True, cwd=folder)
        subprocess.run(["c++", "-O3", "-march=native", "-o", str(folder / "paired"), str(folder / "paired.cpp"),
                        str(folder / "json_validator.o"), "-lsimdjson"], check=True, cwd=folder)
    else:
        print("simdjson.h not found (apt-get install libsimdjson-dev): simdjson skipped")
    return binaries


def _chunk_sizes(source: Path) -> str:
    """The generated file's chunk, row stride and skip-class count, as SPLIT_* macros (it undefines its own)."""
    text = source.read_text()
    lines = []
    for ours, theirs in (("CHUNK", "CHUNK_"), ("STRIDE", "STRIDE_"), ("SKIPS", "SKIPS_")):
        value = re.search(rf"^#define JSON_VALIDATOR_{theirs} (.*?)\s*(?:/\*.*)?$", text, re.MULTILINE)
        assert value is not None, f"{source} defines no JSON_VALIDATOR_{theirs}"
        lines.append(f"#define SPLIT_{ours} {value.group(1).strip().replace('JSON_VALIDATOR_CHUNK_', 'SPLIT_CHUNK')}")
    return "\n".join(lines)


def _build_stages(folder: Path, avx2: bool) -> Path:
    """The --stages harness: our stages apart (STAGES_OURS, C) and simdjson's (C++), in one binary;
    with avx2, our stage 1 without its AVX-512 copy."""
    (folder / "split.c").write_text(STAGES_OURS.replace("SIZES", _chunk_sizes(folder / "json_validator.c")))
    (folder / "stages.cpp").write_text(STAGES_HARNESS.replace("PAIRED_SECONDS", str(PAIRED_SECONDS))
                                       .replace("PAIRS", str(PAIRS)).replace("WARM", str(WARM)))
    flags = ["-DJSON_VALIDATOR_NO_AVX512"] if avx2 else []
    subprocess.run(["cc", "-O3", "-march=native", *flags, "-c", "-o", str(folder / "split.o"),
                    str(folder / "split.c")], check=True, cwd=folder)
    binary = folder / "stages"
    subprocess.run(["c++", "-O3", "-march=native", "-o", str(binary), str(folder / "stages.cpp"),
                    str(folder / "split.o"), "-lsimdjson"], check=True, cwd=folder)
    return binary


def _stage_rows(folder: Path, examples: Path | None, avx2: bool) -> None:
    """Per document, each stage's time, ours and simdjson's, from one process calling them in turn."""
    binary = _build_stages(folder, avx2)
    kernel = ["haswell"] if avx2 else []
    print(f"each stage alone: the median of at most {PAIRS} rounds ({PAIRED_SECONDS:.0f} s) of one call of each, "
          "µs; simdjson's stage 1 is its on-demand iterate, its stage 2 the DOM parse less that"
          + ("; AVX2 only: our stage 1 built without AVX-512, simdjson's haswell kernel" if avx2 else "") + "\n")
    print("| document | positions | our stage 1 | simdjson's stage 1 | our stage 2 | simdjson's stage 2 "
          "| our ns a position | stage 1 vs simdjson | stage 2 vs simdjson |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, make in _documents(examples).items():
        path = folder / "doc.json"
        path.write_bytes(make())
        ok, positions, ours1, ours2, iterate, parse = subprocess.run(
            [str(binary), str(path), *kernel], check=True, capture_output=True, text=True).stdout.split()
        assert ok == "1", label
        ours1, ours2, theirs1 = float(ours1), float(ours2), float(iterate)
        theirs2 = float(parse) - theirs1
        print(f"| {label} | {int(positions):,} | {ours1 * 1e6:,.0f} | {theirs1 * 1e6:,.0f} | {ours2 * 1e6:,.0f} "
              f"| {theirs2 * 1e6:,.0f} | {ours2 * 1e9 / int(positions):.2f} | {theirs1 / ours1:.2f}x "
              f"| {theirs2 / ours2:.2f}x |")


def _seconds(binary: Path, path: Path) -> float:
    ok, seconds = subprocess.run([str(binary), str(path)], check=True, capture_output=True, text=True).stdout.split()
    assert ok == "1", (binary, path)
    return float(seconds)


def _documents(examples: Path | None) -> dict:
    found = {}
    if examples is not None:
        for name in EXAMPLES:
            found[name] = (examples / name).read_bytes
    return {**found, **DOCUMENTS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=Path, help="a folder with twitter.json, citm_catalog.json, canada.json")
    parser.add_argument("--short-only", action="store_true", help="only the short documents")
    parser.add_argument("--stages", action="store_true",
                        help="only each stage's time apart, ours and simdjson's (needs libsimdjson-dev)")
    parser.add_argument("--avx2", action="store_true",
                        help="with --stages: both without AVX-512 (our AVX2 stage 1, simdjson's haswell kernel)")
    arguments = parser.parse_args()
    examples = arguments.examples
    folder = Path(tempfile.mkdtemp(prefix="abnfc-bench-stages-"))
    if arguments.stages:
        if not _have_simdjson():
            shutil.rmtree(folder)
            sys.exit("--stages compares with simdjson, whose header was not found (apt-get install libsimdjson-dev)")
        _compile_validator(folder)
        _stage_rows(folder, examples, arguments.avx2)
        shutil.rmtree(folder)
        return
    binaries = _build(folder)
    kernel = ""
    if "simdjson DOM parse" in binaries:
        (folder / "doc.json").write_bytes(b"[]")
        kernel = subprocess.run([str(binaries["simdjson DOM parse"]), str(folder / "doc.json")], check=True,
                                capture_output=True, text=True).stderr.strip()
        kernel = f"; simdjson's kernel: {kernel}"
    print(f"median CPU time of {RUNS} runs, fastest of {ROUNDS} processes, MB/s; ratios are is_valid's speed / "
          f"the peer's{kernel}\n")
    peers = [name for name in binaries if name != "is_valid"]
    paired = folder / "paired" if (folder / "paired").exists() else None
    if paired is not None:
        print(f"paired: both in one process, called in turn, at most {PAIRS} rounds or {PAIRED_SECONDS:.0f} s; "
              "the median of the rounds' ratios of simdjson's time to ours [first and third quartiles]\n")
    extra = ["simdjson, paired"] if paired is not None else []
    print("| document | bytes | " + " | ".join(binaries) + " | " + " | ".join(f"vs {p}" for p in peers + extra)
          + " |")
    print("|---|---:|" + "---:|" * (len(binaries) + len(peers) + len(extra)))
    for label, make in ({} if arguments.short_only else _documents(examples)).items():
        data = make()
        json.loads(data)
        path = folder / "doc.json"
        path.write_bytes(data)
        times = dict.fromkeys(binaries, float("inf"))
        for _ in range(ROUNDS):  # the contenders in turn, so that a busy spell slows each alike
            for name, binary in binaries.items():
                times[name] = min(times[name], _seconds(binary, path))
        speeds = " | ".join(f"{len(data) / t / 1e6:,.0f}" for t in times.values())
        ratios = " | ".join(f"{times[p] / times['is_valid']:.2f}x" for p in peers)
        if paired is not None:
            ratios += " | " + _paired([str(paired), str(path)])
        print(f"| {label} | {len(data):,} | {speeds} | {ratios} |")
    _short_rows(binaries, folder, peers, paired)
    shutil.rmtree(folder)


def _paired(command: list[str]) -> str:
    """The paired harness's median ratio of simdjson's time to ours, with its quartiles."""
    ok, _ours, _theirs, low, median, high, _rounds = subprocess.run(
        command, check=True, capture_output=True, text=True).stdout.split()
    assert ok == "1", command
    return f"{float(median):.2f}x [{float(low):.2f}, {float(high):.2f}]"


def _short_rows(binaries: dict[str, Path], folder: Path, peers: list[str], paired: Path | None) -> None:
    """ns a call on many distinct short documents, each harness the fastest of ROUNDS processes."""
    print(f"\nshort documents: ns a call, the least mean of {RUNS} runs of {SHORT_CALLS:,} calls over the "
          f"documents in turn, fastest of {ROUNDS} processes; simdjson's parser reused\n")
    extra = ["simdjson, paired"] if paired is not None else []
    print("| documents | count | mean bytes | " + " | ".join(binaries) + " | "
          + " | ".join(f"vs {p}" for p in peers + extra) + " |")
    print("|---|---:|---:|" + "---:|" * (len(binaries) + len(peers) + len(extra)))
    for label, (low, high) in SHORT.items():
        docs = short_documents(low, high)
        path = folder / "short.bin"
        path.write_bytes(b"".join(len(d).to_bytes(4, "little") + d for d in docs))
        times = dict.fromkeys(binaries, float("inf"))
        for _ in range(ROUNDS):
            for name, binary in binaries.items():
                times[name] = min(times[name], _seconds(binary.with_name(f"{binary.name}_short"), path))
        speeds = " | ".join(f"{t * 1e9:.1f}" for t in times.values())
        ratios = " | ".join(f"{times[p] / times['is_valid']:.2f}x" for p in peers)
        if paired is not None:
            ratios += " | " + _paired([str(paired), str(path), "short"])
        mean = sum(map(len, docs)) / len(docs)
        print(f"| {label} | {len(docs)} | {mean:.0f} | {speeds} | {ratios} |")


if __name__ == "__main__":
    main()
