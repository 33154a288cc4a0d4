"""``--analyze``: the analyses of a run's systems, read as the run reads them.

The segments come from bleustream's own readers (REF files read in
lockstep with one ``-i`` file per system, paste lines with ``--systems N``,
translation logs); each goes to an ``Analyzer``.  At the end the document is
written in the format asked for (``-f text``, ``tsv``, ``json`` or
``latex``), and with ``--report FILE.html`` as a page, which ``--every N``
rewrites every N segments while the input is read.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import replace
from itertools import islice
from typing import Any, BinaryIO

from bleustream.analysis import AnalysisSettings, Analyzer, build, parse_edges
from bleustream.analysis.buckets import Edges
from bleustream.analysis.collect import bleu_index
from bleustream.analysis.layout import latex, text, tsv
from bleustream.analysis.records import read_parts
from bleustream.analysis.report import require_matplotlib, write_report
from bleustream.analysis.state import analyze_part, from_record, to_record
from bleustream.analysis.words import count_lines, read_counts
from bleustream.errors import InputError, UsageError
from bleustream.inputs.items import items_of_segments, text_items
from bleustream.inputs.lines import BadLinePolicy, LineSource, check_encoding, open_source
from bleustream.inputs.options import ReadOptions
from bleustream.metrics import bleu
from bleustream.metrics.registry import Spec
from bleustream.metrics.seeds import parse_seed
from bleustream.run import Output, RunOptions

FORMATS = ("text", "tsv", "json", "latex", "stats")
BATCH = 1000  # segments a worker analyzes at a time (-j N)


def settings_of(
    values: Mapping[str, Any], tokenize: Callable[[str], list[str]], reading: ReadOptions
) -> AnalysisSettings:
    """The analysis settings the command line's options give; a training
    corpus or counts file is read as the input is (``-e``)."""
    frequencies, source = None, "references"
    if values["freq_counts"]:
        path = values["freq_counts"]
        with closing(_side_input(path, reading)) as f:
            try:
                frequencies = dict(read_counts(f, path))
            except ValueError as exc:
                raise InputError(str(exc)) from None
        source = f"counts file {path}"
    elif values["freq_corpus"]:
        path = values["freq_corpus"]
        with closing(_side_input(path, reading)) as f:
            frequencies = count_lines(f, tokenize)
        source = f"corpus {path}"
    low, high = (int(x) for x in values["ngram_orders"].split(":"))
    return AnalysisSettings(
        length_edges=Edges(parse_edges(values["length_edges"])),
        length_diff_edges=Edges(parse_edges(values["length_diff_edges"])),
        sentence_bleu_edges=Edges(parse_edges(values["sentence_bleu_edges"]), whole=False),
        frequency_edges=Edges(parse_edges(values["frequency_edges"])),
        frequencies=frequencies,
        frequency_source=source,
        ngram_orders=(low, high),
        ngrams_listed=values["ngrams"],
        examples=values["examples"],
        samples=values["analyze_n"],
        seed=parse_seed(values["seed"]),
    )


def _side_input(path: str, reading: ReadOptions) -> LineSource:
    """A file beside the input (``--src``, ``--freq-corpus``,
    ``--freq-counts``), its lines decoded as the input's are (``-e``): a bad
    byte is one line naming the file, the line and the column."""
    encoding = check_encoding(reading.encoding)
    return open_source(path, None, encoding, reading.encoding_errors)


def system_names(run: RunOptions) -> list[str]:
    """Files by their names without folders, where that tells them apart."""
    reading = run.reading
    if len(reading.inputs) > 1:
        short = [os.path.basename(path) or path for path in reading.inputs]
        return short if len(set(short)) == len(short) else list(reading.inputs)
    if reading.systems > 1:
        return [f"field {i}" for i in range(1, reading.systems + 1)]
    path = reading.input
    return ["stdin" if path == "-" else os.path.basename(path) or path]


def _sources(path: str | None, reading: ReadOptions) -> Iterator[str | None]:
    if path is None:
        while True:
            yield None
    with closing(_side_input(path, reading)) as source:
        yield from source


def run(
    run_options: RunOptions,
    values: Mapping[str, Any],
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Callable[[str], None],
) -> int:
    """Analyze the input; returns the exit status (0)."""
    fmt = run_options.format
    if fmt not in FORMATS:
        raise UsageError(f"--analyze writes -f {', '.join(FORMATS)}, not -f {fmt}")
    page, every = values["report"], values.get("report_every", 0)
    if page is not None:
        require_matplotlib()  # before reading: a missing extra is said at once
    reading = run_options.reading.input_format == "stats"
    specs = run_options.specs
    if not reading:
        try:
            bleu_index(specs)
        except ValueError as exc:
            raise UsageError(f"--analyze: {exc}") from None
    settings = settings_of(values, _words_of(specs), run_options.reading)
    if reading:
        analyzer = read_parts(run_options.reading, settings, stdin)
    else:
        analyzer = _analyze_text(run_options, values, settings, stdin, report, (page, every))
    if not analyzer.segments:
        raise InputError("no segment to analyze")
    if fmt == "stats":
        Output(stdout).write(json.dumps(to_record(analyzer), ensure_ascii=False) + "\n")
        return 0
    doc = build(analyzer)
    if page is not None:
        write_report(doc, page)
    out = {
        "text": lambda: text(doc, run_options.width),
        "tsv": lambda: tsv(doc),
        "json": lambda: json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
        "latex": lambda: latex(doc, run_options.width),
    }[fmt]()
    Output(stdout).write(out)
    return 0


def _words_of(specs: Sequence[Spec]) -> Callable[[str], list[str]]:
    """BLEU's tokenizer (a training corpus's words are BLEU's tokens)."""
    for spec in specs:
        if spec.name == "bleu":
            return bleu.preprocess(spec.settings)
    return str.split


