"""Segments counted a window at a time, for a metric whose count is a
model's forward pass (``NEEDS_SOURCE``, ``count_window``: COMET).

``counted_windows`` gathers entries as they arrive into a bounded window
(the largest of the batched metrics' batch size times ``WINDOW_BATCHES``),
has the window's segments counted in one call
(``SegmentCounter.count_segments``) and hands each entry on with its rows,
in input order.  The record loop (``run/model_batches.py``) and the
analyses (``run/analyze.py``) both count through it, so what a metric
says of its inputs (``truncation_note``, once) and at the end
(``closing_note``) is said the same way for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import TypeVar

from bleustream.errors import InputError, UsageError
from bleustream.metrics.counting import Rows, Segment, SegmentCounter
from bleustream.metrics.registry import Spec

Entry = TypeVar("Entry")


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


def needs_source(specs: Sequence[Spec]) -> str | None:
    """The name of the first metric that reads each segment's source, if any."""
    for spec in specs:
        if getattr(spec.metric, "NEEDS_SOURCE", False):
            return spec.name
    return None


def check_sources(specs: Sequence[Spec], src: str | None, input_format: str) -> None:
    """A ``UsageError`` where the run cannot give a metric that reads
    sources each segment's source (``--src``, paired with the input by line
    number); nothing where it can, or where no metric reads them."""
    name = needs_source(specs)
    if name is None:
        return
    if not src:
        raise UsageError(f"-m {name} scores each segment with its source: give --src FILE")
    if src == "-":
        raise UsageError("--src reads a file, not stdin")
    if input_format != "paste":
        raise UsageError(
            f"-m {name} pairs --src lines with input lines by number: "
            f"not with --input-format {input_format}"
        )


def counted_windows(
    counter: SegmentCounter,
    entries: Iterator[Entry],
    segment_of: Callable[[Entry], Segment],
    line_of: Callable[[Entry], int],
    name: str | None,
    say: Callable[[str], None],
) -> Iterator[tuple[Entry, Rows]]:
    """Each entry with its rows, counted a window at a time; a segment the
    metrics refuse is an ``InputError`` naming ``name`` and the window's lines."""
    window = window_of(counter)
    truncation = _Truncation(counter, say)
    while True:
        batch = list(islice(entries, window))
        if not batch:
            break
        segments = [segment_of(entry) for entry in batch]
        try:
            rows = counter.count_segments(segments)
        except ValueError as exc:
            first, last = line_of(batch[0]), line_of(batch[-1])
            where = f"lines {first}-{last}" if last != first else f"line {first}"
            raise InputError(f"{exc} ({where})", name) from None
        truncation.check(line_of(batch[0]))
        yield from zip(batch, rows)
    for spec in counter.specs:
        closing = getattr(spec.metric, "closing_note", None)
        note = None if closing is None else closing(spec.settings)
        if note is not None:
            say(note)


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
