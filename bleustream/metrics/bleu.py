"""The BLEU metric: settings, segment statistics, scores and signature.

A metric module (see ``bleustream.metrics.protocol``).  A segment's statistics are
SacreBLEU's row ``(hyp_len, ref_len, *matches, *totals)``.  ``bleu_of_row``
performs the same floating-point operations in the same order as SacreBLEU
2.x's ``BLEU.compute_bleu``, so the two agree to the last bit, not just to a
tolerance.  Scores and
precisions are percentages.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any, Callable

from bleustream.frozen import Fields, Frozen
from bleustream.kernels import native
from bleustream.metrics.bleu_batches import (
    ScoreValues,
    c_score_batch,
    compiled_blocks,
    compiled_rows,
    compiled_sums,
    compiled_values,
)
from bleustream.metrics.bleu_options import (  # noqa: F401 (the metric's surface)
    DEFAULT_MAX_ORDER,
    DEFAULT_SMOOTH,
    MAX_ORDER,
    MAX_SMOOTH_VALUE,
    NAME,
    OPTIONS,
    SCORE_ONLY,
    SCORE_ONLY_ONE_REF,
    SMOOTH_METHODS,
    TITLE,
)
from bleustream.metrics.ngrams import RefNgrams, hyp_row, one_reference, reference_ngrams
from bleustream.metrics.protocol import (
    CountBatch,
    Row,
    ScoreBatch,
    SumBatch,
    SumBlock,
    decoded_blocks,
    each_score,
    is_number,
    is_whole,
    segment_rows,
    sum_of_rows,
    totals_problem,
    whole_counts,
)
from bleustream.metrics.scores import SIGNATURE_VERSION, BLEUScore
from bleustream.metrics.smoothing import LOG_ZERO, SMOOTH_DEFAULTS
from bleustream.tokenizers.registry import (
    DEFAULT_TOKENIZER,
    TOKENIZERS,
    Tokenizer,
    default_tokenizer,
    tokenizer_signature,
)

_HUNDREDS = repeat(100.0)


class Settings(Frozen):
    """Everything that decides a BLEU score, as in SacreBLEU's signature."""

    tokenize: str = DEFAULT_TOKENIZER
    lowercase: bool = False
    smooth_method: str = DEFAULT_SMOOTH
    smooth_value: float | None = None
    effective_order: bool = False
    max_order: int = DEFAULT_MAX_ORDER
    # --bleu-orders: BLEU-1..max_order beside the score; output only, so
    # stats records do not carry it.
    orders: bool = False
    _OUTPUT = frozenset({"orders"})

    def __post_init__(self) -> None:
        if not isinstance(self.tokenize, str) or self.tokenize not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {self.tokenize!r}")
        if not isinstance(self.smooth_method, str) or self.smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(f"unknown smoothing method {self.smooth_method!r}")
        value = self.smooth_value
        if value is not None:
            if SMOOTH_DEFAULTS[self.smooth_method] is None:
                raise ValueError(
                    f"a smoothing value applies to floor and add-k, not to {self.smooth_method}"
                )
            if not (is_number(value) and 0 <= value <= MAX_SMOOTH_VALUE):  # also false for nan
                raise ValueError(
                    f"the smoothing value must be a number from 0 to {MAX_SMOOTH_VALUE}, "
                    f"not {value!r}"
                )
        order = self.max_order
        if not (is_whole(order) and 1 <= order <= MAX_ORDER):
            raise ValueError(
                f"the maximum n-gram order must be a whole number from 1 to {MAX_ORDER}, "
                f"not {order!r}"
            )

    @property
    def effective_smooth_value(self) -> float | None:
        """The smoothing value in force: the given one or the method's default."""
        if self.smooth_value is None:
            return SMOOTH_DEFAULTS[self.smooth_method]
        return self.smooth_value


DEFAULT_SETTINGS = Settings()


