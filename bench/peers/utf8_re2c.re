/*
 * UTF-8 (RFC 3629 section 4) for re2c, a character class per rule as in the RFC.  Bounds checks
 * with a sentinel (re2c:eof): the buffer must have a 0 byte at s[n], which the caller provides.
 * A match of char+ per loop turn.  Generated with: re2c -W utf8_re2c.re
 */
#include <stddef.h>

int re2c_utf8_valid(const unsigned char *s, size_t n);

int re2c_utf8_valid(const unsigned char *s, size_t n)
{
    const unsigned char *YYCURSOR = s, *YYLIMIT = s + n, *YYMARKER;
    (void)YYMARKER;
    for (;;) {
    /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:yyfill:enable = 0;
        re2c:eof = 0;

        tail   = [\x80-\xBF];
        utf8_1 = [\x00-\x7F];
        utf8_2 = [\xC2-\xDF] tail;
        utf8_3 = [\xE0] [\xA0-\xBF] tail | [\xE1-\xEC] tail tail | [\xED] [\x80-\x9F] tail | [\xEE-\xEF] tail tail;
        utf8_4 = [\xF0] [\x90-\xBF] tail tail | [\xF1-\xF3] tail tail tail | [\xF4] [\x80-\x8F] tail tail;
        char   = utf8_1 | utf8_2 | utf8_3 | utf8_4;

        char+ { continue; }
        $     { return 1; }
        *     { return 0; }
    */
    }
}
