/* An RFC 3339 date-time parser with a planted bug: it checks a leap second (second 60) against
 * the end of a UTC day, 23:59, without applying the time offset first, so it refuses a valid
 * leap second given in local time, such as RFC 3339's own example 1990-12-31T15:59:60-08:00.
 * Otherwise it takes what the grammar takes: digits where the grammar has DIGIT, with no range
 * checks (grammars/datetime.abnf leaves those to the comments, as RFC 3339 does). */
#include <stddef.h>
#include <stdint.h>

int user_accepts(const uint8_t *s, size_t n);

static int digits(const uint8_t *s, size_t count)
{
    size_t i;
    for (i = 0; i < count; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int number(const uint8_t *s)
{
    return (s[0] - '0') * 10 + (s[1] - '0');
}

int user_accepts(const uint8_t *s, size_t n)
{
    size_t i = 19;
    if (n < 20 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' || !digits(s + 8, 2) ||
        (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2) ||
        s[16] != ':' || !digits(s + 17, 2))
        return 0;
    if (s[i] == '.') {
        size_t start = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return 0;
    }
    if (i < n && (s[i] == 'Z' || s[i] == 'z'))
        i++;
    else if (i < n && (s[i] == '+' || s[i] == '-')) {
        if (n - i < 6 || !digits(s + i + 1, 2) || s[i + 3] != ':' || !digits(s + i + 4, 2))
            return 0;
        /* the planted bug: the leap second is checked in local time */
        if (number(s + 17) == 60 && !(number(s + 11) == 23 && number(s + 14) == 59))
            return 0;
        i += 6;
    } else
        return 0;
    return i == n;
}
