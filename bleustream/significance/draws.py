"""Bootstrap confidence intervals and paired significance tests, with SacreBLEU's numbers.

SacreBLEU 2.6 (``sacrebleu/significance.py`` and ``Metric.corpus_score``)
offers three resampling procedures over per-segment statistics:

* ``-ci``: a bootstrap confidence interval for one system
  (``corpus_score(n_bootstrap=N)``: ``_bootstrap_resample`` then
  ``Score.estimate_ci``) -- ``confidence_intervals``, ``bootstrap_ci``;
* ``--paired-bs``: paired bootstrap resampling of each system against a
  baseline (``PairedTest`` with ``_paired_bs_test``) -- ``paired_bs``;
* ``--paired-ar``: paired approximate randomization (``_paired_ar_test``)
  -- ``paired_ar``.

The functions here draw the same random numbers from the same generators
(``np.random.default_rng(seed)``: ``choice`` for resamples, boolean
``integers`` for AR's swaps), sum the same statistics with the same float32
rounding and score every sample as SacreBLEU does (``bleustream.metrics.array_scores``), so
scores, means, intervals and p-values are SacreBLEU's to the last bit.

Statistics come as one 2-D array per system and metric (segments x row
size): BLEU and chrF as integer arrays, TER as float64 (``[edits,
avg_ref_len]``), in SacreBLEU's per-segment layout.  A row scorer
(``Callable[[ndarray], ndarray]``, e.g. ``lambda a: batch.bleu_rows(a, S)``)
turns summed rows into scores; its input dtype selects SacreBLEU's
arithmetic (see ``bleustream.metrics.array_scores``).

Seeds (an ``int`` or ``None``) behave as ``SACREBLEU_SEED`` does in
SacreBLEU's command line (default 12345, ``none`` for fresh entropy):

* a baseline's interval (``_bootstrap_resample``) and ``-ci`` seed a new
  generator with the seed, even 0; with ``None`` every metric draws afresh;
* each compared system seeds a new generator with ``seed if seed else
  None``: seed 0 draws fresh entropy for the systems (SacreBLEU's quirk),
  while the baseline's interval still uses seed 0.

So with a seed other than 0 every system and metric sees the same draws,
which are drawn and summed once here.

Memory: SacreBLEU materializes every resample at once (``stats[idxs]``:
samples x segments x row floats).  Here indices and swap masks are drawn in
chunks of rows (which leaves numpy's random stream unchanged: ``choice``
buffers in the bit generator, and boolean masks are drawn in multiples of 32
values), and resample sums are formed chunk by chunk, column by column:

* integer columns whose every partial sum is exact in float32 (segments x
  largest value <= 2**24) are summed as counts @ statistics, a float32
  product whose partial sums are all integers below 2**24: exact in any
  order, hence equal to SacreBLEU's running float32 sum;
* other columns (TER's fractional lengths, counts of huge corpora) are
  gathered as a C-contiguous (segments, samples) float32 block and reduced
  over segments: numpy then adds segment after segment into a running row
  of samples, exactly as SacreBLEU's ``block.sum(0)`` does for each sample
  (a reduction over a contiguous last axis, or of a single sample, would be
  pairwise instead, and round differently).

AR adds integer statistics as ``mask @ (baseline - system)`` (integer
partial sums, exact in float32 or float64) and float statistics (TER) with
SacreBLEU's own float64 ``mask @ stats`` products, chunk by chunk of
trials: BLAS computes each output row independently of the rows beside
it, which the tests check against SacreBLEU's single product.

numpy is an optional extra (``bleustream[significance]``), imported when a
function here runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bleustream.extras import require_numpy
from bleustream.metrics.bootstrap import (
    CHUNK_ELEMENTS,
    DEFAULT_SEED,
    FLOAT32_EXACT,
    Prepared,
    RowScorer,
    bootstrap_indices,
    bootstrap_scores,
    prepare,
    resample_sums,
    score_estimate_ci,
    seed_text,
)
from bleustream.metrics.seeds import parse_seed as parse_seed  # for the callers of draws
from bleustream.significance.result import Result

DEFAULT_CI_SAMPLES = 1000
DEFAULT_BS_SAMPLES = 1000
DEFAULT_AR_TRIALS = 10000


@dataclass(frozen=True)
class SystemStats:
    """One system's per-segment statistics: metric label -> (segments x row) array."""

    name: str
    stats: Mapping[str, Any]


# ----------------------------------------------------------------------------
# Seeds and signatures
# ----------------------------------------------------------------------------


def system_seed(seed: int | None) -> int | None:
    """The seed of each compared system's generator: SacreBLEU's ``seed if seed else None``."""
    return seed if seed else None


