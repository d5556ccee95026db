"""DuckDB: a grammar's validator as a scalar SQL function ``NAME(VARCHAR) -> BOOLEAN``.

    import duckdb, abnfc.duckdb
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    abnfc.duckdb.register(con, "is_timestamp", "grammars/datetime.abnf", start="date-time")
    con.sql("select count(*) from logs where not is_timestamp(ts)")

The function comes in one of two forms, with the same answers (NULL stays NULL):

* A native function (``native=True``, and the default where it can be): a DuckDB extension in C
  (:mod:`.extension`), built once per grammar, function name and DuckDB version and cached with
  the batch kernels, then LOADed.  DuckDB calls the validator itself on each vector, on all its
  threads, with no Python in the loop; a self-embedding grammar (JSON) gets its C pushdown
  validator, and a value nested past its depth limit gets NULL (no verdict), not false.  It needs
  ``lang="c"``, a C compiler, and a connection opened with ``allow_unsigned_extensions`` (an
  extension abnfc builds is not signed by DuckDB; the setting cannot be changed once the
  database is open).  It
  belongs to the database, so every connection to it sees the function, and registering its name
  again replaces it (the Arrow UDF refuses a name that is taken); a name always checks the
  grammar it was last registered with.  A name DuckDB has as a built-in function (``lower``)
  would replace the built-in for the whole database: it is refused unless ``replace=True``.
* An Arrow UDF (``native=False``, and the default on any other connection): DuckDB hands each
  vector of values (2,048 rows) to Python as a pyarrow array, and the C validator's
  ``validate_arrow`` checks them with the batch kernel over Arrow's own buffers (no copy, no
  Python loop over rows).  It works on any connection, but every vector crosses into Python, and
  with more than one thread those crossings wait on each other for the GIL.

Both forms answer alike past a pushdown validator's depth limit: a value nested deeper than the
limit (100,000) gets NULL -- no verdict, since the grammar may well match it -- and the query goes
on; NULL is never false, so ``where not f(x)`` leaves such values out and ``where f(x) is null``
finds them.  A name holding a NUL byte is refused (C would cut it there).
"""
from __future__ import annotations

from typing import Any

from ..api import GrammarLike, generate_files, load_validator
from ..errors import AbnfError
from ..i18n import _
from ..native import find_compiler


def register(connection: Any, name: str, grammar: GrammarLike, *, start: str | None = None,
             lang: str = "c", native: bool | None = None, replace: bool = False) -> None:
    """Register ``name(VARCHAR) -> BOOLEAN`` on a DuckDB ``connection``: whether each value
    matches ``grammar`` (its start rule, or ``start``); NULL for NULL, and for a value nested
    past a pushdown validator's depth limit.  ``native``: None takes the native
    function where it can be (``lang`` "c", a C compiler, a connection that allows unsigned
    extensions), else the Arrow UDF; True insists on the native
    function (AbnfError where it cannot be); False takes the Arrow UDF.  ``lang="python"`` checks
    one value at a time with the generated Python module, for machines without a C compiler.
    ``replace``: the native function may take the name of one of DuckDB's built-in functions
    (replacing it for the whole database); without it such a name is refused."""
    try:
        from duckdb import sqltypes
    except ImportError:
        raise AbnfError.at(None, _("abnfc.duckdb needs the duckdb package (and numpy, for its Arrow functions): "
                                   "pip install duckdb numpy pyarrow")) from None
    if "\0" in name:
        raise AbnfError.at(None, _("a DuckDB function's name cannot hold a NUL byte: {name!r}").format(name=name))
    if _native(connection, lang, native):
        from . import extension

        if not replace and is_built_in(name):
            raise AbnfError.at(None, _("{name} is one of DuckDB's built-in functions, and the native function "
                                       "would replace it in the whole database; choose another name, or "
                                       "register with replace=True").format(name=name))
        files = generate_files(grammar, "c", start=start, prefix="validator")
        extension.load(connection, name, files, find_compiler() or "cc")  # _native found one
        return
    validator = load_validator(grammar, lang, start=start)
    # "special": the function answers for NULLs (NULL) and may answer NULL (no verdict)
    connection.create_function(name, _no_verdict_is_null(validator), [sqltypes.VARCHAR], sqltypes.BOOLEAN,
                               type="arrow", null_handling="special")


def is_built_in(name: str) -> bool:
    """Whether a fresh DuckDB database has a function called ``name`` (names are not
    case-sensitive)."""
    import duckdb

    with duckdb.connect() as fresh:
        return bool(fresh.execute("select count(*) from duckdb_functions() where lower(function_name) = lower(?)",
                                  [name]).fetchall()[0][0])


def _no_verdict_is_null(validator: Any) -> Any:
    """The Arrow UDF of ``validator``: its ``validate_arrow``, with NULL (as the native function
    gives) for a value nested past the depth limit, where it raises NestingError."""
    check = validator.validate_arrow
    nesting = getattr(validator, "NestingError", None)
    if nesting is None:  # a regular grammar: every value has a verdict
        return check

    def checked(values: Any) -> Any:
        try:
            return check(values)
        except nesting:
            import pyarrow as pa

            return pa.array([None if value is None else _verdict(validator, nesting, value)
                             for value in values.to_pylist()], pa.bool_())
    return checked


def _verdict(validator: Any, nesting: type[Exception], value: str | bytes) -> bool | None:
    try:
        return bool(validator.is_valid(value.encode("utf-8") if isinstance(value, str) else value))
    except nesting:
        return None


def _native(connection: Any, lang: str, native: bool | None) -> bool:
    """Whether to build the native function; AbnfError when ``native`` is True and it cannot be."""
    if native is False:
        return False
    problem = _why_not_native(connection, lang)
    if problem is not None and native:
        raise AbnfError.at(None, problem)
    return problem is None


def _why_not_native(connection: Any, lang: str) -> str | None:
    """What keeps the native function off this connection (None: nothing)."""
    if lang != "c":
        return _("the native DuckDB function is written in C: use lang='c' with native=True")
    if find_compiler() is None:
        return _("no C compiler found (looked for $CC, cc, gcc and clang), so the native DuckDB function cannot be "
                 "built")
    if not connection.execute("select current_setting('allow_unsigned_extensions')").fetchall()[0][0]:
        return _("the native DuckDB function is an extension that DuckDB has not signed, and this connection does "
                 "not load those: open it with {example} (the setting cannot be changed later), or register with "
                 "native=False for an Arrow function").format(
            example="duckdb.connect(config={'allow_unsigned_extensions': 'true'})")
    return None
