"""chrF's batches in C: a ``sentence_scores`` call's rows and score objects.

``c_count_lines(settings)`` counts a batch's rows in one call
(``chrf_rows``), ``c_score_objects(settings)`` makes their ``CHRFScore``
objects in another (``chrf_scores``); ``bleustream.metrics.chrf`` binds
them as its ``count_lines`` and ``score_objects`` with the compiled
kernels.  Each gives what the pure code gives (``chrf.py_count``, the best
reference's row; ``Spec.score_object``), to the last bit: the C code
computes ``chrf.f_score``'s operations in its order.  ``settings`` is a
``chrf.Settings``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from bleustream.kernels import native
from bleustream.metrics.protocol import Row
from bleustream.metrics.scores import CHRFScore


def _whole_settings(settings: Any) -> bool:
    """Whether the C batches take these settings as they are: orders and
    beta of type int (a score object keeps them, and names itself by beta)."""
    numbers = (settings.char_order, settings.word_order, settings.beta)
    return all(type(x) is int for x in numbers) and type(settings.eps_smoothing) is bool


def c_count_lines(settings: Any) -> Callable[[Sequence[str], Sequence[Any]], list[Row]] | None:
    """A batch's rows in one C call (``chrf_rows``): ``lines(hyps, refs)``,
    ``refs[i]`` the references of ``hyps[i]``, gives each ``c_count`` row,
    the C code choosing the best reference by ``f_score``'s twin."""
    assert native is not None
    if not _whole_settings(settings):
        return None
    kernel, lowercase = native.chrf_rows, settings.lowercase
    fixed = (settings.char_order, settings.word_order, settings.whitespace)
    fixed += (settings.beta, settings.eps_smoothing)

    def lines(hyps: Sequence[str], refs: Sequence[Any]) -> list[Row]:
        if lowercase:
            hyps = [hyp.lower() for hyp in hyps]
            refs = [tuple(ref.lower() for ref in segment) for segment in refs]
        return kernel(hyps, refs, *fixed)  # type: ignore[no-any-return]

    return lines


def c_score_objects(settings: Any) -> Callable[..., list[CHRFScore]] | None:
    """Score objects of a batch of rows in one C call (``chrf_scores``),
    called as ``made(rows, signature, one)``, ``one`` the pure
    ``Spec.score_object``: each object equals ``one(row, signature)``, its
    score computed by ``f_score``'s twin; a row the C code cannot read as
    whole numbers within 2**53 goes to ``one``."""
    assert native is not None
    if not _whole_settings(settings):
        return None
    kernel = native.chrf_scores
    fixed = (settings.char_order, settings.word_order, settings.beta, settings.eps_smoothing)

    def made(rows: Sequence[Row], signature: str, one: Callable[..., CHRFScore]) -> Any:
        return kernel(rows, *fixed, CHRFScore, signature, one)

    return made
