"""Read lines and pair each hypothesis with its references.

Lines end at ``\\n`` only: a ``\\r`` or any other separator inside a line is
text, and so is a byte-order mark, as SacreBLEU's command line reads its
files.  SacreBLEU reads standard input with universal newlines (a line
also ends at a lone ``\\r``, and ``\\r\\n`` is one line end): a
``LineSource`` made with ``universal_newlines`` reads so, for
``--compat sacrebleu``.

Each field has its trailing white space stripped, as SacreBLEU strips each
line of its files.  Every line is decoded on its own, so a bad byte is
reported with its file, line and column.

Two pairings exist:

* ``paste_segments``: one stream of ``hyp<TAB>ref1[<TAB>ref2...]`` lines,
  as ``paste hyp ref1 ref2`` writes them;
* ``lockstep_segments``: a hypothesis stream and one or more reference
  files, read one line from each in turn, or one reference file holding
  ``num_refs`` tab-separated references per line (SacreBLEU's ``-nr``).

A bad line goes to a ``BadLinePolicy``, which either raises it or counts it
and lets the reader skip the segment.  Nothing here writes anywhere.
"""

from __future__ import annotations

import codecs
import re
import sys
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO, Callable, NamedTuple

from bleustream.errors import InputError, LengthMismatch, OpenError, ReadError, UsageError

STDIN_NAME = "<stdin>"

# The line ends of universal newlines, as Python's text files read them.
_UNIVERSAL_LINE_END = re.compile(rb"\r\n|\r|\n")


class Segment(NamedTuple):
    """One hypothesis with its references, and where it was read."""

    hyp: str
    refs: list[str]
    line: int
    id: str | None = None


class BadLinePolicy:
    """Raise bad lines (the default) or count them and report each one."""

    def __init__(self, skip: bool = False, report: Callable[[str], None] | None = None):
        self.skip = skip
        self.count = 0
        self._report = report

    def __call__(self, error: InputError) -> None:
        if not self.skip:
            raise error
        self.count += 1
        if self._report is not None:
            self._report(f"{error} (line skipped)")


def read_to(source: LineSource, line: int) -> str | None:
    """``source`` read on to its line ``line``: the text of the last line
    read (None if none was, or if it was skipped as bad).  A source that
    ends first raises ``StopIteration``."""
    text: str | None = None
    while source.line < line:
        text = next(source)
    return text


def check_encoding(encoding: str) -> str:
    """The codec's canonical name; it must encode a newline as byte 0x0A."""
    try:
        info = codecs.lookup(encoding)
    except (LookupError, UnicodeError):
        raise UsageError(f"unknown encoding {encoding!r}") from None
    try:
        newline = "\n".encode(info.name)
    except LookupError:  # rot13, base64, zlib...: codecs, but not of text
        raise UsageError(f"{encoding!r} is not a text encoding") from None
    if newline != b"\n":
        raise UsageError(
            f"encoding {encoding!r} cannot be read line by line: it does not write a "
            "newline as the single byte 0x0A (ASCII-compatible encodings such as "
            "utf-8, latin-1, cp1252 or gb18030 can be read)"
        )
    return info.name


class LineSource:
    """The decoded lines of one input, without their ``\\n``.

    Iterating yields each line as a string, or ``None`` for a line that
    could not be decoded and that ``on_bad`` chose to skip.  ``line`` is the
    number of the line last read.  With ``universal_newlines`` a line also
    ends at a lone ``\\r`` and at ``\\r\\n``.
    """

    def __init__(
        self,
        name: str,
        stream: BinaryIO,
        encoding: str = "utf-8",
        errors: str = "strict",
        on_bad: Callable[[InputError], None] | None = None,
        universal_newlines: bool = False,
    ) -> None:
        self.name = name
        self.line = 0
        self._readline = stream.readline
        self._stream = stream
        self._encoding = encoding
        self._errors = errors
        self._on_bad = on_bad or BadLinePolicy()
        self._gzip = _is_gzip(stream)
        self._universal = universal_newlines
        self._pending: list[bytes] = []  # universal: lines read ahead, last first

    def __iter__(self) -> Iterator[str | None]:
        return self

    def __next__(self) -> str | None:
        raw = self._pending.pop() if self._pending else self._next_raw()
        self.line += 1
        try:
            return raw.decode(self._encoding, self._errors)
        except UnicodeDecodeError as exc:
            message = undecodable(self._encoding, raw[exc.start : exc.start + 1], exc.start + 1)
        except UnicodeError as exc:  # codecs such as idna say no more than this
            message = f"invalid {_codec_label(self._encoding)} ({exc})"
        self._on_bad(InputError(message, self.name, self.line))
        return None

    def peek(self) -> str | None:
        """The next line that is not blank, decoded (bad bytes replaced), or
        None at the end; it and the lines before it are still to be read."""
        ahead: list[bytes] = []
        found: str | None = None
        while found is None:
            try:
                raw = self._pending.pop() if self._pending else self._next_raw()
            except StopIteration:
                break
            ahead.append(raw)
            text = raw.decode(self._encoding, "replace")
            if text.strip():
                found = text
        self._pending.extend(reversed(ahead))
        return found

    def _next_raw(self) -> bytes:
        """The bytes of the next line, without its line end."""
        try:
            raw = self._readline()
        except READ_FAILURES as exc:
            raise read_failure(exc, self.name, self.line + 1) from None
        if not raw:
            raise StopIteration
        if self._universal and b"\r" in raw:
            # A "\r" never ends what readline read: "\r\n" is inside it.
            pieces = _UNIVERSAL_LINE_END.split(raw)
            if not pieces[-1]:  # what follows the last line end
                pieces.pop()
            pieces.reverse()
            raw = pieces.pop()
            self._pending = pieces
            return raw
        return raw[:-1] if raw[-1:] == b"\n" else raw

    @property
    def stream(self) -> BinaryIO:
        """The binary stream read (a ``GzipFile`` for a ``.gz`` file)."""
        return self._stream

    def close(self) -> None:
        self._stream.close()


