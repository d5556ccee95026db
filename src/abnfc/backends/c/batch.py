"""The batch kernel: a grammar's generated C and ``static/batch.c`` in one shared library, cached on
disk, so that many records are checked with one call through ctypes.

``static/batch.c`` is compiled with the generated source included in it and the source's prefix
as a macro (no generated file changes, the kernel works with every C strategy, and first_error
is inlined into the kernel's loops); ``ABNFC_PUSHDOWN`` is set for a pushdown validator, whose
streams are freed and whose records are checked with one call of first_error each.  It exports
``P_first_errors(data, offsets, count, out)`` over ``size_t`` offsets, the same over Arrow's
32-bit and 64-bit offsets and views, variants writing Arrow's boolean bitmap, and
``P_line_errors``, which splits lines itself (SSE2) and returns only the invalid ones, so that
Python never touches a valid line.  Arrow's offsets are read in place, in both widths: converting 32-bit offsets to
``size_t`` would cost a pass and a copy as long as the check itself for short records.

The library is built once per key (what determines it: the grammar's files or the generated
source, the compiler and its file, abnfc's version and the kernel's text) under the cache folder:
``$ABNFC_CACHE``, else ``$XDG_CACHE_HOME/abnfc``, else ``~/.cache/abnfc``.  It is written under a
temporary name and renamed, so concurrent builds of one key leave one complete file.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ...errors import AbnfError
from ...i18n import _
from ...native import KERNEL, BatchKernel, cache_key, cached, writable_cache_folder

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


def build(cc: str, key: str | None, files: Mapping[str, str]) -> BatchKernel:
    """Compile (with ``cc``) a generated source (``files``: its ``.c`` and ``.h``) with the kernel into the
    library of ``key`` (None: a key made of the generated source), or load it if it exists."""
    [source] = [name for name in files if name.endswith(".c")]
    prefix = source[:-2]
    key = key or cache_key(cc, *sorted(files.values()))
    found = cached(key, prefix)
    if found is not None:
        return found
    folder = writable_cache_folder()
    with tempfile.TemporaryDirectory(prefix="abnfc-kernel-", dir=folder) as work:
        for name, text in files.items():
            Path(work, name).write_text(text, encoding="utf-8")
        built = Path(work, "kernel.so")
        # one unit, the generated source included in the kernel's: first_error inlines into its loops
        command = [cc, *CFLAGS, "-I", work, *kernel_macros(files), "-o", str(built), str(KERNEL)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise AbnfError.at(None, _("the C compiler failed on the batch kernel:\n{output}").format(
                output=result.stderr[-4000:]))
        library = folder / f"{key}.so"
        os.replace(built, library)
    return BatchKernel(ctypes.CDLL(str(library)), prefix)



__all__ = ["KERNEL", "build", "kernel_macros"]
