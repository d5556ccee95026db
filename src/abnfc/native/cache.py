"""The cache of compiled kernels (batch kernels and DuckDB extensions): where it is, whether it
may be trusted, the key of a library, and how a library is stored, verified and loaded.

Where: ``$ABNFC_CACHE``, else ``$XDG_CACHE_HOME/abnfc``, else ``~/.cache/abnfc``.

The key (:func:`kernel_key`, the only function that makes one) covers everything a library's
code depends on: abnfc's version, the compiler (its name, and the size and time of its file), the
source of every stage that turns a grammar's bytes into C (the front end, the automata, the
backends' shared modules, the C backend's Python and templates, and the static C files: hashed,
so that an edit in a working copy rebuilds before the version changes) and the caller's parts
(the grammar's bytes and options, or a generated source).  The library carries its key (the C
string ``abnfc_kernel_key``) and is compared with the key it is looked up by.

Trust, as ssh's StrictModes and git's safe.directory decide it: the folder must be owned by the
user and writable by no one else, and so must every file read from it; a folder that is not
(a shared CI cache, a world-writable temporary folder) is not used, and the library is built in
a private temporary folder instead, with one note.  Folders are made 0700, files 0600 (0700 for
libraries).

Integrity: a library is stored *sealed* -- followed by a trailer of a magic string, its size and
its SHA-256 -- written to a private temporary file in the folder and renamed into place, so that
concurrent builds of one key leave one complete file; before a library is loaded its seal is
checked and its key found in it, so a truncated or damaged file (a full disk, a killed copy) is
rebuilt, never loaded (``dlopen`` of a truncated library dies of a bus error).  Shared
libraries ignore bytes after their last segment, so the sealed file loads as it is.  A folder
that cannot be made or written (read-only, full) gets the same private temporary build, removed
once the library is loaded.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from ..errors import AbnfError
from ..i18n import _
from ..version import __version__

HERE = Path(os.path.realpath(__file__)).parent
PACKAGE = HERE.parent  # the abnfc package
STATIC = HERE / "static"
KERNEL = STATIC / "batch.c"
# What turns a grammar's bytes into the C a kernel is built from: its source is part of every key.
LOWERING = ("frontend", "automata", "backends/*.py", "backends/c", "native/static", "pipeline.py",
            "grammar_facts.py", "charset.py")
SOURCE_SUFFIXES = (".py", ".j2", ".c", ".h")
KEY_LENGTH = 40  # hexadecimal digits of a key
MAGIC = b"abnfcSL1"  # the seal's first bytes
SEAL = len(MAGIC) + 8 + 32  # magic, payload size (8 bytes, little-endian), SHA-256 of the payload

T = TypeVar("T")
Note = Callable[[str], None]


class KernelCacheWarning(UserWarning):
    """The cache could not be used (not private, not writable): the kernel was built elsewhere."""


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


# ---------------------------------------------------------------------------------------------
# The key


@lru_cache(maxsize=1)
def lowering_digest() -> bytes:
    """SHA-256 of the source files of :data:`LOWERING` (their paths and bytes, in a fixed order),
    read once a process."""
    digest = hashlib.sha256()
    for path in _lowering_files():
        data = path.read_bytes()
        name = path.relative_to(PACKAGE).as_posix().encode("utf-8")
        digest.update(len(name).to_bytes(8, "little") + name + len(data).to_bytes(8, "little") + data)
    return digest.digest()


def _lowering_files() -> list[Path]:
    found: set[Path] = set()
    for pattern in LOWERING:
        for path in PACKAGE.glob(pattern):
            candidates = path.rglob("*") if path.is_dir() else [path]
            found.update(p for p in candidates if p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts)
    return sorted(found)


def kernel_key(cc: str, *parts: str | bytes) -> str:
    """The key of a library: ``parts`` (what the caller compiles: a kind, options, the bytes of
    the grammars, or a generated source), the compiler (its name, and the size and time of the
    file it resolves to, so that an upgrade rebuilds), abnfc's version and the source of the
    lowering (:func:`lowering_digest`)."""
    found = shutil.which(cc) or cc
    try:
        info = os.stat(os.path.realpath(found))
        compiler = f"{found}:{info.st_size}:{info.st_mtime_ns}"
    except OSError:
        compiler = found
    digest = hashlib.sha256()
    for part in (__version__, cc, compiler, lowering_digest(), *parts):
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()[:KEY_LENGTH]


def key_define(key: str) -> str:
    """The compiler option that puts ``key`` into the library (``abnfc_kernel_key``)."""
    return f'-DABNFC_KERNEL_KEY="{key}"'


# ---------------------------------------------------------------------------------------------
# The seal


def seal(payload: bytes) -> bytes:
    """``payload`` followed by its seal: the magic, its size and its SHA-256."""
    return payload + MAGIC + len(payload).to_bytes(8, "little") + hashlib.sha256(payload).digest()


def unseal(content: bytes) -> bytes | None:
    """The payload of sealed ``content``, or None when the seal is missing or does not match."""
    if len(content) < SEAL or content[-SEAL:-SEAL + len(MAGIC)] != MAGIC:
        return None
    size = int.from_bytes(content[-40:-32], "little")
    payload = content[:-SEAL]
    if size != len(payload) or hashlib.sha256(payload).digest() != content[-32:]:
        return None
    return payload


# ---------------------------------------------------------------------------------------------
# Trust


def untrusted(info: os.stat_result) -> str | None:
    """Why a folder or file of the cache may not be trusted (None: it may): not the user's, or
    writable by group or others."""
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return _("it is not owned by you")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return _("others can write to it (group or world writable)")
    return None


def private_folder() -> tuple[Path | None, str | None]:
    """The cache folder, made (0700) if needed, and None; or None and why it cannot be used."""
    folder = cache_folder()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(folder)
    except OSError as error:
        return None, _("the kernel cache folder {folder} cannot be made: {reason}").format(
            folder=folder, reason=error.strerror or error)
    problem = _("it is not a folder") if not stat.S_ISDIR(info.st_mode) else untrusted(info)
    if problem is not None:
        return None, _("the kernel cache folder {folder} is not used: {problem}").format(folder=folder,
                                                                                          problem=problem)
    return folder, None


def read_trusted(path: Path) -> bytes | None:
    """The bytes of a regular file that the user owns and no one else may write (not following
    a symbolic link), or None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or untrusted(info) is not None:
            return None
        return stream.read()


