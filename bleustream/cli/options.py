"""Every option of the command line, declared once.

``TABLE`` lists the command's own options in groups, and the metrics'
options (``OptionSpec`` data in each metric module) take their place among
them.  From this one table come the argparse parser
(``bleustream.cli.parser.build_parser``),
the config file's keys (``bleustream.cli.config.build_schema``), the
built-in defaults (``DEFAULTS``) and ``--show-config``; a test checks the
manual's OPTIONS section against it both ways.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bleustream.analysis.edges import (
    FREQUENCY_EDGES,
    LENGTH_DIFF_EDGES,
    LENGTH_EDGES,
    SENTENCE_BLEU_EDGES,
    parse_edges,
)
from bleustream.errors import PROG  # noqa: F401 (the command's name, for the parser)
from bleustream.frozen import Frozen
from bleustream.inputs.formats import FAIRSEQ_HYPS, INPUT_FORMATS
from bleustream.metrics.protocol import OptionSpec
from bleustream.metrics.registry import (
    CORPUS_DECLARED,
    DEFAULT_METRICS,
    STREAM_DECLARED,
    declarations,
)
from bleustream.output.records import FORMATS

# Bounds that keep absurd values from failing deep inside (a width past
# what float formatting takes; past any machine's cores, each worker being
# a process of its own).
MAX_WIDTH = 30
MAX_JOBS = 1024
MAX_SAMPLES = 10_000_000


def edges_setting(text: str) -> str:
    """Bucket edges: increasing numbers joined by ``:`` (checked, kept as text)."""
    parse_edges(text)
    return text


def _edges_option(name: str, edges: tuple[float, ...], what: str, shown: str) -> OptionSpec:
    """``--NAME-edges``: the bucket edges of ``what``, compare-mt's by default
    (``shown``, as help writes them)."""
    return OptionSpec(
        (f"--{name}-edges",),
        f"{name.replace('-', '_')}_edges",
        ":".join(str(x) for x in edges),
        reader=edges_setting,
        metavar="E1:E2:...",
        help=f"bucket edges of {what} (default: compare-mt's {shown})",
    )


def orders_setting(text: str) -> str:
    """N-gram orders ``LOW:HIGH`` (or one order), 1 <= LOW <= HIGH <= 9."""
    parts = text.split(":")
    try:
        low, high = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (0, 0)
    except ValueError:
        raise ValueError(f"not LOW:HIGH: {text!r}") from None
    if not 1 <= low <= high <= 9:
        raise ValueError(f"orders must be LOW:HIGH with 1 <= LOW <= HIGH <= 9: {text!r}")
    return f"{low}:{high}"


def seed_setting(text: str) -> str:
    """A seed: a whole number, or ``none`` (any case) for fresh entropy."""
    if text.strip().lower() == "none":
        return "none"
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"not a whole number or 'none': {text!r}") from None
    if not 0 <= value < 2**63:
        raise ValueError(f"must be from 0 to 2**63-1, or 'none': {text!r}")
    return str(value)


class Group(Frozen):
    """A group of options in ``--help`` (``metrics`` marks where the
    metrics' own groups go); ``exclusive``: the dests of which at most one
    may be given."""

    title: str | None
    options: tuple[OptionSpec, ...]
    description: str | None = None
    exclusive: tuple[str, ...] = ()


_SAMPLES = {"kind": "int", "minimum": 1, "maximum": MAX_SAMPLES, "metavar": "N"}

TABLE: tuple[Group, ...] = (
    Group(
        None,
        (
            OptionSpec(
                ("-i", "--input"),
                "input",
                ["-"],
                metavar="FILE",
                multiple=True,
                config=False,
                help="read hypotheses (or paste lines) from FILE instead of stdin; with REF "
                "files, several FILEs are several systems scored against the same references "
                "(the first is the baseline)",
            ),
            OptionSpec(
                ("-m", "--metrics"),
                "metrics",
                list(DEFAULT_METRICS),
                kind="choice",
                choices=(*STREAM_DECLARED, *CORPUS_DECLARED),
                metavar="NAME",
                multiple=True,
                help="metrics to compute, printed in the order given: "
                + ", ".join((*STREAM_DECLARED, *CORPUS_DECLARED))
                + " (default: "
                + " ".join(DEFAULT_METRICS)
                + "; nist on its own: it is scored at the end; self-bleu on its own, with no "
                "references, as --self-bleu; several systems under --compat sacrebleu: "
                "SacreBLEU's order)",
            ),
        ),
    ),
    Group("metrics", ()),
    Group(
        "output",
        (
            OptionSpec(
                ("-f", "--format"),
                "format",
                "text",
                kind="choice",
                choices=FORMATS,
                help="text (SacreBLEU's line per metric), tsv (a header, then one row per "
                "record), jsonl (JSON Lines, one object per metric per record), json "
                "(SacreBLEU's JSON document, at the end), stats or latex; default: text "
                "(json with --compat sacrebleu)",
            ),
            OptionSpec(
                ("-w", "--width"),
                "width",
                1,
                kind="int",
                minimum=0,
                maximum=MAX_WIDTH,
                metavar="N",
                help="digits after the decimal point in text scores: the score and the scores "
                "a line adds (BLEU-1..N, NIST's cumulative, a bootstrap interval); default: 1",
            ),
            OptionSpec(
                ("-b", "--score-only"),
                "score_only",
                False,
                kind="bool",
                help="print the scores alone, one number per metric per record",
            ),
            OptionSpec(
                ("-sl", "--sentence-level"),
                "sentence_level",
                False,
                kind="bool",
                help="a record with each segment's sentence scores, as each line is read",
            ),
            OptionSpec(
                ("--every",),
                "every",
                0,
                kind="int",
                minimum=0,
                metavar="N",
                help="a record with the corpus score so far after every N segments (0: never)",
            ),
            OptionSpec(
                ("--progress",),
                "progress",
                False,
                kind="bool",
                help="show progress on stderr: segments, rate, running score, and percent done "
                "and time left for a regular file (redrawn on a terminal, a line every few "
                "seconds otherwise)",
            ),
            OptionSpec(
                ("-j", "--jobs", "--paired-jobs"),
                "jobs",
                1,
                kind="int",
                minimum=0,
                maximum=MAX_JOBS,
                metavar="N",
                help="count segments in N worker processes (0: one per core; default: 1); "
                "the output is the same as with one (--paired-jobs is SacreBLEU's name)",
            ),
            OptionSpec(
                ("-sh", "--short"),
                "short",
                False,
                kind="bool",
                help="SacreBLEU's short signatures (#:1|c:mixed|...|v:...)",
            ),
            OptionSpec(
                ("-q", "--quiet"),
                "quiet",
                False,
                kind="bool",
                help="no warnings or notes on stderr (SacreBLEU's warnings and information "
                "lines, the config file found); errors still are",
            ),
            OptionSpec(
                ("-nc", "--no-color"),
                "no_color",
                False,
                kind="flag",
                config=False,
                help="no colours: accepted for SacreBLEU's sake; bleustream never colours",
            ),
            OptionSpec(
                ("--force",),
                "force",
                False,
                kind="bool",
                help="no warning that the hypotheses look tokenized (100 or more end in ' .')",
            ),
            OptionSpec(
                ("--allow-empty",),
                "allow_empty",
                False,
                kind="bool",
                help="an input with no segments scores 0 and exits 0, instead of status 65",
            ),
            OptionSpec(
                ("--compat",),
                "compat",
                "bleustream",
                kind="choice",
                choices=("bleustream", "sacrebleu"),
                help="sacrebleu: SacreBLEU's defaults, layouts, refusals (status 1) and stderr "
                "lines (JSON for one system, its tables, -sl lines); also "
                "BLEUSTREAM_COMPAT=sacrebleu (default: bleustream)",
            ),
        ),
    ),
    Group(
        "SacreBLEU's test sets (need the sacrebleu package: pip install 'bleustream[testsets]')",
        (
            OptionSpec(
                ("-t", "--test-set"),
                "test_set",
                None,
                metavar="NAME",
                config=False,
                help="references from SacreBLEU's test set NAME (comma-separated: several in "
                "turn), from its cache ($SACREBLEU, else ~/.sacrebleu); needs -l",
            ),
            OptionSpec(
                ("--echo",),
                "echo",
                None,
                metavar="FIELD",
                multiple=True,
                config=False,
                help="print the test set's fields (src, ref, docid, ...; all) tab-separated "
                "and exit",
            ),
            OptionSpec(
                ("--list",),
                "list",
                False,
                kind="flag",
                config=False,
                help="list the test sets (with -t: its pairs and fields) and exit; offline, "
                "from SacreBLEU's registry",
            ),
            OptionSpec(
                ("--citation", "--cite"),
                "citation",
                False,
                kind="flag",
                config=False,
                help="print the BibTeX of the -t test sets and exit",
            ),
            OptionSpec(
                ("-ol", "--origlang"),
                "origlang",
                None,
                metavar="LANG",
                config=False,
                help="only the documents of original language LANG (non-LANG: the others)",
            ),
            OptionSpec(
                ("--subset",),
                "subset",
                None,
                metavar="REGEX",
                config=False,
                help="only the documents whose domain annotation matches REGEX",
            ),
            OptionSpec(
                ("--download",),
                "download",
                None,
                metavar="NAME",
                config=False,
                help="download test set NAME (all pairs, or -l's) into the cache and exit",
            ),
            OptionSpec(
                ("-d", "--detail"),
                "detail",
                False,
                kind="flag",
                config=False,
                help="after the scores, each original language's and domain's of the -t test "
                "set, as SacreBLEU's -d (one system; without -t, no parts: it says so)",
            ),
        ),
    ),
    Group(
        "confidence intervals and paired significance tests (SacreBLEU's; need numpy: "
        "pip install 'bleustream[significance]')",
        (
            OptionSpec(
                ("-ci", "--confidence"),
                "confidence",
                False,
                kind="bool",
                help="a bootstrap mean and 95%% confidence interval for each system and metric",
            ),
            OptionSpec(
                ("-cin", "--confidence-n"),
                "confidence_n",
                1000,
                help="bootstrap resamples for -ci (default: 1000)",
                **_SAMPLES,  # type: ignore[arg-type]
            ),
            OptionSpec(
                ("-pbs", "--paired-bs"),
                "paired_bs",
                False,
                kind="bool",
                help="paired bootstrap resampling test of each system against the first "
                "(the baseline); not with --paired-ar",
            ),
            OptionSpec(
                ("-pbsn", "--paired-bs-n"),
                "paired_bs_n",
                1000,
                help="resamples for --paired-bs (default: 1000)",
                **_SAMPLES,  # type: ignore[arg-type]
            ),
            OptionSpec(
                ("-par", "--paired-ar"),
                "paired_ar",
                False,
                kind="bool",
                help="paired approximate randomization test of each system against the first; "
                "with -ci it also gives bootstrap intervals; not with --paired-bs",
            ),
            OptionSpec(
                ("-parn", "--paired-ar-n"),
                "paired_ar_n",
                10000,
                help="trials for --paired-ar (default: 10000)",
                **_SAMPLES,  # type: ignore[arg-type]
            ),
            OptionSpec(
                ("--seed",),
                "seed",
                "12345",
                reader=seed_setting,
                metavar="N",
                help="the random seed of resampling, or 'none' for fresh entropy (default: "
                "SacreBLEU's 12345)",
            ),
        ),
    ),
    Group(
        "analyses (compare-mt's, streamed, with an interval on every bucket; need numpy, "
        "and matplotlib for --report: pip install 'bleustream[significance,report]')",
        (
            OptionSpec(
                ("--analyze",),
                "analyze",
                False,
                kind="bool",
                help="analyze where the systems differ (the first is the baseline): scores, "
                "sentence buckets, word accuracy by frequency, n-gram differences, examples",
            ),
            OptionSpec(
                ("--analyze-n",),
                "analyze_n",
                1000,
                kind="int",
                minimum=0,
                maximum=MAX_SAMPLES,
                metavar="N",
                help="bootstrap resamples for every interval and paired test of --analyze "
                "(0: none, and nothing kept per segment; default: 1000)",
            ),
            _edges_option("length", LENGTH_EDGES, "reference length in words", "10:20:30:40:50:60"),
            _edges_option(
                "length-diff",
                LENGTH_DIFF_EDGES,
                "the baseline's length minus the reference's",
                "-20:-10:-5:-4:-3:-2:-1:0:1:2:3:4:5:6:11:21",
            ),
            _edges_option(
                "sentence-bleu",
                SENTENCE_BLEU_EDGES,
                "the baseline's sentence BLEU",
                "10.0:20.0:...:90.0",
            ),
            _edges_option("frequency", FREQUENCY_EDGES, "word frequency", "1:2:3:4:5:10:100:1000"),
            OptionSpec(
                ("--freq-corpus",),
                "freq_corpus",
                None,
                metavar="FILE",
                help="count word frequencies in FILE (a training corpus, one segment a line, "
                "tokenized as BLEU tokenizes) instead of in the references",
            ),
            OptionSpec(
                ("--freq-counts",),
                "freq_counts",
                None,
                metavar="FILE",
                help="read word frequencies from FILE ('word<TAB>count' lines) instead of "
                "counting them in the references",
            ),
            OptionSpec(
                ("--ngram-orders",),
                "ngram_orders",
                "1:4",
                reader=orders_setting,
                metavar="LOW:HIGH",
                help="the orders of the n-gram differences (default: 1:4)",
            ),
            OptionSpec(
                ("--ngrams",),
                "ngrams",
                50,
                kind="int",
                minimum=0,
                maximum=100000,
                metavar="N",
                help="n-grams listed each way per compared system (default: 50)",
            ),
            OptionSpec(
                ("--examples",),
                "examples",
                10,
                kind="int",
                minimum=0,
                maximum=100000,
                metavar="K",
                help="segments listed each way per compared system, where sentence BLEU "
                "differs most (default: 10)",
            ),
            OptionSpec(
                ("--src",),
                "src",
                None,
                metavar="FILE",
                config=False,
                help="the source segments, one a line: read by -m comet in lockstep with the "
                "input, and shown with --analyze's examples",
            ),
            OptionSpec(
                ("--report",),
                "report",
                None,
                metavar="FILE.html",
                config=False,
                help="write the analysis as one HTML page that opens from disk with no "
                "network (with --every N, rewritten every N segments)",
            ),
        ),
        exclusive=("freq_corpus", "freq_counts"),
    ),
    Group(
        "input",
        (
            OptionSpec(
                ("-e", "--encoding"),
                "encoding",
                "utf-8",
                metavar="NAME",
                help="encoding of all inputs, ASCII-compatible (default: utf-8)",
            ),
            OptionSpec(
                ("--encoding-errors",),
                "encoding_errors",
                "strict",
                kind="choice",
                choices=("strict", "replace"),
                help="strict: a line that does not decode is an error (default); "
                "replace: decode it with U+FFFD for the bad bytes",
            ),
            OptionSpec(
                ("--skip-bad-lines",),
                "skip_bad_lines",
                False,
                kind="bool",
                help="skip and count bad lines instead of stopping at the first",
            ),
            OptionSpec(
                ("--input-format",),
                "input_format",
                "paste",
                kind="choice",
                choices=(*INPUT_FORMATS, "stats"),
                help="paste: hyp<TAB>ref lines, or hypotheses read in lockstep with REF files "
                "(default); fairseq: fairseq-generate or fairseq-interactive output; nbest: "
                "Moses/Marian n-best lists; keyed: id<TAB>text lines. Log formats pair "
                "hypotheses with references by id, in any order (ids index REF files from 0). "
                "stats: records written by -f stats, from the operands (shards, added up in "
                "turn) or stdin",
            ),
            OptionSpec(
                ("-nr", "--num-refs"),
                "num_refs",
                1,
                kind="int",
                minimum=1,
                maximum=10_000,
                metavar="N",
                help="the one REF file holds N tab-separated references per line, as with "
                "SacreBLEU's -nr (default: 1)",
            ),
            OptionSpec(
                ("--systems",),
                "systems",
                1,
                kind="int",
                minimum=1,
                maximum=10_000,
                metavar="N",
                help="paste input: the first N fields of each line are hypotheses of N systems, "
                "the rest references (default: 1)",
            ),
            OptionSpec(
                ("--fairseq-hyp",),
                "fairseq_hyp",
                "D",
                kind="choice",
                choices=FAIRSEQ_HYPS,
                help="fairseq hypotheses from D- (detokenized, default) or H- lines",
            ),
            OptionSpec(
                ("--keyed-refs",),
                "keyed_refs",
                None,
                metavar="FILE",
                help="with --input-format keyed: references as id<TAB>ref[<TAB>ref...] lines "
                "of FILE, paired by id",
            ),
            OptionSpec(
                ("--allow-unpaired",),
                "allow_unpaired",
                False,
                kind="bool",
                help="log formats: exit 0 even if ids lack their other half, repeat, or lie "
                "beyond the REF files (they are still reported)",
            ),
        ),
    ),
    Group(
        "configuration",
        (
            OptionSpec(
                ("--config",),
                "config",
                None,
                metavar="FILE",
                config=False,
                help="read settings from the TOML file FILE (which must exist)",
            ),
            OptionSpec(
                ("--no-config",),
                "no_config",
                False,
                kind="flag",
                config=False,
                help="read no config file: neither bleustream.toml nor pyproject.toml",
            ),
            OptionSpec(
                ("--show-config",),
                "show_config",
                False,
                kind="flag",
                config=False,
                help="print the settings in force as TOML, with where each came from, and exit",
            ),
        ),
        description="settings come from the command line, else from a TOML file, else from the\n"
        "built-in defaults; the file is --config FILE, else bleustream.toml in the\n"
        "working directory, else the [tool.bleustream] table of its pyproject.toml.\n"
        'Its keys are the long option names: smooth-method = "floor"',
        exclusive=("config", "no_config"),
    ),
)


def test_set_wanted(values: dict[str, Any]) -> bool:
    """Whether a test-set option is given (the run then loads ``cli.testsets``)."""
    return bool(
        values.get("test_set")
        or values.get("echo")
        or values.get("list")
        or values.get("citation")
        or values.get("download")
    )


def groups() -> Iterator[Group]:
    """The groups of ``--help`` in order, the metrics' own in their place."""
    for group in TABLE:
        if group.title == "metrics":
            for declared in declarations():
                yield Group(f"{declared.TITLE} settings", tuple(declared.OPTIONS))
        else:
            yield group


def all_options() -> Iterator[OptionSpec]:
    """Every option of the command line, in ``--help`` order."""
    for group in groups():
        yield from group.options


def option_dests() -> dict[str, str]:
    """Every option string of the command line, and the setting it sets."""
    dests = {"-h": "help", "--help": "help", "-V": "version", "--version": "version"}
    for option in all_options():
        for flag in option.flags:
            dests[flag] = option.dest
            if option.kind == "bool" and flag.startswith("--"):
                dests["--no-" + flag[2:]] = option.dest
    return dests


def config_options() -> list[OptionSpec]:
    """The options that are also config keys."""
    return [option for option in all_options() if option.config]


# The built-in default of every setting, by dest.
DEFAULTS: dict[str, Any] = {option.dest: option.default for option in config_options()}
