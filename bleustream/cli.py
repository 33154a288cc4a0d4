"""The ``bleustream`` command: arguments in, a run, an exit status out.

This thin shell owns everything that touches the process: it turns argv
and the config file into typed ``RunOptions``, installs the signal
handlers, hands the standard streams to ``bleustream.run.run`` and turns
errors into one line on stderr and a documented exit status.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import IO, Any, BinaryIO, NoReturn

from bleustream import __version__
from bleustream.argtypes import whole_number
from bleustream.batch import require_numpy
from bleustream.config import (
    FROM_COMMAND_LINE,
    FROM_DEFAULT,
    Config,
    build_schema,
    find_config,
    merge,
    render,
)
from bleustream.errors import (
    EXIT_IOERR,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_USAGE,
    BleustreamError,
    Interrupted,
    UsageError,
    WriteError,
)
from bleustream.formats import FORMATS
from bleustream.logs import FAIRSEQ_HYPS, INPUT_FORMATS, check_usage
from bleustream.metrics import DEFAULT_METRICS, METRICS, Spec, all_options, specs_from
from bleustream.readers import check_encoding, check_num_refs
from bleustream.resampling import Test
from bleustream.run import Output, RunOptions, run
from bleustream.significance import parse_seed

PROG = "bleustream"

EXIT_STATUS_HELP = """\
exit status:
  0    success
  2    usage or configuration error
  65   bad input data (undecodable bytes, wrong number of fields,
       streams of different lengths; in a log, unpaired or duplicate ids
       or ids beyond the reference files, unless --allow-unpaired)
  66   an input file cannot be opened
  71   a worker process of --jobs died (no score is printed)
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


# Built-in defaults of the options that settings may come from (the
# metrics' own options are added from the registry below).
DEFAULTS: dict[str, Any] = {
    "metrics": list(DEFAULT_METRICS),
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
    "systems": 1,
    "jobs": 1,
    "progress": False,
    "num_refs": 1,
    "confidence": False,
    "confidence_n": 1000,
    "paired_bs": False,
    "paired_bs_n": 1000,
    "paired_ar": False,
    "paired_ar_n": 10000,
    "seed": "12345",
}
DEFAULTS.update({option.dest: option.default for _, option in all_options()})

# Bounds that keep absurd values from failing deep inside (a width past
# what float formatting takes).
MAX_WIDTH = 30

_non_negative_int = whole_number(0)
# Past any machine's cores: each worker is a process of its own.
MAX_JOBS = 1024
_jobs_count = whole_number(0, MAX_JOBS)
_width = whole_number(0, MAX_WIDTH)
_systems = whole_number(1, 10_000)
_num_refs = whole_number(1, 10_000)
_samples = whole_number(1, 10_000_000)


