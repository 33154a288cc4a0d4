#!/usr/bin/env python3
"""Score a corpus on a Dask cluster: the corpus record ``bleustream`` prints, byte for byte.

    python examples/dask_score.py REF... -i HYP [bleustream options]
    python examples/dask_score.py -i PASTE_FILE [bleustream options]
    python examples/dask_score.py REF... -i HYP --scheduler tcp://host:8786 --partitions 64

The options are ``bleustream``'s (metrics and their settings, ``-f``,
``-w``, ``-b``, ``--encoding``, ``--config``...), read by its own parser and
checked by its own option resolution, plus ``--scheduler``,
``--partitions`` and ``--workers``.  Without ``--scheduler`` a
``LocalCluster`` of worker processes is started and closed at the end.

How the work is split.  The text never passes through this process: the
files are read on the workers, so they must be readable at the same
(absolute) path on every worker, a shared file system on a real cluster.

1. One task per file scans it for line ends (bytes only, nothing decoded)
   and returns its number of lines and the byte offset of every
   ``stride``-th line, ``stride`` doubling as the file grows so that at
   most ``MAX_MARKS`` offsets come back, however long the file.  Files of
   different lengths stop the run here, before any scoring (status 65).
2. The lines are cut into ``--partitions`` ranges at those offsets.  Each
   partition task opens every file, seeks to its range and scores it with a
   ``Scorer`` of its own, reading and pairing lines with bleustream's own
   readers, so a bad line is reported with its file and line number as the
   command line reports it.  A ``.gz`` file is decompressed from its start
   up to the range (gzip cannot seek), which costs time but not memory.
3. The partitions' statistics are added in input order by a chain of small
   tasks, which Dask runs next to their larger input, the partition's
   result, so that mostly the running total travels.  Whole-number
   statistics add exactly in any order; fractional ones (TER's average
   reference length) do not: SacreBLEU adds them one segment after the
   other, and floating-point addition is not associative.  So each
   partition also keeps, for such columns only, its per-segment values, and
   the chain adds them onto the running total one by one, in input order,
   as one process would.

The corpus record is then formatted as the command line formats it, so
the output equals ``bleustream REF... -i HYP`` with the same options, for
every format.  Only the corpus record exists here: ``-sl`` and ``--every``
are refused, as are several systems, log input formats, statistics input,
standard input and ``--skip-bad-lines``; ``-j`` and ``--progress`` are
accepted and do nothing (the cluster's workers are the parallelism).

Exit status: 0 success; 2 usage error, or Dask not installed; 65 bad
input (an undecodable line, a wrong number of fields, files of different
lengths); 66 a file that cannot be opened; 69 the scheduler cannot be
reached; 71 a worker died; 74 a read or write error; 130 interrupted.
"""

from __future__ import annotations

import argparse
import gzip
import logging
import operator
import os
import sys
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import reduce
from itertools import islice
from typing import Any, BinaryIO

from bleustream.cli.argtypes import whole_number
from bleustream.cli.config import FROM_COMMAND_LINE
from bleustream.cli.main import build_parser, check_options, load_config, resolve, show_config
from bleustream.errors import (
    EXIT_IOERR,
    EXIT_OK,
    EXIT_OSERR,
    EXIT_SIGINT,
    EXIT_USAGE,
    BleustreamError,
    InputError,
    OpenError,
    ReadError,
    UsageError,
)
from bleustream.inputs.lines import (
    LineSource,
    check_encoding,
    lockstep_segments,
    open_source,
    paste_segments,
)
from bleustream.metrics.registry import Spec
from bleustream.output.records import FORMATTERS, Context, Record, header
from bleustream.parallel.pool import available_cores
from bleustream.run import Output, RunOptions
from bleustream.scorer import Scorer, Totals, zero_totals

PROG = "dask_score.py"
EXIT_UNAVAILABLE = 69  # the scheduler cannot be reached (EX_UNAVAILABLE)
EXTRA = "bleustream[dask]"

