"""``--progress``: how far the scoring is, on stderr, never on stdout.

On a terminal one line is redrawn in place a few times a second; anywhere
else (a log file, a pipe) a plain line is written every few seconds, so
that the log stays readable.  ``BLEUSTREAM_PROGRESS_INTERVAL`` (seconds,
0 or more) sets that interval in both cases: 0 gives a line for every
segment.  The line says the segments scored so far, the
rate, the running score of the first metric and, when the input is a
regular file of known size, the percentage read and the time left.
"""

from __future__ import annotations

import math
import os
import time
from typing import Callable, TextIO

from bleustream.errors import UsageError

TTY_INTERVAL = 0.25  # seconds between redraws on a terminal
LOG_INTERVAL = 5.0  # seconds between lines elsewhere
INTERVAL_VAR = "BLEUSTREAM_PROGRESS_INTERVAL"  # either one, from the environment


def interval(tty: bool) -> float:
    """Seconds between progress lines: ``BLEUSTREAM_PROGRESS_INTERVAL`` if set,
    else the default for a terminal or a log; a value that is not a number
    of seconds (0 or more) is a usage error."""
    text = os.environ.get(INTERVAL_VAR)
    if text is None or not text.strip():
        return TTY_INTERVAL if tty else LOG_INTERVAL
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise UsageError(f"{INTERVAL_VAR}: {text!r} is not a number of seconds (0 or more)")
    return seconds


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Writes progress lines to ``stream`` at most every interval."""

    def __init__(
        self,
        stream: TextIO,
        total_bytes: int | None,
        position: Callable[[], int | None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        try:
            self._tty = stream.isatty()
        except (AttributeError, ValueError, OSError):
            self._tty = False
        self._interval = interval(self._tty)
        self._total = total_bytes if total_bytes else None
        self._position = position
        self._clock = clock
        self._start = clock()
        self._next = self._start + self._interval
        self._drawn = False

    def due(self) -> bool:
        """Whether a line is due (cheap: called once per segment)."""
        return self._clock() >= self._next

    def line(self, segments: int, score: str) -> str:
        elapsed = max(self._clock() - self._start, 1e-9)
        noun = "segment" if segments == 1 else "segments"
        text = f"{segments:,} {noun}, {segments / elapsed:,.0f}/s, {score}"
        position = self._position() if self._total else None
        if self._total and position is not None:
            fraction = min(position / self._total, 1.0)
            text += f", {100 * fraction:.1f}%"
            if fraction > 0:
                text += f", {_duration(elapsed * (1 - fraction) / fraction)} left"
        return text

    def show(self, segments: int, score: str) -> None:
        """Write the progress line now."""
        text = self.line(segments, score)
        # Marked drawn before the write: a signal may interrupt the write
        # after part of the line is out, and ``finish`` must clear it.
        self._drawn = True
        self._next = self._clock() + self._interval
        try:
            if self._tty:
                self._stream.write(f"\r\x1b[K{text}")
            else:
                self._stream.write(f"bleustream: progress: {text}\n")
            self._stream.flush()
        except (OSError, ValueError):
            pass

    def finish(self) -> None:
        """End the redrawn line so that later messages start on a line of their own.

        Safe to call before every message, not only at the end: the next
        ``show`` draws the line again.
        """
        if self._tty and self._drawn:
            try:
                self._stream.write("\r\x1b[K")
                self._stream.flush()
            except (OSError, ValueError):
                pass


def file_extent(stream: object) -> tuple[int | None, Callable[[], int | None]]:
    """The size of the regular file under a binary stream, and how far it is read.

    A gzip stream is measured on its compressed file; a pipe or terminal
    has no size (None).
    """
    import gzip
    import os
    import stat

    raw = stream.fileobj if isinstance(stream, gzip.GzipFile) else stream  # type: ignore[attr-defined]
    try:
        info = os.fstat(raw.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return None, lambda: None
    if not stat.S_ISREG(info.st_mode):
        return None, lambda: None

    def position() -> int | None:
        try:
            return int(raw.tell())  # type: ignore[attr-defined]
        except (OSError, ValueError):
            return None

    return info.st_size, position
