/*
 * Timing loop of bench/bench_c_peers.py: every contender (contenders.c, written by the script)
 * on every input file, in interleaved rounds, CPU time (CLOCK_PROCESS_CPUTIME_ID).
 *
 *     c_peers ROUNDS PASSES SETS FILE:STRIDE...
 *
 * STRIDE 0: the file is one input.  STRIDE n: the file is many inputs of n bytes each, called in
 * turn (distinct strings, so a branch predictor cannot learn one), in SETS sets of as many: each
 * pass times the next set, in turn across passes, contenders and inputs (SETS 1: every pass times
 * the same strings, which a branch predictor may learn over the passes).  Prints, per round, contender
 * and input, "ROUND NAME FILE NS" with NS the least time of PASSES passes per call.  Before timing
 * it checks that every contender gives the first one's answer on every input.
 */
#define _POSIX_C_SOURCE 199309L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef size_t (*bench_fn)(const uint8_t *p, size_t n);
struct bench_contender {
    const char *name;
    bench_fn fn;
    int error_kind; /* 1: returns the first error's offset (SIZE_MAX: none); 0: 1 when valid */
};
extern const struct bench_contender bench_contenders[];
extern const size_t bench_count;

struct bench_input {
    const char *label;
    uint8_t *data;
    size_t size, stride;
};

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static volatile size_t sink;

static size_t sets = 1, next_set;

/* One pass: every string of the input's next set once; the time per call. */
static double pass(const struct bench_contender *c, const struct bench_input *in)
{
    size_t stride = in->stride ? in->stride : in->size, count = in->size / stride, k, acc = 0;
    const uint8_t *data = in->data;
    double start;
    if (in->stride && sets > 1) {
        count /= sets;
        data += (next_set++ % sets) * count * stride;
    }
    start = now_ns();
    for (k = 0; k < count; k++)
        acc += c->fn(data + k * stride, stride);
    sink = acc;
    return (now_ns() - start) / (double)count;
}

/* The answer as "valid or not" (and where, for first_error kinds), per string, summed. */
static size_t answer(const struct bench_contender *c, const struct bench_input *in)
{
    size_t stride = in->stride ? in->stride : in->size, count = in->size / stride, k, bad = 0;
    for (k = 0; k < count; k++) {
        size_t r = c->fn(in->data + k * stride, stride);
        int valid = c->error_kind ? r == SIZE_MAX : r != 0;
        bad += valid ? 0 : 1;
    }
    return bad;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long n;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        return NULL;
    data = malloc((size_t)n + 64);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n)
        return NULL;
    fclose(f);
    *size = (size_t)n;
    return data;
}

int main(int argc, char **argv)
{
    int rounds, passes, r, p, status = 0;
    size_t ninputs = (size_t)(argc - 4), i, c;
    struct bench_input *inputs;
    if (argc < 5)
        return 2;
    rounds = atoi(argv[1]);
    passes = atoi(argv[2]);
    sets = (size_t)strtoul(argv[3], NULL, 10);
    if (sets < 1)
        return 2;
    inputs = calloc(ninputs, sizeof *inputs);
    for (i = 0; i < ninputs; i++) {
        char *colon = strrchr(argv[4 + i], ':');
        if (!colon)
            return 2;
        *colon = '\0';
        inputs[i].label = argv[4 + i];
        inputs[i].stride = (size_t)strtoul(colon + 1, NULL, 10);
        inputs[i].data = read_file(argv[4 + i], &inputs[i].size);
        if (!inputs[i].data) {
            fprintf(stderr, "cannot read %s\n", argv[4 + i]);
            return 2;
        }
    }
    for (i = 0; i < ninputs; i++)
        for (c = 1; c < bench_count; c++)
            if (answer(&bench_contenders[c], &inputs[i]) != answer(&bench_contenders[0], &inputs[i])) {
                fprintf(stderr, "DISAGREE %s %s\n", bench_contenders[c].name, inputs[i].label);
                status = 1;
            }
    for (r = 0; r < rounds; r++)
        for (i = 0; i < ninputs; i++)
            for (c = 0; c < bench_count; c++) {
                double best = 1e300;
                pass(&bench_contenders[c], &inputs[i]); /* untimed: caches and predictors warm */
                for (p = 0; p < passes; p++) {
                    double t = pass(&bench_contenders[c], &inputs[i]);
                    best = t < best ? t : best;
                }
                printf("%d\t%s\t%s\t%.4f\n", r, bench_contenders[c].name, inputs[i].label, best);
            }
    return status;
}
