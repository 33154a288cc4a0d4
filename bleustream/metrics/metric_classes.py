"""SacreBLEU's metric classes, ``BLEU``, ``CHRF`` and ``TER``, on the core.

Each takes SacreBLEU 2.6's constructor arguments and offers its
``corpus_score``, ``sentence_score`` and ``get_signature``, returning the
score objects of ``bleustream.metrics.scores``.  A class is a thin front
on one ``Spec``: the counting and arithmetic are the metric module's, the
same the command line runs.  ``spec(name, **settings)`` makes a ``Spec``
from the same keywords.

``corpus_score(..., n_bootstrap=N)`` runs SacreBLEU's bootstrap of the
segments' rows, ``bleustream.metrics.bootstrap`` (imported, with numpy,
only then).

A metric object pickles (a process pool maps its ``sentence_score``): its
settings and the references it was given go, the functions built from
them are built again on the other side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, ClassVar

from bleustream.metrics import bleu, chrf, ter
from bleustream.metrics.arguments import (
    check_bleu_settings,
    check_chrf_settings,
    check_hypotheses,
    check_references,
    check_sentence,
    is_sequence,
    no_reference,
    nrefs_of,
)
from bleustream.metrics.protocol import CountBatch, Row, add_rows
from bleustream.metrics.registry import METRICS, MODEL_METRICS, Spec
from bleustream.metrics.scores import BLEUScore, Score, Signature
from bleustream.tokenizers.objects import BaseTokenizer, TercomTokenizer
from bleustream.tokenizers.objects import made as tokenizer_object
from bleustream.tokenizers.registry import (
    DEFAULT_TOKENIZER,
    LANGUAGE_TOKENIZERS,
    TOKENIZERS,
    tokenizer_advice,
    tokenizer_signature,
)


def _warn(message: str, *args: Any) -> None:
    """SacreBLEU's warnings, to its logger, ``sacrebleu`` (``logging`` imported
    when one is given); ``args`` as ``Logger.warning`` takes them."""
    import logging

    logging.getLogger("sacrebleu").warning(message, *args)


@dataclass(frozen=True)
class Scoring:
    """A metric with its settings and per-segment functions, built once per settings.

    Building the functions, and the signature text, once per distinct
    settings rather than once per call is most of what a ``sentence_bleu``
    in a loop would otherwise spend besides the counting itself.
    """

    spec: Spec
    prepare: Callable[[Sequence[str]], Any]
    count: Callable[[str, Any], Row]
    # The metric's ``count_batch`` (rows of raw lines, in one call where
    # the kernels count these settings so).
    lines: CountBatch
    signatures: dict[int | str, str] = field(default_factory=dict, compare=False)

    def signature(self, nrefs: int | str) -> str:
        text = self.signatures.get(nrefs)
        if text is None:
            text = self.signatures[nrefs] = self.spec.signature_object(nrefs).format()
        return text

    def result(self, row: Sequence[Any], nrefs: int | str) -> Score:
        return self.spec.score_object(row, self.signature(nrefs))

    def prepared(self, references: Sequence[Sequence[str | None]]) -> tuple[list[Any], int | str]:
        """Each segment's references prepared (``None`` ones left out), and their number."""
        prepare = self.prepare
        cache, counts = [], set()
        for refs in zip(*references):
            lines = [ref for ref in refs if ref is not None]
            if not lines:
                raise no_reference("")
            counts.add(len(lines))
            cache.append(prepare(lines))
        return cache, nrefs_of(counts, len(references))

    def corpus(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str | None]] | None,
        cache: list[Any] | None = None,
        rows: list[Row] | None = None,
    ) -> tuple[Row, int | str]:
        """Summed statistics of a corpus and the number of references per segment.

        References are streams (``references[j][i]``), or None with
        ``cache`` holding them prepared; ``rows``, when given, receives every
        segment's row.
        """
        count, prepare = self.count, self.prepare
        total = self.spec.zero()
        if references is None:
            assert cache is not None
            for hyp, refs in zip(hypotheses, cache):
                row = count(hyp, refs)
                total = add_rows(total, row)
                if rows is not None:
                    rows.append(row)
            return total, -1
        counts = set()
        for i, hyp in enumerate(hypotheses):
            lines = [stream[i] for stream in references if stream[i] is not None]
            if not lines:
                raise no_reference(f"segment {i + 1}: ")
            counts.add(len(lines))
            row = count(hyp, prepare(lines))
            total = add_rows(total, row)
            if rows is not None:
                rows.append(row)
        return total, nrefs_of(counts, len(references))

    def sentence(self, hypothesis: str, references: Sequence[str | None]) -> Score:
        """The score of one hypothesis; None references left out, as SacreBLEU does."""
        if None in references:
            references = [ref for ref in references if ref is not None]
        nrefs = len(references)
        if not nrefs:
            raise no_reference("")
        (row,) = self.lines((hypothesis,), (references,))
        # result(), unrolled: a training loop's sentence BLEU spends more in
        # Python calls than in the arithmetic.
        signature = self.signatures.get(nrefs)
        if signature is None:
            signature = self.signature(nrefs)
        spec = self.spec
        return spec.made_objects((row,), signature, spec.score_object)[0]

    def rows(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> list[Row]:
        """The row of each hypothesis against its references (``references[i]``)."""
        if all(references):
            return self.lines(hypotheses, references)
        return list(map(self.count, hypotheses, map(self.prepare, references)))


@lru_cache(maxsize=64)
def scoring(name: str, settings: Any) -> Scoring:
    """The ``Scoring`` of a registered metric with settings (its ``Settings``)."""
    metric = METRICS[name]
    return Scoring(
        Spec(metric, settings),
        metric.prepare_refs(settings),
        metric.count(settings),
        metric.count_batch(settings),
    )


class Metric:
    """What ``BLEU``, ``CHRF`` and ``TER`` share: SacreBLEU's ``Metric`` methods."""

    NAME = ""  # the registry name

    def __init__(self, settings: Any, references: Sequence[Sequence[str]] | None) -> None:
        self._scoring = scoring(self.NAME, settings)
        self._prefix = f"{type(self).__name__}: "
        self._ref_cache: list[Any] | None = None
        # The references given to the constructor, kept to pickle the object.
        self._references: tuple[tuple[str, ...], ...] | None = None
        # References per segment of the last scoring (``var`` when it varied).
        self.num_refs: int | str | None = None
        self._force = True
        self.n_bootstrap: int | None = None
        self.seed: str | None = None
        if references is not None:
            self._ref_cache = self._cache_references(references)

    @property
    def spec(self) -> Spec:
        """The metric with its settings, as ``Scorer`` and ``bleustream.spec`` take it."""
        return self._scoring.spec

    def _cache_references(self, references: Sequence[Sequence[str]]) -> list[Any]:
        first = references[0] if is_sequence(references) and references else ()
        check_references(self._prefix, references, len(first) if is_sequence(first) else 0)
        cache, self.num_refs = self._scoring.prepared(references)
        self._references = tuple(map(tuple, references))
        return cache

    def __getstate__(self) -> dict[str, Any]:
        # The per-segment functions are closures: the settings travel instead.
        state = dict(vars(self))
        state["_scoring"] = self._scoring.spec.settings
        state["_ref_cache"] = None
        state.pop("_tokenizer", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["_scoring"] = scoring(self.NAME, state["_scoring"])
        self.__dict__.update(state)
        if self._references is not None:
            self._ref_cache, _ = self._scoring.prepared(self._references)

    def corpus_score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]] | None,
        n_bootstrap: int = 1,
    ) -> Score:
        """The corpus score; ``references`` None scores against the cached ones.

        ``n_bootstrap`` above 1 adds SacreBLEU's bootstrap estimate (mean
        and 95% interval, seeded by ``$SACREBLEU_SEED``, default 12345).
        """
        rows: list[Row] | None = [] if n_bootstrap > 1 else None
        total = self.statistics(hypotheses, references, rows)
        prefix = self._prefix
        if rows is not None:
            if not rows:
                raise ValueError(f"{prefix}bootstrap resampling needs at least one segment")
            from bleustream.metrics.bootstrap import corpus_bootstrap

            self.seed, mean, ci = corpus_bootstrap(self.spec, rows, n_bootstrap)
            self.n_bootstrap = n_bootstrap
        result = self._scoring.spec.score_object(total, self.get_signature().format())
        if rows is not None:
            result._mean, result._ci = mean, ci
        return result

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]] | None,
        rows: list[Row] | None = None,
    ) -> Row:
        """The summed statistics of a corpus (SacreBLEU's checks and
        warnings included), each segment's row appended to ``rows`` if given;
        ``references`` None uses the cached ones."""
        prefix = self._prefix
        check_hypotheses(prefix, hypotheses)
        if references:
            check_references(prefix, references, len(hypotheses))
            total, self.num_refs = self._scoring.corpus(hypotheses, references, rows=rows)
        elif self._ref_cache:
            if len(self._ref_cache) != len(hypotheses):
                raise ValueError(
                    f"{prefix}the cached references have {len(self._ref_cache)} segments, "
                    f"the hypotheses {len(hypotheses)}"
                )
            total, _ = self._scoring.corpus(hypotheses, None, self._ref_cache, rows)
        else:
            raise RuntimeError("No references provided and the cache is empty.")
        if not self._force:
            self._warn_tokenized(hypotheses)
        return total

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> Score:
        """The score of one hypothesis against its references."""
        check_sentence(self._prefix, hypothesis, references)
        result = self._scoring.sentence(hypothesis, references)
        self.num_refs = len(references) - references.count(None)
        return result

    def get_signature(self) -> Signature:
        """The signature of the settings and of the last scoring's references."""
        if self.num_refs is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        kind = SIGNATURE_TYPES.get(self.NAME, Signature)
        return self.spec.signature_object(self.num_refs, kind, bs=self.n_bootstrap, seed=self.seed)

    def _warn_tokenized(self, hypotheses: Sequence[str]) -> None:
        if sum(hyp.endswith(" .") for hyp in hypotheses) >= 100:
            _warn("That's 100 lines that end in a tokenized period ('.')")
            _warn(
                "It looks like you forgot to detokenize your test data, which may hurt your score."
            )
            _warn(
                "If you insist your data is detokenized, or don't care, you can suppress "
                "this message with the `force` parameter."
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.settings!r})"


