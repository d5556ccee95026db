"""What the C backend's output needs of a prefix: ``<prefix>.h`` must not shadow a standard
header, and ``<prefix>`` (which starts every identifier and macro) must not be a keyword or
start as the function names C reserves for its library."""
from __future__ import annotations

import re

from .. import Naming, Reserved

# Headers of the C and C++ standard libraries: <prefix>.h must not shadow one of them.
C_HEADERS = frozenset("""assert complex ctype errno fenv float inttypes iso646 limits locale math
    setjmp signal stdalign stdarg stdatomic stdbit stdbool stdckdint stddef stdint stdio stdlib
    stdnoreturn string tgmath threads time uchar wchar wctype algorithm any array atomic bitset
    cassert cctype cerrno cfloat chrono climits cmath complex cstddef cstdint cstdio cstdlib
    cstring ctime deque exception filesystem functional iomanip ios iosfwd iostream istream
    iterator limits list locale map memory mutex new numeric optional ostream queue random ratio
    regex set sstream stack stdexcept streambuf string thread tuple typeinfo utility valarray
    variant vector version unistd fcntl pthread""".split())
# Keywords of C (up to C23) and C++: <prefix> must not be one.
C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
    float for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while bool true false nullptr alignas alignof
    constexpr static_assert thread_local typeof typeof_unqual asm catch class const_cast delete
    dynamic_cast explicit export friend mutable namespace new noexcept operator private protected
    public reinterpret_cast static_cast template this throw try typeid typename using virtual
    wchar_t char8_t char16_t char32_t concept consteval constinit co_await co_return co_yield
    decltype requires and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq""".split())
# Function names the C standard reserves for future library use (C11 7.31.2, 7.31.5, 7.31.13):
# the generated functions have external linkage, so <prefix>_is_valid must not start so.
RESERVED_FUNCTIONS = re.compile(r"(str|mem|wcs|is|to)[a-z]")



def _reserved_function(prefix: str) -> str | None:
    found = RESERVED_FUNCTIONS.match(prefix)
    if found is None:
        return None
    return f"C reserves function names that start with {found.group(1)} and a lower-case letter"


NAMING = Naming(
    lambda prefix: (f"{prefix}.h", f"{prefix}.c"),
    reserved=(Reserved(C_KEYWORDS, "it is a C or C++ keyword", ignore_case=True),
              Reserved(C_HEADERS, "{prefix}.h would shadow the standard header <{lower}.h> or <{lower}>",
                       ignore_case=True)),
    check=_reserved_function,
)
