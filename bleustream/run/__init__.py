"""The record loop: segments in, records out.

``run`` reads what its options name, scores it with every metric asked for
and writes each record as it completes: a segment's sentence scores
(``sentence_level``), the corpus score so far (every ``every`` segments),
and the corpus score at the end, for each system.  It knows nothing of
argparse or of the process: it is given typed options, the binary streams
to use and a function to report problems with, and returns an exit status.

The flow is one way::

    items (text segments, or statistics read back; ``bleustream.inputs.items``)
    -> rows (scored here, or by worker processes: ``bleustream.parallel.pool``,
    ``bleustream.parallel.block_tasks``) -> running totals (``bleustream.scorer``)
    -> records (``bleustream.output.records``, ``bleustream.run``) -> output
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import repeat
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, TextIO

from bleustream.errors import (
    EXIT_DATAERR,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    InputError,
    Interrupted,
    LengthMismatch,
    SacrebleuRefusal,
    UsageError,
    count_of,
)
from bleustream.inputs.items import (
    Item,
    check_stdin_fields,
    count_item,
    input_name,
    items_of_segments,
    peek_stdin_systems,
    summed_batches,
    text_items,
)
from bleustream.inputs.lines import BadLinePolicy, LineSource
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.pairing import PairedSegments
from bleustream.inputs.sacrebleu_lengths import applies, empty_refusal, lengths_refusal
from bleustream.metrics.counting import SegmentCounter
from bleustream.metrics.registry import Spec, is_corpus_wide, metric_of
from bleustream.output.partial import (
    partial_input,
    partial_input_message,
    unmarkable_because,
    withheld_lines,
)
from bleustream.output.progress import Progress, file_extent
from bleustream.output.records import (
    FORMATTERS,
    Context,
    Record,
    header,
)
from bleustream.run.final import final_text, system_names, systems_order, table_names
from bleustream.scorer import Scorer, Summed, Totals

if TYPE_CHECKING:  # imported when a run needs them: most runs do not
    from bleustream.inputs.stats_items import ReadBack
    from bleustream.parallel.pool import ParallelCounter
    from bleustream.significance.resampling import Resampling, SegmentStore

__all__ = ["Output", "Report", "RunOptions", "run", "summed_text"]

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
    # REF files with tab-separated stdin: its fields are this many systems,
    # named as SacreBLEU names them (set by ``run`` from the first line).
    stdin_systems: int = 0
    jobs: int = 1  # worker processes counting segments
    num_refs: int = 1  # references per line of the one reference file
    test: Resampling | None = None  # confidence intervals or a paired test
    progress: bool = False  # progress lines on the progress stream
    short: bool = False  # SacreBLEU's short signatures in text
    # SacreBLEU's warning when 100 or more of a system's hypotheses end in " .".
    warn_tokenized: bool = False
    allow_empty: bool = False  # no segments: scores of 0, not an error
    self_bleu_column: int = 0  # Self-BLEU: the sentences are this field (0: whole lines)
    keep_lines: frozenset[int] | None = None  # --origlang/--subset: the lines scored
    nist_docs: str | None = None  # NIST: the file of each line's document id
    compat: bool = False  # SacreBLEU's layouts (--compat sacrebleu)
    confidence: bool = False  # -ci was given (alone, or with a paired test)
    sacrebleu_log: bool = False  # SacreBLEU's information lines on stderr
    # Merging statistics: by metric name, the score-only settings that the
    # command line (or config file) sets over those the records carry.
    scoring_overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # By metric name, the counting settings the command line (or config
    # file) gives: NIST's statistics read back must have been counted so.
    counting_given: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def input(self) -> str:
        return self.inputs[0]

    def __post_init__(self) -> None:
        self.reading  # noqa: B018 (the input options check themselves)
        if self.systems_given is not None:
            self.check_systems(self.systems_given, "given")

    @property
    def systems_given(self) -> int | None:
        """How many systems the options name, or None where the input says:
        statistics read back (their records name the systems) and stdin read
        with REF files (its tab-separated fields are the systems)."""
        if self.input_format == "stats" or self.stdin_splits:
            return None
        return max(len(self.inputs), self.systems)

    @property
    def stdin_splits(self) -> bool:
        """Whether stdin's tab-separated fields may be several systems: hypotheses
        from stdin read in lockstep with REF files, as SacreBLEU reads them."""
        return (
            self.input_format == "paste"
            and bool(self.refs)
            and self.inputs == ("-",)
            and self.systems == 1
        )

    def check_systems(self, nsys: int, counted: str) -> None:
        """The one rule on the number of systems: a paired test and ``-f latex``
        need two or more.  *counted* says where *nsys* came from (``given``,
        ``stdin`` or ``stats``), so that the message says how to give more."""
        if nsys > 1:
            return
        paired = self.test is not None and self.test.paired
        if not paired and (self.format != "latex" or self.compat):
            return  # SacreBLEU writes one system's lines for -f latex
        what = (
            "a paired test needs at least two systems"
            if paired
            else "-f latex writes a table of at least two systems"
        )
        hint = {
            "given": "give REF... -i BASELINE SYSTEM..., or paste input with --systems N",
            "stdin": "stdin has one (give them as tab-separated fields, "
            "or REF... -i BASELINE SYSTEM...)",
            "stats": "these statistics are of one (write several systems' with -sl -f stats, "
            "or give one file per system with -i)",
        }[counted]
        raise UsageError(f"{what}: {hint}")

    @cached_property
    def reading(self) -> ReadOptions:
        """The options the input layer reads."""
        return ReadOptions(
            refs=self.refs,
            inputs=self.inputs,
            encoding=self.encoding,
            encoding_errors=self.encoding_errors,
            skip_bad_lines=self.skip_bad_lines,
            input_format=self.input_format,
            fairseq_hyp=self.fairseq_hyp,
            keyed_refs=self.keyed_refs,
            systems=self.systems,
            stdin_systems=self.stdin_systems,
            compat=self.compat,
            num_refs=self.num_refs,
            keep_lines=self.keep_lines,
            sentence_level=self.sentence_level,
            scoring_overrides=self.scoring_overrides,
            counting_given=self.counting_given,
        )


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


@dataclass
class _State:
    """What the loop knows so far, for the records it writes."""

    options: RunOptions
    specs: tuple[Spec, ...]
    nrefs: int | str | None  # None until the first segment or statistics say
    systems: list[str | int | None]
    partial: bool = False  # this run was interrupted
    read: ReadBack | None = None  # statistics read back (what their records say)

    def context(self) -> Context:
        """The context of the records written from now on."""
        test = self.options.test
        signatures = [spec.signature(self.nrefs or 0) for spec in self.specs]
        if test is not None:
            from bleustream.significance.draws import with_test_fields

            signatures = [with_test_fields(s, test.signature_fields()) for s in signatures]
        return Context(
            specs=self.specs,
            signatures=tuple(signatures),
            width=self.options.width,
            score_only=self.options.score_only,
            named_systems=len(self.systems) > 1,
            test=test.kind if test is not None else None,
            short=self.options.short,
            compat=self.options.compat,
            sentence_only=self.options.sentence_level
            and (self.options.score_only or self.options.compat),
        )

    def store(self) -> SegmentStore | None:
        """Where every segment's statistics are kept, when a test resamples them."""
        if self.options.test is None:
            return None
        from bleustream.significance.resampling import SegmentStore

        return SegmentStore(len(self.systems), len(self.specs))


