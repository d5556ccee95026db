/*
 * abnfc's record readers: the field of each JSON Lines record and the column of each CSV record,
 * taken out of a block of bytes in one call and joined into one buffer with offsets (Arrow's
 * layout), so that Python makes one call per block instead of one per record.
 *
 * They are exact by refusing: a reader takes only what it is sure Python's own readers (json and
 * csv, as abnfc.records.formats uses them) make the same of, and hands anything else back.
 *
 * JSON Lines (RFC 8259, by recursive descent): a line of JSON whitespace only (" \t\r\n") is no
 * record; a line is taken when it is one object, nested at most JSONL_MAX_DEPTH deep, valid UTF-8
 * throughout (no encoded surrogates, no overlong forms), its strings without raw control
 * characters and with only RFC 8259's escapes, its numbers RFC 8259's, and its top-level key
 * (unescaped; the last occurrence, as Python's json) holding a string without lone surrogates
 * escaped, or null.  Any other line (a missing field, an escaped key, a number for the field, a
 * byte order mark, NaN, deep nesting, invalid JSON) stops the call as a record marked
 * JSONL_PYTHON, to be read by Python's json module, which decides and words any error.
 *
 * CSV (Python's csv module in strict mode, excel dialect, an ASCII delimiter): the same state
 * machine as Modules/_csv.c over bytes (its special characters are ASCII, so UTF-8 and
 * surrogate-escaped bytes pass through unchanged).  A line ends at "\n", "\r" or "\r\n", as
 * Python's newline="" reading splits it, and a line break inside quotes is part of the field.  A
 * record that is not strict CSV (a character after a closing quote, a quote never closed) or
 * that holds a field of CSV_FIELD_LIMIT bytes or more stops the call, for Python to read from
 * there.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef ABNFC_KERNEL_KEY
extern const char abnfc_kernel_key[];
const char abnfc_kernel_key[] = ABNFC_KERNEL_KEY;
#endif

#define JSONL_MAX_DEPTH 64 /* far below Python's recursion limit */

enum { RECORD_VALUE = 0, RECORD_NULL = 1, RECORD_PYTHON = 2 };

/* ---------------------------------------------------------------------------------------- */
/* JSON */

typedef struct {
    const uint8_t *p, *end;
    uint8_t *out;         /* where the field's value is decoded, or NULL while skipping */
} Json;

