"""The ``bleustream`` command: arguments in, a run, an exit status out.

This thin shell owns everything that touches the process: it turns argv
and the config file into typed ``RunOptions``, installs the signal
handlers, hands the standard streams to ``bleustream.run.run`` and turns
errors into one line on stderr and a documented exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

from bleustream._version import __version__
from bleustream.cli import testsets
from bleustream.cli.abbrev import expand_abbreviations
from bleustream.cli.config import (
    FROM_COMMAND_LINE,
    FROM_DEFAULT,
    Config,
    build_schema,
    find_config,
    merge,
    render,
)
from bleustream.cli.options import (
    DEFAULTS,
    PROG,
    config_options,
    option_dests,
    seed_setting,
)
from bleustream.cli.parser import build_parser, to_stderr
from bleustream.cli.signals import install_handlers, say_interrupted
from bleustream.errors import (
    EXIT_OK,
    EXIT_USAGE,
    BleustreamError,
    Interrupted,
    SacrebleuRefusal,
    UsageError,
    WriteError,
    failure_status,
)
from bleustream.inputs.options import ReadOptions
from bleustream.kernels import KERNELS
from bleustream.metrics import self_bleu
from bleustream.metrics.registry import all_options, loop_of, specs_from
from bleustream.run import CI_NEEDS_PAIRED, PAIRED_NEEDS_SYSTEMS, Output, RunOptions, run
from bleustream.tokenizers.registry import tokenizer_advice

if TYPE_CHECKING:
    from bleustream.significance.resampling import Resampling


def load_config(
    args: argparse.Namespace, cwd: str, parser: argparse.ArgumentParser
) -> Config | None:
    """The config file the options and the working directory ``cwd`` select, if any."""
    schema = build_schema(config_options())
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
    for key in (
        "test_set",
        "echo",
        "list",
        "citation",
        "origlang",
        "subset",
        "download",
        "nist_docs",
        "src",
        "report",
    ):
        options[key] = getattr(args, key)
    options["detail"] = args.detail
    options["origins"] = origins
    return options


def show_config(options: dict[str, Any], parser: argparse.ArgumentParser) -> str:
    """The settings in force as TOML, for --show-config."""
    header = (
        f"{PROG} {__version__} (kernels: {KERNELS}): the settings in force "
        "(command line over config file over built-in defaults).\n"
        "Saved as bleustream.toml, this file gives the same settings."
    )
    return render(options, options["origins"], build_schema(config_options()), header)


def check_options(options: dict[str, Any], config: Config | None) -> RunOptions:
    """Check what no single option can, and type the options for the run.

    Done before anything is read or shown; a problem that may involve the
    config file says which file it was.
    """
    try:
        apply_precedence(options)
        _self_bleu_options(options)
        _drop_repeated_baseline(options)
        if options["compat"] == "sacrebleu":
            _sacrebleu_refusals(options)
        try:
            specs = specs_from(options["metrics"], settings_options(options))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        loop = loop_of(specs)
        if loop != "stream":
            _check_corpus_wide(specs[0].name, loop, options)
        # The input options check themselves: built here, so that a
        # problem is said to come from the config file when it may.
        reading = _reading(options)
    except UsageError as exc:
        if config is None:
            raise
        raise UsageError(f"{exc.message} (settings read from {config.origin})") from None
    return RunOptions(
        specs=specs,
        reading=reading,
        jobs=_jobs(options["jobs"]),
        progress=options["progress"],
        short=options["short"],
        test=_test(options),
        warn_tokenized=not options["quiet"]
        and not options["force"]
        and "bleu" in options["metrics"],
        allow_empty=options["allow_empty"],
        self_bleu_column=options["self_bleu_column"],
        nist_docs=options["nist_docs"],
        confidence=options["confidence"],
        sacrebleu_log=options["compat"] == "sacrebleu" and not options["quiet"],
        format=options["format"],
        width=options["width"],
        score_only=options["score_only"],
        every=options["every"],
        allow_unpaired=options["allow_unpaired"],
    )


def _reading(options: dict[str, Any]) -> ReadOptions:
    """The options that say what to read and how."""
    return ReadOptions(
        refs=tuple(options["refs"]),
        inputs=tuple(options["input"]),
        encoding=options["encoding"],
        encoding_errors=options["encoding_errors"],
        skip_bad_lines=options["skip_bad_lines"],
        input_format=options["input_format"],
        fairseq_hyp=options["fairseq_hyp"],
        keyed_refs=options["keyed_refs"],
        systems=options["systems"],
        num_refs=options["num_refs"],
        keep_lines=options.get("keep_lines"),
        sentence_level=options["sentence_level"],
        compat=options["compat"] == "sacrebleu",
        scoring_overrides=_scoring_overrides(options),
        counting_given=_counting_given(options),
    )


def _check_corpus_wide(name: str, loop: str, options: dict[str, Any]) -> None:
    """What a metric scored at the end from tables of the whole input
    (its ``loop``: ``corpus`` or ``set``) cannot do (yet)."""
    stats = options["format"] == "stats" or options["input_format"] == "stats"
    refused = {
        # The corpus-wide loop's records carry its tables (corpus records
        # only); a set's table is the whole set's, and it has none.
        "-f stats": options["format"] == "stats" and loop != "corpus",
        "--input-format stats": options["input_format"] == "stats" and loop != "corpus",
        "-sl with statistics records": stats and bool(options["sentence_level"]),
        "--every": bool(options["every"]),
        "-ci, --paired-bs and --paired-ar": bool(
            options["confidence"] or options["paired_bs"] or options["paired_ar"]
        ),
    }
    for what, given in refused.items():
        if given:
            raise UsageError(
                f"-m {name} is scored at the end, from tables of the whole input: not with {what}"
            )


# BLEU's options that Texygen's Self-BLEU (NLTK's sentence_bleu, method1) has
# no use for: given with it, they are refused, not ignored.
_NOT_TEXYGEN = {
    "lowercase": "-lc",
    "smooth_method": "-s",
    "smooth_value": "-sv",
    "effective_order": "--effective-order",
}


# Where a setting came from when it is SacreBLEU's default in its mode.
COMPAT_DEFAULT = "--compat sacrebleu"


def _self_bleu_options(options: dict[str, Any]) -> None:
    """``--self-bleu CONV`` (or ``-m self-bleu``): Self-BLEU alone, of one set
    of sentences each, with its convention's defaults."""
    origins = options["origins"]
    given = options["self_bleu"] is not None
    if given and origins.get("metrics") != FROM_DEFAULT and options["metrics"] != ["self-bleu"]:
        raise UsageError("--self-bleu scores Self-BLEU alone: not with -m")
    if given:
        options["metrics"] = ["self-bleu"]
    if options["metrics"] != ["self-bleu"]:
        for dest, flag in (
            ("self_bleu_sample", "--sample"),
            ("self_bleu_column", "--self-bleu-column"),
        ):
            if options[dest]:
                raise UsageError(f"{flag} is for --self-bleu")
        return
    if options["refs"] or options.get("test_set"):
        raise UsageError(
            "Self-BLEU scores a set of sentences against each other: give them with "
            "-i FILE or on stdin, and no references"
        )
    if (options["self_bleu"] or self_bleu.DEFAULT_CONVENTION) == "texygen":
        for dest, flag in _NOT_TEXYGEN.items():
            if origins.get(dest) == COMPAT_DEFAULT:
                # SacreBLEU's default for BLEU's -sl, not the user's: not Texygen's.
                options[dest], origins[dest] = DEFAULTS[dest], FROM_DEFAULT
            elif origins.get(dest) != FROM_DEFAULT:
                raise UsageError(
                    f"{flag} is not Texygen's Self-BLEU (NLTK's sentence_bleu with method1); "
                    "use --self-bleu sacrebleu"
                )
        if origins.get("tokenize") == FROM_DEFAULT:
            options["tokenize"] = "none"  # white space, as the Texygen papers split
        if origins.get("width") == FROM_DEFAULT:
            options["width"] = 4  # scores from 0 to 1


