/*
 * Every string of 1 to LONGEST bytes over an alphabet, after each of some prefixes, through
 * P_is_valid (the window test, with P_WINDOW_TEST_MIN=1 on the command line) against
 * P_first_error (the DFA loop): a string is valid exactly when first_error finds no error.  Each
 * (prefix, length) has a buffer of exactly its size, the string at its end, so a sanitizer build
 * sees any read past it; the prefixes put the string's windows across block boundaries.
 *
 * Arguments: the alphabet file (its bytes), the prefixes file (records of a 4-byte
 * little-endian length and the bytes, as check_records.c reads), LONGEST.  Prints the number of
 * strings checked; mismatches go to stderr and the exit status is 1.
 * Build with -DPFX=<prefix> -DMPFX=<PREFIX> -DHEADER='"<prefix>.h"'.
 */
#include HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *in = fopen(path, "rb");
    unsigned char *data;
    long length;
    if (!in || fseek(in, 0, SEEK_END) != 0 || (length = ftell(in)) < 0 || fseek(in, 0, SEEK_SET) != 0)
        exit(2);
    data = malloc((size_t)length + 1);
    if (!data || fread(data, 1, (size_t)length, in) != (size_t)length)
        exit(2);
    fclose(in);
    *size = (size_t)length;
    return data;
}

int main(int argc, char **argv)
{
    size_t alphabet_size, prefixes_size, at, count = 0;
    unsigned char *alphabet, *prefixes;
    int longest, failures = 0;
    if (argc != 4)
        return 2;
    alphabet = slurp(argv[1], &alphabet_size);
    prefixes = slurp(argv[2], &prefixes_size);
    longest = atoi(argv[3]);
    for (at = 0; at + 4 <= prefixes_size;) {
        size_t prefix = (size_t)prefixes[at] | (size_t)prefixes[at + 1] << 8 | (size_t)prefixes[at + 2] << 16
                        | (size_t)prefixes[at + 3] << 24;
        const unsigned char *prefix_bytes = prefixes + at + 4;
        int length;
        at += 4 + prefix;
        for (length = 1; length <= longest; length++) {
            size_t digits[8] = { 0 }, size = prefix + (size_t)length;
            unsigned char *buffer = malloc(size);
            int d;
            if (!buffer)
                return 2;
            memcpy(buffer, prefix_bytes, prefix);
            for (;;) {
                bool valid, expected;
                for (d = 0; d < length; d++)
                    buffer[prefix + (size_t)d] = alphabet[digits[d]];
                valid = API(_is_valid)(buffer, size);
                expected = API(_first_error)(buffer, size) == SIZE_MAX;
                if (valid != expected && failures++ < 20) {
                    fprintf(stderr, "FAIL prefix of %zu bytes, string", prefix);
                    for (d = 0; d < length; d++)
                        fprintf(stderr, " %02X", buffer[prefix + (size_t)d]);
                    fprintf(stderr, ": is_valid %d, first_error says %d\n", valid, expected);
                }
                count++;
                for (d = length - 1; d >= 0 && ++digits[d] == alphabet_size; d--)
                    digits[d] = 0;
                if (d < 0)
                    break;
            }
            free(buffer);
        }
    }
    printf("%zu\n", count);
    free(alphabet);
    free(prefixes);
    return failures != 0;
}
