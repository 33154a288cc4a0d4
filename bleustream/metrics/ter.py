"""TER, translation edit rate (Snover et al. 2006), as SacreBLEU 2.x.

A metric module (see ``bleustream.metrics.protocol``).  A segment's statistics are
SacreBLEU's row ``(edits, ref_len)``: the fewest edits (shifts plus the
beam-limited edit distance of ``bleustream.metrics.ter_search``, compiled when the
kernels are) over the references,
and the average reference length, a float (the sum of the reference
lengths divided by their number).  Rows add as SacreBLEU sums them, so the
corpus score, ``100 * edits / ref_len``, is bit-identical to SacreBLEU's.

Text goes through SacreBLEU's TER preprocessing: the line is right-stripped,
then tokenized by the tercom tokenizer (``bleustream.tokenizers.ter_normalize``), then
split on white space; a reference is tokenized twice, as SacreBLEU does.
The references are tokenized and interned once per segment
(``prepare_refs``), for every system scored against them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable

from bleustream.frozen import Fields, Frozen
from bleustream.metrics.protocol import (
    MAX_COUNT,
    CountBatch,
    Row,
    ScoreBatch,
    SumBatch,
    as_whole,
    decoded_blocks,
    each_score,
    is_number,
    is_whole,
    option_values,
    segment_rows,
    sum_of_rows,
)
from bleustream.metrics.scores import SIGNATURE_VERSION, TERScore
from bleustream.metrics.ter_options import (  # noqa: F401 (the metric's surface)
    NAME,
    OPTIONS,
    SCORE_ONLY,
    SCORE_ONLY_ONE_REF,
    TITLE,
)
from bleustream.metrics.ter_search import Reference, count_edits, prepare_reference
from bleustream.tokenizers.ter_normalize import SIGNATURE as TOKENIZER_SIGNATURE
from bleustream.tokenizers.ter_normalize import tercom_tokenizer


class Settings(Frozen):
    """Everything that decides a TER score, as in SacreBLEU's signature."""

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False


DEFAULT_SETTINGS = Settings()


class TerResult(Fields):
    """A TER score (a percentage) and the statistics it was computed from.

    ``num_edits`` is the total number of edits as a whole number and
    ``ref_length`` the summed average reference lengths, as SacreBLEU's
    ``TERScore`` holds them.
    """

    score: float
    row: Row
    num_edits: int
    ref_length: float

    def __init__(self, score: float, row: Row, num_edits: int, ref_length: float) -> None:
        # One is made per sentence score: assigned directly.
        self.__dict__.update(score=score, row=row, num_edits=num_edits, ref_length=ref_length)


def settings_from(options: Mapping[str, Any]) -> Settings:
    """The TER settings of resolved options, by dest (a missing or None value
    takes the option's default)."""
    values = option_values(options, OPTIONS)
    return Settings(
        normalized=bool(values["ter_normalized"]),
        no_punct=bool(values["ter_no_punct"]),
        asian_support=bool(values["ter_asian_support"]),
        case_sensitive=bool(values["ter_case_sensitive"]),
    )


def label(settings: Settings) -> str:
    return "TER"


def row_size(settings: Settings) -> int:
    return 2


def check_row(
    row: Sequence[Any], settings: Settings, segments: int, nrefs: int | str
) -> str | None:
    """Edits, a whole number, and a reference length, a number, each from 0
    to ``MAX_COUNT``.  A segment's reference length is the average of its
    ``nrefs`` whole lengths; summed over segments of one reference, it is
    whole too.
    """
    edits, length = row
    whole = as_whole(edits)
    if whole is None or not 0 <= whole <= MAX_COUNT:
        return f"the edits must be a whole number from 0 to 2**53, not {edits!r}"
    if not (is_number(length) and 0 <= length <= MAX_COUNT):  # also false for nan
        return f"the reference length must be a number from 0 to 2**53, not {length!r}"
    one = segments == 1 or nrefs == 1
    if is_whole(nrefs) and one and round(length * nrefs) / nrefs != length:
        if nrefs == 1:
            return f"the reference length must be a whole number, not {length!r}"
        return (
            f"the reference length of one segment must be the average of {nrefs} "
            f"whole lengths, not {length!r}"
        )
    return None


def from_record(row: Sequence[Any], settings: Settings) -> Row:
    """Whole edits and a float reference length, as a run writes them."""
    return (int(row[0]), float(row[1]))


def _tokenizer(settings: Settings) -> Callable[[str], str]:
    return tercom_tokenizer(
        normalized=settings.normalized,
        no_punct=settings.no_punct,
        asian_support=settings.asian_support,
        case_sensitive=settings.case_sensitive,
    )


def _preprocess(settings: Settings) -> Callable[[str], list[str]]:
    """SacreBLEU's ``TER._preprocess_segment`` then ``split``: a hypothesis to its words."""
    tokenize = _tokenizer(settings)
    return lambda text: tokenize(text.rstrip()).split()


