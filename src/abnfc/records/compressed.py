"""Compressed record files: a gzip or zstd file (or standard input) is read as the records it
holds, recognised by its first bytes (RFC 1952's ``1f 8b``, RFC 8878's ``28 b5 2f fd``), not by
its name, so that a pipe works too.

gzip is Python's own module (every member of a multi-member file in turn); zstd needs the
``zstandard`` package, and without it such a file is refused with a message rather than read as
compressed bytes that no record grammar matches.  A damaged or truncated stream is an error the
caller reports as a file it cannot read (:data:`READ_ERRORS`).
"""
from __future__ import annotations

import gzip
import io
import zlib
from typing import Any, BinaryIO, cast

from ..i18n import _
from .formats import RecordError

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# a file that cannot be read: a damaged or cut gzip stream raises the last two
READ_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error)


def decompressed(stream: BinaryIO, name: str) -> BinaryIO:
    """``stream``, or what it holds when it is gzip or zstd (``name`` for messages)."""
    head = _head(stream)
    if head.startswith(GZIP_MAGIC):
        return cast(BinaryIO, gzip.GzipFile(fileobj=stream, mode="rb"))
    if head.startswith(ZSTD_MAGIC):
        return _zstd(stream, name)
    return stream


def _head(stream: BinaryIO) -> bytes:
    """The first bytes of a stream, left to be read again."""
    if hasattr(stream, "peek"):
        return stream.peek(len(ZSTD_MAGIC))[: len(ZSTD_MAGIC)]
    if stream.seekable():
        at = stream.tell()
        head = stream.read(len(ZSTD_MAGIC))
        stream.seek(at)
        return head
    return b""  # neither: read as it is


def _zstd(stream: BinaryIO, name: str) -> BinaryIO:
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise RecordError.at(None, _("{name} is compressed with zstd, and reading it needs the zstandard "
                                     "package: pip install zstandard (or decompress it first: zstd -d)").format(
            name=name)) from None
    reader = zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True, closefd=False)
    return cast(BinaryIO, io.BufferedReader(_Raw(reader, zstandard.ZstdError)))


class _Raw(io.RawIOBase):
    """A decompressing reader whose errors are OSErrors, as a damaged file's are."""

    def __init__(self, reader: Any, error: type[Exception]):
        self.reader, self.error = reader, error

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            return self.reader.readinto(buffer)
        except self.error as error:
            raise OSError(str(error)) from None


__all__ = ["READ_ERRORS", "decompressed"]
