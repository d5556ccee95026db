/*
 * abnfc's batch kernel: the generated validator's first_error over many records in one call.
 *
 * Compiled with a generated source, ABNFC_PREFIX set to its prefix and ABNFC_SOURCE to its file
 * ("-DABNFC_PREFIX=validator -DABNFC_SOURCE='\"validator.c\"'"), which is included here, so that
 * the compiler can inline first_error into the loops below (ABNFC_HEADER instead links to a
 * source compiled on its own).  Records are given as
 * one buffer and offsets (record i is data[offsets[i] .. offsets[i + 1]), Arrow's layout), or as
 * lines to split here, so that Python makes one call per block of records instead of one per
 * record.  SIZE_MAX stands for "valid", as in the generated first_error.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef ABNFC_SOURCE
#include ABNFC_SOURCE
#else
#include ABNFC_HEADER
#endif

#define ABNFC_CAT2(a, b) a##_##b
#define ABNFC_CAT(a, b) ABNFC_CAT2(a, b)
#define ABNFC_FN(name) ABNFC_CAT(ABNFC_PREFIX, name)
#define ABNFC_FIRST_ERROR ABNFC_FN(first_error)

/*
 * Short records: four at a time.  One record's bytes form a chain of dependent table loads, so
 * a record of 30 bytes waits on 30 load latencies in a row; four records stepped side by side
 * overlap their chains (the idea of the generated code's segments, across records instead of
 * within one).  The table is built once from the public stream functions (a state's successor
 * on a byte is the state after its access word and the byte), with one more column, 256, that
 * keeps every state as it is: a record shorter than its group's longest reads it instead of a
 * byte, without a branch.  Only accepting or not is decided here: the offset of an invalid
 * record's first error comes from first_error, run again on that record alone.
 */
#define ABNFC_LANES 4 /* measured: 2, 3, 4, 6, 8 and 16 lanes; 4 and 3 were the fastest */
#if defined(ABNFC_NUM_STATES) && ABNFC_NUM_STATES <= 4096
#define ABNFC_TABLE 1
#define ABNFC_DEAD ((uint16_t)ABNFC_NUM_STATES)
static uint32_t abnfc_next_[(ABNFC_NUM_STATES + 1) * 257]; /* successors, premultiplied by 257 */
static uint8_t abnfc_accepts_[ABNFC_NUM_STATES + 1];
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
static void abnfc_build_(void)
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
            abnfc_next_[state * 257 + (size_t)byte] = (uint32_t)next * 257u;
            if (next != ABNFC_DEAD && !seen[next]) {
                seen[next] = 1;
                abnfc_accepts_[next] = accepts;
                memcpy(words[next], words[state], lengths[state]);
                words[next][lengths[state]] = (uint8_t)byte;
                lengths[next] = lengths[state] + 1;
                order[tail++] = next;
            }
        }
        abnfc_next_[state * 257 + 256] = (uint32_t)state * 257u;
    }
    for (byte = 0; byte <= 256; byte++)
        abnfc_next_[ABNFC_DEAD * 257 + (size_t)byte] = (uint32_t)ABNFC_DEAD * 257u;
    abnfc_ready_ = 1;
}

/* ok[k] = whether record k of the group (starts, lengths; n <= ABNFC_LANES) matches.  Always
 * ABNFC_LANES lanes (the missing ones read column 256 from the dead state), so that the compiler keeps
 * the states in registers; states are held premultiplied by 257, one add and one load a step. */
