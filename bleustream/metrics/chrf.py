"""The chrF metric (Popović 2015) and chrF++ (Popović 2017), as SacreBLEU 2.x.

A metric module (see ``bleustream.metrics.protocol``).  A segment's statistics are
SacreBLEU's row: one ``(hyp, ref, match)`` triplet per order, character
orders 1..``char_order`` first, then word orders 1..``word_order``, taken
from the reference whose f-score is best.  ``f_score`` performs the same
floating-point operations in the same order as SacreBLEU's
``CHRF._compute_f_score``, so scores agree to the last bit.

SacreBLEU's quirks kept on purpose:

* character n-grams are taken after deleting all white space (``str.split``
  white space) unless ``whitespace`` is set;
* chrF++ words are the white-space split words with one ASCII punctuation
  mark split off the end, or else off the start, of words longer than one
  character (so ``"(hi)"`` gives ``"(hi"`` and ``")"``);
* an order whose reference has no n-grams counts no hypothesis n-grams
  either (``hyp`` is 0 in that triplet);
* the best reference is the first with the highest f-score (strict ``>``).

Speed: SacreBLEU builds each n-gram with a Python-level slice, counts them
in a ``Counter`` and matches them in a Python loop.  Here no Python code
runs per n-gram:

* the n-grams of order n are those of order n-1 with the next item
  appended, by ``map`` (one string concatenation per character n-gram);
* a reference's n-grams are counted by the C helper behind ``Counter``
  into plain dicts, but only where that is needed to find the n-grams that
  repeat: characters and character pairs in full; above them only the
  n-grams whose prefix repeats, since an n-gram that occurs twice has a
  prefix that occurs twice (and once an order has no repeat, no higher
  order has one);
* each n-gram both sides hold matches once, a count taken by one C-level
  set intersection; only the few n-grams the reference repeats can match
  more.  Against one reference only those are counted in the hypothesis
  (``filter``, C level), unless they are most of the reference (characters
  nearly all repeat) and all are; against several, an order that any of
  them repeats in is counted in full once, for all of them;
* an n-gram can only match if its prefix of order n-1 does, so once an
  order has no match the higher orders are not built at all;
* the hypothesis n-grams are built once, however many references there
  are, and the references once per segment, however many systems.

The hashing and allocation of every n-gram remain, and they are most of
the cost.
"""

from __future__ import annotations

import collections
import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial
from itertools import compress
from typing import Any, Callable

from bleustream.frozen import Fields, Frozen
from bleustream.kernels import native
from bleustream.metrics.chrf_batches import (
    c_count,
    c_count_batch,
    c_prepare_refs,
    c_score_batch,
    c_sum_batch,
    c_sum_block,
)
from bleustream.metrics.chrf_fscore import f_score
from bleustream.metrics.chrf_options import (  # noqa: F401 (the metric's surface)
    DEFAULT_BETA,
    DEFAULT_CHAR_ORDER,
    DEFAULT_WORD_ORDER,
    MAX_BETA,
    MAX_ORDER,
    NAME,
    OPTIONS,
    SCORE_ONLY,
    SCORE_ONLY_ONE_REF,
    TITLE,
)
from bleustream.metrics.ngrams import matches_past_once, repeated_counts
from bleustream.metrics.protocol import (
    CountBatch,
    Row,
    ScoreBatch,
    SumBatch,
    SumBlock,
    decoded_blocks,
    each_score,
    is_whole,
    option_values,
    segment_rows,
    sum_of_rows,
)
from bleustream.metrics.scores import SIGNATURE_VERSION, CHRFScore

# SacreBLEU's chrF++ word splitter looks at ASCII punctuation only
# (string.punctuation).
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


_count_into: Callable[[dict, Any], None] = collections._count_elements  # type: ignore[attr-defined]


class Settings(Frozen):
    """Everything that decides a chrF score, as in SacreBLEU's signature."""

    char_order: int = DEFAULT_CHAR_ORDER
    word_order: int = DEFAULT_WORD_ORDER
    beta: int = DEFAULT_BETA
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    def __post_init__(self) -> None:
        for name, most in (
            ("char_order", MAX_ORDER),
            ("word_order", MAX_ORDER),
            ("beta", MAX_BETA),
        ):
            value = getattr(self, name)
            if not is_whole(value):
                raise ValueError(f"{name} must be a whole number, not {value!r}")
            if value < 0:
                raise ValueError(f"{name} must not be negative: {value}")
            if value > most:
                raise ValueError(f"{name} must be at most {most}: {value}")
        if self.char_order + self.word_order == 0:
            raise ValueError("the character and word n-gram orders cannot both be 0")

    @property
    def order(self) -> int:
        """The number of orders, character and word: the triplets in a row."""
        return self.char_order + self.word_order


