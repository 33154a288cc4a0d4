"""``python -m bleustream.dropin script.py ARGS`` or ``python -m
bleustream.dropin -m module ARGS``: runs a script or a module as Python
would, after ``bleustream.install_as_sacrebleu()``, so every ``import
sacrebleu`` in the process gives bleustream, without a change to its code
(as ``coverage run`` runs one).

``-m sacrebleu`` (or ``sacrebleu.sacrebleu``, ``sacrebleu.__main__``),
SacreBLEU's command line, runs bleustream's command line in its SacreBLEU
mode (``--compat sacrebleu``): the same arguments, SacreBLEU's output but
for the version in the signatures."""

from __future__ import annotations

import os
import runpy
import sys

from bleustream.dropin import install_as_sacrebleu

USAGE = "usage: python -m bleustream.dropin (script.py | -m module) [args...]"

# The module names that run SacreBLEU's command line.
COMMAND_MODULES = ("sacrebleu", "sacrebleu.__main__", "sacrebleu.sacrebleu")


def sacrebleu_command(args: list[str]) -> int:
    """SacreBLEU's command line with ``args``: bleustream's, under ``--compat sacrebleu``."""
    from bleustream.cli.entry import main as command

    os.environ["BLEUSTREAM_COMPAT"] = "sacrebleu"
    sys.argv = ["sacrebleu", *args]
    return command()


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help") or argv == ["-m"]:
        print(USAGE, file=sys.stdout if argv[:1] in (["-h"], ["--help"]) else sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    if argv[0] == "-m" and argv[1] in COMMAND_MODULES:
        return sacrebleu_command(argv[2:])
    install_as_sacrebleu()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv[:]
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
