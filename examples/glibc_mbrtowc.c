/* glibc's mbrtowc() in the C.UTF-8 locale, for `abnfc crosscheck`.
 *
 * Hex-lines protocol: one input per line in hex on standard input (spaces allowed), one verdict
 * per line (1 or 0) on standard output.  An input is valid when mbrtowc() converts all of it:
 * it never returns (size_t)-1 (an invalid sequence) and the input does not end inside a
 * character ((size_t)-2).  A NUL byte is a character of its own (mbrtowc() returns 0).
 *
 *     cc -O2 -o mbrtowc examples/glibc_mbrtowc.c
 *     abnfc crosscheck grammars/utf8.abnf --cmd ./mbrtowc
 */
#define _POSIX_C_SOURCE 200809L
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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

static int valid(const unsigned char *data, size_t size)
{
    mbstate_t state;
    size_t offset = 0;
    memset(&state, 0, sizeof state);
    while (offset < size) {
        wchar_t character;
        size_t used = mbrtowc(&character, (const char *)data + offset, size - offset, &state);
        if (used == (size_t)-1 || used == (size_t)-2) return 0;
        offset += used == 0 ? 1 : used;
    }
    return 1;
}

int main(void)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    if (!setlocale(LC_CTYPE, "C.UTF-8")) {
        fputs("glibc_mbrtowc: the C.UTF-8 locale is not available\n", stderr);
        return 2;
    }
    while ((length = getline(&line, &capacity, stdin)) != -1) {
        unsigned char *data = malloc((size_t)length / 2 + 1);
        long size;
        if (data == NULL) return 2;
        size = from_hex(line, data);
        if (size < 0) {
            fprintf(stderr, "glibc_mbrtowc: not hex: %s", line);
            return 2;
        }
        puts(valid(data, (size_t)size) ? "1" : "0");
        free(data);
    }
    free(line);
    return 0;
}
