"""chrF's f-score of one row of (hypothesis, reference, match) triplets:
SacreBLEU's ``CHRF._compute_f_score``, shared by the pure counting
(``chrf.py``) and the compiled per-segment twin (``chrf_batches.py``),
which both choose the best reference by it."""

from __future__ import annotations

from collections.abc import Sequence

from bleustream.metrics.smoothing import CHRF_EPS


def f_score(stats: Sequence[int], order: int, beta: int, eps_smoothing: bool) -> float:
    """SacreBLEU's ``CHRF._compute_f_score``, operation for operation."""
    eps = CHRF_EPS
    score = 0.0
    effective_order = 0
    factor = beta**2
    avg_prec, avg_rec = 0.0, 0.0

    triplets = iter(stats)
    for n_hyp, n_ref, n_match in zip(triplets, triplets, triplets):
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps

        if eps_smoothing:  # the per-order sum is used by eps smoothing only
            denom = factor * prec + rec
            score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps

        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective_order += 1

    if eps_smoothing:
        return 100 * score / order

    if effective_order == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order

    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0
