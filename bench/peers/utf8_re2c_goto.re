/*
 * UTF-8 (RFC 3629 section 4) for re2c with computed gotos (-g), which re2c only allows with
 * bounds checks by padding: the caller puts YYMAXFILL zero bytes after s[n].  The zero byte is
 * taken out of the character rules, so a zero is either data (before the end) or the padding.
 * Generated with: re2c -W -g utf8_re2c_goto.re
 */
#include <stddef.h>

/*!max:re2c*/

int re2c_utf8_valid_goto(const unsigned char *s, size_t n);

int re2c_utf8_valid_goto(const unsigned char *s, size_t n)
{
    const unsigned char *YYCURSOR = s, *end = s + n, *YYLIMIT = s + n + YYMAXFILL, *YYMARKER;
    (void)YYMARKER;
    for (;;) {
    /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:define:YYFILL = "return 0;";
        re2c:define:YYFILL:naked = 1;

        tail   = [\x80-\xBF];
        utf8_1 = [\x01-\x7F];
        utf8_2 = [\xC2-\xDF] tail;
        utf8_3 = [\xE0] [\xA0-\xBF] tail | [\xE1-\xEC] tail tail | [\xED] [\x80-\x9F] tail | [\xEE-\xEF] tail tail;
        utf8_4 = [\xF0] [\x90-\xBF] tail tail | [\xF1-\xF3] tail tail tail | [\xF4] [\x80-\x8F] tail tail;
        char   = utf8_1 | utf8_2 | utf8_3 | utf8_4;

        char+  { continue; }
        [\x00] { if (YYCURSOR > end) return YYCURSOR == end + 1; continue; }
        *      { return 0; }
    */
    }
}
