"""SacreBLEU's bootstrap of one metric's per-segment rows: the rule behind
``corpus_score(..., n_bootstrap=N)``, and the draws the significance tests
(``bleustream.significance``) make with it.

SacreBLEU's ``_bootstrap_resample`` seeds ``np.random.default_rng`` with
``$SACREBLEU_SEED`` (default 12345, ``none`` for fresh entropy), draws
``choice(segments, size=(samples, segments))``, sums each resample's rows
in float32 and scores the sums; ``Score.estimate_ci`` then gives the mean
and half the 95% interval.  ``corpus_bootstrap`` does the same, to the
last bit, drawing and summing in chunks (``bleustream.significance.draws``
says why the sums are SacreBLEU's).  numpy is imported only when a
bootstrap runs (``require_numpy``, whose error names the extra).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Callable

from bleustream.extras import require_numpy
from bleustream.metrics.protocol import Row
from bleustream.metrics.registry import Spec
from bleustream.metrics.seeds import parse_seed

# (summed rows) -> their scores, e.g. ``lambda a: array_scores.bleu_rows(a, S)``
RowScorer = Callable[[Any], Any]

DEFAULT_SEED = 12345
SEED_VARIABLE = "SACREBLEU_SEED"

# Work arrays hold about this many elements per chunk (indices, counts, masks).
CHUNK_ELEMENTS = 1 << 21
# Integers up to 2**24 are exact in float32.
FLOAT32_EXACT = 1 << 24


def seed_text(seed: int | None) -> str:
    """The seed as SacreBLEU's signature shows it (``12345``, ``none``)."""
    return str(seed).lower()


def environment_seed() -> tuple[int | None, str]:
    """The seed of ``$SACREBLEU_SEED`` (default 12345) and its signature text,
    as ``_bootstrap_resample`` reads them: the variable's own text, lowercased."""
    text = os.environ.get(SEED_VARIABLE, str(DEFAULT_SEED))
    return parse_seed(text), text.lower()


def corpus_bootstrap(spec: Spec, rows: Sequence[Row], n_samples: int) -> tuple[str, Any, Any]:
    """(seed text, mean, half the 95% interval) of ``n_samples`` bootstrap
    resamples of one metric's per-segment rows: SacreBLEU's
    ``corpus_score(..., n_bootstrap=n_samples)``.  The mean and interval
    are of SacreBLEU's types: ``np.float32`` where the resampled scores are
    float32 (chrF, TER), Python floats for BLEU's."""
    np = require_numpy("corpus_score(n_bootstrap=...)")
    if not rows:
        raise ValueError("bootstrap resampling needs at least one segment")
    seed, text = environment_seed()
    metric, settings = spec.metric, spec.settings
    job = (prepare(np, np.array(rows)), lambda sums: metric.score_rows(sums, settings))
    (scores,) = bootstrap_scores(np, seed, n_samples, [job])
    mean, ci = score_estimate_ci(np, scores)
    if np.asarray(scores).dtype == np.float32:  # exact: each float came from a float32
        return text, np.float32(mean), np.float32(ci)
    return text, mean, ci