/* The bytes a string holds as they are: printable ASCII but the quote and the backslash. */
static const uint8_t PLAIN[256] = {
    ['\x20'] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x22: the quote */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,  /* 0x5C: the backslash */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* JSON's whitespace within a line: a "\n" ends the line, so the parser stops at it. */
static int json_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\r'; }

static inline void skip_space(Json *j) {
    while (j->p < j->end && json_space(*j->p)) j->p++;
}

static int hex_value(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Four hex digits at p (which has at least four bytes), or -1. */
static long hex4(const uint8_t *p) {
    long value = 0;
    for (int i = 0; i < 4; i++) {
        int digit = hex_value(p[i]);
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

/* The length of the well-formed UTF-8 sequence at p (a non-ASCII lead byte), 0 if it is not one
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_length(const uint8_t *p, const uint8_t *end) {
    uint8_t c = p[0];
    size_t left = (size_t)(end - p);
    if (c >= 0xC2 && c <= 0xDF) return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;
        if (c == 0xED && p[1] >= 0xA0) return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;
        if (c == 0xF4 && p[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

static uint8_t *put_utf8(uint8_t *out, unsigned long c) {
    if (c < 0x80) {
        *out++ = (uint8_t)c;
    } else if (c < 0x800) {
        *out++ = (uint8_t)(0xC0 | (c >> 6));
        *out++ = (uint8_t)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *out++ = (uint8_t)(0xE0 | (c >> 12));
        *out++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        *out++ = (uint8_t)(0x80 | (c & 0x3F));
    } else {
        *out++ = (uint8_t)(0xF0 | (c >> 18));
        *out++ = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
        *out++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        *out++ = (uint8_t)(0x80 | (c & 0x3F));
    }
    return out;
}

/* A string after its opening quote, up to and past its closing one; decoded into j->out when it
 * is set (and then a lone surrogate escaped is refused: Python keeps it as a surrogate).  The
 * decoded value is never longer than its source. */
static inline int json_string(Json *j) {
    const uint8_t *p = j->p, *end = j->end;
    uint8_t *out = j->out;
    while (p < end) {
        const uint8_t *run = p;  /* printable ASCII but the quote and the backslash, at once */
        while (p < end && PLAIN[*p]) p++;
        if (out) { memcpy(out, run, (size_t)(p - run)); out += p - run; }
        if (p == end) break;
        uint8_t c = *p;
        if (c == '"') {
            j->p = p + 1;
            j->out = out;
            return 1;
        }
        if (c < 0x20) return 0;
        if (c < 0x80 && c != '\\') {
            if (out) *out++ = c;
            p++;
            continue;
        }
        if (c >= 0x80) {
            size_t n = utf8_length(p, end);
            if (n == 0) return 0;
            if (out) { memcpy(out, p, n); out += n; }
            p += n;
            continue;
        }
        if (end - p < 2) return 0;
        uint8_t e = p[1];
        const char *simple = "\"\\/bfnrt";
        const char *decoded = "\"\\/\b\f\n\r\t";
        const char *found = e ? strchr(simple, e) : NULL;
        if (found) {
            if (out) *out++ = (uint8_t)decoded[found - simple];
            p += 2;
            continue;
        }
        if (e != 'u' || end - p < 6) return 0;
        long unit = hex4(p + 2);
        if (unit < 0) return 0;
        p += 6;
        if (!out) continue;  /* skipped: any escape of four hex digits is Python's too */
        if (unit >= 0xDC00 && unit <= 0xDFFF) return 0;
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return 0;
            long low = hex4(p + 2);
            if (low < 0xDC00 || low > 0xDFFF) return 0;
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            p += 6;
        }
        out = put_utf8(out, (unsigned long)unit);
    }
    return 0;
}

static int digits(Json *j) {
    const uint8_t *start = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    return j->p > start;
}

/* RFC 8259's number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static int json_number(Json *j) {
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p >= j->end) return 0;
    if (*j->p == '0') j->p++;
    else if (!digits(j)) return 0;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!digits(j)) return 0;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (!digits(j)) return 0;
    }
    /* what follows a number must end it (Python's scanner would read "01" as 0, then fail) */
    return j->p >= j->end || !(*j->p >= '0' && *j->p <= '9');
}

static int json_literal(Json *j, const char *word, size_t n) {
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0) return 0;
    j->p += n;
    return 1;
}

static int json_value(Json *j, int depth);

static int json_members(Json *j, int depth, uint8_t close) {
    skip_space(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return 1;
    }
    for (;;) {
        skip_space(j);
        if (close == '}') {
            if (j->p >= j->end || *j->p != '"') return 0;
            j->p++;
            if (!json_string(j)) return 0;
            skip_space(j);
            if (j->p >= j->end || *j->p != ':') return 0;
            j->p++;
            skip_space(j);
        }
        if (!json_value(j, depth)) return 0;
        skip_space(j);
        if (j->p >= j->end) return 0;
        if (*j->p == close) {
            j->p++;
            return 1;
        }
        if (*j->p != ',') return 0;
        j->p++;
    }
}

static int json_value(Json *j, int depth) {
    if (j->p >= j->end) return 0;
    switch (*j->p) {
    case '"':
        j->p++;
        return json_string(j);
    case '{':
    case '[':
        if (depth >= JSONL_MAX_DEPTH) return 0;
        return json_members(j, depth + 1, *j->p++ == '{' ? '}' : ']');
    case 't': return json_literal(j, "true", 4);
    case 'f': return json_literal(j, "false", 5);
    case 'n': return json_literal(j, "null", 4);
    default: return json_number(j);
    }
}

/* The line from p (before `end`, the end of the bytes) as one object whose top-level `key` holds
 * a string (decoded at out, its end in *value_end) or null: RECORD_VALUE, RECORD_NULL, and the
 * line's end (past its "\n") in *line_end; anything else RECORD_PYTHON. */
static int jsonl_record(const uint8_t *p, const uint8_t *end, const uint8_t *key, size_t key_len,
                        uint8_t *out, uint8_t **value_end, const uint8_t **line_end) {
    Json j = {p, end, NULL};
    int status = RECORD_PYTHON;
    skip_space(&j);
    if (j.p >= j.end || *j.p != '{') return RECORD_PYTHON;
    j.p++;
    skip_space(&j);
    if (j.p < j.end && *j.p == '}') return RECORD_PYTHON;  /* {}: the field is missing */
    for (;;) {
        skip_space(&j);
        if (j.p >= j.end || *j.p != '"') return RECORD_PYTHON;
        const uint8_t *name = ++j.p;
        if (!json_string(&j)) return RECORD_PYTHON;
        size_t name_len = (size_t)(j.p - 1 - name);
        if (memchr(name, '\\', name_len)) return RECORD_PYTHON;  /* an escaped name might be the key */
        int ours = name_len == key_len && memcmp(name, key, key_len) == 0;
        skip_space(&j);
        if (j.p >= j.end || *j.p != ':') return RECORD_PYTHON;
        j.p++;
        skip_space(&j);
        if (ours) {
            if (j.p < j.end && *j.p == '"') {
                j.p++;
                j.out = out;  /* a later duplicate overwrites an earlier value: the last counts */
                if (!json_string(&j)) return RECORD_PYTHON;
                *value_end = j.out;
                j.out = NULL;
                status = RECORD_VALUE;
            } else if (json_literal(&j, "null", 4)) {
                status = RECORD_NULL;
            } else {
                return RECORD_PYTHON;  /* not a string: the user's error, worded by Python */
            }
        } else if (!json_value(&j, 1)) {
            return RECORD_PYTHON;
        }
        skip_space(&j);
        if (j.p >= j.end) return RECORD_PYTHON;
        if (*j.p == '}') break;
        if (*j.p != ',') return RECORD_PYTHON;
        j.p++;
    }
    j.p++;
    skip_space(&j);
    if (j.p < j.end && *j.p != '\n') return RECORD_PYTHON;
    *line_end = j.p < j.end ? j.p + 1 : j.end;
    return status;
}

/*
 * The records of the whole lines in data[0, size) (the last one may lack its "\n"), up to
 * `max_records` of them, the first line being number `first_line`: record i's value goes to
 * out (which holds at least `size` bytes past out[offsets[0]]), from offsets[i] to
 * offsets[i + 1]; status[i] is RECORD_VALUE, RECORD_NULL or RECORD_PYTHON; numbers[i] is its
 * line's number and starts[i] where its line starts in data.  The call stops after a
 * RECORD_PYTHON record (its value empty) so that Python can read it before the next.  Returns
 * the records; *consumed and *lines are the bytes and lines read.
 */
size_t abnfc_jsonl_scan(const uint8_t *data, size_t size, const uint8_t *key, size_t key_len,
                        size_t max_records, uint64_t first_line, uint8_t *out, uint64_t *offsets,
                        uint8_t *status, uint64_t *numbers, uint64_t *starts, size_t *consumed,
                        size_t *lines) {
    size_t at = 0, count = 0, line = 0;
    while (at < size && count < max_records) {
        const uint8_t *start = data + at, *end = data + size, *first = start;
        line++;
        while (first < end && json_space(*first)) first++;
        if (first == end || *first == '\n') {  /* a blank line */
            at = first == end ? size : (size_t)(first + 1 - data);
            continue;
        }
        uint8_t *value = out + offsets[count], *value_end = value;
        const uint8_t *line_end = end;
        int kind = jsonl_record(first, end, key, key_len, value, &value_end, &line_end);
        if (kind != RECORD_VALUE) value_end = value;
        if (kind == RECORD_PYTHON) {
            const uint8_t *newline = memchr(first, '\n', (size_t)(end - first));
            line_end = newline ? newline + 1 : end;
        }
        at = (size_t)(line_end - data);
        status[count] = (uint8_t)kind;
        numbers[count] = first_line + line - 1;
        starts[count] = (uint64_t)(start - data);
        offsets[count + 1] = offsets[count] + (uint64_t)(value_end - value);
        count++;
        if (kind == RECORD_PYTHON) break;
    }
    *consumed = at;
    *lines = line;
    return count;
}

/* ---------------------------------------------------------------------------------------- */
/* CSV */

enum { ROW_DONE = 0, ROW_MORE = 1, ROW_PYTHON = 2 };  /* a row read, more bytes needed, for Python */

typedef struct {
    size_t end;      /* where the row's last line ends */
    size_t lines;    /* the lines it spans */
    size_t fields;   /* its fields; 0 for a blank line */
} Row;

/* The end of a line break at p (a '\r' or '\n'); 0 when a final '\r' may yet be one with a '\n'. */
static size_t line_break_end(const uint8_t *p, const uint8_t *end, int final) {
    if (*p == '\n') return 1;
    if (p + 1 < end) return p[1] == '\n' ? 2 : 1;
    return final ? 1 : 0;
}

/*
 * One row of data[at, size), column `column` (0-based; -1: none) copied to *out unquoted (its
 * length in *value_len).  ROW_MORE when the bytes end inside it and more may come (`final` 0), or
 * when there are none.  The states are Modules/_csv.c's (START_FIELD, IN_FIELD, IN_QUOTED_FIELD,
 * QUOTE_IN_QUOTED_FIELD), taken a field at a time: a run of plain bytes is skipped at once.
 * `stops` marks the delimiter, '\r' and '\n'.
 */
static int csv_row(const uint8_t *data, size_t at, size_t size, int final, uint8_t delimiter,
                   const uint8_t *stops, long long column, size_t field_limit, uint8_t *out,
                   size_t *value_len, Row *row) {
    const uint8_t *p = data + at, *end = data + size;
    size_t field = 0, lines = 0, written = 0;
    row->fields = 0;
    *value_len = 0;
    if (p == end) return ROW_MORE;
    if (*p == '\r' || *p == '\n') {  /* a blank line */
        size_t n = line_break_end(p, end, final);
        if (!n) return ROW_MORE;
        row->end = at + n;
        row->lines = 1;
        return ROW_DONE;
    }
    for (;; field++, p++) {  /* p: the start of a field */
        int ours = (long long)field == column;
        size_t length = 0;
        if (p < end && *p == '"') {
            for (p++;;) {  /* IN_QUOTED_FIELD */
                const uint8_t *q = p;
                while (q < end && *q != '"' && *q != '\r' && *q != '\n') q++;
                if (ours) { memcpy(out + written, p, (size_t)(q - p)); written += (size_t)(q - p); }
                length += (size_t)(q - p);
                p = q;
                if (length >= field_limit) return ROW_PYTHON;
                if (p == end) return final ? ROW_PYTHON : ROW_MORE;  /* a quote never closed */
                if (*p == '"') {  /* QUOTE_IN_QUOTED_FIELD: "" is a quote, anything else ends the field */
                    if (p + 1 == end && !final) return ROW_MORE;
                    if (p + 1 < end && p[1] == '"') {
                        if (ours) out[written++] = '"';
                        length++;
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                size_t n = line_break_end(p, end, final);  /* a line break inside quotes */
                if (!n) return ROW_MORE;
                if (ours) { memcpy(out + written, p, n); written += n; }
                length += n;
                lines++;
                p += n;
            }
            /* strict: only a delimiter, a line break or the end after a closing quote */
            if (p < end && !stops[*p]) return ROW_PYTHON;
        } else {  /* START_FIELD, then IN_FIELD: a quote here is a character like any other */
            const uint8_t *q = p;
            while (q < end && !stops[*q]) q++;
            if (ours) { memcpy(out + written, p, (size_t)(q - p)); written += (size_t)(q - p); }
            length = (size_t)(q - p);
            p = q;
            if (length >= field_limit) return ROW_PYTHON;
        }
        if (p == end) {  /* the last line, without a line break */
            if (!final) return ROW_MORE;
            row->end = size;
            break;
        }
        if (*p != delimiter) {  /* a line break ends the row */
            size_t n = line_break_end(p, end, final);
            if (!n) return ROW_MORE;
            row->end = (size_t)(p - data) + n;
            break;
        }
    }
    row->lines = lines + 1;
    row->fields = field + 1;
    *value_len = written;
    return ROW_DONE;
}

static void stop_bytes(uint8_t stops[256], uint8_t delimiter) {
    memset(stops, 0, 256);
    stops['\r'] = stops['\n'] = stops[delimiter] = 1;
}

/* Where the first row of data[0, size) ends (its line break included), or -1 when more bytes
 * are needed, -2 when it is for Python (see csv_row); *lines is the lines it spans. */
long long abnfc_csv_row_end(const uint8_t *data, size_t size, int final, uint8_t delimiter,
                            size_t field_limit, size_t *lines) {
    Row row;
    size_t ignored;
    uint8_t stops[256];
    stop_bytes(stops, delimiter);
    int found = csv_row(data, 0, size, final, delimiter, stops, -1, field_limit, NULL, &ignored, &row);
    if (found != ROW_DONE) return found == ROW_MORE ? -1 : -2;
    *lines = row.lines;
    return (long long)row.end;
}

/*
 * The records of data[0, size), up to `max_records`, the first starting on line `first_line`:
 * column `column` of record i goes to out from offsets[i] to offsets[i + 1] (out holds at least
 * `size` bytes past out[offsets[0]]); missing[i] is 1 for a row without the column; line_of[i]
 * is the line the record starts on.  Blank lines are skipped.  Stops before a row that needs
 * more bytes (`final` 0) or is for Python (*python set).  Returns the records; *consumed and
 * *lines are the bytes and lines read.
 */
size_t abnfc_csv_scan(const uint8_t *data, size_t size, int final, uint8_t delimiter, long long column,
                      size_t field_limit, size_t max_records, uint64_t first_line, uint8_t *out,
                      uint64_t *offsets, uint8_t *missing, uint64_t *line_of, size_t *consumed,
                      size_t *lines, int *python) {
    size_t at = 0, count = 0, line = 0;
    uint8_t stops[256];
    stop_bytes(stops, delimiter);
    *python = 0;
    while (at < size && count < max_records) {
        Row row;
        size_t value_len = 0;
        int found = csv_row(data, at, size, final, delimiter, stops, column, field_limit, out + offsets[count],
                            &value_len, &row);
        if (found != ROW_DONE) {
            *python = found == ROW_PYTHON;
            break;
        }
        if (row.fields) {
            missing[count] = (long long)row.fields <= column;
            line_of[count] = first_line + line;
            offsets[count + 1] = offsets[count] + value_len;
            count++;
        }
        line += row.lines;
        at = row.end;
    }
    *consumed = at;
    *lines = line;
    return count;
}