def _smooth_value(method: str, value: float | None) -> float | None:
    """SacreBLEU ignores a smoothing value given to a method that takes none."""
    return value if bleu.SMOOTH_DEFAULTS.get(method) is not None else None


class BLEU(Metric):
    """BLEU (Papineni et al. 2002), as SacreBLEU's ``BLEU`` class."""

    NAME = bleu.NAME
    _PREFIX = "BLEU: "
    SETTINGS = (
        "lowercase",
        "force",
        "tokenize",
        "smooth_method",
        "smooth_value",
        "max_ngram_order",
        "effective_order",
        "trg_lang",
    )
    SMOOTH_DEFAULTS: ClassVar[dict[str, float | None]] = dict(bleu.SMOOTH_DEFAULTS)
    TOKENIZERS = TOKENIZERS.keys()
    TOKENIZER_DEFAULT = DEFAULT_TOKENIZER
    _TOKENIZER_MAP: ClassVar[dict[str, str]] = dict(LANGUAGE_TOKENIZERS)

    def __init__(
        self,
        lowercase: bool = False,
        force: bool = False,
        tokenize: str | None = None,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = bleu.DEFAULT_MAX_ORDER,
        effective_order: bool = False,
        trg_lang: str = "",
        references: Sequence[Sequence[str]] | None = None,
    ) -> None:
        if tokenize is None:
            tokenize = self._TOKENIZER_MAP.get(trg_lang, self.TOKENIZER_DEFAULT)
        else:
            advice = tokenizer_advice(trg_lang, tokenize)
            if advice is not None:
                _warn(advice)
        check_bleu_settings(self._PREFIX, smooth_method, tokenize, max_ngram_order, TOKENIZERS)
        self.lowercase, self.trg_lang, self.tokenize = bool(lowercase), trg_lang, tokenize
        self.smooth_method, self.smooth_value = smooth_method, smooth_value
        self.max_ngram_order, self.effective_order = max_ngram_order, bool(effective_order)
        settings = bleu.Settings(
            tokenize=tokenize,
            lowercase=bool(lowercase),
            smooth_method=smooth_method,
            smooth_value=_smooth_value(smooth_method, smooth_value),
            effective_order=bool(effective_order),
            max_order=max_ngram_order,
        )
        super().__init__(settings, references)
        self._force = force

    @property
    def tokenizer(self) -> BaseTokenizer:
        """SacreBLEU's tokenizer object of ``tokenize``: called with a line,
        it returns the line tokenized (made when first asked for)."""
        made = self.__dict__.get("_tokenizer")
        if made is None:
            made = self.__dict__["_tokenizer"] = tokenizer_object(self.tokenize)
        return made

    @property
    def tokenizer_signature(self) -> str:
        """The tokenizer's name in the signature (``13a``, ``flores101``...)."""
        return tokenizer_signature(self.tokenize)

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> Score:
        if not self.effective_order:
            _warn("It is recommended to enable `effective_order` for sentence-level BLEU.")
        return super().sentence_score(hypothesis, references)

    @staticmethod
    def compute_bleu(
        correct: Sequence[int],
        total: Sequence[int],
        sys_len: int,
        ref_len: int,
        smooth_method: str = "none",
        smooth_value: float | None = None,
        effective_order: bool = False,
        max_ngram_order: int = bleu.DEFAULT_MAX_ORDER,
    ) -> BLEUScore:
        """BLEU of summed statistics, as SacreBLEU's ``BLEU.compute_bleu``
        (whose smoothing defaults to ``none``)."""
        check_bleu_settings("BLEU: ", smooth_method, "13a", max_ngram_order, TOKENIZERS)
        settings = bleu.Settings(
            smooth_method=smooth_method,
            smooth_value=_smooth_value(smooth_method, smooth_value),
            effective_order=effective_order,
            max_order=max_ngram_order,
        )
        row = (sys_len, ref_len, *correct, *total)
        return bleu.score_object(bleu.bleu_of_row(row, settings), settings)


