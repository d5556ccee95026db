/*
 * Every 4-byte string (2^32 of them; this process takes first bytes FIRST..LAST) through the
 * generated UTF-8 validator, against an oracle written from RFC 3629 section 3 alone:
 *
 *    Char. number range  |        UTF-8 octet sequence
 *    0000 0000-0000 007F | 0xxxxxxx
 *    0000 0080-0000 07FF | 110xxxxx 10xxxxxx
 *    0000 0800-0000 FFFF | 1110xxxx 10xxxxxx 10xxxxxx
 *    0001 0000-0010 FFFF | 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
 *
 * A character's number must be in the range of its row (longer forms are "overlong" and
 * invalid), must not be a surrogate (U+D800-DFFF), and no row goes above U+10FFFF.  A string is
 * valid when it is a sequence of such characters; its first error is the first byte after which
 * no continuation can make it valid (the oracle knows this from the range of numbers the open
 * character can still reach), or its length when it ends inside a character.
 *
 * The generated code runs through its stream API: the stream after the first three bytes is
 * copied for each of the 256 fourth bytes, so the loop costs about one step a string.  For one
 * (first three bytes) in 16, P_first_error and P_is_valid also run on the whole 4-byte buffer;
 * with -DEVERY_IS_VALID, P_is_valid runs on every 4-byte string (the window test of is_valid).
 * The generated source is included, not linked, so those calls inline.  Prints the number of
 * strings checked; mismatches go to stderr with exit status 1.
 * Build with -DPFX=utf8 -DSOURCE='"utf8.c"'.
 */
#include SOURCE

#include <stdio.h>
#include <stdlib.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)

typedef API(_stream) stream_t;

/* The oracle's state: continuation bytes still needed (-1: no continuation can be valid). */
typedef struct {
    int need;
    int length;   /* of the open character, in bytes */
    uint32_t cp;  /* its bits so far */
} rfc_state;

static const rfc_state RFC_START = { 0, 0, 0 };
static const uint32_t ROW_MIN[5] = { 0, 0x0000, 0x0080, 0x0800, 0x10000 };
static const uint32_t ROW_MAX[5] = { 0, 0x007F, 0x07FF, 0xFFFF, 0x10FFFF };

/* Can `need` more 6-bit groups turn cp into a number allowed for a character of `length` bytes? */
static int rfc_reachable(int length, uint32_t cp, int need)
{
    uint32_t lo = cp << (6 * need);
    uint32_t hi = lo | ((1u << (6 * need)) - 1u);
    if (lo < ROW_MIN[length])
        lo = ROW_MIN[length];
    if (hi > ROW_MAX[length])
        hi = ROW_MAX[length];
    if (lo > hi)
        return 0;
    return !(lo >= 0xD800 && hi <= 0xDFFF);
}

static rfc_state rfc_step(rfc_state s, uint8_t byte)
{
    static const rfc_state dead = { -1, 0, 0 };
    if (s.need < 0)
        return s;
    if (s.need == 0) { /* a new character: its first byte says how long it is */
        if ((byte & 0x80) == 0x00) { s.length = 1; s.cp = byte; }
        else if ((byte & 0xE0) == 0xC0) { s.length = 2; s.cp = byte & 0x1Fu; }
        else if ((byte & 0xF0) == 0xE0) { s.length = 3; s.cp = byte & 0x0Fu; }
        else if ((byte & 0xF8) == 0xF0) { s.length = 4; s.cp = byte & 0x07u; }
        else return dead;
        s.need = s.length - 1;
    } else { /* 10xxxxxx */
        if ((byte & 0xC0) != 0x80)
            return dead;
        s.cp = s.cp << 6 | (byte & 0x3Fu);
        s.need--;
    }
    return rfc_reachable(s.length, s.cp, s.need) ? s : dead;
}

/* First error of an n-byte string whose first n-1 bytes left the oracle alive and all n left `after`. */
static size_t rfc_verdict(rfc_state after, size_t n)
{
    if (after.need < 0)
        return n - 1;
    return after.need > 0 ? n : SIZE_MAX;
}

static unsigned long long checked, mismatches;

static void report(const uint8_t *s, size_t len, const char *what, size_t got, size_t want)
{
    size_t k;
    if (mismatches++ >= 20)
        return;
    fprintf(stderr, "MISMATCH");
    for (k = 0; k < len; k++)
        fprintf(stderr, " %02X", s[k]);
    fprintf(stderr, ": %s %zu, oracle %zu\n", what, got, want);
}

int main(int argc, char **argv)
{
    unsigned first, last, a, b, c, d;
    uint8_t s[4];
    if (argc != 3) {
        fprintf(stderr, "usage: %s FIRST LAST\n", argv[0]);
        return 2;
    }
    first = (unsigned)atoi(argv[1]);
    last = (unsigned)atoi(argv[2]);
    for (a = first; a <= last && a < 256; a++) {
        rfc_state ra = rfc_step(RFC_START, (uint8_t)a);
        s[0] = (uint8_t)a;
        for (b = 0; b < 256; b++) {
            rfc_state rb = rfc_step(ra, (uint8_t)b);
            s[1] = (uint8_t)b;
            for (c = 0; c < 256; c++) {
                rfc_state rc = rfc_step(rb, (uint8_t)c);
                size_t want3, want, got;
                stream_t s3;
                int sample = ((a + b + c) & 15) == 0;
#ifdef EVERY_IS_VALID
                int every = 1;
#else
                int every = 0;
#endif
                s[2] = (uint8_t)c;
                /* the oracle's first error of abc: where it died, or as after three bytes */
                want3 = ra.need < 0 ? 0 : rb.need < 0 ? 1 : rfc_verdict(rc, 3);
                API(_stream_init)(&s3);
                API(_stream_feed)(&s3, s, 3);
                got = API(_stream_finish)(&s3);
                if (got != want3)
                    report(s, 3, "stream_finish", got, want3);
                for (d = 0; d < 256; d++) {
                    stream_t s4 = s3;
                    uint8_t byte = (uint8_t)d;
                    want = want3 < 3 ? want3 : rfc_verdict(rfc_step(rc, byte), 4);
                    API(_stream_feed)(&s4, &byte, 1);
                    got = API(_stream_finish)(&s4);
                    if (got != want) {
                        s[3] = byte;
                        report(s, 4, "stream_finish", got, want);
                    }
                    if (sample) {
                        s[3] = byte;
                        got = API(_first_error)(s, 4);
                        if (got != want)
                            report(s, 4, "first_error", got, want);
                    }
                    if (sample || every) {
                        s[3] = byte;
                        if (API(_is_valid)(s, 4) != (want == SIZE_MAX))
                            report(s, 4, "is_valid", (size_t)API(_is_valid)(s, 4), want);
                    }
                }
                checked += 256;
            }
        }
    }
    printf("%llu\n", checked);
    if (mismatches)
        fprintf(stderr, "%llu mismatches\n", mismatches);
    return mismatches ? 1 : 0;
}
