/* Loads the fuzz kit's AFL++ custom mutator (mutator.so, built with -DFUZZKIT_AFL) as afl-fuzz
 * does, with dlopen, and calls it on each line of standard input ("SEED HEX HEX": the input and
 * the input to splice with, '-' for none); prints each output in hex ('-': empty). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*init_fn)(void *, unsigned int);
typedef size_t (*fuzz_fn)(void *, uint8_t *, size_t, uint8_t **, uint8_t *, size_t, size_t);
typedef uint8_t (*splice_fn)(void *);
typedef void (*deinit_fn)(void *);

static size_t unhex(const char *text, uint8_t *out, size_t room)
{
    size_t n = 0;
    if (strcmp(text, "-") == 0)
        return 0;
    for (; text[0] && text[1] && n < room; text += 2) {
        unsigned value;
        sscanf(text, "%2x", &value);
        out[n++] = (uint8_t)value;
    }
    return n;
}

int main(int argc, char **argv)
{
    static char a_text[4097], b_text[4097];
    static uint8_t a[2048], b[2048];
    unsigned seed;
    void *library = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
    if (!library) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    init_fn init = (init_fn)dlsym(library, "afl_custom_init");
    fuzz_fn fuzz = (fuzz_fn)dlsym(library, "afl_custom_fuzz");
    splice_fn splice = (splice_fn)dlsym(library, "afl_custom_splice_optional");
    deinit_fn deinit = (deinit_fn)dlsym(library, "afl_custom_deinit");
    if (!init || !fuzz || !splice || !deinit)
        return 3;
    printf("splice_optional %u\n", (unsigned)splice(NULL));
    while (scanf("%u %4096s %4096s", &seed, a_text, b_text) == 3) {
        void *state = init(NULL, seed);
        size_t a_size = unhex(a_text, a, sizeof a), b_size = unhex(b_text, b, sizeof b), size, i;
        uint8_t *out = NULL;
        size = fuzz(state, a, a_size, &out, b_size ? b : NULL, b_size, 256);
        if (size == 0)
            fputs("-", stdout);
        for (i = 0; i < size; i++)
            printf("%02x", out[i]);
        putchar('\n');
        deinit(state);
    }
    dlclose(library);
    return 0;
}
