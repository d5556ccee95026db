/*
 * abnfc's batch kernel: the generated validator's first_error over many records in one call.
 *
 * Compiled with a generated source, ABNFC_PREFIX set to its prefix and ABNFC_SOURCE to its file
 * ("-DABNFC_PREFIX=validator -DABNFC_SOURCE='\"validator.c\"'"), which is included here, so that
 * the compiler can inline first_error into the loops below (ABNFC_HEADER instead links to a
 * source compiled on its own).  Records are given as
 * one buffer and offsets (record i is data[offsets[i] .. offsets[i + 1]), Arrow's layout), as
 * Arrow's string views, or as lines to split here, so that Python makes one call per block of
 * records instead of one per
 * record.  SIZE_MAX stands for "valid", as in the generated first_error.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#endif

#ifdef ABNFC_SOURCE
#include ABNFC_SOURCE
#else
#include ABNFC_HEADER
#endif

#define ABNFC_CAT2(a, b) a##_##b
#define ABNFC_CAT(a, b) ABNFC_CAT2(a, b)
#define ABNFC_FN(name) ABNFC_CAT(ABNFC_PREFIX, name)
#define ABNFC_FIRST_ERROR ABNFC_FN(first_error)

#define ABNFC_STATUS_INVALID 1 /* a pushdown validator's status of input it refuses (PREFIX_INVALID) */

/* A pushdown validator's (ABNFC_PUSHDOWN: a self-embedding grammar) stream may hold its stack on
 * the heap, which must be freed; a regular one holds nothing.  Its first_error also refuses input
 * nested past the depth limit, which the caller tells apart by checking such records again. */
#ifdef ABNFC_PUSHDOWN
#define ABNFC_STREAM_FREE(s) ABNFC_FN(stream_free)(s)
#else
#define ABNFC_STREAM_FREE(s) ((void)(s))
#endif

/* The cache key the kernel was built for (40 hexadecimal digits), which the loader compares with
 * the key it looked the library up by: a library under another key's name is never used. */
#ifdef ABNFC_KERNEL_KEY
extern const char abnfc_kernel_key[];
const char abnfc_kernel_key[] = ABNFC_KERNEL_KEY;
#endif

/* 1 when the kernel was built from a pushdown validator (see ABNFC_STREAM_FREE), else 0. */
int ABNFC_FN(batch_pushdown)(void);
int ABNFC_FN(batch_pushdown)(void)
{
#ifdef ABNFC_PUSHDOWN
    return 1;
#else
    return 0;
#endif
}

/*
 * Short records: four at a time.  One record's bytes form a chain of dependent table loads, so
 * a record of 30 bytes waits on 30 load latencies in a row; four records stepped side by side
 * overlap their chains (the idea of the generated code's segments, across records instead of
 * within one).  The table is built once from the public stream functions (a state's successor
 * on a byte is the state after its access word and the byte) and then compressed to byte
 * classes (bytes whose columns are equal), so that it stays in the first-level cache (URI's 183
 * states: 16 KiB instead of 188 KiB); the class of a byte is a load that does not wait on the
 * state, so it stays off the chain.  Only accepting or not is decided here: the offset of an invalid record's first error comes
 * from first_error, run again on that record alone.
 */
#define ABNFC_CHUNK 1024 /* records decided at a time, into buffers on the stack */
#define ABNFC_LANES 4 /* measured: 2 to 16 lanes; 3 to 8 were alike (sorted by length) */
#if defined(ABNFC_NUM_STATES) && ABNFC_NUM_STATES <= 4096 && !defined(ABNFC_PUSHDOWN)
#define ABNFC_TABLE 1
#define ABNFC_DEAD ((uint16_t)ABNFC_NUM_STATES)
static uint16_t abnfc_full_[(ABNFC_NUM_STATES + 1) * 256]; /* successors by byte, while building */
static uint32_t abnfc_next_[(ABNFC_NUM_STATES + 1) * 256]; /* by class, premultiplied by width */
static uint8_t abnfc_accepts_[ABNFC_NUM_STATES + 1];
static uint16_t abnfc_class_[256];                          /* byte to class */
static uint32_t abnfc_width_;                               /* the number of classes */
static uint16_t abnfc_start_;
static int abnfc_ready_;

