"""Errors a user can cause, each with its exit status (after sysexits.h).

The core raises these; only the command line turns them into a message on
stderr and an exit status.
"""

from __future__ import annotations

import re
from typing import Callable

PROG = "bleustream"  # the command's name, which begins each of its messages

EXIT_OK = 0
EXIT_SACREBLEU = 1  # --compat sacrebleu: what SacreBLEU refuses with its status 1
EXIT_USAGE = 2  # bad option or configuration
EXIT_DATAERR = 65  # the input data is wrong (EX_DATAERR)
EXIT_NOINPUT = 66  # an input file cannot be opened (EX_NOINPUT)
EXIT_OSERR = 71  # a worker process died (EX_OSERR)
EXIT_IOERR = 74  # a read or write error (EX_IOERR)
EXIT_SIGINT = 130  # 128 + SIGINT
EXIT_SIGTERM = 143  # 128 + SIGTERM
# --compat sacrebleu: stdin's lines with another number of tab-separated
# fields than its first, SacreBLEU's status for them.
EXIT_SACREBLEU_FIELDS = 17

# What each exit status means, for --help and the manual: written once.
EXIT_STATUSES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "success"),
    (
        EXIT_SACREBLEU,
        "--compat sacrebleu: what SacreBLEU refuses with status 1, refused with its words",
    ),
    (EXIT_USAGE, "usage or configuration error"),
    (
        EXIT_DATAERR,
        "bad input data (undecodable bytes, wrong number of fields, streams of "
        "different lengths; in a log, unpaired or duplicate ids or ids beyond the "
        "reference files, unless --allow-unpaired; statistics read back from an "
        "interrupted run, whose partial score is marked or kept off stdout)",
    ),
    (EXIT_NOINPUT, "an input file cannot be opened"),
    (
        EXIT_SACREBLEU_FIELDS,
        "--compat sacrebleu: a line of standard input with another number of "
        "tab-separated fields than the first (SacreBLEU's status)",
    ),
    (EXIT_OSERR, "a worker process of --jobs died (no score is printed)"),
    (EXIT_IOERR, "a read or write error"),
    (
        EXIT_SIGINT,
        "interrupted by SIGINT (143 for SIGTERM); the score of the segments read so "
        "far is printed marked partial, or, where the format cannot mark it (-b, "
        "tables, compat mode's text and JSON), only on stderr, marked (see the man "
        "page's EXIT STATUS)",
    ),
)


def count_of(n: int, noun: str) -> str:
    """``1 segment``, ``2 segments``: for messages."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class BleustreamError(Exception):
    """An error to report as one line on stderr, then exit with ``status``."""

    status = EXIT_DATAERR

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}:" if self.line is None else f"{self.source}:{self.line}:"
            where += " "
        return where + self.message


class InputError(BleustreamError):
    """A line of input that cannot be scored."""

    status = EXIT_DATAERR


class LengthMismatch(InputError):
    """Input streams of different lengths: a system, standard input or a
    reference file ended before another (status 65; SacreBLEU's status 1
    and words under ``--compat sacrebleu``)."""


class OpenError(BleustreamError):
    """An input file that cannot be opened."""

    status = EXIT_NOINPUT


class ReadError(BleustreamError):
    """Reading an opened input failed."""

    status = EXIT_IOERR


class WriteError(BleustreamError):
    """The output cannot be written."""

    status = EXIT_IOERR


class WorkerError(BleustreamError):
    """A worker process of ``-j N`` died."""

    status = EXIT_OSERR


class UsageError(BleustreamError):
    """Options or configuration that do not make sense together."""

    status = EXIT_USAGE


_SURROGATE = re.compile("[\ud800-\udfff]").search


def lone_surrogate(tokenizer: str, line: str) -> InputError | None:
    """The error for a tokenizer that takes UTF-8 only (MeCab, SentencePiece)
    and failed on ``line``, if a lone surrogate is why: text decoded from an
    encoding other than UTF-8 can hold one, and SacreBLEU cannot tokenize it
    either.  None when the line has none (the failure is something else)."""
    found = _SURROGATE(line)
    if found is None:
        return None
    return InputError(
        f"-tok {tokenizer} cannot tokenize a lone surrogate "
        f"(U+{ord(found.group()):04X} at column {found.start() + 1})"
    )


class SacrebleuRefusal(BleustreamError):
    """What SacreBLEU refuses, refused under ``--compat sacrebleu`` with its
    words and its exit status (``EXIT_SACREBLEU`` unless given)."""

    def __init__(
        self,
        message: str,
        source: str | None = None,
        line: int | None = None,
        status: int = EXIT_SACREBLEU,
    ) -> None:
        super().__init__(message, source, line)
        self.status = status


def signal_status(signum: int) -> int:
    """The exit status of a run that SIGINT (130) or SIGTERM (143) ended,
    128 plus the signal's number as a shell gives it: the one rule,
    wherever a signal ends a run."""
    return EXIT_SIGINT if signum == _SIGINT else EXIT_SIGTERM


_SIGINT = 2  # signal.SIGINT, the same number everywhere (the core imports no signal)


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived (raised by the command line's signal handler)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def failure_status(exc: BleustreamError | OSError, report: Callable[[str], object]) -> int:
    """The exit status of an error that ended a run, its one line given to
    ``report`` first: a ``BleustreamError`` says what and where, with its own
    status; an ``OSError`` that reaches the top is a failed write (74)."""
    if isinstance(exc, BleustreamError):
        report(str(exc))
        return exc.status
    report(f"write error: {exc.strerror or exc}")
    return EXIT_IOERR
