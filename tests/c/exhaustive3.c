/*
 * Every byte string of length 0 to 3 through P_is_valid and P_first_error, against verdicts that
 * Python's bytes.decode computed (test_c.py writes them): one byte per string of length 1, 2 and
 * 3 (256 + 65536 + 16777216 bytes, first byte most significant), bit 0 set when the string is
 * valid, bit 1 when it is a viable prefix (the start of some valid string).
 *
 * The expected first error of s is the first k with s[0..k] not viable, else len(s) when s is not
 * valid, else SIZE_MAX.  Prints the number of strings checked; mismatches go to stderr, exit 1.
 * Build with -DPFX=<prefix> -DHEADER='"<prefix>.h"'.
 */
#include HEADER

#include <stdio.h>
#include <stdlib.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)

#define VALID 1u
#define VIABLE 2u

static uint8_t *map1, *map2, *map3;
static unsigned long checked, mismatches;

static unsigned verdict(const uint8_t *s, size_t len)
{
    switch (len) {
    case 0: return VALID | VIABLE;
    case 1: return map1[s[0]];
    case 2: return map2[(size_t)s[0] << 8 | s[1]];
    default: return map3[(size_t)s[0] << 16 | (size_t)s[1] << 8 | s[2]];
    }
}

static void check(const uint8_t *s, size_t len)
{
    size_t want = SIZE_MAX, k;
    size_t got = API(_first_error)(len ? s : NULL, len);
    int valid = API(_is_valid)(len ? s : NULL, len);
    for (k = 0; k < len; k++)
        if (!(verdict(s, k + 1) & VIABLE)) {
            want = k;
            break;
        }
    if (want == SIZE_MAX && !(verdict(s, len) & VALID))
        want = len;
    checked++;
    if (got != want || valid != (want == SIZE_MAX)) {
        if (mismatches++ < 20) {
            fprintf(stderr, "MISMATCH");
            for (k = 0; k < len; k++)
                fprintf(stderr, " %02X", s[k]);
            fprintf(stderr, ": first_error %zu (want %zu), is_valid %d\n", got, want, valid);
        }
    }
}

int main(int argc, char **argv)
{
    FILE *f;
    uint8_t s[3];
    unsigned a, b, c;
    if (argc != 2) {
        fprintf(stderr, "usage: %s VERDICTS\n", argv[0]);
        return 2;
    }
    map1 = malloc(256);
    map2 = malloc(1u << 16);
    map3 = malloc(1u << 24);
    f = fopen(argv[1], "rb");
    if (!f || !map1 || !map2 || !map3) { perror(argv[1]); return 2; }
    if (fread(map1, 1, 256, f) != 256 || fread(map2, 1, 1u << 16, f) != 1u << 16
        || fread(map3, 1, 1u << 24, f) != 1u << 24) {
        fprintf(stderr, "short verdict file\n");
        return 2;
    }
    fclose(f);

    check(s, 0);
    for (a = 0; a < 256; a++) {
        s[0] = (uint8_t)a;
        check(s, 1);
        for (b = 0; b < 256; b++) {
            s[1] = (uint8_t)b;
            check(s, 2);
            for (c = 0; c < 256; c++) {
                s[2] = (uint8_t)c;
                check(s, 3);
            }
        }
    }
    printf("%lu\n", checked);
    if (mismatches)
        fprintf(stderr, "%lu mismatches\n", mismatches);
    return mismatches ? 1 : 0;
}
