/*
 * URI-reference (RFC 3986 Appendix A) for re2c, rule by rule as in grammars/uri.abnf.  The input
 * is one line of a corpus: the byte after it is a line feed, which no URI contains, so the
 * automaton stops there by itself (re2c's sentinel method).  Valid when the longest match is the
 * whole line.  Generated with: re2c -W uri_re2c.re
 */
#include <stddef.h>

int re2c_uri_valid(const unsigned char *s, size_t n);

int re2c_uri_valid(const unsigned char *s, size_t n)
{
    const unsigned char *YYCURSOR = s, *YYMARKER;
    /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:yyfill:enable = 0;

        ALPHA = [A-Za-z];
        DIGIT = [0-9];
        HEXDIG = [0-9A-Fa-f];
        unreserved = ALPHA | DIGIT | [-._~];
        sub_delims = [!$&'()*+,;=];
        pct_encoded = "%" HEXDIG HEXDIG;
        pchar = unreserved | pct_encoded | sub_delims | [:@];
        query = (pchar | [/?])*;
        fragment = (pchar | [/?])*;
        segment = pchar*;
        segment_nz = pchar+;
        segment_nz_nc = (unreserved | pct_encoded | sub_delims | "@")+;
        path_abempty = ("/" segment)*;
        path_absolute = "/" (segment_nz ("/" segment)*)?;
        path_noscheme = segment_nz_nc ("/" segment)*;
        path_rootless = segment_nz ("/" segment)*;
        path_empty = "";
        dec_octet = DIGIT | [1-9] DIGIT | "1" DIGIT DIGIT | "2" [0-4] DIGIT | "25" [0-5];
        IPv4address = dec_octet "." dec_octet "." dec_octet "." dec_octet;
        h16 = HEXDIG | HEXDIG HEXDIG | HEXDIG HEXDIG HEXDIG | HEXDIG HEXDIG HEXDIG HEXDIG;
        ls32 = (h16 ":" h16) | IPv4address;
        IPv6address =                                                       (h16 ":") (h16 ":") (h16 ":") (h16 ":") (h16 ":") (h16 ":") ls32
                    |                                                  "::" (h16 ":") (h16 ":") (h16 ":") (h16 ":") (h16 ":") ls32
                    | (h16)?                                           "::" (h16 ":") (h16 ":") (h16 ":") (h16 ":") ls32
                    | ((h16 ":")? h16)?                                "::" (h16 ":") (h16 ":") (h16 ":") ls32
                    | ((h16 ":")? (h16 ":")? h16)?                     "::" (h16 ":") (h16 ":") ls32
                    | ((h16 ":")? (h16 ":")? (h16 ":")? h16)?          "::" h16 ":" ls32
                    | ((h16 ":")? (h16 ":")? (h16 ":")? (h16 ":")? h16)? "::" ls32
                    | ((h16 ":")? (h16 ":")? (h16 ":")? (h16 ":")? (h16 ":")? h16)? "::" h16
                    | ((h16 ":")? (h16 ":")? (h16 ":")? (h16 ":")? (h16 ":")? (h16 ":")? h16)? "::";
        IPvFuture = 'v' HEXDIG+ "." (unreserved | sub_delims | ":")+;
        IP_literal = "[" (IPv6address | IPvFuture) "]";
        reg_name = (unreserved | pct_encoded | sub_delims)*;
        host = IP_literal | IPv4address | reg_name;
        port = DIGIT*;
        userinfo = (unreserved | pct_encoded | sub_delims | ":")*;
        authority = (userinfo "@")? host (":" port)?;
        scheme = ALPHA (ALPHA | DIGIT | [+-.])*;
        relative_part = "//" authority path_abempty | path_absolute | path_noscheme | path_empty;
        relative_ref = relative_part ("?" query)? ("#" fragment)?;
        hier_part = "//" authority path_abempty | path_absolute | path_rootless | path_empty;
        URI = scheme ":" hier_part ("?" query)? ("#" fragment)?;
        URI_reference = URI | relative_ref;

        URI_reference { return YYCURSOR == s + n; }
        *             { return 0; }
    */
}
