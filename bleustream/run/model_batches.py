"""Segments scored a window at a time, for a metric whose count is a
model's forward pass (``count_window``: COMET).

The loop gathers the segments as they arrive into a bounded window (the
metric's batch size times its ``WINDOW_BATCHES``), reads each segment's
source from ``--src`` in lockstep (line N of the sources is the source of
the segment read from line N of the input), has the window counted in one
call (``SegmentCounter.count_segments``), and hands each segment on with
its rows, in input order: records, running scores and tests follow as for
any metric.  A signal while a window is counted leaves it out: the
partial score covers the segments handed on before it, and says how many.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable

from bleustream.inputs.items import Item, input_name
from bleustream.inputs.lines import BadLinePolicy, LineSource, open_source
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.side_files import check_no_more_sources, source_at
from bleustream.metrics.counting import Rows, SegmentCounter
from bleustream.metrics.windows import check_sources, counted_windows, needs_source


def open_sources(reading: ReadOptions, counter: SegmentCounter, policy: BadLinePolicy) -> Any:
    """The ``--src`` file, opened as the inputs are; None when no metric
    needs it.  A metric that needs it and none given: a ``UsageError``."""
    if needs_source(counter.specs) is None:
        return None
    check_sources(counter.specs, reading.src, reading.input_format)
    return open_source(reading.src, None, reading.encoding, reading.encoding_errors, policy)


def model_windows(
    counter: SegmentCounter,
    items: Iterator[Item],
    reading: ReadOptions,
    sources: LineSource | None,
    say: Callable[[str], None],
    last: Callable[[], int] | None,
) -> Iterator[tuple[Item, Rows]]:
    """Each item with its rows, counted a window at a time
    (``metrics.windows``), with the source of its line.  Where the items
    run to the end of the input, ``last()`` is the input's last line read
    (a segment or not), and no source line may be left past it; None: the
    items are a part that ends before the input does."""
    name = input_name(reading)
    yield from counted_windows(
        counter,
        items,
        lambda item: (_source_of(sources, item, name), item.hyps, item.refs),
        lambda item: item.line,
        name,
        say,
    )
    if last is not None and sources is not None:
        reader = needs_source(counter.specs) or counter.specs[0].name
        check_no_more_sources(sources, reader, last())


def _source_of(sources: LineSource | None, item: Item, name: str | None) -> str | None:
    return None if sources is None else source_at(sources, item.line, name)
