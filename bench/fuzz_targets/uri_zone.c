/* A URI parser with a planted bug: it takes a zone identifier in an IPv6 address literal
 * ("http://[fe80::1%25eth0]/", RFC 6874), which RFC 3986 has not; Python's urllib.parse.urlsplit
 * and libcurl's URL API take them too.  Its validity check is the generated validator of
 * grammars/variants/uri-zone-id.abnf (RFC 3986 with RFC 6874's rules). */
#include <stddef.h>
#include <stdint.h>

#include "uri_zone_id.h"

int user_accepts(const uint8_t *data, size_t size);

int user_accepts(const uint8_t *data, size_t size)
{
    return uri_zone_id_is_valid(data, size);
}
