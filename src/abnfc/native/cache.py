"""The cache of compiled batch kernels, and the C compiler that builds them.

The cache folder is ``$ABNFC_CACHE``, else ``$XDG_CACHE_HOME/abnfc``, else ``~/.cache/abnfc``;
a library's key covers everything its code depends on (see :func:`cache_key`), so that a
changed grammar, option, compiler, kernel or abnfc gets a new library and a stale one is never
loaded.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from ..version import __version__

# The kernel's source belongs to the C backend; its text is part of every key, so that a changed
# kernel is rebuilt.
KERNEL = Path(__file__).parent.parent / "backends" / "c" / "static" / "batch.c"
TEMPLATES = KERNEL.parent.parent / "templates"  # what the generated C is made from


def templates_stamp() -> str:
    """The names, sizes and times of the C backend's templates: a key made from a grammar's text
    (not from the generated source) includes it, so that a changed template (in a working copy,
    before the version changes) gets a new library."""
    entries = sorted((entry.name, entry.stat()) for entry in os.scandir(TEMPLATES)) if TEMPLATES.is_dir() else []
    return ";".join(f"{name}:{stat.st_size}:{stat.st_mtime_ns}" for name, stat in entries)


def find_compiler() -> str | None:
    """The C compiler: ``$CC`` if set and found, else ``cc``, ``gcc`` or ``clang``; None if none is."""
    for candidate in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if candidate and shutil.which(candidate):
            return candidate
    return None


def cache_folder() -> Path:
    """Where compiled kernels are kept: $ABNFC_CACHE, $XDG_CACHE_HOME/abnfc or ~/.cache/abnfc."""
    explicit = os.environ.get("ABNFC_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "abnfc"


def writable_cache_folder() -> Path:
    """The cache folder, made if needed, or a fresh temporary one when it cannot be made (a
    read-only home): a build then still works, it is only not kept."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    except OSError:
        return Path(tempfile.mkdtemp(prefix="abnfc-cache-"))


def cache_key(cc: str, *parts: str | bytes) -> str:
    """The key of a library: ``parts`` (what the caller's source depends on), the compiler (its
    name, and the size and time of the file it resolves to, so that an upgrade rebuilds),
    abnfc's version and the kernel's text."""
    found = shutil.which(cc) or cc
    stat = os.stat(os.path.realpath(found))
    digest = hashlib.sha256()
    for part in (__version__, cc, f"{found}:{stat.st_size}:{stat.st_mtime_ns}", KERNEL.read_bytes(), *parts):
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()[:40]


__all__ = ["KERNEL", "cache_folder", "cache_key", "find_compiler", "templates_stamp", "writable_cache_folder"]
