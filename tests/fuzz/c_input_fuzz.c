/*
 * Input fuzzer for a generated C validator.  Every input goes through P_first_error, P_is_valid
 * and the stream API fed in pieces cut at points drawn from the input itself, and each answer is
 * compared with a reference: a plain class-map and transition-table walk of the same minimal
 * DFA, written by the test from the automaton abnfc's Python side computed (reference.h).  The
 * accessors are checked too (offset, state range, expected ranges sorted and disjoint).  Any
 * disagreement aborts, so libFuzzer keeps the input; built with ASan and UBSan, a read out of
 * bounds or undefined behaviour aborts as well.
 *
 * With -DSTANDALONE it is a driver instead: it replays records (a 4-byte little-endian length,
 * then the bytes) from the files named on the command line, for compilers without libFuzzer.
 * Build with -DPFX=<prefix> -DMPFX=<PREFIX> -DHEADER='"<prefix>.h"' and reference.h beside it.
 */
#include HEADER
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)
#define MACRO(name) CAT(MPFX, name)

static void fail(const char *what, size_t got, size_t want)
{
    fprintf(stderr, "FAIL %s: got %zu, want %zu\n", what, got, want);
    abort();
}

static size_t reference_first_error(const uint8_t *data, size_t len)
{
    unsigned state = REF_START;
    size_t i;
    for (i = 0; i < len; i++) {
        state = ref_next[state][ref_class[data[i]]];
        if (state == REF_DEAD)
            return i;
    }
    return ref_accepting[state] ? SIZE_MAX : len;
}

static void check_accessors(const API(_stream) *s, size_t fed)
{
    API(_range) ranges[MACRO(_MAX_RANGES)];
    size_t count = API(_stream_expected)(s, ranges, MACRO(_MAX_RANGES)), k;
    if (API(_stream_offset)(s) != fed)
        fail("stream_offset", API(_stream_offset)(s), fed);
    if (API(_stream_state)(s) >= MACRO(_NUM_STATES))
        fail("stream_state", API(_stream_state)(s), MACRO(_NUM_STATES));
    if (count > MACRO(_MAX_RANGES))
        fail("stream_expected count", count, MACRO(_MAX_RANGES));
    for (k = 1; k < count; k++)
        if (ranges[k].lo <= ranges[k - 1].hi)
            fail("stream_expected order", k, count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t want = reference_first_error(data, size);
    size_t got = API(_first_error)(data, size);
    API(_stream) s;
    size_t at = 0, seed = size * 2654435761u;
    if (got != want)
        fail("first_error", got, want);
    if ((size_t)API(_is_valid)(data, size) != (size_t)(want == SIZE_MAX))
        fail("is_valid", (size_t)API(_is_valid)(data, size), want == SIZE_MAX);
    API(_stream_init)(&s);
    while (at < size) {  /* pieces of pseudo-random lengths, empty ones included */
        size_t piece;
        seed = seed * 6364136223846793005u + 1442695040888963407u + data[at];
        piece = (seed >> 33) % 97;
        if (piece > size - at)
            piece = size - at;
        API(_stream_feed)(&s, piece ? data + at : NULL, piece);
        at += piece;
        check_accessors(&s, at);
    }
    if (API(_stream_finish)(&s) != want)
        fail("stream_finish", API(_stream_finish)(&s), want);
    if ((size_t)API(_stream_complete)(&s) != (size_t)(want == SIZE_MAX))
        fail("stream_complete", (size_t)API(_stream_complete)(&s), want == SIZE_MAX);
    return 0;
}

#ifdef STANDALONE
int main(int argc, char **argv)
{
    unsigned long records = 0;
    int file;
    for (file = 1; file < argc; file++) {
        FILE *f = fopen(argv[file], "rb");
        uint8_t head[4];
        if (!f) { perror(argv[file]); return 2; }
        while (fread(head, 1, 4, f) == 4) {
            size_t len = (size_t)head[0] | (size_t)head[1] << 8 | (size_t)head[2] << 16 | (size_t)head[3] << 24;
            uint8_t *data = malloc(len ? len : 1);  /* exactly the size: the sanitizer sees overreads */
            if (!data || fread(data, 1, len, f) != len) { fprintf(stderr, "bad record\n"); return 2; }
            LLVMFuzzerTestOneInput(data, len);
            free(data);
            records++;
        }
        fclose(f);
    }
    printf("%lu\n", records);
    return 0;
}
#endif
