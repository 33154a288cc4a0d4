"""BLEU's batch functions in C, the compiled twins of ``bleu.py_<name>``.

``c_count_batch``/``c_sum_batch`` tokenize and count a batch of segments in
one call (``bleu_rows_13a``/``bleu_rows_zh``, ``bleu_sum_*``);
``c_score_batch`` and ``c_score_values_batch`` score a batch of rows
(``bleu_scores``, ``bleu_values``), performing ``bleu.bleu_of_row``'s
floating-point operations in its order.  Each gives what its pure twin
gives, to the last bit, for any settings: where the C code does not
tokenize or score so (another tokenizer, add-k smoothing, BLEU-1..N), it
counts segment by segment with the compiled ``bleu.c_count``, or scores
with the pure code, which ``bleustream.metrics.bleu`` passes in: that
module binds its ``c_*_batch`` twins from these (the batch protocol:
``bleustream.metrics.protocol``), and this one never imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable

from bleustream.kernels import native
from bleustream.metrics.protocol import (
    CountBatch,
    Row,
    ScoreBatch,
    SumBatch,
    SumBlock,
    each_score,
)
from bleustream.metrics.scores import BLEUScore

# ``bleu.Settings``, named and not imported: this module sits below ``bleu``.
Settings = Any

if TYPE_CHECKING:
    ScoreValues = Callable[[Sequence[Row]], list[float]]
else:
    ScoreValues = Any  # (for type checkers: see protocol.CountBatch)


def _lines(settings: Settings, kernels: dict[str, Any]) -> Any:
    """The kernel of the settings' tokenizer, called as ``(hyps, refs)``; None
    where the kernels lack the tokenizer."""
    kernel = kernels.get(settings.tokenize)
    if kernel is None:
        return None
    max_order = settings.max_order
    if settings.lowercase:

        def lowered(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> Any:
            return kernel(
                [hyp.lower() for hyp in hyps],
                [[ref.lower() for ref in texts] for texts in refs],
                max_order,
            )

        return lowered
    return lambda hyps, refs: kernel(hyps, refs, max_order)


def compiled_rows(settings: Settings) -> CountBatch | None:
    """Each segment's row from one C call that tokenizes and counts the
    whole batch (``bleu_rows_13a``/``bleu_rows_zh``); None where the kernels
    lack the settings' tokenizer (``bleu.c_count_batch`` then counts
    segment by segment)."""
    assert native is not None
    return _lines(settings, {"13a": native.bleu_rows_13a, "zh": native.bleu_rows_zh})  # type: ignore[no-any-return]


def compiled_sums(settings: Settings) -> SumBatch | None:
    """The batch's summed row, made in C (``bleu_sum_13a``/``bleu_sum_zh``)
    without a row per segment; None where the kernels lack the tokenizer."""
    assert native is not None
    summed = _lines(settings, {"13a": native.bleu_sum_13a, "zh": native.bleu_sum_zh})
    if summed is None:
        return None
    return lambda hyps, refs: ("sum", summed(hyps, refs))


def compiled_blocks(settings: Settings) -> SumBlock | None:
    """A block's summed row, its lines decoded, tokenized and counted in one
    C call (``bleu_sum_block_13a``/``bleu_sum_block_zh``); None where the
    kernels lack the tokenizer or the text is lowercased first."""
    assert native is not None
    kernels = {"13a": native.bleu_sum_block_13a, "zh": native.bleu_sum_block_zh}
    kernel = kernels.get(settings.tokenize)
    if kernel is None or settings.lowercase:
        return None
    max_order = settings.max_order
    return lambda hyp_block, ref_blocks: kernel(hyp_block, ref_blocks, max_order)  # type: ignore[no-any-return]


def _c_settings(settings: Settings) -> tuple[int, str, float, bool] | None:
    """The settings as ``bleu_scores`` and ``bleu_values`` take them, or
    None where the C code does not score: add-k smoothing (its score
    objects hold adjusted counts), BLEU-1..N, a smoothing value that is not
    an int or a float."""
    if settings.orders or settings.smooth_method == "add-k":
        return None
    value = settings.effective_smooth_value
    if type(value) not in (int, float, type(None)):
        return None
    return (
        settings.max_order,
        settings.smooth_method,
        float(value or 0.0),
        settings.effective_order,
    )


def c_score_batch(settings: Settings) -> ScoreBatch:
    """Score objects of a batch of rows made in one C call (``bleu_scores``),
    each equal to ``one(row, signature)`` to the last bit: the C code
    performs ``bleu_of_row``'s floating-point operations in its order, and
    passes a row it cannot score so (a log of 0, a math error, numbers past
    2**53) to ``one``.  ``each_score`` where ``_c_settings`` is None."""
    assert native is not None
    scored = _c_settings(settings)
    if scored is None:
        return each_score
    kernel = native.bleu_scores
    fixed = (*scored, BLEUScore)

    def made(
        rows: Sequence[Row], signature: str, one: Callable[[Row, str], Any]
    ) -> list[BLEUScore]:
        return kernel(rows, *fixed, signature, one)  # type: ignore[no-any-return]

    return made


def compiled_values(settings: Settings, pure: ScoreValues) -> ScoreValues:
    """Each row's score, ``score(row, settings).score``, in one C call
    (``bleu_values``: ``c_score_batch``'s arithmetic without the objects);
    a row it cannot score so, and every row where ``_c_settings`` is None,
    is scored by ``pure`` (``bleu.py_score_values_batch``'s)."""
    assert native is not None
    fixed = _c_settings(settings)
    if fixed is None:
        return pure
    kernel = native.bleu_values

    def one(row: Row) -> float:
        return pure((row,))[0]

    def values(rows: Sequence[Row]) -> list[float]:
        return kernel(rows, *fixed, one)  # type: ignore[no-any-return]

    return values