def bootstrap_indices(rng: Any, n_segments: int, n_samples: int) -> Iterator[Any]:
    """``rng.choice(n_segments, size=(n_samples, n_segments))`` in chunks of rows.

    The chunks, stacked, equal the single call's array (numpy's bounded
    integers buffer 32-bit halves in the bit generator itself), and leave
    ``rng`` in the same state.
    """
    rows = max(1, CHUNK_ELEMENTS // n_segments)
    for start in range(0, n_samples, rows):
        size = (min(rows, n_samples - start), n_segments)
        yield rng.choice(n_segments, size=size, replace=True)


@dataclass(frozen=True)
class Prepared:
    """One statistics array ready for resampling, split by columns.

    ``exact`` columns are integers whose resample sums stay at most 2**24,
    so float32 adds them exactly in any order; they are read from ``stats``,
    the caller's array (no copy).  The ``running`` columns (fractional, or
    too large) are SacreBLEU's float32 values, one contiguous row per column.
    """

    stats: Any
    exact: tuple[int, ...]
    running: tuple[int, ...]
    running32: Any


def prepare(np: Any, stats: Any) -> Prepared:
    array = np.asarray(stats)
    if array.ndim != 2:
        raise ValueError("statistics must be a 2-D array (segments x row)")
    n = len(array)
    if n:  # the largest magnitude per column, without an absolute copy of the array
        largest = np.maximum(array.max(axis=0), -(array.min(axis=0).astype(np.float64)))
    else:
        largest = np.zeros(array.shape[1])
    if array.dtype.kind in "iub":
        integral = np.ones(array.shape[1], dtype=bool)
    else:
        integral = (array == np.trunc(array)).all(axis=0)
    fits = integral & (largest.astype(np.float64) * n <= FLOAT32_EXACT)
    exact = tuple(int(j) for j in np.flatnonzero(fits))
    running = tuple(int(j) for j in np.flatnonzero(~fits))
    running32 = np.ascontiguousarray(array[:, list(running)].T, dtype=np.float32)
    return Prepared(array, exact, running, running32)


def running_sums(column32: Any, idx_t: Any, rows: int) -> Any:
    """Float32 sum of ``column32[idx]`` for each resample, added in index order.

    ``idx_t`` is the chunk's indices transposed, C-contiguous (segments x
    samples, at least 2 samples).  Reducing the gathered block over its
    first axis, numpy adds segment after segment into a running row of
    samples: SacreBLEU's ``stats_np[idxs][i].sum(0)`` order.  (Over a
    contiguous last axis, or a single sample, numpy would sum pairwise and
    round differently.)
    """
    return column32[idx_t].sum(axis=0)[:rows]


def resample_sums(np: Any, prepared: Sequence[Prepared], chunks: Iterator[Any]) -> list[Any]:
    """Float32 sums of every resample (one row per sample) for each array.

    Exact columns of all arrays side by side in one float32 matrix: how
    often each segment is drawn (``bincount``) times the statistics, one
    matrix product per chunk whose partial sums are integers of at most
    2**24, hence exact in any order.  Other columns: ``running_sums``.
    """
    widths = [len(p.exact) for p in prepared]
    stacked = None
    if sum(widths):
        n = len(prepared[0].stats)
        stacked = np.empty((n, sum(widths)), dtype=np.float32)
        start = 0
        for p, width in zip(prepared, widths):
            stacked[:, start : start + width] = p.stats[:, list(p.exact)]
            start += width
    parts: list[list[Any]] = [[] for _ in prepared]
    for idx in chunks:
        rows, n = idx.shape
        sums = None
        if stacked is not None:
            flat = (idx + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
            counts = np.bincount(flat, minlength=rows * n).reshape(rows, n)
            sums = counts.astype(np.float32) @ stacked
        idx_t = None
        if any(p.running for p in prepared):
            idx_t = np.ascontiguousarray((idx if rows > 1 else np.repeat(idx, 2, axis=0)).T)
        start = 0
        for p, width, part in zip(prepared, widths, parts):
            out = np.empty((rows, p.stats.shape[1]), dtype=np.float32)
            if width:
                out[:, list(p.exact)] = sums[:, start : start + width]
                start += width
            for j, column32 in zip(p.running, p.running32):
                out[:, j] = running_sums(column32, idx_t, rows)
            part.append(out)
    return [np.concatenate(p) for p in parts]


def bootstrap_scores(
    np: Any,
    seed: int | None,
    n_samples: int,
    jobs: Sequence[tuple[Prepared, RowScorer]],
) -> list[Any]:
    """Scores of every resample, for each (statistics, scorer), from one fresh generator."""
    n = len(jobs[0][0].stats)
    rng = np.random.default_rng(seed)
    sums = resample_sums(np, [p for p, _ in jobs], bootstrap_indices(rng, n, n_samples))
    return [scorer(s) for s, (_, scorer) in zip(sums, jobs)]


def score_estimate_ci(np: Any, scores: Any) -> tuple[float, float]:
    """SacreBLEU's ``Score.estimate_ci`` (single-system ``-ci``).

    The same bounds, but ``statistics.mean``: the exact mean rounded to the
    scores' type (``np.float32(mean)`` for float32 scores, which numpy
    converts through a double, as here).  SacreBLEU raises TypeError when
    Python floats and float32 mix (a resample scoring exactly 0 among chrF or
    TER scores); here the float64 array is averaged as Python floats.
    """
    raw = np.sort(scores)
    n = len(raw)
    lower_idx = n // 40
    upper_idx = n - lower_idx - 1
    ci = 0.5 * (raw[upper_idx] - raw[lower_idx])
    mean = statistics.mean(raw.tolist())
    if raw.dtype == np.float32:
        mean = np.float32(mean)
    return float(mean), float(ci)