/* The state after word[0 .. len) and then byte (ABNFC_DEAD when no match continues). */
static uint16_t abnfc_after_(const uint8_t *word, size_t len, int byte, uint8_t *accepts)
{
    ABNFC_FN(stream) s;
    uint8_t b = (uint8_t)byte;
    ABNFC_FN(stream_init)(&s);
    ABNFC_FN(stream_feed)(&s, word, len);
    if (byte >= 0 && !ABNFC_FN(stream_feed)(&s, &b, 1))
        return ABNFC_DEAD;
    *accepts = ABNFC_FN(stream_complete)(&s) ? 1 : 0;
    return (uint16_t)ABNFC_FN(stream_state)(&s);
}

/* Breadth first from the start: each new state's access word, then its row. */
static void abnfc_explore_(void)
{
    static uint8_t words[ABNFC_NUM_STATES][ABNFC_NUM_STATES];
    static size_t lengths[ABNFC_NUM_STATES];
    static int seen[ABNFC_NUM_STATES];
    uint16_t order[ABNFC_NUM_STATES];
    size_t head = 0, tail = 0;
    uint8_t accepts = 0;
    int byte;
    abnfc_start_ = abnfc_after_(NULL, 0, -1, &accepts);
    abnfc_accepts_[abnfc_start_] = accepts;
    seen[abnfc_start_] = 1;
    order[tail++] = abnfc_start_;
    while (head < tail) {
        uint16_t state = order[head++];
        for (byte = 0; byte < 256; byte++) {
            uint16_t next = abnfc_after_(words[state], lengths[state], byte, &accepts);
            abnfc_full_[state * 256 + (size_t)byte] = next;
            if (next != ABNFC_DEAD && !seen[next]) {
                seen[next] = 1;
                abnfc_accepts_[next] = accepts;
                memcpy(words[next], words[state], lengths[state]);
                words[next][lengths[state]] = (uint8_t)byte;
                lengths[next] = lengths[state] + 1;
                order[tail++] = next;
            }
        }
    }
    for (byte = 0; byte < 256; byte++)
        abnfc_full_[ABNFC_DEAD * 256 + (size_t)byte] = ABNFC_DEAD;
}

/* Whether bytes a and b lead every state (unreached ones are dead: zeroed, then never read) alike. */
static int abnfc_same_column_(int a, int b)
{
    size_t state;
    for (state = 0; state <= ABNFC_NUM_STATES; state++)
        if (abnfc_full_[state * 256 + (size_t)a] != abnfc_full_[state * 256 + (size_t)b])
            return 0;
    return 1;
}

/*
 * Sheng (Hyperscan's shuffle DFA; Wang et al., NSDI 2019) where the states and the dead one fit
 * 32 lanes and the CPU has AVX-512 VBMI and VL: a byte's transition function is a vector of next
 * states, and a step is one vpermb of it by the state, held in every lane; the chain waits on the
 * shuffle, not on a load, and the byte's vector is one load (by byte: no class lookup).
 */
#if defined(ABNFC_TABLE) && ABNFC_NUM_STATES < 32 && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) \
    && !defined(ABNFC_NO_SHENG)
#define ABNFC_SHENG 1
#include <immintrin.h>
#define ABNFC_SHENG_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
static uint8_t abnfc_sheng_[256][32] __attribute__((aligned(32))); /* per byte, each state's successor */
static int abnfc_sheng_ok_;                                          /* the CPU has the instructions */

static void abnfc_sheng_build_(void)
{
    size_t byte, state;
    for (byte = 0; byte < 256; byte++)
        for (state = 0; state < 32; state++)
            abnfc_sheng_[byte][state] = (uint8_t)(state <= ABNFC_NUM_STATES ? abnfc_full_[state * 256 + byte]
                                                                            : ABNFC_DEAD);
    __builtin_cpu_init();
    abnfc_sheng_ok_ = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                      && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi");
}
#endif