BLOCK = 1 << 20  # bytes read at a time when indexing a file
MAX_MARKS = 4096  # line offsets an index keeps, at most (plus one)
PARTITIONS_PER_THREAD = 4  # default partitions: enough to even out uneven ranges
MIN_PARTITION_LINES = 500  # default partitions are no smaller (task overhead)

Column = tuple[int, int]  # (metric index, position in the metric's row)


# ----------------------------------------------------------------------------
# Worker side: indexing files, scoring line ranges, adding partitions
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FileIndex:
    """Where a file's lines start, every ``stride``-th line."""

    name: str
    lines: int
    stride: int
    marks: tuple[int, ...]  # marks[k]: byte offset of line k * stride (0-based)
    fields: int  # tab-separated fields of line 1 (0 when not asked for, or undecodable)


@dataclass(frozen=True)
class Partition:
    """One range of lines of the hypothesis file and of every reference file."""

    specs: tuple[Spec, ...]
    paths: tuple[str, ...]  # hypotheses first, then references: absolute paths
    names: tuple[str, ...]  # the same files as given, for messages
    offsets: tuple[int, ...]  # byte offset of the range in each file
    first: int  # lines before the range
    count: int  # lines in the range
    encoding: str
    errors: str
    paste_fields: int | None  # paste input: the fields of line 1; None: REF files


@dataclass(frozen=True)
class PartitionStats:
    """A partition's summed statistics, and its fractional statistics one by one."""

    totals: Totals
    columns: tuple[Column, ...]  # the fractional columns, as float_columns gives them
    terms: tuple[list[Any], ...]  # per column, the value of each segment, in order


