"""Building the batch kernel: a grammar's generated C and ``static/batch.c`` in one shared library,
cached (:mod:`.cache`), so that many records are checked with one call through ctypes.

``static/batch.c`` is compiled with the generated source included in it and the source's prefix
as a macro (no generated file changes, the kernel works with every C strategy, and first_error
is inlined into the kernel's loops); ``ABNFC_PUSHDOWN`` is set for a pushdown validator, whose
streams are freed and whose records are checked with one call of first_error each.  It exports
``P_first_errors(data, offsets, count, out)`` over ``size_t`` offsets, the same over Arrow's
32-bit and 64-bit offsets and views, variants writing Arrow's boolean bitmap, and
``P_line_errors``, which splits lines itself (SSE2) and returns only the invalid ones, so that
Python never touches a valid line.  Arrow's offsets are read in place, in both widths:
converting 32-bit offsets to ``size_t`` would cost a pass and a copy as long as the check itself
for short records.  The library carries its key (``abnfc_kernel_key``), compared on load.

A line, in every engine of ``abnfc check --records lines``: the bytes up to a "\\n", without the
"\\n" and without one "\\r" before it; the last line needs no "\\n" (and loses a final "\\r" too);
there is no empty line after a final "\\n".
"""
from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..errors import AbnfError
from ..i18n import _
from . import cache
from .cache import KERNEL, Note, kernel_key, key_define
from .kernel import BatchKernel, load

# -O3: the lanes of batch.c unrolled, a third faster than -O2 on short records
CFLAGS = ["-std=c99", "-O3", "-fPIC", "-shared", "-Wall", "-Werror"]


def kernel_macros(files: Mapping[str, str]) -> list[str]:
    """The compiler's -D options that fit ``batch.c`` to a generated source (``files``: its
    ``.c`` and ``.h``): its prefix, its file, its number of states, and for a pushdown
    validator (whose streams have a heap stack to free) its depth limit."""
    [source] = [name for name in files if name.endswith(".c")]
    prefix = source[:-2]
    macros = [f"-DABNFC_PREFIX={prefix}", f'-DABNFC_SOURCE="{source}"',
              f"-DABNFC_NUM_STATES={prefix.upper()}_NUM_STATES"]
    if f"{prefix}_stream_free" in files[source]:
        macros += ["-DABNFC_PUSHDOWN", f"-DABNFC_MAX_DEPTH={prefix.upper()}_MAX_DEPTH"]
    return macros


def source_key(cc: str, files: Mapping[str, str]) -> str:
    """The key of a kernel known by its generated source alone (no grammar files)."""
    return kernel_key(cc, "source", *sorted(files.values()))


def build(cc: str, key: str | None, files: Mapping[str, str], note: Note | None = None) -> BatchKernel:
    """The kernel of a generated source (``files``: its ``.c`` and ``.h``) under ``key`` (None:
    :func:`source_key`): loaded from the cache when it is there and whole, else compiled with
    ``cc`` and stored (``note``: told when the cache cannot be used)."""
    [source] = [name for name in files if name.endswith(".c")]
    prefix = source[:-2]
    chosen = key or source_key(cc, files)
    return cache.obtain(f"{chosen}.so", chosen, lambda: compile_kernel(cc, chosen, files),
                        lambda path: load(path, chosen, prefix), note)


def compile_kernel(cc: str, key: str, files: Mapping[str, str]) -> bytes:
    """The shared library of the kernel over ``files``, carrying ``key``, compiled in a private
    temporary folder."""
    with tempfile.TemporaryDirectory(prefix="abnfc-kernel-") as work:
        for name, text in files.items():
            Path(work, name).write_text(text, encoding="utf-8")
        built = Path(work, "kernel.so")
        # one unit, the generated source included in the kernel's: first_error inlines into its loops
        command = [cc, *CFLAGS, "-I", work, *kernel_macros(files), key_define(key), "-o", str(built), str(KERNEL)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise AbnfError.at(None, _("the C compiler failed on the batch kernel:\n{output}").format(
                output=result.stderr[-4000:]))
        return built.read_bytes()


__all__ = ["CFLAGS", "KERNEL", "build", "compile_kernel", "kernel_macros", "source_key"]
