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

/* Each record's first error into out[0 .. count); returns how many records are invalid. */
#define ABNFC_FIRST_ERRORS(name, offset_type)                                                     \
    size_t name(const void *data, const offset_type *offsets, size_t count, size_t *out);         \
    size_t name(const void *data, const offset_type *offsets, size_t count, size_t *out)          \
    {                                                                                             \
        const unsigned char *bytes = (const unsigned char *)data;                                 \
        size_t i, invalid = 0;                                                                    \
        for (i = 0; i < count; i++) {                                                             \
            size_t start = (size_t)offsets[i];                                                    \
            size_t at = ABNFC_FIRST_ERROR(bytes + start, (size_t)offsets[i + 1] - start);         \
            out[i] = at;                                                                          \
            invalid += at != SIZE_MAX;                                                            \
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
        size_t i, invalid = 0;                                                                    \
        for (i = 0; i < count; i++) {                                                             \
            size_t start = (size_t)offsets[i], bit = first_bit + i;                               \
            if (ABNFC_FIRST_ERROR(bytes + start, (size_t)offsets[i + 1] - start) == SIZE_MAX)     \
                bits[bit >> 3] = (uint8_t)(bits[bit >> 3] | (1u << (bit & 7u)));                  \
            else                                                                                  \
                invalid++;                                                                        \
        }                                                                                         \
        return invalid;                                                                           \
    }

ABNFC_FIRST_ERRORS(ABNFC_FN(first_errors), size_t)
ABNFC_FIRST_ERRORS(ABNFC_FN(first_errors_i32), int32_t)
ABNFC_FIRST_ERRORS(ABNFC_FN(first_errors_i64), int64_t)
ABNFC_VALID_BITS(ABNFC_FN(valid_bits_i32), int32_t)
ABNFC_VALID_BITS(ABNFC_FN(valid_bits_i64), int64_t)

/*
 * The lines of data[0 .. len), each without its "\n" or "\r\n" (no empty last line after a final
 * "\n"), checked in order.  Each invalid line is written to bad as four numbers: its index, its
 * first error, its start and its end in data.  Stops after `cap` invalid lines; *lines gets the
 * number of lines checked and *consumed the bytes they took, so that the caller goes on from
 * there.  Returns the number of invalid lines written.
 */
size_t ABNFC_FN(line_errors)(const void *data, size_t len, size_t *bad, size_t cap, size_t *lines,
                             size_t *consumed);
size_t ABNFC_FN(line_errors)(const void *data, size_t len, size_t *bad, size_t cap, size_t *lines,
                             size_t *consumed)
{
    const unsigned char *bytes = (const unsigned char *)data;
    size_t start = 0, index = 0, found = 0;
    while (start < len && found < cap) {
        const unsigned char *newline = (const unsigned char *)memchr(bytes + start, '\n', len - start);
        size_t end = newline ? (size_t)(newline - bytes) : len;
        size_t next = newline ? end + 1 : len;
        size_t at;
        if (newline && end > start && bytes[end - 1] == '\r')
            end--;
        at = ABNFC_FIRST_ERROR(bytes + start, end - start);
        if (at != SIZE_MAX) {
            bad[4 * found] = index;
            bad[4 * found + 1] = at;
            bad[4 * found + 2] = start;
            bad[4 * found + 3] = end;
            found++;
        }
        index++;
        start = next;
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
