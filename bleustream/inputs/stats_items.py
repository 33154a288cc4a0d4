"""Items of statistics read back (``--input-format stats``): the operands (or
stdin) are shards of one system, added up in turn; several ``-i`` files are
several systems' per-segment statistics, read in step.  Loaded only by a
run that reads statistics."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from bleustream.errors import InputError
from bleustream.inputs.items import Item, open_stats
from bleustream.inputs.lines import BadLinePolicy, LineSource
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.stats_reader import Chunk, Layout, in_turns, read_stats, specs_of
from bleustream.metrics.registry import Spec


def stats_items(
    options: ReadOptions,
    stdin: BinaryIO | None,
    policy: BadLinePolicy,
    partial: list[tuple[str, int]] | None = None,
) -> tuple[Iterator[Chunk | Layout | list[Chunk]], list[LineSource]]:
    """Statistics read back from stats records.

    The operands (or stdin) are shards of one system, added up in turn;
    several ``-i`` files are several systems' per-segment statistics, read
    in step (for the paired tests).  ``partial``: where the records of an
    interrupted run are read is added to it, as they are read.
    """
    sources = open_stats(options, stdin, policy)
    if len(options.inputs) > 1:
        return _system_chunks(sources, partial), sources

    def chunks() -> Iterator[Chunk | Layout]:
        layout: Layout | None = None
        for source in sources:
            for chunk in read_stats(source, layout, several_systems=True, partial=partial):
                if isinstance(chunk, Layout):
                    layout = chunk
                yield chunk

    return in_turns(chunks()), sources


def _system_chunks(
    sources: list[LineSource], partial: list[tuple[str, int]] | None
) -> Iterator[Chunk | Layout | list[Chunk]]:
    """Several systems' per-segment statistics, segment by segment."""
    first = read_stats(sources[0], None, partial=partial)
    layout = next(first, None)
    if layout is None:
        return
    assert isinstance(layout, Layout)
    yield layout
    # A record of 0 segments (an empty shard's corpus record) adds nothing.
    streams = [
        (c for c in stream if not isinstance(c, Chunk) or c.segments)
        for stream in (
            first,
            *(read_stats(source, layout, partial=partial) for source in sources[1:]),
        )
    ]
    while True:
        chunks = [next(stream, None) for stream in streams]
        if all(chunk is None for chunk in chunks):
            return
        for source, chunk in zip(sources, chunks):
            if chunk is None:
                raise InputError(
                    f"this system's statistics ended after line {source.line}, before "
                    "the other systems'",
                    source.name,
                )
            assert isinstance(chunk, Chunk)
            if not chunk.is_segment:
                raise InputError(
                    "several systems' statistics must be per-segment records "
                    "(written with -sl -f stats)",
                    source.name,
                    chunk.source_line,
                )
        yield [c for c in chunks if isinstance(c, Chunk)]


@dataclass
class ReadBack:
    """What statistics read back say besides their rows: the metrics and the
    references per segment (from the first record), the systems' names
    (several systems in one stream), where records of an interrupted run
    were read (file and line, as ``stats_items`` reads them), and the bad
    lines the runs skipped."""

    specs: tuple[Spec, ...]
    nrefs: int | str | None = None
    systems: list[str | int | None] | None = None
    partial_at: list[tuple[str, int]] = field(default_factory=list)
    skipped: int = 0


def chunks_to_items(
    chunks: Iterator[Chunk | Layout | list[Chunk]], options: ReadOptions, read: ReadBack
) -> Iterator[Item]:
    """Items of statistics read back; what else they say goes into ``read``."""
    for chunk in chunks:
        if isinstance(chunk, list):  # one turn of several systems
            head = chunk[0]
            if options.inputs == ("-",) and read.systems is None:
                read.systems = [c.system for c in chunk]  # named by the records
            read.skipped += head.skipped
            if head.segments == 0:
                continue
            _check_segment_record(head, options)
            rows = tuple(c.rows for c in chunk)
            record = (head.source, head.source_line)
            yield Item((), (), rows, head.segments, head.line, head.id, head.is_segment, 0, record)
            continue
        if isinstance(chunk, Layout):
            overrides = tuple(dict(options.scoring_overrides.get(m, {})) for m in chunk.metrics)
            read.specs = specs_of(chunk, overrides, options.counting_given)
            read.nrefs = chunk.nrefs
            continue
        read.skipped += chunk.skipped
        if chunk.segments == 0:
            continue
        _check_segment_record(chunk, options)
        record = (chunk.source, chunk.source_line)
        yield Item(
            (), (), (chunk.rows,), chunk.segments, chunk.line, chunk.id, chunk.is_segment, 0, record
        )


def _check_segment_record(chunk: Chunk, options: ReadOptions) -> None:
    if not chunk.is_segment and options.sentence_level:
        raise InputError(
            "--sentence-level needs segment records; this is a corpus record "
            "(write the shards with -sl -f stats)",
            chunk.source,
            chunk.source_line,
        )
