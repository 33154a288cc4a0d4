"""The plain case read a block of bytes at a time: REF files in lockstep
with one system's hypotheses, or paste lines, summed where only the sums
are written (``-b`` or the final record: no segment, running or progress
line to report as each line arrives).

Each source is read some 64 KiB at a time (what a pipe holds is taken as
it is: a read never waits for a block to fill); the block is cut after its
last line end.  REF files in lockstep are cut to the same lines, paste
lines into a block per field (``paste_columns``), and the bytes go to the
metrics as they are (``SegmentCounter.summed_block``, the protocol's
``sum_block``: BLEU's and chrF's kernels decode, right-strip and count
each line without a Python object for it).  A block whose lines are not
all UTF-8, or whose fields differ from line 1's, is decoded here instead,
each line right-stripped as a line read alone is, to find the line; its
lines before that one are summed a block at a time
(``SegmentCounter.summed_at``).

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

import operator
import sys
from collections.abc import Iterator, Sequence
from typing import Callable

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
from bleustream.kernels import native
from bleustream.metrics.counting import SegmentCounter, Summed

BLOCK_BYTES = 1 << 16

# A block: its hypotheses, each segment's references, and the line of the first.
Block = tuple[list[str], Sequence[Sequence[str]], int]
# A block as the metrics take it: the hypotheses' lines and each reference's
# same lines (REF files in lockstep, or paste input's fields), as bytes
# (``protocol.sum_block``'s blocks), the line of the first, and how many lines.
RawBlock = tuple[bytes, list[bytes], int, int]


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
    readers = [_Lines(source, options.encoding_errors) for source in sources]
    if not options.refs:
        for columns, block, first, fields in _paste_blocks(readers[0], nfields, before):
            summed = None if columns is None else _summed_raw(counter, columns)
            if summed is not None:
                yield summed
                continue
            # Fields that differ, a line not UTF-8, a segment a metric refuses.
            for hyps, refs, at in _decoded_paste(readers[0], block, first, fields):
                yield _summed(counter, hyps, refs, at, name)
        return
    for raw in _lockstep(readers[0], readers[1:], before):
        tabs = options.stdin_systems and b"\t" in raw[0]
        summed = None if tabs else _summed_raw(counter, raw)
        if summed is not None:
            yield summed
            continue
        # A line not UTF-8, a tab, a segment a metric refuses: said at its line.
        for hyps, refs, first in _decoded(readers, raw):
            if options.stdin_systems:
                _one_field_each(hyps, first, options, sources[0].name)
            yield _summed(counter, hyps, refs, first, name)


def _summed_raw(counter: SegmentCounter, raw: RawBlock) -> tuple[Item, Summed] | None:
    """A block summed from its bytes, and an item for its last line; None
    where a line is not UTF-8 or a metric refuses one."""
    hyp_block, ref_blocks, first, n = raw
    try:
        summed = counter.summed_block(hyp_block, ref_blocks, n)
    except InputError:
        return None
    if summed is None:
        return None
    refs = tuple(map(_last_line, ref_blocks))
    last = first + n - 1
    return Item((_last_line(hyp_block),), refs, None, 1, last, None, True), summed


def _summed(
    counter: SegmentCounter, hyps: list[str], refs: Sequence[Sequence[str]], first: int, name: str
) -> tuple[Item, Summed]:
    """A decoded block's last line as an item, and the block's ``Summed``."""
    lines = range(first, first + len(hyps))
    summed = counter.summed_at(list(zip(hyps)), refs, name, lines)
    return Item((hyps[-1],), refs[-1], None, 1, lines[-1], None, True), summed


def _last_line(block: bytes) -> str:
    """A block's last line, decoded (the block is UTF-8) and right-stripped."""
    return block[block.rfind(b"\n") + 1 :].decode("utf-8").rstrip()


