"""Python's json.loads as crosscheck's --python adapter, as docs/cross-checking.md shows it: an
exception means rejected."""
import json


def accepts(data: bytes) -> bool:
    json.loads(data.decode("utf-8"))
    return True
