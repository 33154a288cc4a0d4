"""The ``bleustream`` command's entry point (the console script, and
``python -m bleustream``): the signal handlers first, then the command line.

Loading the command line (argparse, the options, the readers, the metrics)
takes a moment; a SIGINT or SIGTERM meanwhile would end in Python's
``KeyboardInterrupt`` traceback, or end the process with no word.  So this
module imports nothing of the command line before it has installed the
handlers: a signal from then on ends the run with status 130 or 143 and one
line on standard error.  What runs before this module cannot be covered:
Python's start-up (``site``) and the package's ``__init__`` (the version and
the choice of kernels, a few milliseconds); the manual says so.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from types import FrameType

from bleustream.errors import EXIT_SIGINT, EXIT_SIGTERM, Interrupted

PROG = "bleustream"  # the command's name, which begins its messages


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
    return EXIT_SIGINT if exc.signum == signal.SIGINT else EXIT_SIGTERM


def main() -> int:
    """Install the handlers, then load and run the command line; its status."""
    ignored = [s for s in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(s) == signal.SIG_IGN]
    install_handlers()
    try:
        from bleustream.cli.main import main as command

        return command()
    except Interrupted as exc:  # while loading, or outside the command's own handling
        return say_interrupted(exc)
    finally:
        # The run is over: a signal while the interpreter exits ends it as
        # the signal does by default (or is ignored, as it was), with no traceback.
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)