/* The byte classes, then the table by class with states premultiplied by the width. */
static void abnfc_build_(void)
{
    int first[256], byte, klass, classes = 0;
    size_t state;
    abnfc_explore_();
    for (byte = 0; byte < 256; byte++) {
        for (klass = 0; klass < classes && !abnfc_same_column_(first[klass], byte); klass++)
            ;
        if (klass == classes)
            first[classes++] = byte;
        abnfc_class_[byte] = (uint16_t)klass;
    }
    abnfc_width_ = (uint32_t)classes;
    for (state = 0; state <= ABNFC_NUM_STATES; state++)
        for (klass = 0; klass < classes; klass++)
            abnfc_next_[state * abnfc_width_ + (size_t)klass] =
                (uint32_t)abnfc_full_[state * 256 + (size_t)first[klass]] * abnfc_width_;
#ifdef ABNFC_SHENG
    abnfc_sheng_build_();
#endif
    abnfc_ready_ = 1;
}

#if defined(__GNUC__) || defined(__clang__)
#define ABNFC_PREFETCH(address) __builtin_prefetch(address)
#else
#define ABNFC_PREFETCH(address) ((void)(address))
#endif
#define ABNFC_SHORT 256 /* longer records go to the generated first_error, made for long input */

/* The state after all of data[0 .. len) from state (premultiplied), a byte at a time. */
static uint32_t abnfc_walk_(uint32_t state, const unsigned char *data, size_t len)
{
    size_t j;
    for (j = 0; j < len && state != (uint32_t)ABNFC_DEAD * abnfc_width_; j++)
        state = abnfc_next_[state + abnfc_class_[data[j]]];
    return state;
}

/* Four records (order[0 .. 4), sorted by length) side by side: every lane steps the shortest
 * one's length with no test, then each finishes its few remaining bytes alone. */
static void abnfc_group_(const unsigned char *const *from, const size_t *lengths, const uint16_t *order,
                         uint8_t *ok)
{
    const uint32_t width = abnfc_width_;
    uint32_t state[ABNFC_LANES];
    const unsigned char *at[ABNFC_LANES];
    size_t k, j, common = lengths[order[0]];
    for (k = 0; k < ABNFC_LANES; k++) {
        state[k] = abnfc_start_ * width;
        at[k] = from[order[k]];
    }
    for (j = 0; j < common; j++)
        for (k = 0; k < ABNFC_LANES; k++)
            state[k] = abnfc_next_[state[k] + abnfc_class_[at[k][j]]];
    for (k = 0; k < ABNFC_LANES; k++)
        ok[order[k]] = abnfc_accepts_[abnfc_walk_(state[k], at[k] + common, lengths[order[k]] - common) / width];
}

#ifdef ABNFC_SHENG
/* As abnfc_group_, each lane's state a vector of 32 equal bytes, stepped by vpermb. */
ABNFC_SHENG_TARGET static void abnfc_sheng_group_(const unsigned char *const *from, const size_t *lengths,
                                                  const uint16_t *order, uint8_t *ok)
{
    __m256i state[ABNFC_LANES];
    const unsigned char *at[ABNFC_LANES];
    size_t k, j, common = lengths[order[0]];
    for (k = 0; k < ABNFC_LANES; k++) {
        state[k] = _mm256_set1_epi8((char)abnfc_start_);
        at[k] = from[order[k]];
    }
    for (j = 0; j < common; j++)
        for (k = 0; k < ABNFC_LANES; k++)
            state[k] = _mm256_permutexvar_epi8(state[k], _mm256_load_si256((const __m256i *)(const void *)
                                                                           abnfc_sheng_[at[k][j]]));
    for (k = 0; k < ABNFC_LANES; k++) {
        uint32_t s = (uint32_t)_mm256_cvtsi256_si32(state[k]) & 0xFFu;
        ok[order[k]] = abnfc_accepts_[abnfc_walk_(s * abnfc_width_, at[k] + common,
                                                  lengths[order[k]] - common) / abnfc_width_];
    }
}
#endif

/*
 * ok[i] = whether record i (from[i], lengths[i]; i < n <= ABNFC_CHUNK) matches.  The short
 * records are sorted by length (a counting sort) and taken four at a time, so that the four
 * lanes have about the same length to step (URIs: the longest of four random ones is half again
 * the mean, which four lanes in input order would all wait for).  States are held
 * premultiplied: one add and one load a step on the chain; the compiler keeps them in registers.
 */