class BleuResult(Fields):
    """A BLEU score with the parts it is made of.

    ``row`` is the statistics it was computed from, in SacreBLEU's layout
    ``(hyp_len, ref_len, *matches, *totals)``.
    """

    score: float
    precisions: tuple[float, ...]
    bp: float
    ratio: float
    row: Row
    # With --bleu-orders: cumulative BLEU-1..max_order of the same row.
    by_order: tuple[float, ...] | None = None

    def __init__(
        self,
        score: float,
        precisions: tuple[float, ...],
        bp: float,
        ratio: float,
        row: Row,
        by_order: tuple[float, ...] | None = None,
    ) -> None:
        # One is made per sentence score: assigned directly.
        self.__dict__.update(
            score=score, precisions=precisions, bp=bp, ratio=ratio, row=row, by_order=by_order
        )

    # SacreBLEU's BLEUScore attribute names.
    @property
    def counts(self) -> list[int]:
        return list(self.row[2 : 2 + len(self.precisions)])

    @property
    def totals(self) -> list[int]:
        return list(self.row[2 + len(self.precisions) :])

    @property
    def sys_len(self) -> int:
        return self.row[0]

    @property
    def ref_len(self) -> int:
        return self.row[1]


def _log(x: float) -> float:
    return math.log(x) if x != 0.0 else LOG_ZERO


def bleu_of_row(row: Row, settings: Settings = DEFAULT_SETTINGS) -> BleuResult:
    """BLEU of statistics in SacreBLEU's layout ``(hyp_len, ref_len,
    *matches, *totals)``: SacreBLEU's ``compute_bleu``, operation for operation."""
    max_order = settings.max_order
    if len(row) != 2 + 2 * max_order:
        raise ValueError(
            f"statistics of max n-gram order {(len(row) - 2) // 2} scored with order {max_order}"
        )
    sys_len, ref_len = row[0], row[1]
    matches, totals = row[2 : 2 + max_order], row[2 + max_order :]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    ratio = sys_len / ref_len if ref_len else 0
    method = settings.smooth_method

    if 0 not in matches and 0 not in totals and method != "add-k":
        # Every order matched: no smoothing applies and every order counts,
        # effective or not.  SacreBLEU's arithmetic: 100 * correct / total,
        # then the mean of the logs.
        precisions = list(map(operator.truediv, map(operator.mul, _HUNDREDS, matches), totals))
        score = bp * math.exp(sum(map(math.log, precisions)) / max_order)
        return BleuResult(score, tuple(precisions), bp, ratio, row)
    if not any(matches):
        return BleuResult(0.0, (0.0,) * max_order, bp, ratio, row)

    smooth_value = settings.effective_smooth_value
    add_k = method == "add-k"
    precisions = [0.0] * max_order
    smooth_mteval = 1.0
    eff_order = max_order
    for n in range(max_order):
        correct: float = matches[n]
        total: float = totals[n]
        if add_k and n:
            assert smooth_value is not None
            correct += smooth_value
            total += smooth_value
        if total == 0:
            break
        if settings.effective_order:
            eff_order = n + 1
        if correct == 0:
            if method == "exp":
                smooth_mteval *= 2
                precisions[n] = 100.0 / (smooth_mteval * total)
            elif method == "floor":
                assert smooth_value is not None
                precisions[n] = 100.0 * smooth_value / total
        else:
            precisions[n] = 100.0 * correct / total

    used = precisions[:eff_order]
    # math.log where no precision is 0 (all in C); the same numbers as
    # SacreBLEU's my_log either way.
    score = bp * math.exp(sum(map(_log if 0.0 in used else math.log, used)) / eff_order)
    return BleuResult(score, tuple(precisions), bp, ratio, row)


