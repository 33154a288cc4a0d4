"""The record loop: segments in, records out.

``run`` reads what its options name, scores it with every metric asked for
and writes each record as it completes: a segment's sentence scores
(``sentence_level``), the corpus score so far (every ``every`` segments),
and the corpus score at the end, for each system.  It knows nothing of
argparse or of the process: it is given typed options, the binary streams
to use and a function to report problems with, and returns an exit status.

The flow is one way::

    items (text segments, or statistics read back) -> rows (scored here or
    by worker processes) -> running totals -> records -> output
"""

from __future__ import annotations

import signal
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, NamedTuple, TextIO

from bleustream.blocks import Block, identity_of, line_blocks, open_span, same_files
from bleustream.errors import (
    EXIT_DATAERR,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    BleustreamError,
    InputError,
    Interrupted,
    UsageError,
    count_of,
)
from bleustream.formats import FORMATTERS, Context, Record, format_signature, header, notes_of
from bleustream.logs import LOG_FORMATS, check_usage, log_segments
from bleustream.metrics import Spec
from bleustream.pairing import PairedSegments
from bleustream.progress import Progress, file_extent
from bleustream.readers import (
    STDIN_NAME,
    BadLinePolicy,
    LineSource,
    Segment,
    check_encoding,
    lockstep_segments,
    open_source,
    paste_segments,
)
from bleustream.report import Result, latex_report, single_line, text_report
from bleustream.resampling import SegmentStore, Test, run_test
from bleustream.scorer import Rows, Scorer, Summed, sum_rows
from bleustream.significance import with_test_fields
from bleustream.statsio import Chunk, Layout, in_turns, read_stats, specs_of

if TYPE_CHECKING:  # imported when a run has workers: multiprocessing is slow to import
    from bleustream.parallel import ParallelCounter

Report = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs to know, checked and typed."""

    specs: tuple[Spec, ...]
    refs: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ("-",)  # one per system (stats: shards)
    format: str = "text"
    width: int = 1
    score_only: bool = False
    sentence_level: bool = False
    every: int = 0
    encoding: str = "utf-8"
    encoding_errors: str = "strict"
    skip_bad_lines: bool = False
    input_format: str = "paste"
    fairseq_hyp: str = "D"
    keyed_refs: str | None = None
    allow_unpaired: bool = False
    systems: int = 1  # paste input: hypotheses per line
    jobs: int = 1  # worker processes counting segments
    num_refs: int = 1  # references per line of the one reference file
    test: Test | None = None  # confidence intervals or a paired test
    progress: bool = False  # progress lines on the progress stream
    # Merging statistics: by metric name, the score-only settings that the
    # command line (or config file) sets over those the records carry.
    scoring_overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def input(self) -> str:
        return self.inputs[0]


class Item(NamedTuple):
    """One unit of input: a segment's text to score, or statistics read back."""

    hyps: tuple[str, ...]  # one per system; empty for statistics
    refs: Sequence[str]
    rows: Rows | None  # statistics read back (per system, per metric)
    segments: int  # segments covered (more than 1 for a corpus chunk)
    line: int
    id: str | None
    is_segment: bool  # a segment record can be written for it
    skipped: int = 0  # bad lines skipped before it was read