def _drop_repeated_baseline(options: dict[str, Any]) -> None:
    """A paired test's system file that is the baseline again is passed
    over, as SacreBLEU passes it over (any other repeat is refused)."""
    paired = options["paired_bs"] or options["paired_ar"]
    if paired and options["input"]:
        baseline = options["input"][0]
        again = options["input"][1:].count(baseline)
        options["input"] = [baseline, *(n for n in options["input"][1:] if n != baseline)]
        options["baseline_again"] = again


def _sacrebleu_refusals(options: dict[str, Any]) -> None:
    """What SacreBLEU refuses, refused in its layouts (``--compat sacrebleu``)
    with its words and status, in its order; bleustream's own layouts do
    these.  Stdin's systems are counted when it is read (``bleustream.run``)."""
    systems = max(len(options["input"]), options["systems"])
    stdin_systems = options["input"] == ["-"] and bool(options["refs"])
    paired = options["paired_bs"] or options["paired_ar"]
    if options["sentence_level"]:
        if len(set(options["metrics"])) > 1:
            raise SacrebleuRefusal("Only one metric can be used in sentence-level mode.")
        if systems > 1:
            raise SacrebleuRefusal("Only one system can be evaluated in sentence-level mode.")
        if options["confidence"] or paired:
            raise SacrebleuRefusal("Statistical tests are unavailable in sentence-level mode.")
    if paired and systems == 1 and not stdin_systems:
        raise SacrebleuRefusal(PAIRED_NEEDS_SYSTEMS)
    if systems > 1 and options["confidence"]:
        raise SacrebleuRefusal(CI_NEEDS_PAIRED)