class CHRF(Metric):
    """chrF and chrF++ (Popović 2015, 2017), as SacreBLEU's ``CHRF`` class."""

    NAME = chrf.NAME
    SETTINGS = ("char_order", "word_order", "beta", "lowercase", "whitespace", "eps_smoothing")
    CHAR_ORDER = chrf.DEFAULT_CHAR_ORDER
    WORD_ORDER = chrf.DEFAULT_WORD_ORDER
    BETA = chrf.DEFAULT_BETA

    def __init__(
        self,
        char_order: int = CHAR_ORDER,
        word_order: int = WORD_ORDER,
        beta: int = BETA,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        references: Sequence[Sequence[str]] | None = None,
    ) -> None:
        check_chrf_settings("CHRF: ", char_order, word_order, beta)
        self.order = char_order + word_order
        self.char_order, self.word_order, self.beta = char_order, word_order, beta
        self.lowercase, self.whitespace = bool(lowercase), bool(whitespace)
        self.eps_smoothing = bool(eps_smoothing)
        settings = chrf.Settings(
            char_order=char_order,
            word_order=word_order,
            beta=beta,
            lowercase=bool(lowercase),
            whitespace=bool(whitespace),
            eps_smoothing=bool(eps_smoothing),
        )
        super().__init__(settings, references)


