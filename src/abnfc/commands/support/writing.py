"""Writing generated files: atomically, only when their content changed, and safe to interrupt.

Each file is written to a temporary file in the target folder and renamed over the target
(rename is atomic within a file system, POSIX ``rename(2)``).  Termination signals are held
back meanwhile, so an interrupted run leaves each file either as it was or complete, and no
temporary file.  Check mode (:func:`stale_files`) writes nothing and says what is stale.
Problems of the output folder are the user's to fix: they raise :class:`AbnfError` naming the
path, and :func:`check_writable` finds the usual ones before a command does its work.
"""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from ...errors import AbnfError
from ...i18n import _, ngettext

_DEFERRED_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def stale_files(files: Mapping[str, str | bytes], out_dir: str) -> list[str]:
    """Names of files that are missing or differ from ``files`` (text, written as UTF-8, or bytes)."""
    stale = []
    for name, content in sorted(files.items()):
        try:
            current = Path(out_dir, name).read_bytes()
        except OSError:
            current = None
        if current != _encoded(content):
            stale.append(name)
    return stale


def _encoded(content: str | bytes) -> bytes:
    return content if isinstance(content, bytes) else content.encode("utf-8")


def write_files(files: Mapping[str, str | bytes], out_dir: str) -> list[str]:
    """Write what changed, each file atomically; return the names written.  A name may hold
    ``/``: the folders on its way are made.

    Problems of the output folder (missing permission, a file in the way, a full disk) raise
    :class:`AbnfError` naming the path, and leave no partial file.
    """
    changed = stale_files(files, out_dir)
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise AbnfError.at(None, _("cannot write to {folder}: it is a file, not a folder").format(
            folder=out_dir)) from None
    except OSError as error:
        raise AbnfError.at(None, _("cannot create the output folder {folder}: {reason}").format(
            folder=out_dir, reason=_reason(error))) from None
    for name in changed:
        target = folder / name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(target, _encoded(files[name]))
        except OSError as error:
            raise AbnfError.at(None, _("cannot write {path}: {reason}").format(path=target,
                                                                               reason=_reason(error))) from None
    return changed


def check_writable(out_dir: str, file: str | None = None) -> None:
    """AbnfError, as :func:`write_files` would raise it, when ``out_dir`` is a file or cannot be
    created, or ``file`` in it is a folder: called before a command's work, so that such a mistake
    in ``--out`` costs no compiling.  An existing folder is left for writing to judge: files that
    are up to date need no permission to write."""
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise AbnfError.at(None, _("cannot write to {folder}: it is a file, not a folder").format(folder=out_dir))
    if not folder.exists():
        existing = next(parent for parent in folder.absolute().parents if parent.exists())
        if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
            raise AbnfError.at(None, _("cannot create the output folder {folder}: {reason}").format(
                folder=out_dir, reason=os.strerror(errno.ENOTDIR if not existing.is_dir() else errno.EACCES)))
    elif file is not None and (folder / file).is_dir():
        raise AbnfError.at(None, _("cannot write {path}: {reason}").format(
            path=folder / file, reason=os.strerror(errno.EISDIR)))


def write_and_say(files: Mapping[str, str | bytes], out_dir: str) -> None:
    """Write what changed and say so: a line per file written, or that all were up to date."""
    written = write_files(files, out_dir)
    for name in written:
        print(_("wrote {path}").format(path=os.path.join(out_dir, name)))
    if not written:
        print(ngettext("{folder}: up to date, nothing written ({count} file)",
                       "{folder}: up to date, nothing written ({count} files)", len(files)).format(
                           folder=out_dir, count=len(files)))


def write_file_and_say(path: str, content: bytes) -> None:
    """Write one file atomically and say so; AbnfError naming the path when it cannot be."""
    target = Path(path)
    try:
        _write_atomically(target, content)
    except IsADirectoryError:
        raise AbnfError.at(None, _("cannot write {path}: it is a folder").format(path=path)) from None
    except OSError as error:
        raise AbnfError.at(None, _("cannot write {path}: {reason}").format(path=path, reason=_reason(error))) from None
    print(_("wrote {path}").format(path=path))


def _reason(error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        return _("no space left on the device")
    return error.strerror or str(error)


def _write_atomically(target: Path, content: bytes) -> None:
    """Write to a temporary file in the target's folder, then rename it over the target; only
    SIGKILL, which cannot be held back, may leave a temporary ``.<name>.*.tmp`` behind."""
    with signals_deferred():
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(content)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Termination signals (Ctrl-C included) held back in the block, delivered at its end."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are delivered to the main thread only
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
