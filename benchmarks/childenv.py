"""The environment the benchmarks run their timed commands in.

A user's installed packages carry compiled bytecode, so a command starts
without compiling its modules.  A shell that sets ``PYTHONDONTWRITEBYTECODE``
(or a fresh checkout) would make every timed process, and every worker
process of ``-j``, compile bleustream's modules first: start-up that no
user pays.  So the timed commands run without that variable, and
bleustream's package is compiled once before the first of them.
"""

from __future__ import annotations

import compileall
import importlib.util
import os
from pathlib import Path

_compiled = False


def child_environment(
    extra: dict[str, str] | None = None, dropped: tuple[str, ...] = ()
) -> dict[str, str]:
    """os.environ for a timed command, without ``dropped``, with ``extra`` added."""
    global _compiled
    if not _compiled:
        spec = importlib.util.find_spec("bleustream")
        for location in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(Path(location), quiet=1)
        _compiled = True
    dropped = ("PYTHONDONTWRITEBYTECODE", *dropped)
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env.update(extra or {})
    return env
