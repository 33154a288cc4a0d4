"""The command's signal handlers: SIGINT and SIGTERM raise ``Interrupted``,
which the command turns into its exit status (130 or 143) and one line on
stderr.  Small and light: ``bleustream.cli.entry`` installs them before it
loads anything else of the command line."""

from __future__ import annotations

import contextlib
import signal
import sys
from types import FrameType

from bleustream.errors import PROG, Interrupted, signal_status


def raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def install_handlers() -> None:
    """SIGINT and SIGTERM raise ``Interrupted``; a closed output pipe ends
    the process quietly, as it does ``cat``."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGINT, raise_interrupted)
    signal.signal(signal.SIGTERM, raise_interrupted)


def say_interrupted(exc: Interrupted) -> int:
    """The one line of a run a signal ended with nothing more to write; its status."""
    with contextlib.suppress(AttributeError, OSError, ValueError):  # stderr closed or full
        sys.stderr.write(f"{PROG}: interrupted; nothing more is written\n")
        sys.stderr.flush()
    return signal_status(exc.signum)
