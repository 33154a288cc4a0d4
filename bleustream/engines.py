"""Scoring on a distributed engine (Dask, Ray, Spark): what the engine needs, and nothing of it.

A run on an engine has three steps, and this module gives each one::

    job = Job.from_argv(["ref.de", "-i", "hyp.de", "-m", "bleu", "ter"])  # bleustream's options
    parts = job.parts(64)              # driver: line ranges, cut at line starts (bytes only)
    stats = job.part_stats(part)       # worker: read one range, count it (a pure function)
    total = sum(all_stats, job.zero()) # anywhere, in any order, in any tree: exact
    sys.stdout.write(job.records(total))  # driver: what ``bleustream`` prints, byte for byte

A ``Job`` pickles, so it goes to the workers with the task.  Files are read
on the workers, at byte offsets, by bleustream's own readers: lines end at
``\\n`` only, a bad line is reported with its file and line number as the
command line reports it, and the driver holds offsets, never text.

``Stats`` add exactly in any order.  Each block holds the ``Summed`` a
worker of ``-j`` returns: whole-number statistics summed, fractional ones
(TER's average reference length, not associative in floating point)
segment by segment; ``records`` adds the blocks in input order, as one
process does.  A run with
``-ci``, ``--paired-bs`` or ``--paired-ar`` keeps every segment's rows too.
``records`` refuses statistics with a gap, a block counted twice or a
block that failed: an engine that loses work never prints a smaller
corpus.

``run`` is the rest of a script: parsing, exit statuses and one line on
stderr for each failure, the engine's own failures included.
"""

from __future__ import annotations

import gzip
import heapq
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

from bleustream.cli.config import FROM_COMMAND_LINE
from bleustream.cli.main import check_options, load_config, resolve, show_config
from bleustream.cli.options import MAX_JOBS
from bleustream.cli.parser import add_option, build_parser
from bleustream.errors import (
    EXIT_OK,
    EXIT_OSERR,
    EXIT_SIGINT,
    EXIT_USAGE,
    BleustreamError,
    InputError,
    OpenError,
    UsageError,
    failure_status,
)
from bleustream.inputs.items import (
    input_name,
    items_of_segments,
    plain_segments,
    summed_batches,
)
from bleustream.inputs.lines import (
    GZIP_FAILURES,
    READ_FAILURES,
    BadLinePolicy,
    LineSource,
    check_encoding,
    open_source,
    read_failure,
)
from bleustream.metrics.counting import (
    Rows,
    SegmentCounter,
    Summed,
    add_parts,
    add_summed,
    sum_rows,
    zero_totals,
)
from bleustream.metrics.protocol import OptionSpec
from bleustream.metrics.windows import check_sources, needs_source
from bleustream.parallel.blocks import LineMarks
from bleustream.parallel.pool import process_counter
from bleustream.run import Output, RunOptions, summed_text
from bleustream.run.model_batches import model_windows
from bleustream.run.state import empty_message

if TYPE_CHECKING:  # the parser is the command's own (cli/parser.py)
    import argparse

__all__ = [
    "EngineFailure",
    "Job",
    "OptionSpec",
    "Part",
    "Stats",
    "UsageError",
    "engine_options",
    "engine_parser",
    "run",
]

MAX_PARTS = 1_000_000  # --parts: more tasks than any cluster runs usefully

# Settings whose records, or whose input, an engine run does not produce or read.
UNSUPPORTED = (
    ("sentence_level", "--sentence-level", "it prints the corpus records only"),
    ("every", "--every", "it prints the corpus records only"),
    ("skip_bad_lines", "--skip-bad-lines", "a bad line stops the run"),
)


class EngineFailure(BleustreamError):
    """The engine failed (a worker died, the cluster cannot be reached): no score."""

    status = EXIT_OSERR

    def __init__(self, message: str, status: int = EXIT_OSERR) -> None:
        super().__init__(message)
        self.status = status


# ----------------------------------------------------------------------------
# Where lines start: an index of each file, and parts of whole lines
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
class Part:
    """The same range of lines of every file: the unit of work of a task."""

    first: int  # lines before the range
    count: int  # lines in the range (of the first file)
    offsets: tuple[int, ...]  # the byte offset of the range in each file
    last: bool  # the range runs to the end of the files, which the readers check
    nfields: int = 0  # paste input: the fields line 1 fixed (0: none)


def _open_binary(path: str, name: str) -> BinaryIO:
    """A file's bytes (decompressed for ``.gz``); the command line's error if it won't open."""
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


