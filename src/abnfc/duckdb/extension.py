"""A grammar's validator as a loadable DuckDB extension in C: built, cached and loaded.

``static/extension.c`` includes the batch kernel (``backends/c/static/batch.c``) and the
generated source, as :mod:`abnfc.backends.c.batch` does, and adds the entry point DuckDB calls on
LOAD, which registers ``NAME(VARCHAR) -> BOOLEAN`` through DuckDB's C extension API
(``static/duckdb_capi.h``).  DuckDB then runs the function itself, on all its threads.

A loadable extension is a shared library that ends in a 512-byte footer DuckDB reads before
loading it: eight fields of 32 bytes, last first (the magic "4", the platform, the C API
version the extension needs, the extension's version, the ABI "C_STRUCT"), and room for a
signature, left empty: only a connection opened with ``allow_unsigned_extensions`` loads it.
The entry point's name is the file's name followed by ``_init_c_api``.

One file per key: the generated source, the function's name, DuckDB's version and platform, the
two static files, the compiler and abnfc's version (see :func:`abnfc.native.cache_key`), in the
cache folder of the batch kernels, written under a temporary name and renamed.
"""
from __future__ import annotations

import os
import platform
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..backends.c.batch import CFLAGS, kernel_macros
from ..errors import AbnfError
from ..i18n import _
from ..native import KERNEL, cache_key, writable_cache_folder
from ..version import __version__

STATIC = Path(__file__).parent / "static"
SOURCE, HEADER = STATIC / "extension.c", STATIC / "duckdb_capi.h"
C_API_VERSION = "v1.2.0"  # as ABNFC_DUCKDB_API_VERSION in extension.c
FIELD = 32  # bytes of a footer field
SIGNATURE = 256  # bytes of the footer's signature


def load(connection: Any, name: str, files: Mapping[str, str], cc: str) -> None:
    """Build with ``cc`` (or find) the extension of ``files`` (a generated C source and header)
    registering ``name``, and LOAD it on ``connection``'s database."""
    version, platform = connection.execute("select version(), (select platform from pragma_platform())").fetchall()[0]
    key = cache_key(cc, "duckdb", version, platform, name, SOURCE.read_bytes(), HEADER.read_bytes(),
                    *sorted(files.values()))
    path = build(cc, f"abnfc_{key}", files, name, platform)
    quoted = str(path).replace("'", "''")
    try:
        connection.execute(f"load '{quoted}'").fetchall()
    except Exception as error:  # duckdb.Error, and the package may be absent while typing
        raise AbnfError.at(None, _("DuckDB could not load the extension of {name}: {error}").format(
            name=name, error=error)) from None


def build(cc: str, stem: str, files: Mapping[str, str], name: str, platform: str) -> Path:
    """The extension file ``stem.duckdb_extension`` in the cache folder, compiled if absent."""
    folder = writable_cache_folder()
    path = folder / f"{stem}.duckdb_extension"
    if path.exists():
        return path
    content = compile_extension(cc, stem, files, name, platform)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{stem}.", suffix=".tmp")
    with os.fdopen(handle, "wb") as stream:
        stream.write(content)
    os.replace(temporary, path)  # concurrent builds of one key leave one complete file
    return path


def compile_extension(cc: str, stem: str, files: Mapping[str, str], name: str, platform: str) -> bytes:
    """The bytes of an extension registering ``name`` for the generated source ``files``, to be
    loaded from a file called ``stem.duckdb_extension`` (its entry point is ``stem_init_c_api``)
    on DuckDB's ``platform``."""
    with tempfile.TemporaryDirectory(prefix="abnfc-duckdb-") as work:
        for file, text in files.items():
            Path(work, file).write_text(text, encoding="utf-8")
        built = Path(work, "extension.so")
        command = [cc, *CFLAGS, "-fvisibility=hidden", "-I", work, "-I", str(KERNEL.parent), "-I", str(STATIC),
                   *kernel_macros(files), f"-DABNFC_DUCKDB_ENTRY={stem}_init_c_api",
                   f"-DABNFC_DUCKDB_FUNCTION={c_string(name)}", "-o", str(built), str(SOURCE)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise AbnfError.at(None, _("the C compiler failed on the DuckDB extension:\n{output}").format(
                output=result.stderr[-4000:]))
        return built.read_bytes() + footer(platform)


MACHINES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
SYSTEMS = {"Linux": "linux", "Darwin": "osx", "Windows": "windows"}


def this_platform() -> str | None:
    """DuckDB's name of this machine's platform (``linux_amd64``, ``osx_arm64``, ...), as the
    duckdb package says it when it is installed, else from the system and the machine; None
    when neither is one DuckDB names."""
    try:
        import duckdb
    except ImportError:
        system, machine = SYSTEMS.get(platform.system()), MACHINES.get(platform.machine().lower())
        return f"{system}_{machine}" if system and machine else None
    return str(duckdb.connect().execute("select platform from pragma_platform()").fetchall()[0][0])


def footer(platform: str) -> bytes:
    """The metadata DuckDB reads from the end of an extension (see the module's docstring)."""
    fields = ["4", platform, C_API_VERSION, __version__, "C_STRUCT", "", "", ""]
    packed = [field.encode("utf-8")[:FIELD].ljust(FIELD, b"\0") for field in fields]
    return b"".join(reversed(packed)) + bytes(SIGNATURE)


def c_string(text: str) -> str:
    """``text`` as a C string literal, every byte an octal escape (any name is safe in it)."""
    return '"' + "".join(f"\\{byte:03o}" for byte in text.encode("utf-8")) + '"'



__all__ = ["build", "c_string", "compile_extension", "footer", "load", "this_platform"]
