/*
 * Drives a generated validator over records read from a file (each a 4-byte little-endian length
 * and that many bytes) and prints, for each record, the first-error offset ("-" when all of it
 * matches).  On the way it checks that every entry point agrees with P_first_error on the record:
 *
 *   - P_is_valid, and both on copies at odd addresses (data + 1, data + 3) in buffers of exactly
 *     the right size, so a sanitizer build sees any read past the end;
 *   - the stream API fed whole, byte by byte, in two pieces split at every position, in three
 *     pieces at several positions, with empty feeds (data NULL) in between, and fed more after
 *     no match can continue; P_stream_feed's result at each step; P_stream_complete;
 *   - the accessors: P_stream_offset counts what was fed, P_stream_state is a state number,
 *     P_stream_expected gives at most MAX_RANGES sorted, disjoint ranges, those of P_expected
 *     for the stream's state (complete or not: a complete input may also go on);
 *   - a char buffer is accepted as it is (the API takes const void *).
 *
 * This is the one C harness of the tests (the sanitizer and strict builds use it); the agreement
 * tests call the generated C in process through the C backend's runner.  Any disagreement prints
 * "FAIL ..." to stderr and the exit status is 1.
 * Build with -DPFX=<prefix> -DMPFX=<PREFIX> -DHEADER='"<prefix>.h"'.
 */
#include HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)
#define MACRO(name) CAT(MPFX, name)

typedef API(_stream) stream_t;

static int failures;
static unsigned long record_no;

static void fail(const char *what, size_t got, size_t want)
{
    if (failures < 50)
        fprintf(stderr, "FAIL record %lu: %s: got %zu, want %zu\n", record_no, what, got, want);
    failures++;
}

static void expect(const char *what, size_t got, size_t want)
{
    if (got != want)
        fail(what, got, want);
}

/* After `fed` bytes, a match can still continue unless a byte before `fed` was fatal. */
static int alive_after(size_t fe, size_t len, size_t fed)
{
    return !(fe < len && fe < fed);
}

/* Feed `len` bytes, as NULL when empty; check the result against the whole-buffer verdict. */
static void feed(stream_t *s, const uint8_t *piece, size_t len, size_t *fed, size_t fe, size_t total,
                 const char *what)
{
    int alive = API(_stream_feed)(s, len ? piece : NULL, len);
    *fed += len;
    expect(what, (size_t)alive, (size_t)alive_after(fe, total, *fed));
}

static void check_accessors(const stream_t *s, size_t fed)
{
    API(_range) ranges[MACRO(_MAX_RANGES)], direct[MACRO(_MAX_RANGES)];
    size_t count = API(_stream_expected)(s, ranges, MACRO(_MAX_RANGES)), k;
    expect("stream_offset", API(_stream_offset)(s), fed);
    if (API(_stream_state)(s) >= MACRO(_NUM_STATES))
        fail("stream_state out of range", API(_stream_state)(s), MACRO(_NUM_STATES));
    if (count > MACRO(_MAX_RANGES))
        fail("stream_expected count above MAX_RANGES", count, MACRO(_MAX_RANGES));
    expect("stream_expected as expected of the state", count,
           API(_expected)(API(_stream_state)(s), direct, MACRO(_MAX_RANGES)));
    for (k = 0; k < count && k < MACRO(_MAX_RANGES); k++) {
        if (ranges[k].lo > ranges[k].hi || (k > 0 && ranges[k].lo <= ranges[k - 1].hi + 1u))
            fail("stream_expected ranges not sorted and disjoint", k, count);
    }
}