def _analyze_text(
    run_options: RunOptions,
    values: Mapping[str, Any],
    settings: AnalysisSettings,
    stdin: BinaryIO | None,
    report: Callable[[str], None],
    live: tuple[str | None, int],
) -> Analyzer:
    """The analysis of text input, read as a run reads it; with ``live``
    (a page and N), the page rewritten every N segments."""
    page, every = live
    names = system_names(run_options)
    analyzer = Analyzer(run_options.specs, names, settings)
    policy = BadLinePolicy(run_options.reading.skip_bad_lines, report)
    segments, sources = text_items(run_options.reading, stdin, policy)
    src = _sources(values["src"], run_options.reading)
    try:
        items = items_of_segments(segments, run_options.reading, sources, policy)
        segments_read = _with_sources(items, src, values["src"])
        if run_options.jobs > 1:
            _in_workers(analyzer, segments_read, run_options.jobs, page, every)
        else:
            for hyps, refs, line_src, line in segments_read:
                analyzer.add(hyps, refs, line_src, line)
                if page is not None and every and analyzer.segments % every == 0:
                    write_report(build(analyzer), page)
    finally:
        for source in sources:
            source.close()
        src.close()
    return analyzer


Segment = tuple[tuple[str, ...], Sequence[str], "str | None", int]


def _with_sources(
    items: Iterator[Any], src: Iterator[str | None], name: str | None
) -> Iterator[Segment]:
    """Each segment's hypotheses, references, source (``--src``) and line."""
    for item in items:
        line = next(src, StopIteration)
        if line is StopIteration:
            raise InputError("fewer source lines than segments", name, item.line)
        yield item.hyps, item.refs, line, item.line  # type: ignore[misc]


def _in_workers(
    analyzer: Analyzer, segments: Iterator[Segment], jobs: int, page: str | None, every: int
) -> None:
    """``-j N``: batches of segments analyzed by N worker processes, their
    records merged in input order (the same document as one process)."""
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    # Word frequencies count at the end, in this process: the workers need none.
    settings = replace(analyzer.settings, frequencies=None)
    specs, names = analyzer.specs, analyzer.names
    pending: deque[Future[dict[str, Any]]] = deque()
    offset = 0

    def merge_one() -> None:
        record = pending.popleft().result()
        before = analyzer.segments
        analyzer.merge(from_record(record, settings, specs))
        if page is not None and every and analyzer.segments // every > before // every:
            write_report(build(analyzer), page)

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        while True:
            batch = list(islice(segments, BATCH))
            if not batch:
                break
            pending.append(pool.submit(analyze_part, specs, names, settings, offset, batch))
            offset += len(batch)
            while len(pending) > 2 * jobs:
                merge_one()
        while pending:
            merge_one()
