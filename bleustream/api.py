"""The Python API: SacreBLEU's scoring functions, and a streaming scorer.

The functions take SacreBLEU's arguments in SacreBLEU's order (hypotheses,
then a list of reference streams, ``references[j][i]`` being the ``j``-th
reference of the ``i``-th hypothesis) and its keyword settings, and return
the same numbers.  They run on the ``Scorer`` the command line runs on::

    import bleustream
    bleustream.corpus_bleu(hyps, [refs_a, refs_b]).score
    bleustream.sentence_chrf(hyp, [ref], word_order=2).score

A ``Scorer`` streams: feed it batches with ``update``, read ``score()`` at
any time; its ``stats`` pickle and add, so shards scored in other processes
or on other machines merge with ``merge``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bleustream.metrics import METRICS, Spec, default_options
from bleustream.scorer import Scorer, Totals


@dataclass(frozen=True)
class Score:
    """A score with its statistics and signature.

    ``name`` is SacreBLEU's (``BLEU``, ``chrF2++``, ``TER``); ``stats`` the
    summed statistics in SacreBLEU's layout; ``detail`` the metric's own
    score object, whose attributes (BLEU's ``precisions``, ``bp``...) are
    also readable on this one.
    """

    name: str
    score: float
    stats: tuple[Any, ...]
    signature: str
    detail: Any

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "detail":
            raise AttributeError(name)
        return getattr(self.detail, name)

    def format(self, width: int = 2) -> str:
        """SacreBLEU's line: ``NAME|signature = score``."""
        return f"{self.name}|{self.signature} = {self.score:.{width}f}"

    def __str__(self) -> str:
        return self.format()


def spec(metric: str, **settings: Any) -> Spec:
    """A metric with settings given by their option names (``tokenize="intl"``).

    The names are the command line's long options with ``_`` for ``-``
    (``chrf_word_order=2``, ``ter_normalized=True``); unnamed settings take
    their built-in defaults.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    options = default_options(metric)
    unknown = set(settings) - set(options)
    if unknown:
        raise TypeError(f"unknown {metric} settings: {', '.join(sorted(unknown))}")
    options.update(settings)
    return Spec(METRICS[metric], METRICS[metric].settings_from(options))


@lru_cache(maxsize=64)
def _cached_spec(metric: str, settings: tuple[tuple[str, Any], ...]) -> Spec:
    return spec(metric, **dict(settings))


@lru_cache(maxsize=64)
def _segment_functions(the_spec: Spec) -> tuple[Any, Any]:
    metric, settings = the_spec.metric, the_spec.settings
    return metric.prepare_refs(settings), metric.count(settings)


def _nrefs(references: Sequence[Sequence[str | None]]) -> int | str:
    """The number of references per segment, or ``var`` when it varies."""
    counts = {sum(ref is not None for ref in refs) for refs in zip(*references)}
    return counts.pop() if len(counts) == 1 else ("var" if counts else len(references))


def _result(the_spec: Spec, row: Sequence[Any], nrefs: int | str) -> Score:
    detail = the_spec.score(row)
    signature = "|".join(f"{k}:{v}" for k, v in the_spec.signature(nrefs).items())
    return Score(the_spec.label, detail.score, tuple(row), signature, detail)


def _corpus(
    the_spec: Spec, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]
) -> Score:
    if isinstance(hypotheses, str) or isinstance(references, str):
        raise TypeError("hypotheses and references must be sequences of strings, not a string")
    scorer = Scorer((the_spec,))
    scorer.update(hypotheses, references)  # type: ignore[arg-type]
    return _result(the_spec, scorer.stats.rows[0], _nrefs(references))


def _sentence(the_spec: Spec, hypothesis: str, references: Sequence[str]) -> Score:
    if not isinstance(hypothesis, str):
        raise TypeError("the hypothesis must be a string")
    if isinstance(references, str):
        raise TypeError("references must be a sequence of strings, not a string")
    prepare, count = _segment_functions(the_spec)
    row = count(hypothesis, prepare(references))
    return _result(the_spec, row, len(references))


def _bleu_spec(
    smooth_method: str,
    smooth_value: float | None,
    lowercase: bool,
    tokenize: str,
    use_effective_order: bool,
    max_ngram_order: int,
) -> Spec:
    return _cached_spec(
        "bleu",
        (
            ("smooth_method", smooth_method),
            ("smooth_value", smooth_value),
            ("lowercase", lowercase),
            ("tokenize", tokenize),
            ("effective_order", use_effective_order),
            ("max_ngram_order", max_ngram_order),
        ),
    )


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    force: bool = False,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = False,
    max_ngram_order: int = 4,
) -> Score:
    """Corpus BLEU, as ``sacrebleu.corpus_bleu`` (``force`` is accepted and unused)."""
    the_spec = _bleu_spec(
        smooth_method, smooth_value, lowercase, tokenize, use_effective_order, max_ngram_order
    )
    return _corpus(the_spec, hypotheses, references)


def sentence_bleu(
    hypothesis: str,
    references: Sequence[str],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = True,
    max_ngram_order: int = 4,
) -> Score:
    """BLEU of one hypothesis against its references, as ``sacrebleu.sentence_bleu``."""
    the_spec = _bleu_spec(
        smooth_method, smooth_value, lowercase, tokenize, use_effective_order, max_ngram_order
    )
    return _sentence(the_spec, hypothesis, references)


def _chrf_spec(
    char_order: int, word_order: int, beta: int, remove_whitespace: bool, eps_smoothing: bool
) -> Spec:
    return _cached_spec(
        "chrf",
        (
            ("chrf_char_order", char_order),
            ("chrf_word_order", word_order),
            ("chrf_beta", beta),
            ("chrf_whitespace", not remove_whitespace),
            ("chrf_eps_smoothing", eps_smoothing),
        ),
    )


def corpus_chrf(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> Score:
    """Corpus chrF (chrF++ with ``word_order=2``), as ``sacrebleu.corpus_chrf``."""
    the_spec = _chrf_spec(char_order, word_order, beta, remove_whitespace, eps_smoothing)
    return _corpus(the_spec, hypotheses, references)


def sentence_chrf(
    hypothesis: str,
    references: Sequence[str],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> Score:
    """chrF of one hypothesis, as ``sacrebleu.sentence_chrf``."""
    the_spec = _chrf_spec(char_order, word_order, beta, remove_whitespace, eps_smoothing)
    return _sentence(the_spec, hypothesis, references)


def _ter_spec(normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool) -> Spec:
    return _cached_spec(
        "ter",
        (
            ("ter_normalized", normalized),
            ("ter_no_punct", no_punct),
            ("ter_asian_support", asian_support),
            ("ter_case_sensitive", case_sensitive),
        ),
    )


def corpus_ter(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> Score:
    """Corpus TER, as ``sacrebleu.corpus_ter``."""
    the_spec = _ter_spec(normalized, no_punct, asian_support, case_sensitive)
    return _corpus(the_spec, hypotheses, references)


def sentence_ter(
    hypothesis: str,
    references: Sequence[str],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> Score:
    """TER of one hypothesis, as ``sacrebleu.sentence_ter``."""
    the_spec = _ter_spec(normalized, no_punct, asian_support, case_sensitive)
    return _sentence(the_spec, hypothesis, references)


def scores(scorer: Scorer, nrefs: int | str, system: int = 0) -> list[Score]:
    """A scorer's current scores, one per metric, with signatures."""
    return [
        _result(the_spec, row, nrefs)
        for the_spec, row in zip(scorer.specs, scorer.totals[system].rows)
    ]


__all__ = [
    "Score",
    "Scorer",
    "Totals",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "scores",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
    "spec",
]