def prepare_refs(settings: Settings) -> Callable[[Sequence[str]], tuple[Reference, ...]]:
    """References to their words, interned with their match vectors
    (SacreBLEU's ``_extract_reference_info``, plus what the edit distance
    would otherwise recompute for every hypothesis).

    SacreBLEU preprocesses a reference twice: ``_cache_references`` does it,
    then ``_extract_reference_info`` does it again to the result.  The
    normalized rules are not idempotent (``"john's,"`` splits into one more
    word the second time, ``"a..5"`` too), so neither is this.
    """
    tokenize = _tokenizer(settings)

    def prepare_one(ref: str) -> Reference:
        return prepare_reference(tokenize(tokenize(ref.rstrip()).rstrip()).split())

    def prepare(refs: Sequence[str]) -> tuple[Reference, ...]:
        if not refs:
            raise ValueError("a segment needs at least one reference")
        return tuple(map(prepare_one, refs))

    return prepare


def count(settings: Settings) -> Callable[[str, tuple[Reference, ...]], Row]:
    """A hypothesis against its prepared references, to ``(edits, avg_ref_len)``
    (SacreBLEU's ``_compute_segment_statistics``): the fewest edits over the
    references, and the average reference length as a float."""
    preprocess = _preprocess(settings)

    def hyp_row(hyp: str, refs: tuple[Reference, ...]) -> Row:
        words = preprocess(hyp)
        best = min(count_edits(words, ref) for ref in refs)
        ref_lengths = sum(len(ref.ids) for ref in refs)
        return (best, ref_lengths / len(refs))

    return hyp_row


# The batch functions (bleustream.metrics.protocol): pure only; the
# costly part, each edit distance, is compiled in ter_search.


def count_batch(settings: Settings) -> CountBatch:
    """Each segment's row of a batch, counted segment by segment."""
    return segment_rows(prepare_refs(settings), count(settings))


def sum_batch(settings: Settings) -> SumBatch:
    """``count_batch``'s rows ready to add: summed with one reference a
    segment (the average length is a float of whole value), else to be
    added one by one (``batch_part``)."""
    return sum_of_rows(count_batch(settings))


sum_block = decoded_blocks(sum_batch)  # decoded, then summed as a batch


def score_batch(settings: Settings) -> ScoreBatch:
    """Each row's score object, made one by one."""
    return each_score


KERNEL_TWINS: dict[str, tuple[Callable[..., Any] | None, Callable[..., Any]]] = {}


def score(row: Sequence[Any], settings: Settings) -> TerResult:
    """Corpus TER of summed statistics (SacreBLEU's ``_compute_score_from_stats``)."""
    if len(row) != 2:
        raise ValueError(f"a TER row of {len(row)} numbers, 2 expected")
    total_edits, sum_ref_lengths = row
    if sum_ref_lengths > 0:
        value = total_edits / sum_ref_lengths
    elif total_edits > 0:
        value = 1.0  # empty references, non-empty hypothesis
    else:
        value = 0.0  # both empty
    return TerResult(100 * value, tuple(row), int(total_edits), float(sum_ref_lengths))


def sentence_score(row: Sequence[Any], settings: Settings) -> TerResult:
    """Sentence TER: SacreBLEU's ``sentence_score`` is its corpus score of one
    segment, so the same computation."""
    return score(row, settings)


def signature(settings: Settings, nrefs: int | str) -> dict[str, str]:
    """SacreBLEU's ``TERSignature`` fields in its order, ``version`` last."""
    return {
        "nrefs": str(nrefs),
        "case": "mixed" if settings.case_sensitive else "lc",
        "tok": TOKENIZER_SIGNATURE,
        "norm": "yes" if settings.normalized else "no",
        "punct": "no" if settings.no_punct else "yes",
        "asian": "yes" if settings.asian_support else "no",
        "version": SIGNATURE_VERSION,
    }


# SacreBLEU's short names of the fields (``TERSignature._abbr``).
SIGNATURE_SHORT = {"case": "c", "tok": "t", "norm": "nr", "punct": "pn", "asian": "as"}


def score_object(ter: TerResult, settings: Settings) -> TERScore:
    """SacreBLEU's ``TERScore`` of a score."""
    return TERScore(ter.score, ter.num_edits, ter.ref_length)


def json_fields(ter: TerResult, settings: Settings) -> dict[str, Any]:
    """The raw statistics: ``num_edits`` (a whole number) and ``ref_length``
    (the summed average reference lengths, a float)."""
    return {"num_edits": ter.num_edits, "ref_length": float(ter.ref_length)}


def tsv_fields(ter: TerResult, settings: Settings) -> list[tuple[str, str]]:
    """``ter``, ``ter_edits``, ``ter_ref_len``."""
    return [
        ("ter", repr(ter.score)),
        ("ter_edits", str(ter.num_edits)),
        ("ter_ref_len", repr(float(ter.ref_length))),
    ]


def verbose(ter: TerResult, settings: Settings, width: int = 1) -> str:
    """SacreBLEU prints nothing after a TER score."""
    return ""


def score_rows(sums: Any, settings: Settings) -> Any:
    """Scores of many summed rows at once (numpy), with SacreBLEU's resampling arithmetic."""
    from bleustream.metrics.array_scores import ter_rows

    return ter_rows(sums, settings)
