"""Scores of many summed statistics rows at once, as SacreBLEU's resampling computes them.

SacreBLEU's significance code scores every resample by calling the metric's
scalar ``_compute_score_from_stats`` on a numpy row.  Which floating-point
type each operation then runs in depends on the row's dtype (NumPy 2, NEP 50:
a Python number next to a numpy scalar adopts the numpy scalar's type), so
the same statistics give slightly different scores in its bootstrap and its
approximate randomization code.  The functions here take a 2-D array of
summed rows and reproduce, bit for bit, what SacreBLEU returns for each row;
the row dtype selects the arithmetic, exactly as it does in SacreBLEU:

* ``float32`` rows (bootstrap resampling, ``np.array(stats, dtype='float32')``
  summed): each operation on a ``np.float32`` value runs in float32 and
  rounds to float32, Python constants are first rounded to float32; an
  operation between two Python numbers stays in double.
* integer rows (approximate randomization on BLEU and chrF statistics:
  ``bool @ int64``): divisions give float64, so the arithmetic is double,
  except that BLEU's add-k ``correct[n] += k`` writes back into an int64 row
  and truncates a fractional ``k``.
* ``float64`` rows (approximate randomization on TER statistics, and corpus
  scores of Python lists): plain double arithmetic, as in Python.

Each function returns the scores in the dtype ``np.array([...scores])`` gives
in SacreBLEU: ``float32`` when every score is a ``np.float32`` (chrF and TER
on float32 rows), else ``float64`` (a Python ``0.0`` among float32 scores
widens the array).  The dtype matters downstream: SacreBLEU's means, CIs and
p-value comparisons run in the array's dtype.

Transcendental functions: BLEU takes ``math.log`` of each precision and
``math.exp`` of the mean log (and of the brevity penalty's argument), in
double through the C library.  NumPy's ``np.log``/``np.exp`` use their own
vectorized code on some CPUs (AVX-512) and are not guaranteed to round like
libm, so those two steps apply ``math.log``/``math.exp`` element by element
to already computed arrays; everything else is whole-array numpy.  Python's
own ``sum`` of the logs is emulated for the running interpreter: plain
left-to-right addition before 3.12, Neumaier's compensated sum from 3.12 on.

numpy is an optional extra, imported only when these functions run.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from bleustream.extras import require_numpy
from bleustream.metrics.smoothing import CHRF_EPS, SMOOTH_DEFAULTS

# Python's sum() of floats is compensated (Neumaier) from 3.12 on.
_COMPENSATED_SUM = sys.version_info >= (3, 12)


# ----------------------------------------------------------------------------
# Mixed float32 / double arithmetic
# ----------------------------------------------------------------------------
# A value is a pair (values, is32): ``values`` as float64 (a float32 value is
# stored exactly), ``is32`` true where the value is a numpy float32 scalar in
# SacreBLEU, false where it is a Python float (or a float64 scalar).  Python
# constants are (constant, False).


def _op(np: Any, fn: Any, a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    """``fn(a, b)`` in float32 where either side is float32, else in double."""
    (av, a32), (bv, b32) = a, b
    is32 = np.logical_or(a32, b32)
    wide = fn(np.asarray(av, dtype=np.float64), np.asarray(bv, dtype=np.float64))
    if not np.any(is32):
        return wide, is32
    narrow = fn(np.asarray(av, dtype=np.float32), np.asarray(bv, dtype=np.float32))
    return np.where(is32, narrow.astype(np.float64), wide), is32


def _where(np: Any, cond: Any, a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    return np.where(cond, a[0], b[0]), np.where(cond, a[1], b[1])


def _result(np: Any, value: tuple[Any, Any], rows: int) -> Any:
    """The scores as ``np.array`` of SacreBLEU's score objects would hold them."""
    values = np.broadcast_to(np.asarray(value[0], dtype=np.float64), (rows,))
    is32 = np.broadcast_to(np.asarray(value[1], dtype=bool), (rows,))
    if rows and bool(is32.all()):
        return values.astype(np.float32)
    return np.array(values, dtype=np.float64)


def _columns(np: Any, sums: Any) -> tuple[Any, bool, bool]:
    """The rows as float64 (exact), whether they are float32, whether integer."""
    sums = np.asarray(sums)
    if sums.ndim != 2:
        raise ValueError("expected a 2-D array of summed statistics rows")
    is32 = sums.dtype == np.float32
    is_int = sums.dtype.kind in "iub"
    if not (is32 or is_int or sums.dtype == np.float64):
        raise ValueError(f"unsupported statistics dtype {sums.dtype}")
    return sums.astype(np.float64), bool(is32), bool(is_int)


