"""The streaming loop: segments in, records out, as they complete.

It reads what its options name, scores it with every metric asked for and
writes each record as it completes: a segment's sentence scores
(``sentence_level``), the corpus score so far (every ``every`` segments),
and the corpus score at the end, for each system.  Statistics read back
(``--input-format stats``) are summed the same way; NIST's tables read back
are handed to the corpus-wide loop.

The flow is one way::

    items (text segments, or statistics read back; ``bleustream.inputs.items``)
    -> rows (scored here, or by worker processes: ``bleustream.parallel.pool``,
    ``bleustream.parallel.block_tasks``) -> running totals (``bleustream.scorer``)
    -> records (``bleustream.output.records``, ``bleustream.run.final``) -> output
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from bleustream.errors import (
    EXIT_DATAERR,
    EXIT_OK,
    InputError,
    Interrupted,
    LengthMismatch,
    SacrebleuRefusal,
    UsageError,
    count_of,
    signal_status,
)
from bleustream.inputs.items import (
    Item,
    check_stdin_fields,
    input_name,
    items_of_segments,
    peek_stdin_systems,
    summed_batches,
    text_items,
)
from bleustream.inputs.lines import BadLinePolicy, LineSource
from bleustream.inputs.options import ReadOptions
from bleustream.metrics.counting import SegmentCounter, looks_tokenized
from bleustream.metrics.registry import Spec, metric_of
from bleustream.output.records import FORMATTERS, Record, header
from bleustream.run.final import (
    final_text,
    parts_text,
    system_names,
    systems_order,
    table_names,
)
from bleustream.run.state import (
    Output,
    Report,
    RunOptions,
    State,
    hold_signals,
    marked_or_withheld,
    release_signals,
    segment_record,
    status_after,
    systems_of,
)
from bleustream.scorer import Scorer, Summed, Totals

if TYPE_CHECKING:  # imported when a run needs them: most runs do not
    from bleustream.inputs.pairing import PairingReport
    from bleustream.output.progress import Progress
    from bleustream.parallel.pool import ParallelCounter
    from bleustream.significance.resampling import Resampling, SegmentStore

# SacreBLEU's refusals of the number of systems a test is given (compat mode).
PAIRED_NEEDS_SYSTEMS = "Paired tests require multiple input systems given to --input (-i)."
CI_NEEDS_PAIRED = "Use paired tests (--paired) for multiple systems."

# SacreBLEU's words (it always says 100).
TOKENIZED_WARNING = (
    "That's 100 lines that end in a tokenized period ('.')",
    "It looks like you forgot to detokenize your test data, which may hurt your score.",
    "If you insist your data is detokenized, or don't care, you can suppress this message "
    "with the `force` parameter.",
)


def run_stream(
    options: RunOptions,
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Report,
    progress_stream: TextIO | None = None,
    corpus_wide: bool = False,
) -> int:
    """Score the input the options name as it streams; returns the exit status.

    With ``options.progress``, progress lines go to ``progress_stream``.
    ``corpus_wide``: the metric asked for is scored from corpus-wide tables
    (NIST), and these are its statistics read back.
    """
    if corpus_wide:
        # Statistics read back: their records name the metric (``_Stream.open``).
        options = options._replace(specs=(_default_spec("bleu"),))
    loop = _Stream(options, stdin, stdout, report, progress_stream)
    try:
        # Opening is inside: a signal may come while a FIFO waits for a writer.
        items = loop.open(corpus_wide)
        if items is None:  # NIST's tables, which the corpus-wide loop merges
            from bleustream.run.corpus import run_corpus_wide

            nist_options = loop.options._replace(specs=(_default_spec("nist"),))
            opened = (loop.sources, loop.policy)
            return run_corpus_wide(nist_options, loop.stdin, stdout, report, opened)
        loop.start()
        for item, counted in loop.pairs(items):
            loop.take(item, counted)
    except Interrupted as exc:
        loop.state.partial = True
        loop.status = signal_status(exc.signum)
        segments = count_of(loop.scorer.segments, "segment")
        loop.say(f"interrupted; the score covers the {segments} read so far")
    except LengthMismatch:
        reading = loop.options.reading
        if not reading.sacrebleu_refusals:
            raise
        from bleustream.inputs.sacrebleu_lengths import lengths_refusal

        # SacreBLEU's words (the sources are still open, to be counted).
        drain = loop.counter is None or not loop.counter.reading
        raise lengths_refusal(reading, loop.sources, drain) from None
    finally:
        loop.close()
    return loop.finish()


class _Stream:
    """One streaming run: what it has read, scored and written so far."""

    def __init__(
        self,
        options: RunOptions,
        stdin: BinaryIO | None,
        stdout: BinaryIO,
        report: Report,
        progress_stream: TextIO | None,
    ) -> None:
        self.options, self.stdin, self.report = options, stdin, report
        self.progress_stream = progress_stream
        self.progress: Progress | None = None
        self.policy = BadLinePolicy(options.reading.skip_bad_lines, self.say)
        self.formatter = FORMATTERS[options.format]
        self.out = Output(stdout)
        reading = options.reading
        # Statistics read back say how many references they were counted against.
        nrefs = reading.num_refs if reading.num_refs > 1 else len(reading.refs)
        self.known_nrefs = None if reading.input_format == "stats" else nrefs or None
        self.restart(State(options, options.specs, self.known_nrefs, systems_of(options)))
        self.status = EXIT_OK
        self.started = False  # the header is written
        self.segments: Iterable[Any] = iter(())
        self.sources: list[LineSource] = []
        self.counter: ParallelCounter | None = None
        self.tokenized: list[int] | None = None  # hypotheses ending in " .", per system

    def say(self, message: str) -> None:
        """Reports a message, on a line of its own, not the end of a progress line."""
        if self.progress is not None:
            self.progress.finish()
        self.report(message)

    def restart(self, state: State) -> None:
        """What the records are written with, from ``state``'s systems and metrics."""
        self.state = state
        self.scorer = Scorer(state.specs, len(state.systems))
        # -d: each part of a test set, its lines and its own running totals.
        self.parts = [
            (key, kept, Scorer(state.specs, len(state.systems)))
            for key, kept in self.options.parts or ()
        ]
        self.store = state.store()
        self.ctx = state.context()

    def open(self, corpus_wide: bool) -> Iterator[Item] | None:
        """Opens the input: its items, or None for NIST's statistics read
        back (``corpus_wide``: the metric asked for is NIST)."""
        options = self.options
        if options.reading.input_format == "stats":
            return self._open_stats(corpus_wide)
        if self.stdin is not None and options.stdin_splits:
            self.stdin, self.options = _stdin_systems(self.stdin, options)
            options = self.options
            self.restart(State(options, options.specs, self.known_nrefs, systems_of(options)))
        self.segments, self.sources = text_items(options.reading, self.stdin, self.policy)
        return items_of_segments(self.segments, options.reading, self.sources, self.policy)

    def _open_stats(self, corpus_wide: bool) -> Iterator[Item] | None:
        """Statistics read back: their items, the metrics and systems taken
        from the first record; None for NIST's (tables, not rows)."""
        from bleustream.inputs.nist_records import are_nist_records
        from bleustream.inputs.stats_items import ReadBack, chunks_to_items, stats_items

        options, state = self.options, self.state
        state.read = ReadBack(options.specs)
        self.segments, self.sources = stats_items(
            options.reading, self.stdin, self.policy, state.read.partial_at
        )
        if corpus_wide or are_nist_records(self.sources):  # NIST's records are tables
            return None
        items = chunks_to_items(self.segments, options.reading, state.read)  # type: ignore[arg-type]
        # The metrics come from the first record: read it before the header.
        first = next(items, None)
        state.specs, state.nrefs = state.read.specs, state.read.nrefs
        if state.read.systems is not None:
            state.systems = state.read.systems
        options.check_systems(len(state.systems), "stats")
        self.restart(state)
        return _prepend(first, items)

    def start(self) -> None:
        """Writes the header, and starts the progress lines."""
        options = self.options
        if options.warn_tokenized and not options.reading.sentence_level:
            self.tokenized = [0] * len(self.state.systems)
        self.out.write(header(options.format, self.ctx))
        self.started = True
        if options.progress and self.progress_stream is not None and self.sources:
            from bleustream.output.progress import Progress, file_extent

            size, position = file_extent(self.sources[0].stream)
            self.progress = Progress(self.progress_stream, size, position)

    def pairs(self, items: Iterator[Item]) -> Iterable[tuple[Item, Any]]:
        """Each item with its rows counted elsewhere (workers, a batch), or
        None where it is counted as it comes; a block of files the workers
        read is one item, with its ``Summed``."""
        options, scorer, reading = self.options, self.scorer, self.options.reading
        reading_stats = reading.input_format == "stats"
        each = reading.sentence_level or options.every or self.store is not None or bool(self.parts)
        if scorer.counter.batched and not reading_stats:
            # A model's forward pass counts a window at a time, in this
            # process (one model; -j does not copy it into workers).
            from bleustream.run.model_batches import model_windows, open_sources

            source = open_sources(reading, scorer.counter, self.policy)
            first = self.sources[0]
            if source is not None:
                self.sources.append(source)
            # No source line past the input's last line read (a segment or not).
            return model_windows(
                scorer.counter, items, reading, source, self.say, lambda: first.line
            )
        if options.jobs > 1 and not reading_stats:
            from bleustream.parallel.block_tasks import block_tasks, summed_blocks
            from bleustream.parallel.pool import ParallelCounter

            summed = not each
            self.counter = ParallelCounter(self.state.specs, scorer.systems, options.jobs, summed)
            blocks = (
                block_tasks(reading, self.sources, self.counter, stdin=self.progress is None)
                if summed
                else None
            )
            if blocks is None:
                return self.counter.scored(items)
            return summed_blocks(self.counter, blocks, self.policy)  # an item is a block
        # Progress follows each segment of a stream as it arrives.
        if scorer.systems == 1 and not (each or self.progress is not None or reading_stats):
            from bleustream.inputs import blocks

            if blocks.readable(reading):
                return blocks.block_sums(scorer.counter, self.sources, reading)
            return _summed_batches(scorer.counter, items, reading)
        return zip(items, repeat(None))

    def take(self, item: Item, counted: Any) -> None:
        """Adds one item's rows (or a batch's ``Summed``) to the running
        totals, and writes the records they complete."""
        state, scorer = self.state, self.scorer
        if counted is not None and isinstance(counted, InputError):
            raise InputError(counted.message, input_name(self.options.reading), item.line)
        if isinstance(counted, Summed):
            if self.tokenized is not None:  # counted with the batch, or block, of text
                for index, count in enumerate(counted.tokenized):
                    self.tokenized[index] += count
            self._know_nrefs(counted.nrefs)
            scorer.accumulate_parts(counted.parts, counted.segments)
            self._show_progress()
            return
        self._know_nrefs(len(item.refs))
        every = self.options.every
        before = scorer.segments if every else 0
        if self.tokenized is not None:
            for index, hyp in enumerate(item.hyps):
                self.tokenized[index] += looks_tokenized((hyp,))
        rows = (
            counted
            or item.rows
            or scorer.counter.count_at(
                item.hyps, item.refs, input_name(self.options.reading), item.line
            )
        )
        scorer.accumulate(rows, item.segments)
        for _, kept, part in self.parts:
            if item.line in kept:
                part.accumulate(rows, item.segments)
        if self.store is not None:
            if not item.is_segment:
                assert item.record is not None  # text items are all segments
                source, line = item.record
                raise InputError(
                    "resampling needs every segment's statistics; this is a corpus "
                    "record (write the shards with -sl -f stats)",
                    source,
                    line,
                )
            self.store.add(rows)
        self._show_progress()
        if self.options.reading.sentence_level and item.is_segment:
            for system, system_rows in zip(state.systems, rows):
                scores = tuple(scorer.sentence_scores(system_rows))
                self.out.write(self.formatter(segment_record(item, scores, system), self.ctx))
        if every and scorer.segments // every != before // every:
            self._write_running(item)

    def _know_nrefs(self, nrefs: int) -> None:
        """The number of references, where the first segment says it."""
        if self.state.nrefs is None:
            self.state.nrefs = nrefs
            self.ctx = self.state.context()

    def _show_progress(self) -> None:
        progress = self.progress
        if progress is not None and progress.due():
            first, scorer = self.state.specs[0], self.scorer
            progress.show(scorer.segments, f"{first.label} {scorer.raw_scores()[0].score:.2f}")

    def _write_running(self, item: Item) -> None:
        """The running records (``--every``) of each system, after ``item``."""
        for index, system in enumerate(self.state.systems):
            record = Record(
                "running",
                tuple(self.scorer.raw_scores(index)),
                self.scorer.segments,
                line=item.line,
                system=system,
                skipped=item.skipped,
            )
            self.out.write(self.formatter(record, self.ctx))

    def close(self) -> None:
        """Ends the progress lines, closes the sources and the workers."""
        if self.progress is not None:
            self.progress.finish()
        # A reader thread still blocked in a read holds its stream's lock:
        # closing the stream would wait for it.  The process is ending.
        if self.counter is None or not self.counter.reading:
            for source in self.sources:
                source.close()
        if self.counter is not None:
            self.counter.close()

    def finish(self) -> int:
        """Writes the final records whole (a signal meanwhile waits until they
        are out, and then decides the exit status); returns the exit status."""
        held = hold_signals()
        try:
            self._write_finals()
        finally:
            signum = release_signals(held)
        return status_after(self.status, signum)

    def _write_finals(self) -> None:
        """The messages before the final records, then the records."""
        options, state, scorer, policy, say = (
            self.options,
            self.state,
            self.scorer,
            self.policy,
            self.say,
        )
        unpaired: int | None = None
        segments = self.segments
        pairing = _pairing_report(segments)
        if pairing is not None:
            unpaired = pairing.left_out
            if unpaired and not options.allow_unpaired:
                self.status = EXIT_DATAERR
        # SacreBLEU's refusal of an empty input (not of one whose every line was skipped).
        refused = options.reading.sacrebleu_refusals and not (options.allow_empty or policy.count)
        if refused and state.is_empty(scorer.segments, policy.count):
            from bleustream.inputs.sacrebleu_lengths import empty_refusal

            raise empty_refusal(options.reading)
        empty = _say_what_was_left_out(say, state, scorer.segments, policy, segments)
        if empty and not options.allow_empty:
            self.status = EXIT_DATAERR
            return
        placed = _say_sacrebleu_log(say, state, self.tokenized)
        for count in () if placed else self.tokenized or ():
            if count >= 100:
                for line in TOKENIZED_WARNING:
                    say(line)
        fmt, ctx = options.format, self.ctx
        finals = _finals(state, scorer, self.store, policy.count, unpaired)
        text = "" if self.started else header(fmt, ctx)
        final = final_text(fmt, ctx, finals, options.test, options.reading.stdin_systems > 1)
        read_partial = state.read.partial_at if state.read else []
        if read_partial:
            from bleustream.output.partial import partial_input_message

            say(partial_input_message(read_partial))
            self.status = self.status if self.status != EXIT_OK else EXIT_DATAERR
        if state.partial or read_partial:
            final = marked_or_withheld(say, fmt, ctx, final, finals, scorer.segments)
        elif options.parts is not None and len(state.systems) == 1 and self.status == EXIT_OK:
            final += parts_text(ctx, [(k, p.segments, p.raw_scores()) for k, _, p in self.parts])
        self.out.write(text + final)


