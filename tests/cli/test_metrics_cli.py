"""chrF, chrF++ and TER beside BLEU, through the real command, against SacreBLEU's.

``bleustream -m bleu chrf ter`` with SacreBLEU's metric options must print
what SacreBLEU's own command line prints for the same files: the same corpus
scores whatever form the input takes (aligned files, paste lines, gzip,
``-nr``, the log formats), the same text lines and signatures (apart from the
version), per-segment records equal to SacreBLEU's ``sentence_score`` and
running records equal to the corpus score of the lines so far.

SacreBLEU's command line is the slow part, so each of its outputs is
computed once per module (several at a time) and shared by the tests.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric

from bleustream._version import __version__
from tests.conftest import RealSystem, read_refs, read_segments, real_sets, require_real_data
from tests.helpers.adversarial import NOT_IN_A_FIELD, Adversary
from tests.helpers.clirun import assert_clean_stderr, json_records, run
from tests.helpers.paths import TEST_DATA

T = TypeVar("T")

SACREBLEU = [sys.executable, "-m", "sacrebleu"]
OUR_VERSION = f"version:bleustream-{__version__}"


def clean(text: str) -> str:
    """A segment every input form carries unchanged.

    Every reader strips trailing white space and the n-best reader leading
    white space too, so the segment is stripped here; ``|||`` would split
    an n-best line.
    """
    text = NOT_IN_A_FIELD.sub(" ", text).strip()
    while "|||" in text:
        text = text.replace("|||", "| |")
    return text


def make_corpus(seed: int, size: int) -> tuple[list[str], list[list[str]]]:
    """An adversarial corpus with two references per segment.

    The second reference is never empty: with ``-nr 2`` an empty last field
    would vanish with the line's trailing tab (for SacreBLEU as well).
    """
    hyps, refs = Adversary(seed).corpus(size, 2)
    first = [clean(r) for r in refs[0]]
    second = [clean(r) or "nothing" for r in refs[1]]
    return [clean(h) for h in hyps], [first, second]


HYPS, REFS = make_corpus(seed=2024, size=40)
N = len(HYPS)


def run_concurrently(jobs: Sequence[Callable[[], T]]) -> list[T]:
    """Run independent jobs (each starting a subprocess) a few at a time."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(lambda job: job(), jobs))