class Output:
    """Writes whole records to a binary stream, flushing each one."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, text: str) -> None:
        if text:
            # Text from a non-UTF-8 input can hold lone surrogates (UTF-7,
            # undecodable file names): they are written as escapes.
            self._stream.write(text.encode("utf-8", "backslashreplace"))
            self._stream.flush()


# ----------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------


def _open_all(
    paths: Sequence[str], stdin: BinaryIO | None, options: RunOptions, policy: BadLinePolicy
) -> list[LineSource]:
    encoding = check_encoding(options.encoding)
    sources: list[LineSource] = []
    try:
        for path in paths:
            sources.append(open_source(path, stdin, encoding, options.encoding_errors, policy))
    except BleustreamError:
        for source in sources:
            source.close()
        raise
    return sources


def _check_stdin(options: RunOptions) -> None:
    """Standard input can be read as one input only."""
    hyps_from_stdin = "-" in options.inputs
    if options.inputs.count("-") > 1:
        raise UsageError("stdin ('-') can be only one of the systems")
    if hyps_from_stdin and "-" in options.refs:
        raise UsageError("stdin cannot be both the hypotheses and a reference file; use -i FILE")
    if options.refs.count("-") > 1:
        raise UsageError("stdin ('-') can be only one of the reference files")
    if options.keyed_refs == "-" and hyps_from_stdin:
        raise UsageError("stdin cannot be both the hypotheses and --keyed-refs; use -i FILE")


def text_items(
    options: RunOptions, stdin: BinaryIO | None, policy: BadLinePolicy
) -> tuple[Iterator[Segment], list[LineSource]]:
    """The text segments the options ask for, and the sources to close."""
    _check_stdin(options)
    refs = list(options.refs)
    check_usage(options.input_format, len(refs), options.keyed_refs)
    if len(options.inputs) > 1 and options.input_format in LOG_FORMATS:
        raise UsageError(f"--input-format {options.input_format} reads one system")
    paths = [*options.inputs, *refs]
    if options.keyed_refs is not None:
        paths.append(options.keyed_refs)
    sources = _open_all(paths, stdin, options, policy)
    nsys = len(options.inputs)
    hyps, ref_sources = sources[:nsys], sources[nsys : nsys + len(refs)]
    if options.input_format in LOG_FORMATS:
        keyed = sources[-1] if options.keyed_refs is not None else None
        segments = log_segments(
            options.input_format, hyps[0], ref_sources, policy, options.fairseq_hyp, keyed
        )
        return segments, sources
    return _plain_segments(options, sources, policy), sources


def _plain_segments(
    options: RunOptions, sources: Sequence[LineSource], policy: BadLinePolicy, nfields: int = 0
) -> Iterator[Segment]:
    """Segments of paste input, or of REF files read in lockstep (``nfields``:
    see ``paste_segments``)."""
    nsys = len(options.inputs)
    if not options.refs:
        if nsys > 1:
            raise UsageError("several -i files need REF files; paste input takes --systems N")
        return paste_segments(sources[0], policy, nfields)
    if options.systems > 1:
        raise UsageError("--systems N is for paste input; with REF files give -i FILE per system")
    refs = list(sources[nsys : nsys + len(options.refs)])
    return lockstep_segments(sources[0], refs, options.num_refs, policy)


def _items_of_segments(
    segments: Iterator[Segment],
    options: RunOptions,
    sources: list[LineSource],
    policy: BadLinePolicy,
) -> Iterator[Item]:
    """Items of text segments, with every system's hypothesis."""
    others = sources[1 : len(options.inputs)]
    if others:
        for segment, more in _other_systems(segments, sources[0], others):
            hyps = (segment.hyp, *more)
            yield Item(hyps, segment.refs, None, 1, segment.line, segment.id, True, policy.count)
        return
    n = options.systems
    for segment in segments:
        if n == 1:
            yield Item(
                (segment.hyp,), segment.refs, None, 1, segment.line, segment.id, True, policy.count
            )
            continue
        if len(segment.refs) < n:
            raise InputError(
                f"--systems {n}: expected {n} hypotheses and at least one reference, "
                f"found {len(segment.refs) + 1} tab-separated fields",
                sources[0].name,
                segment.line,
            )
        hyps = (segment.hyp, *segment.refs[: n - 1])
        refs = segment.refs[n - 1 :]
        yield Item(hyps, refs, None, 1, segment.line, segment.id, True, policy.count)