static void abnfc_lanes_(const unsigned char *const *from, const size_t *lengths, size_t n, uint8_t *ok)
{
    uint16_t order[ABNFC_CHUNK], count[ABNFC_SHORT + 2];
    size_t i, sorted, length;
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) {
        ABNFC_PREFETCH(from[i]); /* in input order, which the hardware follows; sorted order would not */
        ABNFC_PREFETCH(from[i] + lengths[i]);
        if (lengths[i] <= ABNFC_SHORT)
            count[lengths[i] + 1]++;
        else
            ok[i] = ABNFC_FIRST_ERROR(from[i], lengths[i]) == SIZE_MAX;
    }
    for (length = 1; length <= ABNFC_SHORT + 1; length++)
        count[length] = (uint16_t)(count[length] + count[length - 1]);
    sorted = count[ABNFC_SHORT + 1];
    for (i = 0; i < n; i++)
        if (lengths[i] <= ABNFC_SHORT)
            order[count[lengths[i]]++] = (uint16_t)i;
#ifdef ABNFC_SHENG
    if (abnfc_sheng_ok_)
        for (i = 0; i + ABNFC_LANES <= sorted; i += ABNFC_LANES)
            abnfc_sheng_group_(from, lengths, order + i, ok);
    else
#endif
    for (i = 0; i + ABNFC_LANES <= sorted; i += ABNFC_LANES)
        abnfc_group_(from, lengths, order + i, ok);
    for (; i < sorted; i++) /* the last few, fewer than a group */
        ok[order[i]] = abnfc_accepts_[abnfc_walk_(abnfc_start_ * abnfc_width_, from[order[i]],
                                                  lengths[order[i]]) / abnfc_width_];
}
#endif

/* Builds the table (if this kernel has one) before any other call: the loader calls it once, so
 * that threads calling the kernel later only read it. */
void ABNFC_FN(batch_init)(void);
void ABNFC_FN(batch_init)(void)
{
#ifdef ABNFC_TABLE
    if (!abnfc_ready_)
        abnfc_build_();
#endif
}

/* Whether each record matches: ok[i] for (from[i], lengths[i]), i < n <= ABNFC_CHUNK. */
static void abnfc_matches_(const unsigned char *const *from, const size_t *lengths, size_t n, uint8_t *ok)
{
#ifdef ABNFC_TABLE
    if (!abnfc_ready_)
        abnfc_build_();
    abnfc_lanes_(from, lengths, n, ok);
#else
    size_t i;
    for (i = 0; i < n; i++)
        ok[i] = ABNFC_FIRST_ERROR(from[i], lengths[i]) == SIZE_MAX;
#endif
}

/* A chunk's first errors into out (SIZE_MAX: valid); returns how many records are invalid. */
static size_t abnfc_put_errors_(const unsigned char *const *from, const size_t *lengths, const uint8_t *ok,
                                size_t n, size_t *out)
{
    size_t k, invalid = 0;
    for (k = 0; k < n; k++) {
        out[k] = ok[k] ? SIZE_MAX : ABNFC_FIRST_ERROR(from[k], lengths[k]);
        invalid += !ok[k];
    }
    return invalid;
}

/* A chunk's verdicts into bits first_bit .. first_bit + n of the zeroed bitmap `bits` (Arrow's
 * boolean layout, least significant bit first); returns how many records are invalid. */
static size_t abnfc_put_bits_(const uint8_t *ok, size_t n, uint8_t *bits, size_t first_bit)
{
    size_t k, invalid = 0;
    for (k = 0; k < n; k++) {
        size_t bit = first_bit + k;
        bits[bit >> 3] = (uint8_t)(bits[bit >> 3] | ((unsigned)ok[k] << (bit & 7u)));
        invalid += !ok[k];
    }
    return invalid;
}

/*
 * Records given as one buffer and offsets (record i is data[offsets[i] .. offsets[i + 1]),
 * Arrow's layout for string and binary, size_t, 32-bit or 64-bit): each record's first error
 * (P_first_errors...) or its bit (P_valid_bits...); both return how many records are invalid.
 */
