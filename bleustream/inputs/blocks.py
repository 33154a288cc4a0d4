"""The plain case read a block of bytes at a time: REF files in lockstep
with one system's hypotheses, or paste lines, summed where only the sums
are written (``-b`` or the final record: no segment, running or progress
line to report as each line arrives).

Each source is read some 64 KiB at a time (what a pipe holds is taken as
it is: a read never waits for a block to fill); the block is cut after its
last line end, decoded at once and split into lines, each right-stripped
as a line read alone is.  The lines of the sources are paired in step and
handed to the kernels a block at a time (``SegmentCounter.summed_at``), so
no line costs a Python object beyond its strings.

What a line read alone would raise is raised here for the same line, in
the same order: an undecodable line (UTF-8 only: the decoder's position
in the block gives the line and the column), a reference file that ends
first or runs on, a paste line whose fields do not match the first's,
standard input's tab-separated systems.  ``readable(options)`` says when
the rest of the input holds to that (``inputs.items`` reads the others
line by line): UTF-8, no bad line skipped, no test-set lines kept, one
system, no SacreBLEU refusals (which count the lines of every stream).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bleustream.errors import InputError
from bleustream.inputs.items import Item, input_name, uneven_fields
from bleustream.inputs.lines import (
    READ_FAILURES,
    LineSource,
    check_encoding,
    paste_fields_error,
    read_failure,
    reference_ended,
    references_longer,
    undecodable,
)
from bleustream.inputs.options import ReadOptions
from bleustream.metrics.counting import SegmentCounter, Summed

BLOCK_BYTES = 1 << 16

# A block: its hypotheses, each segment's references, and the line of the first.
Block = tuple[list[str], Sequence[Sequence[str]], int]


def readable(options: ReadOptions) -> bool:
    """Whether the input is read a block at a time (see the module's text)."""
    return (
        options.input_format == "paste"
        and check_encoding(options.encoding) == "utf-8"
        and not options.skip_bad_lines
        and options.keep_lines is None
        and len(options.inputs) == 1
        and options.systems == 1
        and options.stdin_systems <= 1
        and options.num_refs == 1
        and not options.sacrebleu_refusals
        and not options.stdin_universal_newlines
    )


def block_sums(
    counter: SegmentCounter,
    sources: Sequence[LineSource],
    options: ReadOptions,
    before: int = 0,
    nfields: int = 0,
) -> Iterator[tuple[Item, Summed]]:
    """Each block summed: pairs of an item that stands for it (its last
    line) and its ``Summed``, as ``inputs.items.summed_batches`` gives them.

    ``before``: the lines of every source before its first (a worker's part
    of the files, ``parallel.block_tasks``, whose sources start there);
    ``nfields``: paste input's number of fields, fixed by an earlier line."""
    name = input_name(options)
    lockstep = bool(options.refs)
    readers = [_Lines(source, options.encoding_errors, lockstep) for source in sources]
    if lockstep:
        blocks = _lockstep(readers[0], readers[1:], before)
    else:
        blocks = _paste(readers[0], nfields, before)
    for hyps, refs, first in blocks:
        if options.stdin_systems:
            _one_field_each(hyps, first, options, sources[0].name)
        lines = range(first, first + len(hyps))
        summed = counter.summed_at(list(zip(hyps)), refs, name, lines)
        last = Item((hyps[-1],), refs[-1], None, 1, lines[-1], None, True)
        yield last, summed


class _Lines:
    """One source's lines, a block at a time; an undecodable line is kept
    as the error of the line after the last one handed on."""

    def __init__(self, source: LineSource, errors: str, strip: bool) -> None:
        self.source = source
        self._strip = strip  # each line right-stripped (not a paste line: its fields are)
        stream = source.stream
        self._read = getattr(stream, "read1", None) or stream.read
        self._errors = errors
        self._rest = b""
        self.ended = False
        self.error: InputError | None = None
        # Decoded, the first ``_start`` of them handed on (taken by moving
        # ``_start``: a long line beside a block of short ones costs no copies).
        self._lines: list[str] = []
        self._start = 0

    def fill(self) -> None:
        """Reads until some lines are waiting, the source ends or errs."""
        while not self.waiting and not self.ended and self.error is None:
            self._read_block()

    def take(self, n: int) -> list[str]:
        start = self._start
        self._start = start + n
        return self._lines[start : start + n]

    @property
    def waiting(self) -> int:
        """The lines decoded and not handed on yet."""
        return len(self._lines) - self._start

    def _read_block(self) -> None:
        source = self.source
        try:
            data = self._read(BLOCK_BYTES)
        except READ_FAILURES as exc:
            raise read_failure(exc, source.name, source.line + 1) from None
        if data:
            data = self._rest + data
            cut = data.rfind(b"\n")
            if cut < 0:
                self._rest = data
                return
            data, self._rest = data[:cut], data[cut + 1 :]
        else:
            self.ended = True
            if not self._rest:
                return
            data, self._rest = self._rest, b""  # a last line with no line end
        try:
            lines = data.decode("utf-8", self._errors).split("\n")
        except UnicodeDecodeError as exc:
            # The lines before the bad one are handed on; the bad one is the
            # error of the line after them, and nothing after it is read.
            good = data.rfind(b"\n", 0, exc.start)
            lines = data[:good].decode("utf-8").split("\n") if good >= 0 else []
            message = undecodable("utf-8", data[exc.start : exc.start + 1], exc.start - good)
            self.error = InputError(message, source.name, source.line + len(lines) + 1)
            self.ended = True
        source.line += len(lines)
        self._lines = list(map(str.rstrip, lines)) if self._strip else lines  # (none waiting)
        self._start = 0


def _lockstep(hyps: _Lines, refs: list[_Lines], line: int = 0) -> Iterator[Block]:
    """The hypotheses and the references in step, a block at a time."""
    everyone = [hyps, *refs]
    # ``line``: the segments handed on (of the whole files)
    while True:
        for reader in everyone:
            reader.fill()
        n = min(reader.waiting for reader in everyone)
        if n == 0:
            _stop(hyps, refs, line)
            return
        columns = [reader.take(n) for reader in everyone]
        yield columns[0], list(zip(*columns[1:])), line + 1
        line += n


def _stop(hyps: _Lines, refs: list[_Lines], line: int) -> None:
    """At a line one source has not got: its error, the end of all, or
    the sources' lengths told apart, as ``lines.lockstep_segments`` tells
    them (the hypothesis of the line is read first, then each reference)."""
    if hyps.waiting:  # a reference has no line ``line + 1``
        for ref in refs:
            if ref.error is not None and not ref.waiting:
                raise ref.error
            if not ref.waiting:
                raise reference_ended(ref.source.name, line, hyps.source.name)
    if hyps.error is not None:
        raise hyps.error
    for ref in refs:
        if ref.waiting:
            raise references_longer(ref.source.name, hyps.source.name, line)
        if ref.error is not None:
            raise ref.error


def _paste(source: _Lines, nfields: int = 0, line: int = 0) -> Iterator[Block]:
    """``hyp<TAB>ref...`` lines, the first fixing the number of fields, as
    ``lines.paste_segments`` reads them."""
    while True:
        source.fill()
        if not source.waiting:
            if source.error is not None:
                raise source.error
            return
        block = source.take(source.waiting)
        rows = [text.split("\t") for text in block]
        bad = None
        for i, fields in enumerate(rows):
            if len(fields) != nfields and (nfields or len(fields) < 2):
                bad = paste_fields_error(nfields, len(fields), source.source.name, line + i + 1)
                rows = rows[:i]  # the lines before it are handed on first
                break
            nfields = len(fields)
        if rows:
            hyps = [fields[0].rstrip() for fields in rows]
            yield hyps, [[ref.rstrip() for ref in fields[1:]] for fields in rows], line + 1
            line += len(rows)
        if bad is not None:
            raise bad


def _one_field_each(hyps: list[str], first: int, options: ReadOptions, name: str) -> None:
    """Standard input's hypotheses with REF files: a tab on a later line
    would be a second system where the first line has one."""
    for i, hyp in enumerate(hyps):
        if "\t" in hyp:
            raise uneven_fields(1, len(hyp.split("\t")), options, name, first + i)