def resampling_signature_fields(
    test: str, n_samples: int, seed: int | None, n_confidence: int = -1
) -> dict[str, str]:
    """The signature fields a resampling test adds, in SacreBLEU's order (bs, ar, seed).

    ``test`` is ``"ci"`` (single system ``-ci``), ``"bs"`` or ``"ar"``.
    ``-ci`` adds nothing when ``n_samples`` is 1 or less (SacreBLEU then
    computes no interval).  ``n_confidence`` is AR's bootstrap count for
    intervals (``-1``: none, ``0``: the default 1000).  Long names; their
    ``--short`` ones are ``metrics.scores.COMMON_SHORT``'s.
    """
    if test == "ci":
        if n_samples <= 1:
            return {}
        return {"bs": str(n_samples), "seed": seed_text(seed)}
    if test == "bs":
        return {"bs": str(_samples(n_samples, DEFAULT_BS_SAMPLES)), "seed": seed_text(seed)}
    if test == "ar":
        fields = {}
        confidence = _confidence_samples(n_confidence)
        if confidence > 0:
            fields["bs"] = str(confidence)
        fields["ar"] = str(_samples(n_samples, DEFAULT_AR_TRIALS))
        fields["seed"] = seed_text(seed)
        return fields
    raise ValueError(f"unknown test {test!r}")


def with_test_fields(fields: Mapping[str, str], test_fields: Mapping[str, str]) -> dict[str, str]:
    """A metric's signature fields with the test's fields where SacreBLEU puts them.

    SacreBLEU's signature is ``nrefs``, then ``bs``, ``ar``, ``seed`` (and
    test set fields), then the metric's own fields, ``version`` last.
    """
    out: dict[str, str] = {}
    if "nrefs" not in fields:
        out.update(test_fields)
    for key, value in fields.items():
        if key in test_fields:
            continue
        out[key] = value
        if key == "nrefs":
            out.update(test_fields)
    return out


def _samples(n: int, default: int) -> int:
    """PairedTest's sample count: the default when 0 (or less) is given."""
    return n if n > 0 else default


def _confidence_samples(n_confidence: int) -> int:
    """PairedTest's ``n_ar_confidence``: 0 means the default 1000, -1 none."""
    return n_confidence if n_confidence != 0 else DEFAULT_BS_SAMPLES


# ----------------------------------------------------------------------------
# Drawing and summing resamples
# ----------------------------------------------------------------------------


def _segments(arrays: Sequence[Any]) -> int:
    lengths = {len(a) for a in arrays}
    if len(lengths) != 1:
        raise ValueError("every system needs statistics for the same segments")
    (n,) = lengths
    if n == 0:
        raise ValueError("resampling needs at least one segment")
    return n


