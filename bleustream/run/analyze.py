"""The analysis loop: segments in, one analysis document out (``--analyze``).

The same input a scoring run reads (``inputs``: REF files in lockstep with
one ``-i`` file per system, paste lines with ``--systems N``, translation
logs, or analysis records read back with ``--input-format stats``), each
segment with its source line (``--src``, read beside it by
``inputs.side_files``), goes to one accumulator, the ``Analyzer``: in this
process one segment at a time, or with ``jobs`` > 1 in batches analyzed by
``parallel``'s worker processes (``analysis.state.analyze_task``), whose
records are merged in input order, the same analysis as one process.  A
page (``--report FILE.html``) is rewritten every N segments
(``page_every``) while the input is read.  At the end the document is
written in the format asked for (``-f text``, ``tsv``, ``json``,
``latex``, or ``stats``: the analysis as a record).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import islice
from typing import Any, BinaryIO

from bleustream.analysis.collect import Analyzer, bleu_index
from bleustream.analysis.document import build
from bleustream.analysis.layout import latex, text, tsv
from bleustream.analysis.records import read_parts
from bleustream.analysis.report import require_matplotlib, write_report
from bleustream.analysis.settings import AnalysisSettings
from bleustream.analysis.state import analyze_task, from_record, to_record
from bleustream.analysis.words import count_lines
from bleustream.errors import EXIT_OK, InputError, UsageError
from bleustream.inputs.items import input_name, items_of_segments, text_items
from bleustream.inputs.lines import BadLinePolicy, LineSource
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.side_files import (
    check_no_more_sources,
    open_side,
    read_counts,
    side_lines,
    source_at,
)
from bleustream.metrics import bleu
from bleustream.metrics.registry import Spec
from bleustream.metrics.windows import check_sources, counted_windows, needs_source
from bleustream.parallel.pool import ParallelCounter
from bleustream.run.state import Output, Report, RunOptions

FORMATS = ("text", "tsv", "json", "latex", "stats")
BATCH = 1000  # segments a worker analyzes at a time (jobs > 1)

# One segment: every system's hypothesis, the references, the source, the
# line, and its rows where counted before it is analyzed (else None).
Segment = tuple[Sequence[str], Sequence[str], "str | None", int, Any]


def run_analysis(
    options: RunOptions, stdin: BinaryIO | None, stdout: BinaryIO, report: Report
) -> int:
    """Analyze the input the options name and write the document; returns
    the exit status."""
    settings, fmt, reading = options.analysis, options.format, options.reading
    assert settings is not None, "run_analysis is the loop of --analyze"
    if fmt not in FORMATS:
        raise UsageError(f"--analyze writes -f {', '.join(FORMATS)}, not -f {fmt}")
    if options.page is not None:
        require_matplotlib()  # before reading: a missing extra is said at once
    read_back = reading.input_format == "stats"
    if not read_back:
        try:
            bleu_index(options.specs)
        except ValueError as exc:
            raise UsageError(f"--analyze: {exc}") from None
    settings = with_frequencies(settings, options.specs, reading)
    if read_back:
        analyzer = read_parts(reading, settings, stdin)
    else:
        analyzer = Analyzer(options.specs, system_names(reading), settings)
        _analyze(analyzer, options, stdin, report)
    if not analyzer.segments:
        raise InputError("no segment to analyze")
    if fmt == "stats":
        Output(stdout).write(json.dumps(to_record(analyzer), ensure_ascii=False) + "\n")
        return EXIT_OK
    doc = build(analyzer)
    if options.page is not None:
        write_report(doc, options.page)
    layouts: dict[str, Callable[[], str]] = {
        "text": lambda: text(doc, options.width),
        "tsv": lambda: tsv(doc),
        "json": lambda: json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
        "latex": lambda: latex(doc, options.width),
    }
    Output(stdout).write(layouts[fmt]())
    return EXIT_OK


def with_frequencies(
    settings: AnalysisSettings, specs: Sequence[Spec], reading: ReadOptions
) -> AnalysisSettings:
    """The settings with the word frequencies of their file (a counts file,
    or a training corpus counted in BLEU's tokens), read as the input is
    (``-e``)."""
    if settings.frequency_file is None:
        return settings
    kind, path = settings.frequency_file
    if kind == "counts":
        frequencies = read_counts(path, reading)
    else:
        frequencies = count_lines(side_lines(path, reading), _words_of(specs))
    source = f"{'counts file' if kind == 'counts' else 'corpus'} {path}"
    return replace(settings, frequencies=frequencies, frequency_source=source)


def _words_of(specs: Sequence[Spec]) -> Callable[[str], list[str]]:
    """BLEU's tokenizer (a training corpus's words are BLEU's tokens)."""
    try:
        return bleu.preprocess(specs[bleu_index(specs)].settings)
    except ValueError:  # analysis records read back: whatever their metrics
        return str.split


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


def _analyze(
    analyzer: Analyzer, options: RunOptions, stdin: BinaryIO | None, report: Report
) -> None:
    """Every segment of the run's text input, with its source, added to
    ``analyzer``: here, or by ``options.jobs`` worker processes."""
    reading = options.reading
    policy = BadLinePolicy(reading.skip_bad_lines, report)
    segments, sources = text_items(reading, stdin, policy)
    src = None if reading.src is None else open_side(reading.src, reading)
    live = (options.page, options.page_every)
    try:
        items = items_of_segments(segments, reading, sources, policy)
        by_line = reading.input_format == "paste"
        first = sources[0]
        with_sources = _with_sources(items, src, input_name(reading), by_line, lambda: first.line)
        read = _counted(analyzer, with_sources, reading, report)
        if options.jobs > 1:
            _in_workers(analyzer, read, options.jobs, live)
        else:
            for segment in read:
                analyzer.add(*segment)
                _rewrite(analyzer, live, analyzer.segments - 1)
    finally:
        for source in sources:
            source.close()
        if src is not None:
            src.close()


def _rewrite(analyzer: Analyzer, live: tuple[str | None, int], before: int) -> None:
    """The page rewritten when the segments passed a multiple of N since ``before``."""
    page, every = live
    if page is not None and every and analyzer.segments // every > before // every:
        write_report(build(analyzer), page)


def _with_sources(
    items: Iterator[Any], src: LineSource | None, name: str, by_line: bool, last: Callable[[], int]
) -> Iterator[Segment]:
    """Each segment's hypotheses, references, source (``--src``) and line.

    Where the input is read by line (``by_line``), the source of the same
    line number (a line skipped as bad skips its source too), and a source
    line past the input's last (``last()``) is an ``InputError``; a
    translation log's segments take the next source line each, in the
    order they are read."""
    for item in items:
        source = None
        if src is not None:
            if by_line:
                source = source_at(src, item.line, name)
            else:
                source = source_at(src, src.line + 1, src.name)
        yield item.hyps, item.refs, source, item.line, None
    if src is not None and by_line:
        check_no_more_sources(src, "--analyze", last())


def _counted(
    analyzer: Analyzer, segments: Iterator[Segment], reading: ReadOptions, report: Report
) -> Iterator[Segment]:
    """The segments, each with its rows where a metric reads sources (a
    model's forward pass, ``metrics.windows``): counted a window at a time
    in this process, whatever the workers then analyze."""
    if needs_source(analyzer.specs) is None:
        return segments
    check_sources(analyzer.specs, reading.src, reading.input_format)
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
