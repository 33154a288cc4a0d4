"""The ``bleustream`` command: options in, records out, exit status.

This module wires the pieces together and owns everything that touches the
process: argument parsing, standard streams, signals and exit statuses.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import IO, Any, BinaryIO, Callable, NoReturn

from bleustream import __version__
from bleustream.bleu import (
    DEFAULT_MAX_ORDER,
    SMOOTH_DEFAULTS,
    SMOOTH_METHODS,
    Settings,
    compute_bleu,
    signature_fields,
)
from bleustream.config import (
    FROM_COMMAND_LINE,
    Config,
    build_schema,
    find_config,
    merge,
    render,
)
from bleustream.errors import (
    EXIT_DATAERR,
    EXIT_IOERR,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_USAGE,
    BleustreamError,
    UsageError,
    WriteError,
    count_of,
)
from bleustream.formats import FORMATS, FORMATTERS, Context, Record, header
from bleustream.logs import FAIRSEQ_HYPS, INPUT_FORMATS, LOG_FORMATS, check_usage, log_segments
from bleustream.pairing import PairedSegments
from bleustream.readers import (
    STDIN_NAME,
    BadLinePolicy,
    LineSource,
    Segment,
    check_encoding,
    lockstep_segments,
    open_source,
    paste_segments,
)
from bleustream.scorer import StreamScorer, sentence_settings
from bleustream.tokenizers import DEFAULT_TOKENIZER, TOKENIZERS

PROG = "bleustream"

EXIT_STATUS_HELP = """\
exit status:
  0    success
  2    usage or configuration error
  65   bad input data (undecodable bytes, wrong number of fields,
       streams of different lengths; in a log, unpaired or duplicate ids
       or ids beyond the reference files, unless --allow-unpaired)
  66   an input file cannot be opened
  74   a read or write error
  130  interrupted by SIGINT (143 for SIGTERM); the corpus score of the
       segments read so far is printed first, marked partial
A closed output pipe ends bleustream quietly, as it ends cat.
"""

EXAMPLES_HELP = """\
examples:
  paste hyp.de ref.de | bleustream
  bleustream ref.de < hyp.de
  bleustream ref.A.de ref.B.de -i hyp.de -f json
  bleustream -b ref.de -i hyp.de           # the score alone, for $(...)
  bleustream -sl --every 100 -f tsv ref.de < hyp.de
  fairseq-generate data-bin --path model.pt | bleustream --input-format fairseq
  bleustream --input-format nbest ref.de < nbest.txt
"""


# Built-in defaults of the options that settings may come from.
DEFAULTS: dict[str, Any] = {
    "tokenize": DEFAULT_TOKENIZER,
    "lowercase": False,
    "smooth_method": "exp",
    "smooth_value": None,
    "max_ngram_order": DEFAULT_MAX_ORDER,
    "effective_order": False,
    "format": "text",
    "width": 1,
    "score_only": False,
    "sentence_level": False,
    "every": 0,
    "encoding": "utf-8",
    "encoding_errors": "strict",
    "skip_bad_lines": False,
    "input_format": "paste",
    "fairseq_hyp": "D",
    "keyed_refs": None,
    "allow_unpaired": False,
}


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _whole_number(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` (to ``maximum``)."""
    if maximum is not None:
        requirement = f"must be a whole number from {minimum} to {maximum}"
    elif minimum == 0:
        requirement = "must not be negative"
    else:
        requirement = f"must be at least {minimum}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"{requirement}: {text!r}")
        return value

    return parse


# Bounds that keep absurd values from failing deep inside (a width past
# what float formatting takes, an order that would not fit in memory).
MAX_WIDTH = 30
MAX_ORDER = 100
MAX_SMOOTH_VALUE = 1_000_000

_non_negative_int = _whole_number(0)
_width = _whole_number(0, MAX_WIDTH)
_max_order = _whole_number(1, MAX_ORDER)