def _other_systems(
    segments: Iterator[Segment], first: LineSource, others: list[LineSource]
) -> Iterator[tuple[Segment, list[str]]]:
    """Each segment of the first system with the same line of every other system.

    The other systems are read in step with the first (a segment skipped
    for a bad line skips that line of every system); a system with a bad
    line at a kept segment, or of another length, is an error.
    """
    for segment in segments:
        more = []
        for source in others:
            text = _read_to(source, segment.line, first)
            if text is None:
                raise InputError("cannot score this line of a system", source.name, source.line)
            more.append(text.rstrip())
        yield segment, more
    for source in others:
        # The last lines of the first system may have been skipped as bad:
        # the same lines of the others go with them, and must exist.
        _read_to(source, first.line, first)
        for _ in source:
            raise InputError(
                f"system file has more lines than {first.name} (which ended after "
                f"line {first.line})",
                source.name,
                source.line,
            )


def _read_to(source: LineSource, line: int, first: LineSource) -> str | None:
    """Reads another system's ``source`` on to ``line``, a line of the first
    system's ``first``: the text of the last line read (None if none was,
    or if it was skipped as bad).  A system that ends before is an error."""
    text: str | None = None
    while source.line < line:
        try:
            text = next(source)
        except StopIteration:
            raise InputError(
                f"system file ended after line {source.line}, but {first.name} has a line {line}",
                source.name,
            ) from None
    return text


# ----------------------------------------------------------------------------
# Blocks of regular files, read by the workers
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _BlockTask:
    """A block of the input files, for a worker to read, pair and score to sums."""

    options: RunOptions
    block: Block
    nfields: int  # paste input: the number of fields an earlier line fixed, else 0


class _BlockDone(NamedTuple):
    """What a worker made of a block: the sums of its segments (None: none),
    the bad lines it skipped, in order, and the error that ended it."""

    summed: Summed | None
    skipped: list[InputError]
    error: BleustreamError | None


class _KeptBadLines(BadLinePolicy):
    """A worker's policy: a bad line is raised, or kept for the parent to report."""

    def __init__(self, skip: bool) -> None:
        super().__init__(skip)
        self.kept: list[InputError] = []

    def __call__(self, error: InputError) -> None:
        super().__call__(error)
        self.kept.append(error)


def _block_tasks(
    options: RunOptions, sources: Sequence[LineSource], counter: ParallelCounter
) -> Iterator[_BlockTask] | None:
    """Blocks of the input for the workers to read themselves, when they can; else None.

    They can when every input is a regular, uncompressed file (see
    ``identity_of``) of plain lines, paste input or REF files, not a log,
    and when a worker opening the files by name finds the same files.
    With ``--skip-bad-lines``, several systems' files are not read in
    blocks: a skipped line leaves the other systems' files behind until the
    next segment, which may be in another block.
    """
    if options.input_format in LOG_FORMATS or (options.skip_bad_lines and len(options.inputs) > 1):
        return None
    paths = [*options.inputs, *options.refs]
    found = [identity_of(path, source.stream) for path, source in zip(paths, sources)]
    identities = [identity for identity in found if identity is not None]
    if len(identities) != len(sources) or not counter.call(same_files, paths, identities):
        return None
    nfields, line = (0, 0) if options.refs else _paste_fields(options)
    return (
        _BlockTask(options, block, nfields if block.before >= line else 0)
        for block in line_blocks(paths, identities, [source.stream for source in sources])
    )


def _paste_fields(options: RunOptions) -> tuple[int, int]:
    """Paste input: the number of fields of its first good line, which every
    later line must have, and that line's number ((0, 0) when none is).

    It is read quietly: the workers report the bad lines before it.
    Without ``--skip-bad-lines`` it is line 1, or line 1 is an error.
    """
    policy = BadLinePolicy(options.skip_bad_lines)
    (source,) = _open_all([options.input], None, options, policy)
    try:
        first = next(paste_segments(source, policy), None)
    except BleustreamError:
        first = None
    finally:
        source.close()
    return (0, 0) if first is None else (len(first.refs) + 1, first.line)


