"""Polars: a grammar's validator as a Boolean expression.

``is_valid(pl.col("ts"), GRAMMAR)`` maps each batch of the column (a Series of strings or
binary) to Arrow, checks it with the C validator's ``validate_arrow`` (the batch kernel over
Arrow's buffers; nulls stay null) and gives a Boolean Series back, so it works in ``select``,
``filter`` and ``with_columns``, eager or lazy.

    import polars as pl, abnfc.polars
    frame.filter(~abnfc.polars.is_valid(pl.col("ts"), "grammars/datetime.abnf", start="date-time"))
"""
from __future__ import annotations

from typing import Any

from ..api import GrammarLike, load_validator
from ..errors import AbnfError
from ..i18n import _


def is_valid(expr: Any, grammar: GrammarLike, *, start: str | None = None, lang: str = "c") -> Any:
    """A Boolean ``polars.Expr``: whether each value of ``expr`` matches ``grammar``."""
    try:
        import polars as pl
    except ImportError:
        raise AbnfError.at(None, _("abnfc.polars needs the polars package: pip install polars pyarrow")) from None
    check = load_validator(grammar, lang, start=start).validate_arrow

    def batch(series: Any) -> Any:
        # Polars' own layout, string_view or binary_view, which the kernel reads in place: the
        # oldest (large_string) would be a copy, a sixth of the time on short values
        values = series.to_arrow(compat_level=pl.CompatLevel.newest())
        return pl.Series(series.name, check(values), dtype=pl.Boolean)

    return expr.map_batches(batch, return_dtype=pl.Boolean)