def index_file(
    path: str,
    name: str | None = None,
    encoding: str = "utf-8",
    errors: str = "strict",
    *,
    fields: bool = False,
) -> FileIndex:
    """Count a file's lines and note the byte offset of every ``stride``-th
    line (``blocks.LineMarks``).  With ``fields``, line 1 is decoded to
    learn how many tab-separated fields every line has.
    """
    name = path if name is None else name
    found = LineMarks()
    with _open_binary(path, name) as stream:
        try:
            found.read(stream)
        except READ_FAILURES as exc:
            raise read_failure(exc, name, found.lines + 1) from None
    lines = found.lines
    nfields = _first_line_fields(path, name, encoding, errors) if fields and lines else 0
    return FileIndex(name, lines, found.stride, tuple(found.marks), nfields)


def _first_line_fields(path: str, name: str, encoding: str, errors: str) -> int:
    """The tab-separated fields of line 1 (0 if it does not decode: scoring reports that)."""
    with _open_binary(path, name) as stream:
        raw = stream.readline()
    try:
        text = raw.rstrip(b"\n").decode(encoding, errors)
    except UnicodeError:
        return 0
    return len(text.split("\t"))


# ----------------------------------------------------------------------------
# Statistics: they pickle and add, exactly, in any order
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """A block of segments counted in one task: its place in the input and its ``Summed``."""

    first: int  # segments before the block
    last: bool  # the block ran to the end of the input
    summed: Summed | None  # None: no segment
    rows: tuple[Rows, ...] | None  # for a test: every segment's rows
    error: BleustreamError | None  # the error that ended the block

    @property
    def segments(self) -> int:
        return 0 if self.summed is None else self.summed.segments


@dataclass(frozen=True)
class Stats:
    """The statistics of some blocks of segments: ``a + b`` is exact, in any order.

    Each block keeps its ``Summed`` (whole numbers summed, TER's fractional
    rows kept in order); ``records`` adds the blocks in input order, as one
    process adds its batches.
    """

    blocks: tuple[_Block, ...] = field(default=())  # ordered by their first segment

    def __add__(self, other: Stats) -> Stats:
        if not isinstance(other, Stats):
            return NotImplemented
        return Stats(tuple(heapq.merge(self.blocks, other.blocks, key=lambda b: b.first)))

    def __radd__(self, other: Any) -> Stats:
        if other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    @property
    def segments(self) -> int:
        """Segments counted (whatever the blocks' coverage)."""
        return sum(block.segments for block in self.blocks)


def _quiet(note: str) -> None:
    """A worker's notes (a model's truncated inputs, its cache) are not said."""


def _block(
    first: int, last: bool, summed: Summed | None, rows: list[Rows] | None, error: Any
) -> Stats:
    """The statistics of one block."""
    return Stats((_Block(first, last, summed, None if rows is None else tuple(rows), error),))


# ----------------------------------------------------------------------------
# The job
# ----------------------------------------------------------------------------


def _command_parser(
    prog: str, description: str | None = None, epilog: str | None = None
) -> argparse.ArgumentParser:
    """bleustream's own parser under a script's name."""
    made = build_parser()
    made.prog = prog
    if description is not None:
        made.description = description
    if epilog is not None:
        made.epilog = epilog
    return made


def engine_options(
    cluster: tuple[str, str], workers_help: str, per: str = "CPU"
) -> tuple[OptionSpec, ...]:
    """What an engine's script takes besides bleustream's options, declared as
    the command declares its own: where its cluster is (``cluster``: the
    option and its help), ``--parts`` and ``--workers`` (the local
    cluster's size)."""
    flag, help_text = cluster
    return (
        OptionSpec((flag,), flag.lstrip("-").replace("-", "_"), help=help_text, config=False),
        OptionSpec(
            ("--parts",),
            "parts",
            kind="int",
            minimum=1,
            maximum=MAX_PARTS,
            metavar="N",
            config=False,
            help=f"parts of the lines, one task each (default: 4 per {per})",
        ),
        OptionSpec(
            ("--workers",),
            "workers",
            kind="int",
            minimum=1,
            maximum=MAX_JOBS,
            metavar="N",
            config=False,
            help=workers_help,
        ),
    )


def engine_parser(
    prog: str,
    engine: str,
    options: Sequence[OptionSpec],
    description: str | None = None,
    epilog: str | None = None,
) -> argparse.ArgumentParser:
    """bleustream's parser under a script's name, with the engine's
    ``options`` (``engine_options``, or a script's own) in a group of their own."""
    description = description or f"Score with {engine}; prints what bleustream prints."
    parser = _command_parser(prog, description, epilog)
    group = parser.add_argument_group(engine)
    for option in options:
        add_option(group, option)
    return parser