DEFAULT_SETTINGS = Settings()


class ChrfResult(Fields):
    """A chrF score (a percentage) and the statistics it was computed from."""

    score: float
    row: Row

    def __init__(self, score: float, row: Row) -> None:
        self.__dict__.update(score=score, row=row)  # (one per sentence: assigned directly)


def settings_from(options: Mapping[str, Any]) -> Settings:
    """The chrF settings of resolved options, by dest (a missing or None value
    takes the option's default)."""
    values = option_values(options, OPTIONS)
    return Settings(
        char_order=values["chrf_char_order"],
        word_order=values["chrf_word_order"],
        beta=values["chrf_beta"],
        lowercase=values["chrf_lowercase"],
        whitespace=values["chrf_whitespace"],
        eps_smoothing=values["chrf_eps_smoothing"],
    )


def label(settings: Settings) -> str:
    """SacreBLEU's name of the score: ``chrF2``, ``chrF2++``, ``chrF1+``."""
    return f"chrF{settings.beta}" + "+" * settings.word_order


def row_size(settings: Settings) -> int:
    return 3 * settings.order


def check_row(
    row: Sequence[Any], settings: Settings, segments: int, nrefs: int | str
) -> str | None:
    """What a run could not have written in ``row`` (``chrf_records.row_problem``,
    loaded when statistics are read back)."""
    from bleustream.metrics.chrf_records import row_problem

    return row_problem(row, settings, segments)


def from_record(row: Sequence[Any], settings: Settings) -> Row:
    """Whole numbers, as a run writes them."""
    return tuple(map(int, row))


# ----------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------

# One order of a reference: what it shares with some n-grams (the set of the
# distinct ones among them), its total, the n-grams that occur more than once
# with their counts (empty when none does), and whether those occurrences
# are most of the total.
OrderGrams = tuple[Callable[[Iterable[Any]], set], int, dict, bool]
_NONE_REPEATED: dict = {}  # shared, never changed
_NO_GRAMS: frozenset = frozenset()
# Orders counted in full in a reference (see _prepared_orders).  Nearly every
# character of a sentence repeats, so nearly every character pair has a
# repeated prefix and looking only at those would save nothing; few words do.
_COUNTED_CHAR_ORDERS = 2
_COUNTED_WORD_ORDERS = 1
# One reference: its character orders, then its word orders.
PreparedRef = tuple[tuple[OrderGrams, ...], tuple[OrderGrams, ...]]
# Appends one item to each n-gram, making the n-grams of the next order:
# strings for characters, nested pairs (("a", "b"), "c") for words (SacreBLEU
# joins words with a space; words hold no white space, so both are
# one-to-one).
Extend = Callable[[Any, Sequence[Any]], Iterator[Any]]
_EXTEND_CHARS: Extend = partial(map, operator.concat)
_EXTEND_WORDS: Extend = zip


def split_words(line: str) -> list[str]:
    """SacreBLEU's chrF++ words (``CHRF._remove_punctuation``).

    A word longer than one character loses one ASCII punctuation mark at its
    end, or else at its start, which becomes a word of its own; only one
    mark, so ``"(hi)"`` gives ``"(hi"`` and ``")"``.
    """
    out: list[str] = []
    punctuation = _PUNCTUATION
    for word in line.split():
        if len(word) > 1:
            if word[-1] in punctuation:
                out += (word[:-1], word[-1])
                continue
            if word[0] in punctuation:
                out += (word[0], word[1:])
                continue
        out.append(word)
    return out