def _python_sum(np: Any, terms: Any, counts: Any) -> Any:
    """``sum(row[:count])`` of Python floats for every row, as this interpreter sums.

    ``terms`` is (rows, k) float64; every count is at least 1.  ``sum``
    starts from the int 0, so the first term is taken exactly; from Python
    3.12 on the following float terms are added with Neumaier's compensation
    (CPython's ``builtin_sum``), before that plainly from left to right.
    """
    total = terms[:, 0].copy()
    comp = np.zeros_like(total)
    with np.errstate(all="ignore"):
        for j in range(1, terms.shape[1]):
            active = counts > j
            x = terms[:, j]
            t = total + x
            if _COMPENSATED_SUM:
                lost = np.where(np.abs(total) >= np.abs(x), (total - t) + x, (x - t) + total)
                comp = np.where(active, comp + lost, comp)
            total = np.where(active, t, total)
        if _COMPENSATED_SUM:
            use = (comp != 0) & np.isfinite(comp)
            total = np.where(use, total + comp, total)
    return total


def _map(np: Any, fn: Any, values: Any) -> Any:
    """``fn`` (a ``math`` function) of each value, through the C library as SacreBLEU."""
    flat = values.ravel().tolist()
    return np.fromiter(map(fn, flat), dtype=np.float64, count=len(flat)).reshape(values.shape)


# ----------------------------------------------------------------------------
# BLEU
# ----------------------------------------------------------------------------


def bleu_rows(sums: Any, settings: Any) -> Any:
    """BLEU of every summed row ``[hyp_len, ref_len, correct_1..N, total_1..N]``.

    SacreBLEU's ``BLEU.compute_bleu`` on each row: precisions in float32 for
    float32 rows, double otherwise; the brevity penalty, logs and final
    exponential in double.  Every score is a Python float in SacreBLEU, so
    the result is float64.
    """
    np = require_numpy()
    values, f32, is_int = _columns(np, sums)
    order = int(settings.max_order)
    method = settings.smooth_method
    smooth = settings.smooth_value
    if smooth is None:
        smooth = SMOOTH_DEFAULTS[method]
    rows = values.shape[0]
    if values.shape[1] != 2 + 2 * order:
        raise ValueError(f"BLEU rows of max order {order} have {2 + 2 * order} columns")

    # int(stats[0]), int(stats[1]); the lengths are then Python ints.
    sys_len, ref_len = np.trunc(values[:, 0]), np.trunc(values[:, 1])
    correct, total = values[:, 2 : 2 + order].copy(), values[:, 2 + order :].copy()
    any_match = (correct != 0).any(axis=1)

    with np.errstate(all="ignore"):
        # bp = math.exp(1 - ref_len / sys_len) if sys_len < ref_len (0.0 if sys_len == 0)
        short = (sys_len < ref_len) & (sys_len > 0) & any_match
        bp = np.where((sys_len < ref_len) & (sys_len <= 0), 0.0, 1.0)
        bp[short] = _map(np, math.exp, 1 - ref_len[short] / sys_len[short])

        if method == "add-k" and order > 1:
            if f32:  # np.float32 += Python number: float32 arithmetic
                k32 = np.float32(smooth)
                correct[:, 1:] = (correct[:, 1:].astype(np.float32) + k32).astype(np.float64)
                total[:, 1:] = (total[:, 1:].astype(np.float32) + k32).astype(np.float64)
            elif is_int:  # written back into an int64 row: truncated
                correct[:, 1:] = np.trunc(correct[:, 1:] + smooth)
                total[:, 1:] = np.trunc(total[:, 1:] + smooth)
            else:
                correct[:, 1:] += smooth
                total[:, 1:] += smooth

        # The loop over orders stops at the first order with no n-grams.
        alive = np.cumprod(total != 0, axis=1).astype(bool)
        zero = alive & (correct == 0)
        if f32:
            c32, t32 = correct.astype(np.float32), total.astype(np.float32)
            hundred = np.float32(100.0)
            matched = ((hundred * c32) / t32).astype(np.float64)
            if method == "exp":
                mteval = 2.0 ** np.cumsum(zero, axis=1)
                smoothed = (hundred / (mteval.astype(np.float32) * t32)).astype(np.float64)
            elif method == "floor":
                smoothed = (np.float32(100.0 * smooth) / t32).astype(np.float64)
            else:
                smoothed = np.zeros_like(values[:, :order])
        else:
            matched = (100.0 * correct) / total
            if method == "exp":
                mteval = 2.0 ** np.cumsum(zero, axis=1)
                smoothed = 100.0 / (mteval * total)
            elif method == "floor":
                smoothed = (100.0 * smooth) / total
            else:
                smoothed = np.zeros_like(values[:, :order])
        precisions = np.where(alive, np.where(zero, smoothed, matched), 0.0)

        n_alive = alive.sum(axis=1)
        if settings.effective_order:
            eff = np.where(n_alive > 0, n_alive, order)
        else:
            eff = np.full(rows, order)
        in_mean = np.arange(order)[None, :] < eff[:, None]
        # my_log(0.0) is -9999999999: the mean log then underflows exp() to 0.0.
        floored = (in_mean & (precisions == 0.0)).any(axis=1) | ~any_match
        logs = np.zeros_like(precisions)
        take = in_mean & ~floored[:, None]
        logs[take] = _map(np, math.log, precisions[take])
        mean_log = _python_sum(np, logs, eff) / eff
        scores = np.zeros(rows, dtype=np.float64)
        live = ~floored
        scores[live] = bp[live] * _map(np, math.exp, mean_log[live])
    return scores