@dataclass(frozen=True)
class Job:
    """A bleustream run's settings, read by bleustream's own parser; it pickles to workers."""

    options: RunOptions
    names: tuple[str, ...]  # hypothesis files, then reference files, then --src, as given
    paths: tuple[str, ...]  # the same, absolute: the workers open these
    config_text: str | None = None  # --show-config: the settings in force, to print
    # 1 when the last file is --src, the sources a metric reads (COMET), else 0.
    src_files: int = 0

    @classmethod
    def from_argv(
        cls, argv: Sequence[str] | None = None, parser: argparse.ArgumentParser | None = None
    ) -> Job:
        """A job from bleustream's command-line options (argparse exits 2 on a bad one)."""
        parser = parser or build_parser()
        return cls.from_args(parser.parse_args(argv), parser)

    @classmethod
    def from_args(cls, args: argparse.Namespace, parser: argparse.ArgumentParser) -> Job:
        """A job from options parsed by ``parser`` (made by ``engine_parser``)."""
        config = load_config(args, os.getcwd(), parser)
        values = resolve(args, config)
        run_options = check_options(values, config)
        reading = run_options.reading
        src_files = 0 if needs_source(run_options.specs) is None else 1
        names = (*reading.inputs, *reading.refs, *([reading.src] if src_files else []))
        paths = tuple(os.path.abspath(name) for name in names)
        if args.show_config:
            return cls(run_options, names, paths, show_config(values, parser))
        for dest, flag, why in UNSUPPORTED:
            if values[dest]:
                origin = values["origins"].get(dest, FROM_COMMAND_LINE)
                where = "" if origin == FROM_COMMAND_LINE else f" (set in {origin})"
                raise UsageError(f"{flag} is not supported here: {why}{where}; use bleustream")
        if run_options.reading.input_format != "paste":
            raise UsageError(
                f"--input-format {run_options.reading.input_format} is not supported here; "
                "use bleustream"
            )
        check_sources(run_options.specs, reading.src, reading.input_format)
        if "-" in names:
            raise UsageError(
                "the workers read the files themselves: give the hypotheses with -i FILE, "
                "and no '-' operand"
            )
        return cls(run_options, names, paths, src_files=src_files)

    @property
    def systems(self) -> int:
        o = self.options.reading
        return len(o.inputs) if len(o.inputs) > 1 else o.systems

    # -- the plan (driver) ---------------------------------------------------

    def index(self, file: int) -> FileIndex:
        """The index of the job's ``file``-th file (hypotheses first): a task of its own."""
        o = self.options.reading
        paste = not o.refs and file == 0
        encoding = check_encoding(o.encoding)
        return index_file(
            self.paths[file], self.names[file], encoding, o.encoding_errors, fields=paste
        )

    def plan(self, indexes: Sequence[FileIndex], parts: int, min_lines: int = 1) -> list[Part]:
        """Up to ``parts`` parts of about equal numbers of lines, at least one,
        and of at least ``min_lines`` lines (the input allowing).

        Each starts at a line start of every file; the last runs to the end
        of the files, so that the readers find files of different lengths
        where one process reading them in lockstep finds them.
        """
        if len(indexes) != len(self.paths):
            raise ValueError(f"expected an index of each of the {len(self.paths)} files")
        lines = min(index.lines for index in indexes)
        stride = max(index.stride for index in indexes)
        marks = [index.marks[:: stride // index.stride] for index in indexes]
        units = -(-lines // stride)
        count = max(1, min(parts, units, lines // max(min_lines, 1)))
        bounds = [units * k // count for k in range(count + 1)]
        nfields = indexes[0].fields if not self.options.reading.refs else 0
        out = []
        for start, end in zip(bounds, bounds[1:]):
            first = start * stride
            last = end == units
            stop = indexes[0].lines if last else end * stride
            offsets = tuple(m[start] for m in marks)
            out.append(Part(first, stop - first, offsets, last, nfields))
        return out

    def parts(self, parts: int, min_lines: int = 1) -> list[Part]:
        """The plan, with every file indexed in this process (bytes only, nothing kept)."""
        return self.plan([self.index(k) for k in range(len(self.paths))], parts, min_lines)

    # -- statistics (workers) ------------------------------------------------

    def zero(self) -> Stats:
        """The statistics of nothing: ``+`` leaves any statistics as they are."""
        return Stats()

    def part_stats(self, part: Part) -> Stats:
        """Read one part of the files and count it: the work of a task.

        A bad line ends the part with the command line's error, kept in the
        statistics for ``records`` to raise in input order.
        """
        o = self.options
        reading = o.reading
        counter = process_counter(o.specs, self.systems)
        policy = BadLinePolicy(False)
        sources: list[LineSource] = []  # the texts' files, then --src's
        summed: Summed | None = None
        rows: list[Rows] = []  # every segment's, where they are kept (below)
        nrefs = 0
        error: BleustreamError | None = None
        try:
            encoding = check_encoding(reading.encoding)
            for path, name, offset in zip(self.paths, self.names, part.offsets):
                stream = _open_binary(path, name)
                source = LineSource(name, stream, encoding, reading.encoding_errors, policy)
                sources.append(source)
                try:
                    stream.seek(offset)
                except GZIP_FAILURES as exc:
                    raise read_failure(exc, name) from None
                source.line = part.first  # messages give the line numbers of the whole file
            texts = sources[: len(sources) - self.src_files]
            nfields = part.nfields if part.first else 0
            segments = plain_segments(reading, texts, policy, nfields)
            items: Iterator[Any] = items_of_segments(segments, reading, texts, policy)
            if not part.last:
                items = islice(items, part.count)
            if o.test is None and not self.src_files:
                for _batch, batch in summed_batches(counter, items, reading):
                    summed = add_summed(summed, batch)
            else:  # every segment's rows: a test resamples them, a model counts windows
                for item, segment_rows in self._counted(counter, items, sources, part):
                    rows.append(segment_rows)
                    nrefs = nrefs or len(item.refs)
        except BleustreamError as exc:
            error = exc
        finally:
            for source in sources:
                source.close()
        if rows:
            summed = sum_rows(rows, self.systems, nrefs)
        return _block(part.first, part.last, summed, rows if o.test is not None else None, error)

    def _counted(
        self,
        counter: SegmentCounter,
        items: Iterator[Any],
        sources: list[LineSource],
        part: Part,
    ) -> Iterator[tuple[Any, Rows]]:
        """Each item of a part with its rows: a window at a time, with the
        source of its line, where a metric reads ``--src`` (the last file);
        else one segment at a time, a bad one located at its line."""
        reading = self.options.reading
        if self.src_files:
            # The last part runs to the input's end: its first file's last line read.
            last = (lambda: sources[0].line) if part.last else None
            yield from model_windows(counter, items, reading, sources[-1], _quiet, last)
            return
        where = input_name(reading)
        for item in items:
            yield item, counter.count_at(item.hyps, item.refs, where, item.line)

    def batch_stats(
        self,
        first: int,
        hyps: Sequence[Sequence[str]],
        refs: Sequence[Sequence[str | None]],
        *,
        last: bool = False,
    ) -> Stats:
        """The statistics of segments held in memory, ``first`` being the number before them.

        ``hyps[s][i]`` is system ``s``'s hypothesis of segment ``i``;
        ``refs[j][i]`` its ``j``-th reference (``None``: none), SacreBLEU's
        layout.  The text is counted as given (the readers of files strip
        trailing whitespace).  ``last``: no segment comes after these.
        """
        if len(hyps) != self.systems:
            raise ValueError(f"expected the hypotheses of {self.systems} systems, got {len(hyps)}")
        n = len(hyps[0]) if hyps else 0
        if any(len(column) != n for column in (*hyps, *refs)):
            raise ValueError(f"segments from {first + 1}: columns of different lengths")
        count = process_counter(self.options.specs, self.systems).count
        rows: list[Rows] = []
        nrefs = 0
        error: BleustreamError | None = None
        try:
            for i in range(n):
                present = [stream[i] for stream in refs if stream[i] is not None]
                try:
                    rows.append(count(tuple(column[i] for column in hyps), present))
                except InputError as exc:
                    raise InputError(exc.message, exc.source or "segment", first + i + 1) from None
                nrefs = nrefs or len(present)
        except BleustreamError as exc:
            error = exc
        summed = sum_rows(rows, self.systems, nrefs) if rows else None
        kept = rows if self.options.test is not None else None
        return _block(first, last, summed, kept, error)

    # -- the records (driver) ------------------------------------------------

    def records(self, total: Stats, segments: int | None = None) -> str:
        """What ``bleustream`` prints for the whole input, from its summed statistics.

        Every segment must be counted once: from the first, in blocks with
        no gap and no overlap, up to a block that ran to the end of the
        input (or up to ``segments``, when given); else the engine lost or
        repeated work, an ``EngineFailure`` (status 71).  A block that failed
        raises its error, the first in input order.  The blocks are added in
        input order, as one process adds its batches.
        """
        o = self.options
        at, ended, nrefs = 0, False, 0
        totals = [zero_totals(o.specs) for _ in range(self.systems)]
        for block in total.blocks:
            if block.first < at or ended:
                raise EngineFailure(
                    f"statistics of segment {block.first + 1} are counted twice; no score is "
                    "printed"
                )
            if block.first > at:
                raise EngineFailure(
                    f"statistics of segments {at + 1} to {block.first} are missing; no score "
                    "is printed"
                )
            if block.error is not None:
                raise block.error
            at, ended = at + block.segments, block.last
            if block.summed is not None:
                nrefs = nrefs or block.summed.nrefs
                totals = list(
                    map(add_parts, totals, block.summed.parts, [block.segments] * len(totals))
                )
        if segments is not None and at != segments:
            raise EngineFailure(
                f"statistics of {segments} segments were expected, {at} were counted; "
                "no score is printed"
            )
        if segments is None and not ended:
            raise EngineFailure(
                f"statistics of the input after segment {at} are missing; no score is printed"
            )
        if at == 0 and not o.allow_empty:
            # As the command: an empty input is bad input, not a score of 0.
            raise InputError(empty_message(input_name(o.reading), o.specs, allow_empty=False))
        known = o.reading.num_refs if o.reading.num_refs > 1 else len(o.reading.refs)
        store = None
        if o.test is not None:
            from bleustream.significance.resampling import SegmentStore

            store = SegmentStore(self.systems, len(o.specs))
            for block in total.blocks:
                for rows in block.rows or ():
                    store.add(rows)
        return summed_text(o, totals, known or nrefs or None, store)

    def notes(self, total: Stats) -> list[str]:
        """The command line's notes on stderr for these statistics (an empty input)."""
        if total.segments:
            return []
        where = input_name(self.options.reading)
        return [empty_message(where, self.options.specs, allow_empty=True)]


# ----------------------------------------------------------------------------
# A script: options in, records or one line of error out, an exit status
# ----------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PYTHON_ERROR = re.compile(r"^([A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt)): (.+)$")


def _failure_gist(exc: BaseException) -> str:
    """One line of an engine's failure: the innermost Python error its text names."""
    text = _ANSI.sub("", str(exc))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = [m.group(0) for m in map(_PYTHON_ERROR.match, lines) if m]
    gist = found[-1] if found else (lines[0] if lines else "")
    return f"{type(exc).__name__}: {gist[:300]}" if gist else type(exc).__name__


def run(
    score: Callable[[Job, argparse.Namespace], Stats],
    argv: Sequence[str] | None = None,
    *,
    prog: str,
    engine: str,
    extra: str,
    requires: Sequence[str] = (),
    parser: argparse.ArgumentParser | None = None,
) -> int:
    """Run a script: parse ``argv``, score with ``score(job, args)``, print the records.

    Returns the exit status: 0; 2 a usage error, or a module of
    ``requires`` missing ("needs Ray: pip install 'bleustream[ray]'"); the
    command line's statuses for bad input (65), a file that cannot be
    opened (66) or read (74); 71 the engine failed (any other error of
    ``score``), or an ``EngineFailure``'s status; 130 interrupted.  Each
    failure is one line on stderr, and no score is printed.
    """
    parser = parser or _command_parser(prog)

    def report(message: str) -> None:
        sys.stderr.write(f"{prog}: {message}\n")
        sys.stderr.flush()

    args = parser.parse_args(argv)  # exits 2 on a usage error, 0 after --help
    out = Output(sys.stdout.buffer)
    try:
        job = Job.from_args(args, parser)
        if job.config_text is not None:
            out.write(job.config_text)
            return EXIT_OK
        for module in requires:
            try:
                __import__(module)
            except ImportError:
                report(f"needs {engine}: pip install '{extra}'")
                return EXIT_USAGE
        try:
            total = score(job, args)
        except (BleustreamError, KeyboardInterrupt):
            raise
        except Exception as exc:  # the engine's own failure: a task failed, a worker died
            raise EngineFailure(
                f"{engine} failed ({_failure_gist(exc)}); no score is printed"
            ) from None
        text = job.records(total)
        for note in job.notes(total):
            report(note)
        out.write(text)
        return EXIT_OK
    except (BleustreamError, OSError) as exc:
        return failure_status(exc, report)
    except KeyboardInterrupt:
        return EXIT_SIGINT