def summed_text(
    options: RunOptions,
    totals: Sequence[Totals],
    nrefs: int | None,
    store: SegmentStore | None = None,
) -> str:
    """The header and final records of a run whose statistics were summed
    elsewhere: what ``run`` writes at the end, given each system's totals
    and, for a test, the store of every segment's rows in input order."""
    state = State(options, options.specs, nrefs, systems_of(options))
    scorer = Scorer(state.specs, len(state.systems))
    scorer.totals = tuple(totals)
    ctx = state.context()
    finals = _finals(state, scorer, store, 0, None)
    return header(options.format, ctx) + final_text(options.format, ctx, finals, options.test)


def _stdin_systems(stdin: BinaryIO, options: RunOptions) -> tuple[BinaryIO, RunOptions]:
    """Stdin read again from its start, and the options with its systems:
    the tab-separated fields of its first line."""
    reading = options.reading
    stdin, fields = peek_stdin_systems(stdin, reading.encoding, reading.stdin_universal_newlines)
    options = options.with_reading(stdin_systems=fields)
    compat = reading.compat
    paired = options.test is not None and options.test.paired
    if compat and fields == 1 and paired:
        raise SacrebleuRefusal(PAIRED_NEEDS_SYSTEMS)
    if compat and fields > 1 and options.confidence:
        raise SacrebleuRefusal(CI_NEEDS_PAIRED)
    if fields == 1:
        options.check_systems(fields, "stdin")
    elif compat and reading.sentence_level:
        check_stdin_fields(stdin, options.reading)  # SacreBLEU reads them all first
        raise SacrebleuRefusal("Only one system can be evaluated in sentence-level mode.")
    elif options.test is not None and not options.test.paired:
        raise UsageError(
            f"stdin has {fields} tab-separated systems: -ci is for one system; "
            "use a paired test (--paired-bs or --paired-ar) for several"
        )
    return stdin, options