static void abnfc_group_(const unsigned char *bytes, const size_t *starts, const size_t *lengths, size_t n,
                         uint8_t *ok)
{
    uint32_t state[ABNFC_LANES];
    const unsigned char *from[ABNFC_LANES];
    size_t length[ABNFC_LANES], k, j, longest = 0;
    for (k = 0; k < ABNFC_LANES; k++) {
        state[k] = (uint32_t)(k < n ? abnfc_start_ : ABNFC_DEAD) * 257u;
        from[k] = k < n ? bytes + starts[k] : bytes;
        length[k] = k < n ? lengths[k] : 0;
        if (length[k] > longest)
            longest = length[k];
    }
    for (j = 0; j < longest; j++) {
        for (k = 0; k < ABNFC_LANES; k++)
            state[k] = abnfc_next_[state[k] + (j < length[k] ? from[k][j] : 256u)];
        if ((j & 15u) == 15u) { /* all dead: nothing more to read */
            uint32_t alive = 0;
            for (k = 0; k < ABNFC_LANES; k++)
                alive |= state[k] ^ (uint32_t)ABNFC_DEAD * 257u;
            if (!alive)
                break;
        }
    }
    for (k = 0; k < n; k++)
        ok[k] = abnfc_accepts_[state[k] / 257u];
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

/* Whether each record matches: ok[i] for records i = 0 .. count (start(i), len(i) expressions). */
#ifdef ABNFC_TABLE
#define ABNFC_MATCHES(bytes, count, start, len, ok)                                               \
    do {                                                                                          \
        size_t base_, k_, starts_[ABNFC_LANES], lengths_[ABNFC_LANES];                            \
        if (!abnfc_ready_)                                                                        \
            abnfc_build_();                                                                       \
        for (base_ = 0; base_ < (count); base_ += ABNFC_LANES) {                                  \
            size_t n_ = (count) - base_ < ABNFC_LANES ? (count) - base_ : ABNFC_LANES;            \
            for (k_ = 0; k_ < n_; k_++) {                                                         \
                size_t i = base_ + k_;                                                            \
                starts_[k_] = (start);                                                            \
                lengths_[k_] = (len);                                                             \
            }                                                                                     \
            abnfc_group_((bytes), starts_, lengths_, n_, (ok) + base_);                           \
        }                                                                                         \
    } while (0)
#else
#define ABNFC_MATCHES(bytes, count, start, len, ok)                                               \
    do {                                                                                          \
        size_t i;                                                                                 \
        for (i = 0; i < (count); i++)                                                             \
            (ok)[i] = ABNFC_FIRST_ERROR((bytes) + (start), (len)) == SIZE_MAX;                    \
    } while (0)
#endif

#define ABNFC_CHUNK 1024 /* records decided at a time, into a buffer on the stack */

/* Each record's first error into out[0 .. count); returns how many records are invalid. */
#define ABNFC_FIRST_ERRORS(name, offset_type)                                                     \
    size_t name(const void *data, const offset_type *offsets, size_t count, size_t *out);         \
    size_t name(const void *data, const offset_type *offsets, size_t count, size_t *out)          \
    {                                                                                             \
        const unsigned char *bytes = (const unsigned char *)data;                                 \
        uint8_t ok[ABNFC_CHUNK];                                                                  \
        size_t base, k, invalid = 0;                                                              \
        for (base = 0; base < count; base += ABNFC_CHUNK) {                                       \
            const offset_type *at = offsets + base;                                               \
            size_t n = count - base < ABNFC_CHUNK ? count - base : ABNFC_CHUNK;                   \
            ABNFC_MATCHES(bytes, n, (size_t)at[i], (size_t)at[i + 1] - (size_t)at[i], ok);        \
            for (k = 0; k < n; k++) {                                                             \
                size_t start = (size_t)at[k];                                                     \
                out[base + k] = ok[k] ? SIZE_MAX                                                  \
                                      : ABNFC_FIRST_ERROR(bytes + start, (size_t)at[k + 1] - start); \
                invalid += !ok[k];                                                                \
            }                                                                                     \
        }                                                                                         \
        return invalid;                                                                           \
    }

/* Bit first_bit + i of the zeroed bitmap `bits` set when record i is valid (Arrow's boolean
 * layout, least significant bit first); returns how many records are invalid. */
#define ABNFC_VALID_BITS(name, offset_type)                                                       \
    size_t name(const void *data, const offset_type *offsets, size_t count, uint8_t *bits,        \
                size_t first_bit);                                                                \
    size_t name(const void *data, const offset_type *offsets, size_t count, uint8_t *bits,        \
                size_t first_bit)                                                                 \
    {                                                                                             \
        const unsigned char *bytes = (const unsigned char *)data;                                 \
        uint8_t ok[ABNFC_CHUNK];                                                                  \
        size_t base, k, invalid = 0;                                                              \
        for (base = 0; base < count; base += ABNFC_CHUNK) {                                       \
            const offset_type *at = offsets + base;                                               \
            size_t n = count - base < ABNFC_CHUNK ? count - base : ABNFC_CHUNK;                   \
            ABNFC_MATCHES(bytes, n, (size_t)at[i], (size_t)at[i + 1] - (size_t)at[i], ok);        \
            for (k = 0; k < n; k++) {                                                             \
                size_t bit = first_bit + base + k;                                                \
                bits[bit >> 3] = (uint8_t)(bits[bit >> 3] | ((unsigned)ok[k] << (bit & 7u)));     \
                invalid += !ok[k];                                                                \
            }                                                                                     \
        }                                                                                         \
        return invalid;                                                                           \
    }

ABNFC_FIRST_ERRORS(ABNFC_FN(first_errors), size_t)
ABNFC_FIRST_ERRORS(ABNFC_FN(first_errors_i32), int32_t)
ABNFC_FIRST_ERRORS(ABNFC_FN(first_errors_i64), int64_t)
ABNFC_VALID_BITS(ABNFC_FN(valid_bits_i32), int32_t)
ABNFC_VALID_BITS(ABNFC_FN(valid_bits_i64), int64_t)

/* The first error of data[0 .. len) (SIZE_MAX: none) and the automaton state there. */
static size_t abnfc_error_at_(const unsigned char *data, size_t len, uint32_t *state)
{
    ABNFC_FN(stream) s;
    ABNFC_FN(stream_init)(&s);
    ABNFC_FN(stream_feed)(&s, data, len);
    *state = ABNFC_FN(stream_state)(&s);
    return ABNFC_FN(stream_finish)(&s);
}

/*
 * The lines of data[0 .. len), each without its "\n" or "\r\n" (no empty last line after a final
 * "\n"), checked in order, ABNFC_CHUNK lines at a time.  Each invalid line is written to bad as
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
    uint8_t ok[ABNFC_CHUNK];
    size_t start = 0, index = 0, found = 0, n, k;
    while (start < len && found < cap) {
        for (n = 0; n < ABNFC_CHUNK && start < len; n++) { /* split */
            const unsigned char *newline = (const unsigned char *)memchr(bytes + start, '\n', len - start);
            size_t end = newline ? (size_t)(newline - bytes) : len;
            nexts[n] = newline ? end + 1 : len;
            if (newline && end > start && bytes[end - 1] == '\r')
                end--;
            starts[n] = start;
            lengths[n] = end - start;
            start = nexts[n];
        }
        ABNFC_MATCHES(bytes, n, starts[i], lengths[i], ok);
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

/* The automaton state at the first error of data[0 .. len) (or after it all): the bytes it
 * expects there are those of P_expected(state), the same for every record stopped in it. */
uint32_t ABNFC_FN(error_state)(const void *data, size_t len);
uint32_t ABNFC_FN(error_state)(const void *data, size_t len)
{
    ABNFC_FN(stream) stream;
    ABNFC_FN(stream_init)(&stream);
    ABNFC_FN(stream_feed)(&stream, data, len);
    return ABNFC_FN(stream_state)(&stream);
}
