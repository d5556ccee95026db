"""DuckDB: a grammar's validator as a scalar SQL function ``NAME(VARCHAR) -> BOOLEAN``.

The function is an Arrow UDF: DuckDB hands it each vector of values (2,048 rows) as a pyarrow
array, and the C validator's ``validate_arrow`` checks them with the batch kernel over Arrow's own
buffers (no copy, no Python loop over rows) and returns a BooleanArray; NULL stays NULL.  The
kernel is compiled once per grammar and cached (see :mod:`abnfc.native`).

    import duckdb, abnfc.duckdb
    con = duckdb.connect()
    abnfc.duckdb.register(con, "is_timestamp", "grammars/datetime.abnf", start="date-time")
    con.sql("select count(*) from logs where not is_timestamp(ts)")
"""
from __future__ import annotations

from typing import Any

from ..api import GrammarLike, load_validator
from ..errors import AbnfError
from ..i18n import _


def register(connection: Any, name: str, grammar: GrammarLike, *, start: str | None = None,
             lang: str = "c") -> None:
    """Register ``name(VARCHAR) -> BOOLEAN`` on a DuckDB ``connection``: whether each value
    matches ``grammar`` (its start rule, or ``start``).  ``lang="python"`` checks one value at a
    time with the generated Python module, for machines without a C compiler."""
    try:
        from duckdb import sqltypes
    except ImportError:
        raise AbnfError.at(None, _("abnfc.duckdb needs the duckdb package (and numpy, for its Arrow functions): "
                                   "pip install 'abnfc[duckdb]'")) from None
    validator = load_validator(grammar, lang, start=start)
    check = validator.validate_arrow  # type: ignore[attr-defined]
    connection.create_function(name, check, [sqltypes.VARCHAR], sqltypes.BOOLEAN, type="arrow")
