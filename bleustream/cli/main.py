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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

from bleustream._version import __version__
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
    test_set_wanted,
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
from bleustream.metrics import self_bleu_options
from bleustream.metrics.registry import CORPUS_DECLARED, all_options, loop_of, specs_from
from bleustream.metrics.self_bleu_options import DEFAULT_CONVENTION as SELF_BLEU_DEFAULT
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
    """The value of each option in force: the command line, else ``config``,
    else the built-in default.  Below, such a dict is named ``values``: the
    option table is ``cli.options``, a run's typed options ``RunOptions``.

    ``values["origins"]`` says where each setting came from: "command line",
    the config file, or "default".
    """
    given = {key: getattr(args, key, None) for key in DEFAULTS}
    values, origins = merge(DEFAULTS, given, config)
    values["refs"] = args.refs
    values["input"] = args.input
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
        values[key] = getattr(args, key)
    values["detail"] = args.detail
    values["origins"] = origins
    return values


def show_config(values: dict[str, Any], parser: argparse.ArgumentParser) -> str:
    """The settings in force as TOML, for --show-config."""
    header = (
        f"{PROG} {__version__} (kernels: {KERNELS}): the settings in force "
        "(command line over config file over built-in defaults).\n"
        "Saved as bleustream.toml, this file gives the same settings."
    )
    return render(values, values["origins"], build_schema(config_options()), header)


def check_options(values: dict[str, Any], config: Config | None) -> RunOptions:
    """Check what no single option can, and type the options for the run.

    Done before anything is read or shown; a problem that may involve the
    config file says which file it was.
    """
    try:
        apply_precedence(values)
        _self_bleu_options(values)
        _drop_repeated_baseline(values)
        if values["compat"] == "sacrebleu":
            _sacrebleu_refusals(values)
        try:
            specs = specs_from(values["metrics"], settings_options(values))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        loop = loop_of(specs)
        if loop != "stream":
            _check_corpus_wide(specs[0].name, loop, values)
        # The input options check themselves: built here, so that a
        # problem is said to come from the config file when it may.
        reading = _reading(values)
    except UsageError as exc:
        if config is None:
            raise
        raise UsageError(f"{exc.message} (settings read from {config.origin})") from None
    return RunOptions(
        specs=specs,
        reading=reading,
        jobs=_jobs(values["jobs"]),
        progress=values["progress"],
        short=values["short"],
        test=_test(values),
        warn_tokenized=not values["quiet"] and not values["force"] and "bleu" in values["metrics"],
        allow_empty=values["allow_empty"],
        self_bleu_column=values["self_bleu_column"],
        nist_docs=values["nist_docs"],
        confidence=values["confidence"],
        sacrebleu_log=values["compat"] == "sacrebleu" and not values["quiet"],
        format=values["format"],
        width=values["width"],
        score_only=values["score_only"],
        every=values["every"],
        allow_unpaired=values["allow_unpaired"],
    )


def _reading(values: dict[str, Any]) -> ReadOptions:
    """The options that say what to read and how."""
    return ReadOptions(
        refs=tuple(values["refs"]),
        inputs=tuple(values["input"]),
        encoding=values["encoding"],
        encoding_errors=values["encoding_errors"],
        skip_bad_lines=values["skip_bad_lines"],
        input_format=values["input_format"],
        fairseq_hyp=values["fairseq_hyp"],
        keyed_refs=values["keyed_refs"],
        systems=values["systems"],
        num_refs=values["num_refs"],
        keep_lines=values.get("keep_lines"),
        sentence_level=values["sentence_level"],
        compat=values["compat"] == "sacrebleu",
        scoring_overrides=_scoring_overrides(values),
        counting_given=_counting_given(values),
        src=values.get("src"),
    )


