"""The units of input a run scores: text segments of every system, or
statistics read back.

Text comes as paste lines, REF files read in lockstep with the hypotheses
(one file per system, read in step), or a translation system's log; it
becomes one ``Item`` per segment, holding every system's hypothesis and the
segment's references.  Statistics records (``--input-format stats``) become
items that carry their rows (``stats_items``), from shards added up in turn
or from several systems' per-segment records read in step.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import BinaryIO, NamedTuple

from bleustream.errors import (
    EXIT_SACREBLEU_FIELDS,
    BleustreamError,
    InputError,
    Interrupted,
    LengthMismatch,
    SacrebleuRefusal,
    UsageError,
)
from bleustream.inputs.formats import LOG_FORMATS
from bleustream.inputs.lines import (
    STDIN_NAME,
    BadLinePolicy,
    LineSource,
    Segment,
    check_encoding,
    lockstep_segments,
    open_source,
    paste_segments,
    read_to,
)
from bleustream.inputs.options import ReadOptions
from bleustream.metrics.counting import Rows, SegmentCounter, Summed


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
    record: tuple[str, int] | None = None  # statistics: the file and line of their record


def open_all(
    paths: Sequence[str], stdin: BinaryIO | None, options: ReadOptions, policy: BadLinePolicy
) -> list[LineSource]:
    """Opens every path (``-``: ``stdin``) as the options say; all or none."""
    encoding = check_encoding(options.encoding)
    sources: list[LineSource] = []
    try:
        for path in paths:
            sources.append(
                open_source(
                    path,
                    stdin,
                    encoding,
                    options.encoding_errors,
                    policy,
                    options.stdin_universal_newlines,
                )
            )
    except BleustreamError:
        for source in sources:
            source.close()
        raise
    return sources


def check_stdin(options: ReadOptions) -> None:
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
    options: ReadOptions, stdin: BinaryIO | None, policy: BadLinePolicy
) -> tuple[Iterator[Segment], list[LineSource]]:
    """The text segments the options ask for, and the sources to close."""
    check_stdin(options)
    refs = list(options.refs)
    paths = [*options.inputs, *refs]
    if options.keyed_refs is not None:
        paths.append(options.keyed_refs)
    sources = open_all(paths, stdin, options, policy)
    nsys = len(options.inputs)
    hyps, ref_sources = sources[:nsys], sources[nsys : nsys + len(refs)]
    if options.input_format in LOG_FORMATS:
        from bleustream.inputs.logs import log_segments  # a log's reader, for logs only

        keyed = sources[-1] if options.keyed_refs is not None else None
        segments = log_segments(
            options.input_format, hyps[0], ref_sources, policy, options.fairseq_hyp, keyed
        )
        return segments, sources
    return plain_segments(options, sources, policy), sources


def plain_segments(
    options: ReadOptions, sources: Sequence[LineSource], policy: BadLinePolicy, nfields: int = 0
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


def items_of_segments(
    segments: Iterator[Segment],
    options: ReadOptions,
    sources: list[LineSource],
    policy: BadLinePolicy,
) -> Iterator[Item]:
    """Items of text segments, with every system's hypothesis; with
    ``keep_lines`` (a test set's ``--origlang``/``--subset``), those lines only."""
    items = _all_items(segments, options, sources, policy)
    keep = options.keep_lines
    return items if keep is None else (item for item in items if item.line in keep)


def _all_items(
    segments: Iterator[Segment],
    options: ReadOptions,
    sources: list[LineSource],
    policy: BadLinePolicy,
) -> Iterator[Item]:
    others = sources[1 : len(options.inputs)]
    if others:
        for segment, more in _other_systems(segments, sources[0], others):
            hyps = (segment.hyp, *more)
            yield Item(hyps, segment.refs, None, 1, segment.line, segment.id, True, policy.count)
        return
    if options.stdin_systems:
        yield from _stdin_systems(segments, options, sources[0], policy)
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


def _stdin_systems(
    segments: Iterator[Segment], options: ReadOptions, source: LineSource, policy: BadLinePolicy
) -> Iterator[Item]:
    """Items of stdin lines whose tab-separated fields are systems, as many
    as the first line has (``options.stdin_systems``, one included).

    As SacreBLEU reads them: the first line fixes the number of fields
    (each field as it is, the line right-stripped); every later line must
    have as many, each field right-stripped.
    """
    n = options.stdin_systems
    first = True
    for segment in segments:
        fields = segment.hyp.split("\t")
        if len(fields) != n:
            raise uneven_fields(n, len(fields), options, source.name, segment.line)
        hyps = tuple(fields) if first else tuple(field.rstrip() for field in fields)
        first = False
        yield Item(hyps, segment.refs, None, 1, segment.line, segment.id, True, policy.count)


def check_stdin_fields(stdin: BinaryIO, options: ReadOptions) -> None:
    """Reads the rest of stdin, whose first line had ``options.stdin_systems``
    tab-separated fields, and raises the error of the first line with
    another number, as SacreBLEU reads all of stdin before it refuses
    anything else (undecodable bytes are replaced, not reported)."""
    encoding = check_encoding(options.encoding)
    source = LineSource(
        STDIN_NAME, stdin, encoding, "replace", None, options.stdin_universal_newlines
    )
    check_fields_left(source, options)


def check_fields_left(source: LineSource, options: ReadOptions) -> None:
    """Reads the rest of ``source`` (stdin, whose first line had
    ``options.stdin_systems`` tab-separated fields) and raises the error of
    the first line with another number; a line that does not decode is
    passed over (SacreBLEU replaces its bytes)."""
    while True:
        try:
            text = next(source)
        except StopIteration:
            return
        except InputError:
            continue
        found = len((text or "").rstrip().split("\t"))
        if found != options.stdin_systems:
            raise uneven_fields(options.stdin_systems, found, options, source.name, source.line)


def uneven_fields(
    n: int, found: int, options: ReadOptions, name: str, line: int
) -> BleustreamError:
    """The error for a line of stdin with ``found`` tab-separated fields where
    the first has ``n``: SacreBLEU's words and status under ``--compat
    sacrebleu``."""
    if options.compat:
        return SacrebleuRefusal(
            "FATAL: the number of tab-delimited fields in the input stream differ across lines.",
            name,
            line,
            EXIT_SACREBLEU_FIELDS,
        )
    if n == 1:
        return InputError(
            f"{found} tab-separated fields, where the first line has 1: with REF files, "
            "the tab-separated fields of standard input are systems, as many on every "
            "line as on the first",
            name,
            line,
        )
    return InputError(
        f"expected {n} tab-separated hypotheses (one per system, as on the first "
        f"line), found {found}",
        name,
        line,
    )


def peek_stdin_systems(
    stdin: BinaryIO, encoding: str, universal_newlines: bool = False
) -> tuple[BinaryIO, int]:
    """The number of tab-separated fields of stdin's first line (ending at a
    lone ``\\r`` too with ``universal_newlines``), and a stream that reads
    that line again."""
    first = stdin.readline()
    text = first.decode(encoding, "replace")
    if universal_newlines:
        text = text.split("\n")[0].split("\r")[0]
    text = text.rstrip()
    return _Replay(first, stdin), len(text.split("\t")) if text else 1


class _Replay:
    """A binary stream whose first line, already read, is read again."""

    def __init__(self, first: bytes, stream: BinaryIO) -> None:
        self._first: bytes | None = first
        self._stream = stream

    def readline(self, size: int = -1) -> bytes:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return self._stream.readline(size)

    def read1(self, size: int = -1) -> bytes:
        """As ``readline``: the first line, then what the stream gives."""
        if self._first is not None:
            first, self._first = self._first, None
            return first
        read = getattr(self._stream, "read1", None) or self._stream.read
        return read(size)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _other_systems(
    segments: Iterator[Segment], first: LineSource, others: list[LineSource]
) -> Iterator[tuple[Segment, list[str]]]:
    """Each segment of the first system with the same line of every other system.

    The other systems are read in step with the first: a line skipped as
    bad (``--skip-bad-lines``) in any system, or in the references, skips
    that segment in every system.  A system of another length is an error.
    """
    for segment in segments:
        more = []
        for source in others:
            text = _read_to(source, segment.line, first)
            if text is None:  # skipped as bad (a bad line is an error otherwise)
                break
            more.append(text.rstrip())
        else:
            yield segment, more
    for source in others:
        # The last lines of the first system may have been skipped as bad:
        # the same lines of the others go with them, and must exist.
        _read_to(source, first.line, first)
        for _ in source:
            raise LengthMismatch(
                f"system file has more lines than {first.name} (which ended after "
                f"line {first.line})",
                source.name,
                source.line,
            )


def _read_to(source: LineSource, line: int, first: LineSource) -> str | None:
    """Reads another system's ``source`` on to ``line``, a line of the first
    system's ``first``: the text of the last line read (None if none was,
    or if it was skipped as bad).  A system that ends before is an error."""
    try:
        return read_to(source, line)
    except StopIteration:
        raise LengthMismatch(
            f"system file ended after line {source.line}, but {first.name} has a line {line}",
            source.name,
        ) from None


def stats_paths(options: ReadOptions) -> list[str]:
    """The files statistics are read back from: the operands, else ``-i``."""
    return [*options.refs] or list(options.inputs)


def open_stats(
    options: ReadOptions, stdin: BinaryIO | None, policy: BadLinePolicy
) -> list[LineSource]:
    """The files statistics are read back from, opened (all or none)."""
    if options.refs and options.inputs != ("-",):
        raise UsageError(
            "with --input-format stats, give shards as operands, or systems with -i, not both"
        )
    paths = stats_paths(options)
    if paths.count("-") > 1:
        raise UsageError("stdin ('-') can be read only once")
    return open_all(paths, stdin, options, policy)


def input_name(options: ReadOptions) -> str:
    """The name that messages give the (first) input; every file statistics
    are read back from."""
    if options.input_format == "stats":
        return ", ".join(STDIN_NAME if path == "-" else path for path in stats_paths(options))
    return STDIN_NAME if options.input == "-" else options.input


# Segments summed in one call of ``SegmentCounter.summed`` (``summed_batches``):
# enough to make the Python work per call small beside the C work, few
# enough for flat memory.
BATCH_SEGMENTS = 256


def summed_batches(
    counter: SegmentCounter, items: Iterator[Item], options: ReadOptions
) -> Iterator[tuple[list[Item], Summed]]:
    """Text items summed a batch (``BATCH_SEGMENTS``) at a time: each batch
    with its ``Summed`` (``SegmentCounter.summed_at``, a problem in an
    item's text located at its line).

    A signal or a reading error sums the items read so far before it is
    raised: the partial score of a signal covers them, and a segment before
    a reading error whose text cannot be scored is the error raised, as
    when each segment is counted as it is read.
    """
    batch: list[Item] = []
    try:
        for item in items:
            batch.append(item)
            if len(batch) == BATCH_SEGMENTS:
                summed = _summed(counter, batch, options)
                done, batch = batch, []
                yield done, summed
    except (Interrupted, BleustreamError):
        if batch:
            yield batch, _summed(counter, batch, options)
        raise
    if batch:
        yield batch, _summed(counter, batch, options)


def _summed(counter: SegmentCounter, batch: Sequence[Item], options: ReadOptions) -> Summed:
    return counter.summed_at(
        [item.hyps for item in batch],
        [item.refs for item in batch],
        input_name(options),
        (item.line for item in batch),
    )
