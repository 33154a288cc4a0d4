"""BLEU's batches in C: a batch's rows from its lines, and its sentence
scores, each in one call.

``c_count_lines``/``c_sum_lines`` tokenize and count a batch of segments
(``bleu_rows_13a``/``bleu_rows_zh``, ``bleu_sum_*``); ``c_score_objects``
and ``c_score_values`` score a batch of rows (``bleu_scores``,
``bleu_values``), performing ``bleu.bleu_of_row``'s floating-point
operations in its order.  ``bleustream.metrics.bleu`` binds them with the
compiled kernels, as chrF's are bound from ``chrf_batches``; each gives
what the pure code gives, to the last bit.  ``settings`` is a
``bleu.Settings``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from bleustream.kernels import native
from bleustream.metrics.protocol import Row
from bleustream.metrics.scores import BLEUScore

Lines = Callable[[Sequence[str], Sequence[Sequence[str]]], Any]


def _lines(settings: Any, kernels: dict[str, Any]) -> Lines | None:
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


def c_count_lines(settings: Any) -> Lines | None:
    """The rows of a batch of segments, from their lines (``hyps[i]`` and
    its references ``refs[i]``): one C call that tokenizes and counts them
    all (``bleu_rows_13a``/``bleu_rows_zh``), where the kernels have the
    tokenizer; None elsewhere.  Row ``i`` is
    ``count(settings)(hyps[i], prepare_refs(settings)(refs[i]))``."""
    assert native is not None
    return _lines(settings, {"13a": native.bleu_rows_13a, "zh": native.bleu_rows_zh})


def c_sum_lines(settings: Any) -> Lines | None:
    """The summed row of a batch of segments, from their lines: the sum of
    ``count_lines``' rows, made in C (``bleu_sum_13a``/``bleu_sum_zh``);
    None where ``count_lines`` is."""
    assert native is not None
    return _lines(settings, {"13a": native.bleu_sum_13a, "zh": native.bleu_sum_zh})


# A batch of sentence scores (``Spec.score_objects``): rows in, SacreBLEU's
# score objects out, in one C call.
ScoreObjects = Callable[[Sequence[Row], str, Callable[[Row, str], BLEUScore]], list[BLEUScore]]


def _c_settings(settings: Any) -> tuple[int, str, float, bool] | None:
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


def c_score_objects(settings: Any) -> ScoreObjects | None:
    """Score objects of a batch of rows made in C (``bleu_scores``), called
    as ``made(rows, signature, one)`` where ``one`` is the pure
    ``Spec.score_object``: each object equals ``one(row, signature)`` to the
    last bit.  The C code performs ``bleu_of_row``'s floating-point
    operations in its order; a row it cannot score so (a log of 0, a math
    error, numbers past 2**53) it passes to ``one``.  None with add-k
    smoothing (its score objects hold adjusted counts), with BLEU-1..N, and
    for a smoothing value that is not an int or a float."""
    assert native is not None
    scored = _c_settings(settings)
    if scored is None:
        return None
    kernel = native.bleu_scores
    fixed = (*scored, BLEUScore)

    def made(
        rows: Sequence[Row], signature: str, one: Callable[[Row, str], BLEUScore]
    ) -> list[BLEUScore]:
        return kernel(rows, *fixed, signature, one)  # type: ignore[no-any-return]

    return made


def c_score_values(
    settings: Any, one: Callable[[Row], float]
) -> Callable[[Sequence[Row]], list[float]] | None:
    """Each row's score in one C call (``bleu_values``: ``c_score_objects``'
    arithmetic without the objects); a row it cannot score so is ``one(row)``,
    the pure score.  None where ``c_score_objects`` is None."""
    assert native is not None
    fixed = _c_settings(settings)
    if fixed is None:
        return None
    kernel = native.bleu_values

    def values(rows: Sequence[Row]) -> list[float]:
        return kernel(rows, *fixed, one)  # type: ignore[no-any-return]

    return values