def _systems(options: RunOptions) -> list[str | int | None]:
    """The systems of text input: [None] for one, else their files or paste fields."""
    if options.stdin_systems > 1:
        names = [f"System {i}" for i in range(1, options.stdin_systems + 1)]
        if options.test is not None and options.test.paired:
            names = ["Baseline", *names[:-1]]  # SacreBLEU renumbers the others from 1
        return list(names)
    if len(options.inputs) > 1:
        return list(options.inputs)
    if options.systems > 1:
        return list(range(1, options.systems + 1))
    return [None]


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
    if options.specs[0].name == "self-bleu":
        return _run_self_bleu(options, stdin, stdout, report)
    nist_asked = is_corpus_wide(options.specs)  # -m nist
    if nist_asked:
        if options.input_format != "stats":
            return _run_corpus_wide(options, stdin, stdout, report)
        # Statistics read back: their records name the metric (see below).
        options = replace(options, specs=(_default_spec("bleu"),))
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
    reading_stats = options.input_format == "stats"
    # Statistics read back say how many references they were counted against.
    nrefs = options.num_refs if options.num_refs > 1 else len(options.refs)
    known_nrefs = None if reading_stats else nrefs or None
    state = _State(options, options.specs, known_nrefs, _systems(options))
    scorer = Scorer(state.specs, len(state.systems))
    store = state.store()
    ctx = state.context()
    status = EXIT_OK
    started = False  # the header is written
    segments: Iterator[Any] = iter(())
    sources: list[LineSource] = []
    counter: ParallelCounter | None = None
    tokenized: list[int] | None = None  # hypotheses ending in " .", per system
    try:
        # Opening is inside: a signal may come while a FIFO waits for a writer.
        if reading_stats:
            from bleustream.inputs.nist_records import are_nist_records
            from bleustream.inputs.stats_items import ReadBack, chunks_to_items, stats_items

            state.read = ReadBack(options.specs)
            segments, sources = stats_items(options.reading, stdin, policy, state.read.partial_at)
            if nist_asked or are_nist_records(sources):  # NIST's records are tables
                nist_options = replace(options, specs=(_default_spec("nist"),))
                return _run_corpus_wide(nist_options, stdin, stdout, report, (sources, policy))
            items = chunks_to_items(segments, options.reading, state.read)
            # The metrics come from the first record: read it before the header.
            first = next(items, None)
            state.specs, state.nrefs = state.read.specs, state.read.nrefs
            if state.read.systems is not None:
                state.systems = state.read.systems
            options.check_systems(len(state.systems), "stats")
            scorer = Scorer(state.specs, len(state.systems))
            store = state.store()
            ctx = state.context()
            items = _prepend(first, items)
        else:
            if stdin is not None and options.stdin_splits:
                stdin, options = _stdin_systems(stdin, options)
                state = _State(options, options.specs, known_nrefs, _systems(options))
                scorer = Scorer(state.specs, len(state.systems))
                store = state.store()
                ctx = state.context()
            segments, sources = text_items(options.reading, stdin, policy)
            items = items_of_segments(segments, options.reading, sources, policy)
        tokenized = (
            [0] * len(state.systems)
            if options.warn_tokenized and not options.sentence_level
            else None
        )
        out.write(header(fmt, ctx))
        started = True
        every = options.every
        if options.progress and progress_stream is not None and sources:
            size, position = file_extent(getattr(sources[0], "_stream", None))
            progress = Progress(progress_stream, size, position)
        if options.jobs > 1 and not reading_stats:
            from bleustream.parallel.block_tasks import block_tasks, summed_blocks
            from bleustream.parallel.pool import ParallelCounter

            summed = not (options.sentence_level or every or store is not None)
            counter = ParallelCounter(state.specs, scorer.systems, options.jobs, summed)
            blocks = (
                block_tasks(options.reading, sources, counter, stdin=progress is None)
                if summed
                else None
            )
            if blocks is None:
                pairs = counter.scored(items)
            else:  # the workers read the files: an item here is a block
                pairs = summed_blocks(counter, blocks, policy)
        elif scorer.counter.sums_lines and not (
            # Progress follows each segment of a stream as it arrives.
            options.sentence_level
            or every
            or store is not None
            or progress is not None
            or reading_stats
        ):
            pairs = _summed_batches(scorer.counter, items, options.reading, tokenized)
        else:
            pairs = zip(items, repeat(None))
        for item, counted in pairs:
            if counted is not None and isinstance(counted, InputError):
                raise InputError(counted.message, input_name(options.reading), item.line)
            if isinstance(counted, Summed):
                if state.nrefs is None:
                    state.nrefs = counted.nrefs
                    ctx = state.context()
                scorer.accumulate_parts(counted.parts, counted.segments)
                if progress is not None and progress.due():
                    _show_progress(progress, scorer, state.specs[0])
                continue
            if state.nrefs is None:
                state.nrefs = len(item.refs)
                ctx = state.context()
            before = scorer.segments if every else 0
            if tokenized is not None:
                for index, hyp in enumerate(item.hyps):
                    if hyp.endswith(" ."):
                        tokenized[index] += 1
            rows = counted or item.rows or count_item(scorer.counter, item, options.reading)
            scorer.accumulate(rows, item.segments)
            if store is not None:
                if not item.is_segment:
                    assert item.record is not None  # text items are all segments
                    source, line = item.record
                    raise InputError(
                        "resampling needs every segment's statistics; this is a corpus "
                        "record (write the shards with -sl -f stats)",
                        source,
                        line,
                    )
                store.add(rows)
            if progress is not None and progress.due():
                _show_progress(progress, scorer, state.specs[0])
            if options.sentence_level and item.is_segment:
                for system, system_rows in zip(state.systems, rows):
                    scores = tuple(scorer.sentence_scores(system_rows))
                    out.write(formatter(_segment_record(item, scores, system), ctx))
            if every and scorer.segments // every != before // every:
                for index, system in enumerate(state.systems):
                    record = Record(
                        "running",
                        tuple(scorer.raw_scores(index)),
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
    except LengthMismatch:
        if not applies(options.reading):
            raise
        # SacreBLEU's words (the sources are still open, to be counted).
        drain = counter is None or not counter.reading
        raise lengths_refusal(options.reading, sources, drain) from None
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
        unpaired: int | None = None
        if isinstance(segments, PairedSegments) and segments.report is not None:
            unpaired = segments.report.left_out
            if unpaired and not options.allow_unpaired:
                status = EXIT_DATAERR
        # SacreBLEU's refusal of an empty input (not of one whose every line was skipped).
        refused = applies(options.reading) and not (options.allow_empty or policy.count)
        if refused and _is_empty(state, scorer.segments, policy):
            raise empty_refusal(options.reading)
        empty = _say_what_was_left_out(say, state, scorer.segments, policy, segments)
        if empty and not options.allow_empty:
            status = EXIT_DATAERR
        else:
            placed = _say_sacrebleu_log(say, state, tokenized)
            for count in () if placed else tokenized or ():
                if count >= 100:
                    for line in TOKENIZED_WARNING:
                        say(line)
            finals = _finals(state, scorer, store, policy.count, unpaired)
            text = "" if started else header(fmt, ctx)
            final = final_text(fmt, ctx, finals, options.test, options.stdin_systems > 1)
            read_partial = state.read.partial_at if state.read else []
            if read_partial:
                say(partial_input_message(read_partial))
                status = status if status != EXIT_OK else EXIT_DATAERR
            if state.partial or read_partial:
                final = _marked_or_withheld(say, fmt, ctx, final, finals, scorer.segments)
            out.write(text + final)
    finally:
        signum = _restore_signals(masked)
    if signum is not None and status == EXIT_OK:
        status = EXIT_SIGINT if signum == signal.SIGINT else EXIT_SIGTERM
    return status


def _marked_or_withheld(
    say: Report,
    fmt: str,
    ctx: Context,
    text: str,
    finals: Sequence[Record],
    covered: int,
    noun: str = "segment",
    at_the_end: bool = False,
) -> str:
    """What standard output gets of an interrupted run's ``text`` (records
    scored from the ``covered`` segments read): the text, where the format
    marks it partial on every line with a score; else nothing, and the text
    goes to standard error, marked (``bleustream.output.partial``).

    ``at_the_end``: ``text`` holds segment records scored at the end from
    the tables of what was read (NIST, Self-BLEU), partial too."""
    reason = unmarkable_because(fmt, ctx, len(finals) > 1, at_the_end)
    if reason is None:
        return text
    for line in withheld_lines(text, count_of(covered, noun), reason):
        say(line)
    return ""


def summed_text(
    options: RunOptions,
    totals: Sequence[Totals],
    nrefs: int | None,
    store: SegmentStore | None = None,
) -> str:
    """The header and final records of a run whose statistics were summed
    elsewhere: what ``run`` writes at the end, given each system's totals
    and, for a test, the store of every segment's rows in input order."""
    state = _State(options, options.specs, nrefs, _systems(options))
    scorer = Scorer(state.specs, len(state.systems))
    scorer.totals = tuple(totals)
    ctx = state.context()
    finals = _finals(state, scorer, store, 0, None)
    return header(options.format, ctx) + final_text(options.format, ctx, finals, options.test)


# SacreBLEU's refusals of the number of systems a test is given (compat mode).
PAIRED_NEEDS_SYSTEMS = "Paired tests require multiple input systems given to --input (-i)."
CI_NEEDS_PAIRED = "Use paired tests (--paired) for multiple systems."


def _stdin_systems(stdin: BinaryIO, options: RunOptions) -> tuple[BinaryIO, RunOptions]:
    """Stdin read again from its start, and the options with its systems:
    the tab-separated fields of its first line."""
    universal = options.reading.stdin_universal_newlines
    stdin, fields = peek_stdin_systems(stdin, options.encoding, universal)
    options = replace(options, stdin_systems=fields)
    paired = options.test is not None and options.test.paired
    if options.compat and fields == 1 and paired:
        raise SacrebleuRefusal(PAIRED_NEEDS_SYSTEMS)
    if options.compat and fields > 1 and options.confidence:
        raise SacrebleuRefusal(CI_NEEDS_PAIRED)
    if fields == 1:
        options.check_systems(fields, "stdin")
    elif options.compat and options.sentence_level:
        check_stdin_fields(stdin, options.reading)  # SacreBLEU reads them all first
        raise SacrebleuRefusal("Only one system can be evaluated in sentence-level mode.")
    elif options.test is not None and not options.test.paired:
        raise UsageError(
            f"stdin has {fields} tab-separated systems: -ci is for one system; "
            "use a paired test (--paired-bs or --paired-ar) for several"
        )
    return stdin, options


def _show_progress(progress: Progress, scorer: Scorer, first: Spec) -> None:
    progress.show(scorer.segments, f"{first.label} {scorer.raw_scores()[0].score:.2f}")


def _segment_record(item: Item, scores: tuple[Any, ...], system: str | int | None) -> Record:
    return Record(
        "segment", scores, 1, line=item.line, id=item.id, system=system, skipped=item.skipped
    )


# SacreBLEU's words (it always says 100).
TOKENIZED_WARNING = (
    "That's 100 lines that end in a tokenized period ('.')",
    "It looks like you forgot to detokenize your test data, which may hurt your score.",
    "If you insist your data is detokenized, or don't care, you can suppress this message "
    "with the `force` parameter.",
)


def _say_what_was_left_out(
    say: Report, state: _State, scored: int, policy: BadLinePolicy, segments: Iterator[Any]
) -> bool:
    """The messages before the final record: bad lines skipped, an empty
    input, segments left unpaired.  True for an empty input (``scored``:
    the segments scored)."""
    empty = _is_empty(state, scored, policy)
    if empty:
        say(_empty_message(state, policy))
    elif policy.count:
        say(
            f"skipped {count_of(policy.count, 'bad line')}; "
            f"the score covers {count_of(scored, 'segment')}"
        )
    if isinstance(segments, PairedSegments) and segments.report is not None:
        for message in segments.report.messages():
            say(message)
    return empty


def _is_empty(state: _State, scored: int, policy: BadLinePolicy) -> bool:
    """Whether a run that was not interrupted scored no segment, and so has
    no score to print: an empty input, or every line skipped as bad where
    no corpus record would carry the mark (``-sl -b``, SacreBLEU's ``-sl``)."""
    if scored or state.partial:
        return False
    return not policy.count or state.context().sentence_only


def _empty_message(state: _State, policy: BadLinePolicy) -> str:
    """The one line that says the input had no segments to score."""
    where = input_name(state.options.reading)
    if policy.count:
        where += f"; {count_of(policy.count, 'bad line')} skipped"
    if state.options.allow_empty:
        names = " and ".join(spec.label for spec in state.specs)
        verb = "is" if len(state.specs) == 1 else "are"
        return f"no segments in the input ({where}); {names} {verb} 0 by definition"
    return f"no segments in the input ({where}); --allow-empty scores it as 0"


def _finals(
    state: _State,
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
    read_partial, read_skipped = (
        (partial_input(state.read.partial_at), state.read.skipped) if state.read else (None, 0)
    )
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


def _write_whole(stdout: BinaryIO, text: str, status: int) -> int:
    """Writes the records of a run scored at the end (NIST, Self-BLEU) in one
    piece; a signal meanwhile waits until they are out, then sets the status.
    (A signal while they are scored ends the run with none: see ``main``.)"""
    masked = _block_signals()
    try:
        Output(stdout).write(text)
    finally:
        signum = _restore_signals(masked)
    if signum is not None and status == EXIT_OK:
        status = EXIT_SIGINT if signum == signal.SIGINT else EXIT_SIGTERM
    return status


_INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class _Held:
    """SIGINT and SIGTERM held back (``_block_signals``): what to restore."""

    mask: Any  # the caller's signal mask, or None
    handlers: dict[int, Any]  # the caller's handlers, replaced meanwhile
    noted: list[int]  # the signals that came meanwhile


def _block_signals() -> _Held:
    """Holds SIGINT and SIGTERM back until ``_restore_signals``.

    Blocking them in this thread is not enough: the kernel gives a signal
    sent to the process to any thread that does not block it (numpy's,
    the pool's), and Python then runs the handler here all the same.  So
    in the main thread the handlers are replaced too, by one that notes
    the signal for ``_restore_signals`` to deliver."""
    noted: list[int] = []
    handlers: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in _INTERRUPTS:
            handler = signal.getsignal(signum)
            if callable(handler):
                handlers[signum] = handler
                signal.signal(signum, lambda got, frame: noted.append(got))
    mask = None
    if hasattr(signal, "pthread_sigmask"):
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(_INTERRUPTS))
    return _Held(mask, handlers, noted)


def _restore_signals(held: _Held) -> int | None:
    """Restores the caller's signal mask and handlers, then hands them a
    signal that waited; returns its number if their handler raised
    ``Interrupted`` (the command line's)."""
    try:
        if held.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held.mask)  # a pending one is noted
        for signum, handler in held.handlers.items():
            signal.signal(signum, handler)
        if held.noted:
            signal.raise_signal(held.noted[0])
    except Interrupted as exc:
        return exc.signum
    return None