def swap_masks(rng: Any, n_segments: int, n_trials: int) -> Iterator[Any]:
    """``rng.integers(2, size=(n_trials, n_segments), dtype=bool)`` in chunks of rows.

    Booleans come 32 to a 32-bit draw whose leftover bits are dropped at the
    end of each call, so every chunk but the last holds a multiple of 32
    values: the stream, and the generator's state after it, are unchanged.
    """
    unit = 32 // math.gcd(n_segments, 32)
    rows = max(unit, (CHUNK_ELEMENTS // n_segments) // unit * unit)
    for start in range(0, n_trials, rows):
        yield rng.integers(2, size=(min(rows, n_trials - start), n_segments), dtype=bool)


def _actual_score(np: Any, stats: Any, scorer: RowScorer) -> float:
    """The corpus score, as SacreBLEU's ``_aggregate_and_compute`` of Python lists.

    Python adds the rows one after the other in double (ints exactly);
    numpy's reduction over the first axis of a C-contiguous float64 array
    with two or more columns does the same.
    """
    array = np.asarray(stats)
    if array.dtype.kind in "iub":
        total = array.sum(axis=0, dtype=np.int64).astype(np.float64)
    else:
        block = np.ascontiguousarray(array, dtype=np.float64)
        k = block.shape[1]
        if k < 2:
            block = np.concatenate([block, np.zeros((len(block), 2 - k))], axis=1)
        total = block.sum(axis=0)[:k]
    return float(scorer(total[None, :])[0])


# ----------------------------------------------------------------------------
# Summaries of the sample scores
# ----------------------------------------------------------------------------


def _estimate_ci(np: Any, scores: Any) -> tuple[float, float]:
    """SacreBLEU's ``significance.estimate_ci``: numpy mean and half the 95% range.

    Runs in the scores' dtype (float32 for chrF and TER).
    """
    scores = np.sort(scores)
    n = len(scores)
    lower_idx = n // 40
    upper_idx = n - lower_idx - 1
    ci = 0.5 * (scores[upper_idx] - scores[lower_idx])
    return float(scores.mean()), float(ci)


def _p_value(np: Any, stats: Any, real_difference: float) -> float:
    """SacreBLEU's ``_compute_p_value``: (count of stats > delta + 1) / (n + 1).

    ``real_difference`` must be a Python float: compared with a float32
    array it is rounded to float32 first, as in SacreBLEU.
    """
    c = np.sum(stats > real_difference).item()
    return (c + 1) / (len(stats) + 1)


# ----------------------------------------------------------------------------
# Single system: -ci
# ----------------------------------------------------------------------------


def resample_scores(
    stats: Any,
    score_rows: RowScorer,
    n_samples: int = DEFAULT_CI_SAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> Any:
    """The score of every bootstrap resample, as SacreBLEU's ``_bootstrap_resample``.

    A new generator seeded with ``seed`` draws ``n_samples`` resamples of
    the segments; the array's dtype is that of SacreBLEU's
    ``np.array([s.score for s in scores])``.
    """
    np = require_numpy("bootstrap resampling")
    _segments([stats])
    return bootstrap_scores(np, seed, n_samples, [(prepare(np, stats), score_rows)])[0]


def bootstrap_ci(
    stats: Any,
    score_rows: RowScorer,
    n_samples: int = DEFAULT_CI_SAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> tuple[float, float | None, float | None]:
    """(score, mean, ci) of one system and metric, as SacreBLEU's ``-ci``.

    ``ci`` is half the width of the 95% interval.  Mean and ci are ``None``
    when ``n_samples`` is 1 or less (SacreBLEU then skips resampling).
    """
    (result,) = confidence_intervals({"": stats}, {"": score_rows}, n_samples, seed)
    return result.score, result.mean, result.ci


def confidence_intervals(
    stats: Mapping[str, Any],
    scorers: Mapping[str, RowScorer],
    n_samples: int = DEFAULT_CI_SAMPLES,
    seed: int | None = DEFAULT_SEED,
    system: str = "",
) -> list[Result]:
    """One system's scores and bootstrap intervals for several metrics (``-ci``).

    SacreBLEU seeds a new generator for each metric, so with a seed all
    metrics share one draw (summed once here); with ``None`` each metric
    draws its own.
    """
    np = require_numpy("-ci/--confidence")
    labels = list(scorers)
    arrays = [stats[label] for label in labels]
    _segments(arrays)
    actual = [_actual_score(np, a, scorers[label]) for a, label in zip(arrays, labels)]
    if n_samples <= 1:
        return [Result(system, label, score) for label, score in zip(labels, actual)]
    jobs = [(prepare(np, a), scorers[label]) for a, label in zip(arrays, labels)]
    if seed is None:
        samples = [bootstrap_scores(np, None, n_samples, [job])[0] for job in jobs]
    else:
        samples = bootstrap_scores(np, seed, n_samples, jobs)
    results = []
    for label, score, scores in zip(labels, actual, samples):
        mean, ci = score_estimate_ci(np, scores)
        results.append(Result(system, label, score, mean=mean, ci=ci))
    return results


# ----------------------------------------------------------------------------
# Paired tests
# ----------------------------------------------------------------------------


def _check_systems(
    baseline: SystemStats, systems: Sequence[SystemStats], scorers: Mapping[str, RowScorer]
) -> int:
    labels = list(scorers)
    for system in (baseline, *systems):
        missing = [label for label in labels if label not in system.stats]
        if missing:
            raise ValueError(f"{system.name!r} has no statistics for {', '.join(missing)}")
    return _segments([s.stats[label] for s in (baseline, *systems) for label in labels])


def paired_bs(
    baseline: SystemStats,
    systems: Sequence[SystemStats],
    scorers: Mapping[str, RowScorer],
    n_samples: int = DEFAULT_BS_SAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> list[Result]:
    """Paired bootstrap resampling, as SacreBLEU's ``--paired-bs``.

    Results come system by system (the baseline first), metric by metric in
    ``scorers`` order: the baseline with its score and bootstrap mean and
    interval, each system with score, mean, interval and p-value.
    ``n_samples`` of 0 or less means the default 1000.
    """
    np = require_numpy("--paired-bs")
    n_samples = _samples(n_samples, DEFAULT_BS_SAMPLES)
    labels = list(scorers)
    _check_systems(baseline, systems, scorers)
    everyone = [baseline, *systems]
    actual = [
        {label: _actual_score(np, s.stats[label], scorers[label]) for label in labels}
        for s in everyone
    ]
    prepared = [{label: prepare(np, s.stats[label]) for label in labels} for s in everyone]

    def jobs(index: int) -> list[tuple[Prepared, RowScorer]]:
        return [(prepared[index][label], scorers[label]) for label in labels]

    # The baseline's interval: _bootstrap_resample, a generator per metric.
    shared = seed is not None and system_seed(seed) == seed
    if seed is None:
        baseline_ci = [bootstrap_scores(np, None, n_samples, [job])[0] for job in jobs(0)]
    elif shared:  # every system draws the baseline's indices: one pass for all
        everything = bootstrap_scores(
            np, seed, n_samples, [job for i in range(len(everyone)) for job in jobs(i)]
        )
        per_system = [
            everything[i * len(labels) : (i + 1) * len(labels)] for i in range(len(everyone))
        ]
        baseline_ci = per_system[0]
    else:
        baseline_ci = bootstrap_scores(np, seed, n_samples, jobs(0))

    results = []
    for label, scores in zip(labels, baseline_ci):
        mean, ci = _estimate_ci(np, scores)
        results.append(
            Result(
                baseline.name, label, actual[0][label], mean=mean, ci=ci, dtype=scores.dtype.name
            )
        )

    for i, system in enumerate(systems, start=1):
        if shared:
            scores_bl, scores_sys = baseline_ci, per_system[i]
        else:
            drawn = bootstrap_scores(np, system_seed(seed), n_samples, jobs(0) + jobs(i))
            scores_bl, scores_sys = drawn[: len(labels)], drawn[len(labels) :]
        for j, label in enumerate(labels):
            sys_mean, sys_ci = _estimate_ci(np, scores_sys[j])
            sample_diffs = np.abs(scores_sys[j] - scores_bl[j])
            stats = sample_diffs - sample_diffs.mean()
            diff = abs(actual[0][label] - actual[i][label])
            p = _p_value(np, stats, diff)
            results.append(
                Result(
                    system.name,
                    label,
                    actual[i][label],
                    mean=sys_mean,
                    ci=sys_ci,
                    p_value=p,
                    dtype=scores_sys[j].dtype.name,
                )
            )
    return results


def paired_ar(
    baseline: SystemStats,
    systems: Sequence[SystemStats],
    scorers: Mapping[str, RowScorer],
    n_trials: int = DEFAULT_AR_TRIALS,
    seed: int | None = DEFAULT_SEED,
    n_confidence: int = -1,
) -> list[Result]:
    """Paired approximate randomization, as SacreBLEU's ``--paired-ar``.

    Results are ordered as ``paired_bs``'s.  SacreBLEU's command line
    computes no intervals for AR (``n_confidence=-1``); with ``n_confidence``
    > 0 (0: the default 1000) the baseline gets ``_bootstrap_resample``'s
    interval and each system a bootstrap interval drawn from its generator
    after the swap masks, as ``PairedTest(n_ar_confidence=...)`` does.
    ``n_trials`` of 0 or less means the default 10000.
    """
    np = require_numpy("--paired-ar")
    n_trials = _samples(n_trials, DEFAULT_AR_TRIALS)
    n_confidence = _confidence_samples(n_confidence)
    labels = list(scorers)
    n = _check_systems(baseline, systems, scorers)
    everyone = [baseline, *systems]
    actual = [
        {label: _actual_score(np, s.stats[label], scorers[label]) for label in labels}
        for s in everyone
    ]

    results = []
    for label in labels:
        mean = ci = None
        dtype = "float64"
        if n_confidence > 0:
            job = (prepare(np, baseline.stats[label]), scorers[label])
            (scores,) = bootstrap_scores(np, seed, n_confidence, [job])
            mean, ci = _estimate_ci(np, scores)
            dtype = scores.dtype.name
        results.append(
            Result(baseline.name, label, actual[0][label], mean=mean, ci=ci, dtype=dtype)
        )

    # Systems seeded alike draw alike: one pass over the masks for all of them.
    sys_seed = system_seed(seed)
    compared = list(range(1, len(everyone)))
    groups = [compared] if sys_seed is not None else [[i] for i in compared]
    outcome: dict[int, dict[str, tuple[float, float | None, float | None, str]]] = {}
    for group in groups:
        rng = np.random.default_rng(sys_seed)
        diffs = _ar_differences(
            np, rng, n, n_trials, baseline, [everyone[i] for i in group], labels
        )
        for i, per_label in zip(group, diffs):
            outcome[i] = {}
            for label in labels:
                a, b = (scorers[label](x) for x in per_label[label])
                diff = abs(actual[0][label] - actual[i][label])
                outcome[i][label] = (_p_value(np, np.abs(a - b), diff), None, None, "float64")
        if n_confidence > 0:  # drawn after the masks, from the same generator
            jobs = [
                (prepare(np, everyone[i].stats[label]), scorers[label])
                for i in group
                for label in labels
            ]
            sums = resample_sums(np, [p for p, _ in jobs], bootstrap_indices(rng, n, n_confidence))
            for k, (i, label) in enumerate((i, label) for i in group for label in labels):
                scores = jobs[k][1](sums[k])
                mean, ci = _estimate_ci(np, scores)
                outcome[i][label] = (outcome[i][label][0], mean, ci, scores.dtype.name)

    for i, system in enumerate(systems, start=1):
        for label in labels:
            p, mean, ci, dtype = outcome[i][label]
            results.append(
                Result(
                    system.name, label, actual[i][label], mean=mean, ci=ci, p_value=p, dtype=dtype
                )
            )
    return results


def _ar_differences(
    np: Any,
    rng: Any,
    n: int,
    n_trials: int,
    baseline: SystemStats,
    systems: Sequence[SystemStats],
    labels: Sequence[str],
) -> list[dict[str, tuple[Any, Any]]]:
    """The shuffled pseudo-systems' summed rows (a, b) of every trial, per system and metric.

    SacreBLEU's ``shuf_a = pos @ bl + neg @ sys`` and ``shuf_b = neg @ bl +
    pos @ sys``.  Integer statistics: ``sys + pos @ (bl - sys)`` and ``bl -
    pos @ (bl - sys)``, computed exactly (integer partial sums, in float32
    while they stay below 2**24, else float64) and returned as int64 as
    SacreBLEU's products are.  Float statistics: SacreBLEU's own float64
    products.
    """
    int_pairs, float_jobs = [], []
    for s, system in enumerate(systems):
        for label in labels:
            bl, sy = np.asarray(baseline.stats[label]), np.asarray(system.stats[label])
            if bl.dtype.kind in "iub" and sy.dtype.kind in "iub":
                int_pairs.append((s, label, bl, sy))
            else:
                as64 = (np.ascontiguousarray(x, dtype=np.float64) for x in (bl, sy))
                float_jobs.append((s, label, *as64))

    # bl - sys side by side; float32 when every partial sum stays below 2**24.
    int_cols: list[tuple[int, str, int, int]] = []  # (system, label, start, width)
    totals = {}
    stacked = None
    if int_pairs:
        largest = max(max(int(np.abs(bl).max()), int(np.abs(sy).max())) for *_, bl, sy in int_pairs)
        exact32 = 2 * largest * n <= FLOAT32_EXACT
        width = sum(bl.shape[1] for *_, bl, _ in int_pairs)
        stacked = np.empty((n, width), dtype=np.float32 if exact32 else np.float64)
        start = 0
        for s, label, bl, sy in int_pairs:
            k = bl.shape[1]
            stacked[:, start : start + k] = bl.astype(np.int64) - sy.astype(np.int64)
            int_cols.append((s, label, start, k))
            totals[s, label] = (bl.sum(axis=0, dtype=np.int64), sy.sum(axis=0, dtype=np.int64))
            start += k

    parts: dict[tuple[int, str], tuple[list[Any], list[Any]]] = {
        (s, label): ([], []) for s in range(len(systems)) for label in labels
    }
    for pos in swap_masks(rng, n, n_trials):
        if stacked is not None:
            moved = (pos.astype(stacked.dtype) @ stacked).astype(np.int64)
            for s, label, begin, width in int_cols:
                bl_total, sys_total = totals[s, label]
                shift = moved[:, begin : begin + width]
                parts[s, label][0].append(sys_total + shift)
                parts[s, label][1].append(bl_total - shift)
        if float_jobs:
            # numpy multiplies a bool mask by float64 statistics as the mask
            # cast to float64, through BLAS: the same products, made once.
            pos64 = pos.astype(np.float64)
            neg64 = (~pos).astype(np.float64)
            baseline_products: dict[str, tuple[Any, Any]] = {}
            for s, label, bl, sy in float_jobs:
                if label not in baseline_products:
                    baseline_products[label] = (pos64 @ bl, neg64 @ bl)
                pos_bl, neg_bl = baseline_products[label]
                parts[s, label][0].append(pos_bl + neg64 @ sy)
                parts[s, label][1].append(neg_bl + pos64 @ sy)
    return [
        {label: tuple(np.concatenate(x) for x in parts[s, label]) for label in labels}
        for s in range(len(systems))
    ]