def _count_block(task: _BlockTask) -> _BlockDone:
    """Reads, pairs and scores a block of the input files, in a worker process.

    The block's lines go through the readers and pairing of one process,
    numbered as in the whole files, so that every message is one
    process's.
    """
    from bleustream.parallel import worker_scorer

    options = task.options
    scorer = worker_scorer()
    policy = _KeptBadLines(options.skip_bad_lines)
    encoding = check_encoding(options.encoding)
    sources: list[LineSource] = []
    rows: list[Rows] = []
    nrefs = 0
    error: BleustreamError | None = None
    try:
        for span in task.block.spans:
            stream = open_span(span)
            source = LineSource(span.path, stream, encoding, options.encoding_errors, policy)
            source.line = task.block.before
            sources.append(source)
        segments = _plain_segments(options, sources, policy, task.nfields)
        for item in _items_of_segments(segments, options, sources, policy):
            nrefs = nrefs or len(item.refs)
            rows.append(_count(scorer, item, options))
    except BleustreamError as exc:
        error = exc
    finally:
        for source in sources:
            source.close()
    summed = sum_rows(rows, scorer.systems, nrefs) if rows else None
    return _BlockDone(summed, policy.kept, error)


def _summed_blocks(
    counter: ParallelCounter, tasks: Iterator[_BlockTask], policy: BadLinePolicy
) -> Iterator[tuple[_BlockTask, Summed]]:
    """Each block with its sums, in order: its skipped lines are reported
    first, and the error that ended it raised."""
    for task, done in counter.mapped(_count_block, tasks):
        for bad in done.skipped:
            policy(bad)
        if done.error is not None:
            raise done.error
        if done.summed is not None:
            yield task, done.summed


def stats_items(
    options: RunOptions, stdin: BinaryIO | None, policy: BadLinePolicy
) -> tuple[Iterator[Chunk | Layout | list[Chunk]], list[LineSource]]:
    """Statistics read back from stats records.

    The operands (or stdin) are shards of one system, added up in turn;
    several ``-i`` files are several systems' per-segment statistics, read
    in step (for the paired tests).
    """
    _check_stdin(options)
    if options.refs and options.inputs != ("-",):
        raise UsageError(
            "with --input-format stats, give shards as operands, or systems with -i, not both"
        )
    paths = [*options.refs] or list(options.inputs)
    sources = _open_all(paths, stdin, options, policy)
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
    streams = [first, *(read_stats(source, layout) for source in sources[1:])]
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


def input_name(options: RunOptions) -> str:
    return STDIN_NAME if options.input == "-" else options.input


# ----------------------------------------------------------------------------
# The loop
# ----------------------------------------------------------------------------


@dataclass
class _State:
    """What the loop knows so far, for the records it writes."""

    specs: tuple[Spec, ...]
    nrefs: int | str | None
    partial: bool = False  # this run was interrupted
    # Statistics read back: whether a shard came from an interrupted run,
    # and the bad lines its run skipped.
    shard_partial: bool = False
    shard_skipped: int = 0
    # Statistics read back of several systems in one stream: their names.
    systems: list[str | int | None] | None = None


