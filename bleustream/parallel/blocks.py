"""Regular files read in blocks of lines, at byte offsets.

When every input is a regular, uncompressed file, worker processes can
read the text themselves: the parent only finds where each block of lines
starts and ends in every file, counting ``\\n`` bytes in large reads and
decoding nothing, and a worker opens the files and reads its block's
ranges.  Lines end at ``\\n`` only, as ``bleustream.inputs.lines`` reads them,
and a last line without one is a line.

Block k holds lines ``k * lines + 1`` to ``(k + 1) * lines`` of every file,
``lines`` being ``BLOCK_LINES``.  A file with fewer lines has a shorter
range, or an empty one, in the blocks past its end: files of different
lengths are found where a process reading them in lockstep finds them.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from bleustream.errors import Interrupted, ReadError
from bleustream.inputs.blocks import past_newlines
from bleustream.inputs.lines import read_failure

BLOCK_LINES = 8192  # lines of every file in a block
READ_SIZE = 1 << 20  # bytes read at a time
MAX_MARKS = 4096  # line offsets a ``LineMarks`` keeps, at most (plus one)

Identity = tuple[int, int]  # a file's device and inode numbers


@dataclass(frozen=True)
class Span:
    """Bytes ``start`` to ``end`` of a file: whole lines.

    ``data``: the bytes themselves, for a stream only the main process can
    read (standard input); ``identity`` is then None.
    """

    path: str
    identity: Identity | None
    start: int
    end: int
    data: bytes | None = None


@dataclass(frozen=True)
class Block:
    """The same lines of several files, a span of each, in the order of the files."""

    before: int  # lines of every file before the block's first
    spans: tuple[Span, ...]


def identity_of(path: str, stream: BinaryIO) -> Identity | None:
    """The identity of the regular file that ``stream``, opened as ``path``, reads
    from its start; None for anything else: standard input, a pipe or a
    device, a ``.gz`` file (read decompressed), a stream already read from.
    """
    if path == "-" or isinstance(stream, gzip.GzipFile):
        return None
    try:
        fd = stream.fileno()
        at_start = stream.tell() == 0
    except (OSError, ValueError):
        return None
    return _identity(fd) if at_start else None


def same_files(paths: Sequence[str], identities: Sequence[Identity]) -> bool:
    """Whether each path, opened in this process, is the file of its identity.

    A name can mean another file in another process: ``/dev/stdin`` and
    ``/proc/self/fd/0`` name each process's own standard input.
    """
    for path, identity in zip(paths, identities):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO does not wait
        except OSError:
            return False
        try:
            if _identity(fd) != identity:
                return False
        finally:
            os.close(fd)
    return True


def _identity(fd: int) -> Identity | None:
    """The identity of the regular file open as ``fd``, else None."""
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


class _LineEnds:
    """The offsets where lines start in a binary stream read forward."""

    def __init__(self, name: str, stream: BinaryIO, keep: bool = False) -> None:
        self._name = name
        self._stream = stream
        self._buffer = b""
        self._base = 0  # the offset of the buffer's first byte
        # With ``keep``, the bytes from here on stay in the buffer for ``take``.
        self._kept: int | None = 0 if keep else None
        self.offset = 0  # the offset of the next line's start
        self.lines = 0  # lines passed

    def skip(self, lines: int) -> int:
        """Moves ``offset`` past up to ``lines`` lines; returns how many it
        passed, fewer only at the end of the stream."""
        wanted = self.lines + lines
        while self.lines < wanted:
            buffer = self._buffer
            pos, found = past_newlines(buffer, self.offset - self._base, wanted - self.lines)
            self.offset = self._base + pos
            self.lines += found
            if self.lines == wanted:
                break
            data = self._read()
            if not data:
                if pos < len(buffer):  # a last line without a newline
                    self.offset = self._base + len(buffer)
                    self.lines += 1
                break
            cut = pos if self._kept is None else self._kept - self._base
            self._buffer = buffer[cut:] + data
            self._base += cut
        return lines - (wanted - self.lines)

    def take(self) -> bytes:
        """The bytes from the end of the last ``take`` (or the start) to ``offset``."""
        assert self._kept is not None, "made without keep"
        data = self._buffer[self._kept - self._base : self.offset - self._base]
        self._kept = self.offset
        return data

    def _read(self) -> bytes:
        try:
            if self._kept is not None:  # a pipe: what has come, not a full read
                return getattr(self._stream, "read1", self._stream.read)(READ_SIZE)  # type: ignore[no-any-return]
            return self._stream.read(READ_SIZE)
        except OSError as exc:
            raise ReadError(
                f"read error: {exc.strerror or exc}", self._name, self.lines + 1
            ) from None


class LineMarks:
    """Where every ``stride``-th line of a stream starts, the stride doubling
    as lines come so that at most ``MAX_MARKS`` offsets (plus one) are kept
    however long the stream is; and how many lines it has.

    ``marks[k]`` is the byte offset of line ``k * stride`` (0-based).  Lines
    end at ``\\n`` only; a last line without one still counts.
    """

    def __init__(self) -> None:
        self.stride = 1
        self.marks = [0]
        self.lines = 0  # lines passed: if reading fails, those before the failed read

    def read(self, stream: BinaryIO) -> None:
        """Reads ``stream`` from its start to its end, decoding nothing."""
        stride, marks, lines, position, last = self.stride, self.marks, 0, 0, b"\n"
        while block := stream.read(READ_SIZE):
            block_end = lines + block.count(b"\n")
            start = 0
            while len(marks) * stride <= block_end:
                target = len(marks) * stride  # the line end after which a marked line starts
                start, _ = past_newlines(block, start, target - lines)
                lines = target
                marks.append(position + start)
                if len(marks) > MAX_MARKS:
                    marks, stride = marks[::2], stride * 2
                    self.marks, self.stride = marks, stride
            lines = self.lines = block_end
            position += len(block)
            last = block[-1:]
        if last != b"\n":
            self.lines += 1


def line_blocks(
    paths: Sequence[str],
    identities: Sequence[Identity],
    streams: Sequence[BinaryIO],
    lines: int | None = None,
) -> Iterator[Block]:
    """Blocks of ``lines`` (default ``BLOCK_LINES``) lines of files read from
    their start, until every one has ended.

    ``streams`` are the files open at their start; they are read forward,
    and only the offsets are kept.
    """
    lines = lines or BLOCK_LINES
    ends = [_LineEnds(path, stream) for path, stream in zip(paths, streams)]
    before = 0
    while True:
        starts = [end.offset for end in ends]
        if not any([end.skip(lines) for end in ends]):
            return
        spans = zip(paths, identities, starts, ends)
        yield Block(before, tuple(Span(p, i, s, end.offset) for p, i, s, end in spans))
        before += lines


def data_blocks(name: str, stream: BinaryIO, lines: int | None = None) -> Iterator[Block]:
    """Blocks of ``lines`` (default ``BLOCK_LINES``) lines of a stream read
    once, by this process (standard input, a pipe): each block's one span
    carries its bytes.  The last block holds what is left, a last line
    without a newline included."""
    lines = lines or BLOCK_LINES
    ends = _LineEnds(name, stream, keep=True)
    while True:
        start, before = ends.offset, ends.lines
        try:
            passed = ends.skip(lines)
        except Interrupted:
            # The lines read before the signal are a last block: the partial
            # score covers them, as one process's does.
            if ends.lines > before:
                yield Block(before, (Span(name, None, start, ends.offset, ends.take()),))
            raise
        if not passed:
            return
        yield Block(before, (Span(name, None, start, ends.offset, ends.take()),))


class _SpanBytes(io.RawIOBase):
    """The bytes of a span, read from a file opened at its start."""

    def __init__(self, raw: io.FileIO, size: int) -> None:
        super().__init__()
        self._raw = raw
        self._left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        size = min(len(buffer), self._left)
        if size <= 0:
            return 0
        with memoryview(buffer) as view:
            got = self._raw.readinto(view[:size]) or 0
        self._left -= got
        return got

    def close(self) -> None:
        self._raw.close()
        super().close()


def open_span(span: Span) -> BinaryIO:
    """A stream of a span's bytes, from its file opened again (or those it
    carries).

    A path that now names another file than the one the span was found in
    (the file was replaced meanwhile) is a ``ReadError``.
    """
    if span.data is not None:
        return io.BytesIO(span.data)
    try:
        raw = open(span.path, "rb", buffering=0)  # noqa: SIM115 - closed with the stream
    except OSError as exc:
        raise ReadError(f"cannot open again: {exc.strerror or exc}", span.path) from None
    try:
        if _identity(raw.fileno()) != span.identity:
            raise ReadError("the file was replaced while it was being read", span.path)
        raw.seek(span.start)
    except OSError as exc:
        raw.close()
        raise read_failure(exc, span.path) from None
    except BaseException:
        raw.close()
        raise
    return io.BufferedReader(_SpanBytes(raw, span.end - span.start), 1 << 16)  # type: ignore[return-value]
