"""SacreBLEU 2.6 as the oracle: its tokenizers, statistics and scores.

SacreBLEU is a declared test dependency, imported normally: if it is
missing, the differential tests must fail, not skip.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Callable

from sacrebleu.metrics.bleu import BLEU, BLEUScore
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
from sacrebleu.tokenizers.tokenizer_none import NoneTokenizer
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

from bleustream.metrics import bleu, chrf
from bleustream.metrics.bleu import BleuResult, Settings
from bleustream.metrics.registry import Spec
from bleustream.scorer import Scorer
from tests.helpers.bleu_stats import Stats

TOKENIZER_NAMES = ("13a", "intl", "zh", "char", "none")

ORACLE_TOKENIZERS = {
    "13a": Tokenizer13a(),
    "intl": TokenizerV14International(),
    "zh": TokenizerZh(),
    "char": TokenizerChar(),
    "none": NoneTokenizer(),
}

# (smooth_method, smooth_value): every method, with its default and with
# explicit values.
SMOOTHINGS: tuple[tuple[str, float | None], ...] = (
    ("exp", None),
    ("floor", None),
    ("floor", 0.05),
    ("add-k", None),
    ("add-k", 1),
    ("add-k", 0.5),
    ("none", None),
)


def smoothing_id(method: str, value: float | None) -> str:
    return method if value is None else f"{method}={value}"


def oracle_tokens(name: str, line: str) -> list[str]:
    """SacreBLEU's tokens: its tokenizer's output split on white space."""
    return ORACLE_TOKENIZERS[name](line).split()


def oracle_bleu(settings: Settings, references: Sequence[Sequence[str]] | None = None) -> BLEU:
    """SacreBLEU's BLEU with the same settings (``force`` only silences a warning)."""
    return BLEU(
        tokenize=settings.tokenize,
        lowercase=settings.lowercase,
        smooth_method=settings.smooth_method,
        smooth_value=settings.smooth_value,
        effective_order=settings.effective_order,
        max_ngram_order=settings.max_order,
        force=True,
        references=references,
    )


def oracle_chrf(settings: chrf.Settings, references: Sequence[Sequence[str]] | None = None) -> CHRF:
    """SacreBLEU's chrF with the same settings."""
    return CHRF(
        char_order=settings.char_order,
        word_order=settings.word_order,
        beta=settings.beta,
        lowercase=settings.lowercase,
        whitespace=settings.whitespace,
        eps_smoothing=settings.eps_smoothing,
        references=references,
    )


def oracle_row(stats: Stats) -> list[int]:
    """Our statistics in SacreBLEU's per-segment layout: [hyp, ref, *correct, *total]."""
    return [stats.hyp_len, stats.ref_len, *stats.matches, *stats.totals]


def same_float(ours: float, theirs: float) -> bool:
    """Equal to the last bit (NaN never occurs in BLEU)."""
    return ours == theirs and math.copysign(1.0, ours) == math.copysign(1.0, theirs)


def score_mismatches(ours: BleuResult, theirs: BLEUScore, tol: float = 1e-9) -> list[str]:
    """Every way ``ours`` differs from SacreBLEU's score; empty when identical.

    A difference within ``tol`` is reported as "not bit-identical", a larger
    one as "differs": bleustream promises SacreBLEU's arithmetic to the bit,
    so both fail the tests, but the message tells them apart.
    """
    problems = []
    pairs = [("score", ours.score, theirs.score), ("bp", ours.bp, theirs.bp)]
    pairs += [
        (f"precision[{i}]", a, b)
        for i, (a, b) in enumerate(zip(ours.precisions, theirs.precisions))
    ]
    pairs.append(("ratio", ours.ratio, theirs.ratio))
    if len(ours.precisions) != len(theirs.precisions):
        problems.append(
            f"{len(ours.precisions)} precisions, SacreBLEU has {len(theirs.precisions)}"
        )
    for what, a, b in pairs:
        if abs(a - b) > tol:
            problems.append(f"{what} differs: {a!r} != SacreBLEU {b!r}")
        elif not same_float(a, b):
            problems.append(f"{what} within {tol} but not bit-identical: {a!r} != SacreBLEU {b!r}")
    return problems


class BleuStream:
    """One system scored with BLEU alone through ``Scorer``, with ``Stats`` out.

    The BLEU tests speak of hypothesis length, matches and totals by name;
    this keeps them readable while every number still comes through the
    scorer the command line uses.
    """

    def __init__(self, settings: Settings) -> None:
        self.scorer = Scorer((Spec(bleu, settings),))

    def add(self, hyp: str, refs: Sequence[str]) -> Stats:
        ((row,),) = self.scorer.add((hyp,), refs)
        return Stats.from_row(row, 1)

    @property
    def total(self) -> Stats:
        return Stats.from_row(self.scorer.totals[0].rows[0], self.scorer.segments)

    def score(self) -> BleuResult:
        return self.scorer.raw_scores()[0]


def segment_counter(settings: Settings) -> Callable[[str, Sequence[str]], Stats]:
    """One segment's BLEU statistics, through the metric's own two steps."""
    prepare, count = bleu.prepare_refs(settings), bleu.count(settings)

    def stats(hyp: str, refs: Sequence[str]) -> Stats:
        return Stats.from_row(count(hyp, prepare(refs)), 1)

    return stats