def sacrebleu_cli(*args: str | Path, cwd: Path | None = None) -> str:
    """SacreBLEU's command line: its standard output (its log goes to stderr)."""
    proc = subprocess.run([*SACREBLEU, *map(str, args)], capture_output=True, cwd=cwd, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode("utf-8")


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def text_lines(stdout: str) -> list[str]:
    """SacreBLEU's text lines without its alignment padding, bleustream's version."""
    return [line.lstrip(" ").replace("version:2.6.0", OUR_VERSION) for line in stdout.splitlines()]


# --------------------------------------------------------------------------
# The settings tried, as command line flags and as SacreBLEU's arguments
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """Metric options on the command line, and the same for SacreBLEU's classes."""

    id: str
    flags: tuple[str, ...]
    labels: tuple[str, str, str]  # BLEU, chrF and TER as SacreBLEU names them
    bleu: Mapping[str, Any] = field(default_factory=dict)
    chrf: Mapping[str, Any] = field(default_factory=dict)
    ter: Mapping[str, Any] = field(default_factory=dict)

    def metrics(self, sentence: bool = False) -> dict[str, Metric]:
        """SacreBLEU's metric objects by label (sentence BLEU turns on effective order)."""
        bleu = dict(self.bleu, effective_order=True) if sentence else dict(self.bleu)
        made: list[Metric] = [BLEU(**bleu), CHRF(**self.chrf), TER(**self.ter)]
        return dict(zip(self.labels, made))


DEFAULTS = Variant("defaults", (), ("BLEU", "chrF2", "TER"))
PLUS_PLUS = Variant(
    "chrf++-ter-normalized-cased",
    ("-cw", "2", "--ter-normalized", "--ter-case-sensitive"),
    ("BLEU", "chrF2++", "TER"),
    chrf={"word_order": 2},
    ter={"normalized": True, "case_sensitive": True},
)
EVERY_OPTION = Variant(
    "every-option",
    (
        *("-tok", "intl", "-lc", "-cc", "4", "-cw", "1", "--chrf-beta", "1"),
        *("--chrf-whitespace", "--chrf-lowercase", "--chrf-eps-smoothing"),
        *("--ter-no-punct", "--ter-asian-support", "--ter-normalized"),
    ),
    ("BLEU", "chrF1+", "TER"),
    bleu={"tokenize": "intl", "lowercase": True},
    chrf={
        "char_order": 4,
        "word_order": 1,
        "beta": 1,
        "whitespace": True,
        "lowercase": True,
        "eps_smoothing": True,
    },
    ter={"no_punct": True, "asian_support": True, "normalized": True},
)
WORDS_ONLY = Variant(
    "words-only-asian-no-punct",
    (
        *("-s", "floor", "-cc", "0", "-cw", "2", "--chrf-beta", "3"),
        *("--ter-asian-support", "--ter-no-punct", "--ter-case-sensitive"),
    ),
    ("BLEU", "chrF3++", "TER"),
    bleu={"smooth_method": "floor"},
    chrf={"char_order": 0, "word_order": 2, "beta": 3},
    ter={"asian_support": True, "no_punct": True, "case_sensitive": True},
)
VARIANTS = [DEFAULTS, PLUS_PLUS, EVERY_OPTION, WORDS_ONLY]
ALL_METRICS = ("-m", "bleu", "chrf", "ter")

# The config file's keys for EVERY_OPTION: one key per option.
EVERY_OPTION_TOML = """\
tokenize = "intl"
lowercase = true
chrf-char-order = 4
chrf-word-order = 1
chrf-beta = 1
chrf-whitespace = true
chrf-lowercase = true
chrf-eps-smoothing = true
ter-case-sensitive = false
ter-no-punct = true
ter-asian-support = true
ter-normalized = true
metrics = ["bleu", "chrf", "ter"]
"""


def variant_params(variants: Sequence[Variant]) -> list[Any]:
    return [pytest.param(v, id=v.id) for v in variants]


# --------------------------------------------------------------------------
# Files and SacreBLEU's outputs, once per module
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Files:
    """The corpus on disk, in every form the command line reads."""

    root: Path
    refs: tuple[Path, Path]
    hyp: Path
    refs_gz: tuple[Path, Path]
    hyp_gz: Path
    paste: Path
    refs_nr: Path  # both references on one line, tab-separated


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    root = tmp_path_factory.mktemp("metrics_cli")
    refs = (write_lines(root / "ref.0", REFS[0]), write_lines(root / "ref.1", REFS[1]))
    hyp = write_lines(root / "hyp", HYPS)
    gz = []
    for path in (*refs, hyp):
        target = root / f"{path.name}.gz"
        target.write_bytes(gzip.compress(path.read_bytes()))
        gz.append(target)
    paste = write_lines(root / "paste", ["\t".join(t) for t in zip(HYPS, *REFS)])
    refs_nr = write_lines(root / "refs.nr", ["\t".join(t) for t in zip(*REFS)])
    return Files(root, refs, hyp, (gz[0], gz[1]), gz[2], paste, refs_nr)


# SacreBLEU runs for the config-file test: the options the file sets.
CONFIG_FLAGS = ("-m", "chrf", "ter", "-cw", "2", "--ter-normalized")


@dataclass(frozen=True)
class SacreOutputs:
    """SacreBLEU's outputs for the corpus, per variant."""

    text6: Mapping[str, list[str]]  # -f text -w 6 lines (bleustream's version)
    json6: Mapping[str, list[dict[str, Any]]]  # -f jsonl -w 6 objects
    text1_defaults: list[str]  # -f text, default width, default options
    config: list[str]  # -f text -w 6 with CONFIG_FLAGS


@pytest.fixture(scope="module")
def sacre(files: Files) -> SacreOutputs:
    base = (*files.refs, "-i", files.hyp)
    jobs: list[Callable[[], str]] = []
    for v in VARIANTS:
        for fmt in ("text", "json"):
            args = (*base, *ALL_METRICS, *v.flags, "-f", fmt, "-w", "6")
            jobs.append(lambda args=args: sacrebleu_cli(*args))
    jobs.append(lambda: sacrebleu_cli(*base, *ALL_METRICS, "-f", "text"))
    jobs.append(lambda: sacrebleu_cli(*base, *CONFIG_FLAGS, "-f", "text", "-w", "6"))
    out = run_concurrently(jobs)
    text6 = {v.id: text_lines(out[2 * i]) for i, v in enumerate(VARIANTS)}
    json6 = {v.id: json.loads(out[2 * i + 1]) for i, v in enumerate(VARIANTS)}
    return SacreOutputs(text6, json6, text_lines(out[-2]), text_lines(out[-1]))


def ok(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b"", proc.stderr.decode()
    return proc.stdout.decode("utf-8")


def corpus_objects(stdout: str) -> list[dict[str, Any]]:
    return [r for r in json_records(stdout.encode()) if r["type"] == "corpus"]


def summed_statistics(metric: Metric, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> list:
    """SacreBLEU's corpus statistics: its per-segment rows added in order."""
    rows = metric._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
    total = [0] * len(rows[0])
    for row in rows:
        total = [a + b for a, b in zip(total, row)]
    return total


def assert_raw_statistics(obj: dict[str, Any], metric: Metric, stats: Sequence[Any]) -> None:
    """A JSON object's raw statistics are SacreBLEU's, in its per-segment layout."""
    if isinstance(metric, BLEU):
        order = metric.max_ngram_order
        assert [obj["hyp_len"], obj["ref_len"]] == list(stats[:2])
        assert obj["counts"] == list(stats[2 : 2 + order])
        assert obj["totals"] == list(stats[2 + order :])
    elif isinstance(metric, CHRF):
        chars, words = list(stats[: 3 * metric.char_order]), list(stats[3 * metric.char_order :])
        assert obj["char_hyp"] == chars[0::3]
        assert obj["char_ref"] == chars[1::3]
        assert obj["char_match"] == chars[2::3]
        if metric.word_order:
            assert obj["word_hyp"] == words[0::3]
            assert obj["word_ref"] == words[1::3]
            assert obj["word_match"] == words[2::3]
    else:
        assert obj["num_edits"] == stats[0]
        assert obj["ref_length"] == stats[1]


# --------------------------------------------------------------------------
# Corpus scores: text lines, signatures, JSON objects
# --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", variant_params(VARIANTS))
def test_text_lines_equal_sacrebleus(files: Files, sacre: SacreOutputs, variant: Variant) -> None:
    proc = run(*files.refs, "-i", files.hyp, *ALL_METRICS, *variant.flags, "-w", "6")
    assert ok(proc).splitlines() == sacre.text6[variant.id]


def test_text_lines_at_the_default_width(files: Files, sacre: SacreOutputs) -> None:
    proc = run(*files.refs, "-i", files.hyp, *ALL_METRICS)
    assert ok(proc).splitlines() == sacre.text1_defaults


# The keys of a corpus object, in order, by metric (chrF's word lists only
# with word n-grams).
BLEU_KEYS = [
    *("type", "metric", "score", "precisions", "bp", "ratio", "counts", "totals"),
    *("hyp_len", "ref_len", "segments", "name", "signature"),
    *("nrefs", "case", "eff", "tok", "smooth", "version", "partial", "skipped"),
]
CHRF_KEYS = [
    *("type", "metric", "score", "char_hyp", "char_ref", "char_match"),
    *("segments", "name", "signature"),
    *("nrefs", "case", "eff", "nc", "nw", "space", "version", "partial", "skipped"),
]
CHRF_PLUS_KEYS = [
    *CHRF_KEYS[:6],
    *("word_hyp", "word_ref", "word_match"),
    *CHRF_KEYS[6:],
]
TER_KEYS = [
    *("type", "metric", "score", "num_edits", "ref_length", "segments", "name", "signature"),
    *("nrefs", "case", "tok", "norm", "punct", "asian", "version", "partial", "skipped"),
]


@pytest.mark.parametrize("variant", variant_params(VARIANTS))
def test_json_objects_and_signatures(files: Files, sacre: SacreOutputs, variant: Variant) -> None:
    """Names, signatures (apart from the version), scores and raw statistics."""
    proc = run(*files.refs, "-i", files.hyp, *ALL_METRICS, *variant.flags, "-f", "jsonl")
    objects = corpus_objects(ok(proc))
    theirs = sacre.json6[variant.id]
    assert [o["metric"] for o in objects] == [t["name"] for t in theirs] == list(variant.labels)
    word_order = variant.chrf.get("word_order", 0)
    expected_keys = [BLEU_KEYS, CHRF_PLUS_KEYS if word_order else CHRF_KEYS, TER_KEYS]
    for obj, their, keys, metric in zip(objects, theirs, expected_keys, variant.metrics().values()):
        assert list(obj) == keys
        assert obj["type"] == "corpus"
        assert obj["name"] == obj["metric"]
        assert obj["segments"] == N
        assert f"{obj['score']:.6f}" == f"{their['score']:.6f}"
        assert obj["signature"].replace(OUR_VERSION, "version:2.6.0") == their["signature"]
        fields = {k: v for k, v in their.items() if k not in ("name", "score", "signature")}
        fields.pop("verbose_score", None)
        fields["version"] = OUR_VERSION.split(":")[1]
        assert {k: obj[k] for k in fields} == fields
        assert_raw_statistics(obj, metric, summed_statistics(metric, HYPS, REFS))
        assert obj["score"] == metric.corpus_score(HYPS, REFS).score


# --------------------------------------------------------------------------
# Every input form gives the same corpus record
# --------------------------------------------------------------------------

NUMERIC_KEYS = (
    *("score", "precisions", "bp", "ratio", "counts", "totals", "hyp_len", "ref_len"),
    *("char_hyp", "char_ref", "char_match", "word_hyp", "word_ref", "word_match"),
    *("num_edits", "ref_length", "segments", "signature", "metric"),
)


def fairseq_log(hyps: Sequence[str], order: Sequence[int], seed: int) -> str:
    """fairseq-generate output (S, H, D, P lines per sample) with log noise."""
    rng = random.Random(seed)
    lines = ["2024-05-01 10:00:00 | INFO | fairseq_cli.generate | loading model(s)"]
    for i in order:
        score = -rng.random()
        lines += [
            f"S-{i}\tsource {i}",
            f"H-{i}\t{score!r}\ttokenized {i}",
            f"D-{i}\t{score!r}\t{hyps[i]}",
            f"P-{i}\t-0.1000 -0.2000",
        ]
    lines.append("2024-05-01 10:00:09 | INFO | fairseq_cli.generate | Translated 40 sentences")
    return "".join(f"{line}\n" for line in lines)


def nbest_list(hyps: Sequence[str], order: Sequence[int], seed: int) -> str:
    """Moses n-best lines, two entries per id: the first is the hypothesis."""
    rng = random.Random(seed)
    lines = []
    for i in order:
        lines.append(f"{i} ||| {hyps[i]}  ||| LM0= {-rng.random():.4f} ||| {-rng.random():.5f}")
        lines.append(f"{i} ||| second best {i}  ||| LM0= -9.0 ||| -9.5")
    return "".join(f"{line}\n" for line in lines)


def input_forms(files: Files) -> dict[str, tuple[tuple[str | Path, ...], bytes | None]]:
    """Each input form: its arguments and standard input."""
    order = list(range(N))
    random.Random(7).shuffle(order)
    hyp_bytes = files.hyp.read_bytes()
    keyed = "".join(f"{i}\t{HYPS[i]}\n" for i in order).encode()
    return {
        "lockstep-stdin": (files.refs, hyp_bytes),
        "lockstep-i": ((*files.refs, "-i", files.hyp), None),
        "paste-stdin": ((), files.paste.read_bytes()),
        "paste-i": (("-i", files.paste), None),
        "gzip": ((*files.refs_gz, "-i", files.hyp_gz), None),
        "num-refs": ((files.refs_nr, "-nr", "2", "-i", files.hyp), None),
        "fairseq": (
            (*files.refs, "--input-format", "fairseq"),
            fairseq_log(HYPS, order, 1).encode(),
        ),
        "nbest": ((*files.refs, "--input-format", "nbest"), nbest_list(HYPS, order, 2).encode()),
        "keyed": ((*files.refs, "--input-format", "keyed"), keyed),
    }


@pytest.mark.parametrize("variant", variant_params([DEFAULTS, EVERY_OPTION]))
def test_every_input_form_gives_the_same_corpus_scores(
    files: Files, sacre: SacreOutputs, variant: Variant
) -> None:
    forms = input_forms(files)
    jobs = [
        lambda args=args, data=data: run(
            *args, *ALL_METRICS, *variant.flags, "-f", "jsonl", input=data
        )
        for args, data in forms.values()
    ]
    outputs = dict(zip(forms, run_concurrently(jobs)))
    reference = corpus_objects(ok(outputs["lockstep-i"]))
    assert [o["segments"] for o in reference] == [N, N, N]
    theirs = sacre.json6[variant.id]
    assert [f"{o['score']:.6f}" for o in reference] == [f"{t['score']:.6f}" for t in theirs]
    for name, proc in outputs.items():
        objects = corpus_objects(ok(proc))
        assert len(objects) == 3, name
        for obj, ref in zip(objects, reference):
            for key in NUMERIC_KEYS:
                assert obj.get(key) == ref.get(key), (name, obj["metric"], key)
        if name in ("fairseq", "nbest", "keyed"):
            assert [o["unpaired"] for o in objects] == [0, 0, 0], name


# --------------------------------------------------------------------------
# Segment and running records
# --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", variant_params(VARIANTS))
def test_segment_records_equal_sentence_score(files: Files, variant: Variant) -> None:
    proc = run(*files.refs, "-i", files.hyp, *ALL_METRICS, *variant.flags, "-sl", "-f", "jsonl")
    records = json_records(ok(proc).encode())
    segments = [r for r in records if r["type"] == "segment"]
    assert len(segments) == 3 * N
    metrics = variant.metrics(sentence=True)
    for i, hyp in enumerate(HYPS):
        refs = [stream[i] for stream in REFS]
        for k, (label, metric) in enumerate(metrics.items()):
            record = segments[3 * i + k]
            assert (record["line"], record["metric"]) == (i + 1, label)
            expected = metric.sentence_score(hyp, refs).score
            assert abs(record["score"] - expected) <= 1e-9, (i + 1, label)
            if not isinstance(metric, BLEU):
                stats = metric._extract_corpus_statistics([hyp], [[r] for r in refs])[0]
                assert_raw_statistics(record, metric, stats)
    assert [r["type"] for r in records[3 * N :]] == ["corpus"] * 3


@pytest.mark.parametrize("variant", variant_params([DEFAULTS, EVERY_OPTION, WORDS_ONLY]))
def test_running_records_equal_the_corpus_score_so_far(files: Files, variant: Variant) -> None:
    proc = run(
        *files.refs, "-i", files.hyp, *ALL_METRICS, *variant.flags, "--every", "7", "-f", "jsonl"
    )
    running = [r for r in json_records(ok(proc).encode()) if r["type"] == "running"]
    assert [r["line"] for r in running] == [n for n in (7, 14, 21, 28, 35) for _ in range(3)]
    metrics = list(variant.metrics().items())
    for k, record in enumerate(running):
        label, metric = metrics[k % 3]
        n = record["segments"]
        assert record["metric"] == label
        expected = metric.corpus_score(HYPS[:n], [stream[:n] for stream in REFS])
        assert record["score"] == expected.score, (n, label)
        if not isinstance(metric, BLEU):
            assert_raw_statistics(
                record, metric, summed_statistics(metric, HYPS[:n], [s[:n] for s in REFS])
            )


# --------------------------------------------------------------------------
# Formats: text, TSV, JSON Lines and -b carry the same records
# --------------------------------------------------------------------------

BLEU_COLUMNS = [
    *("bleu", "p1", "p2", "p3", "p4", "bp", "ratio", "hyp_len", "ref_len"),
    *("m1", "m2", "m3", "m4", "t1", "t2", "t3", "t4"),
]
CHRF_COLUMNS = [
    "chrf",
    *("chrf_c1_hyp", "chrf_c1_ref", "chrf_c1_match", "chrf_c2_hyp", "chrf_c2_ref"),
    *("chrf_c2_match", "chrf_c3_hyp", "chrf_c3_ref", "chrf_c3_match", "chrf_c4_hyp"),
    *("chrf_c4_ref", "chrf_c4_match", "chrf_c5_hyp", "chrf_c5_ref", "chrf_c5_match"),
    *("chrf_c6_hyp", "chrf_c6_ref", "chrf_c6_match"),
]
TER_COLUMNS = ["ter", "ter_edits", "ter_ref_len"]
HEAD = ["kind", "line", "id"]
TAIL = ["segments", "skipped", "unpaired", "partial"]

TSV_HEADERS = {
    "defaults": [*HEAD, *BLEU_COLUMNS, *CHRF_COLUMNS, *TER_COLUMNS, *TAIL],
    "chrf++-ter-normalized-cased": [
        *HEAD,
        *BLEU_COLUMNS,
        *CHRF_COLUMNS,
        *("chrf_w1_hyp", "chrf_w1_ref", "chrf_w1_match"),
        *("chrf_w2_hyp", "chrf_w2_ref", "chrf_w2_match"),
        *TER_COLUMNS,
        *TAIL,
    ],
    "every-option": [
        *HEAD,
        *BLEU_COLUMNS,
        *("chrf", "chrf_c1_hyp", "chrf_c1_ref", "chrf_c1_match"),
        *("chrf_c2_hyp", "chrf_c2_ref", "chrf_c2_match", "chrf_c3_hyp", "chrf_c3_ref"),
        *("chrf_c3_match", "chrf_c4_hyp", "chrf_c4_ref", "chrf_c4_match"),
        *("chrf_w1_hyp", "chrf_w1_ref", "chrf_w1_match"),
        *TER_COLUMNS,
        *TAIL,
    ],
    "words-only-asian-no-punct": [
        *HEAD,
        *BLEU_COLUMNS,
        *("chrf", "chrf_w1_hyp", "chrf_w1_ref", "chrf_w1_match"),
        *("chrf_w2_hyp", "chrf_w2_ref", "chrf_w2_match"),
        *TER_COLUMNS,
        *TAIL,
    ],
}


def tsv_rows(stdout: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(stdout), delimiter="\t", quoting=csv.QUOTE_NONE)
    rows = list(reader)
    return list(reader.fieldnames or []), rows


def assert_tsv_row(row: Mapping[str, str], obj: Mapping[str, Any]) -> None:
    """A TSV row's columns of one metric hold exactly its JSON object's numbers."""
    metric = obj["metric"]
    if metric == "BLEU":
        assert float(row["bleu"]) == obj["score"]
        assert [float(row[f"p{n}"]) for n in range(1, 5)] == obj["precisions"]
        assert (float(row["bp"]), float(row["ratio"])) == (obj["bp"], obj["ratio"])
        assert (int(row["hyp_len"]), int(row["ref_len"])) == (obj["hyp_len"], obj["ref_len"])
        assert [int(row[f"m{n}"]) for n in range(1, 5)] == obj["counts"]
        assert [int(row[f"t{n}"]) for n in range(1, 5)] == obj["totals"]
    elif metric.startswith("chrF"):
        assert float(row["chrf"]) == obj["score"]
        for kind, prefix in (("char", "c"), ("word", "w")):
            for part in ("hyp", "ref", "match"):
                values = obj.get(f"{kind}_{part}", [])
                columns = [row[f"chrf_{prefix}{n}_{part}"] for n in range(1, len(values) + 1)]
                assert [int(c) for c in columns] == values
    else:
        assert float(row["ter"]) == obj["score"]
        assert int(row["ter_edits"]) == obj["num_edits"]
        assert float(row["ter_ref_len"]) == obj["ref_length"]


@pytest.mark.parametrize("variant", variant_params(VARIANTS))
def test_formats_carry_the_same_records(
    files: Files, sacre: SacreOutputs, variant: Variant
) -> None:
    args = (*files.refs, "-i", files.hyp, *ALL_METRICS, *variant.flags, "-sl", "--every", "10")
    fmts = [("-f", "jsonl"), ("-f", "tsv"), ("-f", "text", "-w", "6"), ("-b", "-w", "6")]
    jobs = [lambda fmt=fmt: run(*args, *fmt) for fmt in fmts]
    from_json, from_tsv, from_text, from_b = (ok(p) for p in run_concurrently(jobs))
    objects = json_records(from_json.encode())
    kinds = [("segment", n) for n in range(1, N + 1)]
    for n in (10, 20, 30, 40):
        kinds.insert(kinds.index(("segment", n)) + 1, ("running", n))
    kinds.append(("corpus", None))
    assert [(o["type"], o.get("line"), o["metric"]) for o in objects] == [
        (kind, line, label) for kind, line in kinds for label in variant.labels
    ]
    records = [objects[i : i + 3] for i in range(0, len(objects), 3)]

    header, rows = tsv_rows(from_tsv)
    assert header == TSV_HEADERS[variant.id]
    assert len(rows) == len(records)
    for row, record in zip(rows, records):
        assert row["kind"] == record[0]["type"]
        assert row["line"] == str(record[0].get("line", ""))
        assert (row["id"], row["skipped"], row["partial"]) == ("", "0", "0")
        assert int(row["segments"]) == record[0]["segments"]
        for obj in record:
            assert_tsv_row(row, obj)

    lines = from_text.splitlines()
    assert len(lines) == len(records) - 1 + 3  # one line per record, three for the corpus
    for line, record in zip(lines, records[:-1]):
        kind, where, *_ = line.split()
        assert (kind, int(where)) == (record[0]["type"], record[0]["line"])
        shown = re.findall(r"(BLEU|chrF\S*|TER) = +(\S+)", line)
        assert [(m, float(s)) for m, s in shown] == [
            (o["metric"], float(f"{o['score']:.6f}")) for o in record
        ]
    assert lines[-3:] == sacre.text6[variant.id]

    numbers = from_b.split()  # -sl -b: segments and running records, no corpus line
    assert numbers == [f"{o['score']:.6f}" for o in objects if o["type"] != "corpus"]


def test_metric_order_follows_the_command_line(files: Files, sacre: SacreOutputs) -> None:
    """SacreBLEU prints its metrics sorted by name; bleustream in the order of ``-m``."""
    args = (*files.refs, "-i", files.hyp, "-m", "ter", "bleu", "chrf")
    jobs = [
        lambda fmt=fmt: run(*args, *fmt)
        for fmt in [("-w", "6"), ("-f", "jsonl"), ("-f", "tsv"), ("-b", "-w", "6")]
    ]
    text, as_json, tsv, score_only = (ok(p) for p in run_concurrently(jobs))
    bleu_line, chrf_line, ter_line = sacre.text6["defaults"]
    assert text.splitlines() == [ter_line, bleu_line, chrf_line]
    objects = corpus_objects(as_json)
    assert [o["metric"] for o in objects] == ["TER", "BLEU", "chrF2"]
    header, (row,) = tsv_rows(tsv)
    assert header == [*HEAD, *TER_COLUMNS, *BLEU_COLUMNS, *CHRF_COLUMNS, *TAIL]
    for obj in objects:
        assert_tsv_row(row, obj)
    theirs = {t["name"]: t["score"] for t in sacre.json6["defaults"]}
    assert score_only.split() == [f"{theirs[name]:.6f}" for name in ("TER", "BLEU", "chrF2")]


# --------------------------------------------------------------------------
# The config file
# --------------------------------------------------------------------------

SHOW_CONFIG_LINE = re.compile(r"^(?:# )?([a-z-]+)\s*=\s*(.*?)\s*# from: (.*)$")


def shown_settings(stdout: str) -> dict[str, tuple[str, str]]:
    """``--show-config`` output: key -> (value, origin)."""
    out = {}
    for line in stdout.splitlines():
        match = SHOW_CONFIG_LINE.match(line)
        if match:
            out[match[1]] = (match[2], match[3])
    return out


NEW_OPTIONS = (
    "chrf-char-order",
    "chrf-word-order",
    "chrf-beta",
    "chrf-whitespace",
    "chrf-lowercase",
    "chrf-eps-smoothing",
    "ter-case-sensitive",
    "ter-asian-support",
    "ter-no-punct",
    "ter-normalized",
)


def test_config_file_keys(files: Files, sacre: SacreOutputs, tmp_path: Path) -> None:
    (tmp_path / "bleustream.toml").write_text(
        'chrf-word-order = 2\nter-normalized = true\nmetrics = ["chrf", "ter"]\n',
        encoding="utf-8",
    )
    args = (*files.refs, "-i", files.hyp)
    flags = CONFIG_FLAGS
    jobs = [
        # -q: without the note naming the config file found, stderr stays empty.
        lambda: run(*args, "-w", "6", "-q", cwd=tmp_path),
        lambda: run(*args, "-f", "jsonl", "-q", cwd=tmp_path),
        lambda: run(*args, *flags, "-f", "jsonl", "--no-config", cwd=tmp_path),
        lambda: run("--show-config", "-q", cwd=tmp_path),
        lambda: run("--show-config", "-q", "-cc", "4", "--no-ter-normalized", cwd=tmp_path),
        lambda: run(*args, "-f", "jsonl", "--no-config", cwd=tmp_path),
    ]
    text, from_file, from_flags, shown, overridden, ignored = run_concurrently(jobs)
    assert ok(text).splitlines() == sacre.config
    assert corpus_objects(ok(from_file)) == corpus_objects(ok(from_flags))
    chrf_obj, ter_obj = corpus_objects(ok(from_file))
    assert (chrf_obj["metric"], chrf_obj["nw"], ter_obj["norm"]) == ("chrF2++", "2", "yes")
    assert [o["metric"] for o in corpus_objects(ok(ignored))] == ["BLEU"]

    settings = shown_settings(ok(shown))
    assert settings["metrics"] == ('["chrf", "ter"]', "bleustream.toml")
    assert settings["chrf-word-order"] == ("2", "bleustream.toml")
    assert settings["ter-normalized"] == ("true", "bleustream.toml")
    defaults = {
        "chrf-char-order": "6",
        "chrf-beta": "2",
        "chrf-whitespace": "false",
        "chrf-lowercase": "false",
        "chrf-eps-smoothing": "false",
        "ter-case-sensitive": "false",
        "ter-asian-support": "false",
        "ter-no-punct": "false",
    }
    assert {k: settings[k] for k in defaults} == {k: (v, "default") for k, v in defaults.items()}
    assert set(NEW_OPTIONS) <= set(settings)
    settings = shown_settings(ok(overridden))
    assert settings["chrf-char-order"] == ("4", "command line")
    assert settings["ter-normalized"] == ("false", "command line")
    assert settings["chrf-word-order"] == ("2", "bleustream.toml")


def test_every_new_option_as_a_config_key(
    files: Files, sacre: SacreOutputs, tmp_path: Path
) -> None:
    """A file setting every option scores as the same options given as flags."""
    config = tmp_path / "every.toml"
    config.write_text(EVERY_OPTION_TOML, encoding="utf-8")
    args = (*files.refs, "-i", files.hyp, "--config", config)
    text, shown = run_concurrently(
        [lambda: run(*args, "-w", "6"), lambda: run("--config", config, "--show-config")]
    )
    assert ok(text).splitlines() == sacre.text6[EVERY_OPTION.id]
    settings = shown_settings(ok(shown))
    for key in NEW_OPTIONS:
        assert settings[key][1] == str(config), key
    assert settings["chrf-beta"][0] == "1"
    assert settings["ter-case-sensitive"][0] == "false"


# --------------------------------------------------------------------------
# Bad values
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["-cc", "-1"],
        ["--chrf-beta", "x"],
        ["-cc", "0", "-cw", "0"],
        ["-cw", "-2"],
        ["-cw", "two"],
        ["--chrf-beta", "1.5"],
        ["-cc", "7x"],
    ],
    ids=" ".join,
)
def test_bad_option_values_are_usage_errors(files: Files, argv: list[str]) -> None:
    proc = run(*files.refs, "-i", files.hyp, *ALL_METRICS, *argv)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert len(proc.stderr.decode().splitlines()) == 1
    assert_clean_stderr(proc)


# --------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------

# SacreBLEU's TER takes tens of milliseconds per segment on the real sets
# (WMT21 en-de has three references), so each set's first lines keep the
# command-line comparison within seconds.
REAL_LINES = 150


@pytest.fixture(scope="module")
def real_prefixes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[Path], Path]]:
    """Each set's first REAL_LINES lines of its references and first system, as files."""
    require_real_data()
    root = tmp_path_factory.mktemp("real_prefixes")
    out = {}
    for real_set in real_sets():
        directory = root / real_set.name
        directory.mkdir()
        refs = [
            write_lines(directory / f"ref{k}", stream[:REAL_LINES])
            for k, stream in enumerate(read_refs(real_set))
        ]
        hyp = write_lines(directory / "hyp", read_segments(real_set.hyps[0])[:REAL_LINES])
        out[real_set.name] = (refs, hyp)
    return out