def open_binary(path: str, name: str) -> BinaryIO:
    """A file's bytes (decompressed for ``.gz``); errors as the command line words them."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError:
        try:  # the command line's own message (exit 66), naming the file as given
            open_source(path, None).close()
        except OpenError as exc:
            raise OpenError(exc.message, name) from None
        raise
    if name.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def index_file(path: str, name: str, encoding: str, errors: str, paste: bool) -> FileIndex:
    """Count a file's lines and note the byte offset of every ``stride``-th line.

    Lines end at ``\\n`` only, as bleustream reads them; a last line without
    one still counts.  With ``paste``, line 1 is decoded to learn how many
    fields every line must have.
    """
    stride, marks, lines, position, last = 1, [0], 0, 0, b"\n"
    with open_binary(path, name) as stream:
        try:
            while block := stream.read(BLOCK):
                block_end = lines + block.count(b"\n")
                start = 0
                while len(marks) * stride <= block_end:
                    target = len(marks) * stride  # the line end after which a marked line starts
                    for _ in range(target - lines):
                        start = block.index(b"\n", start) + 1
                    lines = target
                    marks.append(position + start)
                    if len(marks) > MAX_MARKS:
                        marks, stride = marks[::2], stride * 2
                lines = block_end
                position += len(block)
                last = block[-1:]
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise InputError(f"corrupt gzip data ({exc})", name, lines + 1) from None
        except OSError as exc:
            raise ReadError(f"read error: {exc.strerror or exc}", name, lines + 1) from None
    if last != b"\n":
        lines += 1
    fields = first_line_fields(path, name, encoding, errors) if paste and lines else 0
    return FileIndex(name, lines, stride, tuple(marks), fields)


def first_line_fields(path: str, name: str, encoding: str, errors: str) -> int:
    """The tab-separated fields of line 1 (0 if it does not decode: scoring reports that)."""
    with open_binary(path, name) as stream:
        raw = stream.readline()
    try:
        text = raw.rstrip(b"\n").decode(encoding, errors)
    except UnicodeError:
        return 0
    return len(text.split("\t"))


def float_columns(scorer: Scorer) -> tuple[Column, ...]:
    """The statistics that are fractions (TER's average reference length).

    Told from a probe segment: a metric's row has the same types for every
    segment.  ``score_partition`` checks that the others stay whole numbers.
    """
    rows = scorer.count(("a b c .",), ["a b d ."])[0]
    return tuple(
        (m, j) for m, row in enumerate(rows) for j, value in enumerate(row) if type(value) is float
    )


def score_partition(part: Partition) -> PartitionStats:
    """Read one range of lines on this worker and score it to statistics."""
    sources: list[LineSource] = []
    try:
        for path, name, offset in zip(part.paths, part.names, part.offsets):
            stream = open_binary(path, name)
            source = LineSource(name, stream, part.encoding, part.errors)
            sources.append(source)
            try:
                stream.seek(offset)
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                raise InputError(f"corrupt gzip data ({exc})", name) from None
            source.line = part.first  # messages give the line numbers of the whole file
        if part.paste_fields is not None:
            # A range inside the file is held to line 1's number of fields.
            nfields = part.paste_fields if part.first else 0
            segments = islice(paste_segments(sources[0], nfields=nfields), part.count)
        else:
            segments = islice(lockstep_segments(sources[0], sources[1:]), part.count)
        scorer = Scorer(part.specs)
        columns = float_columns(scorer)
        terms: tuple[list[Any], ...] = tuple([] for _ in columns)
        for segment in segments:
            rows = scorer.add((segment.hyp,), segment.refs)[0]
            for (m, j), values in zip(columns, terms):
                values.append(rows[m][j])
    finally:
        for source in sources:
            source.close()
    fractional = set(columns)
    for m, row in enumerate(scorer.stats.rows):
        for j, value in enumerate(row):
            if (m, j) not in fractional and not isinstance(value, int):
                raise ValueError(
                    f"{part.specs[m].name} statistic {j} is fractional here but a whole "
                    "number for the probe segment: partitions cannot be added exactly"
                )
    return PartitionStats(scorer.stats, columns, terms)


def add_partition(total: Totals, part: PartitionStats) -> Totals:
    """``total`` with a partition added, as one process adds its segments.

    Whole numbers add as sums; each fractional statistic is added segment by
    segment, in order, onto the running total (``functools.reduce`` adds
    left to right; ``sum`` may not, as Python 3.12 compensates float sums).
    """
    rows = [list(row) for row in (total + part.totals).rows]
    for (m, j), values in zip(part.columns, part.terms):
        rows[m][j] = reduce(operator.add, values, total.rows[m][j])
    return Totals(tuple(tuple(row) for row in rows), total.segments + part.totals.segments)


# ----------------------------------------------------------------------------
# Client side: the plan, the cluster, the record
# ----------------------------------------------------------------------------


def check_lengths(indexes: Sequence[FileIndex]) -> None:
    """Files of different lengths are bad input, reported in the command line's words.

    Reading in lockstep, the command line stops at the first reference file
    to end early, else at the first to have lines left over.
    """
    hyps, refs = indexes[0], indexes[1:]
    shortest = min((ref.lines for ref in refs), default=hyps.lines)
    for ref in refs:
        if ref.lines == shortest < hyps.lines:
            raise InputError(
                f"reference file ended after line {ref.lines}, but {hyps.name} "
                f"has a line {ref.lines + 1}",
                ref.name,
            )
    for ref in refs:
        if ref.lines > hyps.lines:
            raise InputError(
                f"reference file has more lines than the hypotheses "
                f"({hyps.name} ended after line {hyps.lines})",
                ref.name,
                hyps.lines + 1,
            )


def plan(
    indexes: Sequence[FileIndex], options: RunOptions, paths: Sequence[str], wanted: int
) -> list[Partition]:
    """Up to ``wanted`` partitions of about equal numbers of lines."""
    lines = indexes[0].lines
    stride = max(index.stride for index in indexes)
    marks = [index.marks[:: stride // index.stride] for index in indexes]
    units = -(-lines // stride)
    count = min(wanted, units)
    bounds = [units * k // count for k in range(count + 1)] if count else []
    encoding = check_encoding(options.encoding)
    fields = indexes[0].fields if not options.refs else None
    return [
        Partition(
            specs=options.specs,
            paths=tuple(paths),
            names=tuple(index.name for index in indexes),
            offsets=tuple(m[start] for m in marks),
            first=start * stride,
            count=min(end * stride, lines) - start * stride,
            encoding=encoding,
            errors=options.encoding_errors,
            paste_fields=fields,
        )
        for start, end in zip(bounds, bounds[1:])
    ]


def default_partitions(client: Any, lines: int) -> int:
    """A few partitions per worker thread, none of them tiny."""
    threads = sum(client.nthreads().values()) or 1
    return max(1, min(PARTITIONS_PER_THREAD * threads, lines // MIN_PARTITION_LINES))


def score_on_cluster(client: Any, options: RunOptions, wanted: int | None) -> tuple[Totals, int]:
    """The statistics of the whole input, and its number of references per segment."""
    from distributed import wait

    names = [options.input, *options.refs]
    paths = [os.path.abspath(name) for name in names]
    paste = not options.refs
    encoding = check_encoding(options.encoding)
    index_futures = [
        client.submit(index_file, path, name, encoding, options.encoding_errors, paste, pure=False)
        for path, name in zip(paths, names)
    ]
    indexes = [future.result() for future in index_futures]  # the first error in file order
    check_lengths(indexes)
    lines = indexes[0].lines
    nrefs = len(options.refs) or max(indexes[0].fields - 1, 0)
    parts = plan(indexes, options, paths, wanted or default_partitions(client, lines))
    part_futures = [client.submit(score_partition, part, pure=False) for part in parts]
    total: Any = zero_totals(options.specs)
    for future in part_futures:
        total = client.submit(add_partition, total, future, pure=False)
    if not part_futures:
        return total, nrefs
    wait([*part_futures, total])
    for future in part_futures:  # the first bad line of the input, as one process reads it
        if future.status == "error":
            future.result()
    return total.result(), nrefs


def corpus_text(options: RunOptions, totals: Totals, nrefs: int) -> str:
    """The corpus record, formatted as ``bleustream.run`` formats it."""
    specs = options.specs
    ctx = Context(
        specs=specs,
        signatures=tuple(spec.signature(nrefs) for spec in specs),
        width=options.width,
        score_only=options.score_only,
        named_systems=False,
    )
    scores = tuple(spec.score(row) for spec, row in zip(specs, totals.rows))
    record = Record("corpus", scores, totals.segments)
    return header(options.format, ctx) + FORMATTERS[options.format](record, ctx)


def empty_note(options: RunOptions) -> str:
    """The command line's note on stderr for an input of no segments."""
    names = " and ".join(spec.label for spec in options.specs)
    verb = "is" if len(options.specs) == 1 else "are"
    return f"no segments in the input ({options.input}); {names} {verb} 0 by definition"


# ----------------------------------------------------------------------------
# Options and the process
# ----------------------------------------------------------------------------


def build_dask_parser() -> argparse.ArgumentParser:
    """bleustream's parser, with the cluster's options added."""
    parser = build_parser()
    parser.prog = PROG
    parser.description = (
        "Score a corpus on a Dask cluster and print the corpus record that bleustream\n"
        "prints for the same files and options. Each worker reads its own range of the\n"
        "files' lines, so the files must be readable at the same path on every worker."
    )
    parser.epilog = (
        "exit status: 0 success; 2 usage error, or Dask not installed; 65 bad input;\n"
        "66 a file cannot be opened; 69 the scheduler cannot be reached; 71 a worker\n"
        "died; 74 a read or write error; 130 interrupted\n\n"
        "examples:\n"
        f"  python {PROG} ref.A.de ref.B.de -i hyp.de -f jsonl\n"
        f"  python {PROG} -i paste.tsv -m bleu chrf ter --workers 8\n"
        f"  python {PROG} ref.de -i hyp.de --scheduler tcp://10.0.0.5:8786 --partitions 256\n"
    )
    group = parser.add_argument_group("Dask")
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the Dask scheduler to use (tcp://host:8786); default: start a local cluster",
    )
    group.add_argument(
        "--partitions",
        type=whole_number(1, 1_000_000),
        metavar="N",
        help=f"ranges of lines to score as separate tasks (default: {PARTITIONS_PER_THREAD} "
        f"per worker thread, of at least {MIN_PARTITION_LINES} lines each)",
    )
    group.add_argument(
        "--workers",
        type=whole_number(1, 1024),
        metavar="N",
        help="worker processes of the local cluster, one thread each (default: the cores "
        "available)",
    )
    return parser


# Settings whose records, or whose input, this example does not produce or read.
UNSUPPORTED = (
    ("sentence_level", "--sentence-level", "it prints the corpus record only"),
    ("every", "--every", "it prints the corpus record only"),
    ("skip_bad_lines", "--skip-bad-lines", "a bad line stops the run"),
)


def check_supported(
    args: argparse.Namespace, options: dict[str, Any], run_options: RunOptions
) -> None:
    """Refuse what would make the output differ from the command line's, or mean nothing."""
    if args.scheduler and args.workers:
        raise UsageError("--workers sizes the local cluster; with --scheduler the cluster is given")
    for dest, flag, why in UNSUPPORTED:
        if options[dest]:
            origin = options["origins"].get(dest, FROM_COMMAND_LINE)
            where = "" if origin == FROM_COMMAND_LINE else f" (set in {origin})"
            raise UsageError(f"{flag} is not supported here: {why}{where}; use bleustream")
    if run_options.input_format != "paste":
        raise UsageError(
            f"--input-format {run_options.input_format} is not supported here; use bleustream"
        )
    if len(run_options.inputs) > 1 or run_options.systems > 1:
        raise UsageError("scores one system: give one -i FILE (and no --systems)")
    if "-" in (run_options.input, *run_options.refs):
        raise UsageError(
            "the workers read the files themselves: give the hypotheses with -i FILE, "
            "and no '-' operand"
        )


def _report(message: str) -> None:
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()


class SchedulerError(BleustreamError):
    """The scheduler named with --scheduler cannot be reached."""

    status = EXIT_UNAVAILABLE


@contextmanager
def cluster_client(args: argparse.Namespace) -> Iterator[Any]:
    """A Client of the scheduler named, else of a local cluster started (and closed) here."""
    from distributed import Client, LocalCluster

    if args.scheduler:
        try:
            client = Client(args.scheduler)
        except OSError as exc:  # refused, or timed out
            raise SchedulerError(f"cannot reach the scheduler at {args.scheduler}: {exc}") from None
        with client:
            yield client
        return
    cluster = LocalCluster(
        n_workers=args.workers or available_cores(),
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    with cluster, Client(cluster) as client:
        yield client


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_dask_parser()
    args = parser.parse_args(argv)  # exits 2 on a usage error, 0 after --help
    try:
        config = load_config(args, os.getcwd(), parser)
        options = resolve(args, config)
        run_options = check_options(options, config)
        if args.show_config:
            Output(sys.stdout.buffer).write(show_config(options, parser))
            return EXIT_OK
        check_supported(args, options, run_options)
        try:
            from distributed import KilledWorker
        except ImportError:
            _report(f"needs Dask: pip install '{EXTRA}'")
            return EXIT_USAGE
        try:
            with cluster_client(args) as client:
                totals, nrefs = score_on_cluster(client, run_options, args.partitions)
        except KilledWorker as exc:
            _report(f"a worker process died ({exc}); no score is printed")
            return EXIT_OSERR
        if totals.segments == 0:
            _report(empty_note(run_options))
        text = corpus_text(run_options, totals, nrefs)
        try:
            Output(sys.stdout.buffer).write(text)
        except OSError as exc:
            _report(f"write error: {exc.strerror or exc}")
            return EXIT_IOERR
        return EXIT_OK
    except BleustreamError as exc:
        _report(str(exc))
        return exc.status
    except KeyboardInterrupt:
        return EXIT_SIGINT


if __name__ == "__main__":
    sys.exit(main())