def verified(path: Path, key: str, unwrap: Callable[[bytes], bytes | None] = unseal) -> bytes | None:
    """The library at ``path`` when it may be loaded: trusted, its seal intact (``unwrap``
    takes the seal off) and ``key`` in it; else None."""
    content = read_trusted(path)
    payload = unwrap(content) if content is not None else None
    return payload if payload is not None and key.encode("ascii") in payload else None


def write_atomically(path: Path, content: bytes, mode: int = 0o600) -> None:
    """Write ``content`` to a private temporary file beside ``path`` and rename it into place, so
    that a reader sees the old file or the whole new one; OSError when the folder refuses."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# ---------------------------------------------------------------------------------------------
# Getting a library


def warn_once(message: str) -> None:
    """The default note: a :class:`KernelCacheWarning` (Python shows each once a place)."""
    warnings.warn(message, KernelCacheWarning, stacklevel=4)


def obtain(name: str, key: str, make: Callable[[], bytes], use: Callable[[Path], T | None],
           note: Note | None = None, unwrap: Callable[[bytes], bytes | None] = unseal,
           wrap: Callable[[bytes], bytes] = seal) -> T:
    """The library ``name`` (its key ``key``) loaded by ``use``: from the cache when it is there,
    verified and ``use`` accepts it (None: its key does not match); else made by ``make``,
    sealed (``wrap``), stored, and loaded.  Where the cache cannot be used, the library is made
    in a private temporary folder, loaded from there and removed, and ``note`` is told why."""
    folder, problem = private_folder()
    if folder is not None:
        path = folder / name
        if verified(path, key, unwrap) is not None:
            found = use(path)
            if found is not None:
                return found
    try:
        content = wrap(make())
    except OSError as error:  # no temporary folder to compile in, a compiler that cannot be run
        raise AbnfError.at(None, _("abnfc: the kernel cannot be built: {reason}").format(
            reason=error.strerror or error)) from None
    if folder is not None:
        try:
            write_atomically(folder / name, content, 0o700)
        except OSError as error:
            problem = _("the kernel cache folder {folder} cannot be written: {reason}").format(
                folder=folder, reason=error.strerror or error)
        else:
            return _used(use, folder / name)
    (note or warn_once)(_("abnfc: {problem}; the kernel is built in a private temporary folder and not kept").format(
        problem=problem))
    try:
        with private_build() as private:
            path = private / name
            write_atomically(path, content, 0o700)
            return _used(use, path)
    except OSError as error:
        raise AbnfError.at(None, _("abnfc: the kernel cannot be built: {reason}").format(
            reason=error.strerror or error)) from None


def _used(use: Callable[[Path], T | None], path: Path) -> T:
    found = use(path)
    if found is None:  # a library just built carries its key: not finding it is abnfc's fault
        raise RuntimeError(f"the library {path} does not carry the key it was built with")
    return found


@contextlib.contextmanager
def private_build() -> Iterator[Path]:
    """A private temporary folder (0700) for a library the cache cannot keep, removed on exit
    (a library stays mapped after its file is gone)."""
    with tempfile.TemporaryDirectory(prefix="abnfc-kernel-") as work:
        yield Path(work)


__all__ = ["KERNEL", "STATIC", "KernelCacheWarning", "Note", "cache_folder", "find_compiler", "kernel_key",
           "key_define", "lowering_digest", "obtain", "private_build", "private_folder", "read_trusted", "seal",
           "unseal", "untrusted", "verified", "write_atomically"]