def run(
    options: RunOptions,
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Report,
    progress_stream: TextIO | None = None,
) -> int:
    """Score the input the options name; returns the exit status.

    With ``options.progress``, progress lines go to ``progress_stream``.
    """
    progress: Progress | None = None

    def say(message: str) -> None:
        # A message starts a line of its own, not the end of a progress line.
        if progress is not None:
            progress.finish()
        report(message)

    policy = BadLinePolicy(options.skip_bad_lines, say)
    fmt = options.format
    formatter = FORMATTERS[fmt]
    out = Output(stdout)
    nrefs = options.num_refs if options.num_refs > 1 else len(options.refs)
    state = _State(options.specs, nrefs or None)
    reading_stats = options.input_format == "stats"
    if reading_stats:
        state.nrefs = None
    scorer = Scorer(state.specs, max(len(options.inputs), options.systems))
    nsys = max(len(options.inputs), options.systems)
    systems: list[str | int | None] = (
        [None]
        if nsys == 1
        else list(options.inputs)
        if len(options.inputs) > 1
        else list(range(1, nsys + 1))
    )

    test = options.test
    store = SegmentStore(nsys, len(state.specs)) if test is not None else None

    def context() -> Context:
        nrefs = state.nrefs if state.nrefs is not None else 0
        signatures = [spec.signature(nrefs) for spec in state.specs]
        if test is not None:
            signatures = [with_test_fields(s, test.signature_fields()) for s in signatures]
        return Context(
            specs=state.specs,
            signatures=tuple(signatures),
            width=options.width,
            score_only=options.score_only,
            named_systems=len(systems) > 1,
            test=test.kind if test is not None else None,
        )

    ctx = context()
    status = EXIT_OK
    started = False  # the header is written
    segments: Iterator[Any] = iter(())
    sources: list[LineSource] = []
    counter: ParallelCounter | None = None
    try:
        # Opening is inside: a signal may come while a FIFO waits for a writer.
        if reading_stats:
            segments, sources = stats_items(options, stdin, policy)
            items = _chunks_to_items(segments, options, state)
            # The metrics come from the first record: read it before the header.
            first = next(items, None)
            if state.systems is not None:
                systems = state.systems
                nsys = len(systems)
            _check_systems_for(options, nsys)
            scorer = Scorer(state.specs, nsys)
            if test is not None:
                store = SegmentStore(nsys, len(state.specs))
            ctx = context()
            items = _prepend(first, items)
        else:
            segments, sources = text_items(options, stdin, policy)
            items = _items_of_segments(segments, options, sources, policy)
        out.write(header(fmt, ctx))
        started = True
        every = options.every
        if options.progress and progress_stream is not None and sources:
            size, position = file_extent(getattr(sources[0], "_stream", None))
            progress = Progress(progress_stream, size, position)
        if options.jobs > 1 and not reading_stats:
            from bleustream.parallel import ParallelCounter

            summed = not (options.sentence_level or every or store is not None)
            counter = ParallelCounter(state.specs, scorer.systems, options.jobs, summed)
            blocks = _block_tasks(options, sources, counter) if summed else None
            if blocks is None:
                pairs = counter.scored(items)
            else:  # the workers read the files: an item here is a block
                pairs = _summed_blocks(counter, blocks, policy)
        else:
            pairs = zip(items, repeat(None))
        for item, counted in pairs:
            if counted is not None and isinstance(counted, InputError):
                raise InputError(counted.message, input_name(options), item.line)
            if isinstance(counted, Summed):
                if state.nrefs is None:
                    state.nrefs = counted.nrefs
                    ctx = context()
                scorer.accumulate_parts(counted.parts, counted.segments)
                if progress is not None and progress.due():
                    first = state.specs[0]
                    progress.show(scorer.segments, f"{first.label} {scorer.scores()[0].score:.2f}")
                continue
            if state.nrefs is None:
                state.nrefs = len(item.refs)
                ctx = context()
            before = scorer.segments if every else 0
            rows = counted or item.rows or _count(scorer, item, options)
            scorer.accumulate(rows, item.segments)
            if store is not None:
                if not item.is_segment:
                    raise InputError(
                        "resampling needs every segment's statistics; this is a corpus "
                        "record (write the shards with -sl -f stats)",
                        input_name(options),
                        item.line,
                    )
                store.add(rows)
            if progress is not None and progress.due():
                first = state.specs[0]
                progress.show(scorer.segments, f"{first.label} {scorer.scores()[0].score:.2f}")
            if options.sentence_level and item.is_segment:
                for system, system_rows in zip(systems, rows):
                    record = Record(
                        "segment",
                        tuple(scorer.sentence_scores(system_rows)),
                        1,
                        line=item.line,
                        id=item.id,
                        system=system,
                        skipped=item.skipped,
                    )
                    out.write(formatter(record, ctx))
            if every and scorer.segments // every != before // every:
                for index, system in enumerate(systems):
                    record = Record(
                        "running",
                        tuple(scorer.scores(index)),
                        scorer.segments,
                        line=item.line,
                        system=system,
                        skipped=item.skipped,
                    )
                    out.write(formatter(record, ctx))
    except Interrupted as exc:
        state.partial = True
        status = EXIT_SIGINT if exc.signum == signal.SIGINT else EXIT_SIGTERM
        say(f"interrupted; the score covers the {count_of(scorer.segments, 'segment')} read so far")
    finally:
        if progress is not None:
            progress.finish()
        # A reader thread still blocked in a read holds its stream's lock:
        # closing the stream would wait for it.  The process is ending.
        if counter is None or not counter.reading:
            for source in sources:
                source.close()
        if counter is not None:
            counter.close()
    # The final record is written whole: a signal now would cut it short.
    # It waits until the record is out, and then decides the exit status.
    masked = _block_signals()
    try:
        if policy.count:
            say(
                f"skipped {count_of(policy.count, 'bad line')}; "
                f"the score covers {count_of(scorer.segments, 'segment')}"
            )
        if scorer.segments == 0 and not state.partial and not policy.count:
            names = " and ".join(spec.label for spec in state.specs)
            verb = "is" if len(state.specs) == 1 else "are"
            say(f"no segments in the input ({input_name(options)}); {names} {verb} 0 by definition")
        unpaired: int | None = None
        if isinstance(segments, PairedSegments) and segments.report is not None:
            for message in segments.report.messages():
                say(message)
            unpaired = segments.report.left_out
            if unpaired and not options.allow_unpaired:
                status = EXIT_DATAERR
        results = run_test(test, state.specs, _names(systems), store) if store is not None else []
        finals = []
        for index, system in enumerate(systems):
            per_metric = results[index * len(state.specs) : (index + 1) * len(state.specs)]
            finals.append(
                Record(
                    "corpus",
                    tuple(scorer.scores(index)),
                    scorer.segments,
                    system=system,
                    partial=state.partial or state.shard_partial,
                    skipped=policy.count + state.shard_skipped,
                    unpaired=unpaired,
                    results=tuple(per_metric) if per_metric else None,
                )
            )
        text = "" if started else header(fmt, ctx)
        out.write(text + final_text(fmt, ctx, finals, test))
    finally:
        signum = _restore_signals(masked)
    if signum is not None and status == EXIT_OK:
        status = EXIT_SIGINT if signum == signal.SIGINT else EXIT_SIGTERM
    return status