def _say_what_was_left_out(
    say: Report, state: State, scored: int, policy: BadLinePolicy, segments: Iterable[Any]
) -> bool:
    """The messages before the final record: bad lines skipped, an empty
    input, segments left unpaired.  True for an empty input (``scored``:
    the segments scored)."""
    empty = state.is_empty(scored, policy.count)
    if empty:
        say(state.empty_message(policy.count))
    elif policy.count:
        say(
            f"skipped {count_of(policy.count, 'bad line')}; "
            f"the score covers {count_of(scored, 'segment')}"
        )
    pairing = _pairing_report(segments)
    for message in pairing.messages() if pairing is not None else ():
        say(message)
    return empty


def _finals(
    state: State,
    scorer: Scorer,
    store: SegmentStore | None,
    skipped: int,
    unpaired: int | None,
) -> list[Record]:
    """The corpus record of each system, with its tests' results."""
    specs = state.specs
    test: Resampling | None = state.options.test
    results = []
    if store is not None:
        from bleustream.significance.resampling import run_test

        results = run_test(test, specs, system_names(state.systems), store)
    read_partial, read_skipped = None, 0
    if state.read:  # statistics read back
        from bleustream.output.partial import partial_input

        read_partial, read_skipped = partial_input(state.read.partial_at), state.read.skipped
    finals = []
    for index, system in enumerate(state.systems):
        per_metric = results[index * len(specs) : (index + 1) * len(specs)]
        finals.append(
            Record(
                "corpus",
                tuple(scorer.raw_scores(index)),
                scorer.segments,
                system=system,
                partial=state.partial or read_partial is not None,
                partial_input=read_partial,
                skipped=skipped + read_skipped,
                unpaired=unpaired,
                results=tuple(per_metric) if per_metric else None,
            )
        )
    return finals