def _seed(text: str) -> str:
    """A seed: a whole number, or ``none`` (any case) for fresh entropy."""
    if text.strip().lower() == "none":
        return "none"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number or 'none': {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2**63-1, or 'none': {text!r}")
    return str(value)


def _to_stderr(text: str) -> None:
    """Write to stderr; if it is closed or full, the exit status still tells."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.write(text)
        sys.stderr.flush()


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line instead of the whole usage."""

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
            "Score machine translation with BLEU, chrF and TER as the input streams in. "
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
        nargs="+",
        default=["-"],
        help="read hypotheses (or paste lines) from FILE instead of stdin; with REF "
        "files, several FILEs are several systems scored against the same references "
        "(the first is the baseline)",
    )
    add(
        "-m",
        "--metrics",
        nargs="+",
        choices=list(METRICS),
        metavar="NAME",
        help="metrics to compute, printed in the order given: "
        + ", ".join(METRICS)
        + " (default: "
        + " ".join(DEFAULT_METRICS)
        + ")",
    )
    for metric in METRICS.values():
        group = parser.add_argument_group(f"{metric.TITLE} settings")
        for option in metric.OPTIONS:
            group.add_argument(*option.flags, dest=option.dest, default=None, **option.kwargs)
    out = parser.add_argument_group("output")
    out.add_argument(
        "-f",
        "--format",
        choices=FORMATS,
        help="text (SacreBLEU's line per metric), tsv (a header, then one row per record) "
        "or json (JSON Lines, one object per metric per record); default: text",
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
        help="print the scores alone, one number per metric per record",
    )
    out.add_argument(
        "-sl",
        "--sentence-level",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a record with each segment's sentence scores, as each line is read",
    )
    out.add_argument(
        "--every",
        type=_non_negative_int,
        metavar="N",
        help="a record with the corpus score so far after every N segments (0: never)",
    )
    out.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show progress on stderr: segments, rate, running score, and percent done "
        "and time left for a regular file (redrawn on a terminal, a line every few "
        "seconds otherwise)",
    )
    out.add_argument(
        "-j",
        "--jobs",
        type=_jobs_count,
        metavar="N",
        help="count segments in N worker processes (0: one per core; default: 1); "
        "the output is the same as with one",
    )
    sig = parser.add_argument_group(
        "confidence intervals and paired significance tests (SacreBLEU's; need numpy: "
        "pip install 'bleustream[significance]')"
    )
    sig.add_argument(
        "-ci",
        "--confidence",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a bootstrap mean and 95%% confidence interval for each system and metric",
    )
    sig.add_argument(
        "-cin",
        "--confidence-n",
        type=_samples,
        metavar="N",
        help="bootstrap resamples for -ci (default: 1000)",
    )
    sig.add_argument(
        "-pbs",
        "--paired-bs",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="paired bootstrap resampling test of each system against the first "
        "(the baseline); not with --paired-ar",
    )
    sig.add_argument(
        "-pbsn",
        "--paired-bs-n",
        type=_samples,
        metavar="N",
        help="resamples for --paired-bs (default: 1000)",
    )
    sig.add_argument(
        "-par",
        "--paired-ar",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="paired approximate randomization test of each system against the first; "
        "with -ci it also gives bootstrap intervals; not with --paired-bs",
    )
    sig.add_argument(
        "-parn",
        "--paired-ar-n",
        type=_samples,
        metavar="N",
        help="trials for --paired-ar (default: 10000)",
    )
    sig.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help="the random seed of resampling, or 'none' for fresh entropy (default: "
        "SacreBLEU's 12345)",
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
        choices=(*INPUT_FORMATS, "stats"),
        help="paste: hyp<TAB>ref lines, or hypotheses read in lockstep with REF files "
        "(default); fairseq: fairseq-generate or fairseq-interactive output; nbest: Moses/Marian "
        "n-best lists; keyed: id<TAB>text lines. Log formats pair hypotheses with "
        "references by id, in any order (ids index REF files from 0). stats: records "
        "written by -f stats, from the operands (shards, added up in turn) or stdin",
    )
    inp.add_argument(
        "-nr",
        "--num-refs",
        type=_num_refs,
        metavar="N",
        help="the one REF file holds N tab-separated references per line, as with "
        "SacreBLEU's -nr (default: 1)",
    )
    inp.add_argument(
        "--systems",
        type=_systems,
        metavar="N",
        help="paste input: the first N fields of each line are hypotheses of N systems, "
        "the rest references (default: 1)",
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


def check_options(options: dict[str, Any], config: Config | None) -> RunOptions:
    """Check what no single option can, and type the options for the run.

    Done before anything is read or shown; a problem that may involve the
    config file says which file it was.
    """
    try:
        specs = specs_from(options["metrics"], options)
        _show_dropped_values(options, specs)
        check_encoding(options["encoding"])
        check_usage(options["input_format"], len(options["refs"]), options["keyed_refs"])
        if options["input_format"] == "paste" and options["refs"]:
            check_num_refs(options["num_refs"], len(options["refs"]))
        elif options["num_refs"] > 1:
            raise UsageError("--num-refs applies to a REF file read in lockstep")
    except UsageError as exc:
        if config is None:
            raise
        raise UsageError(f"{exc.message} (settings read from {config.origin})") from None
    return RunOptions(
        specs=specs,
        refs=tuple(options["refs"]),
        inputs=tuple(options["input"]),
        systems=options["systems"],
        jobs=_jobs(options["jobs"]),
        progress=options["progress"],
        num_refs=options["num_refs"],
        test=_test(options),
        scoring_overrides=_scoring_overrides(options),
        format=options["format"],
        width=options["width"],
        score_only=options["score_only"],
        sentence_level=options["sentence_level"],
        every=options["every"],
        encoding=options["encoding"],
        encoding_errors=options["encoding_errors"],
        skip_bad_lines=options["skip_bad_lines"],
        input_format=options["input_format"],
        fairseq_hyp=options["fairseq_hyp"],
        keyed_refs=options["keyed_refs"],
        allow_unpaired=options["allow_unpaired"],
    )


_TEST_OPTIONS = {"ci": "-ci/--confidence", "bs": "--paired-bs", "ar": "--paired-ar"}


def _jobs(requested: int) -> int:
    """``-j N``: 0 is every core this process may run on."""
    if requested:
        return requested
    from bleustream.parallel import available_cores  # multiprocessing only when needed

    return available_cores()


def _test(options: dict[str, Any]) -> Test | None:
    """The resampling test the options ask for, checked against the systems."""
    if options["paired_bs"] and options["paired_ar"]:
        raise UsageError("--paired-bs and --paired-ar exclude each other: choose one")
    seed = parse_seed(options["seed"])
    test: Test | None = None
    if options["paired_bs"]:
        test = Test("bs", options["paired_bs_n"], seed)
    elif options["paired_ar"]:
        confidence = options["confidence_n"] if options["confidence"] else -1
        test = Test("ar", options["paired_ar_n"], seed, confidence)
    elif options["confidence"]:
        test = Test("ci", options["confidence_n"], seed)
    seen: set[str] = set()
    for name in options["input"]:
        if name in seen:
            raise UsageError(f"system {name} is given twice: each -i FILE names one system")
        seen.add(name)
    if test is not None:
        require_numpy(_TEST_OPTIONS[test.kind])  # before anything is read
    # Statistics read back from one stream name their systems in the
    # records: the run checks those once it has read them.
    one_system = max(len(options["input"]), options["systems"]) < 2 and not (
        options["input_format"] == "stats" and len(options["input"]) < 2
    )
    if test is not None and test.paired and one_system:
        raise UsageError(
            "a paired test needs at least two systems: REF... -i BASELINE SYSTEM..., "
            "or paste input with --systems N"
        )
    if options["format"] == "latex":
        if one_system:
            raise UsageError("-f latex writes a table of several systems; give at least two")
        if options["sentence_level"] or options["every"]:
            raise UsageError("-f latex writes the corpus table only: not with -sl or --every")
    return test


def _scoring_overrides(options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Score-only settings given (not defaults), by metric: merged statistics take them."""
    overrides: dict[str, dict[str, Any]] = {}
    for metric, option in all_options():
        field = option.settings_field
        score_only = field in metric.SCORE_ONLY or field in metric.SCORE_ONLY_ONE_REF
        if score_only and options["origins"].get(option.dest) != FROM_DEFAULT:
            overrides.setdefault(metric.NAME, {})[field] = options[option.dest]
    return overrides


def _show_dropped_values(options: dict[str, Any], specs: Sequence[Spec]) -> None:
    """Make --show-config show a config file's value that a metric dropped.

    A metric may drop a config file's value that the command line's other
    choice does not take (BLEU drops a file's --smooth-value under ``-s
    exp`` given on the command line).  Where an option's dest is also a
    field of the settings, the settings' value is the one in force.
    """
    for spec in specs:
        for option in spec.metric.OPTIONS:
            if not hasattr(spec.settings, option.settings_field):
                continue
            if options["origins"].get(option.dest) == FROM_COMMAND_LINE:
                continue  # not a file's; BLEU keeps -sv for statistics read back
            value = getattr(spec.settings, option.settings_field)
            if value != options[option.dest]:
                options[option.dest] = value
                options["origins"][option.dest] = FROM_COMMAND_LINE


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
        run_options = check_options(options, config)
        if stdout is None:
            raise WriteError("standard output is closed")
        if args.show_config:
            Output(stdout).write(show_config(options, parser))
            return EXIT_OK
        return run(run_options, stdin, stdout, report, sys.stderr)
    except BleustreamError as exc:
        report(str(exc))
        return exc.status
    except Interrupted as exc:
        return EXIT_SIGINT if exc.signum == signal.SIGINT else EXIT_SIGTERM
    except OSError as exc:
        report(f"write error: {exc.strerror or exc}")
        return EXIT_IOERR
