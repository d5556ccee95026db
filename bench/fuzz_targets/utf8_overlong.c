/* A UTF-8 decoder's validity check with a planted bug: the least code point of a 4-byte sequence
 * is off by one (0xFFFF for 0x10000), so it accepts one overlong form, F0 8F BF BF (U+FFFF). */
#include <stddef.h>
#include <stdint.h>

int user_accepts(const uint8_t *s, size_t n);

int user_accepts(const uint8_t *s, size_t n)
{
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0xFFFF};
    size_t i = 0, k, len;
    while (i < n) {
        uint8_t c = s[i];
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1Fu;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0Fu;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07u;
        } else {
            return 0;
        }
        if (n - i < len)
            return 0;
        for (k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3Fu);
        }
        if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}
