"""Resampling against SacreBLEU's own significance code.

The oracle is SacreBLEU 2.6 itself: ``_compute_score_from_stats`` for the
batch scorers, ``_bootstrap_resample``, ``Metric.corpus_score(n_bootstrap=)``
and ``PairedTest`` for the tests, ``print_results_table`` (with tabulate)
and ``print_single_results`` for the text.  Both sides get the same
per-segment statistics, extracted by SacreBLEU (so chrF and TER need no
bleustream metric module): ``PairedTest`` reads them from a cache instead of
extracting them again.

Scores, means and intervals are required to 1e-6 and p-values exactly; the
implementation reproduces SacreBLEU's float32 and double arithmetic, so
everything is compared bit for bit (``==``).

SacreBLEU's seed 0 (and ``none``) draws fresh entropy for compared systems;
to compare those paths, ``np.random.default_rng(None)`` is pinned to one
fixed seed for both sides, which still tells a generator seeded with 0 from
an unseeded one.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys
from argparse import Namespace
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import sacrebleu.utils
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric
from sacrebleu.significance import PairedTest, _bootstrap_resample
from sacrebleu.significance import Result as SacreResult

from bleustream.errors import UsageError
from bleustream.metrics import array_scores as batch
from bleustream.metrics import bootstrap
from bleustream.metrics.scores import COMMON_SHORT
from bleustream.output import tables
from bleustream.significance import draws as significance
from bleustream.significance.draws import SystemStats
from bleustream.significance.result import Result
from tests.conftest import read_segments, real_sets, require_real_data
from tests.helpers.adversarial import Adversary

FRESH_ENTROPY_STAND_IN = 20240601

# --------------------------------------------------------------------------
# Metrics: SacreBLEU's metric next to bleustream's row scorer
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricCase:
    """A SacreBLEU metric (made fresh, with references) and the matching row scorer."""

    label: str
    make: Callable[..., Metric]
    scorer: Callable[[Any], Any]
    float_stats: bool = False


def bleu_case(
    method: str = "exp", value: float | None = None, eff: bool = False, order: int = 4
) -> MetricCase:
    settings = SimpleNamespace(
        smooth_method=method, smooth_value=value, effective_order=eff, max_order=order
    )
    return MetricCase(
        "BLEU",
        lambda **kw: BLEU(
            smooth_method=method,
            smooth_value=value,
            effective_order=eff,
            max_ngram_order=order,
            **kw,
        ),
        lambda a: batch.bleu_rows(a, settings),
    )


def chrf_case(char_order: int = 6, word_order: int = 0, eps: bool = False) -> MetricCase:
    settings = SimpleNamespace(
        char_order=char_order, word_order=word_order, beta=2, eps_smoothing=eps
    )
    label = "chrF2" + "+" * word_order
    return MetricCase(
        label,
        lambda **kw: CHRF(char_order=char_order, word_order=word_order, eps_smoothing=eps, **kw),
        lambda a: batch.chrf_rows(a, settings),
    )


TER_CASE = MetricCase("TER", lambda **kw: TER(**kw), batch.ter_rows, float_stats=True)

CASES = {
    "bleu": bleu_case(),
    "bleu-floor-eff": bleu_case("floor", None, eff=True),
    "bleu-floor0.05": bleu_case("floor", 0.05),
    "bleu-addk": bleu_case("add-k"),
    "bleu-addk0.5-eff": bleu_case("add-k", 0.5, eff=True),
    "bleu-none": bleu_case("none"),
    "bleu-none-eff3": bleu_case("none", None, eff=True, order=3),
    "chrf": chrf_case(),
    "chrf++": chrf_case(word_order=2),
    "chrf-eps": chrf_case(eps=True),
    "chrf++-eps": chrf_case(word_order=2, eps=True),
    "ter": TER_CASE,
}


# --------------------------------------------------------------------------
# Corpora
# --------------------------------------------------------------------------

WORDS = (
    "the",
    "a",
    "an",
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "cat",
    "dog",
    "mat",
    "house",
    "tree",
    "river",
    "city",
    "car",
    "road",
    "Straße",
    "größer",
    "naïve",
    "café",
    "日本",
    "語",
    ",",
    ".",
    "!",
    "?",
    "-",
    "it",
    "is",
    "was",
    "be",
    "has",
    "had",
    "will",
    "not",
)


@dataclass(frozen=True)
class Corpus:
    refs: tuple[tuple[str, ...], ...]  # reference streams
    systems: tuple[tuple[str, tuple[str, ...]], ...]  # (name, hypotheses), baseline first


def _edit(words: list[str], rate: float, rnd: random.Random) -> list[str]:
    out: list[str] = []
    for word in words:
        roll = rnd.random()
        if roll < rate / 3:
            continue  # dropped
        if roll < 2 * rate / 3:
            out.append(rnd.choice(WORDS))  # replaced
        else:
            out.append(word)
        if rnd.random() < rate / 4:
            out.append(rnd.choice(WORDS))  # inserted
    if len(out) > 2 and rnd.random() < rate:
        i = rnd.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


@cache
def generated(seed: int, n_segments: int, n_systems: int, n_refs: int = 1) -> Corpus:
    """References and systems that edit the first reference at close rates.

    Close edit rates give p-values across the whole range; a few empty
    lines and one-word lines reach the smoothing and zero-count paths.
    """
    rnd = random.Random(seed)
    refs: list[list[str]] = [[] for _ in range(n_refs)]
    for _ in range(n_segments):
        for stream in refs:
            length = 0 if rnd.random() < 0.03 else rnd.randint(1, 14)
            stream.append(" ".join(rnd.choice(WORDS) for _ in range(length)))
    systems = []
    for k in range(n_systems):
        rate = 0.25 + 0.02 * k * (-1) ** k
        hyps = []
        for ref in refs[0]:
            if rnd.random() < 0.02:
                hyps.append("")
            else:
                hyps.append(" ".join(_edit(ref.split(), rate, rnd)))
        systems.append((f"sys{k}.txt", tuple(hyps)))
    return Corpus(tuple(tuple(s) for s in refs), tuple(systems))


@cache
def adversarial(seed: int, n_segments: int, n_systems: int) -> Corpus:
    """Adversarial text: the first system's lines mutated for the others."""
    adversary = Adversary(seed)
    hyps, streams = adversary.corpus(n_segments, 1)
    rnd = random.Random(seed)
    systems = [("adv0", tuple(hyps))]
    for k in range(1, n_systems):
        systems.append((f"adv{k}", tuple(" ".join(_edit(h.split(), 0.03, rnd)) for h in hyps)))
    return Corpus(tuple(tuple(s) for s in streams), tuple(systems))