#define ABNFC_BY_OFFSETS(suffix, offset_type)                                                     \
    static void abnfc_records##suffix(const void *data, const offset_type *at, size_t n,          \
                                      const unsigned char **from, size_t *lengths)                \
    {                                                                                             \
        size_t k;                                                                                 \
        for (k = 0; k < n; k++) {                                                                 \
            from[k] = (const unsigned char *)data + (size_t)at[k];                                \
            lengths[k] = (size_t)at[k + 1] - (size_t)at[k];                                       \
        }                                                                                         \
    }                                                                                             \
    size_t ABNFC_FN(first_errors##suffix)(const void *data, const offset_type *offsets, size_t count, \
                                          size_t *out);                                           \
    size_t ABNFC_FN(first_errors##suffix)(const void *data, const offset_type *offsets, size_t count, \
                                          size_t *out)                                            \
    {                                                                                             \
        const unsigned char *from[ABNFC_CHUNK];                                                   \
        size_t lengths[ABNFC_CHUNK], base, n, invalid = 0;                                        \
        uint8_t ok[ABNFC_CHUNK];                                                                  \
        for (base = 0; base < count; base += n) {                                                 \
            n = count - base < ABNFC_CHUNK ? count - base : ABNFC_CHUNK;                          \
            abnfc_records##suffix(data, offsets + base, n, from, lengths);                        \
            abnfc_matches_(from, lengths, n, ok);                                                 \
            invalid += abnfc_put_errors_(from, lengths, ok, n, out + base);                       \
        }                                                                                         \
        return invalid;                                                                           \
    }                                                                                             \
    size_t ABNFC_FN(valid_bits##suffix)(const void *data, const offset_type *offsets, size_t count, \
                                        uint8_t *bits, size_t first_bit);                         \
    size_t ABNFC_FN(valid_bits##suffix)(const void *data, const offset_type *offsets, size_t count, \
                                        uint8_t *bits, size_t first_bit)                          \
    {                                                                                             \
        const unsigned char *from[ABNFC_CHUNK];                                                   \
        size_t lengths[ABNFC_CHUNK], base, n, invalid = 0;                                        \
        uint8_t ok[ABNFC_CHUNK];                                                                  \
        for (base = 0; base < count; base += n) {                                                 \
            n = count - base < ABNFC_CHUNK ? count - base : ABNFC_CHUNK;                          \
            abnfc_records##suffix(data, offsets + base, n, from, lengths);                        \
            abnfc_matches_(from, lengths, n, ok);                                                 \
            invalid += abnfc_put_bits_(ok, n, bits, first_bit + base);                            \
        }                                                                                         \
        return invalid;                                                                           \
    }

ABNFC_BY_OFFSETS(, size_t)
ABNFC_BY_OFFSETS(_i32, int32_t)
ABNFC_BY_OFFSETS(_i64, int64_t)

/*
 * Arrow's string_view and binary_view layout: a view of 16 bytes per value, its length (int32)
 * and then either the value itself (up to 12 bytes) or its first 4 bytes, the index of a data
 * buffer and the offset in it (int32 each).  Values first .. first + n; a null value (validity
 * given and its bit clear) reads as empty.  Every other view is checked against its buffer's
 * size before it is read: 0 when one is out of bounds (a malformed array), 1 otherwise.
 */
static int abnfc_views_(const unsigned char *views, const uint8_t *validity, size_t first, size_t n,
                        const unsigned char *const *buffers, const int64_t *sizes, size_t buffer_count,
                        const unsigned char **from, size_t *lengths)
{
    static const unsigned char none[1];
    size_t k;
    for (k = 0; k < n; k++) {
        const unsigned char *view = views + 16 * (first + k);
        size_t bit = first + k;
        int32_t length, index, offset;
        memcpy(&length, view, 4);
        from[k] = none, lengths[k] = 0;
        if (validity != NULL && !((validity[bit >> 3] >> (bit & 7u)) & 1u))
            continue;
        if (length < 0)
            return 0;
        if (length <= 12) {
            from[k] = view + 4;
        } else {
            memcpy(&index, view + 8, 4);
            memcpy(&offset, view + 12, 4);
            if (index < 0 || (size_t)index >= buffer_count || offset < 0 ||
                (int64_t)offset + (int64_t)length > sizes[index])
                return 0;
            from[k] = buffers[index] + offset;
        }
        lengths[k] = (size_t)length;
    }
    return 1;
}

/* The views' chunks checked, each record's first error put into out or its bit into bits
 * (whichever is not NULL); SIZE_MAX when a view lies outside its buffer, else how many values
 * are invalid. */