def _prepared_orders(
    items: Sequence[Any], extend: Extend, orders: int, counted_orders: int
) -> tuple[OrderGrams, ...]:
    """A reference's n-grams of orders 1..``orders``, with those that repeat.

    Orders up to ``counted_orders`` are counted in full.  Above them only
    n-grams whose prefix (first n-1 items) repeats are: an n-gram that
    occurs twice has a prefix that occurs twice.  Once an order has no
    repeat, no higher order has one.
    """
    out: list[OrderGrams] = []
    grams: Any = items
    repeated: dict = {}
    for n in range(1, orders + 1):
        total = len(items) - n + 1
        if total <= 0:
            out.append((_NO_GRAMS.intersection, 0, _NONE_REPEATED, False))
            continue
        prefixes = grams
        if n > 1:
            grams = list(extend(grams, items[n - 1 :]))
            if not repeated:
                out.append((set(grams).intersection, total, _NONE_REPEATED, False))
                continue
        if n <= counted_orders:
            counts: dict = {}
            _count_into(counts, grams)
            if len(counts) == total:
                repeated = _NONE_REPEATED
                out.append((set(counts).intersection, total, repeated, False))
                continue
            common: Callable[[Iterable[Any]], set] = counts.keys().__and__
            repeated = repeated_counts(counts)
            # Every occurrence past the first of a distinct n-gram, and the firsts.
            occurrences = total - len(counts) + len(repeated)
        else:
            keys = set(grams)
            common = keys.intersection
            if len(keys) == total:
                repeated = _NONE_REPEATED
                out.append((common, total, repeated, False))
                continue
            counts = {}
            _count_into(counts, compress(grams, map(repeated.__contains__, prefixes)))
            repeated = repeated_counts(counts)
            occurrences = sum(repeated.values())
        out.append((common, total, repeated, 2 * occurrences > total))
    return tuple(out)


def py_prepare_refs(settings: Settings) -> Callable[[Sequence[str]], tuple[PreparedRef, ...]]:
    """References to their n-grams (SacreBLEU's ``_extract_reference_info``)."""
    char_order, word_order = settings.char_order, settings.word_order
    lowercase, whitespace = settings.lowercase, settings.whitespace

    def prepare_one(ref: str) -> PreparedRef:
        if lowercase:
            ref = ref.lower()
        chars = ref if whitespace else "".join(ref.split())
        char_part = _prepared_orders(chars, _EXTEND_CHARS, char_order, _COUNTED_CHAR_ORDERS)
        word_part: tuple[OrderGrams, ...] = ()
        if word_order:
            words = split_words(ref)
            word_part = _prepared_orders(words, _EXTEND_WORDS, word_order, _COUNTED_WORD_ORDERS)
        return char_part, word_part

    def prepare(refs: Sequence[str]) -> tuple[PreparedRef, ...]:
        if not refs:
            raise ValueError("a segment needs at least one reference")
        return tuple(map(prepare_one, refs))

    return prepare


def _one_reference_stats(
    out: list[int], items: Sequence[Any], extend: Extend, ref_orders: tuple[OrderGrams, ...]
) -> None:
    """Appends the ``(hyp, ref, match)`` triplets of one kind of n-gram to
    ``out``: a hypothesis against one reference, its n-grams made order by
    order while they can still match.

    Each n-gram both hold matches once (a C-level intersection); only one
    the reference repeats can match more, so only those are counted in the
    hypothesis, or all of its n-grams where the reference's repeats are most
    of the reference.
    """
    grams: Any = items
    hyp_len = len(items)
    alive = True  # may order n still match (did order n-1)?
    for n, (common, ref_total, ref_repeated, mostly_repeated) in enumerate(ref_orders, 1):
        hyp_total = hyp_len - n + 1 if hyp_len >= n else 0
        if not (alive and hyp_total and ref_total):
            alive = False
            # SacreBLEU counts no hypothesis n-grams against a reference without any.
            out += (hyp_total if ref_total else 0, ref_total, 0)
            continue
        if n > 1:
            grams = list(extend(grams, items[n - 1 :]))
        if not ref_repeated:
            match = len(common(grams))
        elif mostly_repeated:
            counts: dict = {}
            _count_into(counts, grams)
            match = len(common(counts.keys())) + matches_past_once(counts, ref_repeated)
        else:
            match = len(common(grams))
            repeats: dict = {}
            _count_into(repeats, filter(ref_repeated.__contains__, grams))
            # matches_past_once the other way round: over the few the
            # hypothesis holds, not all the reference repeats (0.8% fewer
            # instructions per line than calling it).
            for gram, count in repeats.items():
                if count > 1:
                    ref_count = ref_repeated[gram]
                    match += (count if count < ref_count else ref_count) - 1
        alive = match > 0
        out += (hyp_total, ref_total, match)


