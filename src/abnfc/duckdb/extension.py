"""A grammar's validator as a loadable DuckDB extension in C: built, cached and loaded.

``static/extension.c`` includes the batch kernel (:mod:`abnfc.native`'s ``static/batch.c``) and
the generated source, as the batch kernel's build does, and adds the entry point DuckDB calls on
LOAD, which registers ``NAME(VARCHAR) -> BOOLEAN`` through DuckDB's C extension API
(``static/duckdb_capi.h``).  DuckDB then runs the function itself, on all its threads.

A loadable extension is a shared library that ends in a 512-byte footer DuckDB reads before
loading it: eight fields of 32 bytes, last first (the magic "4", the platform, the C API
version the extension needs, the extension's version, the ABI "C_STRUCT"), and room for a
signature, left empty: only a connection opened with ``allow_unsigned_extensions`` loads it.
The entry point's name is the file's name followed by ``_init_c_api``.

One file per key (:func:`abnfc.native.kernel_key`: the generated source, the function's name,
DuckDB's version and platform, the two static files, and what every kernel's key covers), kept
with the batch kernels and as they are (:func:`abnfc.native.cache.obtain`: sealed, the seal before
DuckDB's footer, verified before LOAD, in a private temporary folder when the cache cannot be
used).  DuckDB LOADs a file name once a database, so a name registered again with a grammar whose
extension that database has loaded before gets the same extension under the next *generation*'s
file name (``abnfc_KEY_g1``), built once and cached too: a name always checks the grammar it was
last registered with.  Beside the function, the extension registers ``abnfc_provider_HASH()``
(HASH from the function's name), whose value is its file's name: registering a name again with
the extension that registered it last does nothing.
"""
from __future__ import annotations

import hashlib
import platform
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import AbnfError
from ..i18n import _
from ..native import cache
from ..native.batch import CFLAGS, KERNEL, kernel_macros
from ..native.cache import kernel_key, key_define
from ..version import __version__

STATIC = Path(__file__).parent / "static"
SOURCE, HEADER = STATIC / "extension.c", STATIC / "duckdb_capi.h"
C_API_VERSION = "v1.2.0"  # as ABNFC_DUCKDB_API_VERSION in extension.c
FIELD = 32  # bytes of a footer field
SIGNATURE = 256  # bytes of the footer's signature
FOOTER = 8 * FIELD + SIGNATURE


def load(connection: Any, name: str, files: Mapping[str, str], cc: str, note: cache.Note | None = None) -> None:
    """Build with ``cc`` (or find) the extension of ``files`` (a generated C source and header)
    registering ``name``, and LOAD it on ``connection``'s database, unless ``name`` there comes
    from that very extension already."""
    version, platform = connection.execute("select version(), (select platform from pragma_platform())").fetchall()[0]
    key = kernel_key(cc, "duckdb", version, platform, name, SOURCE.read_bytes(), HEADER.read_bytes(),
                     *sorted(files.values()))
    loaded = {row[0] for row in connection.execute(
        "select extension_name from duckdb_extensions() where loaded").fetchall()}
    current = provider(connection, name)
    generation = 0
    while _stem(key, generation) in loaded and _stem(key, generation) != current:
        generation += 1
    stem = _stem(key, generation)
    if stem == current:
        return
    stem_key = kernel_key(cc, "duckdb extension", key, stem)

    def use(path: Path) -> bool:
        quoted = str(path).replace("'", "''")
        try:
            connection.execute(f"load '{quoted}'").fetchall()
        except Exception as error:  # duckdb.Error, and the package may be absent while typing
            raise AbnfError.at(None, _("DuckDB could not load the extension of {name}: {error}").format(
                name=name, error=error)) from None
        return True

    cache.obtain(f"{stem}.duckdb_extension", stem_key, lambda: compile_library(cc, stem, stem_key, files, name),
                 use, note, unwrap=lambda content: _unwrap(content, platform),
                 wrap=lambda library: cache.seal(library) + footer(platform))


def _stem(key: str, generation: int) -> str:
    return f"abnfc_{key}" if generation == 0 else f"abnfc_{key}_g{generation}"


def marker(name: str) -> str:
    """The name of the function of no arguments that says which extension registered ``name``."""
    return "abnfc_provider_" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:24]


def provider(connection: Any, name: str) -> str | None:
    """The file name (without its suffix) of the extension that registered the function
    ``name`` of the database last, if one did."""
    found = connection.execute("select count(*) from duckdb_functions() where function_name = ?",
                               [marker(name)]).fetchall()[0][0]
    return str(connection.execute(f"select {marker(name)}()").fetchall()[0][0]) if found else None


def _unwrap(content: bytes, platform: str) -> bytes | None:
    """The library of a cached extension file: its footer this platform's, its seal intact."""
    if len(content) < FOOTER or content[-FOOTER:] != footer(platform):
        return None
    return cache.unseal(content[:-FOOTER])


def compile_extension(cc: str, stem: str, files: Mapping[str, str], name: str, platform: str) -> bytes:
    """The bytes of an extension registering ``name`` for the generated source ``files``, to be
    loaded from a file called ``stem.duckdb_extension`` (its entry point is ``stem_init_c_api``)
    on DuckDB's ``platform``."""
    key = kernel_key(cc, "duckdb file", stem, name, platform, *sorted(files.values()))
    return compile_library(cc, stem, key, files, name) + footer(platform)


def compile_library(cc: str, stem: str, key: str, files: Mapping[str, str], name: str) -> bytes:
    """The shared library of the extension (without DuckDB's footer), carrying ``key``."""
    with tempfile.TemporaryDirectory(prefix="abnfc-duckdb-") as work:
        for file, text in files.items():
            Path(work, file).write_text(text, encoding="utf-8")
        built = Path(work, "extension.so")
        command = [cc, *CFLAGS, "-fvisibility=hidden", "-I", work, "-I", str(KERNEL.parent), "-I", str(STATIC),
                   *kernel_macros(files), key_define(key), f"-DABNFC_DUCKDB_ENTRY={stem}_init_c_api",
                   f"-DABNFC_DUCKDB_FUNCTION={c_string(name)}", f"-DABNFC_DUCKDB_MARKER={c_string(marker(name))}",
                   f"-DABNFC_DUCKDB_STEM={c_string(stem)}", "-o", str(built), str(SOURCE)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise AbnfError.at(None, _("the C compiler failed on the DuckDB extension:\n{output}").format(
                output=result.stderr[-4000:]))
        return built.read_bytes()


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



__all__ = ["c_string", "compile_extension", "compile_library", "footer", "load", "marker", "provider",
           "this_platform"]
