/* The generated C validator (generated/utf8.c) for `abnfc crosscheck`, in the hex-lines
 * protocol: one input per line in hex on standard input, one verdict per line on standard output.
 *
 *     cc -O2 -I generated -o utf8_hexlines examples/utf8_hexlines.c generated/utf8.c
 *     abnfc crosscheck grammars/utf8.abnf --cmd ./utf8_hexlines
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "utf8.h"

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int main(void)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) != -1) {
        unsigned char *data = malloc((size_t)length / 2 + 1);
        size_t size = 0;
        int high = -1;
        ssize_t k;
        if (data == NULL) return 2;
        for (k = 0; k < length; k++) {
            int value = hex_value((unsigned char)line[k]);
            if (value < 0) continue; /* spaces and the newline */
            if (high < 0) {
                high = value;
            } else {
                data[size++] = (unsigned char)(high << 4 | value);
                high = -1;
            }
        }
        puts(utf8_is_valid(data, size) ? "1" : "0");
        free(data);
    }
    free(line);
    return 0;
}
