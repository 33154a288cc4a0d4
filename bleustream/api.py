"""The Python API: SacreBLEU's functions and classes, and a streaming scorer.

The functions take SacreBLEU's arguments in SacreBLEU's order (hypotheses,
then a list of reference streams, ``references[j][i]`` being the ``j``-th
reference of the ``i``-th hypothesis) and its keyword settings, and return
SacreBLEU's score objects with the same numbers.  ``BLEU``, ``CHRF`` and
``TER`` are SacreBLEU's classes (``bleustream.metrics``)::

    import bleustream
    bleustream.corpus_bleu(hyps, [refs_a, refs_b]).score
    bleustream.sentence_chrf(hyp, [ref], word_order=2).score
    bleustream.BLEU(tokenize="intl").corpus_score(hyps, [refs], n_bootstrap=1000)

A ``Scorer`` streams: feed it batches with ``update``, read ``score()`` at
any time; its ``stats`` pickle and add, so shards scored in other processes
or on other machines merge with ``merge``.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Callable

from bleustream.metrics import bleu, chrf, ter
from bleustream.metrics.arguments import (
    check_bleu_settings,
    check_chrf_settings,
    check_hypotheses,
    check_references,
    check_sentence,
)
from bleustream.metrics.metric_classes import (
    BLEU,
    CHRF,
    TER,
    Scoring,
    scoring,
    spec,
)
from bleustream.metrics.registry import MODEL_DECLARED
from bleustream.metrics.scores import BLEUScore, CHRFScore, Score, Signature, TERScore
from bleustream.metrics.token_bleu import token_bleu
from bleustream.scorer import Scorer, Totals


def _corpus(
    name: str,
    the_scoring: Scoring,
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str | None]],
) -> Score:
    prefix = f"{name}: "
    check_hypotheses(prefix, hypotheses)
    check_references(prefix, references, len(hypotheses))
    total, nrefs = the_scoring.corpus(hypotheses, references)
    return the_scoring.result(total, nrefs)


@lru_cache(maxsize=64)
def _bleu(
    smooth_method: str,
    smooth_value: float | None,
    lowercase: bool,
    tokenize: str | None,
    use_effective_order: bool,
    max_ngram_order: int,
) -> Scoring:
    if tokenize is None:  # SacreBLEU's default, as BLEU(tokenize=None)
        tokenize = BLEU.TOKENIZER_DEFAULT
    check_bleu_settings("", smooth_method, tokenize, max_ngram_order, BLEU.TOKENIZERS)
    if bleu.SMOOTH_DEFAULTS.get(smooth_method) is None:
        smooth_value = None  # SacreBLEU ignores a value given to a method that takes none
    settings = bleu.Settings(
        tokenize=tokenize,
        lowercase=bool(lowercase),
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=bool(use_effective_order),
        max_order=max_ngram_order,
    )
    return scoring(bleu.NAME, settings)


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    force: bool = False,
    lowercase: bool = False,
    tokenize: str | None = "13a",
    use_effective_order: bool = False,
    max_ngram_order: int = 4,
) -> BLEUScore:
    """Corpus BLEU, as ``sacrebleu.corpus_bleu`` (``force`` is accepted and unused)."""
    the_scoring = _bleu(
        smooth_method, smooth_value, lowercase, tokenize, use_effective_order, max_ngram_order
    )
    return _corpus("corpus_bleu", the_scoring, hypotheses, references)  # type: ignore[return-value]


def raw_corpus_bleu(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], smooth_value: float = 0.1
) -> BLEUScore:
    """BLEU of text already tokenized, as ``sacrebleu.raw_corpus_bleu``: no
    tokenizer, floor smoothing, effective order."""
    return corpus_bleu(
        hypotheses,
        references,
        smooth_method="floor",
        smooth_value=smooth_value,
        force=True,
        tokenize="none",
        use_effective_order=True,
    )


def sentence_bleu(
    hypothesis: str,
    references: Sequence[str],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenize: str | None = "13a",
    use_effective_order: bool = True,
    max_ngram_order: int = 4,
) -> BLEUScore:
    """BLEU of one hypothesis against its references, as ``sacrebleu.sentence_bleu``."""
    the_scoring = _bleu(
        smooth_method, smooth_value, lowercase, tokenize, use_effective_order, max_ngram_order
    )
    check_sentence("sentence_bleu: ", hypothesis, references)
    return the_scoring.sentence(hypothesis, references)  # type: ignore[return-value]


@lru_cache(maxsize=64)
def _chrf(
    char_order: int, word_order: int, beta: int, remove_whitespace: bool, eps_smoothing: bool
) -> Scoring:
    check_chrf_settings("", char_order, word_order, beta)
    settings = chrf.Settings(
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        whitespace=not remove_whitespace,
        eps_smoothing=bool(eps_smoothing),
    )
    return scoring(chrf.NAME, settings)


def corpus_chrf(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> CHRFScore:
    """Corpus chrF (chrF++ with ``word_order=2``), as ``sacrebleu.corpus_chrf``."""
    the_scoring = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing)
    return _corpus("corpus_chrf", the_scoring, hypotheses, references)  # type: ignore[return-value]


def sentence_chrf(
    hypothesis: str,
    references: Sequence[str],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> CHRFScore:
    """chrF of one hypothesis, as ``sacrebleu.sentence_chrf``."""
    the_scoring = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing)
    check_sentence("sentence_chrf: ", hypothesis, references)
    return the_scoring.sentence(hypothesis, references)  # type: ignore[return-value]


@lru_cache(maxsize=64)
def _ter(normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool) -> Scoring:
    settings = ter.Settings(
        normalized=bool(normalized),
        no_punct=bool(no_punct),
        asian_support=bool(asian_support),
        case_sensitive=bool(case_sensitive),
    )
    return scoring(ter.NAME, settings)


def corpus_ter(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERScore:
    """Corpus TER, as ``sacrebleu.corpus_ter``."""
    the_scoring = _ter(normalized, no_punct, asian_support, case_sensitive)
    return _corpus("corpus_ter", the_scoring, hypotheses, references)  # type: ignore[return-value]


def sentence_ter(
    hypothesis: str,
    references: Sequence[str],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERScore:
    """TER of one hypothesis, as ``sacrebleu.sentence_ter``."""
    the_scoring = _ter(normalized, no_punct, asian_support, case_sensitive)
    check_sentence("sentence_ter: ", hypothesis, references)
    return the_scoring.sentence(hypothesis, references)  # type: ignore[return-value]


# Each metric's sentence function, whose keywords a batch takes, and the
# scoring those keywords make, in the function's order.
_SENTENCE_SCORING: dict[str, tuple[Callable[..., Score], Callable[..., Scoring]]] = {
    "bleu": (sentence_bleu, _bleu),
    "chrf": (sentence_chrf, _chrf),
    "ter": (sentence_ter, _ter),
}


def _batch_scoring(metric: str, settings: dict[str, Any]) -> Scoring:
    """The scoring of ``sentence_<metric>(hyp, refs, **settings)``; a
    keyword it does not take is its TypeError."""
    import inspect  # a batch's cost, once

    function, make = _SENTENCE_SCORING[metric]
    signature = inspect.signature(function)
    try:
        bound = signature.bind("", [], **settings)
    except TypeError as exc:
        known = ", ".join(list(signature.parameters)[2:])
        raise TypeError(f"sentence_scores({metric!r}): {exc} (its settings: {known})") from None
    bound.apply_defaults()
    return make(*list(bound.arguments.values())[2:])


def sentence_scores(
    metric: str,
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    sources: Sequence[str] | None = None,
    **settings: Any,
) -> list[Score]:
    """The sentence score of each hypothesis, for a batch (a training loop's).

    ``references`` is SacreBLEU's layout, a list of reference streams, and
    ``settings`` are the keywords of ``sentence_bleu``, ``sentence_chrf``
    or ``sentence_ter``.  Score ``i`` equals
    ``sentence_bleu(hypotheses[i], [refs[i] for refs in references], **settings)``
    (or chrF's, TER's), to the last bit; the settings are resolved once per
    batch, and BLEU's rows are counted in one loop in C with the compiled
    kernels.

    A metric whose count is a model's forward pass (``"comet"``) reads each
    hypothesis's source too (``sources``, one per hypothesis) and takes
    ``bleustream.spec``'s settings (``model=``, ``batch_size=``, ``device=``,
    ``cache=``, ``max_length=``); ``references`` may be ``[]`` for a
    reference-free model.  Score ``i`` is segment ``i``'s model score.
    """
    known = (*_SENTENCE_SCORING, *MODEL_DECLARED)
    if metric not in known:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(known)}")
    if isinstance(hypotheses, str) or isinstance(references, str):
        raise TypeError("hypotheses and references must be sequences of strings, not a string")
    if any(isinstance(stream, str) for stream in references):
        raise TypeError("references must be a list of reference streams, not of strings")
    hypotheses = list(hypotheses)
    streams = [list(stream) for stream in references]
    if any(len(stream) != len(hypotheses) for stream in streams):
        raise ValueError(
            f"{len(hypotheses)} hypotheses, but reference streams of "
            f"{', '.join(str(len(stream)) for stream in streams)} segments"
        )
    if metric in MODEL_DECLARED:
        return _model_scores(metric, hypotheses, streams, sources, settings)
    if sources is not None:
        raise TypeError(f"sentence_scores({metric!r}) reads no sources")
    the_scoring = _batch_scoring(metric, settings)
    # (type() first: a training loop's batch is all str, and the set costs
    # a tenth of the generator per hypothesis.)
    if set(map(type, hypotheses)) - {str} and not all(isinstance(h, str) for h in hypotheses):
        raise TypeError("each hypothesis must be a string")
    nrefs = len(streams)
    if not streams and hypotheses:
        the_scoring.prepare(())  # no references: the error sentence_bleu raises
    # A batch makes many objects at once, none in a cycle: the collector's
    # passes over them would cost a third of the time, for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        rows = the_scoring.rows(hypotheses, list(zip(*streams))) if streams else []
        return the_scoring.spec.score_objects(rows, the_scoring.signature(nrefs))
    finally:
        if collecting:
            gc.enable()


def _model_scores(
    metric: str,
    hypotheses: list[str],
    streams: list[list[str]],
    sources: Sequence[str] | None,
    settings: dict[str, Any],
) -> list[Score]:
    """``sentence_scores`` of a model metric: the batch scored in one window
    (sorted by length, cut into the model's batches)."""
    if sources is None or isinstance(sources, str):
        raise TypeError(f"sentence_scores({metric!r}) needs sources=[...], one per hypothesis")
    sources = list(sources)
    if len(sources) != len(hypotheses):
        raise ValueError(f"{len(hypotheses)} hypotheses, but {len(sources)} sources")
    the_spec = spec(metric, **settings)
    refs = list(zip(*streams)) if streams else [()] * len(hypotheses)
    count = the_spec.metric.count_window(the_spec.settings)
    rows = count([(s, (h,), r) for s, h, r in zip(sources, hypotheses, refs)]) if hypotheses else []
    signature = the_spec.signature_object(len(streams)).format()
    return the_spec.score_objects([row[0] for row in rows], signature)


def scores(scorer: Scorer, nrefs: int | str | None = None, system: int = 0) -> list[Score]:
    """A scorer's current scores, one per metric, with signatures (``nrefs``
    defaults to the scorer's own)."""
    if not isinstance(scorer, Scorer):
        raise TypeError(f"scores() takes a Scorer, not {type(scorer).__name__}")
    return scorer.scores(system, nrefs)


__all__ = [
    "BLEU",
    "CHRF",
    "TER",
    "BLEUScore",
    "CHRFScore",
    "Score",
    "Scorer",
    "Signature",
    "TERScore",
    "Totals",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "raw_corpus_bleu",
    "scores",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_scores",
    "sentence_ter",
    "spec",
    "token_bleu",
]