def _summed_batches(
    counter: SegmentCounter,
    items: Iterator[Item],
    reading: ReadOptions,
    tokenized: list[int] | None,
) -> Iterator[tuple[Item, Summed]]:
    """One process's items summed a batch at a time (``summed_batches``),
    where only sums are needed and a metric sums lines in one call: pairs of
    a batch's last item and its ``Summed``, as ``-j`` workers return them,
    with the hypotheses that look tokenized counted."""
    for batch, summed in summed_batches(counter, items, reading):
        if tokenized is not None:
            tokenized[0] += sum(item.hyps[0].endswith(" .") for item in batch)
        yield batch[-1], summed


def _default_spec(name: str) -> Spec:
    """A metric with its default settings: the placeholder of statistics
    read back until their first record names theirs."""
    metric = metric_of(name)
    return Spec(metric, metric.Settings())


def _prepend(first: Item | None, rest: Iterator[Item]) -> Iterator[Item]:
    if first is not None:
        yield first
    yield from rest


def _say_sacrebleu_log(say: Report, state: _State, tokenized: list[int] | None) -> bool:
    """SacreBLEU's information lines about several systems' scores and their
    paired test, on stderr before them (``--compat sacrebleu`` without ``-q``).

    In a paired test SacreBLEU warns of a tokenized-looking system as it
    counts that system's BLEU: the warnings are placed there, and the
    result says so."""
    options, test = state.options, state.options.test
    if not options.sacrebleu_log or len(state.systems) < 2 or options.sentence_level:
        return False
    if state.partial:  # SacreBLEU, interrupted, has not got so far
        return False
    from bleustream.output import tables  # SacreBLEU's layouts: loaded when written

    paired = test if test is not None and test.paired else None
    names = table_names(state.systems, paired, options.stdin_systems > 1)
    specs = [state.specs[i] for i in systems_order(state.context(), test)]
    metrics = [(spec.name, spec.label) for spec in specs]
    kind, n = (paired.kind, paired.n) if paired else (None, 0)
    warned = [count >= 100 for count in tokenized or ()] if paired else []
    for line in tables.sacrebleu_log(
        names, metrics, kind, n, options.jobs, warned, TOKENIZED_WARNING
    ):
        say(line)
    return paired is not None