class _HypGrams:
    """The n-grams of one hypothesis against several references, made order
    by order as they ask, and counted where one of them repeats an n-gram:
    once, however many references there are."""

    __slots__ = ("_counts", "_extend", "_grams", "_items")

    def __init__(self, items: Sequence[Any], extend: Extend) -> None:
        self._items = items
        self._extend = extend
        self._grams: list[Any] = [items]  # order n at [n - 1]
        self._counts: dict[int, dict] = {}

    def grams(self, n: int) -> Any:
        """The n-grams of order ``n``, in order."""
        grams = self._grams
        while len(grams) < n:
            made = len(grams)
            grams.append(list(self._extend(grams[-1], self._items[made:])))
        return grams[n - 1]

    def counts(self, n: int) -> dict:
        """The n-grams of order ``n`` counted."""
        counts = self._counts.get(n)
        if counts is None:
            counts = self._counts[n] = {}
            _count_into(counts, self.grams(n))
        return counts

    def clipped(self, n: int, ref_order: OrderGrams) -> int:
        """The sum over n-grams of order ``n`` of the smaller of the two counts:
        each n-gram both hold matches once, one the reference repeats up to
        the smaller count."""
        common, _, ref_repeated, _ = ref_order
        if not ref_repeated:
            return len(common(self.grams(n)))
        counts = self.counts(n)
        return len(common(counts.keys())) + matches_past_once(counts, ref_repeated)


def _order_stats(
    out: list[int],
    hyp_len: int,
    hyp: _HypGrams,
    ref_orders: tuple[OrderGrams, ...],
) -> None:
    """Appends the ``(hyp, ref, match)`` triplets of one kind of n-gram to ``out``."""
    alive = True  # may order n still match (did order n-1)?
    for n, ref_order in enumerate(ref_orders, 1):
        ref_total = ref_order[1]
        hyp_total = hyp_len - n + 1
        if hyp_total < 0:
            hyp_total = 0
        if alive and hyp_total and ref_total:
            match = hyp.clipped(n, ref_order)
            alive = match > 0
        else:
            match = 0
            alive = False
        # SacreBLEU counts no hypothesis n-grams against a reference without any.
        out += (hyp_total if ref_total else 0, ref_total, match)


def py_count(settings: Settings) -> Callable[[str, tuple[PreparedRef, ...]], Row]:
    """A hypothesis against its prepared references, to the best reference's row
    (SacreBLEU's ``_compute_segment_statistics``)."""
    word_order = settings.word_order
    lowercase, whitespace = settings.lowercase, settings.whitespace
    order, beta, eps_smoothing = settings.order, settings.beta, settings.eps_smoothing

    def hyp_row(hyp: str, refs: tuple[PreparedRef, ...]) -> Row:
        if lowercase:
            hyp = hyp.lower()
        chars = hyp if whitespace else "".join(hyp.split())
        words: list[str] = split_words(hyp) if word_order else []
        if len(refs) == 1:
            (ref_chars, ref_words), stats = refs[0], []
            _one_reference_stats(stats, chars, _EXTEND_CHARS, ref_chars)
            if word_order:
                _one_reference_stats(stats, words, _EXTEND_WORDS, ref_words)
            return tuple(stats)
        hyp_chars = _HypGrams(chars, _EXTEND_CHARS)
        hyp_words = _HypGrams(words, _EXTEND_WORDS)
        best: list[int] = []
        best_f = -1.0
        for ref_chars, ref_words in refs:
            stats = []
            _order_stats(stats, len(chars), hyp_chars, ref_chars)
            if word_order:
                _order_stats(stats, len(words), hyp_words, ref_words)
            f = f_score(stats, order, beta, eps_smoothing)
            if f > best_f:
                best_f = f
                best = stats
        return tuple(best)

    return hyp_row


def py_count_batch(settings: Settings) -> CountBatch:
    """Each segment's row of a batch, counted segment by segment."""
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


# ----------------------------------------------------------------------------
# Scores and their presentation
# ----------------------------------------------------------------------------


def score(row: Sequence[Any], settings: Settings) -> ChrfResult:
    """Corpus chrF of summed statistics."""
    if len(row) != row_size(settings):
        raise ValueError(f"a chrF row of {len(row)} numbers, {row_size(settings)} expected")
    value = f_score(row, settings.order, settings.beta, settings.eps_smoothing)
    return ChrfResult(value, tuple(row))


