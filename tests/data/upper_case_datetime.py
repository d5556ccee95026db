"""An RFC 3339 validator that compares "T" and "Z" case-sensitively, as a regular expression
written from the RFC's examples does (crosscheck's neighbour tests use it)."""
import re

PATTERN = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


def accepts(data: bytes) -> bool:
    return PATTERN.fullmatch(data) is not None
