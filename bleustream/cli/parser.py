"""The argparse parser of the command line, built from the option table.

``build_parser`` turns ``bleustream.cli.options.TABLE`` (with the metrics'
own options in their place) into argparse options, with ``--help``'s exit
statuses and examples, and usage errors as one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import IO, Any, NoReturn

from bleustream._version import __version__
from bleustream.cli.options import PROG, groups
from bleustream.errors import EXIT_STATUSES, EXIT_USAGE, WriteError
from bleustream.kernels import KERNELS
from bleustream.metrics.protocol import OptionSpec


def exit_status_help() -> str:
    """``--help``'s list of exit statuses, from ``bleustream.errors``."""
    import textwrap  # (for --help only)

    lines = ["exit status:"]
    for status, meaning in EXIT_STATUSES:
        wrapped = textwrap.wrap(meaning, 66)
        lines.append(f"  {status:<4} {wrapped[0]}")
        lines.extend(f"       {more}" for more in wrapped[1:])
    lines.append("A closed output pipe ends bleustream quietly, as it ends cat.")
    return "\n".join(lines) + "\n"


EXAMPLES_HELP = """\
examples:
  paste hyp.de ref.de | bleustream
  bleustream ref.de < hyp.de
  bleustream ref.A.de ref.B.de -i hyp.de -f jsonl
  bleustream -b ref.de -i hyp.de           # the score alone, for $(...)
  bleustream -sl --every 100 -f tsv ref.de < hyp.de
  fairseq-generate data-bin --path model.pt | bleustream --input-format fairseq
  bleustream --input-format nbest ref.de < nbest.txt
"""


def to_stderr(text: str) -> None:
    """Write to stderr; if it is closed or full, the exit status still tells."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.write(text)
        sys.stderr.flush()


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line instead of the whole usage.

    While ``building``, the formatter argparse makes to check each
    argument's metavar has a fixed width: argparse's own asks the terminal
    through ``shutil`` (which loads ``bz2``, ``lzma``...), and only help
    and usage text needs the terminal's width.  The epilog (the exit
    statuses and the examples) is written when help is.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.building = True  # until build_parser has added every option
        super().__init__(*args, **kwargs)

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self.building:
            return self.formatter_class(prog=self.prog, width=80)
        return super()._get_formatter()

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = exit_status_help() + "\n" + EXAMPLES_HELP
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see '{self.prog} --help')\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # "--" ends the lists of -i and -m as it ends the options; the last
        # word, it ends them before nothing (argparse would call it an
        # unrecognized argument).
        words = list(sys.argv[1:] if args is None else args)
        if words and words[-1] == "--" and words.index("--") == len(words) - 1:
            words.pop()
        return super().parse_known_args(words, namespace)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            to_stderr(message)
        sys.exit(status)

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        # Only --help and --version print here, to stdout.  argparse ignores
        # write errors; help into a full disk must not end in status 0.
        if message:
            if file is None:
                raise WriteError("standard output is closed")
            file.write(message)
            file.flush()


def _argparse_type(option: OptionSpec) -> Any:
    def parse(text: str) -> Any:
        try:
            return option.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = option.dest  # argparse names the type in some messages
    return parse


def add_option(container: Any, option: OptionSpec) -> None:
    """Adds one option of the table to an argparse parser or group."""
    kwargs: dict[str, Any] = {"dest": option.dest, "help": option.help}
    if option.kind == "bool":
        kwargs.update(action=argparse.BooleanOptionalAction, default=None)
    elif option.kind == "flag":
        kwargs.update(action="store_true")
    else:
        if option.kind == "choice":
            kwargs["choices"] = list(option.choices or ())
        elif option.kind in ("int", "float") or option.reader is not None:
            kwargs["type"] = _argparse_type(option)
        if option.metavar is not None:
            kwargs["metavar"] = option.metavar
        if option.multiple:
            kwargs["nargs"] = "+"
        kwargs["default"] = option.default if not option.config else None
    container.add_argument(*option.flags, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of ``TABLE``."""
    parser = _Parser(
        prog=PROG,
        description=(
            "Score machine translation with BLEU, chrF, TER and NIST (and generated text "
            "with Self-BLEU) as the input streams in. "
            "Without REF operands, each input line is hyp<TAB>ref1[<TAB>ref2...] "
            "(as paste writes it); with them, hypotheses are read from the input "
            "and the reference files in lockstep. The numbers are SacreBLEU 2.x's."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "refs",
        nargs="*",
        metavar="REF",
        help="reference files, read in lockstep with the hypotheses ('-' is stdin; "
        ".gz is decompressed)",
    )
    for group in groups():
        container: Any = parser
        if group.title is not None:
            container = parser.add_argument_group(group.title, group.description)
        exclusive = container.add_mutually_exclusive_group() if group.exclusive else None
        for option in group.options:
            add_option(exclusive if option.dest in group.exclusive else container, option)
    parser.add_argument(
        "-V", "--version", action="version", version=f"%(prog)s {__version__} (kernels: {KERNELS})"
    )
    parser.building = False
    return parser
