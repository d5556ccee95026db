"""``abnfc check --records``: validate each record of a file on its own, at data scale.

Files are read as blocks of records (:mod:`.formats`: lines, a CSV column, a JSON Lines field,
a Parquet column), each block checked with one call of the C batch kernel where the grammar has a
DFA (:mod:`.verify`; the Python validator or the interpreter otherwise), and the invalid records
reported with the bytes expected at their first error (:mod:`.report`).  :mod:`.job` runs the
whole check from a typed request (:class:`~.job.RecordsRequest`).

Exit status: 0 when every record matches, 1 when one does not (null and missing values count as
invalid), 2 when a file cannot be read as records of its format (the message names the file and,
where it is one record's fault, the record); once the inputs have been found readable, the other
files are still checked.
"""
from __future__ import annotations

from .job import Output, RecordsRequest, check_records

__all__ = ["Output", "RecordsRequest", "check_records"]