@cache
def wmt21_corpus() -> Corpus:
    """WMT21 en-de, a baseline and four systems of close BLEU, against reference A.

    One reference keeps SacreBLEU's chrF extraction quick.
    """
    require_real_data()
    real_set = {s.name: s for s in real_sets()}["wmt21-en-de"]
    refs = (read_segments(real_set.refs[0]),)
    wanted = ("HuaweiTSC", "Manifold", "Online-W", "UEdin", "Online-A")
    by_name = {p.name: p for p in real_set.hyps}
    systems = tuple(
        (f"{name}.de", read_segments(by_name[f"newstest2021.en-de.hyp.{name}.de"]))
        for name in wanted
    )
    return Corpus(refs, systems)


@cache
def statistics_of(corpus: Corpus, case_id: str) -> tuple[list[list[Any]], ...]:
    """SacreBLEU's per-segment statistics of every system."""
    metric = CASES[case_id].make(references=[list(s) for s in corpus.refs])
    return tuple(metric._extract_corpus_statistics(list(h), None) for _, h in corpus.systems)


def as_array(case: MetricCase, stats: list[list[Any]]) -> Any:
    return np.array(stats, dtype=np.float64 if case.float_stats else np.int64)


def our_systems(corpus: Corpus, case_ids: Sequence[str]) -> list[SystemStats]:
    out = []
    for i, (name, _) in enumerate(corpus.systems):
        stats = {}
        for case_id in case_ids:
            case = CASES[case_id]
            stats[case.label] = as_array(case, statistics_of(corpus, case_id)[i])
        out.append(SystemStats(name, stats))
    return out


def scorers(case_ids: Sequence[str]) -> dict[str, Callable[[Any], Any]]:
    return {CASES[c].label: CASES[c].scorer for c in case_ids}


# --------------------------------------------------------------------------
# The oracle
# --------------------------------------------------------------------------


@pytest.fixture
def pinned_entropy(monkeypatch: pytest.MonkeyPatch) -> None:
    """``default_rng(None)`` seeded with a fixed stand-in, for SacreBLEU and bleustream alike."""
    original = np.random.default_rng

    def default_rng(seed: Any = None) -> Any:
        return original(FRESH_ENTROPY_STAND_IN if seed is None else seed)

    monkeypatch.setattr(np.random, "default_rng", default_rng)


