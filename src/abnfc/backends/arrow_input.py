"""Arrow arrays handed to ``validate_arrow``: checked before any kernel reads them, and seen as bytes.

pyarrow accepts arrays whose offsets decrease or point past the data buffer (``Array.validate()``
checks only the last offset; ``from_buffers`` and the C data interface check nothing), and the
batch kernel reads values at their offsets: a value of "negative" length or beyond the buffer
would be read out of bounds, a crash.  So the offsets of a string or binary array are checked
first, by pyarrow's full validation of the array seen as binary (monotonic, within the data
buffer; O(n) in C++, without the UTF-8 check that a string array's full validation adds).
Views are checked by the kernel itself, each against its buffer.

A string value is checked as its bytes, UTF-8 or not, as every other input is: the array is seen
as the binary type of the same layout (no copy), so that no path decodes it.
"""
from __future__ import annotations

from typing import Any

from ..errors import AbnfError
from ..i18n import _
from ..native.kernel import arrow_width

AS_BINARY = {"string": "binary", "large_string": "large_binary", "string_view": "binary_view"}


def as_bytes(values: Any) -> Any:
    """A pyarrow string or binary array (or chunked array) as binary of the same layout, its
    offsets checked; AbnfError for a malformed array or one that holds no strings."""
    import pyarrow as pa

    binary = pa.type_for_alias(AS_BINARY.get(str(values.type), str(values.type)))
    if hasattr(values, "chunks"):
        return pa.chunked_array([as_bytes(chunk) for chunk in values.chunks], type=binary)
    width = arrow_width(values.type)  # an AbnfError for a type that holds no strings
    seen = values.view(binary) if binary != values.type else values
    if width:
        try:
            seen.validate(full=True)
        except pa.ArrowInvalid as error:
            raise AbnfError.at(None, _("a {type} array has offsets out of order or outside its data buffer; it is "
                                       "malformed: {reason}").format(type=values.type, reason=error)) from None
    return seen


__all__ = ["as_bytes"]
