/*
 * UTF-8 (RFC 3629 section 4) for Ragel.  Generated with: ragel -G2 utf8_ragel.rl (goto-driven
 * code, Ragel's fastest output style).
 */
#include <stddef.h>

%%{
    machine utf8;
    alphtype unsigned char;

    tail   = 0x80..0xBF;
    utf8_1 = 0x00..0x7F;
    utf8_2 = 0xC2..0xDF tail;
    utf8_3 = 0xE0 0xA0..0xBF tail | 0xE1..0xEC tail tail | 0xED 0x80..0x9F tail | 0xEE..0xEF tail tail;
    utf8_4 = 0xF0 0x90..0xBF tail tail | 0xF1..0xF3 tail tail tail | 0xF4 0x80..0x8F tail tail;

    main := ( utf8_1 | utf8_2 | utf8_3 | utf8_4 )*;
}%%

%% write data noerror;

int ragel_utf8_valid(const unsigned char *p, size_t n);

int ragel_utf8_valid(const unsigned char *p, size_t n)
{
    const unsigned char *pe = p + n;
    int cs;
    %% write init;
    %% write exec;
    return cs >= utf8_first_final;
}
