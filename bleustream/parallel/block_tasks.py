"""Blocks of regular input files, read, paired and scored by the worker
processes of ``-j N``.

When every input is a regular, uncompressed file of plain lines, the
parent reads nothing but block boundaries: each worker opens the files
itself, reads its block through the same readers and pairing as one
process would, with the same line numbers, and returns the block's summed
statistics, the bad lines it skipped and the error that ended it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from bleustream.errors import BleustreamError, InputError
from bleustream.inputs.blocks import block_sums, readable
from bleustream.inputs.formats import LOG_FORMATS
from bleustream.inputs.items import (
    Item,
    input_name,
    items_of_segments,
    open_all,
    plain_segments,
    summed_batches,
)
from bleustream.inputs.lines import BadLinePolicy, LineSource, check_encoding, paste_segments
from bleustream.inputs.options import ReadOptions
from bleustream.metrics.counting import Summed, add_summed
from bleustream.parallel.blocks import (
    Block,
    data_blocks,
    identity_of,
    line_blocks,
    open_span,
    same_files,
)

if TYPE_CHECKING:  # imported when a run has workers: multiprocessing is slow to import
    from bleustream.parallel.pool import ParallelCounter


@dataclass(frozen=True)
class BlockTask:
    """A block of the input files, for a worker to read, pair and score to sums."""

    options: ReadOptions
    block: Block
    nfields: int  # paste input: the number of fields an earlier line fixed, else 0


class BlockDone(NamedTuple):
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


def block_tasks(
    options: ReadOptions,
    sources: Sequence[LineSource],
    counter: ParallelCounter,
    stdin: bool = True,
) -> Iterator[BlockTask] | None:
    """Blocks of the input for the workers to read themselves, when they can; else None.

    They can when every input is a regular, uncompressed file (see
    ``identity_of``) of plain lines, paste input or REF files, not a log,
    and when a worker opening the files by name finds the same files.
    With ``--skip-bad-lines``, several systems' files are not read in
    blocks: a skipped line leaves the other systems' files behind until the
    next segment, which may be in another block.

    Paste lines on standard input are read here and sent in blocks of bytes
    (``stdin`` False: not, for a run that shows its progress line by line).
    """
    if options.input_format in LOG_FORMATS or (options.skip_bad_lines and len(options.inputs) > 1):
        return None
    if _stdin_paste(options):
        return _stdin_tasks(options, sources[0]) if stdin else None
    paths = [*options.inputs, *options.refs]
    found = [identity_of(path, source.stream) for path, source in zip(paths, sources)]
    identities = [identity for identity in found if identity is not None]
    if len(identities) != len(sources) or not counter.call(same_files, paths, identities):
        return None
    nfields, line = (0, 0) if options.refs else _paste_fields(options)
    return (
        BlockTask(options, block, nfields if block.before >= line else 0)
        for block in line_blocks(paths, identities, [source.stream for source in sources])
    )


def _stdin_paste(options: ReadOptions) -> bool:
    """Whether the input is paste lines on standard input, which the main
    process reads and sends out in blocks of bytes.

    Not with ``--skip-bad-lines``: the first good line, which fixes the
    number of fields of every later one, could be blocks away.
    """
    return (
        options.inputs == ("-",)
        and not options.refs
        and options.keyed_refs is None
        and not options.skip_bad_lines
    )


def _stdin_tasks(options: ReadOptions, source: LineSource) -> Iterator[BlockTask]:
    """Blocks of standard input, each with its bytes, for the workers to pair
    and score; every block after the first with the number of fields of
    line 1 (a line 1 that is bad is the first block's error)."""
    blocks = data_blocks(source.name, source.stream)
    first = next(blocks, None)
    if first is None:
        return
    yield BlockTask(options, first, 0)
    policy = BadLinePolicy(options.skip_bad_lines)
    data = io.BytesIO(first.spans[0].data or b"")
    encoding = check_encoding(options.encoding)
    lines = LineSource(source.name, data, encoding, options.encoding_errors, policy)
    nfields, _ = _first_fields(lines, policy)
    for block in blocks:
        yield BlockTask(options, block, nfields)


def _paste_fields(options: ReadOptions) -> tuple[int, int]:
    """Paste input: the number of fields of its first good line, which every
    later line must have, and that line's number ((0, 0) when none is).

    It is read quietly: the workers report the bad lines before it.
    Without ``--skip-bad-lines`` it is line 1, or line 1 is an error.
    """
    policy = BadLinePolicy(options.skip_bad_lines)
    (source,) = open_all([options.input], None, options, policy)
    return _first_fields(source, policy)


def _first_fields(source: LineSource, policy: BadLinePolicy) -> tuple[int, int]:
    """``_paste_fields`` of an open source, which it closes."""
    try:
        first = next(paste_segments(source, policy), None)
    except BleustreamError:
        first = None
    finally:
        source.close()
    return (0, 0) if first is None else (len(first.refs) + 1, first.line)


def count_block(task: BlockTask) -> BlockDone:
    """Reads, pairs and scores a block of the input files, in a worker process.

    The block's lines go through the readers and pairing of one process
    (a block of bytes at a time where one process reads so), numbered as
    in the whole files, so that every message is one process's.
    """
    from bleustream.parallel.pool import worker_scorer

    options = task.options
    scorer = worker_scorer()
    policy = _KeptBadLines(options.skip_bad_lines)
    summed: Summed | None = None
    error: BleustreamError | None = None
    try:
        for part in _block_parts(task, policy, scorer):
            summed = add_summed(summed, part)
    except BleustreamError as exc:
        error = exc
    return BlockDone(summed, policy.kept, error)


def _block_parts(task: BlockTask, policy: BadLinePolicy, scorer: Any) -> Iterator[Summed]:
    """The sums of a block's parts: a block of bytes at a time where one
    process would read so (``inputs.blocks``), else a batch of items."""
    options = task.options
    if not readable(options):
        for _batch, part in summed_batches(scorer, _block_items(task, policy), options):
            yield part
        return
    sources = _opened(task, policy)
    try:
        for _last, part in block_sums(scorer, sources, options, task.block.before, task.nfields):
            yield part
    finally:
        for source in sources:
            source.close()


def _block_items(task: BlockTask, policy: BadLinePolicy) -> Iterator[Item]:
    """The items of a block, read through one process's readers and pairing."""
    sources = _opened(task, policy)
    try:
        segments = plain_segments(task.options, sources, policy, task.nfields)
        yield from items_of_segments(segments, task.options, sources, policy)
    finally:
        for source in sources:
            source.close()


def _opened(task: BlockTask, policy: BadLinePolicy) -> list[LineSource]:
    """The block's span of every file, opened as one process's readers,
    numbered as in the whole files; all or none."""
    options = task.options
    encoding = check_encoding(options.encoding)
    sources: list[LineSource] = []
    try:
        for span in task.block.spans:
            stream = open_span(span)
            source = LineSource(span.path, stream, encoding, options.encoding_errors, policy)
            source.line = task.block.before
            sources.append(source)
    except BaseException:
        for source in sources:
            source.close()
        raise
    return sources


@dataclass(frozen=True)
class NistTask:
    """A block for a worker to count NIST's tables of, with NIST's settings."""

    block: BlockTask
    settings: Any
    systems: int


class NistDone(NamedTuple):
    corpus: Any  # the block's NistCorpus
    skipped: list[InputError]
    error: BleustreamError | None


def nist_block(task: NistTask) -> NistDone:
    """NIST's reference table and counts of one block, in a worker process.

    A segment whose references are all empty is the error one process
    raises there (``EmptyReferences``, located by the caller).
    """
    from bleustream.metrics import nist

    settings = task.settings
    words = nist.words_of(settings)
    corpus = nist.NistCorpus.empty(settings.order, task.systems)
    policy = _KeptBadLines(task.block.options.skip_bad_lines)
    error: BleustreamError | None = None
    try:
        for item in _block_items(task.block, policy):
            refs = [words(ref) for ref in item.refs]
            if not any(refs):
                name = input_name(task.block.options)
                raise InputError(nist.EMPTY_REFERENCES, name, item.line)
            corpus.add([words(hyp) for hyp in item.hyps], refs)
    except BleustreamError as exc:
        error = exc
    return NistDone(corpus, policy.kept, error)


def summed_blocks(
    counter: ParallelCounter, tasks: Iterator[BlockTask], policy: BadLinePolicy
) -> Iterator[tuple[BlockTask, Summed]]:
    """Each block with its sums, in order: its skipped lines are reported
    first, and the error that ended it raised."""
    for task, done in counter.mapped(count_block, tasks):
        for bad in done.skipped:
            policy(bad)
        if done.error is not None:
            raise done.error
        if done.summed is not None:
            yield task, done.summed
