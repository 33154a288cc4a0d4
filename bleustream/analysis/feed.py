"""The segments of a run's input fed to an ``Analyzer``.

The segments are read as a run reads them (``inputs``: REF files in
lockstep with one ``-i`` file per system, paste lines with ``--systems N``,
translation logs), each with its source line (``--src``, read beside them
by ``inputs.side_files``).  In this process each goes to the analyzer in
turn; with ``jobs`` > 1, batches of them go to ``parallel``'s worker
processes, each analyzing its batch (``state.analyze_task``), and their
records are merged in input order: the same analysis as one process.  With
a page and N (``live``), the report is rewritten every N segments.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import islice
from typing import Any, BinaryIO

from bleustream.analysis.collect import Analyzer
from bleustream.analysis.document import build
from bleustream.analysis.report import write_report
from bleustream.analysis.settings import AnalysisSettings
from bleustream.analysis.state import analyze_task, from_record
from bleustream.errors import InputError
from bleustream.inputs.items import input_name, items_of_segments, text_items
from bleustream.inputs.lines import BadLinePolicy
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.side_files import source_lines
from bleustream.metrics.registry import Spec
from bleustream.metrics.windows import check_sources, counted_windows, needs_source
from bleustream.parallel.pool import ParallelCounter

BATCH = 1000  # segments a worker analyzes at a time (jobs > 1)

# One segment: every system's hypothesis, the references, the source, the
# line, and its rows where counted before it is analyzed (else None).
Segment = tuple[Sequence[str], Sequence[str], "str | None", int, Any]


def system_names(reading: ReadOptions) -> list[str]:
    """The systems' names: files by their names without folders, where that
    tells them apart; paste input's fields by number; stdin."""
    if len(reading.inputs) > 1:
        short = [os.path.basename(path) or path for path in reading.inputs]
        return short if len(set(short)) == len(short) else list(reading.inputs)
    if reading.systems > 1:
        return [f"field {i}" for i in range(1, reading.systems + 1)]
    path = reading.input
    return ["stdin" if path == "-" else os.path.basename(path) or path]


def analyze_input(
    reading: ReadOptions,
    specs: Sequence[Spec],
    settings: AnalysisSettings,
    src: str | None,
    stdin: BinaryIO | None,
    report: Callable[[str], None],
    jobs: int = 1,
    live: tuple[str | None, int] = (None, 0),
) -> Analyzer:
    """The analysis of a run's text input, with the sources of ``src``."""
    analyzer = Analyzer(specs, system_names(reading), settings)
    policy = BadLinePolicy(reading.skip_bad_lines, report)
    segments, sources = text_items(reading, stdin, policy)
    src_lines = source_lines(src, reading)
    try:
        items = items_of_segments(segments, reading, sources, policy)
        read = _counted(
            analyzer,
            _with_sources(items, src_lines, src, reading.input_format == "paste"),
            reading,
            src,
            report,
        )
        if jobs > 1:
            _in_workers(analyzer, read, jobs, live)
        else:
            for segment in read:
                analyzer.add(*segment)
                _rewrite(analyzer, live, analyzer.segments - 1)
    finally:
        for source in sources:
            source.close()
        src_lines.close()  # type: ignore[attr-defined]
    return analyzer


def _rewrite(analyzer: Analyzer, live: tuple[str | None, int], before: int) -> None:
    """The page rewritten when the segments passed a multiple of N since ``before``."""
    page, every = live
    if page is not None and every and analyzer.segments // every > before // every:
        write_report(build(analyzer), page)


def _with_sources(
    items: Iterator[Any], src: Iterator[str | None], name: str | None, by_line: bool
) -> Iterator[Segment]:
    """Each segment's hypotheses, references, source (``--src``) and line:
    the source of the same line number where the input is read by line
    (``by_line``: a line skipped as bad skips its source too), else the
    next source line."""
    read = 0
    for item in items:
        line: Any = StopIteration
        while True:
            line = next(src, StopIteration)
            read += 1
            if line is StopIteration or not by_line or read >= item.line:
                break
        if line is StopIteration:
            raise InputError("fewer source lines than segments", name, item.line)
        yield item.hyps, item.refs, line, item.line, None


def _counted(
    analyzer: Analyzer,
    segments: Iterator[Segment],
    reading: ReadOptions,
    src: str | None,
    report: Callable[[str], None],
) -> Iterator[Segment]:
    """The segments, each with its rows where a metric reads sources (a
    model's forward pass, ``metrics.windows``): counted a window at a time
    in this process, whatever the workers then analyze."""
    if needs_source(analyzer.specs) is None:
        return segments
    check_sources(analyzer.specs, src, reading.input_format)
    counted = counted_windows(
        analyzer.counter,
        segments,
        lambda s: (s[2], s[0], s[1]),
        lambda s: s[3],
        input_name(reading),
        report,
    )
    return ((*segment[:4], rows) for segment, rows in counted)


def _in_workers(
    analyzer: Analyzer, segments: Iterator[Segment], jobs: int, live: tuple[str | None, int]
) -> None:
    """Batches of segments analyzed by ``jobs`` worker processes, their
    records merged in input order."""
    # Word frequencies count at the end, in this process: the workers need none.
    settings = replace(analyzer.settings, frequencies=None)
    specs, names = analyzer.specs, analyzer.names

    def tasks() -> Iterator[tuple[Any, ...]]:
        offset = 0
        while True:
            batch = list(islice(segments, BATCH))
            if not batch:
                return
            yield specs, names, settings, offset, batch
            offset += len(batch)

    counter = ParallelCounter(specs, len(names), jobs)
    try:
        for _, record in counter.mapped(analyze_task, tasks()):
            before = analyzer.segments
            analyzer.merge(from_record(record, settings, specs))
            _rewrite(analyzer, live, before)
    finally:
        counter.close()