def run_paired_test(
    monkeypatch: pytest.MonkeyPatch,
    systems: Sequence[tuple[str, Sequence[str]]],
    metrics: Mapping[str, tuple[Metric, Sequence[list[list[Any]]]]],
    test_type: str,
    n_samples: int,
    seed: str,
    n_ar_confidence: int = -1,
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """SacreBLEU's ``PairedTest`` under ``SACREBLEU_SEED``, each metric reading the
    given per-system statistics instead of extracting them again."""
    monkeypatch.setenv("SACREBLEU_SEED", seed)
    for metric, stats in metrics.values():
        cached = {id(h): s for (_, h), s in zip(systems, stats)}
        monkeypatch.setattr(
            metric,
            "_extract_corpus_statistics",
            lambda hyps, refs, cached=cached: [list(row) for row in cached[id(hyps)]],
        )
    test = PairedTest(
        list(systems),
        {key: metric for key, (metric, _) in metrics.items()},
        None,
        test_type=test_type,
        n_samples=n_samples,
        n_ar_confidence=n_ar_confidence,
    )
    return test()


def sacrebleu_paired(
    monkeypatch: pytest.MonkeyPatch,
    corpus: Corpus,
    case_ids: Sequence[str],
    test_type: str,
    n_samples: int,
    seed: str,
    n_ar_confidence: int = -1,
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """``run_paired_test`` on a corpus, with SacreBLEU's statistics of it."""
    refs = [list(s) for s in corpus.refs]
    metrics = {c: (CASES[c].make(references=refs), statistics_of(corpus, c)) for c in case_ids}
    return run_paired_test(
        monkeypatch, corpus.systems, metrics, test_type, n_samples, seed, n_ar_confidence
    )


def assert_same_results(ours: Sequence[Result], theirs: Mapping[str, list[Any]]) -> None:
    """Every result equal to SacreBLEU's, bit for bit; same systems and metrics."""
    names = theirs["System"]
    assert len(ours) == len(names) * (len(theirs) - 1)
    for r in ours:
        t = theirs[r.metric][names.index(r.system)]
        where = f"{r.system} {r.metric}"
        assert r.score == t.score, where
        assert r.p_value == t.p_value, where
        assert (r.mean, r.ci) == (t.mean, t.ci), where


def parse_signature(text: str) -> dict[str, str]:
    return dict(part.split(":", 1) for part in text.split("|"))


def plain_signature(case_id: str, corpus: Corpus) -> dict[str, str]:
    """A metric's signature fields before any test adds its own."""
    metric = CASES[case_id].make(references=[list(s) for s in corpus.refs])
    return parse_signature(metric.get_signature().format())


# --------------------------------------------------------------------------
# Batch scorers: every row as SacreBLEU scores it
# --------------------------------------------------------------------------


def fuzzed_rows(case_id: str, rng: Any, n: int = 120) -> Any:
    """Random summed rows with many zeros (empty hypotheses, references, matches)."""
    case = CASES[case_id]
    if case.label == "TER":
        rows = np.stack([rng.integers(0, 40, n), rng.integers(0, 40, n)], axis=1)
        rows[rng.random(n) < 0.3, 1] = 0
        return rows
    if case.label == "BLEU":
        metric = case.make()
        order = metric.max_ngram_order
        totals = rng.integers(0, 30, size=(n, order))
        totals[rng.random((n, order)) < 0.2] = 0
        correct = (totals * rng.random((n, order))).astype(np.int64)
        correct[rng.random((n, order)) < 0.3] = 0
        return np.concatenate([rng.integers(0, 50, size=(n, 2)), correct, totals], axis=1)
    metric = case.make()
    orders = metric.char_order + metric.word_order
    rows = rng.integers(0, 30, size=(n, orders, 3))
    rows[rng.random((n, orders, 3)) < 0.35] = 0
    rows[:, :, 2] = np.minimum(rows[:, :, 2], rows[:, :, :2].min(axis=2))
    rows[: n // 4] = 0
    rows[n // 4 : n // 3, 1:] = 0
    return rows.reshape(n, 3 * orders)


def sacrebleu_row_scores(metric: Metric, rows: Any) -> Any:
    """``np.array`` of SacreBLEU's score for every row (copied: add-k writes into it)."""
    return np.array([metric._compute_score_from_stats(row.copy()).score for row in rows])


@pytest.mark.parametrize("case_id", list(CASES))
def test_batch_scores_equal_sacrebleu_row_by_row(case_id: str) -> None:
    """float32 (bootstrap), int64 (AR) and float64 rows, fuzzed and from real statistics."""
    case = CASES[case_id]
    metric = case.make()
    rng = np.random.default_rng(7)
    fuzz = fuzzed_rows(case_id, rng)
    stats = statistics_of(adversarial(11, 150, 2), case_id)
    resampled = as_array(case, stats[0])[rng.integers(0, 150, size=(60, 150))].sum(axis=1)
    for rows in (fuzz, fuzz * 100_003, resampled):
        for dtype in (np.float32, np.int64, np.float64):
            if dtype is np.int64 and case.float_stats:
                continue
            typed = rows.astype(dtype)
            want = sacrebleu_row_scores(metric, typed)
            got = case.scorer(typed)
            assert got.dtype == want.dtype, dtype
            assert np.array_equal(got, want), dtype
    # Corpus scores: SacreBLEU's arithmetic on Python lists.
    for row in fuzz[:40].tolist():
        assert case.scorer(np.array([row], dtype=np.float64))[0] == (
            metric._compute_score_from_stats(row).score
        )


def test_batch_float32_mixes_python_floats_as_sacrebleu() -> None:
    """A chrF resample scoring Python 0.0 widens the array to float64, as in SacreBLEU."""
    rows = np.zeros((3, 18), dtype=np.float32)
    rows[0, :3] = (3, 4, 2)
    for case_id in ("chrf", "chrf-eps"):
        want = sacrebleu_row_scores(CASES[case_id].make(), rows)
        got = CASES[case_id].scorer(rows)
        assert (got.dtype, got.tolist()) == (want.dtype, want.tolist())
    assert CASES["chrf"].scorer(rows[:1]).dtype == np.float32


def test_add_k_is_truncated_in_integer_rows_as_sacrebleu() -> None:
    """AR's int64 rows truncate add-k 0.5 (SacreBLEU writes ``c + 0.5`` back into int64)."""
    row = np.array([[9, 10, 5, 2, 0, 0, 9, 8, 7, 6]])
    metric = CASES["bleu-addk0.5-eff"].make()
    as_int = CASES["bleu-addk0.5-eff"].scorer(row)
    as_float = CASES["bleu-addk0.5-eff"].scorer(row.astype(np.float64))
    assert as_int[0] == metric._compute_score_from_stats(row[0].copy()).score
    assert as_float[0] == metric._compute_score_from_stats(row[0].tolist()).score
    assert as_int[0] != as_float[0]


def test_sum_of_logs_follows_this_interpreter() -> None:
    """The vectorized sum of log precisions equals builtins.sum (compensated from 3.12)."""
    rng = np.random.default_rng(3)
    terms = np.log(rng.random((2000, 6)) * 100) * rng.choice([1, -1, 1e-3], size=(2000, 6))
    counts = rng.integers(1, 7, 2000)
    got = batch._python_sum(np, terms, counts)
    want = [sum(row[:k]) for row, k in zip(terms.tolist(), counts.tolist())]
    assert got.tolist() == want


# --------------------------------------------------------------------------
# Drawing and summing
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n_segments", [1, 5, 1002, 70_001])
def test_chunked_draws_equal_one_draw(n_segments: int) -> None:
    """Index and mask chunks stack up to SacreBLEU's single draws, and leave the same state."""
    n_samples = 37
    whole = np.random.default_rng(12345)
    indices = whole.choice(n_segments, size=(n_samples, n_segments), replace=True)
    after_indices = whole.integers(1 << 30, size=4)
    masks = whole.integers(2, size=(n_samples, n_segments), dtype=bool)
    after_masks = whole.integers(1 << 30, size=4)

    chunked = np.random.default_rng(12345)
    parts = list(significance.bootstrap_indices(chunked, n_segments, n_samples))
    assert np.array_equal(np.concatenate(parts), indices)
    assert np.array_equal(chunked.integers(1 << 30, size=4), after_indices)
    mask_parts = list(significance.swap_masks(chunked, n_segments, n_samples))
    assert np.array_equal(np.concatenate(mask_parts), masks)
    assert np.array_equal(chunked.integers(1 << 30, size=4), after_masks)
    if n_segments == 70_001:
        assert len(parts) > 1 and len(mask_parts) > 1


def large_rows(rng: Any, n: int, kind: str) -> list[list[Any]]:
    """Synthetic per-segment rows for a 20,000-segment corpus."""
    if kind == "ter":  # fractional average reference lengths: float32 sums round
        lengths = rng.integers(1, 60, n) / rng.integers(1, 4, n)
        return [[int(e), float(x)] for e, x in zip(rng.integers(0, 30, n), lengths)]
    if kind == "bleu-huge":  # sums beyond 2**24: float32 sums round
        totals = rng.integers(500, 2000, size=(n, 4))
        correct = (totals * rng.random((n, 4)) * 0.6).astype(int)
        lengths = rng.integers(500, 2000, size=(n, 2))
        return np.concatenate([lengths, correct, totals], axis=1).tolist()
    totals = rng.integers(0, 40, size=(n, 18))  # chrF-like, exact in float32
    return totals.tolist()


@pytest.mark.parametrize(
    "kind,case_id,n_samples",
    [("ter", "ter", 105), ("bleu-huge", "bleu", 24), ("chrf", "chrf", 24)],
)
def test_resample_scores_large_corpus(
    monkeypatch: pytest.MonkeyPatch, kind: str, case_id: str, n_samples: int
) -> None:
    """20,000 segments: every resample's score equals ``_bootstrap_resample``'s.

    For TER and huge BLEU counts the float32 running sums really round
    (checked: exact sums score differently), so the order of additions is
    what is being compared.  105 TER resamples end in a chunk of one.
    """
    monkeypatch.setenv("SACREBLEU_SEED", "4242")
    case = CASES[case_id]
    rng = np.random.default_rng(1)
    rows = large_rows(rng, 20_000, kind)
    _, theirs = _bootstrap_resample(rows, case.make(), n_samples=n_samples)
    want = np.array([s.score for s in theirs])
    stats = np.array(rows, dtype=np.float64 if case.float_stats else np.int64)
    got = significance.resample_scores(stats, case.scorer, n_samples=n_samples, seed=4242)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)
    if kind != "chrf":
        idx = np.random.default_rng(4242).choice(20_000, size=(n_samples, 20_000))
        exact = np.stack([stats[i].sum(axis=0) for i in idx]).astype(np.float32)
        assert not np.array_equal(case.scorer(exact), want)


def test_paired_tests_in_many_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small chunks, so that masks and indices come in many pieces.

    3,000 segments of synthetic statistics (BLEU counts large enough for
    float32 running sums, TER's fractional lengths): AR's 210 trials in 5
    chunks of masks, TER through chunked float64 products; bootstrap's 105
    resamples in chunks of 52, 52 and 1.
    """
    monkeypatch.setattr(significance, "CHUNK_ELEMENTS", 52 * 3000)  # AR's masks
    monkeypatch.setattr(bootstrap, "CHUNK_ELEMENTS", 52 * 3000)  # bootstrap's indices
    rng = np.random.default_rng(8)
    n = 3000
    systems = [(f"s{i}", tuple(f"{i}" for _ in range(n))) for i in range(3)]
    metrics = {}
    for case_id, kind in (("bleu", "bleu-huge"), ("ter", "ter")):
        scale = 4 if kind == "bleu-huge" else 1
        first = [[x * scale for x in row] for row in large_rows(rng, n, kind)]
        stats = [first]
        for _ in systems[1:]:
            other = [list(row) for row in first]
            for i, row in zip(rng.integers(0, n, 300), large_rows(rng, 300, kind)):
                other[i] = [x * scale for x in row]
            stats.append(other)
        metric = CASES[case_id].make()
        metric.num_refs = 1
        metrics[case_id] = (metric, stats)
    ours_stats = [
        SystemStats(
            name, {CASES[c].label: as_array(CASES[c], metrics[c][1][i]) for c in ("bleu", "ter")}
        )
        for i, (name, _) in enumerate(systems)
    ]
    assert bootstrap.prepare(np, ours_stats[0].stats["BLEU"]).running  # float32 rounds
    for test_type, count in (("ar", 210), ("bs", 105)):
        _, theirs = run_paired_test(monkeypatch, systems, metrics, test_type, count, "12345")
        run = significance.paired_ar if test_type == "ar" else significance.paired_bs
        ours = run(ours_stats[0], ours_stats[1:], scorers(("bleu", "ter")), count)
        assert_same_results(ours, theirs)
        assert max(r.p_value or 0 for r in ours) > 1 / (count + 1)


# --------------------------------------------------------------------------
# Single system: -ci
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case_ids,seed,n_samples",
    [
        (("bleu", "chrf", "ter"), "12345", 1000),
        (("bleu-floor-eff", "chrf++"), "0", 200),
        (("bleu-addk0.5-eff", "chrf-eps", "ter"), "777", 150),
        (("bleu-none", "chrf"), "None", 100),
        (("bleu",), "12345", 1),
    ],
)
@pytest.mark.usefixtures("pinned_entropy")
def test_confidence_intervals_equal_corpus_score(
    monkeypatch: pytest.MonkeyPatch, case_ids: tuple[str, ...], seed: str, n_samples: int
) -> None:
    """``corpus_score(n_bootstrap=N)``: score, mean, interval and signature fields."""
    monkeypatch.setenv("SACREBLEU_SEED", seed)
    corpus = generated(5, 80, 1)
    (system,) = our_systems(corpus, case_ids)
    ours = significance.confidence_intervals(
        system.stats, scorers(case_ids), n_samples, significance.parse_seed(seed), "sys"
    )
    for result, case_id in zip(ours, case_ids):
        metric = CASES[case_id].make(references=[list(s) for s in corpus.refs])
        theirs = metric.corpus_score(list(corpus.systems[0][1]), None, n_bootstrap=n_samples)
        assert result.score == theirs.score
        if n_samples > 1:
            assert (result.mean, result.ci) == (theirs._mean, theirs._ci)
        else:
            assert (result.mean, result.ci) == (None, None)
        fields = significance.resampling_signature_fields(
            "ci", n_samples, significance.parse_seed(seed)
        )
        expected = parse_signature(metric.get_signature().format())
        assert significance.with_test_fields(plain_signature(case_id, corpus), fields) == expected
        assert list(expected) == list(
            significance.with_test_fields(plain_signature(case_id, corpus), fields)
        )


def test_bootstrap_ci_single_metric(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    corpus = generated(5, 80, 1)
    stats = statistics_of(corpus, "chrf")
    theirs = (
        CASES["chrf"]
        .make(references=[list(s) for s in corpus.refs])
        .corpus_score(list(corpus.systems[0][1]), None, n_bootstrap=300)
    )
    ours = significance.bootstrap_ci(as_array(CASES["chrf"], stats[0]), CASES["chrf"].scorer, 300)
    assert ours == (theirs.score, theirs._mean, theirs._ci)


# --------------------------------------------------------------------------
# Paired tests
# --------------------------------------------------------------------------

PAIRED_BS = [
    ("gen", ("bleu", "chrf", "ter"), 3, "12345", 100),
    ("gen", ("bleu-floor-eff", "chrf++"), 5, "777", 200),
    ("gen", ("bleu-addk0.5-eff", "chrf-eps"), 2, "0", 50),
    ("gen", ("bleu-none-eff3", "ter"), 4, "none", 60),
    ("adv", ("bleu-floor0.05", "chrf++-eps"), 3, "12345", 1000),
]


@pytest.mark.parametrize("source,case_ids,n_systems,seed,n_samples", PAIRED_BS)
@pytest.mark.usefixtures("pinned_entropy")
def test_paired_bs_equals_sacrebleu(
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    case_ids: tuple[str, ...],
    n_systems: int,
    seed: str,
    n_samples: int,
) -> None:
    corpus = generated(9, 90, n_systems) if source == "gen" else adversarial(4, 120, n_systems)
    sigs, theirs = sacrebleu_paired(monkeypatch, corpus, case_ids, "bs", n_samples, seed)
    baseline, *others = our_systems(corpus, case_ids)
    ours = significance.paired_bs(
        baseline, others, scorers(case_ids), n_samples, significance.parse_seed(seed)
    )
    assert_same_results(ours, theirs)
    assert max(r.p_value or 0 for r in ours) > 1 / (n_samples + 1)
    fields = significance.resampling_signature_fields(
        "bs", n_samples, significance.parse_seed(seed)
    )
    for case_id in case_ids:
        expected = sigs[CASES[case_id].label].format()
        ordered = significance.with_test_fields(plain_signature(case_id, corpus), fields)
        assert "|".join(f"{k}:{v}" for k, v in ordered.items()) == expected


PAIRED_AR = [
    (("bleu", "chrf", "ter"), 3, "12345", 200, -1),
    (("bleu-addk0.5-eff", "chrf++"), 2, "777", 300, 50),
    (("bleu-floor-eff", "ter"), 4, "0", 100, 0),
    (("bleu-addk", "chrf-eps"), 2, "none", 64, 40),
    (("bleu",), 2, "12345", 0, -1),  # 0: SacreBLEU's default of 10,000 trials
]


@pytest.mark.parametrize("case_ids,n_systems,seed,n_trials,n_confidence", PAIRED_AR)
@pytest.mark.usefixtures("pinned_entropy")
def test_paired_ar_equals_sacrebleu(
    monkeypatch: pytest.MonkeyPatch,
    case_ids: tuple[str, ...],
    n_systems: int,
    seed: str,
    n_trials: int,
    n_confidence: int,
) -> None:
    corpus = generated(13, 70 if n_trials else 40, n_systems)
    sigs, theirs = sacrebleu_paired(
        monkeypatch, corpus, case_ids, "ar", n_trials, seed, n_confidence
    )
    baseline, *others = our_systems(corpus, case_ids)
    ours = significance.paired_ar(
        baseline,
        others,
        scorers(case_ids),
        n_trials,
        significance.parse_seed(seed),
        n_confidence,
    )
    assert_same_results(ours, theirs)
    floor = 1 / ((n_trials or significance.DEFAULT_AR_TRIALS) + 1)
    assert max(r.p_value or 0 for r in ours) > floor  # p-values off the floor were compared
    fields = significance.resampling_signature_fields(
        "ar", n_trials, significance.parse_seed(seed), n_confidence
    )
    for case_id in case_ids:
        expected = sigs[CASES[case_id].label].format()
        ordered = significance.with_test_fields(plain_signature(case_id, corpus), fields)
        assert "|".join(f"{k}:{v}" for k, v in ordered.items()) == expected


@pytest.mark.slow
def test_wmt21_paired_bs_and_latex(monkeypatch: pytest.MonkeyPatch) -> None:
    """WMT21 en-de, baseline + 4 systems, BLEU + chrF, paired-bs 1000, default seed.

    Results, then SacreBLEU's whole ``-f latex`` output for them, and the
    ``-f text`` output below the table.
    """
    corpus = wmt21_corpus()
    case_ids = ("bleu", "chrf")
    sigs, theirs = sacrebleu_paired(monkeypatch, corpus, case_ids, "bs", 1000, "12345")
    baseline, *others = our_systems(corpus, case_ids)
    ours = significance.paired_bs(baseline, others, scorers(case_ids))
    assert_same_results(ours, theirs)
    assert len({r.p_value for r in ours if r.p_value is not None}) > 2

    signatures = {name: sig.format() for name, sig in sigs.items()}
    ours = [
        replace(r, system=f"Baseline: {r.system}") if r.system == baseline.name else r for r in ours
    ]
    theirs["System"] = tables.paired_names(theirs["System"])
    for fmt, ours_text in (
        ("latex", tables.report("latex", ours, signatures, "bs", 1000)),
        ("text", tables.report("text", ours, signatures, "bs", 1000)),
    ):
        printed = sacrebleu_table(monkeypatch, theirs, signatures, fmt, "bs", 1000)
        if fmt == "latex":
            assert ours_text == printed
        else:
            assert ours_text.split("\n\n", 1)[1] == printed.split("\n\n", 1)[1]


# --------------------------------------------------------------------------
# Text and LaTeX
# --------------------------------------------------------------------------


def sacrebleu_table(
    monkeypatch: pytest.MonkeyPatch,
    scores: Mapping[str, list[Any]],
    signatures: Mapping[str, str],
    fmt: str,
    test: str | None,
    n_samples: int,
    width: int = 1,
) -> str:
    """What ``print_results_table`` prints, without colours."""
    monkeypatch.setattr(sacrebleu.utils.Color, "ENABLE_COLORS", False)
    args = Namespace(
        format=fmt,
        width=width,
        paired_bs=test == "bs",
        paired_ar=test == "ar",
        paired_bs_n=n_samples,
        paired_ar_n=n_samples,
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sacrebleu.utils.print_results_table(dict(scores), dict(signatures), args)
    return out.getvalue()


def sacrebleu_results(results: Sequence[Result], as_strings: bool, width: int) -> dict:
    """SacreBLEU's ``scores`` dict for the same results (strings without a test)."""
    scores: dict[str, list[Any]] = {"System": []}
    for r in results:
        if r.system not in scores["System"]:
            scores["System"].append(r.system)
        cell = (
            f"{r.score:.{width}f}" if as_strings else SacreResult(r.score, r.p_value, r.mean, r.ci)
        )
        scores.setdefault(r.metric, []).append(cell)
    return scores


TABLE_CASES = [
    # names, test, width, p-values, with intervals
    (["Baseline: base_1.txt", "sys & 50% #2", "~user/{x}^y<z>\\"], "bs", 1, True),
    (["Baseline: a", "b"], "ar", 2, False),
    (["Baseline: système", "日本語", "naïve"], "bs", 3, True),
    (["1", "2.5", "1e3"], None, 1, False),  # numbers-only system column
    (["1,000", "True", ""], None, 2, False),
    (["10", "-7", "+3"], None, 0, False),
]


@pytest.mark.parametrize("names,test,width,bootstrap", TABLE_CASES)
def test_latex_equals_sacrebleu(
    monkeypatch: pytest.MonkeyPatch,
    names: list[str],
    test: str | None,
    width: int,
    bootstrap: bool,
) -> None:
    rnd = random.Random(len(names) * 10 + width)
    results = []
    for i, name in enumerate(names):
        for metric in ("BLEU", "chrF2++", "TER"):
            mean = rnd.uniform(0, 90) if bootstrap else None
            ci = rnd.uniform(0, 3) if bootstrap else None
            p = None if i == 0 or test is None else rnd.choice([0.0009, 0.05, 0.0501, 0.4])
            results.append(Result(name, metric, rnd.uniform(0, 100), mean, ci, p))
    signatures = {"BLEU": "nrefs:1|bs:1000|seed:12345|version:2.6.0", "chrF2++": "x", "TER": "y"}
    scores = sacrebleu_results(results, test is None, width)
    want = sacrebleu_table(monkeypatch, scores, signatures, "latex", test, 1000, width)
    assert tables.report("latex", results, signatures, test, 1000, width) == want
    want_text = sacrebleu_table(monkeypatch, scores, signatures, "text", test, 1000, width)
    got_text = tables.report("text", results, signatures, test, 1000, width)
    assert got_text.split("\n\n", 1)[1] == want_text.split("\n\n", 1)[1]


def test_text_table_layout() -> None:
    results = [
        Result("Baseline: base", "BLEU", 24.31, 24.02, 3.41),
        Result("Baseline: base", "TER", 65.04, 65.31, 3.7),
        Result("long-system-name", "BLEU", 29.8, 29.3, 4.0, 0.0099),
        Result("long-system-name", "TER", 59.3, 59.7, 4.04, 0.2),
    ]
    assert tables.text_table(results).split("\n") == [
        "          System  BLEU (μ ± 95% CI)  TER (μ ± 95% CI)",
        "----------------  -----------------  -----------------",
        "  Baseline: base  24.3 (24.0 ± 3.4)  65.0 (65.3 ± 3.7)",
        "long-system-name  29.8 (29.3 ± 4.0)  59.3 (59.7 ± 4.0)",
        "                    (p = 0.0099)*      (p = 0.2000)",
    ]


def test_single_system_lines_equal_sacrebleu(monkeypatch: pytest.MonkeyPatch) -> None:
    """``-ci`` text: ``NAME|sig = score (μ = mean ± ci) verbose``, aligned on ``=``."""
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    monkeypatch.setattr(sacrebleu.utils.Color, "ENABLE_COLORS", False)
    corpus = generated(21, 60, 1)
    case_ids = ("bleu", "chrf", "ter")
    (system,) = our_systems(corpus, case_ids)
    ours = significance.confidence_intervals(system.stats, scorers(case_ids), 100)
    for width, score_only in ((1, False), (2, False), (1, True)):
        theirs, lines = [], []
        for result, case_id in zip(ours, case_ids):
            metric = CASES[case_id].make(references=[list(s) for s in corpus.refs])
            score = metric.corpus_score(list(corpus.systems[0][1]), None, n_bootstrap=100)
            sig = metric.get_signature().format()
            theirs.append(score.format(width, score_only, sig))
            if score_only:
                lines.append(tables.score_text(result, width))
            else:
                lines.append(tables.single_line(result, sig, score._verbose, width))
            record = json.loads(score.format(width, False, sig, is_json=True))
            fields = tables.confidence_json_fields(result, width)
            assert fields == {k: record[k] for k in fields}
            assert len(fields) == 3
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            sacrebleu.utils.print_single_results(theirs, Namespace(format="text"))
        assert "\n".join(tables.align_single_lines(lines)) + "\n" == out.getvalue()


def test_interval_hidden_without_positive_mean() -> None:
    assert tables.score_text(Result("s", "BLEU", 0.0, 0.0, 0.0)) == "0.0"
    assert tables.score_text(Result("s", "BLEU", 1.25, None, None), 2) == "1.25"
    assert tables.confidence_json_fields(Result("s", "BLEU", 0.0, 0.0, 0.0)) == {}


# --------------------------------------------------------------------------
# Seeds, signatures, the optional extra
# --------------------------------------------------------------------------


def test_seed_handling() -> None:
    assert significance.parse_seed("None") is None
    assert significance.parse_seed("none") is None
    assert significance.parse_seed("0") == 0
    assert significance.parse_seed("12345") == 12345
    assert significance.seed_text(None) == "none"
    assert significance.system_seed(0) is None
    assert significance.system_seed(7) == 7
    with pytest.raises(ValueError):
        significance.parse_seed("seven")


def test_resampling_signature_fields_order() -> None:
    fields = {"nrefs": "1", "case": "mixed", "version": "2.6.0"}
    ar = significance.resampling_signature_fields("ar", 0, None, 0)
    assert ar == {"bs": "1000", "ar": "10000", "seed": "none"}
    assert list(significance.with_test_fields(fields, ar)) == [
        "nrefs",
        "bs",
        "ar",
        "seed",
        "case",
        "version",
    ]
    assert significance.resampling_signature_fields("ci", 1, 5) == {}
    assert significance.resampling_signature_fields("bs", -3, 0) == {"bs": "1000", "seed": "0"}
    assert COMMON_SHORT["seed"] == "rs"


def test_missing_numpy_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(UsageError) as caught:
        significance.resample_scores([[1, 2]], batch.ter_rows)
    message = str(caught.value)
    assert "\n" not in message
    assert message.endswith("needs numpy: pip install 'bleustream[significance]'")
    assert caught.value.status == 2


def test_paired_json_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """``-f json`` cells are SacreBLEU's ``Result.__dict__``.

    SacreBLEU itself cannot write chrF's float32 means (json.dumps raises
    TypeError); bleustream's plain floats can be written.
    """
    corpus = generated(9, 90, 3)
    for case_ids in (("bleu",), ("bleu", "chrf")):
        _, theirs = sacrebleu_paired(monkeypatch, corpus, case_ids, "bs", 40, "12345")
        baseline, *others = our_systems(corpus, case_ids)
        ours = significance.paired_bs(baseline, others, scorers(case_ids), 40)
        if case_ids == ("bleu",):
            printed = json.loads(sacrebleu_table(monkeypatch, theirs, {}, "json", "bs", 40))
            assert [row["BLEU"] for row in printed] == [tables.paired_json_value(r) for r in ours]
        else:
            with pytest.raises(TypeError, match="float32"):
                sacrebleu_table(monkeypatch, theirs, {}, "json", "bs", 40)
            json.dumps([tables.paired_json_value(r) for r in ours])