# ----------------------------------------------------------------------------
# A metric scored at the end from corpus-wide tables (NIST): its weights
# need every reference, so the run keeps the reference table and each
# segment's matched n-grams, and writes every record once the input ends.
# ----------------------------------------------------------------------------


def _run_corpus_wide(
    options: RunOptions,
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Report,
    opened: tuple[list[LineSource], BadLinePolicy] | None = None,
) -> int:
    """NIST: read everything into one ``NistCorpus`` (the reference table and
    each system's matched n-grams), then score with the corpus-wide weights.

    ``-sl`` keeps each segment's counts too, for its record at the end.
    ``-j N`` counts blocks of regular files on workers and merges their
    tables; statistics read back (``--input-format stats``) merge the same
    way: the numbers are one process's, with the settings the records
    carry.  ``opened``: the statistics files, already opened, and their policy.
    """
    spec = options.specs[0]
    settings = spec.settings
    policy = BadLinePolicy(options.skip_bad_lines, report) if opened is None else opened[1]
    systems = _systems(options)
    status, partial = EXIT_OK, False
    read_partial: list[tuple[str, int]] = []  # records of an interrupted run read back
    try:
        if options.input_format == "stats":
            corpus, names, settings, read_partial = _nist_read_back(options, stdin, policy, opened)
            if names is not None:
                systems = names
            counted, where, docs = None, [], {}
        else:
            corpus, counted, where, docs = _nist_count(
                options, stdin, policy, settings, len(systems)
            )
    except _NistInterrupted as stop:
        corpus, counted, where, docs = stop.corpus, stop.counted, stop.where, stop.docs
        partial = True
        status = EXIT_SIGINT if stop.signum == signal.SIGINT else EXIT_SIGTERM
        report(
            f"interrupted; the score covers the {count_of(corpus.segments, 'segment')} read so far"
        )
    nrefs = corpus.nrefs
    spec = Spec(spec.metric, replace(settings, nrefs=nrefs or 1))
    state = _State(options, (spec,), nrefs or len(options.refs) or 1, systems)
    ctx = state.context()
    segments = corpus.segments
    state.partial = partial
    if _is_empty(state, segments, policy):
        report(_empty_message(state, policy))
        if not options.allow_empty:
            return EXIT_DATAERR
    elif policy.count:
        report(
            f"skipped {count_of(policy.count, 'bad line')}; the score covers "
            f"{count_of(segments, 'segment')}"
        )
    if read_partial:
        report(partial_input_message(read_partial))
        status = status if status != EXIT_OK else EXIT_DATAERR
    read_where = partial_input(read_partial)  # statistics read back of an interrupted run
    if options.format == "stats":
        out = []
        for index, system in enumerate(systems):
            record = _nist_record(
                corpus, index, spec, system, partial or bool(read_partial), policy.count
            )
            out.append(json.dumps(record, ensure_ascii=False) + "\n")
        return _write_whole(stdout, "".join(out), status)
    formatter = FORMATTERS[options.format]
    records = _nist_detail_records(spec, corpus, systems, (counted, where, docs))
    if partial:
        # Scored now with the weights of the references read: of an
        # interrupted input, each is partial.
        records = [replace(r, partial=True) for r in records]
    finals = [
        Record(
            "corpus",
            (spec.score(row),),
            segments,
            system=system,
            partial=partial or bool(read_partial),
            partial_input=read_where,
            skipped=policy.count,
        )
        for system, row in zip(systems, corpus.rows())
    ]
    text = "".join(formatter(r, ctx) for r in records)
    text += final_text(options.format, ctx, finals, None)
    if partial or read_partial:
        text = _marked_or_withheld(
            report, options.format, ctx, text, finals, segments, at_the_end=True
        )
    return _write_whole(stdout, header(options.format, ctx) + text, status)


