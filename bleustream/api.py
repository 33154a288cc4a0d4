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

import gc
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from bleustream.metrics.bleu import SMOOTH_DEFAULTS
from bleustream.metrics.protocol import Row
from bleustream.metrics.registry import METRICS, Spec, default_options
from bleustream.scorer import Scorer, Totals


@dataclass
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
    settings: Any = None  # the metric's settings (chrF's ``beta``, ``char_order``...)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("detail", "settings"):
            raise AttributeError(name)
        try:
            return getattr(self.detail, name)
        except AttributeError:
            if self.settings is None or not hasattr(self.settings, name):
                raise
            return getattr(self.settings, name)

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


def _signature_text(the_spec: Spec, nrefs: int | str) -> str:
    return "|".join(f"{k}:{v}" for k, v in the_spec.signature(nrefs).items())


def _score(the_spec: Spec, row: Sequence[Any], signature: str) -> Score:
    detail = the_spec.score(row)
    return Score(the_spec.label, detail.score, tuple(row), signature, detail, the_spec.settings)


@dataclass(frozen=True)
class _Prepared:
    """A metric with its settings and per-segment functions, built once per settings.

    Building the metric and its functions from a dozen keyword settings,
    and the signature text, once per distinct settings rather than once
    per call is most of what a ``sentence_bleu`` in a loop would otherwise
    spend besides the counting itself.
    """

    spec: Spec
    prepare: Callable[[Sequence[str]], Any]
    count: Callable[[str, Any], Row]
    count_batch: Callable[[Sequence[str], Sequence[Any]], list[Row]]
    signatures: dict[int | str, str] = field(default_factory=dict, compare=False)

    def result(self, row: Sequence[Any], nrefs: int | str) -> Score:
        signature = self.signatures.get(nrefs)
        if signature is None:
            signature = self.signatures[nrefs] = _signature_text(self.spec, nrefs)
        return _score(self.spec, row, signature)


@lru_cache(maxsize=64)
def _prepared(metric: str, settings: tuple[tuple[str, Any], ...]) -> _Prepared:
    the_spec = spec(metric, **dict(settings))
    metric_module, values = the_spec.metric, the_spec.settings
    count = metric_module.count(values)
    batch = getattr(metric_module, "count_batch", None)
    if batch is not None:
        count_batch = batch(values)
    else:

        def count_batch(hypotheses: Sequence[str], refs: Sequence[Any]) -> list[Row]:
            return list(map(count, hypotheses, refs))

    return _Prepared(the_spec, metric_module.prepare_refs(values), count, count_batch)


def _nrefs(references: Sequence[Sequence[str | None]]) -> int | str:
    """The number of references per segment, or ``var`` when it varies."""
    counts = {sum(ref is not None for ref in refs) for refs in zip(*references)}
    return counts.pop() if len(counts) == 1 else ("var" if counts else len(references))


def _corpus(
    prepared: _Prepared, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]
) -> Score:
    if isinstance(hypotheses, str) or isinstance(references, str):
        raise TypeError("hypotheses and references must be sequences of strings, not a string")
    scorer = Scorer((prepared.spec,))
    scorer.update(hypotheses, references)  # type: ignore[arg-type]
    return prepared.result(scorer.stats.rows[0], _nrefs(references))


def _sentence(prepared: _Prepared, hypothesis: str, references: Sequence[str]) -> Score:
    if not isinstance(hypothesis, str):
        raise TypeError("the hypothesis must be a string")
    if isinstance(references, str):
        raise TypeError("references must be a sequence of strings, not a string")
    row = prepared.count(hypothesis, prepared.prepare(references))
    return prepared.result(row, len(references))


