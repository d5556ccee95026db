"""C text for tables: literals, aligned lines of cells, comments that cannot end early."""
from __future__ import annotations

from dataclasses import dataclass

BYTES_PER_LINE = 16


@dataclass(frozen=True)
class ByteLine:
    label: str  # "80-8F"
    cells: str  # "C1, C1, ..." or " 1,  1, ..."


@dataclass(frozen=True)
class Row:
    cells: str  # " 0,  2,  4"
    note: str


@dataclass(frozen=True)
class RowMacro:
    name: str  # UTF8_C3
    padded: str  # the name padded to the longest one, for alignment
    value: str  # UINT64_C(0x...)
    comment: str  # class 3: A0-BF


def hex64(value: int) -> str:
    return f"UINT64_C(0x{value:016X})"


def uint_type(largest: int) -> str:
    """The narrowest unsigned type holding 0..largest."""
    return "uint8_t" if largest < 0x100 else "uint16_t" if largest < 0x10000 else "uint32_t"


def byte_lines(cells: list[str]) -> tuple[ByteLine, ...]:
    """256 cells, 16 to a line, labelled with the bytes they are for."""
    width = max(len(cell) for cell in cells)
    lines = []
    for start in range(0, len(cells), BYTES_PER_LINE):
        end = start + BYTES_PER_LINE - 1
        lines.append(ByteLine(f"{start:02X}-{end:02X}",
                              ", ".join(f"{cell.strip():>{width}}" for cell in cells[start:end + 1])))
    return tuple(lines)


def chunks(cells: list[str], size: int) -> tuple[str, ...]:
    return tuple(", ".join(cells[i:i + size]) for i in range(0, len(cells), size))


def cells(values, width: int | None = None) -> list[str]:
    values = list(values)
    width = width or max((len(str(v)) for v in values), default=1)
    return [f"{v:>{width}}" for v in values]


def hex_cells(values) -> str:
    return ", ".join(f"0x{v:02X}" for v in values)


def comment_safe(text: str) -> str:
    """``text`` made safe inside a ``/* */`` comment, kept readable.

    ``*/`` would end the comment early and ``/*`` trips -Wcomment, so a backslash goes between
    their characters; ``??/`` is the trigraph for a backslash (C99, C++11), so its question marks
    are split the same way; trailing whitespace goes, so no line ends in a backslash and space.
    """
    text = text.replace("*/", "*\\/").replace("/*", "/\\*").replace("??/", "?\\?/")
    return text.rstrip()