def _nist_detail_records(spec: Spec, corpus: Any, systems: list[Any], read: Any) -> list[Record]:
    """NIST's segment records (``-sl``) and document records, scored now
    with the corpus-wide weights; ``read``: the counts of each segment,
    the items they came from and the documents' counts (statistics read
    back have none)."""
    from bleustream.metrics import nist

    counted, where, docs = read
    records = []
    if counted is not None:
        cache: dict[str, float] = {}
        for position, item in enumerate(where):
            for index, system in enumerate(systems):
                row = nist.weighted_row(counted[index][position], corpus.table, cache)
                records.append(_segment_record(item, (spec.sentence_score(row),), system))
    for doc in sorted(docs):  # mteval's order of the documents: their ids' string order
        for index, system in enumerate(systems):
            counts = docs[doc][index]
            records.append(
                Record(
                    "document",
                    (spec.score(counts.row(corpus.table)),),
                    counts.segments,
                    id=doc,
                    system=system,
                )
            )
    return records


class _NistInterrupted(Exception):
    """A signal while NIST was counting: what was counted, to score as partial."""

    def __init__(
        self, signum: int, corpus: Any, counted: Any, where: list[Item], docs: Any
    ) -> None:
        self.signum, self.corpus, self.counted, self.where = signum, corpus, counted, where
        self.docs = docs