# What reading a file can raise: a ``.gz`` file's corrupt data (zlib's
# errors, a truncated stream's EOFError, ``gzip.BadGzipFile``) or the
# system's read error.  ``read_failure`` says each as the command does.
# gzip is imported when a ``.gz`` file is opened (``open_source``), so a
# run that reads none loads nothing of it: ``GZIP_FAILURES`` is made when
# first asked for, and gzip's ``BadGzipFile`` is an ``OSError``, which
# ``READ_FAILURES`` holds anyway.
READ_FAILURES = (EOFError, zlib.error, OSError)


def __getattr__(name: str) -> Any:
    if name == "GZIP_FAILURES":
        import gzip

        return (EOFError, zlib.error, gzip.BadGzipFile)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _is_gzip(stream: Any) -> bool:
    """Whether ``stream`` is a ``GzipFile`` (none is, before gzip is imported)."""
    gzip = sys.modules.get("gzip")
    return gzip is not None and isinstance(stream, gzip.GzipFile)


def _is_gzip_failure(exc: BaseException) -> bool:
    gzip = sys.modules.get("gzip")
    return isinstance(exc, (EOFError, zlib.error)) or (
        gzip is not None and isinstance(exc, gzip.BadGzipFile)
    )


def read_failure(exc: BaseException, name: str, line: int | None = None) -> InputError | ReadError:
    """One of ``READ_FAILURES`` as the command's error: corrupt gzip data is
    bad input (65), any other error a failed read (74)."""
    if _is_gzip_failure(exc):
        return InputError(f"corrupt gzip data ({exc})", name, line)
    return ReadError(f"read error: {getattr(exc, 'strerror', None) or exc}", name, line)


def _codec_label(encoding: str) -> str:
    return "UTF-8" if encoding == "utf-8" else encoding


def undecodable(encoding: str, byte: bytes, column: int) -> str:
    """What is said of a line whose ``byte`` at ``column`` (from 1) does not decode."""
    return f"invalid {_codec_label(encoding)} (byte 0x{byte.hex()} at column {column})"


def paste_fields_error(nfields: int, found: int, name: str, line: int) -> InputError:
    """A paste line of ``found`` tab-separated fields where an earlier line
    fixed ``nfields`` (0: none yet, and the line has no tab)."""
    if nfields == 0:
        return InputError(
            "expected hypothesis<TAB>reference[<TAB>reference...], found no tab (give "
            "reference files as operands to read hypotheses alone)",
            name,
            line,
        )
    return InputError(
        f"expected {nfields} tab-separated fields as on the first line, found {found}",
        name,
        line,
    )


def reference_ended(ref_name: str, after: int, hyp_name: str) -> LengthMismatch:
    """A reference file read in lockstep that ended after line ``after``,
    where the hypotheses have one more."""
    return LengthMismatch(
        f"reference file ended after line {after}, but {hyp_name} has a line {after + 1}",
        ref_name,
    )


def references_longer(ref_name: str, hyp_name: str, hyp_lines: int) -> LengthMismatch:
    """A reference file read in lockstep that has a line past the
    hypotheses' last (line ``hyp_lines``)."""
    return LengthMismatch(
        f"reference file has more lines than the hypotheses ({hyp_name} ended after line "
        f"{hyp_lines})",
        ref_name,
        hyp_lines + 1,
    )