class TER(Metric):
    """Translation edit rate (Snover et al. 2006), as SacreBLEU's ``TER`` class."""

    NAME = ter.NAME
    SETTINGS = ("normalized", "no_punct", "asian_support", "case_sensitive")

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
        references: Sequence[Sequence[str]] | None = None,
    ) -> None:
        self.normalized, self.no_punct = bool(normalized), bool(no_punct)
        self.asian_support, self.case_sensitive = bool(asian_support), bool(case_sensitive)
        settings = ter.Settings(
            normalized=bool(normalized),
            no_punct=bool(no_punct),
            asian_support=bool(asian_support),
            case_sensitive=bool(case_sensitive),
        )
        super().__init__(settings, references)

    @property
    def tokenizer(self) -> BaseTokenizer:
        """SacreBLEU's ``TercomTokenizer`` of the settings (made when first asked for)."""
        made = self.__dict__.get("_tokenizer")
        if made is None:
            made = self.__dict__["_tokenizer"] = TercomTokenizer(
                self.normalized, self.no_punct, self.asian_support, self.case_sensitive
            )
        return made

    @property
    def tokenizer_signature(self) -> str:
        """``tercom``, as SacreBLEU's TER signature says."""
        return self.tokenizer.signature()


# The class of each registered metric.
CLASSES: dict[str, type[Metric]] = {cls.NAME: cls for cls in (BLEU, CHRF, TER)}