def _nist_count(
    options: RunOptions, stdin: BinaryIO | None, policy: BadLinePolicy, settings: Any, nsys: int
) -> tuple[Any, list[list[Any]] | None, list[Item], dict[str, list[Any]]]:
    """The text's ``NistCorpus``; with ``-sl`` each segment's counts and items
    too, and with ``--nist-docs`` each document's counts, per system."""
    from bleustream.metrics import nist

    words = nist.words_of(settings)
    corpus = nist.NistCorpus.empty(settings.order, nsys)
    counted: list[list[Any]] | None = [[] for _ in range(nsys)] if options.sentence_level else None
    where: list[Item] = []
    docs: dict[str, list[Any]] = {}
    sources: list[LineSource] = []
    counter = None
    doc_of = None
    try:
        segments, sources = text_items(options.reading, stdin, policy)
        if options.nist_docs is not None:
            doc_of = _DocIds(options, stdin)
        if options.jobs > 1 and counted is None and doc_of is None:
            from bleustream.parallel.block_tasks import NistTask, block_tasks, nist_block
            from bleustream.parallel.pool import ParallelCounter

            counter = ParallelCounter(options.specs, nsys, options.jobs, True)
            blocks = block_tasks(options.reading, sources, counter)
            if blocks is not None:
                tasks = (NistTask(block, settings, nsys) for block in blocks)
                for _, done in counter.mapped(nist_block, tasks):
                    for bad in done.skipped:
                        policy(bad)
                    if done.error is not None:
                        raise done.error
                    corpus.merge(done.corpus)
                return corpus, None, [], docs
        for item in items_of_segments(segments, options.reading, sources, policy):
            refs = [words(ref) for ref in item.refs]
            if not any(refs):
                raise InputError(nist.EMPTY_REFERENCES, input_name(options.reading), item.line)
            added = corpus.add([words(hyp) for hyp in item.hyps], refs)
            if counted is not None:
                for index, counts in enumerate(added):
                    counted[index].append(counts)
                where.append(item._replace(hyps=(), refs=()))
            if doc_of is not None:
                doc_id = doc_of(item.line)
                if doc_id not in docs:
                    docs[doc_id] = [nist.SystemCounts(settings.order) for _ in range(nsys)]
                for system, counts in zip(docs[doc_id], added):
                    system.add(counts)
    except Interrupted as exc:
        raise _NistInterrupted(exc.signum, corpus, counted, where, docs) from None
    finally:
        if counter is None or not counter.reading:
            for source in sources:
                source.close()
        if counter is not None:
            counter.close()
        if doc_of is not None:
            doc_of.close()
    return corpus, counted, where, docs