def open_source(
    path: str,
    stdin: BinaryIO | None,
    encoding: str = "utf-8",
    errors: str = "strict",
    on_bad: Callable[[InputError], None] | None = None,
    stdin_universal_newlines: bool = False,
) -> LineSource:
    """A ``LineSource`` for a file name, ``-`` for ``stdin`` (read with
    universal newlines if ``stdin_universal_newlines``); ``.gz`` is decompressed."""
    if path == "-":
        if stdin is None:
            raise OpenError("standard input is closed", STDIN_NAME)
        return LineSource(STDIN_NAME, stdin, encoding, errors, on_bad, stdin_universal_newlines)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise OpenError("no such file", path) from None
    except IsADirectoryError:
        raise OpenError("is a directory", path) from None
    except PermissionError:
        raise OpenError("permission denied", path) from None
    except OSError as exc:
        raise OpenError(f"cannot open: {exc.strerror or exc}", path) from None
    stream: BinaryIO = raw
    if path.endswith(".gz"):
        import gzip

        stream = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
    return LineSource(path, stream, encoding, errors, on_bad)


def paste_segments(
    source: LineSource, on_bad: Callable[[InputError], None] | None = None, nfields: int = 0
) -> Iterator[Segment]:
    """Segments from ``hyp<TAB>ref1[<TAB>ref2...]`` lines.

    The first good line fixes the number of fields; a line with another
    number is bad.  ``nfields``: the number fixed by an earlier line, for a
    source that starts inside a file.
    """
    on_bad = on_bad or BadLinePolicy()
    for text in source:
        if text is None:
            continue
        fields = text.split("\t")
        if len(fields) != nfields and (nfields or len(fields) < 2):
            on_bad(paste_fields_error(nfields, len(fields), source.name, source.line))
            continue
        nfields = len(fields)
        yield Segment(fields[0].rstrip(), [f.rstrip() for f in fields[1:]], source.line)


def check_num_refs(num_refs: int, reference_files: int) -> None:
    """Refuse a ``--num-refs`` that cannot apply, as SacreBLEU refuses it.

    ``num_refs`` references per line need exactly one reference file (and at
    least one reference).
    """
    if num_refs < 1:
        raise UsageError(f"--num-refs must be at least 1, not {num_refs}")
    if num_refs > 1 and reference_files != 1:
        raise UsageError(
            f"--num-refs {num_refs} reads {num_refs} tab-separated references from one "
            f"reference file, but {reference_files} were given"
        )


def split_references(text: str, num_refs: int) -> list[str]:
    """The references of one line of a ``--num-refs`` file, as SacreBLEU splits it.

    SacreBLEU strips the line's trailing white space (tabs included), then
    splits it at the first ``num_refs - 1`` tabs: further tabs stay inside
    the last reference, and a line with fewer tabs (an empty last reference
    included) yields fewer fields.  Each field is right-stripped as every
    other reference is.
    """
    return [field.rstrip() for field in text.rstrip().split("\t", num_refs - 1)]


def lockstep_segments(
    hyps: LineSource,
    refs: list[LineSource],
    num_refs: int = 1,
    on_bad: Callable[[InputError], None] | None = None,
) -> Iterator[Segment]:
    """Segments from a hypothesis stream and reference files read in lockstep.

    A segment with a line that could not be decoded (and was skipped by the
    policy) is skipped whole.  Streams of different lengths are an error,
    naming the stream that ended first.

    With ``num_refs`` > 1 the one reference file holds that many
    tab-separated references per line (SacreBLEU's ``-nr``); a line with
    fewer is an ``InputError`` for ``on_bad`` (raised by default), and a
    skipped one skips its segment.
    """
    check_num_refs(num_refs, len(refs))
    return _lockstep(hyps, refs, num_refs, on_bad or BadLinePolicy())


def _lockstep(
    hyps: LineSource,
    refs: list[LineSource],
    num_refs: int,
    on_bad: Callable[[InputError], None],
) -> Iterator[Segment]:
    for hyp in hyps:
        texts = []
        for ref in refs:
            try:
                texts.append(next(ref))
            except StopIteration:
                raise reference_ended(ref.name, ref.line, hyps.name) from None
        if hyp is None or None in texts:
            continue
        if num_refs == 1:
            yield Segment(hyp.rstrip(), list(map(str.rstrip, texts)), hyps.line)  # type: ignore[arg-type]
            continue
        fields = split_references(texts[0], num_refs)  # type: ignore[arg-type]
        if len(fields) != num_refs:
            on_bad(
                InputError(
                    f"expected {num_refs} tab-separated references (--num-refs), "
                    f"found {len(fields)}",
                    refs[0].name,
                    refs[0].line,
                )
            )
            continue
        yield Segment(hyp.rstrip(), fields, hyps.line)
    for ref in refs:
        for _ in ref:
            raise references_longer(ref.name, hyps.name, hyps.line)
