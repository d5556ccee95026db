"""A UTF-8 decoder written from RFC 2279's table, as glibc's mbrtowc behaves: one to six bytes
a character, the shortest form only, up to 0x7FFFFFFF, surrogates refused (crosscheck's
neighbour tests use it)."""

FIRST = {2: 0x80, 3: 0x800, 4: 0x10000, 5: 0x200000, 6: 0x4000000}  # the least value of each length


def _length(lead: int) -> int:
    for length, mask, value in ((1, 0x80, 0x00), (2, 0xE0, 0xC0), (3, 0xF0, 0xE0), (4, 0xF8, 0xF0),
                                (5, 0xFC, 0xF8), (6, 0xFE, 0xFC)):
        if lead & mask == value:
            return length
    return 0


def accepts(data: bytes) -> bool:
    at = 0
    while at < len(data):
        length = _length(data[at])
        if not length or at + length > len(data):
            return False
        value = data[at] & (0x7F >> length if length > 1 else 0x7F)
        for byte in data[at + 1:at + length]:
            if byte & 0xC0 != 0x80:
                return False
            value = value << 6 | byte & 0x3F
        if (length > 1 and value < FIRST[length]) or 0xD800 <= value <= 0xDFFF:
            return False
        at += length
    return True
