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
from itertools import islice
from typing import Any, Callable

from bleustream.errors import InputError, UsageError
from bleustream.inputs.items import Item, input_name
from bleustream.inputs.lines import BadLinePolicy, LineSource, open_source
from bleustream.inputs.options import ReadOptions
from bleustream.metrics.counting import Rows, SegmentCounter


def window_of(counter: SegmentCounter) -> int:
    """Segments gathered before they are counted: the largest window a
    batched metric asks for."""
    sizes = [
        int(getattr(spec.settings, "batch_size", 1))
        * int(getattr(spec.metric, "WINDOW_BATCHES", 1))
        for spec in counter.specs
        if getattr(spec.metric, "NEEDS_SOURCE", False)
    ]
    return max(sizes, default=1)


def _needs_source(counter: SegmentCounter) -> str | None:
    for spec in counter.specs:
        if getattr(spec.metric, "NEEDS_SOURCE", False):
            return spec.name
    return None


def open_sources(reading: ReadOptions, counter: SegmentCounter, policy: BadLinePolicy) -> Any:
    """The ``--src`` file, opened as the inputs are; None when no metric
    needs it.  A metric that needs it and none given: a ``UsageError``."""
    name = _needs_source(counter)
    if name is None:
        return None
    if not reading.src:
        raise UsageError(f"-m {name} scores each segment with its source: give --src FILE")
    if reading.src == "-":
        raise UsageError("--src reads a file, not stdin")
    if reading.input_format != "paste":
        raise UsageError(
            f"-m {name} pairs --src lines with input lines by number: "
            f"not with --input-format {reading.input_format}"
        )
    return open_source(reading.src, None, reading.encoding, reading.encoding_errors, policy)


def model_windows(
    counter: SegmentCounter,
    items: Iterator[Item],
    reading: ReadOptions,
    sources: LineSource | None,
    say: Callable[[str], None],
) -> Iterator[tuple[Item, Rows]]:
    """Each item with its rows, counted a window at a time."""
    window = window_of(counter)
    truncation = _Truncation(counter, say)
    while True:
        batch = list(islice(items, window))
        if not batch:
            break
        segments = [(_source_of(sources, item, reading), item.hyps, item.refs) for item in batch]
        try:
            rows = counter.count_segments(segments)
        except ValueError as exc:
            first, last = batch[0].line, batch[-1].line
            where = f"lines {first}-{last}" if last != first else f"line {first}"
            raise InputError(f"{exc} ({where})", input_name(reading)) from None
        truncation.check(batch[0].line)
        yield from zip(batch, rows)
    for spec in counter.specs:
        closing = getattr(spec.metric, "closing_note", None)
        note = None if closing is None else closing(spec.settings)
        if note is not None:
            say(note)
    if sources is not None and _more_lines(sources):
        raise InputError(
            f"more source lines than segments ({counter.specs[0].name} needs one a segment)",
            sources.name,
            sources.line,
        )


def _source_of(sources: LineSource | None, item: Item, reading: ReadOptions) -> str | None:
    """The source line of the same number as the item's line."""
    if sources is None:
        return None
    text: str | None = None
    while sources.line < item.line:
        try:
            text = next(sources)
        except StopIteration:
            raise InputError(
                f"fewer source lines ({sources.line}) than segments: --src {sources.name} "
                "has no line here",
                input_name(reading),
                item.line,
            ) from None
    if text is None:
        raise InputError("the source line cannot be read", sources.name, sources.line)
    return text


def _more_lines(sources: LineSource) -> bool:
    try:
        next(sources)
    except StopIteration:
        return False
    return True


class _Truncation:
    """Says once, on stderr, what a batched metric has to say of its inputs
    (``truncation_note``: inputs longer than its encoder takes)."""

    def __init__(self, counter: SegmentCounter, say: Callable[[str], None]) -> None:
        self.specs = [spec for spec in counter.specs if hasattr(spec.metric, "truncation_note")]
        self.said = False
        self.say = say

    def check(self, line: int) -> None:
        if self.said:
            return
        for spec in self.specs:
            note = spec.metric.truncation_note(spec.settings)
            if note is not None:
                self.say(
                    f"{spec.label}: {note} (first in the segments from line {line}; said once)"
                )
                self.said = True
                return