def _block_signals() -> Any:
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def _restore_signals(masked: Any) -> int | None:
    """Restores the caller's signal mask; a signal that waited is its number."""
    if masked is None:
        return None
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, masked)
    except Interrupted as exc:
        return exc.signum
    return None


def _names(systems: Sequence[str | int | None]) -> list[str]:
    """Systems as tables name them: file names, or paste field numbers."""
    return ["" if s is None else f"field {s}" if isinstance(s, int) else s for s in systems]


def final_text(fmt: str, ctx: Context, finals: Sequence[Record], test: Test | None) -> str:
    """The corpus records: one per system, or SacreBLEU's table of several systems."""
    table = fmt == "latex" or (fmt == "text" and not ctx.score_only and len(finals) > 1)
    if table:
        return _table(fmt, ctx, finals, test)
    if fmt == "text" and not ctx.score_only and test is not None:
        return _single_with_intervals(ctx, finals[0])
    return "".join(FORMATTERS[fmt](record, ctx) for record in finals)


def _table(fmt: str, ctx: Context, finals: Sequence[Record], test: Test | None) -> str:
    names = _names([record.system for record in finals])
    if test is not None and test.paired:
        names[0] = f"Baseline: {names[0]}"
    results = []
    for name, record in zip(names, finals):
        for index, (spec, score) in enumerate(zip(ctx.specs, record.scores)):
            found = record.results[index] if record.results else None
            results.append(
                Result(
                    name,
                    spec.label,
                    score.score,
                    found.mean if found else None,
                    found.ci if found else None,
                    found.p_value if found else None,
                )
            )
    signatures = {
        spec.label: format_signature(signature)
        for spec, signature in zip(ctx.specs, ctx.signatures)
    }
    kind = test.kind if test is not None and test.paired else None
    n = test.n if test is not None else None
    make = latex_report if fmt == "latex" else text_report
    text = make(results, signatures, kind, n, ctx.width)
    notes = notes_of(finals[0])
    return text + (notes.strip() + "\n" if notes else "")


