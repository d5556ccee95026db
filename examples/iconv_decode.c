/* glibc's iconv(3) from UTF-8 to UTF-32LE, for `abnfc crosscheck` and `abnfc learn`.
 *
 * Hex-lines protocol: one input per line in hex on standard input (spaces allowed), one verdict
 * per line (1 or 0) on standard output.  An input is valid when iconv() converts all of it:
 * no EILSEQ (an invalid sequence) and no EINVAL (the input ends inside a character).
 *
 *     cc -O2 -o iconv_decode examples/iconv_decode.c
 *     abnfc learn grammars/utf8.abnf --cmd ./iconv_decode
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode the hex digits of line into out (at least half as long); -1 for a malformed line. */
static long from_hex(const char *line, unsigned char *out)
{
    long count = 0;
    int high = -1;
    for (; *line; line++) {
        int value = hex_value((unsigned char)*line);
        if (value < 0) {
            if (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\n') continue;
            return -1;
        }
        if (high < 0) {
            high = value;
        } else {
            out[count++] = (unsigned char)(high << 4 | value);
            high = -1;
        }
    }
    return high < 0 ? count : -1;
}

static iconv_t converter;

static int valid(const unsigned char *data, size_t size)
{
    char *in = (char *)data;
    size_t left = size;
    while (left > 0) {
        char buffer[4096];
        char *out = buffer;
        size_t room = sizeof buffer;
        if (iconv(converter, &in, &left, &out, &room) == (size_t)-1 && errno != E2BIG) {
            iconv(converter, NULL, NULL, NULL, NULL); /* back to the initial state for the next input */
            return 0;
        }
    }
    iconv(converter, NULL, NULL, NULL, NULL);
    return 1;
}

int main(void)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    converter = iconv_open("UTF-32LE", "UTF-8");
    if (converter == (iconv_t)-1) {
        perror("iconv_decode: iconv_open");
        return 2;
    }
    while ((length = getline(&line, &capacity, stdin)) != -1) {
        unsigned char *data = malloc((size_t)length / 2 + 1);
        long size;
        if (data == NULL) return 2;
        size = from_hex(line, data);
        if (size < 0) {
            fprintf(stderr, "iconv_decode: not hex: %s", line);
            return 2;
        }
        puts(valid(data, (size_t)size) ? "1" : "0");
        free(data);
    }
    free(line);
    return 0;
}
