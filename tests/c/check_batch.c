/*
 * Drives the batch kernel (src/abnfc/native/static/batch.c, compiled with a generated source) over
 * records read from a file (each a 4-byte little-endian length and that many bytes), all in one
 * buffer with size_t offsets, and prints each record's first error ("-" when all of it matches).
 * Every record is also copied into a buffer of exactly its size and checked alone, so that a
 * sanitizer build sees any read past a record.  Build with -DPFX=<prefix>.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)

size_t API(_first_errors)(const void *data, const size_t *offsets, size_t count, size_t *out);
void API(_batch_init)(void);

int main(int argc, char **argv)
{
    FILE *f;
    unsigned char *data = NULL, header[4];
    size_t *offsets = NULL, *out, count = 0, size = 0, k;
    if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL)
        return 2;
    offsets = malloc(sizeof *offsets);
    offsets[0] = 0;
    while (fread(header, 1, 4, f) == 4) {
        size_t len = (size_t)header[0] | (size_t)header[1] << 8 | (size_t)header[2] << 16 | (size_t)header[3] << 24;
        data = realloc(data, size + len + 1);
        if (len && fread(data + size, 1, len, f) != len)
            return 2;
        size += len;
        offsets = realloc(offsets, (count + 2) * sizeof *offsets);
        offsets[++count] = size;
    }
    fclose(f);
    out = malloc((count + 1) * sizeof *out);
    API(_batch_init)();
    API(_first_errors)(data, offsets, count, out);
    for (k = 0; k < count; k++) {
        size_t len = offsets[k + 1] - offsets[k], alone;
        unsigned char *copy = malloc(len ? len : 1);
        size_t at[2] = {0, 0};
        memcpy(copy, data + offsets[k], len);
        at[1] = len;
        API(_first_errors)(copy, at, 1, &alone);
        free(copy);
        if (alone != out[k]) {
            fprintf(stderr, "FAIL record %zu: alone %zu, in the batch %zu\n", k, alone, out[k]);
            return 1;
        }
        if (out[k] == SIZE_MAX)
            printf("-\n");
        else
            printf("%zu\n", out[k]);
    }
    free(out);
    free(offsets);
    free(data);
    return 0;
}
