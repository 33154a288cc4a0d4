"""chrF in C: the compiled twins of ``chrf.py_<name>``.

``c_prepare_refs`` and ``c_count`` count a segment (``chrf_ref_rows``).

``c_count_batch(settings)`` counts a batch's rows in one call
(``chrf_rows``), ``c_sum_batch`` sums them there (``chrf_sum``),
``c_sum_block`` sums the lines of a reader's blocks of bytes there
(``chrf_sum_block``), ``c_score_batch(settings)`` makes their ``CHRFScore``
objects in another (``chrf_scores``); ``bleustream.metrics.chrf`` binds
them with the compiled kernels (the batch protocol:
``bleustream.metrics.protocol``).  Each gives what the pure code gives
(``chrf.py_count``, the best reference's row; ``Spec.score_object``), to
the last bit: the C code computes ``chrf.f_score``'s operations in its
order.  Settings the C batches do not take (orders or beta not of type
int) are counted with ``c_count`` segment by segment, and scored by the
pure code.  This module imports ``chrf`` (for ``f_score``) only when
first called, as ``chrf`` imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from bleustream.kernels import native
from bleustream.metrics.chrf_fscore import f_score
from bleustream.metrics.protocol import (
    CountBatch,
    Row,
    ScoreBatch,
    SumBatch,
    SumBlock,
    decoded_blocks,
    each_score,
    segment_rows,
    sum_of_rows,
)
from bleustream.metrics.scores import CHRFScore

# ``chrf.Settings``, named and not imported: this module sits below ``chrf``.
Settings = Any


def _whole_settings(settings: Settings) -> bool:
    """Whether the C batches take these settings as they are: orders and
    beta of type int (a score object keeps them, and names itself by beta)."""
    numbers = (settings.char_order, settings.word_order, settings.beta)
    return all(type(x) is int for x in numbers) and type(settings.eps_smoothing) is bool


# The per-segment twins of chrf.py_prepare_refs and chrf.py_count:
# ``chrf_ref_rows`` gives the rows ``_one_reference_stats`` /
# ``_order_stats`` make, one per reference; the choice of the best
# reference, with its floating-point f-scores (``chrf.f_score``), is made
# in Python.  The references are kept as (lowercased) text, whose n-grams
# the C code makes on each call.


def c_prepare_refs(settings: Settings) -> Callable[[Sequence[str]], tuple[str, ...]]:
    """``py_prepare_refs`` for the compiled kernels: the references' text."""
    lowercase = settings.lowercase

    def prepare(refs: Sequence[str]) -> tuple[str, ...]:
        if not refs:
            raise ValueError("a segment needs at least one reference")
        return tuple(ref.lower() for ref in refs) if lowercase else tuple(refs)

    return prepare


def c_count(settings: Settings) -> Callable[[str, tuple[str, ...]], Row]:
    """``py_count`` for the compiled kernels."""
    assert native is not None

    chars, words, whitespace = settings.char_order, settings.word_order, settings.whitespace
    lowercase = settings.lowercase
    order, beta, eps_smoothing = settings.order, settings.beta, settings.eps_smoothing
    rows_of = native.chrf_ref_rows

    def hyp_row(hyp: str, refs: tuple[str, ...]) -> Row:
        rows = rows_of(hyp.lower() if lowercase else hyp, refs, chars, words, whitespace)
        if len(rows) == 1:
            return rows[0]
        best: Row = ()
        best_f = -1.0
        for stats in rows:
            f = f_score(stats, order, beta, eps_smoothing)
            if f > best_f:
                best_f, best = f, stats
        return best

    return hyp_row


def _kernel_settings(settings: Settings) -> tuple[Any, ...]:
    """The settings as the batch kernels take them after the text:
    ``char_order, word_order, whitespace, beta, eps_smoothing``."""
    orders = (settings.char_order, settings.word_order, settings.whitespace)
    return (*orders, settings.beta, settings.eps_smoothing)


def _c_batch(settings: Settings, kernel: Any) -> Callable[[Sequence[str], Sequence[Any]], Any]:
    """``kernel`` (``chrf_rows`` or ``chrf_sum``) called as ``(hyps, refs)``
    with the settings, on the lines lowercased where they say so."""
    lowercase, fixed = settings.lowercase, _kernel_settings(settings)

    def lines(hyps: Sequence[str], refs: Sequence[Any]) -> Any:
        if lowercase:
            hyps = [hyp.lower() for hyp in hyps]
            refs = [tuple(ref.lower() for ref in segment) for segment in refs]
        return kernel(hyps, refs, *fixed)

    return lines


def _segments(settings: Settings) -> CountBatch:
    """The rows of the compiled per-segment kernels (``c_count``)."""
    return segment_rows(c_prepare_refs(settings), c_count(settings))


def c_count_batch(settings: Settings) -> CountBatch:
    """A batch's rows in one C call (``chrf_rows``): ``refs[i]`` the
    references of ``hyps[i]``, each row ``c_count``'s, the C code choosing
    the best reference by ``f_score``'s twin."""
    assert native is not None
    if not _whole_settings(settings):
        return _segments(settings)
    return _c_batch(settings, native.chrf_rows)


def c_sum_batch(settings: Settings) -> SumBatch:
    """The sum of ``c_count_batch``'s rows, made in C (``chrf_sum``) without
    a row per segment, ready to add."""
    assert native is not None
    if not _whole_settings(settings):
        return sum_of_rows(_segments(settings))
    summed = _c_batch(settings, native.chrf_sum)
    return lambda hyps, refs: ("sum", summed(hyps, refs))


def c_sum_block(settings: Settings) -> SumBlock:
    """``chrf.py_sum_block`` in one C call that decodes the lines too
    (``chrf_sum_block``); where the C batches do not take the settings, or
    the text is lowercased first, decoded and then ``c_sum_batch``."""
    assert native is not None
    if settings.lowercase or not _whole_settings(settings):
        return decoded_blocks(c_sum_batch)(settings)
    fixed, kernel = _kernel_settings(settings), native.chrf_sum_block
    return lambda hyp_block, ref_blocks: kernel(hyp_block, ref_blocks, *fixed)  # type: ignore[no-any-return]


def c_score_batch(settings: Settings) -> ScoreBatch:
    """Score objects of a batch of rows in one C call (``chrf_scores``),
    called as ``made(rows, signature, one)``, ``one`` the pure
    ``Spec.score_object``: each object equals ``one(row, signature)``, its
    score computed by ``f_score``'s twin; a row the C code cannot read as
    whole numbers within 2**53 goes to ``one``."""
    assert native is not None
    if not _whole_settings(settings):
        return each_score
    kernel = native.chrf_scores
    fixed = (settings.char_order, settings.word_order, settings.beta, settings.eps_smoothing)

    def made(rows: Sequence[Row], signature: str, one: Callable[..., CHRFScore]) -> Any:
        return kernel(rows, *fixed, CHRFScore, signature, one)

    return made