def signature_of_args(
    name: str, args: Mapping[str, Any], nrefs: int | str
) -> tuple[dict[str, Any], Mapping[str, str]]:
    """The signature fields and short names of metric ``name`` with the
    settings in ``args``, a metric's attributes as SacreBLEU's
    ``Signature(args)`` takes them (its own objects' or bleustream's)."""
    cls = CLASSES[name]
    settings = {key: args[key] for key in cls.SETTINGS if key in args and key != "force"}
    made_by = args.get("tokenizer_signature")  # SacreBLEU's objects name no tokenizer
    if "tokenize" in cls.SETTINGS and settings.get("tokenize") is None and made_by:
        settings["tokenize"] = "none"
    if settings.get("tokenize") is not None:
        settings.pop("trg_lang", None)  # it only picks the tokenizer
    scored = cls(**settings).spec
    fields: dict[str, Any] = dict(scored.signature(nrefs))
    if made_by and "tok" in fields:
        fields["tok"] = made_by
    return fields, scored.metric.SIGNATURE_SHORT


def _yes(text: Any) -> Any:
    """A ``yes``/``no`` field as the bool SacreBLEU's signature holds."""
    return {"yes": True, "no": False}.get(text, text)


class MetricSignature(Signature):
    """A SacreBLEU metric's signature: ``Signature(args)`` adds the metric's fields.

    Its ``info`` holds SacreBLEU's values, of SacreBLEU's types (``nc`` a
    number, TER's ``norm`` a bool...): ``TYPES`` turns the metric module's
    text into them; ``format()`` writes the same text from either.
    """

    NAME = ""  # the registry name of the metric
    TYPES: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def _set(self, fields: Mapping[str, Any], short_names: Mapping[str, str]) -> None:
        types = self.TYPES
        super()._set(
            {key: types[key](value) if key in types else value for key, value in fields.items()},
            short_names,
        )

    def _fields(
        self, args: Mapping[str, Any], nrefs: int | str
    ) -> tuple[dict[str, Any], Mapping[str, str]]:
        return signature_of_args(self.NAME, args, nrefs)


class BLEUSignature(MetricSignature):
    """BLEU's signature, as SacreBLEU's ``BLEUSignature`` (``case``, ``eff``,
    ``tok``, ``smooth``)."""

    NAME = BLEU.NAME


class CHRFSignature(MetricSignature):
    """chrF's signature, as SacreBLEU's ``CHRFSignature`` (``case``, ``eff``,
    ``nc``, ``nw``, ``space``)."""

    NAME = CHRF.NAME
    TYPES: ClassVar[dict[str, Callable[[Any], Any]]] = {"nc": int, "nw": int}


class TERSignature(MetricSignature):
    """TER's signature, as SacreBLEU's ``TERSignature`` (``case``, ``tok``,
    ``norm``, ``punct``, ``asian``)."""

    NAME = TER.NAME
    TYPES: ClassVar[dict[str, Callable[[Any], Any]]] = {"norm": _yes, "punct": _yes, "asian": _yes}


# The signature class of each metric class (by registry name).
SIGNATURE_TYPES: dict[str, type[Signature]] = {
    kind.NAME: kind for kind in (BLEUSignature, CHRFSignature, TERSignature)
}


def spec(metric: str, **settings: Any) -> Spec:
    """A metric with settings named as in SacreBLEU's classes (``tokenize="intl"``,
    ``word_order=2``, ``normalized=True``); unnamed settings take the defaults."""
    if not isinstance(metric, str):
        raise TypeError(f"a metric is named by a string ('bleu'), not {type(metric).__name__}")
    model_metric = MODEL_METRICS.get(metric)
    if model_metric is not None:  # a model-scored metric (COMET): its own keywords
        return Spec(model_metric, model_metric.python_settings(**settings))
    cls = CLASSES.get(metric)
    if cls is None:
        known = ", ".join((*CLASSES, *MODEL_METRICS))
        raise ValueError(f"unknown metric {metric!r}; known: {known}")
    unknown = set(settings) - set(cls.SETTINGS)
    if unknown:
        raise TypeError(
            f"unknown {metric} settings: {', '.join(sorted(unknown))} "
            f"(the settings are SacreBLEU's: {', '.join(cls.SETTINGS)})"
        )
    return cls(**settings).spec


def as_spec(metric: Any) -> Spec:
    """A spec from a spec, a metric name or a metric object (``BLEU()``)."""
    if isinstance(metric, Spec):
        return metric
    if isinstance(metric, Metric):
        return metric.spec
    if isinstance(metric, str):
        return spec(metric)
    raise TypeError(
        "a metric is a name ('bleu'), a spec (bleustream.spec('chrf', word_order=2)) "
        f"or a metric object (bleustream.BLEU()), not {metric!r}"
    )