class _DocIds:
    """``--nist-docs FILE``: the document id of an input line, read in step."""

    def __init__(self, options: RunOptions, stdin: BinaryIO | None) -> None:
        from bleustream.inputs.lines import open_source

        assert options.nist_docs is not None
        self.source = open_source(options.nist_docs, stdin, options.encoding)
        self.last: str | None = None

    def __call__(self, line: int) -> str:
        source = self.source
        while source.line < line:
            text = next(source, None)
            if text is None and source.line < line:
                raise InputError(
                    f"the document ids end at line {source.line}; the input has a line {line}",
                    source.name,
                )
            self.last = text
        if not self.last or not self.last.strip():
            raise InputError("an empty document id", source.name, source.line)
        return self.last.strip()

    def close(self) -> None:
        self.source.close()


def _nist_read_back(
    options: RunOptions,
    stdin: BinaryIO | None,
    policy: BadLinePolicy,
    opened: tuple[list[LineSource], BadLinePolicy] | None,
) -> tuple[Any, list[str | int | None] | None, Any, list[tuple[str, int]]]:
    """NIST statistics read back: every record's tables merged, per system
    (the systems named by the records, in the order first seen), the
    settings the records carry, and where records of an interrupted run
    were read."""
    from bleustream.inputs.items import open_stats
    from bleustream.inputs.nist_records import NistRecords
    from bleustream.metrics import nist

    given = dict(options.counting_given.get(nist.NAME, {}))
    records = NistRecords(given)
    sources = open_stats(options.reading, stdin, policy) if opened is None else opened[0]
    try:
        for source in sources:
            records.read(source)
    finally:
        for source in sources:
            source.close()
    corpus, names = records.corpus(input_name(options.reading))
    settings = records.settings or options.specs[0].settings
    if corpus is None:
        corpus = nist.NistCorpus.empty(settings.order, 1)
    return corpus, names, settings, records.partial_at