def signature_fields(settings: Settings, nrefs: int | str) -> dict[str, str]:
    """The signature's fields in SacreBLEU's order (``version`` last).

    ``nrefs`` is the number of references per segment (``"var"`` when it
    varies).  A maximum n-gram order other than 4 adds an ``order`` field,
    which SacreBLEU's signature lacks.
    """
    smooth = settings.smooth_method
    if SMOOTH_DEFAULTS[smooth] is not None:
        smooth += f"[{settings.effective_smooth_value:.2f}]"
    fields = {
        "nrefs": str(nrefs),
        "case": "lc" if settings.lowercase else "mixed",
        "eff": "yes" if settings.effective_order else "no",
        "tok": tokenizer_signature(settings.tokenize),
        "smooth": smooth,
    }
    if settings.max_order != DEFAULT_MAX_ORDER:
        fields["order"] = str(settings.max_order)
    fields["version"] = SIGNATURE_VERSION
    return fields


# ----------------------------------------------------------------------------
# The metric surface
# ----------------------------------------------------------------------------


def settings_from(options: Mapping[str, Any]) -> Settings:
    """The BLEU settings of resolved options, by dest."""
    if options.get("language_pair") is not None:
        default_tokenizer(options["language_pair"])  # a malformed pair is an error
    return Settings(
        tokenize=options["tokenize"],
        lowercase=options["lowercase"],
        smooth_method=options["smooth_method"],
        smooth_value=options["smooth_value"],
        effective_order=options["effective_order"],
        max_order=options["max_ngram_order"],
        orders=bool(options.get("bleu_orders", False)),
    )


def label(settings: Settings) -> str:
    return "BLEU"


def row_size(settings: Settings) -> int:
    return 2 + 2 * settings.max_order


def check_row(
    row: Sequence[Any], settings: Settings, segments: int, nrefs: int | str
) -> str | None:
    """Counts with a run's structure: the hypothesis has ``hyp_len`` 1-grams
    and, per segment, one n-gram fewer at each order (``totals_problem``);
    no order matches more n-grams than the hypothesis has, nor any where the
    order below matched none (an n-gram matches only where its first n - 1
    tokens do); against one reference, no more than the reference has, nor
    more than the order below.
    """
    problem = whole_counts(row)
    if problem is not None:
        return problem
    order = settings.max_order
    hyp_len, ref_len = int(row[0]), int(row[1])
    matches, totals = [int(x) for x in row[2 : 2 + order]], [int(x) for x in row[2 + order :]]
    for n, (matched, total) in enumerate(zip(matches, totals), 1):
        if matched > total:
            return f"{matched} matching {n}-grams of {total}"
    problem = totals_problem(totals, hyp_len, segments, "hypothesis tokens")
    if problem is not None:
        return problem
    for n in range(1, order):
        if matches[n] and not matches[n - 1]:
            return f"{matches[n]} matching {n + 1}-grams where no {n}-gram matches"
        if nrefs == 1 and matches[n] > matches[n - 1]:
            return (
                f"{matches[n]} matching {n + 1}-grams but {matches[n - 1]} matching "
                f"{n}-grams, against one reference"
            )
    for n, matched in enumerate(matches):
        if nrefs == 1 and matched > max(0, ref_len - n):
            return f"{matched} matching {n + 1}-grams in a reference of {ref_len} tokens"
    return None


def from_record(row: Sequence[Any], settings: Settings) -> Row:
    """Whole numbers, as a run writes them."""
    return tuple(map(int, row))


def preprocess(settings: Settings) -> Callable[[str], list[str]]:
    """SacreBLEU's BLEU preprocessing: lowercase if asked, strip, tokenize."""
    tokenize: Tokenizer = TOKENIZERS[settings.tokenize]
    if settings.lowercase:
        return lambda text: tokenize(text.lower().rstrip())
    return lambda text: tokenize(text.rstrip())


def py_prepare_refs(settings: Settings) -> Callable[[Sequence[str]], RefNgrams]:
    """References to their tokens' n-grams: the costly part, shared by every system."""
    return _prepare_refs(settings, py_prepare_ref_tokens(settings))


def _prepare_refs(
    settings: Settings, of_tokens: Callable[[Sequence[list[str]]], RefNgrams]
) -> Callable[[Sequence[str]], RefNgrams]:
    prepare = preprocess(settings)

    def refs_ngrams(refs: Sequence[str]) -> RefNgrams:
        if len(refs) == 1:  # the commonest case, with the fewest calls
            return one_reference(prepare(refs[0]))
        return of_tokens([prepare(ref) for ref in refs])

    return refs_ngrams