@pytest.fixture(scope="module")
def real_sacrebleu(real_prefixes: dict[str, tuple[list[Path], Path]]) -> dict[str, list[str]]:
    """SacreBLEU's ``-b -w 6`` numbers for every set, computed at once."""
    trgs = {s.name: s.trg for s in real_sets()}

    def job(name: str) -> Callable[[], str]:
        refs, hyp = real_prefixes[name]
        args = (*refs, "-i", hyp, *ALL_METRICS, "-l", f"en-{trgs[name]}", "-b", "-w", "6")
        return lambda: sacrebleu_cli(*args)

    names = list(real_prefixes)
    outputs = run_concurrently([job(name) for name in names])
    return {name: [f"{x:.6f}" for x in json.loads(out)] for name, out in zip(names, outputs)}


@pytest.mark.real_systems(per_set=1)
def test_real_data_scores_equal_sacrebleus(
    real_system: RealSystem,
    real_prefixes: dict[str, tuple[list[Path], Path]],
    real_sacrebleu: dict[str, list[str]],
) -> None:
    require_real_data()
    real_set = real_system.real_set
    refs, hyp = real_prefixes[real_set.name]
    assert read_segments(hyp) == read_segments(real_system.hyp)[:REAL_LINES]
    # --force: the tokenized TED set would draw SacreBLEU's warning on stderr.
    proc = run(
        *refs, "-i", hyp, *ALL_METRICS, "-l", f"en-{real_set.trg}", "-b", "-w", "6", "--force"
    )
    assert ok(proc).split() == real_sacrebleu[real_set.name]  # both BLEU, chrF, TER