static size_t abnfc_views_all_(const void *views, const uint8_t *validity, size_t first, size_t count,
                               const unsigned char *const *buffers, const int64_t *sizes, size_t buffer_count,
                               size_t *out, uint8_t *bits)
{
    const unsigned char *from[ABNFC_CHUNK];
    size_t lengths[ABNFC_CHUNK], base, n, invalid = 0;
    uint8_t ok[ABNFC_CHUNK];
    for (base = 0; base < count; base += n) {
        n = count - base < ABNFC_CHUNK ? count - base : ABNFC_CHUNK;
        if (!abnfc_views_((const unsigned char *)views, validity, first + base, n, buffers, sizes, buffer_count,
                          from, lengths))
            return SIZE_MAX;
        abnfc_matches_(from, lengths, n, ok);
        invalid += out != NULL ? abnfc_put_errors_(from, lengths, ok, n, out + base)
                               : abnfc_put_bits_(ok, n, bits, first + base);
    }
    return invalid;
}

/* first_errors and valid_bits over views (values first .. first + count, bit first + i written
 * for value i); SIZE_MAX when a view lies outside its buffer, else how many values are invalid. */
size_t ABNFC_FN(first_errors_views)(const void *views, const uint8_t *validity, size_t first, size_t count,
                                    const unsigned char *const *buffers, const int64_t *sizes,
                                    size_t buffer_count, size_t *out);
size_t ABNFC_FN(first_errors_views)(const void *views, const uint8_t *validity, size_t first, size_t count,
                                    const unsigned char *const *buffers, const int64_t *sizes,
                                    size_t buffer_count, size_t *out)
{
    return abnfc_views_all_(views, validity, first, count, buffers, sizes, buffer_count, out, NULL);
}

size_t ABNFC_FN(valid_bits_views)(const void *views, const uint8_t *validity, size_t first, size_t count,
                                  const unsigned char *const *buffers, const int64_t *sizes,
                                  size_t buffer_count, uint8_t *bits);
size_t ABNFC_FN(valid_bits_views)(const void *views, const uint8_t *validity, size_t first, size_t count,
                                  const unsigned char *const *buffers, const int64_t *sizes,
                                  size_t buffer_count, uint8_t *bits)
{
    return abnfc_views_all_(views, validity, first, count, buffers, sizes, buffer_count, NULL, bits);
}

/* The first error of data[0 .. len) (SIZE_MAX: none) and the automaton state there. */
static size_t abnfc_error_at_(const unsigned char *data, size_t len, uint32_t *state)
{
    ABNFC_FN(stream) s;
    size_t at;
    ABNFC_FN(stream_init)(&s);
    ABNFC_FN(stream_feed)(&s, data, len);
    *state = ABNFC_FN(stream_state)(&s);
    at = ABNFC_FN(stream_finish)(&s);
    ABNFC_STREAM_FREE(&s);
    return at;
}

/*
 * The ends of up to `cap` lines of data[start .. len) into ends: the offset of each line's "\n",
 * or len for a last line without one (none after a final "\n"); returns how many.  Sixteen
 * bytes are compared at a time where SSE2 is there (every x86-64): a call of memchr a line
 * costs more than the search on lines of tens of bytes.
 */
static size_t abnfc_line_ends_(const unsigned char *data, size_t start, size_t len, size_t *ends, size_t cap)
{
    size_t n = 0, at = start;
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    const __m128i newline = _mm_set1_epi8('\n');
    for (; n < cap && at + 16 <= len; at += 16) {
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(data + at)), newline));
        for (; mask && n < cap; mask &= mask - 1)
            ends[n++] = at + (size_t)__builtin_ctz(mask);
        if (n == cap)
            return n;
    }
#endif
    for (; n < cap && at < len; at++)
        if (data[at] == '\n')
            ends[n++] = at;
    if (n < cap && at == len && (n ? ends[n - 1] + 1 : start) < len)
        ends[n++] = len;
    return n;
}

/*
 * The lines of data[0 .. len), each without its "\n" or "\r\n" (no empty last line after a final
 * "\n"; a last line without "\n" loses a final "\r" all the same, as in Python's reader and every
 * other engine), checked in order, ABNFC_CHUNK lines at a time.  Each invalid line is written to bad as
 * five numbers: its index, its first error, its start and its end in data, and the automaton
 * state at the error (for P_expected).  Stops after `cap`
 * invalid lines; *lines gets the number of lines checked and *consumed the bytes they took, so
 * that the caller goes on from there.  Returns the number of invalid lines written.
 */