def py_count(settings: Settings) -> Callable[[str, RefNgrams], Row]:
    """A hypothesis against its prepared references, to the segment's row."""
    prepare = preprocess(settings)
    max_order = settings.max_order

    def row(hyp: str, refs: RefNgrams) -> Row:
        return hyp_row(prepare(hyp), refs, max_order)

    return row


def py_prepare_ref_tokens(settings: Settings) -> Callable[[Sequence[list[str]]], RefNgrams]:
    """References already preprocessed (``preprocess``'s tokens) to their
    n-grams: ``prepare_refs`` for a caller that keeps the tokens."""
    max_order = settings.max_order
    return lambda refs: reference_ngrams(refs, max_order)


def py_count_tokens(settings: Settings) -> Callable[[list[str], RefNgrams], Row]:
    """A preprocessed hypothesis against its prepared references: ``count``
    for a caller that keeps the tokens (the analyses' words)."""
    max_order = settings.max_order
    return lambda hyp, refs: hyp_row(hyp, refs, max_order)


# The pure twins of the batch functions (bleu_batches has the compiled ones).


def py_count_batch(settings: Settings) -> CountBatch:
    """Each segment's row of a batch (the batch protocol:
    ``bleustream.metrics.protocol``), counted segment by segment."""
    return segment_rows(py_prepare_refs(settings), py_count(settings))


def py_sum_batch(settings: Settings) -> SumBatch:
    """The sum of ``py_count_batch``'s rows, ready to add."""
    return sum_of_rows(py_count_batch(settings))


def py_sum_block(settings: Settings) -> SumBlock:
    """``py_sum_batch`` of blocks of raw lines (the protocol's ``sum_block``),
    decoded here."""
    return decoded_blocks(py_sum_batch)(settings)


def py_score_batch(settings: Settings) -> ScoreBatch:
    """Each row's score object, made one by one."""
    return each_score


def py_score_values_batch(settings: Settings) -> ScoreValues:
    """Each row's score, ``score(row, settings).score``: sentence BLEU as
    floats (the scores alone, without BLEU-1..N)."""
    return lambda rows: [bleu_of_row(tuple(row), settings).score for row in rows]


# The compiled twins of prepare_refs and count: the same rows as hyp_row.
# With a fused tokenizer the C code tokenizes the hypothesis too; the
# references are its tokens, of which the C code makes n-grams itself.


def c_prepare_refs(settings: Settings) -> Callable[[Sequence[str]], RefNgrams]:
    """``py_prepare_refs`` for the compiled kernels."""
    return _prepare_refs(settings, c_prepare_ref_tokens(settings))


def _compiled_references(refs: Sequence[list[str]], max_order: int) -> RefNgrams:
    """Several tokenized references as the compiled kernel reads them: their
    lengths, their tokens and how many orders they have n-grams of; it counts
    their n-grams itself, so the pure tables of ``reference_ngrams`` are not made."""
    lens = tuple(map(len, refs))
    return RefNgrams(lens, refs, ((None, {}),) * min(max_order, max(lens)))


def c_count(settings: Settings) -> Callable[[str, RefNgrams], Row]:
    """``py_count`` for the compiled kernels."""
    assert native is not None
    max_order = settings.max_order
    fused = {"13a": native.hyp_row_13a, "zh": native.hyp_row_zh}.get(settings.tokenize)
    if fused is not None:
        if settings.lowercase:
            return lambda hyp, refs: fused(hyp.lower().rstrip(), refs, max_order)
        return lambda hyp, refs: fused(hyp.rstrip(), refs, max_order)
    prepare = preprocess(settings)
    native_row = native.hyp_row
    return lambda hyp, refs: native_row(prepare(hyp), refs, max_order)