def _smooth_value(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= MAX_SMOOTH_VALUE:  # also false for nan
        raise argparse.ArgumentTypeError(f"must be a number from 0 to {MAX_SMOOTH_VALUE}: {text!r}")
    return value


def _to_stderr(text: str) -> None:
    """Write to stderr; if it is closed or full, the exit status still tells."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.write(text)
        sys.stderr.flush()


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line instead of the whole usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see '{self.prog} --help')\n")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            _to_stderr(message)
        sys.exit(status)

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        # Only --help and --version print here, to stdout.  argparse ignores
        # write errors; help into a full disk must not end in status 0.
        if message:
            if file is None:
                raise WriteError("standard output is closed")
            file.write(message)
            file.flush()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=(
            "Score machine translation with BLEU as the input streams in. "
            "Without REF operands, each input line is hyp<TAB>ref1[<TAB>ref2...] "
            "(as paste writes it); with them, hypotheses are read from the input "
            "and the reference files in lockstep. The numbers are SacreBLEU 2.x's."
        ),
        epilog=EXIT_STATUS_HELP + "\n" + EXAMPLES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add(
        "refs",
        nargs="*",
        metavar="REF",
        help="reference files, read in lockstep with the hypotheses ('-' is stdin; "
        ".gz is decompressed)",
    )
    add(
        "-i",
        "--input",
        metavar="FILE",
        default="-",
        help="read hypotheses (or paste lines) from FILE instead of stdin",
    )
    bleu = parser.add_argument_group("BLEU settings")
    bleu.add_argument(
        "-tok",
        "--tokenize",
        choices=sorted(TOKENIZERS),
        help=f"tokenizer (default: {DEFAULT_TOKENIZER})",
    )
    bleu.add_argument(
        "-lc",
        "--lowercase",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="lowercase hypotheses and references (default: no)",
    )
    bleu.add_argument(
        "-s",
        "--smooth-method",
        choices=SMOOTH_METHODS,
        help="smoothing: exp, floor, add-k or none (default: exp)",
    )
    bleu.add_argument(
        "-sv",
        "--smooth-value",
        type=_smooth_value,
        metavar="X",
        help=f"value for floor (default {SMOOTH_DEFAULTS['floor']}) "
        f"and add-k (default {SMOOTH_DEFAULTS['add-k']})",
    )
    bleu.add_argument(
        "--max-ngram-order",
        type=_max_order,
        metavar="N",
        help=f"longest n-gram counted (default: {DEFAULT_MAX_ORDER})",
    )
    bleu.add_argument(
        "--effective-order",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="leave out n-gram orders with no n-grams (default: no; "
        "always on for --sentence-level records)",
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "-f",
        "--format",
        choices=FORMATS,
        help="text (SacreBLEU's line), tsv (a header, then one row per record) "
        "or json (JSON Lines); default: text",
    )
    out.add_argument(
        "-w",
        "--width",
        type=_width,
        metavar="N",
        help="digits after the decimal point in text scores (default: 1)",
    )
    out.add_argument(
        "-b",
        "--score-only",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="print the score alone, one number per record",
    )
    out.add_argument(
        "-sl",
        "--sentence-level",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a record with each segment's sentence BLEU, as each line is read",
    )
    out.add_argument(
        "--every",
        type=_non_negative_int,
        metavar="N",
        help="a record with the corpus score so far after every N segments (0: never)",
    )
    inp = parser.add_argument_group("input")
    inp.add_argument(
        "--encoding",
        metavar="NAME",
        help="encoding of all inputs, ASCII-compatible (default: utf-8)",
    )
    inp.add_argument(
        "--encoding-errors",
        choices=("strict", "replace"),
        help="strict: a line that does not decode is an error (default); "
        "replace: decode it with U+FFFD for the bad bytes",
    )
    inp.add_argument(
        "--skip-bad-lines",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="skip and count bad lines instead of stopping at the first",
    )
    inp.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        help="paste: hyp<TAB>ref lines, or hypotheses read in lockstep with REF files "
        "(default); fairseq: fairseq-generate or fairseq-interactive output; nbest: Moses/Marian "
        "n-best lists; keyed: id<TAB>text lines. Log formats pair hypotheses with "
        "references by id, in any order (ids index REF files from 0)",
    )
    inp.add_argument(
        "--fairseq-hyp",
        choices=FAIRSEQ_HYPS,
        help="fairseq hypotheses from D- (detokenized, default) or H- lines",
    )
    inp.add_argument(
        "--keyed-refs",
        metavar="FILE",
        help="with --input-format keyed: references as id<TAB>ref[<TAB>ref...] lines "
        "of FILE, paired by id",
    )
    inp.add_argument(
        "--allow-unpaired",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="log formats: exit 0 even if ids lack their other half, repeat, or lie "
        "beyond the REF files (they are still reported)",
    )
    cfg = parser.add_argument_group(
        "configuration",
        "settings come from the command line, else from a TOML file, else from the\n"
        "built-in defaults; the file is --config FILE, else bleustream.toml in the\n"
        "working directory, else the [tool.bleustream] table of its pyproject.toml.\n"
        'Its keys are the long option names: smooth-method = "floor"',
    )
    which = cfg.add_mutually_exclusive_group()
    which.add_argument(
        "--config",
        metavar="FILE",
        help="read settings from the TOML file FILE (which must exist)",
    )
    which.add_argument(
        "--no-config",
        action="store_true",
        help="read no config file: neither bleustream.toml nor pyproject.toml",
    )
    cfg.add_argument(
        "--show-config",
        action="store_true",
        help="print the settings in force as TOML, with where each came from, and exit",
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def load_config(
    args: argparse.Namespace, cwd: str, parser: argparse.ArgumentParser
) -> Config | None:
    """The config file the options and the working directory ``cwd`` select, if any."""
    schema = build_schema(parser, DEFAULTS)
    return find_config(args.config, args.no_config, cwd, schema)


def resolve(args: argparse.Namespace, config: Config | None = None) -> dict[str, Any]:
    """The options in force: the command line, else ``config``, else the built-in default.

    ``options["origins"]`` says where each setting came from: "command line",
    the config file, or "default".
    """
    given = {key: getattr(args, key, None) for key in DEFAULTS}
    options, origins = merge(DEFAULTS, given, config)
    options["refs"] = args.refs
    options["input"] = args.input
    options["origins"] = origins
    return options


def show_config(options: dict[str, Any], parser: argparse.ArgumentParser) -> str:
    """The settings in force as TOML, for --show-config."""
    header = (
        f"{PROG} {__version__}: the settings in force "
        "(command line over config file over built-in defaults).\n"
        "Saved as bleustream.toml, this file gives the same settings."
    )
    return render(options, options["origins"], build_schema(parser, DEFAULTS), header)


def check_options(options: dict[str, Any], config: Config | None) -> None:
    """Check what no single option can: settings together, and the encoding.

    Done before anything is read or shown; a problem that may involve the
    config file says which file it was.
    """
    try:
        settings = settings_from(options)
        if settings.smooth_value != options["smooth_value"]:
            # A config file's value that the command line's method does not
            # take: dropped, so --show-config shows what is in force.
            options["smooth_value"] = settings.smooth_value
            options["origins"]["smooth_value"] = FROM_COMMAND_LINE
        check_encoding(options["encoding"])
        check_usage(options["input_format"], len(options["refs"]), options["keyed_refs"])
    except UsageError as exc:
        if config is None:
            raise
        raise UsageError(f"{exc.message} (settings read from {config.origin})") from None


def settings_from(options: dict[str, Any]) -> Settings:
    """The BLEU settings of the options.

    A smoothing value with a method that takes none is an error, unless the
    method came from the command line and the value from a config file (a
    file's value for floor does not stop ``-s exp``): then it is dropped.
    """
    method, value = options["smooth_method"], options["smooth_value"]
    if value is not None and SMOOTH_DEFAULTS[method] is None:
        origins = options.get("origins", {})
        overridden = (
            origins.get("smooth_method") == FROM_COMMAND_LINE
            and origins.get("smooth_value") != FROM_COMMAND_LINE
        )
        if not overridden:
            raise UsageError(f"--smooth-value applies to floor and add-k, not to {method}")
        value = None
    return Settings(
        tokenize=options["tokenize"],
        lowercase=options["lowercase"],
        smooth_method=method,
        smooth_value=value,
        effective_order=options["effective_order"],
        max_order=options["max_ngram_order"],
    )


class Output:
    """Writes whole records to a binary stream, flushing each one."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, text: str) -> None:
        if text:
            # Text from a non-UTF-8 input can hold lone surrogates (UTF-7,
            # undecodable file names): they are written as escapes.
            self._stream.write(text.encode("utf-8", "backslashreplace"))
            self._stream.flush()


def open_segments(
    options: dict[str, Any], stdin: BinaryIO | None, policy: BadLinePolicy
) -> tuple[Iterator[Segment], list[LineSource]]:
    """The segment stream the options ask for, and the sources to close."""
    encoding = check_encoding(options["encoding"])
    errors = options["encoding_errors"]
    refs: list[str] = options["refs"]
    if options["input"] == "-" and "-" in refs:
        raise UsageError("stdin cannot be both the hypotheses and a reference file; use -i FILE")
    if refs.count("-") > 1:
        raise UsageError("stdin ('-') can be only one of the reference files")
    input_format = options["input_format"]
    keyed_refs: str | None = options["keyed_refs"]
    check_usage(input_format, len(refs), keyed_refs)
    if keyed_refs == "-" and options["input"] == "-":
        raise UsageError("stdin cannot be both the hypotheses and --keyed-refs; use -i FILE")
    sources: list[LineSource] = []
    try:
        hyps = open_source(options["input"], stdin, encoding, errors, policy)
        sources.append(hyps)
        for path in refs:
            sources.append(open_source(path, stdin, encoding, errors, policy))
        if keyed_refs is not None:
            sources.append(open_source(keyed_refs, stdin, encoding, errors, policy))
    except BleustreamError:
        for source in sources:
            source.close()
        raise
    if input_format in LOG_FORMATS:
        keyed = sources[-1] if keyed_refs is not None else None
        ref_sources = sources[1 : 1 + len(refs)]
        segments = log_segments(
            input_format, hyps, ref_sources, policy, options["fairseq_hyp"], keyed
        )
        return segments, sources
    if not refs:
        return paste_segments(hyps, policy), sources
    return lockstep_segments(hyps, sources[1:]), sources


def run(options: dict[str, Any], stdin: BinaryIO | None, stdout: BinaryIO, report: Any) -> int:
    """Score the input the options name; returns the exit status."""
    settings = settings_from(options)
    policy = BadLinePolicy(options["skip_bad_lines"], report)
    fmt = options["format"]
    formatter = FORMATTERS[fmt]
    sentence_level = options["sentence_level"]
    every = options["every"]
    segment_settings = sentence_settings(settings)
    scorer = StreamScorer(settings)
    out = Output(stdout)
    nrefs: int | None = len(options["refs"]) or None

    def context() -> Context:
        return Context(
            signature=signature_fields(settings, nrefs or 0),
            max_order=settings.max_order,
            width=options["width"],
            score_only=options["score_only"],
        )

    ctx = context()
    status = EXIT_OK
    partial = False
    started = False  # the header is written
    segments: Iterator[Segment] = iter(())
    sources: list[LineSource] = []
    try:
        # Opening is inside: a signal may come while a FIFO waits for a writer.
        segments, sources = open_segments(options, stdin, policy)
        out.write(header(fmt, ctx))
        started = True
        for segment in segments:
            if nrefs is None:
                nrefs = len(segment.refs)
                ctx = context()
            stats = scorer.add(segment.hyp, segment.refs)
            if sentence_level:
                record = Record(
                    "segment",
                    compute_bleu(stats, segment_settings),
                    line=segment.line,
                    id=segment.id,
                    skipped=policy.count,
                )
                out.write(formatter(record, ctx))
            if every and scorer.total.segments % every == 0:
                record = Record("running", scorer.score(), line=segment.line, skipped=policy.count)
                out.write(formatter(record, ctx))
    except Interrupted as exc:
        partial = True
        status = EXIT_SIGINT if exc.signum == signal.SIGINT else EXIT_SIGTERM
        report(
            "interrupted; the score covers the "
            f"{count_of(scorer.total.segments, 'segment')} read so far"
        )
    finally:
        for source in sources:
            source.close()
    # The final record is written whole: a signal now would cut it short.
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    if policy.count:
        report(
            f"skipped {count_of(policy.count, 'bad line')}; "
            f"the score covers {count_of(scorer.total.segments, 'segment')}"
        )
    if scorer.total.segments == 0 and not partial and not policy.count:
        report(f"no segments in the input ({_input_name(options)}); BLEU is 0 by definition")
    unpaired: int | None = None
    if isinstance(segments, PairedSegments) and segments.report is not None:
        for message in segments.report.messages():
            report(message)
        unpaired = segments.report.left_out
        if unpaired and not options["allow_unpaired"]:
            status = EXIT_DATAERR
    final = Record(
        "corpus", scorer.score(), partial=partial, skipped=policy.count, unpaired=unpaired
    )
    out.write(("" if started else header(fmt, ctx)) + formatter(final, ctx))
    return status


def _input_name(options: dict[str, Any]) -> str:
    return STDIN_NAME if options["input"] == "-" else options["input"]


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    # A closed output pipe ends the process quietly, as it does cat.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGINT, _raise_interrupted)
    signal.signal(signal.SIGTERM, _raise_interrupted)

    def report(message: str) -> None:
        _to_stderr(f"{PROG}: {message}\n")

    # A standard stream closed by the caller is None.
    stdin: BinaryIO | None = getattr(sys.stdin, "buffer", None)
    stdout: BinaryIO | None = getattr(sys.stdout, "buffer", None)
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version or a usage error
            if sys.stdout is not None:
                sys.stdout.flush()
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        config = load_config(args, os.getcwd(), parser)
        options = resolve(args, config)
        check_options(options, config)
        if stdout is None:
            raise WriteError("standard output is closed")
        if args.show_config:
            Output(stdout).write(show_config(options, parser))
            return EXIT_OK
        return run(options, stdin, stdout, report)
    except BleustreamError as exc:
        report(str(exc))
        return exc.status
    except Interrupted as exc:
        return EXIT_SIGINT if exc.signum == signal.SIGINT else EXIT_SIGTERM
    except OSError as exc:
        report(f"write error: {exc.strerror or exc}")
        return EXIT_IOERR
