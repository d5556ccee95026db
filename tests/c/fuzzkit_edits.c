/* Runs the fuzz kit's mutator one edit at a time (mutator.c built with -DFUZZKIT_API).  Each line of
 * standard input is "EDIT SEED HEX" (an edit of fuzzkit_edit, '-' for the empty input) or
 * "splice SEED HEX HEX"; each line of output is the result in hex ('-': empty). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fuzzkit_edit(int edit, uint8_t *data, size_t size, size_t max_size, uint64_t *rng);
size_t fuzzkit_splice(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out,
                      size_t max_size, uint64_t *rng);

enum { ROOM = 4096 };

static size_t unhex(const char *text, uint8_t *out)
{
    size_t n = 0;
    if (strcmp(text, "-") == 0)
        return 0;
    for (; text[0] && text[1] && n < ROOM / 2; text += 2) {
        unsigned value;
        sscanf(text, "%2x", &value);
        out[n++] = (uint8_t)value;
    }
    return n;
}

static void print(const uint8_t *data, size_t size)
{
    size_t i;
    if (size == 0)
        fputs("-", stdout);
    for (i = 0; i < size; i++)
        printf("%02x", data[i]);
    putchar('\n');
}

int main(void)
{
    static char a_text[ROOM + 1], b_text[ROOM + 1], what[16];
    static uint8_t a[ROOM], b[ROOM];
    unsigned long long seed;
    while (scanf("%15s %llu %4096s", what, &seed, a_text) == 3) {
        uint64_t rng = seed;
        size_t a_size = unhex(a_text, a);
        if (strcmp(what, "splice") == 0) {
            size_t b_size;
            if (scanf("%4096s", b_text) != 1)
                return 2;
            b_size = unhex(b_text, b);
            /* an output buffer of exactly the room allowed, so that ASan sees any overflow */
            {
                uint8_t *room = (uint8_t *)malloc(ROOM / 2);
                size_t size = fuzzkit_splice(a, a_size, b, b_size, room, ROOM / 2, &rng);
                print(room, size);
                free(room);
            }
        } else {
            uint8_t *room = (uint8_t *)malloc(ROOM / 2);
            memcpy(room, a, a_size);
            print(room, fuzzkit_edit(atoi(what), room, a_size, ROOM / 2, &rng));
            free(room);
        }
    }
    return 0;
}
