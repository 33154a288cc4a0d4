"""Files read beside the input: each segment's source (``--src``), a
training corpus (``--freq-corpus``) and a table of word counts
(``--freq-counts``).

Each is read as a ``LineSource``, decoded as the input is (the run's
``encoding`` and ``encoding_errors``), so that a byte it cannot decode is
one ``InputError`` naming the file, the line and the column.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

from bleustream.errors import InputError
from bleustream.inputs.lines import LineSource, check_encoding, open_source, read_to
from bleustream.inputs.options import ReadOptions


def open_side(path: str, reading: ReadOptions) -> LineSource:
    """A file beside the input, its lines decoded as the input's are."""
    return open_source(path, None, check_encoding(reading.encoding), reading.encoding_errors)


def side_lines(path: str, reading: ReadOptions) -> Iterator[str]:
    """The lines of a file beside the input, in order, closed at the end."""
    with closing(open_side(path, reading)) as source:
        for line in source:
            if line is not None:  # never None: a bad byte raises (the default policy)
                yield line


def source_at(sources: LineSource, line: int, name: str | None) -> str:
    """Source line number ``line`` of ``sources`` (``--src``), read in step
    with the input: its segment's line in ``name``.  Fewer source lines, or
    one that cannot be read (``--skip-bad-lines``), is an ``InputError``."""
    try:
        text = read_to(sources, line)
    except StopIteration:
        raise InputError(
            f"fewer source lines ({sources.line}) than segments: --src {sources.name} "
            "has no line here",
            name,
            line,
        ) from None
    if text is None:
        raise InputError("the source line cannot be read", sources.name, sources.line)
    return text


def check_no_more_sources(sources: LineSource, reader: str, last: int) -> None:
    """An ``InputError`` where ``sources`` has a line past the input's last
    (``last``: the last line read of the input, segment or not: a line
    skipped as bad, or left out of a test set, has its source line too):
    ``reader`` needs one source a segment."""
    try:
        read_to(sources, last)
    except StopIteration:  # every segment had its source line
        return
    try:
        next(sources)
    except StopIteration:
        return
    raise InputError(
        f"more source lines than segments (one a segment for {reader})",
        sources.name,
        sources.line,
    )


def read_counts(path: str, reading: ReadOptions) -> dict[str, int]:
    """Word frequencies from ``word<TAB>count`` lines; a line that is not one
    is an ``InputError`` at its line."""
    counts = {}
    with closing(open_side(path, reading)) as source:
        for line in source:
            fields = (line or "").split("\t")
            if len(fields) != 2:
                raise InputError("expected 'word<TAB>count'", path, source.line)
            try:
                counts[fields[0]] = int(fields[1])
            except ValueError:
                raise InputError("the count is not a whole number", path, source.line) from None
    return counts