# ----------------------------------------------------------------------------
# chrF
# ----------------------------------------------------------------------------


def chrf_rows(sums: Any, settings: Any) -> Any:
    """chrF (chrF++ with word orders) of every summed row of ``[hyp, ref, match]`` triplets.

    SacreBLEU's ``CHRF._compute_f_score`` on each row, with its mix of
    float32 and Python floats: a precision or recall of a float32 row is
    float32, the smoothing ``eps`` is a Python float, and a running sum turns
    float32 at its first float32 term.  Scores are float32 on float32 rows
    except the Python ``0.0`` of a row with nothing to match.
    """
    np = require_numpy()
    values, f32, _ = _columns(np, sums)
    order = int(settings.char_order) + int(settings.word_order)
    if values.shape[1] != 3 * order:
        raise ValueError(f"chrF rows of {order} orders have {3 * order} columns")
    rows = values.shape[0]
    beta = settings.beta
    factor = (beta**2, False)
    one_plus = (1 + beta**2, False)
    eps = (CHRF_EPS, False)
    zero = (0.0, False)
    add, mul, div = np.add, np.multiply, np.divide

    with np.errstate(all="ignore"):
        score = zero
        avg_prec, avg_rec = zero, zero
        effective = np.zeros(rows, dtype=np.int64)
        for i in range(order):
            n_hyp, n_ref, n_match = (values[:, 3 * i + j] for j in range(3))
            has_hyp, has_ref = n_hyp > 0, n_ref > 0
            prec = _where(np, has_hyp, _op(np, div, (n_match, f32), (n_hyp, f32)), eps)
            rec = _where(np, has_ref, _op(np, div, (n_match, f32), (n_ref, f32)), eps)
            denom = _op(np, add, _op(np, mul, factor, prec), rec)
            term = _op(np, div, _op(np, mul, _op(np, mul, one_plus, prec), rec), denom)
            score = _op(np, add, score, _where(np, denom[0] > 0, term, eps))
            both = has_hyp & has_ref
            avg_prec = _where(np, both, _op(np, add, avg_prec, prec), avg_prec)
            avg_rec = _where(np, both, _op(np, add, avg_rec, rec), avg_rec)
            effective += both

        if settings.eps_smoothing:
            final = _op(np, div, _op(np, mul, (100, False), score), (order, False))
            return _result(np, final, rows)

        some = effective > 0
        count = (np.where(some, effective, 1), False)
        avg_prec = _where(np, some, _op(np, div, avg_prec, count), zero)
        avg_rec = _where(np, some, _op(np, div, avg_rec, count), zero)
        nonzero = _op(np, add, avg_prec, avg_rec)[0] != 0
        f = _op(np, mul, _op(np, mul, one_plus, avg_prec), avg_rec)
        f = _op(np, div, f, _op(np, add, _op(np, mul, factor, avg_prec), avg_rec))
        final = _where(np, nonzero, _op(np, mul, (100, False), f), zero)
    return _result(np, final, rows)


# ----------------------------------------------------------------------------
# TER
# ----------------------------------------------------------------------------


def ter_rows(sums: Any, settings: Any = None) -> Any:
    """TER of every summed row ``[num_edits, sum_ref_len]``; no setting changes it.

    SacreBLEU's ``TER._compute_score_from_stats``: ``100 * edits / ref_len``
    (float32 on float32 rows), else the Python ``100.0`` (edits, no
    reference words) or ``0.0``.
    """
    np = require_numpy()
    values, f32, _ = _columns(np, sums)
    if values.shape[1] != 2:
        raise ValueError("TER rows have 2 columns")
    edits, ref_len = values[:, 0], values[:, 1]
    with np.errstate(all="ignore"):
        ratio = _op(np, np.divide, (edits, f32), (ref_len, f32))
        fallback = (np.where(edits > 0, 1.0, 0.0), False)
        score = _where(np, ref_len > 0, ratio, fallback)
        final = _op(np, np.multiply, (100, False), score)
    return _result(np, final, values.shape[0])
