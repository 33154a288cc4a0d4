"""Items of statistics read back (``--input-format stats``): the operands (or
stdin) are shards of one system, added up in turn; several ``-i`` files are
several systems' per-segment statistics, read in step.  Loaded only by a
run that reads statistics."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from bleustream.errors import InputError
from bleustream.inputs.items import Item, open_stats
from bleustream.inputs.lines import BadLinePolicy, LineSource
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.stats_reader import Chunk, Layout, in_turns, read_stats, specs_of
from bleustream.metrics.registry import Spec


def stats_items(
    options: ReadOptions, stdin: BinaryIO | None, policy: BadLinePolicy
) -> tuple[Iterator[Chunk | Layout | list[Chunk]], list[LineSource]]:
    """Statistics read back from stats records.

    The operands (or stdin) are shards of one system, added up in turn;
    several ``-i`` files are several systems' per-segment statistics, read
    in step (for the paired tests).
    """
    sources = open_stats(options, stdin, policy)
    if len(options.inputs) > 1:
        return _system_chunks(sources), sources

    def chunks() -> Iterator[Chunk | Layout]:
        layout: Layout | None = None
        for source in sources:
            for chunk in read_stats(source, layout, several_systems=True):
                if isinstance(chunk, Layout):
                    layout = chunk
                yield chunk

    return in_turns(chunks()), sources


def _system_chunks(sources: list[LineSource]) -> Iterator[Chunk | Layout | list[Chunk]]:
    """Several systems' per-segment statistics, segment by segment."""
    first = read_stats(sources[0], None)
    layout = next(first, None)
    if layout is None:
        return
    assert isinstance(layout, Layout)
    yield layout
    # A record of 0 segments (an empty shard's corpus record) adds nothing.
    streams = [
        (c for c in stream if not isinstance(c, Chunk) or c.segments)
        for stream in (first, *(read_stats(source, layout) for source in sources[1:]))
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
    (several systems in one stream), whether a shard came from an
    interrupted run, and the bad lines its run skipped."""

    specs: tuple[Spec, ...]
    nrefs: int | str | None = None
    systems: list[str | int | None] | None = None
    partial: bool = False
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
            read.partial = read.partial or head.partial
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
            read.specs = specs_of(chunk, overrides)
            read.nrefs = chunk.nrefs
            continue
        read.partial = read.partial or chunk.partial
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
