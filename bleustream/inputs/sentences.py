"""One set of sentences, for a metric of a set (Self-BLEU): the lines of a
file or of stdin, or one tab-separated field of each line (a paste stream's
column).  No references."""

from __future__ import annotations

from collections.abc import Iterator

from bleustream.errors import InputError
from bleustream.inputs.lines import LineSource


def sentences(source: LineSource, column: int = 0) -> Iterator[tuple[int, str]]:
    """``(line number, sentence)`` of each line read; ``column`` N (from 1)
    takes field N of tab-separated lines, 0 the whole line.  A line skipped
    as undecodable (``--skip-bad-lines``) yields nothing."""
    for line in source:
        if line is None:
            continue
        if column:
            fields = line.split("\t")
            if len(fields) < column:
                raise InputError(
                    f"{len(fields)} tab-separated fields; --self-bleu-column {column} "
                    f"needs at least {column}",
                    source.name,
                    source.line,
                )
            line = fields[column - 1]
        yield source.line, line