NIST_HAND = TEST_DATA / "nist" / "hand_multi"


@pytest.mark.parametrize("width", [0, 2, 4, 6])
def test_width_applies_to_nists_cumulative_scores(width: int) -> None:
    """-w N writes NIST's cumulative scores to N decimals, as its score; to
    4, they are mteval's printed numbers (its length penalty and ratio keep
    3 decimals, as BLEU's BP and ratio do)."""
    refs = sorted(NIST_HAND.glob("ref.*.txt"))
    hyp = NIST_HAND / "hyp.sysA.txt"
    mteval = json.loads((NIST_HAND / "expected.json").read_text(encoding="utf-8"))
    numbers = mteval["variants"]["default"]["systems"]["sysA"]
    text = run(*refs, "-i", hyp, "-m", "nist", "-w", str(width))
    assert text.returncode == 0, text.stderr
    (line,) = text.stdout.decode().splitlines()
    (record,) = json_records(run(*refs, "-i", hyp, "-m", "nist", "-f", "jsonl").stdout)
    cumulative = "/".join(f"{c:.{width}f}" for c in record["cumulative"])
    assert f" = {record['score']:.{width}f} {cumulative} (LP = " in line
    assert re.search(r"\(LP = \d\.\d{3} ratio = \d\.\d{3} ", line)
    if width == 4:
        assert cumulative.split("/")[:5] == numbers["cum_1_5"]
        assert f"{record['score']:.4f}" == numbers["nist"]
