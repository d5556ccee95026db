// The generated header used from C++: it must compile cleanly as C++ and its extern "C"
// declarations must link against the generated source compiled as C.
// Build with -DPFX=<prefix> -DHEADER='"<prefix>.h"'; exits 0 when a few calls behave.
#include HEADER

#include <cstdio>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PFX, name)

int main()
{
    static const uint8_t text[] = { 0x41, 0xC3, 0xA4, 0xE2, 0x82, 0xAC };  // "Aä€"
    static const uint8_t cut[] = { 0x41, 0xE4, 0xBD };                     // ends inside a character
    static const uint8_t bad[] = { 0x41, 0xC0, 0x80 };                     // overlong
    API(_stream) s;
    API(_stream_init)(&s);
    bool fed = API(_stream_feed)(&s, text, 2) && API(_stream_feed)(&s, text + 2, sizeof text - 2);
    bool ok = API(_is_valid)(text, sizeof text) && API(_first_error)(text, sizeof text) == SIZE_MAX
              && API(_first_error)(cut, sizeof cut) == sizeof cut && API(_first_error)(bad, sizeof bad) == 1
              && !API(_is_valid)(bad, sizeof bad) && API(_is_valid)(nullptr, 0)
              && fed && API(_stream_complete)(&s) && API(_stream_finish)(&s) == SIZE_MAX;
    std::printf("%s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