def _check_corpus_wide(name: str, loop: str, values: dict[str, Any]) -> None:
    """What a metric scored at the end from tables of the whole input
    (its ``loop``: ``corpus`` or ``set``) cannot do (yet)."""
    stats = values["format"] == "stats" or values["input_format"] == "stats"
    refused = {
        # The corpus-wide loop's records carry its tables (corpus records
        # only); a set's table is the whole set's, and it has none.
        "-f stats": values["format"] == "stats" and loop != "corpus",
        "--input-format stats": values["input_format"] == "stats" and loop != "corpus",
        "-sl with statistics records": stats and bool(values["sentence_level"]),
        "--every": bool(values["every"]),
        "-ci, --paired-bs and --paired-ar": bool(
            values["confidence"] or values["paired_bs"] or values["paired_ar"]
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


def _scores_sets(metrics: Sequence[str]) -> bool:
    """Whether the run scores one metric whose declared loop is of sets of
    sentences, each scored against itself (``LOOP = "set"``: Self-BLEU)."""
    if len(metrics) != 1 or metrics[0] not in CORPUS_DECLARED:
        return False
    return getattr(CORPUS_DECLARED[metrics[0]], "LOOP", "stream") == "set"


def _self_bleu_options(values: dict[str, Any]) -> None:
    """``--self-bleu CONV`` (or ``-m self-bleu``): Self-BLEU alone, of one set
    of sentences each, with its convention's defaults."""
    origins = values["origins"]
    given = values["self_bleu"] is not None
    if given and origins.get("metrics") != FROM_DEFAULT and not _scores_sets(values["metrics"]):
        raise UsageError("--self-bleu scores Self-BLEU alone: not with -m")
    if given:
        values["metrics"] = [self_bleu_options.NAME]
    if not _scores_sets(values["metrics"]):
        for dest, flag in (
            ("self_bleu_sample", "--sample"),
            ("self_bleu_column", "--self-bleu-column"),
        ):
            if values[dest]:
                raise UsageError(f"{flag} is for --self-bleu")
        return
    if values["refs"] or values.get("test_set"):
        raise UsageError(
            "Self-BLEU scores a set of sentences against each other: give them with "
            "-i FILE or on stdin, and no references"
        )
    if (values["self_bleu"] or SELF_BLEU_DEFAULT) == "texygen":
        for dest, flag in _NOT_TEXYGEN.items():
            if origins.get(dest) == COMPAT_DEFAULT:
                # SacreBLEU's default for BLEU's -sl, not the user's: not Texygen's.
                values[dest], origins[dest] = DEFAULTS[dest], FROM_DEFAULT
            elif origins.get(dest) != FROM_DEFAULT:
                raise UsageError(
                    f"{flag} is not Texygen's Self-BLEU (NLTK's sentence_bleu with method1); "
                    "use --self-bleu sacrebleu"
                )
        if origins.get("tokenize") == FROM_DEFAULT:
            values["tokenize"] = "none"  # white space, as the Texygen papers split
        if origins.get("width") == FROM_DEFAULT:
            values["width"] = 4  # scores from 0 to 1


def _drop_repeated_baseline(values: dict[str, Any]) -> None:
    """A paired test's system file that is the baseline again is passed
    over, as SacreBLEU passes it over (any other repeat is refused)."""
    paired = values["paired_bs"] or values["paired_ar"]
    if paired and values["input"]:
        baseline = values["input"][0]
        again = values["input"][1:].count(baseline)
        values["input"] = [baseline, *(n for n in values["input"][1:] if n != baseline)]
        values["baseline_again"] = again


def _sacrebleu_refusals(values: dict[str, Any]) -> None:
    """What SacreBLEU refuses, refused in its layouts (``--compat sacrebleu``)
    with its words and status, in its order; bleustream's own layouts do
    these.  Stdin's systems are counted when it is read (``bleustream.run``)."""
    systems = max(len(values["input"]), values["systems"])
    stdin_systems = values["input"] == ["-"] and bool(values["refs"])
    paired = values["paired_bs"] or values["paired_ar"]
    if values["sentence_level"]:
        if len(set(values["metrics"])) > 1:
            raise SacrebleuRefusal("Only one metric can be used in sentence-level mode.")
        if systems > 1:
            raise SacrebleuRefusal("Only one system can be evaluated in sentence-level mode.")
        if values["confidence"] or paired:
            raise SacrebleuRefusal("Statistical tests are unavailable in sentence-level mode.")
    if paired and systems == 1 and not stdin_systems:
        raise SacrebleuRefusal(PAIRED_NEEDS_SYSTEMS)
    if systems > 1 and values["confidence"]:
        raise SacrebleuRefusal(CI_NEEDS_PAIRED)


_TEST_OPTIONS = {"ci": "-ci/--confidence", "bs": "--paired-bs", "ar": "--paired-ar"}


def _jobs(requested: int) -> int:
    """``-j N``: 0 is every core this process may run on."""
    if requested:
        return requested
    from bleustream.parallel.pool import available_cores  # multiprocessing only when needed

    return available_cores()


def _test(values: dict[str, Any]) -> Resampling | None:
    """The resampling test the options ask for, checked against the systems."""
    if values["paired_bs"] and values["paired_ar"]:
        raise UsageError("--paired-bs and --paired-ar exclude each other: choose one")
    test: Resampling | None = None
    if values["paired_bs"] or values["paired_ar"] or values["confidence"]:
        # Imported here: a run without a test never loads the resampling code.
        from bleustream.extras import require_numpy
        from bleustream.significance.draws import parse_seed
        from bleustream.significance.resampling import Resampling

        seed = parse_seed(values["seed"])
        if values["paired_bs"]:
            test = Resampling("bs", values["paired_bs_n"], seed)
        elif values["paired_ar"]:
            confidence = values["confidence_n"] if values["confidence"] else -1
            test = Resampling("ar", values["paired_ar_n"], seed, confidence)
        else:
            test = Resampling("ci", values["confidence_n"], seed)
        require_numpy(_TEST_OPTIONS[test.kind])  # before anything is read
    seen: set[str] = set()
    for name in values["input"]:
        if name in seen:
            raise UsageError(f"system {name} is given twice: each -i FILE names one system")
        seen.add(name)
    if values["format"] == "latex" and (values["sentence_level"] or values["every"]):
        raise UsageError("-f latex writes the corpus table only: not with -sl or --every")
    return test


def _scoring_overrides(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Score-only settings given (not defaults), by metric: merged statistics take them."""
    overrides: dict[str, dict[str, Any]] = {}
    for metric, option in all_options():
        field = option.settings_field
        score_only = field in metric.SCORE_ONLY or field in metric.SCORE_ONLY_ONE_REF
        if score_only and values["origins"].get(option.dest) != FROM_DEFAULT:
            overrides.setdefault(metric.NAME, {})[field] = values[option.dest]
    return overrides


def _counting_given(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Counting settings given (not defaults), by metric and by the name a
    stats record gives them (``chrf_char_order`` is chrF's ``char_order``):
    statistics read back must have been counted with them.  ``-tok`` is
    declared with BLEU's options and is NIST's tokenizer too."""
    given: dict[str, dict[str, Any]] = {}
    origins = values["origins"]
    for metric, option in all_options():
        field = option.settings_field.removeprefix(f"{metric.NAME}_")
        score_only = field in metric.SCORE_ONLY or field in metric.SCORE_ONLY_ONE_REF
        if option.config and not score_only and origins.get(option.dest) != FROM_DEFAULT:
            given.setdefault(metric.NAME, {})[field] = values[option.dest]
    if origins.get("tokenize", FROM_DEFAULT) != FROM_DEFAULT:
        given.setdefault("nist", {})["tokenize"] = values["tokenize"]
    return given


def settings_options(values: dict[str, Any]) -> dict[str, Any]:
    """The options the metrics' settings of this run are made from.

    Over statistics read back (``--input-format stats``), a value given on
    the command line without the option it yields to (``-sv`` without
    ``-s``) is for the method the records carry: the records' settings
    take it (see ``_scoring_overrides``), the run's own settings do not.
    """
    if values["input_format"] != "stats":
        return values
    origins = values["origins"]
    out = dict(values)
    for option in config_options():
        if (
            option.yields_to is not None
            and origins.get(option.dest) == FROM_COMMAND_LINE
            and origins.get(option.yields_to) == FROM_DEFAULT
        ):
            out[option.dest] = option.default
    return out


def apply_precedence(values: dict[str, Any]) -> None:
    """The rules about where a value came from, which the options state as data.

    A config file's value of an option that ``yields_to`` another gives way
    when that other is given on the command line (a file's smooth-value
    does not stop ``-s exp``); an option left at its default that has a
    ``default_from`` takes it from the option it names (``-l en-zh``
    chooses ``-tok zh``).  ``--show-config`` then shows what is in force.
    """
    origins = values["origins"]
    for option in config_options():
        dest = option.dest
        if (
            option.yields_to is not None
            and values[dest] is not None
            and origins.get(dest) != FROM_COMMAND_LINE
            and origins.get(option.yields_to) == FROM_COMMAND_LINE
        ):
            values[dest] = option.default
            origins[dest] = FROM_COMMAND_LINE
        if option.default_from is not None and origins.get(dest) == FROM_DEFAULT:
            source, derive = option.default_from
            if values.get(source) is not None:
                value = derive(values[source])
                if value != values[dest]:
                    values[dest] = value
                    origins[dest] = FROM_COMMAND_LINE


def _apply_compat(values: dict[str, Any]) -> None:
    """--compat sacrebleu (or BLEUSTREAM_COMPAT): SacreBLEU's defaults.

    JSON for the format (``$SACREBLEU_FORMAT`` over ``-f``, as there), and
    BLEU's effective order for sentence scores.  In either mode ``-f json``
    with ``-sl`` writes text lines, as SacreBLEU does.
    """
    origins = values["origins"]
    env = os.environ.get("BLEUSTREAM_COMPAT")
    if origins.get("compat") == FROM_DEFAULT and env:
        if env not in ("bleustream", "sacrebleu"):
            raise UsageError(f"BLEUSTREAM_COMPAT: {env!r} is not one of bleustream, sacrebleu")
        values["compat"], origins["compat"] = env, "environment BLEUSTREAM_COMPAT"
    if values["compat"] == "sacrebleu":
        if origins.get("format") == FROM_DEFAULT:
            values["format"], origins["format"] = "json", COMPAT_DEFAULT
        wanted = os.environ.get("SACREBLEU_FORMAT", "").lower()
        if wanted in ("json", "text", "latex"):
            values["format"], origins["format"] = wanted, "environment SACREBLEU_FORMAT"
        if values["sentence_level"] and origins.get("effective_order") == FROM_DEFAULT:
            values["effective_order"] = True
            origins["effective_order"] = COMPAT_DEFAULT
    latex = values["format"] == "latex"
    if values["compat"] == "sacrebleu" and latex and values["sentence_level"]:
        values["format"] = "text"  # SacreBLEU's -sl lines whatever the format
    if values["format"] == "json":
        if values["sentence_level"]:
            values["format"] = "text"
        elif values["every"]:
            raise UsageError("-f json is one document at the end: use -f jsonl with --every")


def _seed_from_environment(values: dict[str, Any]) -> None:
    """SacreBLEU's seed, ``$SACREBLEU_SEED``, where --seed is not given."""
    text = os.environ.get("SACREBLEU_SEED")
    if text is None or values["origins"].get("seed") != FROM_DEFAULT:
        return
    try:
        values["seed"] = seed_setting(text)
    except ValueError as exc:
        raise UsageError(f"SACREBLEU_SEED: {exc}") from None
    values["origins"]["seed"] = "environment SACREBLEU_SEED"


def warnings_of(values: dict[str, Any]) -> list[str]:
    """SacreBLEU's warnings about the settings, before anything is read, in
    its order (and in its mode, that a paired test's baseline given again
    is passed over)."""
    out = []
    if values.get("test_set") and values["tokenize"] == "none" and "bleu" in values["metrics"]:
        out.append(
            "You are turning off BLEU's internal tokenizer presumably to supply your own "
            "tokenized files."
        )
        out.append("Published numbers will not be comparable to other papers.")
    if values["compat"] == "sacrebleu":
        baseline = values["input"][0] if values["input"] else ""
        ignored = f"Ignoring {baseline!r} as it was also given as the baseline."
        out += [ignored] * values.get("baseline_again", 0)
    given = values["origins"].get("tokenize") not in (FROM_DEFAULT, None)
    pair = values.get("language_pair")
    if "bleu" in values["metrics"] and given and pair and "-" in pair:
        advice = tokenizer_advice(pair.split("-", 1)[1], values["tokenize"])
        if advice is not None:
            out.append(advice)
    return out


def _say_if_waiting(
    reading: ReadOptions, stdin: BinaryIO | None, report: Callable[[str], None]
) -> None:
    """One line when the input is read from a terminal: a run that waits there
    in silence looks hung (``REF SYS1 SYS2`` reads three references)."""
    stats = reading.input_format == "stats"
    paths = (reading.refs or reading.inputs) if stats else reading.inputs
    if stdin is None or "-" not in paths or not stdin.isatty():
        return
    what = "statistics records" if stats else "hypotheses"
    report(
        f"reading {what} from the terminal (standard input) until Ctrl-D; "
        "give files with -i FILE..."
    )


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
        values = resolve(args, config)
        if values["analyze"]:  # --every rewrites the report, not records
            values["report_every"], values["every"] = values["every"], 0
        _seed_from_environment(values)
        _apply_compat(values)
        if config is not None and args.config is None and not values["quiet"]:
            report(f"settings read from {config.origin}")
        if values["detail"]:
            from bleustream.cli import detail

            values["detail"] = detail.check(values)
        if test_set_wanted(values):
            from bleustream.cli import testsets

            testsets.say_what_sacrebleu_says(values["quiet"])
            testsets.check(values)
            text = testsets.action(values)
            if text is not None:
                if stdout is None:
                    raise WriteError("standard output is closed")
                Output(stdout).write(text)
                return EXIT_OK
            values["refs"] = testsets.reference_files(values)
            values["keep_lines"] = testsets.kept_lines(values)
        run_options = check_options(values, config)
        if not values["quiet"]:
            for warning in warnings_of(values):
                report(warning)
        if stdout is None:
            raise WriteError("standard output is closed")
        if args.show_config:
            Output(stdout).write(show_config(values, parser))
            return EXIT_OK
        if not values["quiet"]:
            _say_if_waiting(run_options.reading, stdin, report)
        if values["analyze"]:
            from bleustream.cli.analyze import settings_of

            run_options = run_options._replace(
                analysis=settings_of(values),
                page=values["report"],
                page_every=values["report_every"],
            )
            return run(run_options, stdin, stdout, report)
        no_parts = (
            values["detail"] and not values.get("test_set") and not run_options.reading.compat
        )
        if values["detail"] and not no_parts:
            run_options = run_options._replace(parts=detail.parts(values))
        status = run(run_options, stdin, stdout, report, sys.stderr)
        if no_parts and status == EXIT_OK:
            report("--detail (-d): no test set (-t), so no parts to score")
        return status
    except (BleustreamError, OSError) as exc:
        return failure_status(exc, report)
    except Interrupted as exc:
        # Before the run began reading (or a second signal while it wrote its
        # partial score): nothing more is written to standard output.
        return say_interrupted(exc)