class _Lines:
    """One source's lines as bytes, whole lines a block at a time, decoded
    by whoever takes them (``decode``)."""

    def __init__(self, source: LineSource, errors: str) -> None:
        self.source = source
        stream = source.stream
        self._read = getattr(stream, "read1", None) or stream.read
        self._errors = errors
        self._rest = b""
        self.ended = False
        # Whole lines, each with its line end, the first ``_start`` bytes
        # handed on (taken by moving ``_start``: no copy of what is left).
        self._data = b""
        self._start = 0
        self.waiting = 0  # the lines read and not handed on yet

    def fill(self) -> None:
        """Reads until some lines are waiting, or the source ends."""
        while not self.waiting and not self.ended:
            self._read_block()

    def take(self, n: int) -> bytes:
        """The next ``n`` of the lines waiting, joined by their line ends
        (the last one's left out)."""
        start = self._start
        if n == self.waiting:
            end = len(self._data)
        else:
            end, _ = past_newlines(self._data, start, n)
        self._start = end
        self.waiting -= n
        return self._data[start : end - 1]

    def decode(
        self, block: bytes, first: int, strip: bool = True
    ) -> tuple[list[str], InputError | None]:
        """The lines of a block taken from here (``first``: the line of its
        first), up to the first that is not text, and that line's error."""
        error = None
        try:
            lines = block.decode("utf-8", self._errors).split("\n")
        except UnicodeDecodeError as exc:
            good = block.rfind(b"\n", 0, exc.start)
            lines = block[:good].decode("utf-8").split("\n") if good >= 0 else []
            message = undecodable("utf-8", block[exc.start : exc.start + 1], exc.start - good)
            error = InputError(message, self.source.name, first + len(lines))
        return (list(map(str.rstrip, lines)) if strip else lines), error

    def next_error(self, line: int) -> InputError | None:
        """The error of the next line waiting (line ``line``), if it is not text."""
        end, _ = past_newlines(self._data, self._start, 1)
        return self.decode(self._data[self._start : end - 1], line)[1]

    def _read_block(self) -> None:
        source = self.source
        try:
            data = self._read(BLOCK_BYTES)
        except READ_FAILURES as exc:
            raise read_failure(exc, source.name, source.line + 1) from None
        if data:
            data = self._rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                self._rest = data
                return
            data, self._rest = data[:cut], data[cut:]
        else:
            self.ended = True
            if not self._rest:
                return
            data, self._rest = self._rest + b"\n", b""  # a last line with no line end
        _, lines = past_newlines(data, 0, len(data))
        source.line += lines
        self._data, self._start, self.waiting = data, 0, lines  # (none waiting)


def _lockstep(hyps: _Lines, refs: list[_Lines], line: int = 0) -> Iterator[RawBlock]:
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
        yield hyps.take(n), [ref.take(n) for ref in refs], line + 1, n
        line += n


def _decoded(readers: list[_Lines], raw: RawBlock) -> Iterator[Block]:
    """A lockstep block decoded: its lines before the first that is not
    text, then that line's error (the hypothesis's first, then each
    reference's, as ``lines.lockstep_segments`` reads them)."""
    hyp_block, ref_blocks, first, _ = raw
    columns, errors = zip(*(r.decode(b, first) for r, b in zip(readers, [hyp_block, *ref_blocks])))
    n = min(map(len, columns))
    if n:
        yield list(columns[0][:n]), list(zip(*(column[:n] for column in columns[1:]))), first
    for error in errors:
        if error is not None and error.line == first + n:
            raise error


def _stop(hyps: _Lines, refs: list[_Lines], line: int) -> None:
    """At a line one source has not got: its error, the end of all, or
    the sources' lengths told apart, as ``lines.lockstep_segments`` tells
    them (the hypothesis of the line is read first, then each reference)."""
    at = line + 1
    if hyps.waiting:  # a reference has no line ``at``
        error = hyps.next_error(at)
        if error is not None:
            raise error
        for ref in refs:
            if not ref.waiting:
                raise reference_ended(ref.source.name, line, hyps.source.name)
            error = ref.next_error(at)
            if error is not None:
                raise error
    for ref in refs:
        if ref.waiting:
            raise ref.next_error(at) or references_longer(ref.source.name, hyps.source.name, line)