def sentence_score(row: Sequence[Any], settings: Settings) -> ChrfResult:
    """Sentence chrF: SacreBLEU's ``sentence_score`` is its corpus score of
    one segment, so the same computation."""
    return score(row, settings)


def signature(settings: Settings, nrefs: int | str) -> dict[str, str]:
    """SacreBLEU's ``CHRFSignature`` fields in its order, ``version`` last."""
    return {
        "nrefs": str(nrefs),
        "case": "lc" if settings.lowercase else "mixed",
        "eff": "no" if settings.eps_smoothing else "yes",
        "nc": str(settings.char_order),
        "nw": str(settings.word_order),
        "space": "yes" if settings.whitespace else "no",
        "version": SIGNATURE_VERSION,
    }


# SacreBLEU's short names of the fields (``CHRFSignature._abbr``).
SIGNATURE_SHORT = {"case": "c", "eff": "e", "nc": "nc", "nw": "nw", "space": "s"}


def score_object(chrf: ChrfResult, settings: Settings) -> CHRFScore:
    """SacreBLEU's ``CHRFScore`` of a score."""
    return CHRFScore(chrf.score, settings.char_order, settings.word_order, settings.beta)


def _triplets(chrf: ChrfResult, settings: Settings) -> list[tuple[str, int, int, int]]:
    """(prefix, hyp, ref, match) per order: ``c1``..``cN``, then ``w1``..``wM``."""
    row = chrf.row
    names = [f"c{n}" for n in range(1, settings.char_order + 1)]
    names += [f"w{n}" for n in range(1, settings.word_order + 1)]
    return [(name, *row[3 * i : 3 * i + 3]) for i, name in enumerate(names)]  # type: ignore[misc]


def json_fields(chrf: ChrfResult, settings: Settings) -> dict[str, Any]:
    """The raw statistics, one list per kind, indexed by order - 1.

    ``char_hyp``, ``char_ref``, ``char_match``: character n-grams of the
    hypothesis, of the chosen reference, and matched (clipped); then
    ``word_hyp``, ``word_ref``, ``word_match`` likewise for words, only when
    ``word_order`` > 0.
    """
    row = list(chrf.row)
    chars, words = row[: 3 * settings.char_order], row[3 * settings.char_order :]
    fields = {"char_hyp": chars[0::3], "char_ref": chars[1::3], "char_match": chars[2::3]}
    if settings.word_order:
        fields.update(word_hyp=words[0::3], word_ref=words[1::3], word_match=words[2::3])
    return fields


def tsv_fields(chrf: ChrfResult, settings: Settings) -> list[tuple[str, str]]:
    """``chrf``, then ``chrf_c1_hyp``, ``chrf_c1_ref``, ``chrf_c1_match``, ...,
    ``chrf_w1_hyp``, ...: one column per statistic."""
    out = [("chrf", repr(chrf.score))]
    for name, hyp, ref, match in _triplets(chrf, settings):
        out += [
            (f"chrf_{name}_hyp", str(hyp)),
            (f"chrf_{name}_ref", str(ref)),
            (f"chrf_{name}_match", str(match)),
        ]
    return out


def verbose(chrf: ChrfResult, settings: Settings, width: int = 1) -> str:
    """SacreBLEU prints nothing after a chrF score."""
    return ""


def score_rows(sums: Any, settings: Settings) -> Any:
    """Scores of many summed rows at once (numpy), with SacreBLEU's resampling arithmetic."""
    from bleustream.metrics.array_scores import chrf_rows

    return chrf_rows(sums, settings)


# -- the twins, bound once: C where bleustream.kernels chose it ---------------
KERNEL_TWINS = {
    "count_batch": (c_count_batch, py_count_batch),
    "sum_batch": (c_sum_batch, py_sum_batch),
    "sum_block": (c_sum_block, py_sum_block),
    "score_batch": (c_score_batch, py_score_batch),
}
# (The two paths prepare references differently: a path's count reads its
# own prepare_refs' output only.)
prepare_refs: Callable[[Settings], Callable[[Sequence[str]], Any]] = (
    py_prepare_refs if native is None else c_prepare_refs
)
count: Callable[[Settings], Callable[[str, Any], Row]] = py_count if native is None else c_count
count_batch = py_count_batch if native is None else c_count_batch
sum_batch = py_sum_batch if native is None else c_sum_batch
sum_block = py_sum_block if native is None else c_sum_block
score_batch = py_score_batch if native is None else c_score_batch