def _nist_record(
    corpus: Any, index: int, spec: Spec, system: str | int | None, partial: bool, skipped: int
) -> dict[str, Any]:
    """System ``index``'s corpus record of ``-f stats``: its ``stats`` are NIST's tables."""
    from bleustream.metrics import nist
    from bleustream.metrics.stats_record import record_object

    extra = {} if system is None else {"system": system}
    stats = (nist.stats_object(corpus, index),)
    record = record_object("corpus", (spec,), stats, corpus.segments, corpus.nrefs or 1, extra)
    record["partial"], record["skipped"] = partial, skipped
    return record


def _run_self_bleu(
    options: RunOptions, stdin: BinaryIO | None, stdout: BinaryIO, report: Report
) -> int:
    """Self-BLEU of each input (``-i FILE...`` or stdin; one set each): read
    the set, or a sample of it, then score every sentence against the others."""
    from bleustream.inputs.lines import open_source
    from bleustream.inputs.sentences import sentences
    from bleustream.metrics import self_bleu

    spec = options.specs[0]
    settings: self_bleu.Settings = spec.settings
    words = self_bleu.words_of(settings)
    policy = BadLinePolicy(options.skip_bad_lines, report)
    systems = _systems(options)
    sets: list[tuple[list[int], list[Any], self_bleu.OthersTable]] = []
    status, partial = EXIT_OK, False
    for path in options.inputs:
        lines: list[int] = []
        kept: list[Any] = []
        table = self_bleu.OthersTable(settings.max_order)
        vocabulary = self_bleu.Vocabulary()
        sets.append((lines, kept, table))
        source = open_source(path, stdin, options.encoding, options.encoding_errors, policy)
        try:
            read = sentences(source, options.self_bleu_column)
            if settings.sample:
                read = iter(self_bleu.sample(read, settings.sample, settings.seed))
            for line, text in read:
                ids = vocabulary(words(text))
                table.add(ids)
                lines.append(line)
                kept.append(ids)
        except Interrupted as exc:
            partial = True
            status = EXIT_SIGINT if exc.signum == signal.SIGINT else EXIT_SIGTERM
            report(
                f"interrupted; the score covers the {count_of(len(kept), 'sentence')} read so far"
            )
            break
        finally:
            source.close()
        if not partial and (len(kept) == 1 or (not kept and not options.allow_empty)):
            what = "one sentence" if kept else "no sentences"
            raise InputError(
                f"{what}: Self-BLEU scores each sentence against the others, so it needs "
                "at least two" + ("" if kept else " (--allow-empty scores 0)"),
                source.name,
            )
    state = _State(options, (spec,), 1, systems)
    ctx = state.context()
    formatter = FORMATTERS[options.format]
    out: list[str] = []
    finals = []
    for (lines, kept, table), system in zip(sets, systems):
        values = self_bleu.values_of(kept, table, settings) if len(kept) > 1 else []
        total = spec.zero()
        for line, value in zip(lines, values):
            row = (value, 1)
            total = self_bleu.add_row(total, row)
            if options.sentence_level:
                # Each sentence is scored against the others read: partial too.
                score = spec.sentence_score(row)
                record = Record("segment", (score,), 1, line=line, system=system, partial=partial)
                out.append(formatter(record, ctx))
        finals.append(
            Record(
                "corpus",
                (spec.score(total),),
                len(values),
                system=system,
                partial=partial,
                skipped=policy.count,
            )
        )
    if policy.count:
        report(f"skipped {count_of(policy.count, 'bad line')}")
    out.append(final_text(options.format, ctx, finals, None))
    text = "".join(out)
    if partial:
        read = sum(len(kept) for _, kept, _ in sets)
        text = _marked_or_withheld(
            report, options.format, ctx, text, finals, read, "sentence", at_the_end=True
        )
    return _write_whole(stdout, header(options.format, ctx) + text, status)