def _single_with_intervals(ctx: Context, record: Record) -> str:
    """SacreBLEU's line for each metric, with ``(μ = mean ± ci)`` after the score."""
    lines = []
    notes = notes_of(record)
    for index, (spec, signature, score) in enumerate(zip(ctx.specs, ctx.signatures, record.scores)):
        found = record.results[index] if record.results else None
        result = Result(
            "", spec.label, score.score, found.mean if found else None, found.ci if found else None
        )
        detail = spec.metric.verbose(score, spec.settings)
        line = single_line(result, format_signature(signature), detail, ctx.width)
        lines.append(line + notes + "\n")
    return "".join(lines)


def _count(scorer: Scorer, item: Item, options: RunOptions) -> Rows:
    """An item's rows; a problem in its text is located at its line."""
    try:
        return scorer.count(item.hyps, item.refs)
    except InputError as exc:
        if exc.source is not None:
            raise
        raise InputError(exc.message, input_name(options), item.line) from None


def _check_systems_for(options: RunOptions, nsys: int) -> None:
    """What needs several systems, given the systems statistics read back name."""
    if nsys > 1:
        return
    if options.test is not None and options.test.paired:
        raise UsageError(
            "a paired test needs at least two systems; these statistics are of one "
            "(write several systems' with -sl -f stats, or give one file per system with -i)"
        )
    if options.format == "latex":
        raise UsageError("-f latex writes a table of several systems; these statistics are of one")


def _prepend(first: Item | None, rest: Iterator[Item]) -> Iterator[Item]:
    if first is not None:
        yield first
    yield from rest


def _chunks_to_items(
    chunks: Iterator[Chunk | Layout | list[Chunk]], options: RunOptions, state: _State
) -> Iterator[Item]:
    """Items of statistics read back; the first layout sets the metrics."""
    for chunk in chunks:
        if isinstance(chunk, list):  # one turn of several systems
            head = chunk[0]
            if options.inputs == ("-",) and state.systems is None:
                state.systems = [c.system for c in chunk]  # named by the records
            state.shard_partial = state.shard_partial or head.partial
            state.shard_skipped += head.skipped
            if head.segments == 0:
                continue
            _check_segment_record(head, options)
            rows = tuple(c.rows for c in chunk)
            yield Item((), (), rows, head.segments, head.line, head.id, head.is_segment, 0)
            continue
        if isinstance(chunk, Layout):
            overrides = tuple(dict(options.scoring_overrides.get(m, {})) for m in chunk.metrics)
            state.specs = specs_of(chunk, overrides)
            state.nrefs = chunk.nrefs
            continue
        state.shard_partial = state.shard_partial or chunk.partial
        state.shard_skipped += chunk.skipped
        if chunk.segments == 0:
            continue
        _check_segment_record(chunk, options)
        yield Item((), (), (chunk.rows,), chunk.segments, chunk.line, chunk.id, chunk.is_segment, 0)


def _check_segment_record(chunk: Chunk, options: RunOptions) -> None:
    if not chunk.is_segment and options.sentence_level:
        raise InputError(
            "--sentence-level needs segment records; this is a corpus record "
            "(write the shards with -sl -f stats)",
            chunk.source,
            chunk.source_line,
        )