size_t ABNFC_FN(line_errors)(const void *data, size_t len, size_t *bad, size_t cap, size_t *lines,
                             size_t *consumed);
size_t ABNFC_FN(line_errors)(const void *data, size_t len, size_t *bad, size_t cap, size_t *lines,
                             size_t *consumed)
{
    const unsigned char *bytes = (const unsigned char *)data;
    size_t starts[ABNFC_CHUNK], lengths[ABNFC_CHUNK], nexts[ABNFC_CHUNK];
    const unsigned char *from[ABNFC_CHUNK];
    uint8_t ok[ABNFC_CHUNK];
    size_t start = 0, index = 0, found = 0, n, k;
    while (start < len && found < cap) {
        n = abnfc_line_ends_(bytes, start, len, nexts, ABNFC_CHUNK); /* the ends first, in nexts */
        for (k = 0; k < n; k++) {
            size_t end = nexts[k];
            nexts[k] = end < len ? end + 1 : len; /* end == len: a last line with no newline */
            if (end > start && bytes[end - 1] == '\r')
                end--;
            starts[k] = start;
            lengths[k] = end - start;
            start = nexts[k];
        }
        for (k = 0; k < n; k++)
            from[k] = bytes + starts[k];
        abnfc_matches_(from, lengths, n, ok);
        for (k = 0; k < n; k++) {
            if (!ok[k]) {
                uint32_t state;
                bad[5 * found] = index + k;
                bad[5 * found + 1] = abnfc_error_at_(bytes + starts[k], lengths[k], &state);
                bad[5 * found + 2] = starts[k];
                bad[5 * found + 3] = starts[k] + lengths[k];
                bad[5 * found + 4] = state;
                if (++found == cap) { /* full: stop after this line */
                    *lines = index + k + 1;
                    *consumed = nexts[k];
                    return found;
                }
            }
        }
        index += n;
    }
    *lines = index;
    *consumed = start;
    return found;
}

/*
 * One record's verdict and the bytes expected at its first error, for its report: 0 when it
 * matches, 1 when it does not, and for a pushdown validator 2 when it nests past the depth limit
 * (ABNFC_MAX_DEPTH) or 3 when its stack could not grow, the validator's own statuses.  *at gets
 * the offset of the error (as first_error), out up to cap (lo, hi) pairs of the bytes that could
 * continue the input there (the closing bytes of the nested part open included), and *count how
 * many ranges there are in all.
 */
int ABNFC_FN(record_report)(const void *data, size_t len, size_t *at, uint8_t *out, size_t cap, size_t *count);
int ABNFC_FN(record_report)(const void *data, size_t len, size_t *at, uint8_t *out, size_t cap, size_t *count)
{
    ABNFC_FN(stream) s;
    ABNFC_FN(range) ranges[256];
    size_t n, k;
    int status;
    ABNFC_FN(stream_init)(&s);
    ABNFC_FN(stream_feed)(&s, data, len);
#ifdef ABNFC_PUSHDOWN
    status = (int)ABNFC_FN(stream_result)(&s, at);
#else
    *at = ABNFC_FN(stream_finish)(&s);
    status = *at != SIZE_MAX;
#endif
    n = ABNFC_FN(stream_expected)(&s, ranges, 256);
    for (k = 0; k < n && k < cap; k++) {
        out[2 * k] = ranges[k].lo;
        out[2 * k + 1] = ranges[k].hi;
    }
    *count = n;
    ABNFC_STREAM_FREE(&s);
    return status;
}

/* A pushdown validator's depth limit (0 for a regular one, which has none). */
size_t ABNFC_FN(batch_max_depth)(void);
size_t ABNFC_FN(batch_max_depth)(void)
{
#ifdef ABNFC_PUSHDOWN
    return ABNFC_MAX_DEPTH;
#else
    return 0;
#endif
}

/* The automaton state at the first error of data[0 .. len) (or after it all): the bytes it
 * expects there are those of P_expected(state), the same for every record stopped in it. */
uint32_t ABNFC_FN(error_state)(const void *data, size_t len);
uint32_t ABNFC_FN(error_state)(const void *data, size_t len)
{
    uint32_t state;
    abnfc_error_at_((const unsigned char *)data, len, &state);
    return state;
}