def _paste_blocks(
    source: _Lines, nfields: int = 0, line: int = 0
) -> Iterator[tuple[RawBlock | None, bytes, int, int]]:
    """``hyp<TAB>ref...`` lines a block at a time: each block cut into a
    block per field (a ``RawBlock``) where every line has the fields of the
    first line of all (``nfields`` if given), else None; and its bytes, the
    line of its first and the fields of line 1 (0: line 1 has fewer than
    two), for ``_decoded_paste``."""
    while True:
        source.fill()
        n = source.waiting
        if not n:
            return
        block = source.take(n)
        if not nfields:  # line 1's fields fix every line's
            end = block.find(b"\n")
            fields = (block if end < 0 else block[:end]).count(b"\t") + 1
            nfields = fields if fields >= 2 else 0
        columns = paste_columns(block, nfields) if nfields else None
        raw = None if columns is None else (columns[0], columns[1:], line + 1, n)
        yield raw, block, line + 1, nfields
        line += n


def _decoded_paste(source: _Lines, block: bytes, line: int, nfields: int) -> Iterator[Block]:
    """A block of paste lines decoded (``line``: its first), as
    ``lines.paste_segments`` reads them: the lines before the first whose
    fields differ from line 1's (``nfields``; 0: line 1 has fewer than two,
    the error of line 1) or that is not UTF-8, then that line's error."""
    texts, error = source.decode(block, line, strip=False)
    rows = [text.split("\t") for text in texts]
    bad = None
    for i, fields in enumerate(rows):
        if len(fields) != nfields and (nfields or len(fields) < 2):
            bad = paste_fields_error(nfields, len(fields), source.source.name, line + i)
            rows = rows[:i]  # the lines before it are handed on first
            break
    if rows:
        hyps = [fields[0].rstrip() for fields in rows]
        yield hyps, [[ref.rstrip() for ref in fields[1:]] for fields in rows], line
    if bad is not None:
        raise bad
    if error is not None:
        raise error


def _one_field_each(hyps: list[str], first: int, options: ReadOptions, name: str) -> None:
    """Standard input's hypotheses with REF files: a tab on a later line
    would be a second system where the first line has one."""
    for i, hyp in enumerate(hyps):
        if "\t" in hyp:
            raise uneven_fields(1, len(hyp.split("\t")), options, name, first + i)


def py_past_newlines(buffer: bytes, pos: int, count: int) -> tuple[int, int]:
    """The offset just past the ``count``-th newline at or after ``pos``,
    and ``count``; where the buffer has fewer, the offset just past the last
    of them (``pos`` if none) and how many there are.

    It counts the newlines, then starts from a guess at the mean line
    length and goes newline by newline from there: a few steps, instead of
    ``count``.
    """
    newlines = buffer.count(b"\n", pos) if count > 0 else 0
    if newlines < count or count <= 0:
        return (buffer.rindex(b"\n", pos) + 1 if newlines else pos), newlines
    end = pos + (len(buffer) - pos) * count // newlines
    found = buffer.count(b"\n", pos, end)
    if found < count:
        for _ in range(count - found):
            end = buffer.index(b"\n", end) + 1
        return end, count
    for _ in range(found - count):
        end = buffer.rindex(b"\n", pos, end)
    return buffer.rindex(b"\n", pos, end) + 1, count


def py_paste_columns(block: bytes, nfields: int) -> list[bytes] | None:
    """The lines of a block of paste input cut at their tabs: a block per
    field, its lines joined by line ends; None unless every line has
    ``nfields`` fields."""
    nfields = operator.index(nfields)  # as the C twin reads it
    if not -sys.maxsize - 1 <= nfields <= sys.maxsize:
        raise OverflowError("nfields is too large")
    if nfields < 1:
        raise ValueError("a line has at least one field")
    rows = [line.split(b"\t") for line in memoryview(block).tobytes().split(b"\n")]
    if any(len(fields) != nfields for fields in rows):
        return None
    return [b"\n".join(column) for column in zip(*rows)]


# -- the twins, bound once: C where bleustream.kernels chose it ---------------
# The compiled twin goes newline by newline with memchr, at memory speed;
# the parent of -j reads every byte of the input through it, and this
# reader each block.
past_newlines: Callable[[bytes, int, int], tuple[int, int]] = (
    py_past_newlines if native is None else native.past_newlines
)
paste_columns: Callable[[bytes, int], list[bytes] | None] = (
    py_paste_columns if native is None else native.paste_columns
)
