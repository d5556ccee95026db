/*
 * The C side of bench/bench_peers.py, built into one shared library with every contender.
 * Python calls bench_time() and bench_lines() through ctypes, round after round, so that all
 * contenders are timed in one process, interleaved.  Times are the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID), so time the scheduler gives to other processes is not counted.
 *
 * Also here: a plain table DFA (class map and transition table from the same automaton, in
 * table_dfa.h, written by bench_peers.py) and glibc's iconv (UTF-8 to UTF-8 through a 64 KiB
 * output buffer), and the ceiling: an OR of every byte, 32 bytes at a time with AVX2 and four
 * accumulators (where the compiler and CPU have it), which a test for "all ASCII" needs and no
 * validator can beat.
 */
#define _POSIX_C_SOURCE 199309L
#include <errno.h>
#include <iconv.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "table_dfa.h" /* table_class[256], table_next[][], table_accept[], TABLE_START */

typedef int (*validator)(const unsigned char *p, size_t n);

int table_dfa_valid(const unsigned char *p, size_t n);
int iconv_valid(const unsigned char *p, size_t n);
int ceiling_or(const unsigned char *p, size_t n);
double bench_time(validator fn, const unsigned char *p, size_t n, int passes, int *result);
double bench_lines(validator fn, const unsigned char *buffer, const size_t *starts, const size_t *lengths,
                   size_t count, int passes, size_t *valid);

int table_dfa_valid(const unsigned char *p, size_t n)
{
    unsigned s = TABLE_START;
    size_t i;
    for (i = 0; i < n; i++)
        s = table_next[s][table_class[p[i]]];
    return table_accept[s];
}

int iconv_valid(const unsigned char *p, size_t n)
{
    static char out[1 << 16];
    iconv_t cd = iconv_open("UTF-8", "UTF-8");
    char *in = (char *)(uintptr_t)p;
    size_t left = n;
    int ok = 1;
    if (cd == (iconv_t)-1)
        return -1;
    while (left > 0) {
        char *to = out;
        size_t room = sizeof out;
        if (iconv(cd, &in, &left, &to, &room) == (size_t)-1 && errno != E2BIG) {
            ok = 0;
            break;
        }
    }
    iconv_close(cd);
    return ok;
}

static volatile unsigned char ceiling_sink;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
typedef unsigned char bench_v32 __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static unsigned char or_avx2(const unsigned char *p, size_t n)
{
    bench_v32 a = {0}, b = {0}, c = {0}, d = {0}, v;
    size_t i = 0, k;
    unsigned char all = 0;
    for (; i + 128 <= n; i += 128) {
        __builtin_memcpy(&v, p + i, 32); a |= v;
        __builtin_memcpy(&v, p + i + 32, 32); b |= v;
        __builtin_memcpy(&v, p + i + 64, 32); c |= v;
        __builtin_memcpy(&v, p + i + 96, 32); d |= v;
    }
    a |= b | c | d;
    for (k = 0; k < 32; k++)
        all |= a[k];
    for (; i < n; i++)
        all |= p[i];
    return all;
}
#endif

/* Always 1 (the corpora are valid); the OR goes to a volatile so that it is computed. */
int ceiling_or(const unsigned char *p, size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2")) {
        ceiling_sink = or_avx2(p, n);
        return 1;
    }
#endif
    {
        unsigned char all = 0;
        size_t i;
        for (i = 0; i < n; i++)
            all |= p[i];
        ceiling_sink = all;
    }
    return 1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The least time of `passes` runs after an untimed one; *result is the verdict. */
double bench_time(validator fn, const unsigned char *p, size_t n, int passes, int *result)
{
    double best = 1e30;
    int pass;
    *result = fn(p, n);
    for (pass = 0; pass < passes; pass++) {
        double t = now();
        int verdict = fn(p, n);
        t = now() - t;
        if (verdict != *result)
            *result = -2;
        if (t < best)
            best = t;
    }
    return best;
}

/* As bench_time, for validating each line of a buffer; *valid counts the valid lines. */
double bench_lines(validator fn, const unsigned char *buffer, const size_t *starts, const size_t *lengths,
                   size_t count, int passes, size_t *valid)
{
    double best = 1e30;
    int pass;
    size_t k;
    for (pass = 0; pass <= passes; pass++) {
        double t = now();
        size_t ok = 0;
        for (k = 0; k < count; k++)
            ok += (size_t)(fn(buffer + starts[k], lengths[k]) == 1);
        t = now() - t;
        *valid = ok;
        if (pass > 0 && t < best)
            best = t;
    }
    return best;
}