static void check_pieces(const uint8_t *data, size_t len, size_t fe, const size_t *cuts, int ncuts)
{
    stream_t s;
    size_t fed = 0, from = 0;
    int k;
    API(_stream_init)(&s);
    for (k = 0; k <= ncuts; k++) {
        size_t to = k < ncuts ? cuts[k] : len;
        feed(&s, data + from, to - from, &fed, fe, len, "stream_feed result (pieces)");
        feed(&s, NULL, 0, &fed, fe, len, "stream_feed result (empty feed)");
        from = to;
    }
    expect("stream_finish (pieces)", API(_stream_finish)(&s), fe);
    expect("stream_complete (pieces)", (size_t)API(_stream_complete)(&s), (size_t)(fe == SIZE_MAX));
    check_accessors(&s, fed);
}

static void check(const uint8_t *data, size_t len)
{
    size_t fe = API(_first_error)(len ? data : NULL, len);
    int valid = API(_is_valid)(len ? data : NULL, len);
    size_t i, j, off;
    stream_t s;

    if (fe != SIZE_MAX && fe > len)
        fail("first_error beyond len", fe, len);
    expect("is_valid", (size_t)valid, (size_t)(fe == SIZE_MAX));

    for (off = 1; off <= 3; off += 2) { /* odd addresses, exact-size buffers */
        uint8_t *buffer = malloc(len + off);
        if (!buffer) { perror("malloc"); exit(2); }
        memcpy(buffer + off, data, len);
        expect("first_error (unaligned)", API(_first_error)(buffer + off, len), fe);
        expect("is_valid (unaligned)", (size_t)API(_is_valid)(buffer + off, len), (size_t)valid);
        free(buffer);
    }

    expect("first_error (char buffer)", API(_first_error)((const char *)data, len), fe);

    API(_stream_init)(&s); /* whole, then more after the end */
    expect("stream_finish (nothing fed)", API(_stream_finish)(&s),
           API(_first_error)(NULL, 0));
    {
        size_t fed = 0;
        feed(&s, data, len, &fed, fe, len, "stream_feed result (whole)");
        expect("stream_finish (whole)", API(_stream_finish)(&s), fe);
        if (fe < len) { /* no match can continue: later feeds change nothing */
            expect("stream_feed after error", (size_t)API(_stream_feed)(&s, data, len), 0);
            expect("stream_finish after error", API(_stream_finish)(&s), fe);
        }
    }

    API(_stream_init)(&s); /* byte by byte */
    {
        size_t fed = 0;
        for (i = 0; i < len; i++) {
            feed(&s, data + i, 1, &fed, fe, len, "stream_feed result (bytes)");
            check_accessors(&s, fed);
        }
        expect("stream_finish (bytes)", API(_stream_finish)(&s), fe);
    }

    for (i = 0; i <= len; i++) /* two pieces, every split */
        check_pieces(data, len, fe, &i, 1);

    { /* three pieces: every pair for short inputs, a spread of pairs for long ones */
        size_t step = len <= 24 ? 1 : len / 12;
        for (i = 0; i <= len; i += step) {
            size_t seconds[6] = { i, i + 1, i + 3, i + 64, (i + len) / 2, len };
            for (j = 0; j < (len <= 24 ? len + 1 : 6); j++) {
                size_t cuts[2];
                cuts[0] = i;
                cuts[1] = len <= 24 ? j : seconds[j];
                if (cuts[1] < i || cuts[1] > len)
                    continue;
                check_pieces(data, len, fe, cuts, 2);
            }
        }
    }

    if (fe == SIZE_MAX)
        puts("-");
    else
        printf("%zu\n", fe);
}

int main(int argc, char **argv)
{
    FILE *f;
    uint8_t head[4];
    if (argc != 2) {
        fprintf(stderr, "usage: %s RECORDS\n", argv[0]);
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    while (fread(head, 1, 4, f) == 4) {
        size_t len = (size_t)head[0] | (size_t)head[1] << 8 | (size_t)head[2] << 16 | (size_t)head[3] << 24;
        uint8_t *data = malloc(len ? len : 1);
        if (!data) { perror("malloc"); return 2; }
        if (fread(data, 1, len, f) != len) { fprintf(stderr, "short record\n"); return 2; }
        check(data, len);
        free(data);
        record_no++;
    }
    fclose(f);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