_TEST_OPTIONS = {"ci": "-ci/--confidence", "bs": "--paired-bs", "ar": "--paired-ar"}


def _jobs(requested: int) -> int:
    """``-j N``: 0 is every core this process may run on."""
    if requested:
        return requested
    from bleustream.parallel.pool import available_cores  # multiprocessing only when needed

    return available_cores()


def _test(options: dict[str, Any]) -> Resampling | None:
    """The resampling test the options ask for, checked against the systems."""
    if options["paired_bs"] and options["paired_ar"]:
        raise UsageError("--paired-bs and --paired-ar exclude each other: choose one")
    test: Resampling | None = None
    if options["paired_bs"] or options["paired_ar"] or options["confidence"]:
        # Imported here: a run without a test never loads the resampling code.
        from bleustream.extras import require_numpy
        from bleustream.significance.draws import parse_seed
        from bleustream.significance.resampling import Resampling

        seed = parse_seed(options["seed"])
        if options["paired_bs"]:
            test = Resampling("bs", options["paired_bs_n"], seed)
        elif options["paired_ar"]:
            confidence = options["confidence_n"] if options["confidence"] else -1
            test = Resampling("ar", options["paired_ar_n"], seed, confidence)
        else:
            test = Resampling("ci", options["confidence_n"], seed)
        require_numpy(_TEST_OPTIONS[test.kind])  # before anything is read
    seen: set[str] = set()
    for name in options["input"]:
        if name in seen:
            raise UsageError(f"system {name} is given twice: each -i FILE names one system")
        seen.add(name)
    if options["format"] == "latex" and (options["sentence_level"] or options["every"]):
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


