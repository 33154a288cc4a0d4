"""The ``bleustream`` command's entry point (the console script, and
``python -m bleustream``): the signal handlers first, then the command line.

Loading the command line (argparse, the options, the readers, the metrics)
takes a moment; a SIGINT or SIGTERM meanwhile would end in Python's
``KeyboardInterrupt`` traceback, or end the process with no word.  So this
module imports nothing of the command line before it has installed the
handlers (``bleustream.cli.signals``): a signal from then on ends the run
with status 130 or 143 and one line on standard error.  What runs before
this module cannot be covered: Python's start-up (``site``) and the
package's ``__init__`` (the version and the choice of kernels, a few
milliseconds); the manual says so.
"""

from __future__ import annotations

import gc
import signal

from bleustream.cli.signals import install_handlers, say_interrupted
from bleustream.errors import Interrupted


def main() -> int:
    """Install the handlers, then load and run the command line; its status."""
    ignored = [s for s in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(s) == signal.SIG_IGN]
    install_handlers()
    try:
        # Loading the command line makes tens of thousands of objects
        # (functions, classes, dicts) and frees almost none: the cyclic
        # collector would walk them again at every threshold, a tenth of
        # the start-up.  It runs as usual once they are loaded.
        gc.disable()
        try:
            from bleustream.cli.main import main as command
        finally:
            gc.enable()
        return command()
    except Interrupted as exc:  # while loading, or outside the command's own handling
        return say_interrupted(exc)
    finally:
        # The run is over: a signal while the interpreter exits ends it as
        # the signal does by default (or is ignored, as it was), with no traceback.
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)