def _summed_batches(
    counter: SegmentCounter, items: Iterator[Item], reading: ReadOptions
) -> Iterator[tuple[Item, Summed]]:
    """One process's items summed a batch at a time (``summed_batches``),
    where only sums are needed: pairs of a batch's last item and its
    ``Summed``, as ``-j`` workers return them."""
    for batch, summed in summed_batches(counter, items, reading):
        yield batch[-1], summed


def _pairing_report(segments: Iterable[Any]) -> PairingReport | None:
    """What segments paired by id (``inputs.pairing.PairedSegments``, whose
    module loads for the log formats only) left out; None for others."""
    return getattr(segments, "report", None)


def _default_spec(name: str) -> Spec:
    """A metric with its default settings: the placeholder of statistics
    read back until their first record names theirs."""
    metric = metric_of(name)
    return Spec(metric, metric.Settings())


def _prepend(first: Item | None, rest: Iterator[Item]) -> Iterator[Item]:
    if first is not None:
        yield first
    yield from rest


def _say_sacrebleu_log(say: Report, state: State, tokenized: list[int] | None) -> bool:
    """SacreBLEU's information lines about several systems' scores and their
    paired test, on stderr before them (``--compat sacrebleu`` without ``-q``).

    In a paired test SacreBLEU warns of a tokenized-looking system as it
    counts that system's BLEU: the warnings are placed there, and the
    result says so."""
    options, test = state.options, state.options.test
    if not options.sacrebleu_log or len(state.systems) < 2 or options.reading.sentence_level:
        return False
    if state.partial:  # SacreBLEU, interrupted, has not got so far
        return False
    from bleustream.output import tables  # SacreBLEU's layouts: loaded when written

    paired = test if test is not None and test.paired else None
    names = table_names(state.systems, paired, options.reading.stdin_systems > 1)
    specs = [state.specs[i] for i in systems_order(state.context(), test)]
    metrics = [(spec.name, spec.label) for spec in specs]
    kind, n = (paired.kind, paired.n) if paired else (None, 0)
    warned = [count >= 100 for count in tokenized or ()] if paired else []
    for line in tables.sacrebleu_log(
        names, metrics, kind, n, options.jobs, warned, TOKENIZED_WARNING
    ):
        say(line)
    return paired is not None