def c_prepare_ref_tokens(settings: Settings) -> Callable[[Sequence[list[str]]], RefNgrams]:
    """``py_prepare_ref_tokens`` for the compiled kernels."""
    max_order = settings.max_order

    def prepared(refs: Sequence[list[str]]) -> RefNgrams:
        if len(refs) == 1:
            return one_reference(refs[0])
        if not refs:
            raise ValueError("a segment needs at least one reference")
        return _compiled_references(refs, max_order)

    return prepared


def c_count_tokens(settings: Settings) -> Callable[[list[str], RefNgrams], Row]:
    """``py_count_tokens`` for the compiled kernels."""
    assert native is not None
    native_row, max_order = native.hyp_row, settings.max_order
    return lambda hyp, refs: native_row(hyp, refs, max_order)  # type: ignore[no-any-return]


def _c_segments(settings: Settings) -> CountBatch:
    """The rows of the compiled per-segment kernels (``c_count``)."""
    return segment_rows(c_prepare_refs(settings), c_count(settings))


def c_count_batch(settings: Settings) -> CountBatch:
    """``py_count_batch`` in one C call where the kernels tokenize as the
    settings say (``bleu_batches.compiled_rows``), else segment by segment."""
    rows = compiled_rows(settings)
    return _c_segments(settings) if rows is None else rows


def c_sum_batch(settings: Settings) -> SumBatch:
    """``py_sum_batch`` made in C without a row per segment where it can be."""
    summed = compiled_sums(settings)
    return sum_of_rows(_c_segments(settings)) if summed is None else summed


def c_sum_block(settings: Settings) -> SumBlock:
    """``py_sum_block`` in one C call that decodes the lines too, where the
    kernels tokenize as the settings say; else decoded, then ``c_sum_batch``."""
    summed = compiled_blocks(settings)
    return decoded_blocks(c_sum_batch)(settings) if summed is None else summed


def c_score_values_batch(settings: Settings) -> ScoreValues:
    """``py_score_values_batch`` in one C call (``bleu_batches.compiled_values``)."""
    return compiled_values(settings, py_score_values_batch(settings))


def with_orders(row: Row, settings: Settings) -> BleuResult:
    """BLEU of ``row``, with BLEU-1..max_order when the settings ask: each
    the BLEU of the row cut to orders 1..n, as SacreBLEU's with
    ``max_ngram_order=n`` counts it."""
    bleu = bleu_of_row(row, settings)
    if settings.orders:
        top = settings.max_order
        lengths, matches, totals = row[:2], row[2 : 2 + top], row[2 + top :]
        lower = [
            bleu_of_row((*lengths, *matches[:n], *totals[:n]), settings._replace(max_order=n)).score
            for n in range(1, top)
        ]
        bleu.by_order = (*lower, bleu.score)
    return bleu


def score(row: Sequence[Any], settings: Settings) -> BleuResult:
    """Corpus BLEU of summed statistics."""
    if not settings.orders:
        return bleu_of_row(tuple(row), settings)
    return with_orders(tuple(row), settings)


def sentence_settings(settings: Settings) -> Settings:
    """Settings for sentence BLEU: effective order on, as in SacreBLEU."""
    return settings._replace(effective_order=True)


def sentence_score(row: Sequence[Any], settings: Settings) -> BleuResult:
    """Sentence BLEU of one segment's statistics, as SacreBLEU's ``sentence_score``."""
    return with_orders(tuple(row), sentence_settings(settings))


def signature(settings: Settings, nrefs: int | str) -> dict[str, str]:
    return signature_fields(settings, nrefs)


# SacreBLEU's short names of the fields (``BLEUSignature._abbr``).
# (bleustream's own ``order`` field keeps its name: ``o`` is ``origlang``.)
SIGNATURE_SHORT = {"case": "c", "eff": "e", "tok": "tok", "smooth": "s"}


