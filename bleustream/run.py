"""The record loop: segments in, records out.

``run`` reads the segments its options name, scores them with every metric
asked for, and writes each record as it completes: a segment's sentence
scores (``sentence_level``), the corpus score so far (every ``every``
segments), and the corpus score at the end.  It knows nothing of argparse
or of the process: it is given typed options, the binary streams to use and
a function to report problems with, and returns an exit status.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Callable

from bleustream.errors import (
    EXIT_DATAERR,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    BleustreamError,
    Interrupted,
    UsageError,
    count_of,
)
from bleustream.formats import FORMATTERS, Context, Record, header
from bleustream.logs import LOG_FORMATS, check_usage, log_segments
from bleustream.metrics import Spec
from bleustream.pairing import PairedSegments
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
from bleustream.scorer import Scorer

Report = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs to know, checked and typed."""

    specs: tuple[Spec, ...]
    refs: tuple[str, ...] = ()
    input: str = "-"
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


def open_segments(
    options: RunOptions, stdin: BinaryIO | None, policy: BadLinePolicy
) -> tuple[Iterator[Segment], list[LineSource]]:
    """The segment stream the options ask for, and the sources to close."""
    encoding = check_encoding(options.encoding)
    errors = options.encoding_errors
    refs = list(options.refs)
    if options.input == "-" and "-" in refs:
        raise UsageError("stdin cannot be both the hypotheses and a reference file; use -i FILE")
    if refs.count("-") > 1:
        raise UsageError("stdin ('-') can be only one of the reference files")
    input_format = options.input_format
    keyed_refs = options.keyed_refs
    check_usage(input_format, len(refs), keyed_refs)
    if keyed_refs == "-" and options.input == "-":
        raise UsageError("stdin cannot be both the hypotheses and --keyed-refs; use -i FILE")
    sources: list[LineSource] = []
    try:
        hyps = open_source(options.input, stdin, encoding, errors, policy)
        sources.append(hyps)
        for path in refs:
            sources.append(open_source(path, stdin, encoding, errors, policy))
        if keyed_refs is not None:
            sources.append(open_source(keyed_refs, stdin, encoding, errors, policy))
    except BleustreamError:
        for source in sources:
            source.close()
        raise
    if input_format in LOG_FORMATS:
        keyed = sources[-1] if keyed_refs is not None else None
        ref_sources = sources[1 : 1 + len(refs)]
        segments = log_segments(input_format, hyps, ref_sources, policy, options.fairseq_hyp, keyed)
        return segments, sources
    if not refs:
        return paste_segments(hyps, policy), sources
    return lockstep_segments(hyps, sources[1:]), sources


def input_name(options: RunOptions) -> str:
    return STDIN_NAME if options.input == "-" else options.input


def run(options: RunOptions, stdin: BinaryIO | None, stdout: BinaryIO, report: Report) -> int:
    """Score the input the options name; returns the exit status."""
    specs = options.specs
    policy = BadLinePolicy(options.skip_bad_lines, report)
    fmt = options.format
    formatter = FORMATTERS[fmt]
    sentence_level = options.sentence_level
    every = options.every
    scorer = Scorer(specs)
    out = Output(stdout)
    nrefs: int | None = len(options.refs) or None

    def context() -> Context:
        return Context(
            specs=specs,
            signatures=tuple(spec.signature(nrefs or 0) for spec in specs),
            width=options.width,
            score_only=options.score_only,
        )

    ctx = context()
    status = EXIT_OK
    partial = False
    started = False  # the header is written
    segments: Iterator[Segment] = iter(())
    sources: list[LineSource] = []
    try:
        # Opening is inside: a signal may come while a FIFO waits for a writer.
        segments, sources = open_segments(options, stdin, policy)
        out.write(header(fmt, ctx))
        started = True
        for segment in segments:
            if nrefs is None:
                nrefs = len(segment.refs)
                ctx = context()
            (rows,) = scorer.add((segment.hyp,), segment.refs)
            if sentence_level:
                record = Record(
                    "segment",
                    tuple(scorer.sentence_scores(rows)),
                    1,
                    line=segment.line,
                    id=segment.id,
                    skipped=policy.count,
                )
                out.write(formatter(record, ctx))
            if every and scorer.segments % every == 0:
                record = Record(
                    "running",
                    tuple(scorer.scores()),
                    scorer.segments,
                    line=segment.line,
                    skipped=policy.count,
                )
                out.write(formatter(record, ctx))
    except Interrupted as exc:
        partial = True
        status = EXIT_SIGINT if exc.signum == signal.SIGINT else EXIT_SIGTERM
        report(
            f"interrupted; the score covers the {count_of(scorer.segments, 'segment')} read so far"
        )
    finally:
        for source in sources:
            source.close()
    # The final record is written whole: a signal now would cut it short.
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    if policy.count:
        report(
            f"skipped {count_of(policy.count, 'bad line')}; "
            f"the score covers {count_of(scorer.segments, 'segment')}"
        )
    if scorer.segments == 0 and not partial and not policy.count:
        names = " and ".join(spec.label for spec in specs)
        verb = "is" if len(specs) == 1 else "are"
        report(f"no segments in the input ({input_name(options)}); {names} {verb} 0 by definition")
    unpaired: int | None = None
    if isinstance(segments, PairedSegments) and segments.report is not None:
        for message in segments.report.messages():
            report(message)
        unpaired = segments.report.left_out
        if unpaired and not options.allow_unpaired:
            status = EXIT_DATAERR
    final = Record(
        "corpus",
        tuple(scorer.scores()),
        scorer.segments,
        partial=partial,
        skipped=policy.count,
        unpaired=unpaired,
    )
    out.write(("" if started else header(fmt, ctx)) + formatter(final, ctx))
    return status