@lru_cache(maxsize=64)
def _bleu(
    smooth_method: str,
    smooth_value: float | None,
    lowercase: bool,
    tokenize: str,
    use_effective_order: bool,
    max_ngram_order: int,
) -> _Prepared:
    if smooth_value is not None and SMOOTH_DEFAULTS.get(smooth_method, 0) is None:
        # SacreBLEU ignores a value given to a method that takes none; the
        # command line's settings call it an error.
        smooth_value = None
    return _prepared(
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
    prepared = _bleu(
        smooth_method, smooth_value, lowercase, tokenize, use_effective_order, max_ngram_order
    )
    return _corpus(prepared, hypotheses, references)


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
    prepared = _bleu(
        smooth_method, smooth_value, lowercase, tokenize, use_effective_order, max_ngram_order
    )
    return _sentence(prepared, hypothesis, references)


@lru_cache(maxsize=64)
def _chrf(
    char_order: int, word_order: int, beta: int, remove_whitespace: bool, eps_smoothing: bool
) -> _Prepared:
    return _prepared(
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
    prepared = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing)
    return _corpus(prepared, hypotheses, references)


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
    prepared = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing)
    return _sentence(prepared, hypothesis, references)


@lru_cache(maxsize=64)
def _ter(normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool) -> _Prepared:
    return _prepared(
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
    prepared = _ter(normalized, no_punct, asian_support, case_sensitive)
    return _corpus(prepared, hypotheses, references)


def sentence_ter(
    hypothesis: str,
    references: Sequence[str],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> Score:
    """TER of one hypothesis, as ``sacrebleu.sentence_ter``."""
    prepared = _ter(normalized, no_punct, asian_support, case_sensitive)
    return _sentence(prepared, hypothesis, references)


def _sentence_bleu_settings(
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = True,
    max_ngram_order: int = 4,
) -> _Prepared:
    return _bleu(
        smooth_method, smooth_value, lowercase, tokenize, use_effective_order, max_ngram_order
    )


def _sentence_chrf_settings(
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> _Prepared:
    return _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing)


def _sentence_ter_settings(
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> _Prepared:
    return _ter(normalized, no_punct, asian_support, case_sensitive)


# Each metric's keyword settings: those of its sentence_* function.
_SENTENCE_SETTINGS: dict[str, Callable[..., _Prepared]] = {
    "bleu": _sentence_bleu_settings,
    "chrf": _sentence_chrf_settings,
    "ter": _sentence_ter_settings,
}


def sentence_scores(
    metric: str,
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    **settings: Any,
) -> list[Score]:
    """The sentence score of each hypothesis, for a batch (a training loop's).

    ``references`` is SacreBLEU's layout, a list of reference streams, and
    ``settings`` are the keywords of ``sentence_bleu``, ``sentence_chrf``
    or ``sentence_ter``.  Score ``i`` equals
    ``sentence_bleu(hypotheses[i], [refs[i] for refs in references], **settings)``
    (or chrF's, TER's), to the last bit; the per-call work is done once per
    batch, and BLEU's rows are counted in one loop in C with the compiled
    kernels.
    """
    if metric not in _SENTENCE_SETTINGS:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(_SENTENCE_SETTINGS)}")
    if isinstance(hypotheses, str) or isinstance(references, str):
        raise TypeError("hypotheses and references must be sequences of strings, not a string")
    if any(isinstance(stream, str) for stream in references):
        raise TypeError("references must be a list of reference streams, not of strings")
    prepared = _SENTENCE_SETTINGS[metric](**settings)
    hypotheses = list(hypotheses)
    streams = [list(stream) for stream in references]
    if any(len(stream) != len(hypotheses) for stream in streams):
        raise ValueError(
            f"{len(hypotheses)} hypotheses, but reference streams of "
            f"{', '.join(str(len(stream)) for stream in streams)} segments"
        )
    if not all(isinstance(hyp, str) for hyp in hypotheses):
        raise TypeError("each hypothesis must be a string")
    nrefs = len(streams)
    if not streams and hypotheses:
        prepared.prepare(())  # no references: the error sentence_bleu raises
    # A batch makes many objects at once, none in a cycle: the collector's
    # passes over them would cost a third of the time, for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        refs = list(map(prepared.prepare, zip(*streams))) if streams else []
        rows = prepared.count_batch(hypotheses, refs)
        result = prepared.result
        return [result(row, nrefs) for row in rows]
    finally:
        if collecting:
            gc.enable()


def scores(scorer: Scorer, nrefs: int | str, system: int = 0) -> list[Score]:
    """A scorer's current scores, one per metric, with signatures."""
    return [
        _score(the_spec, row, _signature_text(the_spec, nrefs))
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
    "sentence_scores",
    "sentence_ter",
    "spec",
]
