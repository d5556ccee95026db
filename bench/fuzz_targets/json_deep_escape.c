/* A JSON validator (RFC 8259, UTF-8) with a planted bug three levels deep: it parses values
 * recursively, but from nesting depth 3 on it reads strings with a second, faster scanner, and
 * that scanner's \u escape takes three hex digits where RFC 8259 has four.  So it accepts
 * [[["\u123:"]]], which the grammar refuses, and nothing changes at depth 1 or 2.  Otherwise it
 * takes what grammars/json.abnf takes. */
#include <stddef.h>
#include <stdint.h>

int user_accepts(const uint8_t *s, size_t n);

enum { MAX_DEPTH = 1000, FAST_STRINGS_FROM = 3 };

typedef struct {
    const uint8_t *s;
    size_t n, i;
} reader;

static int peek(const reader *r)
{
    return r->i < r->n ? r->s[r->i] : -1;
}

static void spaces(reader *r)
{
    while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r'))
        r->i++;
}

static int hex(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* One UTF-8 encoded code point of at least U+0020, not a surrogate, not '"' or '\\'. */
static int utf8_char(reader *r)
{
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    uint8_t c = r->s[r->i];
    size_t len, k;
    uint32_t cp;
    if (c < 0x80) {
        r->i++;
        return c >= 0x20;
    }
    if ((c & 0xE0) == 0xC0)
        len = 2, cp = c & 0x1Fu;
    else if ((c & 0xF0) == 0xE0)
        len = 3, cp = c & 0x0Fu;
    else if ((c & 0xF8) == 0xF0)
        len = 4, cp = c & 0x07u;
    else
        return 0;
    if (r->n - r->i < len)
        return 0;
    for (k = 1; k < len; k++) {
        if ((r->s[r->i + k] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (r->s[r->i + k] & 0x3Fu);
    }
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    r->i += len;
    return 1;
}

static int string(reader *r, int depth)
{
    size_t digits = depth >= FAST_STRINGS_FROM ? 3 : 4; /* the planted bug */
    r->i++; /* the opening quote */
    for (;;) {
        int c = peek(r);
        if (c < 0)
            return 0;
        if (c == '"') {
            r->i++;
            return 1;
        }
        if (c == '\\') {
            r->i++;
            c = peek(r);
            if (c == 'u') {
                size_t k;
                r->i++;
                for (k = 0; k < digits; k++, r->i++)
                    if (!hex(peek(r)))
                        return 0;
            } else if (c >= 0 && (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
                                  c == 'r' || c == 't'))
                r->i++;
            else
                return 0;
        } else if (!utf8_char(r))
            return 0;
    }
}

static int number(reader *r)
{
    if (peek(r) == '-')
        r->i++;
    if (peek(r) == '0')
        r->i++;
    else if (peek(r) >= '1' && peek(r) <= '9')
        while (peek(r) >= '0' && peek(r) <= '9')
            r->i++;
    else
        return 0;
    if (peek(r) == '.') {
        r->i++;
        if (!(peek(r) >= '0' && peek(r) <= '9'))
            return 0;
        while (peek(r) >= '0' && peek(r) <= '9')
            r->i++;
    }
    if (peek(r) == 'e' || peek(r) == 'E') {
        r->i++;
        if (peek(r) == '+' || peek(r) == '-')
            r->i++;
        if (!(peek(r) >= '0' && peek(r) <= '9'))
            return 0;
        while (peek(r) >= '0' && peek(r) <= '9')
            r->i++;
    }
    return 1;
}

static int word(reader *r, const char *w)
{
    for (; *w; w++, r->i++)
        if (peek(r) != (uint8_t)*w)
            return 0;
    return 1;
}

static int value(reader *r, int depth);

/* The members of an object or the elements of an array, after the opening bracket. */
static int items(reader *r, int depth, int close, int named)
{
    r->i++;
    spaces(r);
    if (peek(r) == close) {
        r->i++;
        return 1;
    }
    for (;;) {
        if (named) {
            if (peek(r) != '"' || !string(r, depth))
                return 0;
            spaces(r);
            if (peek(r) != ':')
                return 0;
            r->i++;
            spaces(r);
        }
        if (!value(r, depth))
            return 0;
        spaces(r);
        if (peek(r) == close) {
            r->i++;
            return 1;
        }
        if (peek(r) != ',')
            return 0;
        r->i++;
        spaces(r);
    }
}

/* A value at depth (the number of arrays and objects around it). */
static int value(reader *r, int depth)
{
    switch (peek(r)) {
    case '{': return depth < MAX_DEPTH && items(r, depth + 1, '}', 1);
    case '[': return depth < MAX_DEPTH && items(r, depth + 1, ']', 0);
    case '"': return string(r, depth);
    case 't': return word(r, "true");
    case 'f': return word(r, "false");
    case 'n': return word(r, "null");
    default: return number(r);
    }
}

int user_accepts(const uint8_t *s, size_t n)
{
    reader r = {s, n, 0};
    spaces(&r);
    if (!value(&r, 0))
        return 0;
    spaces(&r);
    return r.i == n;
}