def score_object(bleu: BleuResult, settings: Settings) -> BLEUScore:
    """SacreBLEU's ``BLEUScore`` of a score.

    With add-k smoothing SacreBLEU's counts and totals hold the ``k`` it
    added to each order above the first, up to the first order without
    n-grams; so do these.
    """
    order = settings.max_order
    row = bleu.row
    if settings.smooth_method != "add-k":
        return BLEUScore.of_stats(bleu.score, list(bleu.precisions), bleu.bp, tuple(row), "")
    counts, totals = list(row[2 : 2 + order]), list(row[2 + order :])
    if any(counts):
        k = settings.effective_smooth_value
        for n in range(1, order):
            if totals[n - 1] == 0:
                break
            counts[n] += k
            totals[n] += k
    return BLEUScore(
        bleu.score, counts, totals, list(bleu.precisions), bleu.bp, int(row[0]), int(row[1])
    )


def json_fields(bleu: BleuResult, settings: Settings) -> dict[str, Any]:
    return {
        "precisions": list(bleu.precisions),
        "bp": bleu.bp,
        "ratio": float(bleu.ratio),
        "counts": bleu.counts,
        "totals": bleu.totals,
        "hyp_len": bleu.sys_len,
        "ref_len": bleu.ref_len,
        **({"bleu_orders": list(bleu.by_order)} if bleu.by_order is not None else {}),
    }


def tsv_fields(bleu: BleuResult, settings: Settings) -> list[tuple[str, str]]:
    orders = range(1, settings.max_order + 1)
    return [
        ("bleu", repr(bleu.score)),
        *((f"p{n}", repr(p)) for n, p in zip(orders, bleu.precisions)),
        ("bp", repr(bleu.bp)),
        ("ratio", repr(float(bleu.ratio))),
        ("hyp_len", str(bleu.sys_len)),
        ("ref_len", str(bleu.ref_len)),
        *((f"m{n}", str(m)) for n, m in zip(orders, bleu.counts)),
        *((f"t{n}", str(t)) for n, t in zip(orders, bleu.totals)),
        *((f"bleu{n}", repr(b)) for n, b in zip(orders, bleu.by_order or ())),
    ]


def verbose(bleu: BleuResult, settings: Settings, width: int = 1) -> str:
    """SacreBLEU's detail after the score (its digits, whatever ``width``),
    then BLEU-1..N to ``width`` decimals, as the score."""
    precisions = "/".join(f"{p:.1f}" for p in bleu.precisions)
    detail = (
        f"{precisions} (BP = {bleu.bp:.3f} ratio = {bleu.ratio:.3f} "
        f"hyp_len = {bleu.sys_len:d} ref_len = {bleu.ref_len:d})"
    )
    if bleu.by_order is not None:
        orders = "/".join(f"{b:.{width}f}" for b in bleu.by_order)
        detail += f" BLEU-1..{len(bleu.by_order)} = {orders}"
    return detail


def score_rows(sums: Any, settings: Settings) -> Any:
    """Scores of many summed rows at once (numpy), with SacreBLEU's resampling arithmetic."""
    from bleustream.metrics.array_scores import bleu_rows

    return bleu_rows(sums, settings)


# -- the twins, bound once: C where bleustream.kernels chose it ---------------
KERNEL_TWINS = {
    "count_batch": (c_count_batch, py_count_batch),
    "sum_batch": (c_sum_batch, py_sum_batch),
    "sum_block": (c_sum_block, py_sum_block),
    "score_batch": (c_score_batch, py_score_batch),
    "score_values_batch": (c_score_values_batch, py_score_values_batch),
}
prepare_refs = py_prepare_refs if native is None else c_prepare_refs
count = py_count if native is None else c_count
prepare_ref_tokens = py_prepare_ref_tokens if native is None else c_prepare_ref_tokens
count_tokens = py_count_tokens if native is None else c_count_tokens
count_batch = py_count_batch if native is None else c_count_batch
sum_batch = py_sum_batch if native is None else c_sum_batch
sum_block = py_sum_block if native is None else c_sum_block
score_batch = py_score_batch if native is None else c_score_batch
score_values_batch = py_score_values_batch if native is None else c_score_values_batch