def _counting_given(options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Counting settings given (not defaults), by metric and by the name a
    stats record gives them (``chrf_char_order`` is chrF's ``char_order``):
    statistics read back must have been counted with them.  ``-tok`` is
    declared with BLEU's options and is NIST's tokenizer too."""
    given: dict[str, dict[str, Any]] = {}
    origins = options["origins"]
    for metric, option in all_options():
        field = option.settings_field.removeprefix(f"{metric.NAME}_")
        score_only = field in metric.SCORE_ONLY or field in metric.SCORE_ONLY_ONE_REF
        if option.config and not score_only and origins.get(option.dest) != FROM_DEFAULT:
            given.setdefault(metric.NAME, {})[field] = options[option.dest]
    if origins.get("tokenize", FROM_DEFAULT) != FROM_DEFAULT:
        given.setdefault("nist", {})["tokenize"] = options["tokenize"]
    return given


def settings_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options the metrics' settings of this run are made from.

    Over statistics read back (``--input-format stats``), a value given on
    the command line without the option it yields to (``-sv`` without
    ``-s``) is for the method the records carry: the records' settings
    take it (see ``_scoring_overrides``), the run's own settings do not.
    """
    if options["input_format"] != "stats":
        return options
    origins = options["origins"]
    out = dict(options)
    for option in config_options():
        if (
            option.yields_to is not None
            and origins.get(option.dest) == FROM_COMMAND_LINE
            and origins.get(option.yields_to) == FROM_DEFAULT
        ):
            out[option.dest] = option.default
    return out


def apply_precedence(options: dict[str, Any]) -> None:
    """The rules about where a value came from, which the options state as data.

    A config file's value of an option that ``yields_to`` another gives way
    when that other is given on the command line (a file's smooth-value
    does not stop ``-s exp``); an option left at its default that has a
    ``default_from`` takes it from the option it names (``-l en-zh``
    chooses ``-tok zh``).  ``--show-config`` then shows what is in force.
    """
    origins = options["origins"]
    for option in config_options():
        dest = option.dest
        if (
            option.yields_to is not None
            and options[dest] is not None
            and origins.get(dest) != FROM_COMMAND_LINE
            and origins.get(option.yields_to) == FROM_COMMAND_LINE
        ):
            options[dest] = option.default
            origins[dest] = FROM_COMMAND_LINE
        if option.default_from is not None and origins.get(dest) == FROM_DEFAULT:
            source, derive = option.default_from
            if options.get(source) is not None:
                value = derive(options[source])
                if value != options[dest]:
                    options[dest] = value
                    origins[dest] = FROM_COMMAND_LINE


def _apply_compat(options: dict[str, Any]) -> None:
    """--compat sacrebleu (or BLEUSTREAM_COMPAT): SacreBLEU's defaults.

    JSON for the format (``$SACREBLEU_FORMAT`` over ``-f``, as there), and
    BLEU's effective order for sentence scores.  In either mode ``-f json``
    with ``-sl`` writes text lines, as SacreBLEU does.
    """
    origins = options["origins"]
    env = os.environ.get("BLEUSTREAM_COMPAT")
    if origins.get("compat") == FROM_DEFAULT and env:
        if env not in ("bleustream", "sacrebleu"):
            raise UsageError(f"BLEUSTREAM_COMPAT: {env!r} is not one of bleustream, sacrebleu")
        options["compat"], origins["compat"] = env, "environment BLEUSTREAM_COMPAT"
    if options["compat"] == "sacrebleu":
        if origins.get("format") == FROM_DEFAULT:
            options["format"], origins["format"] = "json", COMPAT_DEFAULT
        wanted = os.environ.get("SACREBLEU_FORMAT", "").lower()
        if wanted in ("json", "text", "latex"):
            options["format"], origins["format"] = wanted, "environment SACREBLEU_FORMAT"
        if options["sentence_level"] and origins.get("effective_order") == FROM_DEFAULT:
            options["effective_order"] = True
            origins["effective_order"] = COMPAT_DEFAULT
    latex = options["format"] == "latex"
    if options["compat"] == "sacrebleu" and latex and options["sentence_level"]:
        options["format"] = "text"  # SacreBLEU's -sl lines whatever the format
    if options["format"] == "json":
        if options["sentence_level"]:
            options["format"] = "text"
        elif options["every"]:
            raise UsageError("-f json is one document at the end: use -f jsonl with --every")


def _seed_from_environment(options: dict[str, Any]) -> None:
    """SacreBLEU's seed, ``$SACREBLEU_SEED``, where --seed is not given."""
    text = os.environ.get("SACREBLEU_SEED")
    if text is None or options["origins"].get("seed") != FROM_DEFAULT:
        return
    try:
        options["seed"] = seed_setting(text)
    except ValueError as exc:
        raise UsageError(f"SACREBLEU_SEED: {exc}") from None
    options["origins"]["seed"] = "environment SACREBLEU_SEED"


def warnings_of(options: dict[str, Any]) -> list[str]:
    """SacreBLEU's warnings about the settings, before anything is read, in
    its order (and in its mode, that a paired test's baseline given again
    is passed over)."""
    out = []
    if options.get("test_set") and options["tokenize"] == "none" and "bleu" in options["metrics"]:
        out.append(
            "You are turning off BLEU's internal tokenizer presumably to supply your own "
            "tokenized files."
        )
        out.append("Published numbers will not be comparable to other papers.")
    if options["compat"] == "sacrebleu":
        baseline = options["input"][0] if options["input"] else ""
        ignored = f"Ignoring {baseline!r} as it was also given as the baseline."
        out += [ignored] * options.get("baseline_again", 0)
    given = options["origins"].get("tokenize") not in (FROM_DEFAULT, None)
    pair = options.get("language_pair")
    if "bleu" in options["metrics"] and given and pair and "-" in pair:
        advice = tokenizer_advice(pair.split("-", 1)[1], options["tokenize"])
        if advice is not None:
            out.append(advice)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    The ``bleustream`` command comes in by ``bleustream.cli.entry``, which
    installs the signal handlers before it loads this module; they are
    installed again here for a caller that comes in here."""
    install_handlers()

    def report(message: str) -> None:
        to_stderr(f"{PROG}: {message}\n")

    # A standard stream closed by the caller is None.
    stdin: BinaryIO | None = getattr(sys.stdin, "buffer", None)
    stdout: BinaryIO | None = getattr(sys.stdout, "buffer", None)
    try:
        parser = build_parser()
        argv = expand_abbreviations(sys.argv[1:] if argv is None else argv, option_dests())
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version or a usage error
            if sys.stdout is not None:
                sys.stdout.flush()
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        config = load_config(args, os.getcwd(), parser)
        options = resolve(args, config)
        if options["analyze"]:  # --every rewrites the report, not records
            options["report_every"], options["every"] = options["every"], 0
        _seed_from_environment(options)
        _apply_compat(options)
        if config is not None and args.config is None and not options["quiet"]:
            report(f"settings read from {config.origin}")
        if options["detail"]:
            from bleustream.cli import detail

            options["detail"] = detail.check(options)
        if testsets.wanted(options):
            testsets.say_what_sacrebleu_says(options["quiet"])
            testsets.check(options)
            text = testsets.action(options)
            if text is not None:
                if stdout is None:
                    raise WriteError("standard output is closed")
                Output(stdout).write(text)
                return EXIT_OK
            options["refs"] = testsets.reference_files(options)
            options["keep_lines"] = testsets.kept_lines(options)
        run_options = check_options(options, config)
        if not options["quiet"]:
            for warning in warnings_of(options):
                report(warning)
        if stdout is None:
            raise WriteError("standard output is closed")
        if args.show_config:
            Output(stdout).write(show_config(options, parser))
            return EXIT_OK
        if options["analyze"]:
            from bleustream.cli import analyze

            return analyze.run(run_options, options, stdin, stdout, report)
        if not options["detail"]:
            return run(run_options, stdin, stdout, report, sys.stderr)
        if not options.get("test_set") and not run_options.reading.compat:
            status = run(run_options, stdin, stdout, report, sys.stderr)
            if status == EXIT_OK:
                report("--detail (-d): no test set (-t), so no parts to score")
            return status
        again = detail.replayable(stdin, options)
        status = run(run_options, again(), stdout, report, sys.stderr)
        if status == EXIT_OK:
            Output(stdout).write(detail.detail_text(run_options, options, again, report))
        return status
    except (BleustreamError, OSError) as exc:
        return failure_status(exc, report)
    except Interrupted as exc:
        # Before the run began reading (or a second signal while it wrote its
        # partial score): nothing more is written to standard output.
        return say_interrupted(exc)
